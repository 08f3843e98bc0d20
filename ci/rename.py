#!/usr/bin/env python3
"""Rename this project to your op's name, in every form the name takes, in contents and paths.

Run from the root of a fresh copy of the repository (a git checkout: only tracked files change):

    python3 ci/rename.py NEW_SNAKE        e.g. python3 ci/rename.py mul_double
    python3 ci/rename.py --forms NAME     the forms a snake_case name gives
    python3 ci/rename.py --leftovers OLD  where a form of OLD is still written (exit 1 if anywhere)

One snake_case name gives every form the project writes: snake (Python package, dispatcher
namespace, C++ namespace, library targets), kebab (distribution), Pascal (CMake package and its
targets), screaming (CMake options, macros), joined (myop, MYOP), camel and words ("my op"). Each
occurrence keeps its case and separator, so `MY_OP_CUDA` becomes `YOUR_OP_CUDA`. Files move with
`git mv`; binary files and symlinks are left as they are (listed). Pure stdlib.

The same run drops this project's records (records.py: its results, experiments, notes' findings and
release history) and turns each Markdown link to what went into its words alone (drop_records).

It refuses a name that is not snake_case, a name the tree already uses (a second run, or a copy
that was renamed once), and a tree where the project's name is nowhere to be found.
docs/make-it-your-own.md says what to change by hand afterwards.
"""

import argparse
import keyword
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from git_tree import git, read_text, tracked
from records import RECORDS, REMOVED, drop_records

# The project's name. The rename rewrites this line too, so a renamed copy can be renamed again.
PROJECT = "sum_double"
# The recipe's own files name example targets; those mentions are not names the tree uses.
RECIPE_FILES = {
    "ci/rename.py",
    "ci/check-rename.sh",
    "ci/check_rename.py",
    "ci/second-op.patch",
    "docs/make-it-your-own.md",
}

SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


def words_of(snake: str) -> list[str]:
    if not SNAKE.fullmatch(snake):
        raise SystemExit(f"rename.py: {snake!r} is not a snake_case name (like mul_double)")
    return snake.split("_")


def forms(snake: str) -> dict[str, str]:
    """The usual spellings of a name (the pattern below matches these and any other case mix)."""
    w = words_of(snake)
    return {
        "snake": "_".join(w),
        "kebab": "-".join(w),
        "pascal": "".join(x.capitalize() for x in w),
        "screaming": "_".join(w).upper(),
        "camel": w[0] + "".join(x.capitalize() for x in w[1:]),
        "joined": "".join(w),
        "joined-upper": "".join(w).upper(),
        "words": " ".join(w),
    }


def pattern(snake: str) -> re.Pattern[str]:
    """Any case of the words, joined by one separator ('_', '-', ' ' or none) used throughout."""
    w = words_of(snake)
    parts = [f"(?P<w0>{re.escape(w[0])})"]
    for i, word in enumerate(w[1:], 1):
        parts.append("(?P<sep>[-_ ]?)" if i == 1 else "(?P=sep)")
        parts.append(f"(?P<w{i}>{re.escape(word)})")
    return re.compile("".join(parts), re.IGNORECASE)


def spans(pat: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    for m in pat.finditer(text):
        # Words apart only as whole words ("a sum double" in prose, never "checksum double").
        if m.groupdict().get("sep") == " ":
            before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
            if (before.isalnum() or before == "_") or (after.isalnum() or after == "_"):
                continue
        yield m


def cased(word: str, like: str) -> str:
    if like.isupper():
        return word.upper()
    return word.capitalize() if like[:1].isupper() else word


def renamer(old: str, new: str):
    pat, new_words, n_old = pattern(old), words_of(new), len(words_of(old))

    def one(m: re.Match[str]) -> str:
        sep = m.groupdict().get("sep") or ""
        # Word i of the new name takes the case of word i of the old one (the last, past its end).
        return sep.join(cased(w, m.group(f"w{min(i, n_old - 1)}")) for i, w in enumerate(new_words))

    def sub(text: str) -> str:
        out, last = [], 0
        for m in spans(pat, text):
            out += [text[last : m.start()], one(m)]
            last = m.end()
        return "".join([*out, text[last:]])

    return sub


def find(root: Path, name: str, skip_contents: set[str] | None = None) -> list[str]:
    """Every tracked path, and every line of a tracked file, that writes a form of the name."""
    pat, hits = pattern(name), []
    for rel in tracked(root):
        if any(True for _ in spans(pat, rel)):
            hits.append(f"{rel}: (in the path)")
        path = root / rel
        if rel in (skip_contents or set()) or not path.exists():
            continue
        text = read_text(path)
        if text is None:
            if not path.is_symlink() and pat.search(path.read_bytes().decode("latin-1")):
                hits.append(f"{rel}: (binary file)")
            continue
        for no, line in enumerate(text.splitlines(), 1):
            if any(True for _ in spans(pat, line)):
                hits.append(f"{rel}:{no}: {line.strip()}")
    return hits


# The name becomes a C++ namespace too; these would not compile as one.
_CPP_WORDS = (
    "alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t"
    " char32_t class compl concept const consteval constexpr constinit const_cast continue"
    " co_await co_return co_yield decltype default delete do double dynamic_cast else enum"
    " explicit export extern false float for friend goto if inline int long mutable namespace new"
    " noexcept not not_eq nullptr operator or or_eq private protected public register"
    " reinterpret_cast requires return short signed sizeof static static_assert static_cast"
    " struct switch template this thread_local throw true try typedef typeid typename union"
    " unsigned using virtual void volatile wchar_t while xor xor_eq"
)
CPP_KEYWORDS = frozenset(_CPP_WORDS.split())


def refuse(why: str, lines: list[str] | None = None) -> None:
    lines = lines or []
    shown = "".join(f"\n    {x}" for x in lines[:20])
    more = f"\n    ... and {len(lines) - 20} more" if len(lines) > 20 else ""
    raise SystemExit(f"rename.py: {why}{shown}{more}")


def rename(root: Path, old: str, new: str) -> None:
    words_of(new)
    if new == old:
        refuse(f"the project is named {old!r} already")
    if pattern(old).search(new) or pattern(new).search(old):
        refuse(f"{new!r} and the project's name {old!r} contain one another: pick another name")
    if keyword.iskeyword(new) or new in sys.stdlib_module_names or new in {"torch", "tests"}:
        refuse(f"{new!r} is the name of a Python keyword or module that already exists")
    if new in CPP_KEYWORDS:
        refuse(f"{new!r} is a C++ keyword, so it cannot name the C++ namespace")
    if not find(root, old):
        refuse(f"no form of {old!r} in the tracked files of {root}: renamed already?")
    # The records may name the new one (a measurement of a copy): they go, or are cut, below.
    clash = [
        hit
        for hit in find(root, new, skip_contents=RECIPE_FILES)
        if not hit.startswith(tuple(RECORDS))
    ]
    if clash:
        refuse(f"the tree already writes {new!r}: renamed already, or pick another name", clash)

    # The records drop (below, once nothing refuses) before the rest is renamed.
    sub, files = renamer(old, new), [r for r in tracked(root) if not r.startswith(REMOVED)]
    moves = {rel: "/".join(sub(part) for part in rel.split("/")) for rel in files}
    moves = {a: b for a, b in moves.items() if a != b}
    taken = [b for b in moves.values() if os.path.lexists(root / b)]
    if taken or len(set(moves.values())) != len(moves):
        refuse("these new paths exist already (untracked files?)", taken)

    drop_records(root)
    for a, b in moves.items():
        (root / b).parent.mkdir(parents=True, exist_ok=True)
        git("mv", a, b, cwd=root)
        # Leave no empty directory under the old name (untracked files keep theirs; listed below).
        d = (root / a).parent
        while d != root and d.is_dir() and not any(d.iterdir()):
            d.rmdir()
            d = d.parent

    edited = 0
    for rel in (moves.get(r, r) for r in files):
        text = read_text(root / rel)  # None for binary files: find() below lists those named
        if text is not None and sub(text) != text:
            (root / rel).write_bytes(sub(text).encode("utf-8"))  # bytes: line endings as they were
            edited += 1

    print(f"renamed {old} -> {new}: {len(moves)} paths moved, {edited} files edited")
    stale = {
        d.relative_to(root).as_posix()
        for a in moves
        for d in (root / a).parents
        if root in d.parents and d.is_dir() and pattern(old).search(d.name)
    }
    for d in sorted(stale):
        print(f"    untracked files keep {d}/ (build output? delete it)")
    leftovers = find(root, old)
    if leftovers:
        refuse(f"{old!r} is still written here; rename these by hand", leftovers)
    print("next: commit the rename, then the hand edits of docs/make-it-your-own.md, section 3")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("new", nargs="?", metavar="NEW_SNAKE", help="the new name, e.g. mul_double")
    ap.add_argument("--forms", metavar="NAME", help="print the forms of NAME and exit")
    ap.add_argument("--leftovers", metavar="OLD", help="list where OLD is still written")
    args = ap.parse_args()
    if args.forms:
        for kind, form in forms(args.forms).items():
            print(f"{kind:13} {form}")
        return
    root = Path(git("rev-parse", "--show-toplevel", cwd=Path.cwd()).strip())
    if args.leftovers:
        hits = find(root, args.leftovers)
        for hit in hits:
            print(hit)
        print(f"{len(hits)} places write a form of {args.leftovers!r}", file=sys.stderr)
        sys.exit(1 if hits else 0)
    if not args.new:
        ap.error("give NEW_SNAKE, --forms NAME or --leftovers OLD")
    rename(root, PROJECT, args.new)


if __name__ == "__main__":
    main()

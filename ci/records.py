"""This project's records, and how a renamed copy starts without them (rename.py calls
drop_records): its results and experiments removed, its notes and changelog cut to what a new
project starts from, and each Markdown link to what went turned into its words. Pure stdlib."""

import re
from pathlib import Path

from check_links import FENCE, LINK, SCHEME, anchors
from git_tree import git, read_text, tracked

# This project's records: what it measured, tried, found and released. A renamed copy starts
# without them: a directory is removed, a file cut to what a new project starts from.
RECORDS = {
    "benchmarks/results/": "removed",
    "benchmarks/experiments/": "removed",
    "benchmarks/NOTES.md": "cut to its title and what goes there",
    "CHANGELOG.md": "cut to its header and an empty [Unreleased]",
}
REMOVED = tuple(r for r, what in RECORDS.items() if what == "removed")


NOTES_STUB = """
What was measured, how, and what it showed, by topic: a `##` section each. Each finding opens with
its date, the machine (with its torch, CUDA and driver versions) and the command that reproduces
it; files that a command writes go in `results/`. No findings yet.
"""


def notes_stub(text: str) -> str:
    title = next((line for line in text.splitlines() if line.startswith("# ")), "# Benchmark notes")
    return f"{title}\n{NOTES_STUB}"


def changelog_head(text: str) -> str:
    """The header, the text above the first release (the first `## ` heading), and no release."""
    head = re.split(r"^## ", text, maxsplit=1, flags=re.MULTILINE)[0]
    return f"{head.rstrip()}\n\n## [Unreleased]\n"


CUTS = {"benchmarks/NOTES.md": notes_stub, "CHANGELOG.md": changelog_head}


def unlink(line: str, md: Path, records: list[Path], there: set[Path]) -> tuple[str, int]:
    """The line with each relative link into a record that is gone (a removed file, or a heading
    that a cut file lost) turned into its words alone, and how many; links as check_links reads
    them. `there`: the tracked files and their directories."""
    # Code spans are no links; masked, not dropped, so that positions stay the line's.
    masked = re.sub(r"`[^`]*`", lambda m: "`" + "x" * (len(m.group()) - 2) + "`", line)
    out, last = [], 0
    for m in LINK.finditer(masked):
        target = line[m.start(1) : m.end(1)]
        path, _, fragment = target.partition("#")
        dest = (md.parent / path).resolve() if path else md
        if SCHEME.match(target) or not any(dest == r or r in dest.parents for r in records):
            continue
        if dest in there:
            if not fragment or dest.suffix != ".md":
                continue
            if fragment in anchors(dest.read_text(encoding="utf-8")):
                continue
        words = masked.index("[", m.start()) + 1
        out += [line[last : m.start()], line[words : masked.index("]", words)]]
        last = m.end()
    return "".join([*out, line[last:]]), len(out) // 2


def drop_records(root: Path) -> None:
    """Remove this project's records (RECORDS) from a copy, and the links to what went; print
    what went."""
    print("this project's records, dropped:")
    for rec, what in RECORDS.items():
        if rec in REMOVED:
            n = sum(1 for f in tracked(root) if f.startswith(rec))
            if n:  # -f: a fresh copy may have its files staged and never committed
                git("rm", "-r", "-q", "-f", "--", rec, cwd=root)
            print(f"    {rec}: {what} ({n} files)")
        elif (root / rec).is_file():
            text = (root / rec).read_text(encoding="utf-8")
            (root / rec).write_bytes(CUTS[rec](text).encode("utf-8"))
            print(f"    {rec}: {what}")
        else:
            print(f"    {rec}: not there")
    root = root.resolve()
    files = {root / f for f in tracked(root)}
    there = files | {parent for f in files for parent in f.parents}
    records = [root / r for r in RECORDS]
    for md in sorted(f for f in files if f.suffix == ".md"):
        lines, count, fenced = [], 0, False
        for line in (read_text(md) or "").splitlines(keepends=True):
            if FENCE.match(line):
                fenced = not fenced
            elif not fenced:
                line, n = unlink(line, md, records, there)
                count += n
            lines.append(line)
        if count:
            md.write_bytes("".join(lines).encode("utf-8"))
            print(f"    {md.relative_to(root)}: {count} link(s) to them now plain text")

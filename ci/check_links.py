"""Every relative link in the repository's Markdown points at something that exists.

    python ci/check_links.py            (from anywhere in the checkout; ci/lint.sh runs it)

Reads every ``*.md`` file git tracks (or would: untracked files that are not ignored count too).
A relative link or image target, ``[text](target)``, must name such a file or a directory that
holds one; a ``#fragment``, alone or after a Markdown file, must be one of that file's headings as
GitHub turns them into anchors. Web links are not fetched. Text in code is not a link.
"""

import re
import subprocess
import sys
from pathlib import Path

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:")  # https:, mailto:, ...


def prose(text: str, keep_code_spans: bool = False) -> list[str]:
    """The lines outside fenced code blocks; inline code spans blanked unless kept."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line if keep_code_spans else re.sub(r"`[^`]*`", "``", line))
    return lines


def anchors(text: str) -> set[str]:
    """GitHub's anchors for the headings: lower case, punctuation dropped, spaces to hyphens,
    -1, -2, ... on repeats."""
    seen: dict[str, int] = {}
    out = set()
    for line in prose(text, keep_code_spans=True):
        if m := HEADING.match(line):
            title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))  # a link's text only
            slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


def main() -> int:
    root = Path(git("rev-parse", "--show-toplevel").strip())
    files = {
        root / f
        for f in git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=root)
        .rstrip("\0")
        .split("\0")
    }
    dirs = {parent for f in files for parent in f.parents}
    problems, count = [], 0
    for md in sorted(f for f in files if f.suffix == ".md"):
        for line in prose(md.read_text(encoding="utf-8")):
            for target in LINK.findall(line):
                if SCHEME.match(target):
                    continue
                count += 1
                path, _, fragment = target.partition("#")
                dest = (md.parent / path).resolve() if path else md
                where = f"{md.relative_to(root)}: ({target})"
                if dest not in files and dest not in dirs:
                    problems.append(f"{where}: no such file in the repository")
                elif (
                    fragment
                    and dest.suffix == ".md"
                    and fragment not in anchors(dest.read_text(encoding="utf-8"))
                ):
                    problems.append(f"{where}: no heading with that anchor")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"check_links: {count} relative links, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""A git checkout's tracked files, for the scripts that rewrite a copy of this tree (rename.py,
records.py, check_rename.py). Pure stdlib."""

import subprocess
from pathlib import Path


def git(*args: str, cwd: Path) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return proc.stdout


def tracked(root: Path) -> list[str]:
    return [p for p in git("ls-files", "-z", cwd=root).split("\0") if p]


def read_text(path: Path) -> str | None:
    """The file's text, or None for a binary file (a NUL byte, or not UTF-8) or a symlink."""
    if path.is_symlink() or not path.is_file():
        return None
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None

"""What the sdist holds: everything a build and the tests need, nothing else.

    python ci/check_sdist.py dist/sum_double-X.tar.gz    (from the git checkout it was built from)

Every sdist member (but the generated PKG-INFO) must be a file git tracks, so no build dir,
binary or stray local file gets in; every tracked file a build or the test suite reads must be
there; measurement output (benchmarks/results/) is left out on purpose.
"""

import subprocess
import sys
import tarfile

NEEDED_DIRS = ("src/", "include/", "cuda/", "cmake/", "tests/")
# benchmarks/bench.py: tests/test_bench.py runs it; report.py and timing.py: bench.py imports them.
NEEDED_FILES = {
    "pyproject.toml",
    "CMakeLists.txt",
    "README.md",
    "LICENSE",
    "benchmarks/bench.py",
    "benchmarks/report.py",
    "benchmarks/timing.py",
}
LEFT_OUT = ("benchmarks/results/",)


def main() -> int:
    (sdist,) = sys.argv[1:]
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile()}
    tracked = set(
        subprocess.run(
            ["git", "ls-files"], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    needed = {f for f in tracked if f.startswith(NEEDED_DIRS)} | NEEDED_FILES
    problems = [f"missing: {f}" for f in sorted(needed - members)]
    problems += [f"not a tracked file: {f}" for f in sorted(members - tracked - {"PKG-INFO"})]
    problems += [f"should be left out: {f}" for f in sorted(members) if f.startswith(LEFT_OUT)]
    for problem in problems:
        print(f"{sdist}: {problem}", file=sys.stderr)
    print(f"{sdist}: {len(members)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

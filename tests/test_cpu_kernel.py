"""The CPU kernel against the reference (tests/reference.py): every float16 and bfloat16 bit
pattern, vector tails, and both sets of loops: the ones this CPU gets, and the baseline ones
(SUM_DOUBLE_CPU_BASELINE=1).

Outputs come from the op's allocator, which does not poison CPU memory (see
support.poisoned_allocations), so every check computes the op before the reference and on
operands no earlier check used: memory that a lost write leaves behind holds no answer to it.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import sum_double

from reference import reference
from support import FLOAT_DTYPES, assert_bitwise_equal, op

HALF_TYPES = (torch.float16, torch.bfloat16)
# Every NaN is the same NaN to these checks: IEEE 754 leaves the sign and payload of a NaN result
# open, and torch varies them itself (a's or b's NaN when both are NaN, by vector body or tail;
# payload kept by its AVX2 loops, dropped by its baseline ones), so they cannot be part of parity.
SPECIAL_BITS = {
    # +-0, smallest and largest subnormal, smallest normal, 1, max, inf, quiet and signalling NaN,
    # NaN with a payload.
    torch.float16: [0x0000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x7BFF, 0x7C00, 0x7E00, 0x7C01, 0x7E5A],
    torch.bfloat16: [
        0x0000,
        0x0001,
        0x007F,
        0x0080,
        0x3F80,
        0x7F7F,
        0x7F80,
        0x7FC0,
        0x7F81,
        0x7FA5,
    ],
}


def from_bits(bits: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return bits.to(torch.int32).to(torch.int16).view(dtype)  # wraps 0x8000.. to negative int16


def every_bit_pattern(dtype: torch.dtype) -> torch.Tensor:
    return from_bits(torch.arange(2**16), dtype)


def spread(dtype: torch.dtype) -> torch.Tensor:
    """b values to meet every a: special values of both signs and fresh random bit patterns."""
    special = torch.tensor(SPECIAL_BITS[dtype])
    bits = torch.cat([special, special | 0x8000, torch.randint(0, 2**16, (64,))])
    return from_bits(bits, dtype)


def rounding_partners(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Pairs (a, b) that round every way: a + b exactly halfway between two neighbours of a (a tie,
    which goes to the even one), a quarter and three quarters of the way; b = -a (exact zero), b = a
    (doubling: overflow at the top)."""
    finfo = torch.finfo(a.dtype)
    digits = {torch.float16: 11, torch.bfloat16: 8}[a.dtype]
    min_exponent = round(torch.tensor(finfo.smallest_normal).log2().item()) - (digits - 1)
    _, exponent = torch.frexp(a.double())
    ulp = torch.ldexp(
        torch.ones_like(a, dtype=torch.float64), (exponent - digits).clamp(min_exponent)
    )
    partners = [ulp * f for f in (0.5, -0.5, 0.25, -0.25, 0.75, -0.75)] + [-a.double(), a.double()]
    b = torch.cat([p.to(a.dtype) for p in partners])
    return a.repeat(len(partners)), b


def check_every_bit_pattern(dtype: torch.dtype) -> None:
    a = every_bit_pattern(dtype)
    b_values = spread(dtype)
    cross_a, cross_b = a.repeat(len(b_values)), b_values.repeat_interleave(len(a))
    near_a, near_b = rounding_partners(a)
    for x, y in ((cross_a, cross_b), (near_a, near_b)):
        out = op(x, y)
        assert_bitwise_equal(out, reference(x, y))


def random_values(n: int, dtype: torch.dtype) -> torch.Tensor:
    """Normal draws, a few with huge or tiny magnitudes, and NaN and inf here and there."""
    x = torch.randn(n, dtype=torch.float64) * torch.randint(-150, 150, (n,)).double().exp2()
    x[torch.rand(n) < 0.05] = float("nan")
    x[torch.rand(n) < 0.05] = float("inf")
    return x.to(dtype)


def check_lengths(dtype: torch.dtype) -> None:
    # Every tail length of the vector loops (up to 64 bytes wide) and pointers off every alignment;
    # then lengths that torch's thread pool splits into pieces with tails of their own.
    for n in [*range(71), 2**16 + 3, 100_003]:
        for a_offset, b_offset in ((0, 0), (1, 3), (3, 1), (5, 2)):
            a = random_values(n + a_offset, dtype)[a_offset:]
            b = random_values(n + b_offset, dtype)[b_offset:]
            out = op(a, b)
            assert_bitwise_equal(out, reference(a, b))


@pytest.mark.parametrize("dtype", HALF_TYPES)
def test_every_bit_pattern(dtype: torch.dtype) -> None:
    check_every_bit_pattern(dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_lengths_and_misaligned_pointers(dtype: torch.dtype) -> None:
    check_lengths(dtype)


def test_the_cpu_gets_its_fastest_loops() -> None:
    isa = sum_double._C.cpu_isa()
    if os.environ.get("SUM_DOUBLE_CPU_BASELINE") == "1":
        assert isa == "baseline"
        return
    flags: set[str] = set()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    if {"avx2", "f16c"} <= flags:
        assert isa == "avx2+f16c"
    elif os.uname().machine == "aarch64":
        assert isa == "aarch64"
    else:
        assert isa in ("avx2+f16c", "baseline")


def test_baseline_loops_match_the_reference() -> None:
    # What CPUs without F16C (or with no loops of their own) run, checked on this one: the checks
    # above in a process that asks for the baseline loops.
    checks = [f"check_every_bit_pattern({dtype})" for dtype in HALF_TYPES]
    checks += [f"check_lengths({dtype})" for dtype in FLOAT_DTYPES]
    script = "\n".join(
        [
            "import torch, sum_double",
            "from test_cpu_kernel import check_every_bit_pattern, check_lengths",
            "assert sum_double._C.cpu_isa() == 'baseline', sum_double._C.cpu_isa()",
            *checks,
            "print('checked')",
        ]
    )
    env = {**os.environ, "SUM_DOUBLE_CPU_BASELINE": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.splitlines()[-1] == "checked"

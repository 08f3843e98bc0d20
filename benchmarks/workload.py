"""What bench.py times and what it measures against: the input cases, the bytes a call must move,
and the datasheet bandwidth of the GPU it runs on."""

import torch

# The input shapes --cases picks from (make_inputs builds them), with what --help says of each:
# in words that name no op, so that a copy made into another op says them as they are.
CASES = {
    "same": "a and b: n elements each, of the dtype",
    "mixed": "b bfloat16 (float16 when the dtype is bfloat16): the result has the promoted dtype",
    "bias": "a (n / 8192, 8192) and b (8192,): one row broadcast to every row, as a bias is",
    "transposed": "a square matrix's transpose and a contiguous one (the largest square <= n)",
}
_BIAS = 8192  # the bias's length: a model dimension


# Memory bandwidth by the vendors' datasheets, bytes/s, matched against the device name.
DATASHEET_BYTES_PER_S = {
    "GH200": 4.0e12,
    "H200": 4.8e12,
    "H100 NVL": 3.9e12,
    "H100 PCIe": 2.0e12,
    "H100": 3.35e12,
    "B200": 8.0e12,
    "A100-SXM4-80GB": 2.039e12,
    "A100 80GB PCIe": 1.935e12,
    "A100": 1.555e12,
    "L40S": 0.864e12,
    "RTX 4090": 1.008e12,
}


def datasheet_bytes_per_s(device: torch.device) -> float | None:
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    for key, value in DATASHEET_BYTES_PER_S.items():  # most specific names come first
        if key in name:
            return value
    return None


def make_inputs(
    case: str, dtype: torch.dtype, n: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """One input set of ``case`` with n output elements (fewer for ``transposed`` where n is no
    square: the largest square below it)."""
    if case == "mixed":
        other = torch.float16 if dtype == torch.bfloat16 else torch.bfloat16
        return torch.randn(n, device=device, dtype=dtype), torch.randn(
            n, device=device, dtype=other
        )
    if case == "bias":
        width = min(n, _BIAS)
        a = torch.randn(n // width, width, device=device, dtype=dtype)
        return a, torch.randn(width, device=device, dtype=dtype)
    if case == "transposed":
        side = int(n**0.5)
        a = torch.randn(side, side, device=device, dtype=dtype).t()
        return a, torch.randn(side, side, device=device, dtype=dtype)
    return torch.randn(n, device=device, dtype=dtype), torch.randn(n, device=device, dtype=dtype)


def bytes_moved(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> int:
    return sum(t.numel() * t.element_size() for t in (a, b, out))

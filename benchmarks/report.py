"""What bench.py reports: one Row per figure (a --json record), the table it prints, the plot."""

from dataclasses import dataclass

from sum_double._definition import TWIN_NAME
from sum_double._ops import QUALNAME


@dataclass
class Row:
    device: str
    torch: str
    sum_double: str
    dtype: str
    n: int
    ours_us: float
    twin_us: float  # the twin's: the keys name no op, so a copy made into another op keeps them
    read_write_us: float | None
    speedup: float  # twin's time / our time: above 1 means we are faster
    ours_gb_s: float
    twin_gb_s: float
    read_write_gb_s: float | None
    datasheet_gb_s: float | None
    pct_of_datasheet: float | None
    case: str = "same"  # last, with a default: files written before cases existed still load


def format_table(rows: list[Row]) -> str:
    head = (
        f"{'case':<10} {'dtype':<9} {'n':>10} {'sum_double':>12} {TWIN_NAME:>12} {'speed':>6} "
        f"{'GB/s':>7} {'torch GB/s':>10} {'r+w GB/s':>9} {'% sheet':>7}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        ceiling = "" if r.read_write_gb_s is None else f"{r.read_write_gb_s:9.0f}"
        pct = "" if r.pct_of_datasheet is None else f"{r.pct_of_datasheet:6.1f}%"
        lines.append(
            f"{r.case:<10} {r.dtype:<9} {r.n:>10} {r.ours_us:>9.2f} us {r.twin_us:>9.2f} us "
            f"{r.speedup:>5.3f}x {r.ours_gb_s:>7.0f} {r.twin_gb_s:>10.0f} "
            f"{ceiling:>9} {pct:>7}"
        )
    lines.append(
        f"speed = {TWIN_NAME} time / sum_double time (above 1: faster than {TWIN_NAME}); "
        "GB/s counts a and b read once and the output written once"
    )
    return "\n".join(lines)


def plot(rows: list[Row], path: str) -> None:
    import matplotlib  # only --plot needs it; main() has checked it is there

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(dict.fromkeys((r.case, r.dtype) for r in rows))
    cols = min(2, len(panels))
    nrows = -(-len(panels) // cols)
    fig, axes = plt.subplots(
        nrows, cols, figsize=(6.5 * cols, 4.2 * nrows), squeeze=False, sharey=True
    )
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax, (case, dname) in zip(axes.flat, panels, strict=False):
        sel = [r for r in rows if (r.case, r.dtype) == (case, dname)]
        ns = [r.n for r in sel]
        ax.plot(ns, [r.ours_gb_s for r in sel], "o-", label=QUALNAME)
        ax.plot(ns, [r.twin_gb_s for r in sel], "s--", label=TWIN_NAME)
        if sel[0].read_write_gb_s is not None:
            ax.plot(
                ns,
                [r.read_write_gb_s for r in sel],
                ":",
                color="gray",
                label="read+write ceiling (torch.neg)",
            )
        if sel[0].datasheet_gb_s is not None:
            ax.axhline(sel[0].datasheet_gb_s, color="red", lw=0.8, label="datasheet")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements")
        ax.set_title(dname if case == "same" else f"{case}, {dname}")
        ax.grid(True, which="both", alpha=0.3)
    for row in axes:
        row[0].set_ylabel("GB/s (bytes moved / time)")
    axes[0][0].legend(loc="upper left")
    fig.suptitle(
        f"sum_double {rows[0].sum_double} vs {TWIN_NAME}, {rows[0].device}, torch {rows[0].torch}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)

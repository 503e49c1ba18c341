"""One look for every figure: seaborn theme, platform colours and markers, deterministic output.

Call `apply()` once before drawing (each `fig_*` function does). `save(fig, out_dir, name)` writes
a vector PDF (for LaTeX) and a PNG (for notebooks and the HTML report) with the metadata that
changes from run to run removed, so the same data gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

from vbench.samples import is_aa  # noqa: E402
from vbench.wording import platform_label  # noqa: E402

#: Figure sizes in inches: one text column of an A4 article with 2.2 cm margins is ~6.3 in.
WIDTH = 6.3
HEIGHT = 2.6
PNG_DPI = 150

#: Platforms always get the same colour and marker, whichever subset a figure shows.
PLATFORM_ORDER = ("native", "lxc", "oci", "qemu", "gvisor")
_PALETTE = sns.color_palette("colorblind", 8)
_COLOURS = {p: _PALETTE[i] for i, p in enumerate(PLATFORM_ORDER)}
_MARKERS = {"native": "o", "lxc": "s", "oci": "D", "gvisor": "h", "qemu": "^"}
_EXTRA_MARKERS = ("P", "X", "*", "<")  # not "v": the A/A copy's
#: The A/A copy (the baseline measured again as a configuration of its own, `native~aa`) is a check,
#: not a platform: a dark grey, hatched where it is a bar, with its own marker, so that it differs
#: from every platform's colour in hue and from LXC's orange in lightness too (it reads apart in
#: greyscale: luma 0.25 against LXC's 0.59).
AA_COLOUR = (0.25, 0.25, 0.25)
AA_MARKER = "v"
AA_HATCH = "////"

RC = {
    "svg.hashsalt": "vbench",
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "font.family": "serif",
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.0,
    "lines.markersize": 4,
    "errorbar.capsize": 2,
    "figure.dpi": 100,
    "savefig.bbox": "standard",
}


def apply() -> None:
    """The shared seaborn theme plus vbench's rc settings."""
    sns.set_theme(context="paper", style="whitegrid", palette=_PALETTE, rc=RC)


def colour(platform: str, index: int = 0):
    if is_aa(platform):
        return AA_COLOUR
    return _COLOURS.get(platform, _PALETTE[(4 + index) % len(_PALETTE)])


def marker(platform: str, index: int = 0) -> str:
    if is_aa(platform):
        return AA_MARKER
    return _MARKERS.get(platform, _EXTRA_MARKERS[index % len(_EXTRA_MARKERS)])


def hatch(platform: str) -> str | None:
    """The hatch of a platform's bars: the A/A copy's only."""
    return AA_HATCH if is_aa(platform) else None


def label(platform: str) -> str:
    """A platform as a legend or tick label names it: "LXC", "native (A/A copy)" (the names live in
    vbench.wording, where the tables and macros find them too)."""
    return platform_label(platform)


def figure(ncols: int = 1, height: float = HEIGHT, width: float = WIDTH, widths: list[float] | None = None):
    """A row of `ncols` panels, as wide as one another or in the ratios `widths`."""
    grid = {"width_ratios": widths} if widths else None
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False, layout="constrained", gridspec_kw=grid)
    return fig, list(axes[0])


def save(fig, out_dir: Path, name: str) -> list[Path]:
    """Write `<name>.pdf` and `<name>.png` into `out_dir`, without timestamps; close the figure."""
    out_dir.mkdir(parents=True, exist_ok=True)
    pdf, png = out_dir / f"{name}.pdf", out_dir / f"{name}.png"
    fig.savefig(
        pdf, format="pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": None, "Creator": "vbench"}
    )
    fig.savefig(png, format="png", dpi=PNG_DPI, metadata={"Software": None})
    plt.close(fig)
    return [pdf, png]

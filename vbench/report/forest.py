"""The summary's forest plot: each comparison's ratio and 95 % interval on a log axis, the A/A rows
below them, the equivalence band around 1. Drawn without pyplot (a notebook shows it once, where
it is asked for); saved without the metadata that changes from run to run, so the same summary
gives the same bytes."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedFormatter, FixedLocator, NullFormatter, NullLocator

from vbench.report.summary import DIFFERS, EQUIVALENT, NO_INTERVAL, UNCLEAR, AACheck, CampaignSummary
from vbench.report.summary import display, split_aa, verdict

#: A colour per verdict (colour-blind safe: Okabe-Ito), the A/A rows grey.
COLOURS = {EQUIVALENT: "#009E73", DIFFERS: "#D55E00", UNCLEAR: "#0072B2", NO_INTERVAL: "#999999"}
LEGEND = {
    EQUIVALENT: "equivalent (TOST)",
    DIFFERS: "differs (interval excludes 1)",
    UNCLEAR: "not distinguishable (interval holds 1)",
    NO_INTERVAL: "no interval",
}
AA_COLOUR = "#555555"
#: An A/A row whose interval excludes 1 (the campaign's false-positive check failed): drawn in the
#: colour of a difference, so that the figure cannot be read as a clean run.
AA_FAILS_COLOUR = COLOURS[DIFFERS]
BAND_COLOUR = "#009E73"
#: Ticks of the log axis, as ratios people read (only those inside the drawn range are kept).
TICKS = (
    0.05,
    0.1,
    0.2,
    0.25,
    0.33,
    0.5,
    0.67,
    0.75,
    0.8,
    0.85,
    0.9,
    0.95,
    1.0,
    1.05,
    1.1,
    1.15,
    1.2,
    1.25,
    1.33,
    1.5,
    2,
    3,
    4,
    5,
    10,
    20,
    50,
)
PNG_DPI = 150
#: Ticks closer than this share of the axis's log range would print over each other.
MIN_TICK_GAP = 0.07


def ticks(lo: float, hi: float) -> list[float]:
    """TICKS inside [lo, hi], outwards from 1, each far enough from the last kept. Pure."""
    gap = MIN_TICK_GAP * (math.log(hi) - math.log(lo))
    inside = [t for t in TICKS if lo <= t <= hi]
    kept = [1.0] if lo <= 1.0 <= hi else []
    for side in ([t for t in inside if t > 1], [t for t in reversed(inside) if t < 1]):
        last = 1.0
        for t in side:
            if abs(math.log(t) - math.log(last)) >= gap:
                kept.append(t)
                last = t
    return sorted(kept) or inside[:1]


def _row_label(text: str, experiments: int, experiment: str) -> str:
    return f"{experiment}: {text}" if experiments > 1 else text


def _aa_colour(a: AACheck) -> str:
    return AA_FAILS_COLOUR if a.passes is False else AA_COLOUR


def forest_figure(s: CampaignSummary) -> Figure:
    """Rows top to bottom: the comparisons in the table's order, then the A/A checks."""
    shown = split_aa(s.ratios)
    experiments = len({r.experiment for r in shown})
    rows = [
        (_row_label(r.label, experiments, r.experiment), r.ratio, r.low, r.high, COLOURS[verdict(r).kind], "o")
        for r in shown
    ] + [
        (f"A/A {a.label}" + (" (fails)" if a.passes is False else ""), a.ratio, a.low, a.high, _aa_colour(a), "s")
        for a in s.aa
    ]
    height = 1.3 + 0.28 * max(len(rows), 1)
    fig = Figure(figsize=(8.0, height), layout="constrained")
    ax = fig.subplots()
    if not rows:
        ax.axis("off")
        ax.text(0.5, 0.5, f"campaign {s.campaign}: nothing compared", ha="center", va="center")
        return fig
    e = s.settings.equivalence_pct / 100
    ax.axvspan(1 - e, 1 + e, color=BAND_COLOUR, alpha=0.12, lw=0)
    ax.axvline(1.0, color="black", lw=0.8)
    if shown and s.aa:
        ax.axhline(len(shown) - 0.5, color="#999999", lw=0.6, ls="--")
    values = []
    for y, (_, ratio, low, high, colour, marker) in enumerate(rows):
        if ratio is None or ratio <= 0:
            continue
        values.append(ratio)
        if low is not None and high is not None and low > 0:
            ax.plot([low, high], [y, y], color=colour, lw=1.6, solid_capstyle="butt")
            values += [low, high]
        ax.plot([ratio], [y], marker=marker, color=colour, ms=5, ls="none")
        ax.annotate(
            f"{ratio:.3f}", (1.0, y), xycoords=("axes fraction", "data"), xytext=(4, 0), textcoords="offset points",
            va="center", fontsize=7, color=colour,
        )  # fmt: skip
    lo, hi = min([*values, 1 - e]), max([*values, 1 + e])
    pad = (math.log(hi) - math.log(lo)) * 0.06 or 0.02
    ax.set_xscale("log")
    xlo, xhi = math.exp(math.log(lo) - pad), math.exp(math.log(hi) + pad)
    ax.set_xlim(xlo, xhi)
    shown_ticks = ticks(xlo, xhi)
    ax.xaxis.set_major_locator(FixedLocator(shown_ticks))
    ax.xaxis.set_major_formatter(FixedFormatter([f"{t:g}" for t in shown_ticks]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.grid(axis="x", color="#dddddd", lw=0.5)
    ax.set_axisbelow(True)
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel(f"ratio to {display(s.baseline, s.compare)} (log scale), 95 % interval", fontsize=8)
    ax.set_title(f"campaign {s.campaign}", fontsize=9, loc="left")
    kinds = sorted({verdict(r).kind for r in shown}, key=list(COLOURS).index)
    handles = [Patch(color=BAND_COLOUR, alpha=0.25, label=f"equivalence band +/-{s.settings.equivalence_pct:g} %")]
    handles += [Line2D([], [], color=COLOURS[k], marker="o", lw=1.6, label=LEGEND[k]) for k in kinds]
    if any(a.passes is not False for a in s.aa):
        handles.append(Line2D([], [], color=AA_COLOUR, marker="s", lw=1.6, label="A/A (baseline vs its copy)"))
    if any(a.passes is False for a in s.aa):
        label = "A/A fails (interval excludes 1): read every row with care"
        handles.append(Line2D([], [], color=AA_FAILS_COLOUR, marker="s", lw=1.6, label=label))
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 3), fontsize=7, frameon=False)
    return fig


def save_forest(fig: Figure, png: Path, svg: Path) -> tuple[Path, Path]:
    """PNG and SVG without the date, software and random ids that would differ run to run."""
    png.parent.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context({"svg.hashsalt": "vbench", "svg.fonttype": "none"}):
        fig.savefig(png, format="png", dpi=PNG_DPI, metadata={"Software": None})
        fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    return png, svg

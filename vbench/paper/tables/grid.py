"""A table's content (`Grid`) and its LaTeX (`render`), and what every table of the paper shares:
its platforms in order, the cells of a statistics table with the facts their notes need (`Cells`),
and the notes themselves (n, gaps, single runs, where the numbers come from, the platforms no
campaign ran). The bottom of `vbench.paper.tables`: it imports none of its siblings."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from vbench.params import PLATFORMS
from vbench.stats.keys import natural_key
from vbench.stats.table.groups import BLOCK_MEANS

from vbench.paper import results as R
from vbench.paper.fmt import NOT_MEASURED, configuration_tex, num_pm, tex_escape


@dataclass
class Grid:
    """A table's content before it becomes LaTeX."""

    header: list[str]
    rows: list[list[str]]
    colspec: str
    caption: str
    label: str
    notes: list[str]
    size: str = r"\small"
    rules_after: tuple[int, ...] = ()  # \midrule after these body rows (0-based)
    above: str = ""  # a header line above `header` (column groups), with its own rules

    @property
    def empty(self) -> bool:
        return not self.rows


def render(g: Grid) -> str:
    ncols = len(g.header)
    lines = [
        r"\begin{table}[htbp]",
        r"\centering",
        g.size,
        rf"\caption{{{g.caption}}}",
        rf"\label{{{g.label}}}",
        rf"\begin{{tabular}}{{{g.colspec}}}",
        r"\toprule",
        *([g.above] if g.above else []),
        " & ".join(g.header) + r" \\",
        r"\midrule",
    ]
    if g.empty:
        lines.append(rf"\multicolumn{{{ncols}}}{{c}}{{\emph{{not measured in this campaign}}}} \\")
    for i, row in enumerate(g.rows):
        lines.append(" & ".join(row) + r" \\")
        if i in g.rules_after and i != len(g.rows) - 1:
            lines.append(r"\midrule")
    lines += [r"\bottomrule", r"\end{tabular}"]
    notes = [n for n in g.notes if n and (not g.empty or not n.startswith(ABSENT_PREFIX))]
    if notes:
        lines.append(r"\par\smallskip\parbox{0.95\linewidth}{\footnotesize\raggedright " + " ".join(notes) + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def has_data(tex: str) -> bool:
    """Whether a rendered table has any measured row."""
    return "not measured in this campaign}" not in tex


def campaign_platforms(samples: pd.DataFrame, baseline: str) -> list[str]:
    if samples is None or samples.empty:
        return []
    ps = sorted(samples["platform"].astype(str).unique(), key=natural_key)
    return ([baseline] if baseline in ps else []) + [p for p in ps if p != baseline]


#: How a table names the platforms vbench runs that none of the campaigns it reads ran (e.g.
#: gVisor beside the studies' tables: only the sandbox study runs it, and it has its own table).
ABSENT_PREFIX = "Not run in the campaigns this table reads: "


def absent_note(samples: pd.DataFrame, baseline: str) -> str:
    missing = [p for p in PLATFORMS if p not in campaign_platforms(samples, baseline)]
    return (ABSENT_PREFIX + ", ".join(configuration_tex(p) for p in missing) + ".") if missing else ""


def n_range(ns: list[int]) -> str:
    """`$n=3$`, or `$n=2$--$5$` when the counts differ (`$n=0$` for none)."""
    lo, hi = (min(ns), max(ns)) if ns else (0, 0)
    return f"$n={lo}$" if lo == hi else f"$n={lo}$--${hi}$"


def _cell_notes(
    ns: list[int], any_missing: bool, any_single: bool, conf_pct: str = "95", pooled: list[int] | None = None
) -> str:
    """The note under a table of means: `ns` the blocks behind each cell whose interval is over its
    blocks' means (the design's unit), `pooled` the runs behind each cell of a campaign with fewer
    than two blocks, whose runs the interval counts as independent (said so)."""
    pooled = pooled or []
    parts = [rf"Mean $\pm$ half-width of the {conf_pct}\,\% Student-$t$ confidence interval"]
    if ns:
        per = "" if min(ns) == max(ns) else " per cell"
        parts[0] += (
            f" over the means of {n_range(ns)} block{'s' if max(ns) != 1 else ''}{per}, the design's unit"
            " (a block's hosts, repeats and rounds share its cluster instance: averaged, not counted as"
            " independent)."
        )
    if pooled:
        parts.append(
            ("Cells" if ns else "Intervals")
            + f" over {n_range(pooled)} runs where the campaign recorded fewer than two blocks:"
            " its runs are counted as independent, and block-to-block variation is not in the interval."
        )
    if not ns and not pooled:
        parts[0] += "."
    if any_single:
        parts.append(r"$^\dagger$~one run only: no interval.")
    if any_missing:
        parts.append(r"\textemdash~not measured.")
    return " ".join(parts)


class Cells:
    """Collects cells and the facts the table's notes need (n range, gaps, single runs)."""

    def __init__(self, stats: R.StatisticsLookup) -> None:
        self.stats = stats
        self.ns: list[int] = []  # blocks behind the cells whose interval is over block means
        self.pooled: list[int] = []  # runs behind the cells of campaigns with fewer than two blocks
        self.missing = False
        self.single = False
        self.any_value = False

    def mean(self, experiment, platform, benchmark, metric, size) -> str:
        """A group's mean with its interval over block means where the campaign has blocks
        (`vbench.stats.table.groups.BLOCK_MEANS`), else over its runs (and the note says so)."""
        row = R.block_mean_row(self.stats, experiment, platform, benchmark, metric, size) if experiment else None
        if row is None and experiment:
            row = R.mean_row(self.stats, experiment, platform, benchmark, metric, size)
        return self.from_row(row)

    def from_row(self, row) -> str:
        if row is None or pd.isna(row["estimate"]):
            self.missing = True
            return NOT_MEASURED
        self.any_value = True
        n = int(row["n"]) if pd.notna(row["n"]) else 0
        (self.ns if str(row.get("method")) == BLOCK_MEANS else self.pooled).append(n)
        if pd.isna(row["ci_low"]) or pd.isna(row["ci_high"]):
            self.single = True
        return num_pm(row["estimate"], row["ci_low"], row["ci_high"])

    def notes(self) -> str:
        return _cell_notes(self.ns, self.missing, self.single, pooled=self.pooled)


def experiment_tex(samples, experiment) -> str:
    """An experiment as a table names it (R.experiment_name), safe inside LaTeX."""
    return tex_escape(R.experiment_name(samples, experiment))


def where_note(samples, experiment, size) -> str:
    """Where a table's numbers come from: the campaign (data/raw/<name>) and the cell, for the
    reader who wants the runs; the statistics' `<experiment>@<campaign>` key never (R.experiment_source)."""
    source = R.experiment_source(samples, experiment) if experiment else ""
    bits = [f"Campaign \\texttt{{{tex_escape(source)}}}"] if source else []
    if experiment and not source:
        bits.append(f"Experiment \\texttt{{{tex_escape(experiment)}}}")
    if size:
        bits.append(f"cell \\texttt{{{tex_escape(size)}}}")
    return (", ".join(bits) + ".") if bits else ""

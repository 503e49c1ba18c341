"""The comparison the notebook shows: the statistics stage's own table, not a plotting library's
resampling, so the notebook, `data/processed/<campaign>/stats.csv` and the paper agree.

`campaign_statistics` calls `vbench.stats.campaign_stats.campaign_stats`, the function the
statistics stage (`vbench.pipeline.statistics`) writes its table with, on the whole campaign and
with the stage's settings: Holm's correction of the verdicts spans every comparison of the
campaign, so a table of one benchmark alone would give other verdicts. `ratios` reads one
benchmark and metric's ratios to the baseline from it, one per cell and level, with the method the
statistics preferred and why a number is missing when it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from vbench.errors import VbenchError
from vbench.explore.data import CampaignData
from vbench.report.rows import cell_ratio_fields
from vbench.report.summary import CellRatio
from vbench.stats.campaign_stats import campaign_stats
from vbench.stats.keys import natural_key
from vbench.stats.table.cells import cell_count, cell_number, preferred_row


@dataclass(frozen=True, eq=False)
class CampaignStatistics:
    #: The statistics stage's table of the campaign (None when the stage refuses its samples).
    table: pd.DataFrame | None
    #: Why there is no table: the stage's own message.
    problem: str = ""


@dataclass(frozen=True)
class Ratio(CellRatio):
    """One level against the baseline in one cell, as the statistics table says it: the campaign
    summary's record, read as the summary reads it so that the notebook and `vbench campaign
    summary` cannot tell one comparison two ways, and what the notebook's table shows beside it."""

    conf_level: float | None
    n_baseline: int | None
    n_pairs: int | None
    #: TOST's verdict after Holm over the campaign's equivalence tests.
    equivalence: str
    direction: str
    note: str

    def text(self) -> str:
        """e.g. "1.0173 [0.9850, 1.0790] (paired-t (blocks), 95 %)"; the note when there is no number."""
        if self.ratio is None:
            return f"no ratio: {self.note}"
        interval = f" [{fmt(self.low)}, {fmt(self.high)}]" if self.bounded else " (no interval)"
        conf = f", {self.conf_level * 100:g} %" if self.conf_level else ""
        return f"{fmt(self.ratio)}{interval} ({self.method}{conf})"


def fmt(x: float | None) -> str:
    """A ratio as the notebook prints it (4 decimals), the same text for the same number."""
    return "" if x is None else f"{x:.4f}"


def campaign_statistics(data: CampaignData) -> CampaignStatistics:
    """The stage's table of the campaign as `data` compares it, with `data.config`'s settings."""
    try:
        table = campaign_stats(data.campaign, data.config)
    except VbenchError as exc:
        return CampaignStatistics(None, f"the statistics refuse this campaign's samples ({exc})")
    if table.empty:
        return CampaignStatistics(None, "the campaign has no samples of a metric the statistics compare")
    return CampaignStatistics(table)


def ratios(table: pd.DataFrame, benchmark: str, metric: str) -> list[Ratio]:
    """Each level's ratio to the baseline for `benchmark` and `metric`, per cell, in natural order."""
    t = table[(table["benchmark"] == benchmark) & (table["metric"] == metric)]
    ratio_rows = t[t["statistic"] == "ratio_to_baseline"]
    equivalence = t[t["statistic"] == "equivalence"]
    out = []
    for (cell, level), rows in ratio_rows.groupby(["size", "platform"], sort=False):
        r = preferred_row(rows)
        eq = equivalence[(equivalence["size"] == cell) & (equivalence["platform"] == level)]
        out.append(
            Ratio(
                **cell_ratio_fields(r),
                conf_level=cell_number(r["conf_level"]),
                n_baseline=cell_count(r["n_baseline"]),
                n_pairs=cell_count(r["n_pairs"]),
                equivalence=str(preferred_row(eq)["verdict"]) if len(eq) else "",
                direction=str(r["direction"] or ""),
                note=str(r["note"] or ""),
            )
        )
    return sorted(out, key=lambda x: (natural_key(x.cell), natural_key(x.level)))


def ratio_frame(rs: list[Ratio]) -> pd.DataFrame:
    """The ratios as a table to read."""
    return pd.DataFrame(
        [
            {
                "cell": r.cell,
                "level": r.level,
                "baseline": r.baseline,
                "ratio": fmt(r.ratio),
                "ci_low": fmt(r.low),
                "ci_high": fmt(r.high),
                "method": r.method,
                "n": r.n,
                "n_baseline": r.n_baseline,
                "pairs": r.n_pairs,
                "equivalence": r.equivalence,
                "note": r.note,
            }
            for r in rs
        ],
        columns=[
            "cell",
            "level",
            "baseline",
            "ratio",
            "ci_low",
            "ci_high",
            "method",
            "n",
            "n_baseline",
            "pairs",
            "equivalence",
            "note",
        ],
    )


def level_values(data: CampaignData, benchmark: str, metric: str) -> pd.DataFrame:
    """The samples behind the ratios: cell, level, value, unit, run_id, timestamp, and block,
    round and warm-up mark where the design records them."""
    s = data.samples
    s = s[(s["benchmark"] == benchmark) & (s["metric"] == metric)] if len(s) else s
    keep = ["cell", "level", "value", "unit", "run_id", "timestamp"] + [
        c for c in ("block", "round", "warmup") if c in s.columns
    ]
    if s.empty:
        return pd.DataFrame(columns=keep)
    out = s.assign(cell=s["size"].fillna("").astype(str), level=s["platform"].astype(str))
    return out[keep].reset_index(drop=True)

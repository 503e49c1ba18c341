"""The statistics table's factor x platform rows: whether a factor's level changes a platform's
ratio to the baseline (vbench.stats.interaction), for designs with blocks and factors.
"""

from __future__ import annotations

import pandas as pd

from vbench.stats.interaction import INTERACTION, interaction_ratio, level_pairs
from vbench.stats.keys import natural_key
from vbench.stats.paired import BLOCK, PAIRED_T, pair_runs
from vbench.stats.records import Interval
from vbench.stats.table.rows import Collector, Group, Settings, stat_row


def interaction_rows(out: Collector, s: Settings, key: tuple, kept: pd.DataFrame) -> None:
    """For every two cells that differ in one factor's level and every platform run at both beside
    the baseline: the ratio of its paired ratios to the baseline (vbench.stats.interaction), in
    the row of the other cell. Nothing for designs without blocks or factors."""
    experiment, benchmark, metric = key
    baseline = s.baseline
    if BLOCK not in kept.columns or not kept[BLOCK].notna().any():
        return
    for lp in level_pairs(kept["size"].astype(str).unique()):
        ref, oth = kept[kept["size"] == lp.reference], kept[kept["size"] == lp.other]
        both = set(ref["platform"]) & set(oth["platform"])
        if baseline not in both:
            continue
        runs = pd.concat([ref, oth])
        for p in sorted(both - {baseline}, key=natural_key):
            units = set(runs.loc[runs["platform"].isin([p, baseline]), "unit"])
            if len(units) != 1:
                continue
            unit = units.pop()
            g = Group(experiment, benchmark, metric, lp.other, unit, p)
            what = (
                f"ratio to {baseline} at {lp.other} over the ratio at {lp.reference} "
                f"({lp.factor} x platform), paired on block"
            )
            res = interaction_ratio(
                pair_runs(ref[ref["platform"] == p], ref[ref["platform"] == baseline]),
                pair_runs(oth[oth["platform"] == p], oth[oth["platform"] == baseline]),
                conf=s.conf,
            )
            kw = dict(baseline=baseline, conf_level=s.conf, direction=s.direction(metric, unit))
            if isinstance(res, str):
                out.add(stat_row(g, INTERACTION, PAIRED_T, Interval(None), None, note=f"{what}: {res}", **kw))
                continue
            out.add(
                stat_row(
                    g,
                    INTERACTION,
                    PAIRED_T,
                    res.ratio,
                    res.n_blocks,
                    n_pairs=res.n_blocks,
                    p_value=res.p_value,
                    preferred=True,
                    note=f"{what}: t on {res.n_blocks} blocks' differences of mean log ratios",
                    **kw,
                )
            )

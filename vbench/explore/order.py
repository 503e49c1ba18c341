"""Drift and order: one metric's values in the order the runs were made, with their block and
round, so a reader sees whether the machine drifted during the campaign and whether the design's
interleaving spread that drift over every level instead of one. Pure."""

from __future__ import annotations

import pandas as pd

from vbench.explore.compare import level_values
from vbench.explore.data import CampaignData, sort_naturally
from vbench.explore.design import run_table
from vbench.stats.keys import natural_key

ORDER_COLUMNS = ["order", "run_id", "cell", "level", "block", "round", "value", "unit", "start"]


def run_order(data: CampaignData, benchmark: str, metric: str) -> pd.DataFrame:
    """One row per sample of `benchmark` and `metric`: `order` is its run's position among all the
    campaign's runs (1 = first), so gaps show where other benchmarks ran in between."""
    runs = run_table(data.samples)
    if runs.empty:
        return pd.DataFrame(columns=ORDER_COLUMNS)
    runs = runs.assign(order=range(1, len(runs) + 1))[["run_id", "order", "block", "round", "start"]]
    values = level_values(data, benchmark, metric).drop(columns=["block", "round"], errors="ignore")
    out = values.merge(runs, on="run_id", how="inner")
    return out[ORDER_COLUMNS].sort_values(["order", "level"], kind="stable").reset_index(drop=True)


def per_block(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean value per block (and round, when recorded) and level, cells kept apart: a level that
    moves with the block while the other does not is drift the pairing by block takes out."""
    if frame.empty:
        return pd.DataFrame()
    keys = ["cell", "block"] + (["round"] if frame["round"].astype(str).ne("").any() else [])
    t = frame.pivot_table(index=keys, columns="level", values="value", aggfunc="mean")
    t = t[sorted(t.columns, key=natural_key)]
    t.columns.name = None
    return sort_naturally(t)

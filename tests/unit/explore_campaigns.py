"""The committed campaigns as vbench.explore loads them, each once per test session: loading the
reference campaign takes seconds, and every test file of vbench.explore reads it. Read only."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from vbench.explore import data

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


@lru_cache(maxsize=None)
def committed(name: str, compare: tuple[str, ...] | None = None, baseline: str | None = None) -> data.CampaignData:
    """data/raw/<name> through `compare` and `baseline`, with the statistics stage's settings."""
    return data.load(RAW / name, compare, baseline, data.stage_settings(RAW.parent))


def preferred_ratio(table, benchmark: str, metric: str, level: str):
    """The one preferred ratio_to_baseline row of a statistics table for `level`'s `metric`."""
    rows = table[
        (table["benchmark"] == benchmark)
        & (table["metric"] == metric)
        & (table["platform"] == level)
        & (table["statistic"] == "ratio_to_baseline")
        & table["preferred"].fillna(False).astype(bool)
    ]
    assert len(rows) == 1, rows
    return rows.iloc[0]

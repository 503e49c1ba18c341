"""Where the variance lives, as the notebook shows it: the statistics stage's own decomposition
(`stats.json`'s `variance`, vbench.stats.variance), taken from the table the explorer already
computed with the stage's function and settings, so the notebook and the stage say the same.
"""

from __future__ import annotations

import pandas as pd

from vbench.explore.compare import CampaignStatistics
from vbench.stats.variance import variance_frame


def variance_table(statistics: CampaignStatistics, benchmark: str | None = None) -> pd.DataFrame:
    """Each level's share of the variance (drift, cluster instance, round, run) of every configuration's
    log metric and every comparison's log ratio, for `benchmark` (None: every benchmark); empty, with
    the columns, when the stage gave no table."""
    table = statistics.table
    records = [] if table is None else table.attrs.get("variance", {}).get("rows", [])
    if benchmark is not None:
        records = [r for r in records if r["benchmark"] == benchmark]
    return variance_frame(records)

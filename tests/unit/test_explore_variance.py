"""vbench.explore.variance: the notebook's view of where the variance lives is the statistics
stage's own decomposition (stats.json's `variance`), one benchmark's rows or all of them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tests.unit.test_stats_variance import campaign_samples
from vbench.explore.compare import CampaignStatistics
from vbench.explore.variance import variance_table
from vbench.stats.variance import LEVELS, campaign_variance


def test_the_view_is_the_stages_records_as_a_table():
    rows = campaign_variance(
        campaign_samples(np.random.default_rng(1), blocks=10, own_probe=True), {}, lambda b, m: True
    )
    table = pd.DataFrame({"statistic": ["mean"]})
    table.attrs["variance"] = {"rows": [r.record() for r in rows]}
    view = variance_table(CampaignStatistics(table), "terasort")
    assert list(view["configuration"]) == ["native", "lxc", "lxc"] and list(view["baseline"]) == ["", "", "native"]
    assert view.loc[2, "quantity"] == "log ratio to the baseline" and view.loc[2, "layout"] == "10 x 2 x 1"
    assert view[list(LEVELS)].sum(axis=1, skipna=True).round(9).tolist() == [1.0, 1.0, 1.0]
    assert variance_table(CampaignStatistics(table), "wordcount").empty
    assert len(variance_table(CampaignStatistics(table))) == 3


def test_no_table_gives_an_empty_view_with_its_columns():
    view = variance_table(CampaignStatistics(None, "the statistics refuse this campaign's samples"))
    assert view.empty and {"configuration", "drift", "instance", "round", "run", "note"} <= set(view.columns)

"""Holm's step-down adjustment, written in numpy: the same numbers as statsmodels' `multipletests`
without its `gc.collect()` on every call (issue #24, item 6)."""

from __future__ import annotations

import gc

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from vbench.stats import compute_stats
from vbench.stats.hypothesis import holm


def statsmodels_holm(p) -> np.ndarray:
    return multipletests(np.asarray(p, float), method="holm")[1]


@pytest.mark.parametrize("seed", range(20))
def test_holm_equals_statsmodels_on_random_p_values(seed):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=rng.integers(1, 60)) ** 2  # crowd the small end, where adjustments bite
    assert holm(p) == pytest.approx(statsmodels_holm(p), rel=1e-15, abs=0)


@pytest.mark.parametrize("seed", range(10))
def test_holm_equals_statsmodels_with_ties(seed):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(size=30), 1)  # ten distinct values among 30, zeros and ones among them
    assert holm(p) == pytest.approx(statsmodels_holm(p), rel=1e-15, abs=0)


def test_tied_p_values_get_one_adjusted_value():
    assert list(holm([0.01, 0.02, 0.01])) == pytest.approx([0.03, 0.03, 0.03])


def test_nan_stays_nan_and_is_not_counted_in_the_family():
    # As R's p.adjust: a comparison without a p-value is not one of the tests corrected for.
    p = np.array([0.01, np.nan, 0.04, 0.03, np.nan])
    adjusted = holm(p)
    assert np.isnan(adjusted[[1, 4]]).all()
    assert adjusted[[0, 2, 3]] == pytest.approx(statsmodels_holm([0.01, 0.04, 0.03]))


def test_no_p_values_adjust_to_none():
    assert holm([]).shape == (0,)
    assert np.isnan(holm([np.nan])).all()


def test_adjusted_p_values_are_capped_at_one():
    assert list(holm([0.6, 0.7, 0.9])) == [1.0, 1.0, 1.0]


@pytest.fixture
def gc_collections(monkeypatch):
    calls = []
    monkeypatch.setattr(gc, "collect", lambda *args, **kwargs: calls.append(args) or 0)
    return calls


def test_holm_does_not_collect_garbage(gc_collections):
    holm([0.01, 0.02, 0.03])
    assert gc_collections == []


def test_the_statistics_table_does_not_collect_garbage(gc_collections):
    # `vbench stats` and the statistics notebook: every Holm family used to walk the whole heap.
    runs = {
        "native": [100.2, 98.7, 101.5, 99.9],
        "kvm": [108.9, 110.4, 107.6, 109.8],
        "lxc": [101.0, 102.2, 100.4, 101.9],
    }
    frame = pd.DataFrame(
        [
            dict(
                experiment="e",
                platform=platform,
                benchmark="terasort",
                metric="job_time",
                unit="s",
                value=v,
                repetition=i,
            )
            for platform, values in runs.items()
            for i, v in enumerate(values)
        ]
    )
    table = compute_stats(frame, n_resamples=200)
    # The three pairs of platforms, Holm-adjusted; and the two equivalence tests, Holm over the campaign.
    assert table.loc[table["statistic"] == "mean_difference", "p_adjusted"].notna().sum() == 3
    assert table.loc[table["statistic"] == "equivalence", "p_adjusted"].notna().sum() == 2
    assert table["p_adjusted"].notna().sum() == 5
    assert gc_collections == []

"""Outliers are flagged by MAD, never removed; warm-up runs are excluded by a recorded rule."""

import numpy as np
import pandas as pd
import pytest

from vbench.stats import annotate_samples, compute_stats
from vbench.stats.outliers import mad_outliers
from vbench.stats.warmup import apply_exclusions


def test_modified_z_by_hand():
    x = np.array([10.0, 11.0, 9.0, 10.0, 10.5, 30.0, 9.5])
    # median 10, |dev| = 0 1 1 0 .5 20 .5 -> MAD 0.5; z = 0.6745 * dev / 0.5
    f = mad_outliers(x)
    assert f.modified_z == pytest.approx(0.6745 * (x - 10.0) / 0.5)
    assert f.flags.tolist() == [False, False, False, False, False, True, False]
    assert f.count == 1


def test_mad_zero_flags_every_differing_value_with_note():
    f = mad_outliers([5.0, 5.0, 5.0, 5.0, 6.0])
    assert f.flags.tolist() == [False, False, False, False, True]
    assert "MAD is zero" in f.note


def _samples(values, platform="native", warmup=None):
    d = pd.DataFrame(
        {
            "experiment": "e",
            "platform": platform,
            "benchmark": "b",
            "metric": "t",
            "unit": "s",
            "value": values,
            "repetition": range(len(values)),
        }
    )
    if warmup is not None:
        d["warmup"] = warmup
    return d


def test_outlier_is_flagged_in_table_but_kept_in_statistics():
    values = [10.0, 11.0, 9.0, 10.0, 10.5, 30.0, 9.5]
    t = compute_stats(_samples(values))
    row = t[(t.statistic == "outliers")].iloc[0]
    assert row.estimate == 1 and "repetition 5 flagged" in row.note and "kept" in row.note
    mean = t[(t.statistic == "mean") & (t.method == "t")].iloc[0]
    assert mean.estimate == pytest.approx(np.mean(values)) and mean.n == 7


def test_warmup_column_excludes_rows_and_records_the_rule():
    d = _samples([50.0, 10.0, 11.0, 9.0], warmup=[True, False, False, False])
    t = compute_stats(d)
    mean = t[(t.statistic == "mean") & (t.method == "t")].iloc[0]
    assert mean.estimate == pytest.approx(10.0) and mean.n == 3
    rule = t[t.statistic == "excluded_runs"].iloc[0]
    assert rule.estimate == 1 and rule.method == "rule"
    assert rule.note == "excluded rows with warmup=true; excluded repetitions: 0"
    assert t.attrs["exclusion_rule"] == "excluded rows with warmup=true"


def test_drop_first_n_orders_repetitions_numerically_per_group():
    d = pd.concat([_samples([1.0, 2.0, 3.0, 4.0]), _samples([5.0, 6.0, 7.0], platform="kvm")])
    d["repetition"] = [10, 2, 1, 3, 0, 1, 2]  # shuffled; "10" must sort after "3"
    kept, excluded, rule = apply_exclusions(d.reset_index(drop=True), drop_first_n=2)
    assert sorted(excluded.value) == [2.0, 3.0, 5.0, 6.0]
    assert rule.describe() == "excluded the first 2 repetitions of each group"
    assert set(excluded.exclusion_reason) == {"among first 2 repetitions"}


def test_group_with_every_run_excluded_still_gets_a_row():
    d = pd.concat([_samples([5.0, 6.0], warmup=[True, True]), _samples([5.0, 6.0, 7.0], platform="kvm", warmup=False)])
    t = compute_stats(d)
    row = t[(t.platform == "native") & (t.statistic == "mean")].iloc[0]
    assert row.n == 0 and pd.isna(row.estimate) and "every run was excluded" in row.note


def test_annotate_samples_marks_rows_without_dropping_them():
    d = _samples([50.0, 10.0, 11.0, 9.0, 10.0, 10.5, 30.0], warmup=[True] + [False] * 6)
    a = annotate_samples(d)
    assert len(a) == 7
    assert a.excluded_by.tolist()[0] == "warmup=true" and not a.outlier.iloc[0]
    assert a.outlier.tolist()[6]

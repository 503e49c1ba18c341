"""The tidy table: shape, direction, bad input made visible, determinism."""

import numpy as np
import pandas as pd
import pytest

from vbench.errors import VbenchError
from vbench.stats import COLUMNS, compute_stats, format_table, read_samples
from vbench.stats.bootstrap import bca_ratio_interval
from vbench.stats.ratio import fieller_interval
from vbench.stats.table.rows import POINT_METHODS

from pathlib import Path

from tests.unit.builders import ESTIMATE_COLUMNS, KVM, NATIVE, STATS_KEY_COLUMNS, samples_frame

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"
REQUIRED = STATS_KEY_COLUMNS + ESTIMATE_COLUMNS


def _one(t, **where):
    sel = t
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert len(sel) == 1, f"{where}: {len(sel)} rows"
    return sel.iloc[0]


def test_columns_and_required_columns_present():
    t = compute_stats(samples_frame({"native": NATIVE, "kvm": KVM}))
    assert list(t.columns) == COLUMNS
    assert set(REQUIRED) <= set(t.columns)
    assert {
        "mean",
        "median",
        "std",
        "cv",
        "min",
        "max",
        "ratio_to_baseline",
        "overhead_pct",
        "equivalence",
        "platform_effect",
        "mean_difference",
    } <= set(t.statistic)


def test_ratio_rows_equal_the_underlying_estimators():
    t = compute_stats(samples_frame({"native": NATIVE, "kvm": KVM}))
    f = fieller_interval(np.array(KVM), np.array(NATIVE))
    row = _one(t, platform="kvm", statistic="ratio_to_baseline", method="fieller")
    assert (row.estimate, row.ci_low, row.ci_high) == pytest.approx((f.estimate, f.low, f.high))
    assert row.baseline == "native" and row.n == 6 and row.n_baseline == 6 and row.direction == "lower_is_better"
    over = _one(t, platform="kvm", statistic="overhead_pct", method="fieller")
    assert (over.estimate, over.ci_low, over.ci_high) == pytest.approx(
        ((f.estimate - 1) * 100, (f.low - 1) * 100, (f.high - 1) * 100)
    )
    boot = _one(t, platform="kvm", statistic="ratio_to_baseline", method="bca_bootstrap")
    assert boot.ci_low < boot.estimate < boot.ci_high


def test_throughput_overhead_is_positive_when_platform_is_slower():
    t = compute_stats(
        samples_frame(
            {"native": [85.0, 84.1, 86.2, 85.5], "kvm": [71.2, 72.5, 70.9, 71.8]},
            unit="MB/s",
            metric="write_throughput",
        )
    )
    ratio = _one(t, platform="kvm", statistic="ratio_to_baseline", method="fieller")
    over = _one(t, platform="kvm", statistic="overhead_pct", method="fieller")
    assert ratio.estimate < 1 and over.estimate > 0 and over.direction == "higher_is_better"
    assert over.estimate == pytest.approx((1 / ratio.estimate - 1) * 100)
    assert over.ci_low == pytest.approx((1 / ratio.ci_high - 1) * 100)


def test_direction_override_and_unknown_direction():
    d = samples_frame({"native": [10.0, 11.0, 10.5], "kvm": [12.0, 12.5, 11.8]}, unit="%", metric="cpu_util")
    t = compute_stats(d)
    over = _one(t, platform="kvm", statistic="overhead_pct", method="fieller")
    assert pd.isna(over.estimate) and "direction unknown" in over.note
    assert not pd.isna(_one(t, platform="kvm", statistic="ratio_to_baseline", method="fieller").estimate)
    t2 = compute_stats(d, higher_is_better={"cpu_util": False})
    assert _one(t2, platform="kvm", statistic="overhead_pct", method="fieller").estimate > 0
    with pytest.raises(VbenchError, match="direction unknown"):
        compute_stats(d, strict=True)


def test_n1_group_gets_mean_without_ci_and_a_note():
    t = compute_stats(samples_frame({"native": NATIVE, "kvm": [109.0]}))
    mean = _one(t, platform="kvm", statistic="mean", method="t")
    assert mean.estimate == 109.0 and pd.isna(mean.ci_low) and pd.isna(mean.ci_high)
    assert mean.note.startswith("n=1: no CI")
    ratio = _one(t, platform="kvm", statistic="ratio_to_baseline", method="fieller")
    assert ratio.estimate == pytest.approx(109.0 / np.mean(NATIVE)) and pd.isna(ratio.ci_low)
    assert "no CI" in ratio.note
    with pytest.raises(VbenchError, match="n=1"):
        compute_stats(samples_frame({"native": NATIVE, "kvm": [109.0]}), strict=True)


def test_zero_baseline_mean_is_a_note():
    t = compute_stats(samples_frame({"native": [-1.0, 1.0, 0.0], "kvm": [1.0, 2.0, 3.0]}))
    for method in ("fieller", "bca_bootstrap"):
        row = _one(t, platform="kvm", statistic="ratio_to_baseline", method=method)
        assert pd.isna(row.estimate) and row.note == "baseline mean is zero: ratio undefined"
    with pytest.raises(VbenchError, match="baseline mean is zero"):
        compute_stats(samples_frame({"native": [-1.0, 1.0, 0.0], "kvm": [1.0, 2.0, 3.0]}), strict=True)


def test_missing_baseline_is_a_note_per_platform_and_strict_raises():
    d = samples_frame({"kvm": KVM, "xen": NATIVE})
    t = compute_stats(d, baseline="native")
    rows = t[t.statistic.isin(["ratio_to_baseline", "overhead_pct", "equivalence"])]
    assert set(rows.platform) == {"kvm", "xen"} and len(rows) == 10
    assert set(rows.note) == {"no baseline 'native' for this group"}
    assert rows.estimate.isna().all()
    with pytest.raises(VbenchError, match="no baseline 'native' for this group"):
        compute_stats(d, baseline="native", strict=True)


def test_unit_mismatch_between_platforms_is_a_note():
    d = pd.concat([samples_frame({"native": NATIVE}), samples_frame({"kvm": [x * 1000 for x in KVM]}, unit="ms")])
    t = compute_stats(d)
    row = _one(t, platform="kvm", statistic="ratio_to_baseline", method="fieller")
    assert pd.isna(row.estimate) and "units differ" in row.note


def test_no_empty_number_without_a_note():
    d = pd.concat(
        [
            samples_frame({"native": NATIVE, "kvm": [109.0], "lxc": [5.0, 5.0, 5.0]}),
            samples_frame({"native": [-1.0, 1.0, 0.0], "kvm": [1.0, 2.0]}, benchmark="zero"),
            samples_frame({"kvm": KVM}, benchmark="orphan"),
        ]
    )
    t = compute_stats(d)
    needs_ci = ~t.method.isin(POINT_METHODS)
    silent = t[(t.estimate.isna() | (needs_ci & (t.ci_low.isna() | t.ci_high.isna()))) & (t.note == "")]
    assert silent.empty, silent[["platform", "benchmark", "statistic", "method"]]


def test_size_is_part_of_the_group_key():
    small = samples_frame({"native": NATIVE, "kvm": KVM}, size="1GB")
    big = samples_frame({"native": [x * 10 for x in NATIVE], "kvm": [x * 12 for x in KVM]}, size="10GB")
    t = compute_stats(pd.concat([small, big]))
    r = t[(t.platform == "kvm") & (t.statistic == "ratio_to_baseline") & (t.method == "fieller")]
    assert r["size"].tolist() == ["1GB", "10GB"]  # natural order
    assert r.estimate.tolist()[1] == pytest.approx(1.2 * np.mean(KVM) / np.mean(NATIVE))


def test_table_is_byte_identical_across_runs_and_independent_of_other_groups():
    d = read_samples(DATA / "samples.csv")
    a, b = format_table(compute_stats(d)), format_table(compute_stats(d))
    assert a == b
    only_terasort = compute_stats(d[d.benchmark == "terasort"])
    full = compute_stats(d)
    sel = lambda t: t[(t.benchmark == "terasort") & (t.method == "bca_bootstrap")].reset_index(drop=True)  # noqa: E731
    pd.testing.assert_frame_equal(sel(only_terasort), sel(full))
    other_seed = compute_stats(d, seed=1)
    assert not sel(other_seed).ci_low.equals(sel(full).ci_low)


def test_bootstrap_rows_use_the_seeded_two_sample_bca():
    t = compute_stats(samples_frame({"native": NATIVE, "kvm": KVM}), n_resamples=2000, seed=5)
    row = _one(t, platform="kvm", statistic="ratio_to_baseline", method="bca_bootstrap")
    # Different seed -> different resamples; limits within Monte Carlo error of a fresh run.
    ref = bca_ratio_interval(np.array(KVM), np.array(NATIVE), n_resamples=20000, rng=123)
    assert row.ci_low == pytest.approx(ref.low, abs=0.004) and row.ci_high == pytest.approx(ref.high, abs=0.004)


def test_equivalence_verdict_and_pairwise_rows():
    lxc = [101.1, 100.0, 102.3, 100.6, 101.9, 99.8]
    t = compute_stats(samples_frame({"native": NATIVE, "kvm": KVM, "lxc": lxc}))
    assert _one(t, platform="lxc", statistic="equivalence").verdict == "near-native (TOST, 5 % bound)"
    assert _one(t, platform="kvm", statistic="equivalence").verdict == "not shown within +/-5 % (TOST)"
    assert _one(t, platform="lxc", statistic="equivalence").conf_level == pytest.approx(0.90)
    pairs = t[t.statistic == "mean_difference"]
    assert len(pairs) == 3 and pairs.p_adjusted.notna().all() and (pairs.p_adjusted >= pairs.p_value).all()
    welch = _one(t, platform="all", method="welch_anova")
    assert welch.p_value < 0.05 and welch.verdict.startswith("platforms differ")
    t2 = compute_stats(samples_frame({"kvm": KVM, "lxc": lxc}), baseline="kvm")
    assert "equivalent to 'kvm'" not in _one(t2, platform="lxc", statistic="equivalence").verdict


def test_precision_rows_when_target_given():
    t = compute_stats(samples_frame({"native": NATIVE, "kvm": KVM}), precision_target_pct=2.0)
    r = _one(t, platform="kvm", statistic="ratio_ci_halfwidth_pct")
    assert r.verdict in ("stop_reached", "continue") and "target +/-2 %" in r.note
    assert len(t[t.statistic == "mean_ci_halfwidth_pct"]) == 2


def test_bad_parameters_are_errors():
    with pytest.raises(VbenchError, match="confidence"):
        compute_stats(samples_frame({"native": NATIVE}), conf=95)

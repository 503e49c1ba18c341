"""The mixed model on the log metric (vbench.stats.mixed) and its rows in the statistics table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from vbench.stats import compute_stats
from vbench.stats import table as table_module
from vbench.stats.mixed import MIXED, MixedFit, NoFit, fit_mixed


def _campaign(
    rng,
    *,
    blocks: int,
    rounds: int,
    truth: float,
    block_sd: float,
    instance_sd: float,
    round_sd: float,
    platforms=("native", "lxc"),
) -> pd.DataFrame:
    """Tidy samples drawn from the model: a block effect every platform shares, an instance effect
    per (block, platform), noise per round; `truth` is the second platform's ratio to the first."""
    rows = []
    for b in range(blocks):
        shared = rng.normal(0, block_sd)
        for k, p in enumerate(platforms):
            inst = rng.normal(0, instance_sd)
            for r in range(rounds):
                mu = math.log(100.0) + (math.log(truth) if k == 1 else 0.0)
                row = dict(
                    experiment="platforms",
                    platform=p,
                    benchmark="terasort",
                    metric="terasort_time",
                    unit="s",
                    value=math.exp(mu + shared + inst + rng.normal(0, round_sd)),
                    repetition=b,
                    block=b,
                )
                if rounds > 1:
                    row["round"] = r
                rows.append(row)
    return pd.DataFrame(rows)


def test_recovers_the_ratio_and_the_variance_at_each_level_of_a_known_design():
    rng = np.random.default_rng(7)
    block_sd, instance_sd, round_sd = 0.15, 0.04, 0.02  # the block effect dominates, as on a shared machine
    df = _campaign(rng, blocks=60, rounds=4, truth=1.10, block_sd=block_sd, instance_sd=instance_sd, round_sd=round_sd)
    fit = fit_mixed(df, "native")
    assert isinstance(fit, MixedFit) and fit.has_rounds and fit.n_blocks == 60
    r = fit.ratios["lxc"].ratio
    assert r.low < 1.10 < r.high
    assert r.estimate == pytest.approx(1.10, rel=0.02)
    v = fit.variance
    assert v.block == pytest.approx(block_sd**2, rel=0.4)
    assert v.instance == pytest.approx(instance_sd**2, rel=0.4)
    assert v.residual == pytest.approx(round_sd**2, rel=0.15)
    assert v.shares()["block"] > 0.8
    # The shared block effect cancels: the interval is far narrower than one that ignores the blocks.
    lx = np.log(df.loc[df.platform == "lxc", "value"])
    ln = np.log(df.loc[df.platform == "native", "value"])
    half_ignoring_blocks = stats.t.ppf(0.975, lx.size + ln.size - 2) * math.sqrt(
        lx.var() / lx.size + ln.var() / ln.size
    )
    assert math.log(r.high / r.low) / 2 < 0.6 * half_ignoring_blocks


def test_one_run_per_block_and_platform_gives_exactly_the_paired_t_interval():
    native = [100.0, 131.0, 98.0, 112.0, 120.0]
    lxc = [104.0, 133.5, 101.0, 117.0, 121.0]
    df = pd.DataFrame(
        [dict(platform=p, value=v, block=i) for p, xs in (("native", native), ("lxc", lxc)) for i, v in enumerate(xs)]
    )
    fit = fit_mixed(df, "native")
    assert isinstance(fit, MixedFit) and not fit.has_rounds and fit.variance.instance is None
    d = np.log(np.array(lxc) / np.array(native))  # the paired-t over blocks, computed here
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    r = fit.ratios["lxc"]
    assert r.ratio.estimate == pytest.approx(math.exp(d.mean()), rel=1e-9)
    assert r.ratio.low == pytest.approx(math.exp(d.mean() - half), rel=1e-4)
    assert r.ratio.high == pytest.approx(math.exp(d.mean() + half), rel=1e-4)
    assert r.p_value == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-3)


def test_interval_covers_the_true_ratio_at_its_level_with_few_blocks():
    rng = np.random.default_rng(11)
    hits = 0
    trials = 80
    for _ in range(trials):
        df = _campaign(rng, blocks=5, rounds=3, truth=1.05, block_sd=0.1, instance_sd=0.02, round_sd=0.01)
        r = fit_mixed(df, "native").ratios["lxc"].ratio
        hits += r.low <= 1.05 <= r.high
    assert hits / trials >= 0.88  # 95 % nominal; the t on blocks - 1 df keeps it near


@pytest.mark.parametrize(
    "frame, reason",
    [
        (pd.DataFrame(dict(platform=["native", "lxc"], value=[1.0, 2.0])), "no block"),
        (
            pd.DataFrame(dict(platform=["native", "lxc"] * 2, value=[1.0, 0.0, 2.0, 2.0], block=[0, 0, 1, 1])),
            "not positive",
        ),
        (pd.DataFrame(dict(platform=["native", "lxc", "lxc"], value=[1.0, 2.0, 2.0], block=[0, 0, 1])), "needs 2"),
    ],
)
def test_says_why_there_is_no_model(frame, reason):
    got = fit_mixed(frame, "native")
    assert isinstance(got, NoFit) and reason in got.reason


def test_a_platform_in_one_block_is_left_out_with_the_reason():
    rng = np.random.default_rng(3)
    df = _campaign(
        rng, blocks=4, rounds=1, truth=1.1, block_sd=0.1, instance_sd=0.0, round_sd=0.02, platforms=("native", "lxc")
    )
    lone = df[(df.platform == "lxc") & (df.block == 0)].assign(platform="kvm")
    fit = fit_mixed(pd.concat([df, lone]), "native")
    assert "lxc" in fit.ratios and "kvm" not in fit.ratios and "1 block" in fit.left_out["kvm"]


def test_table_rows_sit_beside_the_others_and_change_none_of_them(monkeypatch):
    rng = np.random.default_rng(5)
    df = _campaign(rng, blocks=4, rounds=3, truth=1.1, block_sd=0.1, instance_sd=0.02, round_sd=0.01)
    with_mixed = compute_stats(df, n_resamples=999, mixed=True)
    monkeypatch.setattr(table_module, "fit_mixed", lambda *a, **k: None)
    without = compute_stats(df, n_resamples=999, mixed=True)
    # Not asked for, it is not fitted (the slow part of the table): the same table without its rows.
    monkeypatch.setattr(table_module, "fit_mixed", lambda *a, **k: pytest.fail("fitted without being asked"))
    unasked = compute_stats(df, n_resamples=999)
    pd.testing.assert_frame_equal(unasked, without)
    ours = with_mixed["method"] == MIXED
    assert set(with_mixed.loc[ours, "statistic"]) == {
        "ratio_to_baseline",
        "overhead_pct",
        "variance_block",
        "variance_cluster_instance",
        "variance_residual",
    }
    assert not with_mixed.loc[ours, "preferred"].fillna(False).any()  # never the comparison's answer
    pd.testing.assert_frame_equal(with_mixed[~ours].reset_index(drop=True), without.reset_index(drop=True))
    ratio = with_mixed[ours & (with_mixed.statistic == "ratio_to_baseline")].iloc[0]
    assert ratio.platform == "lxc" and ratio.ci_low < ratio.estimate < ratio.ci_high and "t on 3 df" in ratio.note
    variance = with_mixed[ours & (with_mixed.statistic == "variance_block")].iloc[0]
    assert variance.platform == "all" and variance.estimate >= 0 and "% of the total" in variance.note


def _pi_times(value: list[float], **columns) -> pd.DataFrame:
    """Times of native and lxc in turn, one per value, with the other `columns` given."""
    n = len(value) // 2
    return pd.DataFrame(
        dict(experiment="platforms", platform=["native", "lxc"] * n, benchmark="pi", metric="t", unit="s", value=value)
        | columns
    )


def test_table_says_why_a_blocked_comparison_has_no_model():
    df = _pi_times([1.0, 1.1, 1.2, 1.3], repetition=[0, 0, 1, 1], block=[0, 0, 0, 0])
    t = compute_stats(df, n_resamples=999, mixed=True)
    row = t[(t.method == MIXED) & (t.statistic == "ratio_to_baseline")].iloc[0]
    assert pd.isna(row.estimate) and "1 block" in row.note


def test_unblocked_samples_get_no_mixed_rows():
    df = _pi_times([1.0, 1.1, 1.2, 1.3, 1.1, 1.2], repetition=[0, 0, 1, 1, 2, 2])
    assert not (compute_stats(df, n_resamples=999, mixed=True)["method"] == MIXED).any()

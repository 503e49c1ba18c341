"""Paired ratios to the baseline (vbench.stats.paired) and their place in the statistics table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.unit.builders import sample_row
from vbench.stats import compute_stats
from vbench.stats.dvc_views import headline_metrics
from vbench.stats.hypothesis import holm
from vbench.stats.paired import (
    FIELLER,
    HIERARCHICAL,
    PAIRED_T,
    PAIRED_T_ROUNDS,
    Pairs,
    hierarchical_ratio,
    pair_runs,
    paired_ratio,
    paired_tost,
    rounds_ratio,
    variance_components,
)

RESAMPLES = 2000


def _frame(
    values: dict[str, list[float]],
    *,
    blocks=None,
    rounds=None,
    benchmark="terasort",
    metric="terasort_time",
    unit="s",
    warmup=None,
) -> pd.DataFrame:
    """Tidy samples: values[platform][i] ran in blocks[i] (and rounds[i])."""
    rows = []
    for platform, xs in values.items():
        for i, v in enumerate(xs):
            row = sample_row(platform, float(v), i, benchmark=benchmark, metric=metric, unit=unit)
            if blocks is not None:
                row["block"] = blocks[i]
            if rounds is not None:
                row["round"] = rounds[i]
            if warmup is not None:
                row["warmup"] = warmup[i]
            rows.append(row)
    return pd.DataFrame(rows)


def _one(table: pd.DataFrame, **where) -> pd.Series:
    r = table
    for k, v in where.items():
        r = r[r[k] == v]
    assert len(r) == 1, (where, r[["platform", "statistic", "method"]])
    return r.iloc[0]


NATIVE = [100.0, 131.0, 98.0, 112.0]
LXC = [104.0, 133.5, 101.0, 117.0]


def test_paired_t_matches_a_hand_computation_on_the_log_ratios():
    table = compute_stats(_frame({"native": NATIVE, "lxc": LXC}, blocks=[0, 1, 2, 3]), n_resamples=RESAMPLES)
    row = _one(table, platform="lxc", statistic="ratio_to_baseline", method=PAIRED_T)

    d = np.log(np.array(LXC) / np.array(NATIVE))  # computed here, independently of the package
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    assert row["estimate"] == pytest.approx(math.exp(d.mean()), rel=1e-12)
    assert row["ci_low"] == pytest.approx(math.exp(d.mean() - half), rel=1e-12)
    assert row["ci_high"] == pytest.approx(math.exp(d.mean() + half), rel=1e-12)
    assert row["p_value"] == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-10)
    assert row["n_pairs"] == 4 and bool(row["preferred"])
    # Fieller stays beside it, no longer preferred; overhead follows the paired ratio.
    fieller = _one(table, platform="lxc", statistic="ratio_to_baseline", method=FIELLER)
    assert not bool(fieller["preferred"]) and fieller["n_pairs"] == 4
    over = _one(table, platform="lxc", statistic="overhead_pct", method=PAIRED_T)
    assert over["estimate"] == pytest.approx((math.exp(d.mean()) - 1) * 100)


def test_paired_tost_matches_two_one_sided_t_tests_on_the_log_ratios():
    pairs = pair_runs(_frame({"lxc": LXC}, blocks=[0, 1, 2, 3]), _frame({"native": NATIVE}, blocks=[0, 1, 2, 3]))
    t = paired_tost(pairs, 5.0, 0.05)
    d = np.log(np.array(LXC) / np.array(NATIVE))
    se = d.std(ddof=1) / math.sqrt(d.size)
    p_lower = stats.t.sf((d.mean() - math.log(0.95)) / se, d.size - 1)
    p_upper = stats.t.cdf((d.mean() - math.log(1.05)) / se, d.size - 1)
    assert (t.p_lower, t.p_upper) == pytest.approx((p_lower, p_upper), rel=1e-10)
    assert t.p_value == pytest.approx(max(p_lower, p_upper)) and t.equivalent == (max(p_lower, p_upper) < 0.05)
    half90 = stats.t.ppf(0.95, d.size - 1) * se
    assert (t.ratio.low, t.ratio.high) == pytest.approx((math.exp(d.mean() - half90), math.exp(d.mean() + half90)))


def test_a_block_effect_cancels_in_the_paired_interval_but_widens_fiellers():
    rng = np.random.default_rng(7)
    block_effect = np.array([1.0, 1.6, 0.9, 1.3, 1.05, 1.45])  # every platform slower in block 2, ...
    native = 100 * block_effect * rng.normal(1, 0.01, 6)
    lxc = 103 * block_effect * rng.normal(1, 0.01, 6)
    table = compute_stats(_frame({"native": native, "lxc": lxc}, blocks=list(range(6))), n_resamples=RESAMPLES)
    paired = _one(table, platform="lxc", statistic="ratio_to_baseline", method=PAIRED_T)
    fieller = _one(table, platform="lxc", statistic="ratio_to_baseline", method=FIELLER)
    assert paired["ci_low"] < 1.03 < paired["ci_high"]
    assert (paired["ci_high"] - paired["ci_low"]) * 5 < fieller["ci_high"] - fieller["ci_low"]


def test_unpaired_data_falls_back_to_fieller():
    # No block at all.
    table = compute_stats(_frame({"native": NATIVE, "lxc": LXC}), n_resamples=RESAMPLES)
    ratios = table[(table["platform"] == "lxc") & (table["statistic"] == "ratio_to_baseline")]
    assert set(ratios["method"]) == {FIELLER, "bca_bootstrap"}
    fieller = _one(table, platform="lxc", statistic="ratio_to_baseline", method=FIELLER)
    assert bool(fieller["preferred"]) and fieller["n_pairs"] == 0 and "not paired" in fieller["note"]
    # Blocks that never hold both platforms.
    apart = compute_stats(
        _frame({"native": NATIVE, "lxc": LXC}, blocks=[0, 1, 2, 3]).assign(
            block=lambda d: np.where(d["platform"] == "lxc", d["block"] + 10, d["block"])
        ),
        n_resamples=RESAMPLES,
    )
    row = _one(apart, platform="lxc", statistic="ratio_to_baseline", method=FIELLER)
    assert bool(row["preferred"]) and "no block holds both platforms" in row["note"]
    assert not (apart["method"] == PAIRED_T).any()
    # One pair only.
    one = compute_stats(
        _frame({"native": NATIVE[:2], "lxc": LXC[:2]}, blocks=[0, 5]).assign(block=[0, 5, 0, 6]), n_resamples=RESAMPLES
    )
    assert bool(_one(one, platform="lxc", statistic="ratio_to_baseline", method=FIELLER)["preferred"])
    entry = headline_metrics(table)["platforms"]["terasort"]["terasort_time"]["lxc/native"]
    assert entry["method"] == FIELLER and entry["n_pairs"] is None


def test_blocks_that_all_give_the_same_ratio_are_left_unpaired_not_given_a_zero_width_interval():
    # Whole-percent readings (bonnie++'s CPU %, V7 of the delta): the runs vary within each
    # platform, yet every block's mean ratio is 47/44.5, so a paired t would have zero width.
    native, lxc = [44, 45, 45, 44, 44, 45], [46, 48, 47, 47, 48, 46]
    frame = _frame({"native": native, "lxc": lxc}, blocks=[0, 0, 1, 1, 2, 2])
    pairs = pair_runs(frame[frame.platform == "lxc"], frame[frame.platform == "native"])
    assert pairs.n_pairs == 0 and "same ratio" in pairs.note and paired_ratio(pairs) is None
    table = compute_stats(frame, n_resamples=RESAMPLES)
    assert not (table["method"] == PAIRED_T).any()
    row = _one(table, platform="lxc", statistic="ratio_to_baseline", method=FIELLER)
    assert bool(row["preferred"]) and "same ratio" in row["note"]
    assert row["ci_low"] < 47 / 44.5 < row["ci_high"]
    # A single differing block is enough for the paired t again.
    lxc[5] = 47
    pairs = pair_runs(
        *(
            _frame({"native": native, "lxc": lxc}, blocks=[0, 0, 1, 1, 2, 2]).pipe(
                lambda f: (f[f.platform == "lxc"], f[f.platform == "native"])
            )
        )
    )
    iv = paired_ratio(pairs).ratio
    assert pairs.n_pairs == 3 and iv.low < iv.estimate < iv.high


def test_warmup_runs_are_excluded_from_the_pairs():
    base = _frame({"native": NATIVE, "lxc": LXC}, blocks=[0, 1, 2, 3], warmup=[False] * 4)
    # A warm-up run in every block, far off: it must change nothing.
    warm = _frame({"native": [500.0] * 4, "lxc": [50.0] * 4}, blocks=[0, 1, 2, 3], warmup=[True] * 4)
    with_warm = compute_stats(pd.concat([warm, base], ignore_index=True), n_resamples=RESAMPLES)
    without = compute_stats(base, n_resamples=RESAMPLES)
    a = _one(with_warm, platform="lxc", statistic="ratio_to_baseline", method=PAIRED_T)
    b = _one(without, platform="lxc", statistic="ratio_to_baseline", method=PAIRED_T)
    assert (a["estimate"], a["ci_low"], a["ci_high"], a["n_pairs"]) == (b["estimate"], b["ci_low"], b["ci_high"], 4)


def _rounds_data(seed=3, blocks=5, rounds=4):
    rng = np.random.default_rng(seed)
    b = np.repeat(np.arange(blocks), rounds)
    r = np.tile(np.arange(rounds), blocks)
    effect = rng.normal(1, 0.2, blocks)[b]
    native = 100 * effect * rng.normal(1, 0.02, b.size)
    lxc = 105 * effect * rng.normal(1, 0.02, b.size)
    return _frame({"native": native, "lxc": lxc}, blocks=list(b), rounds=list(r)), native, lxc, b


def test_rounds_prefer_t_over_block_means_and_keep_the_seeded_bootstrap_beside_it():
    df, native, lxc, b = _rounds_data()
    table = compute_stats(df, n_resamples=RESAMPLES)
    d = np.log(lxc / native)
    block_means = np.array([d[b == k].mean() for k in range(5)])
    # The preferred row: Student-t over the 5 block means (a block is the independent unit).
    pref = _one(table, platform="lxc", statistic="ratio_to_baseline", method=PAIRED_T)
    half = stats.t.ppf(0.975, 4) * block_means.std(ddof=1) / math.sqrt(5)
    assert bool(pref["preferred"]) and pref["n_pairs"] == 20
    assert pref["estimate"] == pytest.approx(math.exp(block_means.mean()))
    assert (pref["ci_low"], pref["ci_high"]) == pytest.approx(
        (math.exp(block_means.mean() - half), math.exp(block_means.mean() + half))
    )
    assert "5 block means of 20 round log ratios" in pref["note"]
    ratios = table[(table.platform == "lxc") & (table.statistic == "ratio_to_baseline")]
    assert list(ratios.loc[ratios["preferred"].fillna(False).astype(bool), "method"]) == [PAIRED_T]
    # The hierarchical bootstrap stays, seeded, same point estimate, not preferred, and says why.
    row = _one(table, platform="lxc", statistic="ratio_to_baseline", method=HIERARCHICAL)
    assert row["estimate"] == pytest.approx(pref["estimate"])
    assert row["ci_low"] < row["estimate"] < row["ci_high"] and row["n_pairs"] == 20
    assert not bool(row["preferred"]) and "not preferred" in row["note"]
    again = compute_stats(df, n_resamples=RESAMPLES)
    assert _one(again, platform="lxc", statistic="ratio_to_baseline", method=HIERARCHICAL)["ci_low"] == row["ci_low"]
    assert not bool(_one(table, platform="lxc", statistic="overhead_pct", method=HIERARCHICAL)["preferred"])
    # Balanced one-way ANOVA by hand: MSW, and (MSB - MSW) / rounds.
    msw = sum(((d[b == k] - d[b == k].mean()) ** 2).sum() for k in range(5)) / (20 - 5)
    msb = 4 * ((block_means - d.mean()) ** 2).sum() / 4
    within = _one(table, platform="lxc", statistic="variance_within_block")
    between = _one(table, platform="lxc", statistic="variance_between_blocks")
    assert within["estimate"] == pytest.approx(msw)
    assert between["estimate"] == pytest.approx(max(0.0, (msb - msw) / 4))
    eq = _one(table, platform="lxc", statistic="equivalence", method=PAIRED_T)
    assert eq["conf_level"] == pytest.approx(0.9) and eq["p_value"] is not None and bool(eq["preferred"])
    assert eq["ci_high"] == pytest.approx(
        math.exp(block_means.mean() + stats.t.ppf(0.95, 4) * half / stats.t.ppf(0.975, 4))
    )


def test_the_rounds_candidate_is_t_over_every_round_beside_the_preferred_row_never_preferred():
    df, native, lxc, b = _rounds_data()
    table = compute_stats(df, n_resamples=RESAMPLES)
    d = np.log(lxc / native)
    half = stats.t.ppf(0.975, 19) * d.std(ddof=1) / math.sqrt(20)
    row = _one(table, platform="lxc", statistic="ratio_to_baseline", method=PAIRED_T_ROUNDS)
    assert not bool(row["preferred"]) and row["n_pairs"] == 20
    # Every round weighs the same: with balanced blocks the point is the preferred row's.
    assert row["estimate"] == pytest.approx(math.exp(d.mean()))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((math.exp(d.mean() - half), math.exp(d.mean() + half)))
    assert "20 round log ratios as independent" in row["note"] and "candidate" in row["note"]
    assert row["p_value"] == pytest.approx(2 * stats.t.sf(abs(d.mean()) / (d.std(ddof=1) / math.sqrt(20)), 19))
    assert not bool(_one(table, platform="lxc", statistic="overhead_pct", method=PAIRED_T_ROUNDS)["preferred"])
    # Holm's family is the preferred rows': the candidate keeps its raw p-value.
    assert pd.isna(row["p_adjusted"])


def test_the_rounds_candidate_needs_blocks_with_several_rounds():
    one_round = _frame({"native": [100, 110, 90], "lxc": [102, 111, 93]}, blocks=[0, 1, 2], rounds=[0, 0, 0])
    lone = _frame({"native": [100, 110, 90], "lxc": [102, 111, 93]}, blocks=[0, 0, 0], rounds=[0, 1, 2])
    for df in (one_round, lone):
        assert rounds_ratio(pair_runs(df[df.platform == "lxc"], df[df.platform == "native"])) is None
    table = compute_stats(one_round, n_resamples=RESAMPLES)
    assert table[table.method == PAIRED_T_ROUNDS].empty


def test_the_rounds_candidate_is_narrower_than_the_block_means_t_only_by_what_it_assumes():
    # Blocks whose instances differ (the ratio moves by block): the rounds' t, counting 20 rounds
    # as independent, is narrower than the t over 5 block means, which is what makes it a
    # candidate to be judged and not a free gain.
    rng = np.random.default_rng(11)
    b = np.repeat(np.arange(5), 4)
    native = 100 * rng.normal(1, 0.01, 20)
    lxc = 105 * rng.normal(1, 0.05, 5)[b] * rng.normal(1, 0.01, 20)
    df = _frame({"native": native, "lxc": lxc}, blocks=list(b), rounds=list(np.tile(range(4), 5)))
    pairs = pair_runs(df[df.platform == "lxc"], df[df.platform == "native"])
    cand, pref = rounds_ratio(pairs), paired_ratio(pairs)
    assert cand.method == PAIRED_T_ROUNDS and pref.method == PAIRED_T
    assert cand.ratio.estimate == pytest.approx(pref.ratio.estimate)
    assert cand.ratio.high / cand.ratio.low < pref.ratio.high / pref.ratio.low
    assert cand.variance.between_blocks > cand.variance.within_block


def test_the_stopping_rule_reads_the_t_over_block_means_when_blocks_hold_rounds():
    from vbench.stats.stopping import comparison_widths

    df, native, lxc, b = _rounds_data()
    (w,) = comparison_widths(df, "native", [("terasort", "terasort_time")], n_resamples=RESAMPLES)
    pref = _one(
        compute_stats(df, n_resamples=RESAMPLES), platform="lxc", statistic="ratio_to_baseline", method=PAIRED_T
    )
    assert w.method == PAIRED_T
    assert w.half_width_pct == pytest.approx(100 * (pref["ci_high"] - pref["ci_low"]) / 2 / pref["estimate"])


def test_hierarchical_resamples_blocks_then_rounds():
    df, *_ = _rounds_data(blocks=3, rounds=2)
    pairs = pair_runs(df[df["platform"] == "lxc"], df[df["platform"] == "native"])
    assert pairs.several_rounds and pairs.n_blocks == 3 and pairs.n_pairs == 6
    hr = hierarchical_ratio(pairs, n_resamples=500, rng=np.random.default_rng(1))
    assert hr.method == HIERARCHICAL and "too narrow" in hr.note
    assert paired_ratio(pairs).method == PAIRED_T
    vc = variance_components(pairs)
    assert vc.within_block is not None and vc.between_blocks is not None
    one_round = pair_runs(*(_frame({p: [1.0, 1.1, 1.2]}, blocks=[0, 1, 2]) for p in ("lxc", "native")))
    assert hierarchical_ratio(one_round) is None


def test_t_over_block_means_covers_where_the_percentile_bootstrap_does_not():
    # Five blocks of three rounds, a cluster-instance effect per (block, platform): the block
    # means are the independent observations. 400 campaigns: Monte Carlo error about 1.1 points.
    rng = np.random.default_rng(11)
    hits_t = hits_boot = 0
    n = 400
    for _ in range(n):
        inst = rng.normal(0, 0.03, (5, 1, 2))
        logs = inst + rng.normal(0, 0.02, (5, 3, 2))
        d = (math.log(1.05) + logs[..., 1] - logs[..., 0]).reshape(-1)
        pairs = Pairs(tuple(str(j // 3) for j in range(15)), d, True)
        iv = paired_ratio(pairs).ratio
        hits_t += iv.low <= 1.05 <= iv.high
        bv = hierarchical_ratio(pairs, n_resamples=400, rng=rng).ratio
        hits_boot += bv.low <= 1.05 <= bv.high
    assert hits_t / n >= 0.92  # nominal 95 %
    assert hits_boot < hits_t


def test_several_runs_of_one_side_in_a_block_are_averaged_before_pairing():
    # A micro benchmark's hosts: three runs per platform per block, no round.
    blocks = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    native = [10, 11, 12, 20, 21, 22, 15, 15, 15]
    lxc = [11, 12, 13, 21, 22, 23, 16, 16, 17]
    pairs = pair_runs(_frame({"lxc": lxc}, blocks=blocks), _frame({"native": native}, blocks=blocks))
    assert pairs.n_pairs == 3 and not pairs.has_rounds
    expected = np.log(np.array([12, 22, 49 / 3]) / np.array([11, 21, 15]))
    assert pairs.log_ratios == pytest.approx(expected)
    assert paired_ratio(pairs).method == PAIRED_T


def test_holm_runs_over_the_campaigns_equivalence_tests():
    a = _frame({"native": NATIVE, "lxc": LXC}, blocks=[0, 1, 2, 3])
    b = _frame(
        {"native": [50, 52, 49, 51], "lxc": [50.2, 52.1, 49.1, 51.3]},
        blocks=[0, 1, 2, 3],
        benchmark="pi",
        metric="job_wall_time",
    )
    table = compute_stats(pd.concat([a, b], ignore_index=True), n_resamples=RESAMPLES)
    eq = table[(table["statistic"] == "equivalence") & (table["method"] == PAIRED_T)]
    assert len(eq) == 2
    assert eq["p_adjusted"].to_numpy() == pytest.approx(holm(eq["p_value"].to_numpy()))
    for _, r in eq.iterrows():
        assert ("near-native" in r["verdict"]) == (r["p_adjusted"] < 0.05)
    # The unpaired TOST beside a paired one is not one of the family.
    assert (
        table.loc[(table["statistic"] == "equivalence") & (table["method"] == "tost_welch"), "p_adjusted"].isna().all()
    )


def test_the_dvc_metrics_carry_the_paired_method_and_its_pairs():
    table = compute_stats(_frame({"native": NATIVE, "lxc": LXC}, blocks=[0, 1, 2, 3]), n_resamples=RESAMPLES)
    entry = headline_metrics(table)["platforms"]["terasort"]["terasort_time"]["lxc/native"]
    assert entry["method"] == PAIRED_T and entry["n_pairs"] == 4


def _blocks_with(mean: float, sd: float, n: int) -> Pairs:
    """n blocks whose log ratios have exactly this mean and sample sd."""
    z = np.linspace(-1.0, 1.0, n)
    z = (z - z.mean()) / z.std(ddof=1)
    x = pd.DataFrame({"value": np.exp(mean + sd * z) * 10.0, "block": range(n)})
    y = pd.DataFrame({"value": np.full(n, 10.0), "block": range(n)})
    return pair_runs(x, y)


@pytest.mark.parametrize("mean, sd, edges", [(math.log(0.94), 0.045, (0.97, 1.07)), (math.log(1.05), 0.08, (1.0,))])
def test_blocks_to_clear_is_where_the_interval_of_that_many_blocks_first_clears_the_edges(mean, sd, edges):
    from vbench.stats.paired import blocks_to_clear

    six = paired_ratio(_blocks_with(mean, sd, 6)).ratio
    clear = lambda iv: all(e < iv.low or iv.high < e for e in edges)  # noqa: E731
    assert not clear(six)
    n = blocks_to_clear(six.low, six.high, 6, edges)
    assert n is not None and n > 6
    assert clear(paired_ratio(_blocks_with(mean, sd, n)).ratio)
    assert not clear(paired_ratio(_blocks_with(mean, sd, n - 1)).ratio)


def test_blocks_to_clear_has_no_answer_at_an_edge_or_without_an_interval():
    from vbench.stats.paired import blocks_to_clear

    at_edge = paired_ratio(_blocks_with(math.log(0.97), 0.05, 6)).ratio
    assert blocks_to_clear(at_edge.low, at_edge.high, 6, (0.97, 1.07)) is None
    assert blocks_to_clear(None, 1.2, 6, (1.0,)) is None
    assert blocks_to_clear(0.9, 1.2, 1, (1.0,)) is None
    # Already clear: the blocks it has.
    assert blocks_to_clear(1.1, 1.2, 6, (1.0,)) == 6

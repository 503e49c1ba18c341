"""Tests across platforms, each checked against a hand computation or a second library."""

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW, ttost_ind

from vbench.stats.hypothesis import holm, kruskal_wallis, pairwise_welch, tost_ratio, welch_anova, welch_difference
from vbench.stats.ratio import fieller_interval

GROUPS = {
    "native": np.array([100.2, 98.7, 101.5, 99.9, 100.8, 99.1]),
    "kvm": np.array([108.9, 110.4, 107.6, 109.8, 111.2, 108.1, 115.3]),
    "lxc": np.array([101.1, 100.0, 102.3, 100.6, 101.9]),
}


def _welch_anova_by_hand(groups):
    """Welch (1951), as in e.g. Maxwell & Delaney, Designing Experiments, eq. 3.xx."""
    k = len(groups)
    n = np.array([len(g) for g in groups], float)
    m = np.array([np.mean(g) for g in groups])
    v = np.array([np.var(g, ddof=1) for g in groups])
    w = n / v
    mw = np.sum(w * m) / np.sum(w)
    a = np.sum(w * (m - mw) ** 2) / (k - 1)
    lam = np.sum((1 - w / w.sum()) ** 2 / (n - 1))
    b = 1 + 2 * (k - 2) / (k**2 - 1) * lam
    f = a / b
    df2 = (k**2 - 1) / (3 * lam)
    return f, k - 1, df2, stats.f.sf(f, k - 1, df2)


def test_welch_anova_matches_hand_formula():
    f, df1, df2, p = _welch_anova_by_hand(list(GROUPS.values()))
    res = welch_anova(GROUPS)
    assert res.statistic == pytest.approx(f, rel=1e-10)
    assert res.p_value == pytest.approx(p, rel=1e-8)
    assert res.df == pytest.approx((df1, df2), rel=1e-10)


def test_welch_anova_refuses_small_or_constant_groups():
    assert "n=1" in welch_anova({"a": np.array([1.0]), "b": np.array([1.0, 2.0])}).note
    assert "zero variance" in welch_anova({"a": np.array([1.0, 1.0]), "b": np.array([1.0, 2.0])}).note
    assert welch_anova({"a": np.array([1.0, 2.0])}).note == "needs at least two platforms"


def test_kruskal_matches_hand_formula_with_ties():
    groups = {"a": np.array([1.0, 2.0, 2.0, 4.0]), "b": np.array([3.0, 5.0, 5.0, 6.0]), "c": np.array([2.0, 7.0, 8.0])}
    allv = np.concatenate(list(groups.values()))
    ranks = stats.rankdata(allv)
    n = allv.size
    h, start = 0.0, 0
    for g in groups.values():
        r = ranks[start : start + g.size]
        h += r.sum() ** 2 / g.size
        start += g.size
    h = 12 / (n * (n + 1)) * h - 3 * (n + 1)
    _, counts = np.unique(allv, return_counts=True)
    h /= 1 - np.sum(counts**3 - counts) / (n**3 - n)
    res = kruskal_wallis(groups)
    assert res.statistic == pytest.approx(h, rel=1e-12)
    assert res.p_value == pytest.approx(stats.chi2.sf(h, 2), rel=1e-10)


def test_holm_by_hand():
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 -> 0.02, 0.03, 0.06, 0.04 -> running max.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # 0.5 * 2 = 1.0, then 0.9 * 1 = 0.9 is raised to the running max 1.0.
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_welch_difference_matches_statsmodels():
    cm = CompareMeans(DescrStatsW(GROUPS["kvm"]), DescrStatsW(GROUPS["native"]))
    lo, hi = cm.tconfint_diff(alpha=0.05, usevar="unequal")
    _, p, _ = cm.ttest_ind(usevar="unequal")
    iv, ours_p = welch_difference(GROUPS["kvm"], GROUPS["native"])
    assert (iv.low, iv.high) == pytest.approx((lo, hi), rel=1e-10)
    assert ours_p == pytest.approx(p, rel=1e-10)


def test_pairwise_welch_is_holm_adjusted_over_all_pairs():
    pairs = pairwise_welch(GROUPS)
    assert [(p.first, p.second) for p in pairs] == [("kvm", "lxc"), ("kvm", "native"), ("lxc", "native")]
    raw = [
        stats.ttest_ind(GROUPS[a], GROUPS[b], equal_var=False).pvalue
        for a, b in [("kvm", "lxc"), ("kvm", "native"), ("lxc", "native")]
    ]
    assert [p.p_value for p in pairs] == pytest.approx(raw)
    assert [p.p_adjusted for p in pairs] == pytest.approx(holm(raw))
    assert pairs[1].difference.estimate == pytest.approx(GROUPS["kvm"].mean() - GROUPS["native"].mean())


@pytest.mark.parametrize("bound", [2.0, 5.0, 10.0])
def test_tost_ratio_equals_statsmodels_ttost_on_scaled_baseline(bound):
    # H0 mu_x <= theta mu_y is a Welch test of x against theta*y with margin 0; statsmodels'
    # ttost_ind gives each one-sided p-value independently of our code.
    x, y = GROUPS["lxc"], GROUPS["native"]
    lo_t, hi_t = 1 - bound / 100, 1 + bound / 100
    p_lower = ttost_ind(x, lo_t * y, 0.0, 1e12, usevar="unequal")[1][1]
    p_upper = ttost_ind(x, hi_t * y, -1e12, 0.0, usevar="unequal")[2][1]
    res = tost_ratio(x, y, bound_pct=bound)
    assert res.p_lower == pytest.approx(p_lower, rel=1e-10)
    assert res.p_upper == pytest.approx(p_upper, rel=1e-10)
    assert res.p_value == pytest.approx(max(p_lower, p_upper), rel=1e-10)
    assert res.equivalent == (max(p_lower, p_upper) < 0.05)


def test_tost_verdicts_near_native_and_not():
    near = tost_ratio(GROUPS["lxc"], GROUPS["native"], bound_pct=5.0)
    assert near.equivalent  # ~1.3 % slower, well inside +/- 5 %
    assert 0.95 < near.ratio.low < near.ratio.high < 1.05  # dual 90 % interval inside the bounds
    far = tost_ratio(GROUPS["kvm"], GROUPS["native"], bound_pct=5.0)
    assert not far.equivalent  # ~10 % slower
    tight = tost_ratio(GROUPS["lxc"], GROUPS["native"], bound_pct=0.5)
    assert not tight.equivalent
    assert near.ratio.low == pytest.approx(fieller_interval(GROUPS["lxc"], GROUPS["native"], 0.90).low)


def test_tost_small_n_gives_note():
    res = tost_ratio(np.array([1.0]), np.array([1.0, 1.1]))
    assert res.p_value is None and not res.equivalent and "no test" in res.note

"""Per-group description: each interval checked against an independent implementation or table."""

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.weightstats import DescrStatsW

from vbench.stats.bootstrap import bca_interval, bca_mean_interval
from vbench.stats.describe import describe, median_order_statistic_interval, shapiro_wilk, summarise, t_interval

RUNTIMES = np.array([101.3, 98.2, 104.9, 99.5, 100.8, 97.6, 103.1, 102.2, 99.0, 100.4])


def test_t_interval_matches_statsmodels():
    lo, hi = DescrStatsW(RUNTIMES).tconfint_mean(alpha=0.05)
    iv = t_interval(RUNTIMES, 0.95)
    assert iv.estimate == pytest.approx(RUNTIMES.mean())
    assert (iv.low, iv.high) == pytest.approx((lo, hi), rel=1e-12)


def test_t_interval_by_hand_for_three_values():
    # mean 2, s = 1; with 2 df the t quantile has the closed form (2p - 1) / sqrt(2p(1 - p)).
    t = 0.95 / np.sqrt(2 * 0.975 * 0.025)  # = 4.3027
    iv = t_interval([1.0, 2.0, 3.0])
    assert iv.low == pytest.approx(2 - t / np.sqrt(3), rel=1e-12)
    assert iv.high == pytest.approx(2 + t / np.sqrt(3), rel=1e-12)


def test_t_interval_n1_has_no_ci_and_says_so():
    iv = t_interval([5.0])
    assert iv.estimate == 5.0 and iv.low is None and iv.high is None
    assert iv.note == "n=1: no CI"


@pytest.mark.parametrize("seed", [0, 20141])
def test_bca_mean_equals_scipy_with_same_seed(seed):
    x = np.random.default_rng(5).lognormal(4.6, 0.08, 12)
    ours = bca_mean_interval(x, n_resamples=4999, rng=seed)
    ref = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=4999, rng=np.random.default_rng(seed))
    assert ours.low == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert ours.high == pytest.approx(ref.confidence_interval.high, rel=1e-12)


def test_bca_skewed_sample_equals_scipy_and_is_asymmetric():
    x = np.array([10.0, 10.2, 10.1, 10.3, 9.9, 10.0, 14.5, 10.2, 10.1, 16.0, 10.0, 10.4])
    ours = bca_mean_interval(x, n_resamples=9999, rng=1)
    ref = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=9999, rng=np.random.default_rng(1))
    assert (ours.low, ours.high) == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)
    # Right skew: the upper arm is longer than the lower one.
    assert ours.high - ours.estimate > ours.estimate - ours.low


def test_bca_is_reproducible_and_seed_sensitive():
    a = bca_mean_interval(RUNTIMES, rng=7)
    b = bca_mean_interval(RUNTIMES, rng=7)
    c = bca_mean_interval(RUNTIMES, rng=8)
    assert a == b
    assert (a.low, a.high) != (c.low, c.high)


def test_bca_block_drawing_for_large_samples_stays_close_to_scipy(monkeypatch):
    import vbench.stats.bootstrap as bs

    x = np.random.default_rng(3).normal(50, 5, 40)
    monkeypatch.setattr(bs, "_MAX_INDICES_PER_DRAW", 40 * 7)  # force blocks of 7 resamples
    ours = bs.bca_mean_interval(x, n_resamples=20000, rng=3)
    ref = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=20000, rng=np.random.default_rng(99))
    # Different draws, same distribution: limits agree to Monte Carlo error.
    assert ours.low == pytest.approx(ref.confidence_interval.low, abs=0.15)
    assert ours.high == pytest.approx(ref.confidence_interval.high, abs=0.15)


def test_bca_constant_sample_gives_zero_width_with_note():
    iv = bca_mean_interval([3.0, 3.0, 3.0])
    assert (iv.low, iv.high) == (3.0, 3.0)
    assert "all values equal" in iv.note


def test_bca_degenerate_statistic_gets_note_not_nan():
    # The estimate (10) lies above every resampled value (means near 2): BCa's bias
    # correction would be infinite, which must become a note, not NaN limits.
    iv = bca_interval([np.array([1.0, 2.0, 3.0])], lambda m: np.where(np.ndim(m) == 0, 10.0, m), rng=1)
    assert iv.low is None and "degenerate" in iv.note


# Ranks of the distribution-free 95 % CI for the median, as tabulated by Campbell & Gardner
# (BMJ 1988, "Calculating confidence intervals for some non-parametric analyses")
# and Conover (Practical Nonparametric Statistics): n -> (lower rank, upper rank, coverage).
PUBLISHED_MEDIAN_RANKS = {
    6: (1, 6, 0.969),
    10: (2, 9, 0.979),
    20: (6, 15, 0.959),
    30: (10, 21, 0.957),
    50: (18, 33, 0.967),
}


@pytest.mark.parametrize("n", sorted(PUBLISHED_MEDIAN_RANKS))
def test_median_ci_ranks_match_published_table(n):
    lo_rank, hi_rank, coverage = PUBLISHED_MEDIAN_RANKS[n]
    x = np.arange(1.0, n + 1)  # value == rank
    iv = median_order_statistic_interval(x[::-1])  # order of input must not matter
    assert (iv.low, iv.high) == (lo_rank, hi_rank)
    assert float(iv.note.rsplit(" ", 1)[1]) == pytest.approx(coverage, abs=5e-4)


@pytest.mark.parametrize("n", [6, 7, 11, 23, 40])
def test_median_ci_matches_scipy_quantile_test(n):
    x = np.random.default_rng(n).lognormal(3, 0.1, n)
    ci = stats.quantile_test(x, q=np.median(x), p=0.5).confidence_interval(0.95)
    iv = median_order_statistic_interval(x)
    assert (iv.low, iv.high) == (ci.low, ci.high)


def test_median_ci_needs_six_runs():
    iv = median_order_statistic_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert iv.estimate == 3.0 and iv.low is None
    assert "needs n >= 6" in iv.note


def test_summary_values():
    s = summarise([2.0, 4.0, 4.0, 5.0])
    assert (s.n, s.mean, s.median, s.min, s.max) == (4, 3.75, 4.0, 2.0, 5.0)
    assert s.std == pytest.approx(np.sqrt(((2 - 3.75) ** 2 + 2 * (4 - 3.75) ** 2 + (5 - 3.75) ** 2) / 3))
    assert s.cv == pytest.approx(s.std / 3.75)


def test_shapiro_matches_scipy_and_small_n_is_explained():
    w, p = stats.shapiro(RUNTIMES)
    nm = shapiro_wilk(RUNTIMES)
    assert (nm.w, nm.p_value) == pytest.approx((w, p))
    assert shapiro_wilk([1.0, 2.0]).note == "n=2: Shapiro-Wilk needs n >= 3"


def test_preferred_method_switches_to_bca_only_when_non_normal_and_enough_runs():
    normal = describe(RUNTIMES, rng=1)
    assert normal.preferred_mean_method == "t"
    skewed = np.array([10.0, 10.1, 10.0, 10.2, 9.9, 10.0, 10.1, 10.0, 10.2, 19.0, 10.1, 10.0])
    d = describe(skewed, rng=1)
    assert d.normality.doubtful and d.preferred_mean_method == "bca_bootstrap"
    few = describe(skewed[[0, 1, 2, 3, 4, 9]], rng=1)
    assert few.normality.doubtful and few.preferred_mean_method == "t"
    assert "too few for a reliable bootstrap" in few.preference_note

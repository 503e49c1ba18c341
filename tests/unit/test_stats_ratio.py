"""Ratio to baseline: Fieller's interval by test inversion, bootstrap against SciPy, overhead signs."""

import math

import numpy as np
import pytest
from scipy import optimize, stats
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

from vbench.stats.bootstrap import bca_ratio_interval
from vbench.stats.ratio import MeanSummary, fieller_from_summary, fieller_interval, overhead_pct, welch_df_for_ratio
from vbench.stats.records import Interval

NATIVE = np.array([100.2, 98.7, 101.5, 99.9, 100.8, 99.1, 100.4, 101.0])
KVM = np.array([108.9, 110.4, 107.6, 109.8, 111.2, 108.1, 113.0])


def _pivot(rho, x, y):
    """|mean(x) - rho mean(y)| / se: Fieller's set is {rho: pivot <= t}."""
    se = math.sqrt(x.var(ddof=1) / x.size + rho**2 * y.var(ddof=1) / y.size)
    return abs(x.mean() - rho * y.mean()) / se


def test_fieller_limits_invert_the_t_pivot():
    iv = fieller_interval(KVM, NATIVE, 0.95)
    r = KVM.mean() / NATIVE.mean()
    df = welch_df_for_ratio(MeanSummary.of(KVM), MeanSummary.of(NATIVE), r)
    t = stats.t.ppf(0.975, df)
    # Find the limits by root finding on the pivot, independently of the closed form.
    lo = optimize.brentq(lambda rho: _pivot(rho, KVM, NATIVE) - t, 0.5, r)
    hi = optimize.brentq(lambda rho: _pivot(rho, KVM, NATIVE) - t, r, 2.0)
    assert iv.estimate == pytest.approx(r)
    assert (iv.low, iv.high) == pytest.approx((lo, hi), rel=1e-10)
    assert iv.note == ""


def test_welch_df_equals_statsmodels_welch_test_on_scaled_baseline():
    # mean(x) - rho mean(y) is the difference of x and rho*y; statsmodels' Welch df of that
    # comparison is an independent computation of the same Satterthwaite formula.
    r = KVM.mean() / NATIVE.mean()
    cm = CompareMeans(DescrStatsW(KVM), DescrStatsW(r * NATIVE))
    _, _, df = cm.ttest_ind(usevar="unequal")
    assert welch_df_for_ratio(MeanSummary.of(KVM), MeanSummary.of(NATIVE), r) == pytest.approx(df, rel=1e-12)


def test_fieller_closed_form_by_hand():
    # Summary numbers chosen for easy arithmetic; t fixed by taking huge n (df -> inf) and
    # conf so that t = z = 1.959963984540054.
    num = MeanSummary(mean=110.0, sd=math.sqrt(4.0 * 1e6), n=1_000_000)  # var of mean = 4
    den = MeanSummary(mean=100.0, sd=math.sqrt(1.0 * 1e6), n=1_000_000)  # var of mean = 1
    z = 1.959963984540054
    g = z**2 * 1.0 / 100.0**2
    r = 1.1
    half = z / 100.0 * math.sqrt(4.0 * (1 - g) + r**2 * 1.0)
    iv = fieller_from_summary(num, den, 0.95)
    assert (iv.low, iv.high) == pytest.approx(((r - half) / (1 - g), (r + half) / (1 - g)), rel=1e-6)


def test_fieller_approaches_delta_method_when_precise():
    rng = np.random.default_rng(11)
    x, y = rng.normal(110, 2, 400), rng.normal(100, 2, 400)
    iv = fieller_interval(x, y)
    r = x.mean() / y.mean()
    se = r * math.sqrt(x.var(ddof=1) / x.size / x.mean() ** 2 + y.var(ddof=1) / y.size / y.mean() ** 2)
    t = stats.t.ppf(0.975, 798)
    # Within 2 % of the half-width: the two differ only by terms of order g ~ 1e-4.
    assert iv.low == pytest.approx(r - t * se, abs=0.02 * t * se)
    assert iv.high == pytest.approx(r + t * se, abs=0.02 * t * se)


def test_fieller_unbounded_when_baseline_not_significant():
    y = np.array([0.5, -0.4, 0.2, -0.1])  # mean 0.05, far from significant
    iv = fieller_interval(np.array([1.0, 1.2, 0.9]), y)
    assert iv.estimate == pytest.approx(np.mean([1.0, 1.2, 0.9]) / 0.05)
    assert iv.low is None and iv.high is None
    assert "unbounded" in iv.note and "g=" in iv.note


def test_fieller_zero_baseline_and_small_n():
    assert (
        fieller_interval(np.array([1.0, 2.0]), np.array([-1.0, 1.0])).note == "baseline mean is zero: ratio undefined"
    )
    small = fieller_interval(np.array([5.0]), np.array([4.0, 4.2]))
    assert small.estimate == pytest.approx(5 / 4.1) and small.low is None
    assert small.note == "n=1 (platform), n=2 (baseline): no CI"


def test_bootstrap_ratio_equals_scipy_two_sample_bca():
    def ratio(a, b, axis=-1):
        return np.mean(a, axis=axis) / np.mean(b, axis=axis)

    ours = bca_ratio_interval(KVM, NATIVE, n_resamples=9999, rng=20141)
    ref = stats.bootstrap((KVM, NATIVE), ratio, method="BCa", n_resamples=9999, rng=np.random.default_rng(20141))
    assert ours.estimate == pytest.approx(KVM.mean() / NATIVE.mean())
    assert (ours.low, ours.high) == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)


def test_bootstrap_ratio_agrees_with_fieller_on_normal_data():
    rng = np.random.default_rng(2)
    x, y = rng.normal(110, 3, 30), rng.normal(100, 3, 30)
    f, b = fieller_interval(x, y), bca_ratio_interval(x, y, rng=1)
    assert b.low == pytest.approx(f.low, abs=0.005) and b.high == pytest.approx(f.high, abs=0.005)


def test_overhead_lower_is_better():
    iv = overhead_pct(Interval(1.10, 1.05, 1.16), higher_is_better=False)
    assert (iv.estimate, iv.low, iv.high) == pytest.approx((10.0, 5.0, 16.0))


def test_overhead_higher_is_better_is_extra_time_per_unit_of_work():
    # Throughput halves -> 100 % overhead, like a run time that doubles; limits swap.
    iv = overhead_pct(Interval(0.5, 0.4, 0.8), higher_is_better=True)
    assert (iv.estimate, iv.low, iv.high) == pytest.approx((100.0, 25.0, 150.0))
    faster = overhead_pct(Interval(1.25, 1.0, 1.6), higher_is_better=True)
    assert faster.estimate == pytest.approx(-20.0)  # better than baseline -> negative overhead


def test_overhead_keeps_notes_and_refuses_unknown_direction():
    unbounded = overhead_pct(Interval(1.2, note="Fieller interval unbounded"), higher_is_better=False)
    assert unbounded.estimate == pytest.approx(20.0) and unbounded.low is None and "unbounded" in unbounded.note
    unknown = overhead_pct(Interval(1.2, 1.1, 1.3), higher_is_better=None)
    assert unknown.estimate is None and "direction unknown" in unknown.note

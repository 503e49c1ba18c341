"""Tests across platforms: omnibus, pairwise with Holm, and equivalence to the baseline.

- Welch's ANOVA (no equal-variance assumption: virtualised platforms are usually noisier
  than native) and Kruskal-Wallis (no normality assumption) as omnibus tests.
- Pairwise Welch t-tests, p-values Holm-adjusted within one (experiment, benchmark,
  metric, size) family: Holm controls the family-wise error like Bonferroni, never less
  powerful.
- TOST for "within +/- X % of the baseline" on the ratio of means. A bound relative to the
  baseline mean is a hypothesis about mu_p / mu_b, so each one-sided test is the linear
  form mu_p - theta * mu_b (theta = 1 -/+ X/100), i.e. a Welch t-test of the platform
  sample against the baseline sample scaled by theta (the ratio formulation of Hauschke,
  Kieser & Hothorn 1999, here in Welch's unequal-variance form).
  This carries the baseline's own uncertainty, which a TOST with the margin fixed at
  X % of the *observed* baseline mean would ignore.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Mapping

import numpy as np
from scipy import stats
from statsmodels.stats.oneway import anova_oneway

from vbench.stats.ratio import fieller_interval
from vbench.stats.records import Interval


@dataclass(frozen=True)
class TestResult:
    statistic: float | None
    p_value: float | None
    df: tuple[float, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class PairResult:
    first: str
    second: str
    difference: Interval  # mean(first) - mean(second), Welch CI
    p_value: float | None
    p_adjusted: float | None
    note: str = ""


@dataclass(frozen=True)
class TostResult:
    ratio: Interval  # (1 - 2 alpha) Fieller interval, the interval dual to TOST
    p_value: float | None  # max of the two one-sided p-values
    p_lower: float | None
    p_upper: float | None
    equivalent: bool
    bound_pct: float
    note: str = ""


def _untestable(groups: Mapping[str, np.ndarray]) -> str:
    """Why an omnibus test of `groups` cannot run (fewer than two platforms, or a platform with
    fewer than two runs); "" when it can."""
    if len(groups) < 2:
        return "needs at least two platforms"
    small = [f"{k} (n={len(v)})" for k, v in groups.items() if len(v) < 2]
    return "needs n >= 2 per platform; too few runs: " + ", ".join(small) if small else ""


def welch_anova(groups: Mapping[str, np.ndarray]) -> TestResult:
    """Welch's heteroscedastic one-way ANOVA (Welch 1951), via statsmodels."""
    if note := _untestable(groups):
        return TestResult(None, None, note=note)
    if any(np.ptp(v) == 0 for v in groups.values()):
        return TestResult(None, None, note="a platform has zero variance: Welch weights undefined")
    res = anova_oneway([np.asarray(v, float) for v in groups.values()], use_var="unequal", welch_correction=True)
    return TestResult(float(res.statistic), float(res.pvalue), tuple(float(d) for d in res.df))


def kruskal_wallis(groups: Mapping[str, np.ndarray]) -> TestResult:
    """Kruskal-Wallis H test (tie-corrected), via SciPy."""
    if note := _untestable(groups):
        return TestResult(None, None, note=note)
    allv = np.concatenate([np.asarray(v, float) for v in groups.values()])
    if np.ptp(allv) == 0:
        return TestResult(None, None, note="all values identical: no ranks to compare")
    h, p = stats.kruskal(*groups.values())
    return TestResult(float(h), float(p), (float(len(groups) - 1),))


def holm(p_values) -> np.ndarray:
    """Holm step-down adjusted p-values (Holm 1979), in the order given.

    The i-th smallest of m p-values is multiplied by m - i + 1, the products are made
    non-decreasing in that order and capped at 1. NaN stays NaN and is not one of the m tests
    (as R's p.adjust). Equal to statsmodels' `multipletests(method="holm")`, which calls
    gc.collect() on every call: a walk of the whole heap per comparison family.
    """
    p = np.asarray(p_values, dtype=float).reshape(-1)
    adjusted = np.full(p.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    steps = np.arange(order.size, 0, -1)
    adjusted[order] = np.minimum(np.maximum.accumulate(p[order] * steps), 1.0)
    return adjusted


def _welch(x: np.ndarray, y: np.ndarray, theta: float = 1.0) -> tuple[float, float, float]:
    """mean(x) - theta * mean(y), its standard error and Welch-Satterthwaite df.

    Written out rather than calling scipy.stats.ttest_ind, which warns about "catastrophic
    cancellation" whenever one platform's runs are all equal, a case we handle ourselves.
    """
    vx = x.var(ddof=1) / x.size
    vy = theta**2 * y.var(ddof=1) / y.size
    se = float(np.sqrt(vx + vy))
    df = float((vx + vy) ** 2 / (vx**2 / (x.size - 1) + vy**2 / (y.size - 1)))
    return float(x.mean() - theta * y.mean()), se, df


def welch_difference(x, y, conf: float = 0.95) -> tuple[Interval, float | None]:
    """mean(x) - mean(y) with Welch's CI and two-sided p-value."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.size == 0 or y.size == 0:
        return Interval(None, note=f"n={x.size} and n={y.size}: no difference"), None
    diff = float(x.mean() - y.mean())
    if x.size < 2 or y.size < 2:
        return Interval(diff, note=f"n={x.size} and n={y.size}: no test"), None
    if np.ptp(x) == 0 and np.ptp(y) == 0:
        return Interval(diff, diff, diff, "all values equal within each platform: no test"), None
    d, se, df = _welch(x, y)
    half = float(stats.t.ppf(0.5 + conf / 2, df)) * se
    return Interval(diff, diff - half, diff + half), float(2 * stats.t.sf(abs(d) / se, df))


def pairwise_welch(groups: Mapping[str, np.ndarray], conf: float = 0.95) -> list[PairResult]:
    """All platform pairs (in sorted name order), Holm-adjusted over the pairs that have a p-value."""
    names = sorted(groups)
    raw = []
    for a, b in combinations(names, 2):
        diff, p = welch_difference(groups[a], groups[b], conf)
        raw.append((a, b, diff, p))
    tested = [i for i, r in enumerate(raw) if r[3] is not None]
    adjusted = dict(zip(tested, holm([raw[i][3] for i in tested])))
    out = []
    for i, (a, b, diff, p) in enumerate(raw):
        adj = float(adjusted[i]) if i in adjusted else None
        note = diff.note or (f"Holm over {len(tested)} pairs" if adj is not None else "")
        out.append(PairResult(a, b, diff, p, adj, note))
    return out


def tost_ratio(x, y, bound_pct: float = 5.0, alpha: float = 0.05) -> TostResult:
    """Equivalence of mean(x)/mean(y) to 1 within +/- bound_pct %, two one-sided Welch tests."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    lo_t, hi_t = 1 - bound_pct / 100.0, 1 + bound_pct / 100.0
    ci = fieller_interval(x, y, conf=1 - 2 * alpha)
    if x.size < 2 or y.size < 2:
        return TostResult(
            ci, None, None, None, False, bound_pct, f"n={x.size} (platform), n={y.size} (baseline): no test"
        )
    if y.mean() <= 0:
        return TostResult(ci, None, None, None, False, bound_pct, "baseline mean is not positive: ratio TOST undefined")
    if np.ptp(x) == 0 and np.ptp(y) == 0:
        inside = lo_t < ci.estimate < hi_t
        p = 0.0 if inside else 1.0
        return TostResult(ci, p, p, p, inside, bound_pct, "all values equal: decided without a test")
    # H0: mu_x <= lo_t * mu_y  vs  H1: mu_x > lo_t * mu_y
    d, se, df = _welch(x, y, lo_t)
    p_lower = float(stats.t.sf(d / se, df))
    # H0: mu_x >= hi_t * mu_y  vs  H1: mu_x < hi_t * mu_y
    d, se, df = _welch(x, y, hi_t)
    p_upper = float(stats.t.cdf(d / se, df))
    p = max(p_lower, p_upper)
    return TostResult(ci, p, p_lower, p_upper, p < alpha, bound_pct)

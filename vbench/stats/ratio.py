"""Ratio of a platform's mean to the baseline's mean, and the overhead it implies.

Fieller's interval (Fieller 1954) is exact under normality for a ratio of means and, unlike
the delta method, stays honest when the baseline is noisy: it becomes asymmetric and, when
the baseline mean is not significantly different from zero (g >= 1), unbounded, which we
report with a note instead of a number. The two samples are independent (different
platforms, different runs) with unequal variances, so the t quantile uses Welch-Satterthwaite
degrees of freedom for the pivot mean(x) - rho * mean(y), evaluated at rho = the estimated
ratio (a plug-in choice: the df is computed once, not re-solved for every rho).

Overhead direction: `overhead_pct` is positive when the platform is worse than the baseline.
For lower-is-better metrics (times) it is (ratio - 1) * 100. For higher-is-better metrics
(throughputs) it is (1 / ratio - 1) * 100, i.e. the extra time per unit of work, so that a
throughput that halves reads as 100 % overhead, exactly like a run time that doubles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from vbench.stats.records import Interval


@dataclass(frozen=True)
class MeanSummary:
    """What Fieller needs from one sample."""

    mean: float
    sd: float
    n: int

    @classmethod
    def of(cls, x) -> "MeanSummary":
        x = np.asarray(x, dtype=float)
        return cls(float(x.mean()), float(x.std(ddof=1)) if x.size >= 2 else 0.0, int(x.size))


def welch_df_for_ratio(num: MeanSummary, den: MeanSummary, rho: float) -> float:
    """Welch-Satterthwaite df of mean(x) - rho * mean(y)."""
    v11 = num.sd**2 / num.n
    v22 = rho**2 * den.sd**2 / den.n
    denom = v11**2 / (num.n - 1) + v22**2 / (den.n - 1)
    return (v11 + v22) ** 2 / denom if denom > 0 else math.inf


def fieller_from_summary(num: MeanSummary, den: MeanSummary, conf: float = 0.95) -> Interval:
    """Fieller CI for num.mean / den.mean, independent samples, unequal variances."""
    if den.mean == 0:
        return Interval(None, note="baseline mean is zero: ratio undefined")
    r = num.mean / den.mean
    if num.n < 2 or den.n < 2:
        return Interval(r, note=f"n={num.n} (platform), n={den.n} (baseline): no CI")
    v11 = num.sd**2 / num.n
    v22 = den.sd**2 / den.n
    if v11 == 0 and v22 == 0:
        return Interval(r, r, r, "all values equal: zero-width interval")
    t = float(stats.t.ppf(0.5 + conf / 2, welch_df_for_ratio(num, den, r)))
    g = t**2 * v22 / den.mean**2
    if g >= 1:
        return Interval(
            r, note=f"Fieller interval unbounded: baseline mean not significantly different from zero (g={g:.3g} >= 1)"
        )
    half = t / abs(den.mean) * math.sqrt(v11 * (1 - g) + r**2 * v22)
    return Interval(r, (r - half) / (1 - g), (r + half) / (1 - g))


def fieller_interval(x, y, conf: float = 0.95) -> Interval:
    """Fieller CI for mean(x) / mean(y)."""
    return fieller_from_summary(MeanSummary.of(x), MeanSummary.of(y), conf)


def overhead_pct(ratio: Interval, higher_is_better: bool | None) -> Interval:
    """Convert a ratio platform/baseline (and its CI) to percent overhead; see module doc."""
    if higher_is_better is None:
        return Interval(None, note="direction unknown for this unit: say whether higher is better to get overhead_pct")
    if ratio.estimate is None:
        return Interval(None, note=ratio.note)
    if not higher_is_better:
        to_pct = lambda r: (r - 1.0) * 100.0  # noqa: E731
        if not ratio.bounded:
            return Interval(to_pct(ratio.estimate), note=ratio.note)
        return Interval(to_pct(ratio.estimate), to_pct(ratio.low), to_pct(ratio.high), ratio.note)
    if ratio.estimate <= 0:
        return Interval(None, note="ratio is not positive: throughput overhead undefined")
    to_pct = lambda r: (1.0 / r - 1.0) * 100.0  # noqa: E731
    if not ratio.bounded:
        return Interval(to_pct(ratio.estimate), note=ratio.note)
    if ratio.low <= 0:
        return Interval(to_pct(ratio.estimate), note="ratio CI reaches zero: throughput overhead CI unbounded")
    # 1/r reverses the order of the limits.
    return Interval(to_pct(ratio.estimate), to_pct(ratio.high), to_pct(ratio.low), ratio.note)

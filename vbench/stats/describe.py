"""Per-group description: summary numbers and confidence intervals for the centre.

Which interval is *preferred* for the mean follows Georges et al. (2007): the t-interval
when normality is not in doubt; the BCa bootstrap when a Shapiro-Wilk test rejects
normality and there are enough runs for the bootstrap to be trusted (n >= 10; with fewer
runs BCa intervals are too narrow). The median gets a distribution-free interval from
order statistics, which needs no normality at all but at least 6 runs at 95 %.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats

from vbench.stats.bootstrap import DEFAULT_RESAMPLES, bca_mean_interval
from vbench.stats.records import Interval

#: Shapiro-Wilk p-value below which normality is treated as doubtful.
NORMALITY_ALPHA = 0.05
#: Fewest runs for which the BCa interval is preferred over the t-interval.
MIN_N_FOR_BOOTSTRAP = 10


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    std: float | None
    median: float
    min: float
    max: float
    cv: float | None


@dataclass(frozen=True)
class Normality:
    w: float | None
    p_value: float | None
    doubtful: bool
    note: str = ""


@dataclass(frozen=True)
class Description:
    summary: Summary
    t: Interval
    bca: Interval
    median: Interval
    normality: Normality
    preferred_mean_method: str  # "t" or "bca_bootstrap"
    preference_note: str = ""


def summarise(x) -> Summary:
    x = np.asarray(x, dtype=float)
    n = x.size
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if n >= 2 else None
    cv = std / abs(mean) if std is not None and mean != 0 else None
    return Summary(n, mean, std, float(np.median(x)), float(x.min()), float(x.max()), cv)


@lru_cache(maxsize=4096)
def t_quantile(q: float, df: int) -> float:
    """`scipy.stats.t.ppf(q, df)`, remembered: the statistics table asks for the same few
    (confidence, degrees of freedom) thousands of times, and each scipy call costs ~0.1 ms."""
    return float(stats.t.ppf(q, df))


def t_interval(x, conf: float = 0.95) -> Interval:
    """Student-t interval for the mean."""
    x = np.asarray(x, dtype=float)
    n = x.size
    mean = float(x.mean())
    if n < 2:
        return Interval(mean, note=f"n={n}: no CI")
    half = t_quantile(0.5 + conf / 2, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    note = "all values equal: zero-width interval" if half == 0 else ""
    return Interval(mean, mean - half, mean + half, note)


def median_order_statistic_interval(x, conf: float = 0.95) -> Interval:
    """Distribution-free CI for the median: [x_(k), x_(n-k+1)] with binomial coverage >= conf.

    k is the largest rank with P(Bin(n, 1/2) <= k - 1) <= (1 - conf) / 2; the note gives the
    ranks and the exact coverage, which is above `conf` because ranks are discrete.
    """
    x = np.sort(np.asarray(x, dtype=float))
    n = x.size
    med = float(np.median(x))
    k, coverage, need = _order_statistic_rank(n, conf)
    if k is None:
        return Interval(med, note=f"n={n}: an order-statistic CI at {conf:.0%} needs n >= {need}")
    return Interval(
        med, float(x[k - 1]), float(x[n - k]), f"ranks {k} and {n - k + 1} of {n}; exact coverage {coverage:.4f}"
    )


@lru_cache(maxsize=1024)
def _order_statistic_rank(n: int, conf: float) -> tuple[int | None, float | None, int | None]:
    """(k, exact coverage, None) of the median's order-statistic interval of n values, or
    (None, None, the fewest values that give one): a function of n and conf only, remembered."""
    tail = (1.0 - conf) / 2.0
    ks = np.arange(1, n // 2 + 1)
    ok = ks[stats.binom.cdf(ks - 1, n, 0.5) <= tail]
    if ok.size == 0:
        return None, None, next(m for m in range(1, 1000) if stats.binom.cdf(0, m, 0.5) <= tail)
    k = int(ok.max())
    return k, 1.0 - 2.0 * float(stats.binom.cdf(k - 1, n, 0.5)), None


def shapiro_wilk(x) -> Normality:
    x = np.asarray(x, dtype=float)
    if x.size < 3:
        return Normality(None, None, False, f"n={x.size}: Shapiro-Wilk needs n >= 3")
    if np.ptp(x) == 0:
        return Normality(None, None, False, "all values equal: Shapiro-Wilk undefined")
    w, p = stats.shapiro(x)
    return Normality(float(w), float(p), bool(p < NORMALITY_ALPHA))


def describe(x, *, conf: float = 0.95, n_resamples: int = DEFAULT_RESAMPLES, rng=None) -> Description:
    """Everything the table reports for one group of repeated measurements."""
    x = np.asarray(x, dtype=float)
    normality = shapiro_wilk(x)
    preferred, why = "t", ""
    if normality.doubtful:
        if x.size >= MIN_N_FOR_BOOTSTRAP:
            preferred = "bca_bootstrap"
            why = f"normality doubtful (Shapiro-Wilk p={normality.p_value:.3g}): BCa preferred"
        else:
            why = (
                f"normality doubtful (Shapiro-Wilk p={normality.p_value:.3g}) but n={x.size} < "
                f"{MIN_N_FOR_BOOTSTRAP} is too few for a reliable bootstrap: collect more runs"
            )
    return Description(
        summary=summarise(x),
        t=t_interval(x, conf),
        bca=bca_mean_interval(x, conf=conf, n_resamples=n_resamples, rng=rng),
        median=median_order_statistic_interval(x, conf),
        normality=normality,
        preferred_mean_method=preferred,
        preference_note=why,
    )

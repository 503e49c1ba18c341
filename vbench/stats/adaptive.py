"""Adaptive repetitions: is the interval narrow enough yet, and how many more runs if not?

Following Kalibera & Jones (2013), the number of repetitions is chosen from the observed
variation instead of being fixed in advance. Given the runs so far, we compute the
relative CI half-width ((high - low) / 2 / |estimate|) of the mean (t-interval) or of the
ratio to the baseline (Fieller) and project, holding the current means and standard
deviations fixed, the smallest number of further runs per platform that would bring it
under the target. The projection is a plug-in estimate: with few runs the standard
deviation itself is uncertain, so a runner should re-assess after each batch rather than
trust the first projection, and should respect a minimum number of runs.

Stopping as soon as the interval is narrow enough makes the final interval slightly
optimistic (its coverage falls below nominal); selfbench/adaptive_repetitions.py measures
by how much.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import stats

from vbench.stats.describe import t_interval
from vbench.stats.ratio import MeanSummary, fieller_from_summary
from vbench.stats.records import Interval

STOP_REACHED = "stop_reached"
CONTINUE = "continue"
STOP_BUDGET = "stop_budget"

#: Projections beyond this many extra runs are reported as "not reachable".
MAX_PROJECTION = 100_000


@dataclass(frozen=True)
class PrecisionAssessment:
    statistic: str  # "mean" or "ratio_to_baseline"
    method: str  # "t" or "fieller"
    n: int  # runs per platform so far (the smaller sample for a ratio)
    interval: Interval
    half_width_pct: float | None
    target_pct: float
    reached: bool
    more_runs: int | None  # further runs per platform projected to reach the target
    decision: str  # STOP_REACHED, CONTINUE or STOP_BUDGET
    note: str = ""


def _half_width_pct(iv: Interval) -> float | None:
    rhw = iv.relative_half_width()
    return None if rhw is None else 100.0 * rhw


def _first_reaching(hw_after: Callable[[int], float | None], target_pct: float) -> int | None:
    """Smallest m >= 0 with hw_after(m) <= target, assuming hw_after decreases with m."""

    def ok(m: int) -> bool:
        hw = hw_after(m)
        return hw is not None and hw <= target_pct

    if ok(0):
        return 0
    hi = 1
    while not ok(hi):
        if hi >= MAX_PROJECTION:
            return None
        hi = min(hi * 2, MAX_PROJECTION)
    lo = hi // 2  # not ok (or 0, already known not ok)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def _decide(statistic, method, n, iv, target_pct, more, min_runs, max_runs, note="") -> PrecisionAssessment:
    hw = _half_width_pct(iv)
    reached = hw is not None and hw <= target_pct and n >= min_runs
    if reached:
        return PrecisionAssessment(statistic, method, n, iv, hw, target_pct, True, 0, STOP_REACHED, note)
    if more is not None:
        more = max(more, min_runs - n, 1)
    if max_runs is not None and n >= max_runs:
        return PrecisionAssessment(
            statistic,
            method,
            n,
            iv,
            hw,
            target_pct,
            False,
            more,
            STOP_BUDGET,
            (note + "; " if note else "") + f"budget of {max_runs} runs used",
        )
    if more is None:
        note = (
            note + "; " if note else ""
        ) + f"target not reachable within {MAX_PROJECTION} more runs at the current spread"
    elif max_runs is not None and n + more > max_runs:
        note = (
            note + "; " if note else ""
        ) + f"target unlikely within the budget of {max_runs} runs (about {n + more} needed)"
    return PrecisionAssessment(statistic, method, n, iv, hw, target_pct, False, more, CONTINUE, note)


def assess_mean(
    x, target_pct: float = 2.0, *, conf: float = 0.95, min_runs: int = 3, max_runs: int | None = None
) -> PrecisionAssessment:
    """Relative half-width of the t-interval of the mean against `target_pct` (percent)."""
    x = np.asarray(x, dtype=float)
    n = x.size
    iv = t_interval(x, conf) if n else Interval(None, note="no runs yet")
    if n < 2:
        return _decide(
            "mean",
            "t",
            n,
            iv,
            target_pct,
            max(min_runs - n, 2 - n),
            min_runs,
            max_runs,
            "fewer than 2 runs: no interval yet",
        )
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    if mean == 0:
        return _decide(
            "mean", "t", n, iv, target_pct, None, min_runs, max_runs, "mean is zero: relative precision undefined"
        )

    def hw_after(m: int) -> float:
        k = n + m
        return 100.0 * float(stats.t.ppf(0.5 + conf / 2, k - 1)) * sd / math.sqrt(k) / abs(mean)

    return _decide("mean", "t", n, iv, target_pct, _first_reaching(hw_after, target_pct), min_runs, max_runs)


def assess_ratio(
    x, y, target_pct: float = 2.0, *, conf: float = 0.95, min_runs: int = 3, max_runs: int | None = None
) -> PrecisionAssessment:
    """Relative half-width of the Fieller interval of mean(x)/mean(y) against `target_pct`.

    More runs are projected for both platforms alike (a campaign repeats every platform).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = int(min(x.size, y.size))
    if n < 2:
        iv = Interval(None, note="fewer than 2 runs: no interval yet")
        return _decide(
            "ratio_to_baseline", "fieller", n, iv, target_pct, max(min_runs - n, 2 - n), min_runs, max_runs, iv.note
        )
    num, den = MeanSummary.of(x), MeanSummary.of(y)
    iv = fieller_from_summary(num, den, conf)
    if den.mean == 0 or num.mean == 0:
        return _decide(
            "ratio_to_baseline",
            "fieller",
            n,
            iv,
            target_pct,
            None,
            min_runs,
            max_runs,
            "a mean is zero: relative precision undefined",
        )

    def hw_after(m: int) -> float | None:
        grown = fieller_from_summary(
            MeanSummary(num.mean, num.sd, num.n + m), MeanSummary(den.mean, den.sd, den.n + m), conf
        )
        return _half_width_pct(grown)

    return _decide(
        "ratio_to_baseline",
        "fieller",
        n,
        iv,
        target_pct,
        _first_reaching(hw_after, target_pct),
        min_runs,
        max_runs,
        iv.note,
    )

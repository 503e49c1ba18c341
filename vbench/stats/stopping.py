"""Adaptive stopping to a precision target (issue #18): after a round, stop or go on?

A design may say `precision: {target_pct, min_rounds, max_rounds}`: after each round past
`min_rounds`, the primary comparisons' 95 % intervals of the ratio to the baseline are computed
with the statistics table's own code (`compute_stats`: paired by block where the runs are
paired, Fieller where not), and the campaign stops once every half-width is within the target,
or when `max_rounds` or the time budget is reached; otherwise it runs another round. The
decision and its reason are a record (`StopDecision`) the runner prints and keeps.

The decision itself (`decide`) is a pure function of the half-widths, so the simulation in
selfbench/adaptive_repetitions.py plays exactly this rule. Stopping on a narrow interval makes
the final interval slightly optimistic; that simulation measures the coverage under the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import pandas as pd

from vbench.stats.bootstrap import DEFAULT_RESAMPLES
from vbench.stats.table import compute_stats
from vbench.wording import noun

TARGET_REACHED = "target_reached"
MAX_ROUNDS = "max_rounds"
BUDGET = "budget"
CONTINUE = "continue"


@dataclass(frozen=True)
class ComparisonWidth:
    """One primary comparison's interval, as the statistics table gives it."""

    benchmark: str
    metric: str
    size: str
    platform: str
    method: str
    ratio: float | None
    half_width_pct: float | None  # (high - low) / 2 / ratio, percent; None: no interval yet

    @property
    def label(self) -> str:
        return f"{workload_label(self.benchmark, self.size, self.metric)} {self.platform}"


def workload_label(benchmark: str, size: str, metric: str) -> str:
    """`terasort[1GB] terasort_time`: a comparison's workload, as the terminal and the reports say it."""
    return f"{benchmark}[{size}] {metric}" if size else f"{benchmark} {metric}"


@dataclass(frozen=True)
class StopDecision:
    verdict: str  # TARGET_REACHED, MAX_ROUNDS, BUDGET or CONTINUE
    reason: str
    rounds_done: int
    widths: tuple[ComparisonWidth, ...]
    #: The round after which every primary comparison was first within the target (kept from
    #: round to round by the caller and passed back to `decide`).
    reached_at: int | None = None

    @property
    def stop(self) -> bool:
        return self.verdict != CONTINUE

    def line(self) -> str:
        """One line for the terminal."""
        head = "precision: stop" if self.stop else "precision: go on"
        return f"{head} after round {self.rounds_done}: {self.reason}"

    def record(self) -> dict:
        """What the campaign's record keeps of it."""
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "rounds_done": self.rounds_done,
            "reached_at": self.reached_at,
            "widths": [
                {"comparison": w.label, "method": w.method, "ratio": w.ratio, "half_width_pct": w.half_width_pct}
                for w in self.widths
            ],
        }


def _fmt(w: ComparisonWidth) -> str:
    hw = "no interval yet" if w.half_width_pct is None else f"+/-{w.half_width_pct:.1f} %"
    return f"{w.label} {hw} ({w.method})"


def decide(
    widths: Iterable[ComparisonWidth],
    *,
    rounds_done: int,
    target_pct: float,
    min_rounds: int,
    max_rounds: int | None,
    extra_rounds: int = 0,
    reached_at: int | None = None,
    over_budget: bool = False,
    rounds_per_block: int = 1,
) -> StopDecision:
    """Stop (target reached, max rounds, budget) or go on, with the reason. Pure.

    The target counts from `min_rounds` on. Once every primary comparison is within it (first
    after round `reached_at`), `extra_rounds` more rounds are run before stopping: stopping at the
    first round whose interval happens to be narrow picks rounds whose spread is low by chance,
    and the last interval then covers the true ratio less often than it claims; rounds measured
    after the decision dilute that (selfbench/adaptive_repetitions.py measures the coverage).
    With `rounds_per_block` > 1 the stop waits for the end of a block (rounds_done a multiple of
    it): the interval's unit is the block, and a block cut short is a block measured less."""
    if rounds_per_block < 1:
        raise ValueError(f"rounds_per_block must be at least 1, got {rounds_per_block}")
    widths = tuple(widths)
    missing = [w for w in widths if w.half_width_pct is None]
    wide = sorted(
        (w for w in widths if w.half_width_pct is not None and w.half_width_pct > target_pct),
        key=lambda w: -w.half_width_pct,
    )
    within = bool(widths) and not missing and not wide
    if reached_at is None and within and rounds_done >= min_rounds:
        reached_at = rounds_done
    if not widths:
        status = "no primary comparison measured yet"
    elif missing or wide:
        status = f"{len(missing) + len(wide)} of {len(widths)} not within +/-{target_pct:g} %, widest: " + _fmt(
            (wide or missing)[0]
        )
    else:
        status = f"every primary comparison within +/-{target_pct:g} % (widest: {_fmt(max(widths, key=_hw))})"
    stop_at = None if reached_at is None else _block_end(reached_at + extra_rounds, rounds_per_block)
    if stop_at is not None and rounds_done >= stop_at:
        ran = rounds_done - reached_at
        extra = (
            f"; {ran} more {noun(ran, 'round')} run after the target was reached in round {reached_at}"
            + (f" (to the end of a block of {rounds_per_block} rounds)" if ran > extra_rounds else "")
            if ran
            else ""
        )
        return StopDecision(TARGET_REACHED, status + extra, rounds_done, widths, reached_at)
    if stop_at is not None:
        status = (
            f"target reached in round {reached_at}; {stop_at - rounds_done} more "
            f"{noun(stop_at - rounds_done, 'round')} before stopping; {status}"
        )
    elif within:
        status = f"{status}, but only {rounds_done} of at least {min_rounds} rounds done"
    if max_rounds is not None and rounds_done >= max_rounds:
        return StopDecision(MAX_ROUNDS, f"max_rounds ({max_rounds}) reached; {status}", rounds_done, widths, reached_at)
    if over_budget:
        return StopDecision(BUDGET, f"time budget reached; {status}", rounds_done, widths, reached_at)
    return StopDecision(CONTINUE, status, rounds_done, widths, reached_at)


def _block_end(rounds: int, rounds_per_block: int) -> int:
    """The first block boundary at or after `rounds` rounds."""
    return -(-rounds // rounds_per_block) * rounds_per_block


def _hw(w: ComparisonWidth) -> float:
    return -1.0 if w.half_width_pct is None else w.half_width_pct


def comparison_widths(
    samples: pd.DataFrame,
    baseline: str,
    primary: Iterable[tuple[str, str]],
    *,
    conf: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> list[ComparisonWidth]:
    """The primary (benchmark, metric) comparisons' preferred ratio intervals, by `compute_stats`.

    `samples`: the campaign's tidy samples so far (warm-up runs are excluded by its rule)."""
    primary = set(primary)
    keep = [(b, m) in primary for b, m in zip(samples["benchmark"], samples["metric"])]
    sub = samples[keep]
    if sub.empty or baseline not in set(sub["platform"]):
        return []
    kw = {} if seed is None else {"seed": seed}
    table = compute_stats(sub.reset_index(drop=True), baseline=baseline, conf=conf, n_resamples=n_resamples, **kw)
    return [width_of(r) for r in preferred_ratio_rows(table).itertuples(index=False)]


def preferred_ratio_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The statistics table's preferred ratio-to-baseline rows: the interval each comparison is
    judged by (here and by selfbench/precision.py, which quotes them)."""
    return table[(table["statistic"] == "ratio_to_baseline") & table["preferred"].fillna(False).astype(bool)]


def width_of(row) -> ComparisonWidth:
    """One preferred ratio row (an itertuples row of the statistics table) as a ComparisonWidth."""
    est, lo, hi = row.estimate, row.ci_low, row.ci_high
    bounded = pd.notna(est) and pd.notna(lo) and pd.notna(hi) and est != 0
    return ComparisonWidth(
        row.benchmark,
        row.metric,
        row.size,
        row.platform,
        row.method,
        None if pd.isna(est) else float(est),
        100 * (hi - lo) / 2 / abs(est) if bounded else None,
    )


def precision_decision(
    samples: pd.DataFrame,
    baseline: str,
    primary: Iterable[tuple[str, str]],
    *,
    conf: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    **rule,
) -> StopDecision:
    """`decide` on the half-widths of the campaign's samples so far; `rule`: `decide`'s keywords
    (rounds_done, target_pct, min_rounds, max_rounds and the optional ones)."""
    widths = (
        comparison_widths(samples, baseline, primary, conf=conf, n_resamples=n_resamples) if not samples.empty else []
    )
    return decide(widths, **rule)

"""Record types shared by the statistics modules.

An `Interval` is what every estimator returns; a `StatRow` is one line of the tidy output
table. Missing numbers are `None` and always come with a `note`, so that nothing reaches a
paper as an unexplained NaN.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Interval:
    """A point estimate with an optional confidence interval and a reason when parts are missing."""

    estimate: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""

    @property
    def bounded(self) -> bool:
        return self.low is not None and self.high is not None

    def relative_half_width(self) -> float | None:
        """(high - low) / 2 / |estimate|: the precision measure used for stopping rules."""
        if not self.bounded or not self.estimate:
            return None
        return (self.high - self.low) / 2.0 / abs(self.estimate)


@dataclass(frozen=True)
class StatRow:
    """One row of the statistics table: one group, one statistic, one method."""

    experiment: str
    platform: str
    benchmark: str
    metric: str
    unit: str
    size: str
    statistic: str
    method: str
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    n: int | None
    conf_level: float | None = None
    baseline: str = ""
    n_baseline: int | None = None
    #: Pairs (block, and round when the design has rounds) behind a comparison row; empty when unpaired.
    n_pairs: int | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    verdict: str = ""
    preferred: bool | None = None
    direction: str = ""
    note: str = ""

    @classmethod
    def columns(cls) -> list[str]:
        return [f.name for f in fields(cls)]

"""The statistics table's rows: the group a row belongs to, how a row is made, and where the
rows of one call of `compute_stats` collect with the problems `strict` turns into an error.

The bottom of the table's modules: the passes (`groups`, `comparisons`, `across`,
`interactions`) and the verdict columns (`verdicts`) build their rows from here.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from vbench.stats.direction import direction_label
from vbench.stats.direction import higher_is_better as resolve_direction
from vbench.stats.records import Interval, StatRow

#: Default seed (the year of the studies vbench revisits, plus one digit).
DEFAULT_SEED = 20141
#: Significance level of the tests and of TOST (whose dual interval is 1 - 2 * alpha).
ALPHA = 0.05
#: The platform of the rows that speak of every platform of a group at once (`across`).
ALL_PLATFORMS = "all"

COLUMNS = StatRow.columns()
# Methods that give point values by design; their empty CI needs no note.
POINT_METHODS = frozenset(
    {"sample", "shapiro_wilk", "mad", "rule", "welch_anova", "kruskal_wallis", "anova", "quiet_gate"}
)


@dataclass(frozen=True)
class Settings:
    """What one call of `compute_stats` was asked for: every pass reads it."""

    baseline: str
    conf: float
    equivalence_pct: float
    n_resamples: int
    seed: int
    #: Metric name -> higher is better, overriding the unit-based default.
    overrides: Mapping[str, bool] | None
    outlier_threshold: float
    precision_target_pct: float | None
    max_runs: int | None
    #: Whether blocked comparisons get the mixed model's rows (vbench.stats.mixed).
    mixed: bool

    def higher_is_better(self, metric: str, unit: str) -> bool | None:
        """Whether higher is better for `metric` in `unit` (None: unknown), the overrides first."""
        return resolve_direction(metric, unit, self.overrides)

    def direction(self, metric: str, unit: str) -> str:
        """The `direction` column of `metric` in `unit`."""
        return direction_label(self.higher_is_better(metric, unit))


@dataclass(frozen=True)
class Group:
    experiment: str
    benchmark: str
    metric: str
    size: str
    unit: str
    platform: str = ""

    def label(self) -> str:
        size = f" size={self.size}" if self.size else ""
        plat = f" platform={self.platform}" if self.platform else ""
        return f"{self.experiment}/{self.benchmark}/{self.metric}{size}{plat}"


def seeded_rng(seed: int, *parts: str) -> np.random.Generator:
    """A generator seeded by `seed` and `parts` (a group's own key): a group's bootstrap does not
    change when other groups are added or removed."""
    # crc32, unlike hash(), is the same in every Python process.
    return np.random.default_rng([seed, zlib.crc32("\x1f".join(parts).encode("utf-8"))])


def joined(*parts: str) -> str:
    """The non-empty `parts`, as one note."""
    return "; ".join(p for p in parts if p)


def stat_row(g: Group, statistic: str, method: str, iv: Interval, n: int | None, **kw) -> StatRow:
    """The row of `statistic` by `method` for group `g`: `iv`'s estimate and interval, its note
    unless `note` is given; `platform` and every other column by keyword."""
    return StatRow(
        experiment=g.experiment,
        platform=kw.pop("platform", g.platform),
        benchmark=g.benchmark,
        metric=g.metric,
        unit=g.unit,
        size=g.size,
        statistic=statistic,
        method=method,
        estimate=iv.estimate,
        ci_low=iv.low,
        ci_high=iv.high,
        n=n,
        note=kw.pop("note", iv.note),
        **kw,
    )


class Collector:
    """Rows plus the problems that `strict` turns into an error."""

    def __init__(self) -> None:
        self.rows: list[StatRow] = []
        self.problems: list[str] = []

    def add(self, row: StatRow) -> None:
        self.rows.append(row)

    def problem(self, g: Group, message: str) -> None:
        self.problems.append(f"{g.label()}: {message}")

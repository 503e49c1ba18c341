"""Whether a larger value of a metric is better, from its unit unless told otherwise.

Only units whose direction is unambiguous are mapped: a size in MiB or a "%" could be
memory used (lower is better) or cache hit rate (higher is better), so those need an
explicit override rather than a guess that would flip the sign of an overhead.
"""

from __future__ import annotations

from typing import Mapping

from vbench.samples import RATE_UNITS, TIME_UNITS

# The sample units' own split (vbench.samples): time is the one direction, rate the other.
LOWER_IS_BETTER_UNITS = TIME_UNITS
HIGHER_IS_BETTER_UNITS = RATE_UNITS


def higher_is_better(metric: str, unit: str, overrides: Mapping[str, bool] | None = None) -> bool | None:
    """True/False, or None when neither an override nor the unit decides it."""
    if overrides and metric in overrides:
        return bool(overrides[metric])
    if unit in LOWER_IS_BETTER_UNITS:
        return False
    if unit in HIGHER_IS_BETTER_UNITS:
        return True
    return None


def direction_label(hib: bool | None) -> str:
    return {True: "higher_is_better", False: "lower_is_better", None: "unknown"}[hib]

"""Outlier flags by the median absolute deviation. Flags only: nothing is ever removed here.

The modified z-score 0.6745 * (x - median) / MAD with cut-off 3.5 is the rule of
Iglewicz & Hoaglin (1993); it is robust, unlike mean +/- k sd, because a single
pathological run (a straggler task, a GC storm) cannot inflate the scale it is judged by.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: |modified z| above this is flagged.
DEFAULT_THRESHOLD = 3.5
# 0.6745 = Phi^-1(0.75): makes MAD a consistent estimate of sd for normal data.
_CONSISTENCY = 0.6745


@dataclass(frozen=True)
class OutlierFlags:
    flags: np.ndarray  # bool per value, in input order
    modified_z: np.ndarray
    threshold: float
    note: str = ""

    @property
    def count(self) -> int:
        return int(self.flags.sum())


def mad_outliers(x, threshold: float = DEFAULT_THRESHOLD) -> OutlierFlags:
    x = np.asarray(x, dtype=float)
    if x.size < 3:
        return OutlierFlags(
            np.zeros(x.size, bool), np.zeros(x.size), threshold, f"n={x.size}: too few runs to judge outliers"
        )
    med = np.median(x)
    mad = np.median(np.abs(x - med))
    if mad == 0:
        # More than half the runs are identical; any other value is infinitely far in MAD
        # units. Flag them, but say why, since this is common for coarse-grained counters.
        z = np.where(x == med, 0.0, np.inf)
        return OutlierFlags(x != med, z, threshold, "MAD is zero: every value differing from the median is flagged")
    z = _CONSISTENCY * (x - med) / mad
    return OutlierFlags(np.abs(z) > threshold, z, threshold)

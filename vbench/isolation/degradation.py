"""Degradation of TeraSort per stress, as in Xavier et al.'s Table III. Pure.

degradation % = (mean time beside the stress / mean time beside an idle neighbour - 1) x 100,
with two 95 % intervals of the ratio: Fieller's (the paper table's; honest with 3 runs) and a
two-sample BCa bootstrap (vbench.stats; docs/statistics.md: too narrow below ~10 runs, shown for contrast).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from vbench.isolation.stress import STRESSES
from vbench.samples import Sample
from vbench.stats.bootstrap import bca_ratio_interval
from vbench.stats.ratio import fieller_interval
from vbench.stats.records import Interval

BASELINE = "none"


@dataclass(frozen=True)
class Degradation:
    stress: str
    n: int
    mean_s: float
    #: % slower than beside the idle neighbour (estimate, Fieller CI, BCa CI).
    pct: float | None
    fieller: Interval
    bootstrap: Interval

    def text(self, iv: Interval | None = None) -> str:
        iv = iv or self.fieller
        if self.pct is None:
            return "-"
        if not iv.bounded:
            return f"{self.pct:+.1f} % ({'no CI: fewer than 2 runs' if 'fewer than 2' in iv.note else 'CI unbounded'})"
        return f"{self.pct:+.1f} % [{_pct(iv.low):+.1f}, {_pct(iv.high):+.1f}]"


def _pct(r: float) -> float:
    return (r - 1.0) * 100.0


def times_by_stress(samples: Iterable[Sample], metric: str = "terasort_time") -> dict[str, list[float]]:
    """TeraSort times grouped by the `stress` stamp (samples of other metrics ignored)."""
    out: dict[str, list[float]] = {}
    for s in samples:
        if s.benchmark == "terasort" and s.metric == metric and s.metadata.get("stress") is not None:
            out.setdefault(str(s.metadata["stress"]), []).append(s.value)
    return out


def degradation(times: Mapping[str, list[float]], *, conf: float = 0.95, n_resamples: int = 9999,
                seed: int = 20141) -> list[Degradation]:
    """One row per stress level present (baseline first, then STRESSES' order)."""
    base = times.get(BASELINE, [])
    rows = []
    for stress in [s for s in STRESSES if s in times] + sorted(set(times) - set(STRESSES)):
        x = times[stress]
        if len(x) >= 2 and len(base) >= 2:
            f = fieller_interval(x, base, conf)
            b = bca_ratio_interval(x, base, conf=conf, n_resamples=n_resamples, rng=np.random.default_rng(seed))
            pct = _pct(f.estimate) if f.estimate is not None else None
        else:
            note = "fewer than 2 runs of this stress or of the baseline"
            f = b = Interval(None, note=note)
            pct = _pct(float(np.mean(x)) / float(np.mean(base))) if x and base else None
        rows.append(Degradation(stress, len(x), float(np.mean(x)) if x else float("nan"), pct, f, b))
    return rows

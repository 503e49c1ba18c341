"""NNBench's steps at each barrier a campaign varied (`factor.barrier_s`, issue #53): one step's time
per operation and how late its last map began, and a platform's ratio to native at one barrier.

Read by selfbench/nnbench_barrier_levels.py (costs-nnbench-barrier's readings) and by the paper's
subsection on NNBench's barrier (`vbench.paper.costs_barrier`): one reading of those samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np

from vbench.benchmarks.hadoop import nnbench
from vbench.samples import Sample
from vbench.stats.cost_model import DEFAULT_BASELINE
from vbench.stats.paired import t_on_logs
from vbench.stats.records import Interval

#: The samples' metadata key of the barrier a step ran at: a variant factor of its design.
BARRIER = f"factor.{nnbench.BARRIER_S}"


@dataclass(frozen=True)
class Step:
    """One NNBench step of one run: its time per operation and how late its last map began."""

    block: int
    platform: str
    barrier_s: int
    op: str
    per_op_ms: float
    late_s: float | None


@dataclass(frozen=True)
class OpSample:
    """One run's NNBench step: its time per operation, how late its last map began, its metadata."""

    op: str
    per_op_ms: float
    late_s: float | None
    metadata: Mapping[str, Any]


def op_samples(records: Iterable[object]) -> Iterator[OpSample]:
    """The non-warm-up NNBench steps' times per operation (`<step>_avg_exec_time`, the cost model's
    NNBench metric) among a campaign's records: what every reading of NNBench's steps starts
    from. Pure."""
    for r in records:
        if not isinstance(r, Sample) or r.benchmark != nnbench.NAME or r.metadata.get("warmup"):
            continue
        op = r.metric.removesuffix("_avg_exec_time")
        if op == r.metric or op not in nnbench.OPS:
            continue
        late = r.metadata.get(nnbench.BARRIER_KEY)
        yield OpSample(op, r.value, None if late is None else float(late), r.metadata)


def steps_of(records: Iterable[object]) -> list[Step]:
    """The non-warm-up NNBench steps among a campaign's records that carry a barrier level. Pure."""
    return [
        Step(
            int(o.metadata["block"]), str(o.metadata["platform"]), int(o.metadata[BARRIER]), o.op, o.per_op_ms, o.late_s
        )
        for o in op_samples(records)
        if BARRIER in o.metadata
    ]


def by_block(steps: Iterable[Step], platform: str, barrier_s: int, op: str) -> dict[int, float]:
    """Block -> the log of the step's time per operation (one step per block and cell). Pure."""
    return {
        s.block: math.log(s.per_op_ms) for s in steps if (s.platform, s.barrier_s, s.op) == (platform, barrier_s, op)
    }


def difference(a: Mapping[int, float], b: Mapping[int, float]) -> np.ndarray:
    """a - b on the blocks both have, in block order. Pure."""
    return np.array([a[k] - b[k] for k in sorted(a.keys() & b.keys())])


@dataclass(frozen=True)
class StepRatio:
    """A platform's time per operation over native's in one NNBench step at one barrier."""

    op: str
    ratio: Interval  # paired t on the logs over the blocks both timed
    blocks: int
    #: Its steps whose last map began more than `late_after_s` after the barrier, of those whose
    #: lateness is known.
    late: int
    timed: int


def ratio_at(
    steps: Sequence[Step],
    platform: str,
    barrier_s: int,
    op: str,
    late_after_s: float,
    conf: float = 0.95,
    baseline: str = DEFAULT_BASELINE,
) -> StepRatio | None:
    """`platform`'s ratio to `baseline` in `op` at `barrier_s`, paired over the blocks; None with
    fewer than two blocks. Pure."""
    d = difference(by_block(steps, platform, barrier_s, op), by_block(steps, baseline, barrier_s, op))
    if d.size < 2:
        return None
    lateness = [
        s.late_s for s in steps if (s.platform, s.barrier_s, s.op) == (platform, barrier_s, op) and s.late_s is not None
    ]
    return StepRatio(op, t_on_logs(d, conf)[0], int(d.size), sum(x > late_after_s for x in lateness), len(lateness))

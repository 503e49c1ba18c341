"""Which side of NNBench's round trips pays gVisor's overhead: the readings fixed before
costs-nnbench-sides ran (issue #53; params/experiments/costs-nnbench-sides.yaml).

Reads one campaign's samples.jsonl of native and gVisor at the levels of `testbed.gvisor.sandboxed`
(all hosts, the master alone, the workers alone), in the same blocks. Per block, side and NNBench
step, the step's average execution time per operation (`<step>_avg_exec_time`, the cost model's
NNBench metric). Prints, per step:

1. each side's time per operation over native's (paired t on the logs over the blocks);
2. the master's part (r_master - 1) / (r_all - 1) and the workers' part (r_workers - 1) / (r_all -
   1), per block, then their mean with a t interval over the blocks;
3. the interaction (r_all - r_master - r_workers + 1) / (r_all - 1), the same way (0: the sides add);
4. the round trips between hosts (`latency` rtt_mean), median over blocks and pairs, by which sides
   of the pair ran in the sandbox;
5. the steps whose last map began more than `--late` s after the barrier.

Reads committed data; runs nothing.

    cd <repository> && python -m selfbench.nnbench_sides data/raw/costs-nnbench-sides
"""

from __future__ import annotations

import argparse
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from vbench.benchmarks.hadoop import nnbench
from vbench.samples import Sample, read_records
from vbench.stats.campaign import LATE_AFTER_BARRIER_S
from vbench.stats.describe import t_quantile
from vbench.stats.nnbench_barrier import op_samples
from vbench.stats.paired import t_on_logs
from vbench.stats.records import Interval

NATIVE = "native"
#: The gVisor sides, as the design's factor names them.
SIDES = ("all", "master", "workers")
SANDBOXED = "factor.gvisor.sandboxed"


@dataclass(frozen=True)
class OpTime:
    """One NNBench step of one run: its time per operation, and how late its last map began."""

    block: int
    side: str  # "native", or a level of SIDES
    op: str
    per_op_ms: float
    late_s: float | None


def side_of(metadata: Mapping[str, object]) -> str | None:
    """ "native", the gVisor side a sample's configuration ran (a testbed of before the factor:
    "all"), or None for another platform. Pure."""
    platform = metadata.get("platform")
    if platform == NATIVE:
        return NATIVE
    if platform == "gvisor":
        return str(metadata.get(SANDBOXED, "all"))
    return None


def op_times(records: Iterable[object]) -> list[OpTime]:
    """The non-warm-up NNBench steps of native and gVisor among a campaign's records. Pure."""
    return [
        OpTime(int(o.metadata["block"]), side, o.op, o.per_op_ms, o.late_s)
        for o in op_samples(records)
        if (side := side_of(o.metadata)) is not None
    ]


def ratios_by_block(times: Sequence[OpTime], side: str, op: str) -> dict[int, float]:
    """Block -> `side`'s time per operation over native's in the same block, on the blocks both
    timed. Pure."""
    mine = {t.block: t.per_op_ms for t in times if (t.side, t.op) == (side, op)}
    base = {t.block: t.per_op_ms for t in times if (t.side, t.op) == (NATIVE, op)}
    return {b: mine[b] / base[b] for b in sorted(mine.keys() & base.keys())}


def ratio(times: Sequence[OpTime], side: str, op: str, conf: float = 0.95) -> Interval | None:
    """Reading 1: paired t on the logs; None with fewer than two blocks. Pure."""
    r = ratios_by_block(times, side, op)
    if len(r) < 2:
        return None
    return t_on_logs(np.log(np.array(list(r.values()))), conf)[0]


def mean_interval(values: Sequence[float], conf: float = 0.95) -> Interval | None:
    """The mean of per-block values with its t interval; None with fewer than two. Pure."""
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    half = t_quantile(0.5 + conf / 2, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return Interval(mean, mean - half, mean + half)


def per_block_shares(times: Sequence[OpTime], op: str) -> dict[str, list[float]]:
    """Readings 2 and 3 per block, on the blocks that timed native and every side: "master" and
    "workers" are each side's part of all's extra time, "interaction" what the two leave of it
    (negative: they overlap). A block where all's ratio is 1 has no extra to share: left out. Pure."""
    r = {side: ratios_by_block(times, side, op) for side in SIDES}
    blocks = sorted(set.intersection(*(set(v) for v in r.values())))
    out: dict[str, list[float]] = {"master": [], "workers": [], "interaction": []}
    for b in blocks:
        extra = r["all"][b] - 1
        if extra == 0:
            continue
        out["master"].append((r["master"][b] - 1) / extra)
        out["workers"].append((r["workers"][b] - 1) / extra)
        out["interaction"].append((r["all"][b] - r["master"][b] - r["workers"][b] + 1) / extra)
    return out


def crossing(client: str, server: str) -> str:
    """Which sides of a round trip ran in the sandbox, from its two hosts' platforms. Pure."""
    gc, gs = client == "gvisor", server == "gvisor"
    return "both in gVisor" if gc and gs else "gVisor client" if gc else "gVisor server" if gs else "both native"


def round_trips(records: Iterable[object]) -> dict[tuple[str, str], list[float]]:
    """(side, crossing) -> the round trips' rtt_mean (us) of its non-warm-up samples. Pure."""
    out: dict[tuple[str, str], list[float]] = {}
    for r in records:
        if not isinstance(r, Sample) or r.benchmark != "latency" or r.metric != "rtt_mean" or r.metadata.get("warmup"):
            continue
        side = side_of(r.metadata)
        client, server = r.metadata.get("host_platform"), r.metadata.get("server_platform")
        if side is None or client is None or server is None:
            continue
        out.setdefault((side, crossing(str(client), str(server))), []).append(r.value)
    return out


def shown(i: Interval | None, digits: int = 2) -> str:
    """An interval as the readings print it. Pure."""
    if i is None or i.estimate is None:
        return "not read (fewer than two blocks)"
    return f"{i.estimate:.{digits}f} [{i.low:.{digits}f}, {i.high:.{digits}f}]"


def late_line(number: str, late: Sequence[str], known: int, late_after_s: float) -> str:
    """The reading of late steps: each late one by its label, of those whose lateness is known. Pure."""
    return (
        f"{number}. steps whose last map began more than {late_after_s:g} s after the barrier: "
        + (", ".join(late) or "none")
        + f" (of {known} with a known lateness)"
    )


def campaign_arguments(doc: str, argv: list[str] | None) -> argparse.Namespace:
    """A reading's command line: the campaign directory and the lateness threshold."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("campaign", type=Path, help="a campaign directory (data/raw/<name>)")
    ap.add_argument(
        "--late", type=float, default=LATE_AFTER_BARRIER_S, help="seconds after the barrier that count as late"
    )
    return ap.parse_args(argv)


def report(records: Sequence[object], late_after_s: float) -> str:
    times = op_times(records)
    lines = []
    for op in nnbench.OPS:
        lines.append(f"{op}:")
        for side in SIDES:
            n = len(ratios_by_block(times, side, op))
            lines.append(f"  1. gVisor on {side}: {shown(ratio(times, side, op))} x native ({n} blocks)")
        shares = per_block_shares(times, op)
        for name, label in (
            ("master", "2. the master's part"),
            ("workers", "2. the workers' part"),
            ("interaction", "3. the interaction"),
        ):
            values = ", ".join(f"{v:.2f}" for v in shares[name])
            lines.append(f"  {label}: {shown(mean_interval(shares[name]))} (blocks: {values})")
    lines.append("4. round trips, rtt_mean in us (median [min, max] over blocks and pairs):")
    for (side, cross), values in sorted(round_trips(records).items()):
        lines.append(
            f"  {side:8} {cross:15} {statistics.median(values):8.1f} [{min(values):.1f}, {max(values):.1f}] (n {len(values)})"
        )
    late = [
        f"b{t.block} {t.side} {t.op} {t.late_s:.1f} s"
        for t in times
        if t.late_s is not None and t.late_s > late_after_s
    ]
    lines.append(late_line("5", late, sum(t.late_s is not None for t in times), late_after_s))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = campaign_arguments(__doc__, argv)
    print(report(list(read_records(args.campaign / "samples.jsonl")), args.late))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

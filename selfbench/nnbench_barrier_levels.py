"""NNBench's barrier as a cause of a platform's NNBench noise: the readings fixed before
costs-nnbench-barrier ran (issue #53; params/experiments/costs-nnbench-barrier.yaml).

Reads one campaign's samples.jsonl whose NNBench ran with two `barrier_s` levels (the variant factor
`factor.barrier_s`) on native and one other platform in the same blocks: per block, platform,
barrier and step, NNBench's average execution time per operation (`<step>_avg_exec_time`, the cost
model's NNBench metric) and how long after the barrier the step's last map began
(`nnbench.BARRIER_KEY`, in the step's samples' metadata). Prints, per step:

1. late steps: per platform and barrier, the steps whose last map began more than `--late` s after
   the barrier (`stats.campaign.LATE_AFTER_BARRIER_S`), and the lateness' min / median / max;
2. native's time per operation at the long barrier over the short one (paired t over the blocks);
3. the platform's ratio to native at the long barrier over its ratio at the short one (paired t);
4. the per-block standard deviation of log(platform / native) at each barrier, the long's over the
   short's, and the blocks a paired t needs for a 95 % interval within +/-15 %;
5. the platform's ratio to native at each barrier (paired t) beside `--predicted STEP=RATIO`.

Reads committed data; runs nothing.

    cd <repository> && python -m selfbench.nnbench_barrier_levels data/raw/costs-nnbench-barrier \\
        --predicted create_write=3.38 --predicted open_read=3.39
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from selfbench.measurement_pi import blocks_needed
from vbench.benchmarks.hadoop import nnbench
from vbench.samples import read_records
from vbench.stats.campaign import LATE_AFTER_BARRIER_S
from vbench.stats.cost_model import DEFAULT_BASELINE
from vbench.stats.nnbench_barrier import Step, by_block, difference, steps_of
from vbench.stats.paired import t_on_logs
from vbench.stats.records import Interval

BASELINE = DEFAULT_BASELINE


@dataclass(frozen=True)
class Lateness:
    platform: str
    barrier_s: int
    op: str
    late: int  # steps whose last map began more than the threshold after the barrier
    steps: int
    low: float
    median: float
    high: float


def lateness(steps: Sequence[Step], threshold_s: float) -> list[Lateness]:
    """Reading 1, per platform, barrier and op over the steps whose log gave the lateness. Pure."""
    groups: dict[tuple[str, int, str], list[float]] = {}
    for s in steps:
        if s.late_s is not None:
            groups.setdefault((s.platform, s.barrier_s, s.op), []).append(s.late_s)
    return [
        Lateness(*key, sum(v > threshold_s for v in late), len(late), min(late), statistics.median(late), max(late))
        for key, late in sorted(groups.items())
    ]


@dataclass(frozen=True)
class Readings:
    """Readings 2-5 for one op: native long/short, the ratio of ratios, the block sds, the ratios."""

    op: str
    native_long_over_short: Interval
    ratio_long_over_short: Interval
    block_sd: dict[int, float]  # barrier -> sd of a block's log(platform / native)
    blocks_for_15: dict[int, int | None]
    ratio: dict[int, Interval]  # barrier -> platform / native, paired t
    blocks: int


def readings(steps: Sequence[Step], platform: str, op: str, short: int, long: int, conf: float = 0.95) -> Readings:
    """Readings 2-5 of `op` for `platform` against native, the barriers `short` and `long`. Pure."""
    nat = {b: by_block(steps, BASELINE, b, op) for b in (short, long)}
    plat = {b: by_block(steps, platform, b, op) for b in (short, long)}
    d = {b: difference(plat[b], nat[b]) for b in (short, long)}
    both = sorted(set.intersection(*(set(x) for x in (*nat.values(), *plat.values()))))
    ratio_of_ratios = np.array([(plat[long][k] - nat[long][k]) - (plat[short][k] - nat[short][k]) for k in both])
    sd = {b: float(d[b].std(ddof=1)) for b in (short, long)}
    return Readings(
        op,
        t_on_logs(difference(nat[long], nat[short]), conf)[0],
        t_on_logs(ratio_of_ratios, conf)[0],
        sd,
        {b: blocks_needed(sd[b], 0.15, conf) for b in (short, long)},
        {b: t_on_logs(d[b], conf)[0] for b in (short, long)},
        len(both),
    )


def _iv(iv: Interval) -> str:
    return f"{iv.estimate:.3f} [{iv.low:.3f}, {iv.high:.3f}]"


def report(steps: Sequence[Step], predicted: Mapping[str, float], threshold_s: float) -> str:
    """The five readings as text. Pure."""
    platforms = sorted({s.platform for s in steps} - {BASELINE})
    barriers = sorted({s.barrier_s for s in steps})
    if len(platforms) != 1 or len(barriers) != 2 or BASELINE not in {s.platform for s in steps}:
        raise SystemExit(f"needs native, one other platform and two barriers; found {platforms}, {barriers}")
    (platform,), (short, long) = platforms, barriers
    lines = [f"1. steps whose last map began more than {threshold_s:g} s after the barrier (min / median / max s)"]
    for r in lateness(steps, threshold_s):
        lines.append(
            f"   {r.platform:8} {r.barrier_s:>3} s {r.op:12} {r.late} of {r.steps}"
            f"  ({r.low:.2f} / {r.median:.2f} / {r.high:.2f})"
        )
    for op in nnbench.OPS:
        r = readings(steps, platform, op, short, long)
        lines += [
            f"{op} ({r.blocks} blocks with every cell)",
            f"2. native per operation, {long} s / {short} s: {_iv(r.native_long_over_short)}",
            f"3. {platform}/native at {long} s over at {short} s: {_iv(r.ratio_long_over_short)}",
            f"4. block sd of log({platform}/native): {short} s {r.block_sd[short]:.3f},"
            f" {long} s {r.block_sd[long]:.3f} (x{r.block_sd[long] / r.block_sd[short]:.2f});"
            f" blocks for +/-15 %: {r.blocks_for_15[short]}, {r.blocks_for_15[long]}",
        ]
        for b in (short, long):
            pred = predicted.get(op)
            beside = (
                ""
                if pred is None
                else f"; predicted {pred:g}: measured / predicted - 1 = {r.ratio[b].estimate / pred - 1:+.1%}"
            )
            lines.append(f"5. {platform}/native at {b} s: {_iv(r.ratio[b])}{beside}")
    return "\n".join(lines)


def _prediction(text: str) -> tuple[str, float]:
    op, sep, value = text.partition("=")
    if not sep or op not in nnbench.OPS:
        raise argparse.ArgumentTypeError(f"{text!r}: STEP=RATIO with STEP one of {', '.join(nnbench.OPS)}")
    return op, float(value)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("campaign", type=Path, help="a campaign directory, e.g. data/raw/costs-nnbench-barrier")
    ap.add_argument("--predicted", type=_prediction, action="append", default=[], metavar="STEP=RATIO")
    ap.add_argument("--late", type=float, default=LATE_AFTER_BARRIER_S, help="seconds (default %(default)s)")
    args = ap.parse_args(argv)
    print(report(steps_of(read_records(args.campaign / "samples.jsonl")), dict(args.predicted), args.late))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

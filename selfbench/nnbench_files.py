"""Is a platform's NNBench cost per operation or once a map: the readings fixed before
costs-nnbench-files ran (issue #53; params/experiments/costs-nnbench-files.yaml).

Reads one campaign's samples.jsonl whose NNBench ran two `files` levels (files a map, the variant
factor `factor.files`) on native and one other platform in the same blocks. Per block, platform,
count and step, the step's average execution time per operation (`<step>_avg_exec_time`, the
cost model's NNBench metric). With t(n) = s + F / n per operation, two counts n1 < n2 give a map's
once-only cost F = (t(n1) - t(n2)) / (1/n1 - 1/n2) and the steady cost of one more operation
s = t(n2) - F / n2. Prints, per step:

1. the platform's ratio to native at each count (paired t on the logs over the blocks);
2. its ratio at the larger count over its ratio at the smaller (paired t on the logs);
3. per platform, F (ms a map) and s (ms an operation): means over the blocks with t intervals, and
   the platform's means over native's;
4. native's time per operation at the larger count over at the smaller (paired t), and the steps
   whose last map began more than `--late` s after the barrier.

Reads committed data; runs nothing.

    cd <repository> && python -m selfbench.nnbench_files data/raw/costs-nnbench-files
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from selfbench.nnbench_sides import campaign_arguments, late_line, mean_interval, shown
from vbench.benchmarks.hadoop import nnbench
from vbench.samples import read_records
from vbench.stats.cost_model import DEFAULT_BASELINE
from vbench.stats.nnbench_barrier import op_samples
from vbench.stats.paired import t_on_logs
from vbench.stats.records import Interval

BASELINE = DEFAULT_BASELINE
FILES = "factor.files"


@dataclass(frozen=True)
class CountStep:
    """One NNBench step of one run at one count of files a map."""

    block: int
    platform: str
    files: int
    op: str
    per_op_ms: float
    late_s: float | None


def count_steps(records: Iterable[object]) -> list[CountStep]:
    """The non-warm-up NNBench steps among a campaign's records that carry a files level. Pure."""
    return [
        CountStep(
            int(o.metadata["block"]), str(o.metadata["platform"]), int(o.metadata[FILES]), o.op, o.per_op_ms, o.late_s
        )
        for o in op_samples(records)
        if FILES in o.metadata
    ]


def per_block(steps: Sequence[CountStep], platform: str, files: int, op: str) -> dict[int, float]:
    """Block -> the step's time per operation. Pure."""
    return {s.block: s.per_op_ms for s in steps if (s.platform, s.files, s.op) == (platform, files, op)}


def _paired_log(a: dict[int, float], b: dict[int, float]) -> Interval | None:
    """a / b paired over their common blocks (t on the logs); None under two blocks. Pure."""
    blocks = sorted(a.keys() & b.keys())
    if len(blocks) < 2:
        return None
    return t_on_logs(np.array([math.log(a[k] / b[k]) for k in blocks]), 0.95)[0]


def ratio(steps: Sequence[CountStep], platform: str, files: int, op: str) -> Interval | None:
    """Reading 1. Pure."""
    return _paired_log(per_block(steps, platform, files, op), per_block(steps, BASELINE, files, op))


def ratio_of_ratios(steps: Sequence[CountStep], platform: str, small: int, large: int, op: str) -> Interval | None:
    """Reading 2: the ratio to native at `large` over at `small`, paired over the blocks. Pure."""

    def r(files: int) -> dict[int, float]:
        mine, base = per_block(steps, platform, files, op), per_block(steps, BASELINE, files, op)
        return {k: mine[k] / base[k] for k in mine.keys() & base.keys()}

    return _paired_log(r(large), r(small))


def once_and_steady(
    steps: Sequence[CountStep], platform: str, small: int, large: int, op: str
) -> tuple[list[float], list[float]]:
    """Reading 3 per block: (F in ms a map, s in ms an operation), on the blocks that timed both
    counts. Pure."""
    a, b = per_block(steps, platform, small, op), per_block(steps, platform, large, op)
    fs, ss = [], []
    for k in sorted(a.keys() & b.keys()):
        f = (a[k] - b[k]) / (1 / small - 1 / large)
        fs.append(f)
        ss.append(b[k] - f / large)
    return fs, ss


def report(steps: Sequence[CountStep], late_after_s: float) -> str:
    counts = sorted({s.files for s in steps})
    platforms = sorted({s.platform for s in steps} - {BASELINE})
    if len(counts) != 2 or len(platforms) != 1:
        return f"expected two counts and one platform beside {BASELINE}, got counts {counts} and platforms {platforms}"
    small, large, platform = counts[0], counts[1], platforms[0]
    lines = []
    for op in nnbench.OPS:
        lines.append(f"{op}:")
        for n in counts:
            lines.append(f"  1. {platform} / {BASELINE} at {n} files a map: {shown(ratio(steps, platform, n, op))}")
        lines.append(f"  2. at {large} over at {small}: {shown(ratio_of_ratios(steps, platform, small, large, op))}")
        means = {}
        for p in (BASELINE, platform):
            fs, ss = once_and_steady(steps, p, small, large, op)
            means[p] = (mean_interval(fs), mean_interval(ss))
            lines.append(
                f"  3. {p}: once a map F {shown(means[p][0], 1)} ms (blocks {', '.join(f'{x:.0f}' for x in fs)}), "
                f"per operation s {shown(means[p][1], 3)} ms (blocks {', '.join(f'{x:.2f}' for x in ss)})"
            )
        for i, name in ((0, "F"), (1, "s")):
            mine, base = means[platform][i], means[BASELINE][i]
            if mine and base and base.estimate:
                lines.append(f"  3. {platform}'s {name} over {BASELINE}'s: {mine.estimate / base.estimate:.2f}")
        lines.append(
            f"  4. {BASELINE} at {large} over at {small}: "
            f"{shown(_paired_log(per_block(steps, BASELINE, large, op), per_block(steps, BASELINE, small, op)))}"
        )
    late = [
        f"b{s.block} {s.platform} {s.files} {s.op} {s.late_s:.1f} s"
        for s in steps
        if s.late_s is not None and s.late_s > late_after_s
    ]
    lines.append(late_line("4", late, sum(s.late_s is not None for s in steps), late_after_s))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = campaign_arguments(__doc__, argv)
    print(report(count_steps(read_records(args.campaign / "samples.jsonl")), args.late))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Reading 3 of params/experiments/costs-fit-process.yaml (issue #53): of what one planted level
costs each Hadoop job (every system call stopped), the part a lesser level gives (only the process
and thread calls stopped), without a model.

Per configuration, each calibrated cost's and each job's paired ratio to the baseline (t over the
blocks), then per job (r_part - 1) / (r_whole - 1) with its percentile interval of joint draws over
the blocks (vbench.stats.cost_model.part_of_slowdown) and each block's own value.

    python3 selfbench/level_part_reading.py DATA/raw/costs-fit-process \\
        [--baseline 1.0/False] [--part 1.0/process] [--whole 1.0/True] [--seed 53006]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vbench.stats import cost_model as cm  # noqa: E402
from vbench.stats.campaign import load_campaign  # noqa: E402
from vbench.stats.records import Interval  # noqa: E402


def _iv(iv: Interval) -> str:
    if iv.estimate is None:
        return f"- ({iv.note})"
    return f"{iv.estimate:.3g} [{iv.low:.3g}, {iv.high:.3g}]"


def _blocks(r: cm.LogRatio) -> str:
    return ", ".join(f"{math.exp(v):.3g}" for _, v in r.blocks or ())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("campaign", type=Path)
    ap.add_argument("--baseline", default="1.0/False")
    ap.add_argument("--part", default="1.0/process")
    ap.add_argument("--whole", default="1.0/True")
    ap.add_argument("--seed", type=int, default=53006)
    ap.add_argument("--draws", type=int, default=20000)
    args = ap.parse_args(argv)
    samples = load_campaign(args.campaign).samples
    costs = {v.platform: v for v in cm.cost_vectors_of(samples, baseline=args.baseline)}
    ratios = cm.job_ratios_of(samples, baseline=args.baseline)
    jobs = {(j.job, j.platform): j.ratio for j in ratios}
    for config in (args.part, args.whole):
        print(f"{config} / {args.baseline}:")
        for c in costs[config].costs:
            print(f"  {c.resource:22s} {_iv(c.ratio.interval())}  blocks {_blocks(c.ratio)}")
        for (job, where), r in sorted(jobs.items()):
            if where == config:
                print(f"  {job:22s} {_iv(r.interval())}  blocks {_blocks(r)}")
    print(f"\nPer job, (r_{args.part} - 1) / (r_{args.whole} - 1), 95 % of {args.draws} joint draws, seed {args.seed}:")
    rng = np.random.default_rng(args.seed)
    parts = cm.parts_of_slowdown(ratios, args.part, args.whole, rng, args.draws)
    for job, iv in parts:
        part, whole = jobs[job, args.part], jobs[job, args.whole]
        by_block = ", ".join(
            f"{(math.exp(p) - 1) / (math.exp(w) - 1):.2f}"
            for (_, p), (_, w) in zip(part.blocks or (), whole.blocks or ())
        )
        print(f"  {job:22s} {_iv(iv)}  blocks {by_block}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

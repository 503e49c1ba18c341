"""Which call carries the levels' system-call share to a platform: dd's one-byte call, a JVM's
loopback RPC or a JVM's start. The readings fixed before costs-rpc-levels and costs-rpc-platforms
ran (issue #53; params/experiments/costs-rpc-levels.yaml, costs-rpc-platforms.yaml), and read the
same way for costs-jvm-levels and costs-jvm-platforms (a JVM's start, where both calibrated it).

Reads the two calibration-only campaigns. Prints:

1. every configuration's (the levels', against no stops) and every platform's (against native)
   cost ratio of each yardstick and of a process creation (`cost_model.cost_vectors_of`: paired t
   on the logs over the blocks);
2. per platform and yardstick, the part of the plant's extra cost the platform pays,
   (x_platform - 1) / (x_every - 1): what the cost model multiplies a job's every-call share by
   (`cost_model`'s additive form) to carry it to the platform; its interval from independent draws
   of the two ratios (different campaigns), percentiles;
3. rpc's and jvmstart's CV over a host's repeats in each configuration and platform (where the
   campaign measured them): the median over hosts and blocks, and the range.

Reads committed data; runs nothing.

    cd <repository> && python -m selfbench.rpc_yardstick data/raw/costs-rpc-levels data/raw/costs-rpc-platforms
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Sequence

import numpy as np

from selfbench.host_cv import cv_by_configuration
from selfbench.nnbench_sides import shown
from vbench.stats import cost_model as cm
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import baseline_of
from vbench.stats.records import Interval

#: The configuration that stops every call (costs-rpc-levels' factor levels joined by "/").
EVERY_CALL = "1.0/True"
YARDSTICKS = ("syscall", "rpc", "jvmstart")
RESOURCES = ("syscall", "spawn", "rpc", "jvmstart")
#: The costs whose CV over a host's repeats is read (3.): benchmark, metric.
CV_OF = (("rpc", "rpc_us"), ("jvmstart", "jvm_start_ms"))
DRAWS = 4000
SEED = 53020


def carried(platform: cm.LogRatio, every: cm.LogRatio, rng: np.random.Generator, n: int = DRAWS) -> Interval:
    """(x_platform - 1) / (x_every - 1), its estimate from the two estimates and its 95 % interval
    from independent draws of both. Pure but for `rng`."""
    p, e = np.exp(platform.draws(rng, (n,))), np.exp(every.draws(rng, (n,)))
    share = (p - 1) / (e - 1)
    low, high = np.percentile(share, [2.5, 97.5])
    return Interval((platform.estimate - 1) / (every.estimate - 1), float(low), float(high))


def report(levels_dir: Path, platforms_dir: Path) -> str:
    levels, platforms = load_campaign(levels_dir), load_campaign(platforms_dir)
    level_costs = cm.cost_vectors_of(levels.samples, baseline=baseline_of(levels))
    platform_costs = cm.cost_vectors_of(platforms.samples, baseline=baseline_of(platforms))
    lines = ["1. cost ratios (paired t over the blocks, 95 %):"]
    for title, vectors in (("levels, against no stops", level_costs), ("platforms, against native", platform_costs)):
        lines.append(f"   {title}:")
        for v in vectors:
            have = [r for r in RESOURCES if r in v.resources]
            lines.append(f"     {v.platform}: " + "; ".join(f"{r} {shown(v.ratio(r).interval())}" for r in have))
    every = next((v for v in level_costs if v.platform == EVERY_CALL), None)
    lines.append(f"2. the part of the plant's extra each platform pays, (x - 1) / (x_{EVERY_CALL} - 1):")
    rng = np.random.default_rng(SEED)
    for v in platform_costs:
        parts = []
        for r in YARDSTICKS:
            if every is None or r not in every.resources or r not in v.resources:
                parts.append(f"{r} not read (not measured at both)")
            else:
                parts.append(f"{r} {shown(carried(v.ratio(r), every.ratio(r), rng), 3)}")
        lines.append(f"   {v.platform}: " + "; ".join(parts))
    for benchmark, metric in CV_OF:
        by_campaign = [cv_by_configuration(c.samples, benchmark, metric) for c in (levels, platforms)]
        if not any(by_campaign):
            continue
        lines.append(f"3. {benchmark}'s CV over a host's repeats (%): median over hosts and blocks [range]")
        for cv in by_campaign:
            for config, cvs in sorted(cv.items()):
                lines.append(
                    f"   {config}: {statistics.median(cvs):.1f} [{min(cvs):.1f}, {max(cvs):.1f}] of {len(cvs)}"
                )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("levels", type=Path, help="costs-rpc-levels' directory (data/raw/<name>)")
    ap.add_argument("platforms", type=Path, help="costs-rpc-platforms' directory")
    args = ap.parse_args(argv)
    print(report(args.levels, args.platforms), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

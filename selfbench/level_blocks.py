"""Each configuration's calibrated cost per block, in either pricing, as `vbench predict` reads it
(issue #53: how much a planted level moved a cost in each block, and how far the blocks spread).

A fit's rule 1 judges a level's lift by its interval over the blocks; when the bound misses, the
question is whether one block did it or all of them spread. This prints, per configuration and
resource, the cost ratio to the baseline in every block, the sd of their logs, and the interval
`vbench predict` prints (`cost_model.cost_vectors_of` over the campaign as measured, or priced by
`cost_prediction.priced_in_cpu`, as the command prices a fit's own calibration): the per-block
figures are the blocks that interval is the mean of, not a second computation.

Reads a committed campaign; runs nothing.

    cd <repository> && python -m selfbench.level_blocks data/raw/costs-fit-sixblocks-amd --resources jvmstart,rpc
    cd <repository> && python -m selfbench.level_blocks data/raw/costs-calib-sixblocks-amd --resources rpc --costs wall
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from vbench.errors import VbenchError
from vbench.stats import cost_model as cm
from vbench.paper.costs_pooled import PRICING_WORDS
from vbench.stats.cost_prediction import PRICINGS, baseline_of, checked_resources, priced_in_cpu


@dataclass(frozen=True)
class LevelBlocks:
    configuration: str
    resource: str
    blocks: tuple[tuple[str, float], ...]  # (block, cost ratio to the baseline)
    log_sd: float | None  # the sd of the blocks' log ratios (None: fewer than two blocks)
    estimate: float
    low: float
    high: float


def level_blocks(
    vectors: Sequence[cm.CostVector], resources: Sequence[str], conf: float = cm.DEFAULT_CONF
) -> list[LevelBlocks]:
    """Per configuration and resource, the blocks' cost ratios and their interval. A cost read from
    a summary only (no blocks) is listed with none. Pure."""
    out = []
    for vector in vectors:
        for resource in resources:
            if resource not in vector.resources:
                continue
            ratio = vector.ratio(resource)
            logs = [v for _, v in ratio.blocks or ()]
            iv = ratio.interval(conf)
            out.append(
                LevelBlocks(
                    configuration=vector.platform,
                    resource=resource,
                    blocks=tuple((b, math.exp(v)) for b, v in ratio.blocks or ()),
                    log_sd=statistics.stdev(logs) if len(logs) > 1 else None,
                    estimate=iv.estimate,
                    low=iv.low,
                    high=iv.high,
                )
            )
    return out


def format_level_blocks(rows: Sequence[LevelBlocks], pricing: str) -> str:
    lines = [f"costs priced {PRICING_WORDS[pricing]}, ratio to the baseline"]
    for r in rows:
        per_block = ", ".join(f"{b} x{v:.2f}" for b, v in r.blocks) or "no blocks"
        sd = "n/a" if r.log_sd is None else f"{r.log_sd:.2f}"
        lines.append(
            f"{r.configuration:>24} {r.resource:<9} x{r.estimate:.2f} [{r.low:.2f}, {r.high:.2f}]  "
            f"sd(log) {sd}  per block: {per_block}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from vbench.stats.campaign import load_campaign

    ap = argparse.ArgumentParser(prog="python -m selfbench.level_blocks", description=__doc__.split("\n\n")[0])
    ap.add_argument("campaign", type=Path, help="a campaign directory under data/raw/")
    ap.add_argument("--resources", default="rpc,jvmstart", help="calibrated costs, comma-separated")
    ap.add_argument("--costs", choices=PRICINGS, default=None, help="one pricing (default: both)")
    args = ap.parse_args(argv)
    try:
        resources = checked_resources(args.resources.split(","))
        campaign = load_campaign(args.campaign)
        baseline = baseline_of(campaign)
        for pricing in [args.costs] if args.costs else PRICINGS:
            priced = campaign if pricing == "wall" else priced_in_cpu(campaign, resources)
            vectors = cm.cost_vectors_of(priced.samples, baseline=baseline)
            print(format_level_blocks(level_blocks(vectors, resources), pricing))
    except VbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Coverage scan of `vbench predict`'s 95 % prediction intervals on costs-fit-shaped data.

Each seeded pair of synthetic campaigns (tests/unit/test_predict_cmd.py's builders: the 2^4
factorial of planted slowdowns against the unplanted configuration, 5 blocks, two jobs; a
calibration campaign with two platforms beside native) gives 4 predictions (2 jobs x 2 platforms)
whose true ratio is known. Every pair is fitted twice from the same inputs and seed:

* joint: as `vbench predict` fits today, the rows' ratios and costs drawn jointly by block
  (cost_model.joint_log_draws: each row is a ratio to the same unplanted runs of its block);
* independent: the same records with their blocks dropped, so fit_job and predict draw every
  ratio independently from its own interval (cost_model's draws before the joint ones, bit for
  bit: that code path is unchanged).

It prints each mode's coverage with a Wilson 95 % interval, the median interval width (log
scale) and how often the shares' intervals hold the true shares; docs/statistics.md (the cost
model) has the results. `--quiet-baseline` gives the unplanted configuration no noise (the rows' errors are then
independent: both modes should cover ~95 %). Not part of the test suite; a few minutes for the
default 100 pairs: run it under `nice`.

    cd <repository> && python -m selfbench.cost_model_coverage [--pairs 100] [--draws 1000] [--first-seed 0] [--blocks 5]
        [--quiet-baseline] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tests.unit import test_predict_cmd as world
from vbench.stats import cost_model as cm
from vbench.stats.campaign import load_campaign
from vbench.stats.cost_prediction import prediction_inputs, prediction_table

MODES = ("joint", "independent")


def _summaries(records):
    """The records with their blocks dropped: only the summaries, drawn independently."""

    def strip(r: cm.LogRatio) -> cm.LogRatio:
        return dataclasses.replace(r, blocks=None)

    out = []
    for rec in records:
        if isinstance(rec, cm.CostVector):
            out.append(
                cm.CostVector(rec.platform, tuple(cm.ResourceCost(c.resource, strip(c.ratio)) for c in rec.costs))
            )
        else:
            out.append(cm.JobRatio(rec.job, rec.platform, strip(rec.ratio)))
    return tuple(out)


def independent(inputs):
    return dataclasses.replace(
        inputs,
        fit_costs=_summaries(inputs.fit_costs),
        fit_ratios=_summaries(inputs.fit_ratios),
        costs=_summaries(inputs.costs),
        measured=_summaries(inputs.measured),
    )


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def scan(pairs: int, draws: int, first_seed: int, quiet_baseline: bool, blocks: int = world.BLOCKS) -> dict:
    hits = {m: [] for m in MODES}
    widths = {m: [] for m in MODES}
    shares = {m: [] for m in MODES}
    world.BLOCKS = blocks  # the builders read it at each call
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(first_seed, first_seed + pairs):
            root = Path(tmp) / str(i)
            world.fit_campaign(root / "fit", seed=1000 + i, quiet_baseline=quiet_baseline)
            world.calibration_campaign(root / "cal", seed=5000 + i)
            inputs = prediction_inputs(load_campaign(root / "fit"), load_campaign(root / "cal"))
            for mode, these in zip(MODES, (inputs, independent(inputs))):
                table = prediction_table(these, n_draws=draws, seed=i)
                assert all(f.fit.joint == (mode == "joint") for f in table.fits)
                for f in table.fits:
                    shares[mode] += [c.low <= s <= c.high for c, s in zip(f.fit.coefficients, world.JOBS[f.fit.job][3])]
                for row in table.rows:
                    truth = world.true_ratio(row.job, world.PLATFORMS[row.platform])
                    hits[mode].append(row.predicted.low <= truth <= row.predicted.high)
                    widths[mode].append(math.log(row.predicted.high / row.predicted.low))
    out = {
        "pairs": pairs,
        "first_seed": first_seed,
        "draws": draws,
        "quiet_baseline": quiet_baseline,
        "blocks": blocks,
        "seconds": round(time.monotonic() - start, 1),
    }
    for m in MODES:
        k, n = int(np.sum(hits[m])), len(hits[m])
        out[m] = {
            "covered": k,
            "predictions": n,
            "coverage": k / n,
            "wilson95": wilson(k, n),
            "median_log_width": float(np.median(widths[m])),
            "shares_coverage": float(np.mean(shares[m])),
            "shares": len(shares[m]),
        }
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--blocks", type=int, default=world.BLOCKS, help="blocks per campaign (default %(default)s)")
    ap.add_argument("--quiet-baseline", action="store_true", help="no noise in the unplanted configuration")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    result = scan(args.pairs, args.draws, args.first_seed, args.quiet_baseline, args.blocks)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"{result['pairs']} pairs (seeds {args.first_seed}..{args.first_seed + args.pairs - 1}), "
        f"{result['blocks']} blocks, {result['draws']} draws{', quiet baseline' if args.quiet_baseline else ''}, "
        f"{result['seconds']} s"
    )
    for m in MODES:
        r = result[m]
        lo, hi = r["wilson95"]
        print(
            f"  {m:12s} {r['covered']}/{r['predictions']} = {100 * r['coverage']:.1f} % "
            f"[{100 * lo:.1f}, {100 * hi:.1f}], median log width {r['median_log_width']:.4f}; "
            f"shares {100 * r['shares_coverage']:.1f} % of {r['shares']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Two readings of the cost model's prediction interval of a measurement (issue #53; docs/statistics.md
"What it predicts", docs/results.md "The one-day table again").

coverage: on the synthetic world of tests/unit/test_cost_model.py (`_run_noise_world`: three planted
    rows of 5 blocks, a platform measured in 3 blocks of its own, run noise 0.05, block drift 0.2),
    how often the measured ratio lies inside the 95 % prediction interval of a 3-block measurement
    (`PredictionRow.inside_prediction`) and inside the predicted ratio's interval alone, with Wilson
    95 % intervals, for each multiple of the fit rows' run noise the platform's own runs carry
    (`--noise 1 2 3`: 1 is the model's assumption, more is a platform noisier than the fit's rows).

blocks: for committed campaigns (`--campaigns DIR ...`, each under data/raw/), per platform and job of
    `cost_model.JOBS` against native, the standard deviation of a block's log ratio, pooled over the
    campaigns on their degrees of freedom, and the blocks a paired t needs for a 95 % interval
    within +/-`--within` % of the ratio (what a campaign must measure to judge an error that size on
    its own rows).

Reads committed data or makes synthetic data; runs nothing. About 4 s a noise level (1000 pairs).

    cd <repository> && python -m selfbench.measurement_pi coverage [--pairs 1000] [--noise 1 2 3]
    cd <repository> && python -m selfbench.measurement_pi blocks --campaigns data/raw/costs-oneday \\
        data/raw/costs-oneday-confirm [--within 15]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Sequence

from scipy import stats

from selfbench.cost_model_coverage import wilson
from tests.unit import test_cost_model as world
from vbench.stats import cost_model as cm
from vbench.stats.campaign import load_campaign


def coverage(pairs: int, noise: float, first_seed: int = 5000) -> tuple[int, int, int]:
    """(held by the prediction interval, held by the ratio's interval, pairs) at `noise` times the
    fit rows' run noise on the platform's own runs."""
    with_noise = ratio_alone = 0
    for i in range(pairs):
        costs, ratios = world._run_noise_world(first_seed + i, platform_noise=noise)
        (row,) = cm.leave_one_platform_out(
            costs,
            ratios,
            design=tuple(world.NOISE_DESIGN),
            resources=world.NOISE_RESOURCES,
            n_draws=world.DRAWS,
            seed=i,
        )
        with_noise += row.inside_prediction
        ratio_alone += row.predicted.low <= row.measured.estimate <= row.predicted.high
    return with_noise, ratio_alone, pairs


def blocks_needed(block_sd: float, within: float, conf: float = 0.95, most: int = 1000) -> int | None:
    """The fewest blocks whose paired-t interval of the mean log ratio is within +/-`within` (a
    fraction: 0.15) of the ratio, for a block's log ratio of `block_sd`; None beyond `most`. Pure."""
    limit = math.log(1 + within)
    for n in range(2, most + 1):
        if stats.t.ppf(0.5 + conf / 2, n - 1) * block_sd / math.sqrt(n) <= limit:
            return n
    return None


def pooled_block_sd(ratios: Sequence[cm.LogRatio]) -> tuple[float, float]:
    """(sd of a block's log ratio pooled on the ratios' degrees of freedom, those degrees): the
    campaigns are independent, so `cost_model.pooled_noise`, not the two-way residual of one
    campaign's rows. Pure."""
    noise = cm.pooled_noise(ratios)
    return noise.block_sd, noise.df


def block_readings(campaigns: Sequence[Path]) -> dict[tuple[str, str], list[cm.LogRatio]]:
    """Per (platform, job), the job's ratio to native in each campaign that timed it."""
    out: dict[tuple[str, str], list[cm.LogRatio]] = {}
    for d in campaigns:
        for r in cm.job_ratios_of(load_campaign(Path(d)).samples, baseline=cm.DEFAULT_BASELINE):
            out.setdefault((r.platform, r.job), []).append(r.ratio)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="reading", required=True)
    c = sub.add_parser("coverage")
    c.add_argument("--pairs", type=int, default=1000)
    c.add_argument("--noise", type=float, nargs="+", default=[1.0, 2.0, 3.0])
    b = sub.add_parser("blocks")
    b.add_argument("--campaigns", type=Path, nargs="+", required=True)
    b.add_argument("--within", type=float, default=15.0, help="percent (default %(default)s)")
    args = ap.parse_args(argv)
    if args.reading == "coverage":
        print("platform noise  in PI (Wilson 95 %)            in the ratio's interval")
        for k in args.noise:
            pi, alone, n = coverage(args.pairs, k)
            lo, hi = wilson(pi, n)
            print(f"x{k:<14g}{pi}/{n} = {pi / n:.3f} [{lo:.3f}, {hi:.3f}]   {alone}/{n} = {alone / n:.3f}")
        return 0
    print(f"platform  job  block sd of the log ratio (df)  blocks for +/-{args.within:g} %")
    for (platform, job), ratios in sorted(block_readings(args.campaigns).items()):
        sd, df = pooled_block_sd(ratios)
        n = blocks_needed(sd, args.within / 100)
        print(f"{platform}  {job}  {sd:.3f} ({df:g})  {'> 1000' if n is None else n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

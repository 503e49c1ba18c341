"""The reading of a size question (issue #51): which job size measures more per machine-minute?

For a campaign whose suite runs one Hadoop job at several sizes in every cell (e.g.
params/experiments/size-512.yaml: TeraSort at 128 and 512 MB, native, LXC and the A/A copy),
per size k:

  s_k   the pooled s.d. of the blocks' log ratios of the metric over the comparisons with the
        baseline (each comparison's own mean taken out: sum over comparisons of (blocks - 1)
        degrees of freedom)
  c_k   the median minutes a cell of that size alone costs: the cell's bring-up plus that size's
        TeraGen and TeraSort wall times, as the runner measured them
  E_k   s_k^2 x c_k, the variance one machine-minute leaves: lower measures more per minute

and E_k / E_ref with an interval from the F distribution of the two variances (the sizes share
their blocks, so the two are not independent: the interval is a guide, the rule reads the ratio).

    python3 selfbench/size_reading.py DATA/raw/size-512 [--metric terasort.job_time] [--reference 128MB]
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vbench.stats.campaign import load_campaign  # noqa: E402

#: What a cell of one size costs besides its bring-up (wall times the runner measured).
COST_METRICS = ("teragen_time", "terasort_time")


@dataclass(frozen=True)
class SizeReading:
    size: str
    sd: float  # pooled s.d. of the blocks' log ratios
    df: int
    cell_minutes: float  # median over compared cells
    comparisons: tuple[tuple[str, float, int], ...]  # (platform, geometric mean ratio, blocks)

    @property
    def variance_minutes(self) -> float:
        return self.sd**2 * self.cell_minutes


def block_log_ratios(samples: pd.DataFrame, metric: str, baseline: str) -> pd.DataFrame:
    """One row per (size, platform, block): log(metric / the baseline's in the same block). Pure."""
    rows = samples[(samples.metric == metric) & ~samples.warmup.fillna(False).astype(bool)]
    per_cell = rows.groupby(["size", "platform", "block"], as_index=False)["value"].mean()
    base = per_cell[per_cell.platform == baseline].rename(columns={"value": "base"}).drop(columns="platform")
    paired = per_cell[per_cell.platform != baseline].merge(base, on=["size", "block"])
    paired["log_ratio"] = np.log(paired.value / paired.base)
    return paired[["size", "platform", "block", "log_ratio"]]


def cell_minutes(samples: pd.DataFrame) -> pd.Series:
    """Median minutes per size of a compared cell: bring-up plus the size's TeraGen and TeraSort. Pure."""
    rows = samples[samples.metric.isin(COST_METRICS) & ~samples.warmup.fillna(False).astype(bool)]
    per_cell = rows.groupby(["size", "cell_id"]).agg(run_s=("value", "sum"), bringup_s=("bringup_s", "first"))
    per_cell["minutes"] = (per_cell.run_s + per_cell.bringup_s) / 60.0
    return per_cell.groupby("size")["minutes"].median()


def readings(ratios: pd.DataFrame, minutes: pd.Series) -> list[SizeReading]:
    """Each size's pooled s.d. over its comparisons and its cost. Pure."""
    out = []
    for size, by_size in ratios.groupby("size"):
        squares, df, comps = 0.0, 0, []
        for platform, comp in by_size.groupby("platform"):
            lr = comp.log_ratio.to_numpy()
            squares += float(((lr - lr.mean()) ** 2).sum())
            df += len(lr) - 1
            comps.append((str(platform), math.exp(lr.mean()), len(lr)))
        sd = math.sqrt(squares / df) if df > 0 else float("nan")
        out.append(SizeReading(str(size), sd, df, float(minutes[size]), tuple(comps)))
    return out


def efficiency_ratio(r: SizeReading, ref: SizeReading, conf: float = 0.95) -> tuple[float, float, float]:
    """E_r / E_ref with the interval the F distribution gives the variance ratio (costs as fixed). Pure."""
    ratio = r.variance_minutes / ref.variance_minutes
    tail = (1 - conf) / 2
    lo = ratio / sps.f.ppf(1 - tail, r.df, ref.df)
    hi = ratio / sps.f.ppf(tail, r.df, ref.df)
    return ratio, lo, hi


def verdict(ratio: float) -> str:
    """The rule size-512.yaml fixed before it ran. Pure."""
    if ratio < 0.5:
        return (
            "the larger size measures at least twice as much per machine-minute: candidate for the planted-effect test"
        )
    if ratio > 2:
        return "the reference size stays; size is no lever here"
    return "not settled at this size of campaign; the reference size stays"


def report(campaign: Path, metric: str, reference: str, baseline: str = "native") -> str:
    samples = load_campaign(campaign).samples
    rs = readings(block_log_ratios(samples, metric, baseline), cell_minutes(samples))
    ref = next(r for r in rs if r.size == reference)
    lines = [
        f"{campaign.name}: {metric}, blocks' log ratios to {baseline}",
        "",
        "| size | comparisons (geometric mean ratio, blocks) | pooled s.d. (df) | cell min | E = s.d.^2 x min | E / E_ref [95 %] |",
        "|---|---|---|---|---|---|",
    ]
    for r in rs:
        comps = ", ".join(f"{p} {g:.3f} ({n})" for p, g, n in r.comparisons)
        if r is ref:
            rel = "reference"
        else:
            e, lo, hi = efficiency_ratio(r, ref)
            rel = f"{e:.2f} [{lo:.2f}, {hi:.2f}]: {verdict(e)}"
        lines.append(
            f"| {r.size} | {comps} | {r.sd:.4f} ({r.df}) | {r.cell_minutes:.2f} | {r.variance_minutes:.5f} | {rel} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("campaign", type=Path)
    ap.add_argument("--metric", default="terasort.job_time")
    ap.add_argument("--reference", default="128MB")
    args = ap.parse_args(argv)
    print(report(args.campaign, args.metric, args.reference))
    return 0


if __name__ == "__main__":
    sys.exit(main())

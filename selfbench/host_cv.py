"""Each micro-benchmark's CV over a host's repeats in a measured campaign (issue #53: every new
micro-benchmark's CV, target <= 3 %), per platform: the median over its hosts and blocks, with the
least and the most, as the campaigns' designs judge it.

`selfbench.micro_cv` reads a benchmark's noise alone on this machine; this reads it as a campaign
measured it, through sshd on each platform's hosts. Warm-up cells and the `elapsed` metric are
left out; a host's repeats are its samples of one metric in one cell.

    cd <repository> && python -m selfbench.host_cv data/raw/costs-micro-cv [--benchmarks jvmstart,fileopen]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from vbench.errors import VbenchError
from vbench.stats import read_samples

#: What a host's repeats are grouped by: one metric of one benchmark on one host in one cell.
HOST_REPEATS = ["benchmark", "metric", "platform", "block", "host"]


@dataclass(frozen=True)
class PlatformCV:
    benchmark: str
    metric: str
    platform: str
    median: float  # % over the host-blocks
    least: float
    most: float
    host_blocks: int
    repeats: int  # per host-block, the least


def host_cvs(samples: pd.DataFrame) -> list[PlatformCV]:
    """Per benchmark, metric and platform, the median, least and most CV (%) over its host-blocks
    of the CV over a host's repeats; host-blocks with fewer than two repeats left out. Pure."""
    df = samples[samples["metric"] != "elapsed"]
    if "warmup" in df.columns:
        df = df[~df["warmup"].fillna(False).astype(bool)]
    per_host = df.groupby(HOST_REPEATS)["value"].agg(["mean", "std", "count"]).reset_index()
    per_host = per_host[per_host["count"] >= 2]
    per_host["cv"] = per_host["std"] / per_host["mean"] * 100
    rows = []
    for (bench, metric, platform), g in per_host.groupby(["benchmark", "metric", "platform"]):
        rows.append(
            PlatformCV(
                bench,
                metric,
                platform,
                float(g["cv"].median()),
                float(g["cv"].min()),
                float(g["cv"].max()),
                len(g),
                int(g["count"].min()),
            )
        )
    return rows


def table(rows: list[PlatformCV], platforms: list[str]) -> str:
    """A Markdown table: a row per benchmark's metric, a column per platform, `median (least-most)`. Pure."""
    by = {(r.benchmark, r.metric, r.platform): r for r in rows}
    metrics = sorted({(r.benchmark, r.metric) for r in rows})
    lines = ["| benchmark (metric) | " + " | ".join(platforms) + " |", "|---" * (len(platforms) + 1) + "|"]
    for bench, metric in metrics:
        cells = []
        for p in platforms:
            r = by.get((bench, metric, p))
            cells.append(f"{r.median:.1f} % ({r.least:.1f}-{r.most:.1f}; {r.host_blocks})" if r else "-")
        lines.append(f"| {bench} (`{metric}`) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("campaign", type=Path, help="a campaign's directory (its samples.jsonl)")
    ap.add_argument("--benchmarks", default="", help="comma-separated; default every micro-benchmark in it")
    args = ap.parse_args(argv)
    try:
        samples = read_samples(args.campaign / "samples.jsonl")
    except VbenchError as exc:
        print(f"host_cv: {exc}", file=sys.stderr)
        return 2
    if "benchmark_kind" in samples.columns:
        samples = samples[samples["benchmark_kind"] == "micro"]
    wanted = [b for b in args.benchmarks.split(",") if b]
    if wanted:
        samples = samples[samples["benchmark"].isin(wanted)]
    rows = host_cvs(samples)
    if not rows:
        print(f"host_cv: no micro-benchmark with two or more repeats in {args.campaign}", file=sys.stderr)
        return 1
    seen = list(dict.fromkeys(samples["platform"]))
    platforms = sorted(seen, key=lambda p: (p != "native", seen.index(p)))
    print("CV over a host's repeats, % : median over host-blocks (least-most; host-blocks)")
    print(table(rows, platforms))
    return 0


if __name__ == "__main__":
    sys.exit(main())

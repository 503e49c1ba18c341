"""Each micro-benchmark's CV over a host's repeats in a measured campaign (issue #53: every new
micro-benchmark's CV, target <= 3 %), per platform: the median over its hosts and blocks, with the
least and the most, as the campaigns' designs judge it.

`selfbench.micro_cv` reads a benchmark's noise alone on this machine; this reads it as a campaign
measured it, through sshd on each platform's hosts. Warm-up cells and the `elapsed` metric are
left out; a host's repeats are its samples of one metric in one cell.

    cd <repository> && python -m selfbench.host_cv data/raw/costs-micro-cv [--benchmarks jvmstart,fileopen]

`--by SETTING` reads a design whose benchmark ran in variants of one setting (costs-rpc-busy's
`other_cpus_busy: [true, false]`) apart: each platform's column becomes one per value.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from vbench.errors import VbenchError
from vbench.stats import read_samples


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


def cv_by_configuration(samples, benchmark: str, metric: str) -> dict[str, list[float]]:
    """Configuration -> the CV (%) of each host's repeats of `benchmark`'s `metric` in each block
    (host-blocks with one repeat left out). Pure."""
    rows = samples[(samples["benchmark"] == benchmark) & (samples["metric"] == metric)]
    groups: dict[tuple[str, str, object], list[float]] = defaultdict(list)
    for _, r in rows.iterrows():
        groups[(str(r["platform"]), str(r["host"]), r["block"])].append(float(r["value"]))
    out: dict[str, list[float]] = defaultdict(list)
    for (config, _host, _block), values in groups.items():
        if len(values) > 1:
            out[config].append(100 * statistics.stdev(values) / statistics.mean(values))
    return dict(out)


def split_by(samples: pd.DataFrame, setting: str) -> pd.DataFrame:
    """The samples with each platform named with its value of `setting` (`native other_cpus_busy=True`),
    so variants of it are read apart; a sample without the setting keeps its platform's name. Pure."""
    if setting not in samples.columns:
        raise VbenchError(f"no sample carries {setting!r}")
    value = samples[setting]
    named = samples["platform"].astype(str) + f" {setting}=" + value.astype(str)
    return samples.assign(platform=named.where(value.notna(), samples["platform"].astype(str)))


def host_cvs(samples: pd.DataFrame) -> list[PlatformCV]:
    """Per benchmark, metric and platform, the median, least and most CV (%) over its host-blocks
    of the CV over a host's repeats; host-blocks with fewer than two repeats left out. Pure."""
    df = samples[samples["metric"] != "elapsed"]
    if "warmup" in df.columns:
        df = df[~df["warmup"].fillna(False).astype(bool)]
    rows = []
    for (bench, metric), part in df.groupby(["benchmark", "metric"]):
        sizes = part.groupby(["platform", "block", "host"]).size()
        for platform, cvs in sorted(cv_by_configuration(part, bench, metric).items()):
            repeats = sizes[platform]
            rows.append(
                PlatformCV(
                    bench,
                    metric,
                    platform,
                    statistics.median(cvs),
                    min(cvs),
                    max(cvs),
                    len(cvs),
                    int(repeats[repeats >= 2].min()),
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
    ap.add_argument("--by", default="", help="a setting whose values are read apart (other_cpus_busy)")
    args = ap.parse_args(argv)
    try:
        samples = read_samples(args.campaign / "samples.jsonl")
        if args.by:
            samples = split_by(samples, args.by)
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

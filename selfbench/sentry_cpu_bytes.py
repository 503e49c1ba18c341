"""Where gVisor's extra task CPU goes, from the job profiles committed campaigns already hold: per
Hadoop job, the task CPU a platform spends beyond native's (JobHistory's CPU_MILLISECONDS, medians
over each platform's compared runs; inside gVisor the Sentry's account, its work on a task's calls
included) beside the bytes the job moves (HDFS read and written, local files read and written,
shuffled: its native counters) and its tasks (maps and reduces launched), and the least-squares
line extra CPU = a + b * MiB over the jobs of each campaign.

Issue #53: every fit under-predicts gVisor's TeraSort more than its WordCount, and TeraSort's
tasks spend x5 native's CPU against WordCount's x2.2 (docs/results.md, "What gVisor's tasks spend
that the plant's do not"). This says whether the extra CPU follows the bytes a job moves, which
no planted level controls. A reading of committed data, no rule fixed before it: a pointer.

With `--sizes SMALL BIG` (cells, e.g. 16MB 64MB) it reads costs-bytes-gvisor's rule instead: per
block, the platform's extra task CPU of each job at the big size minus at the small one, over the
job's native bytes moved at the big size minus at the small one (ms per MiB), and the median over
the blocks (params/experiments/costs-bytes-gvisor.yaml fixed it before that campaign ran).

Reads committed data; runs nothing.

    cd <repository> && python -m selfbench.sentry_cpu_bytes data/raw/costs-nospec-sameday-amd [more campaigns]
    cd <repository> && python -m selfbench.sentry_cpu_bytes data/raw/costs-bytes-gvisor --sizes 16MB 64MB
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from vbench.stats.profile import JobProfile, load_profiles, platform_medians

#: The counters a job's moved bytes are the sum of.
BYTE_COUNTERS = ("hdfs_bytes_read", "hdfs_bytes_written", "local_bytes_read", "local_bytes_written", "shuffle_bytes")
MIB = 2**20


@dataclass(frozen=True)
class ExtraCpu:
    """One job of one campaign: the platform's task CPU beyond the baseline's, and what it moved."""

    campaign: str
    #: The statistics' cell: the job's size label.
    cell: str
    step: str
    platform: str
    #: Medians over each side's compared runs (s).
    cpu_s: float
    baseline_cpu_s: float
    #: The baseline's medians: the job's bytes moved (MiB) and its tasks launched.
    moved_mib: float
    tasks: float
    job_ratio: float | None

    @property
    def extra_cpu_s(self) -> float:
        return self.cpu_s - self.baseline_cpu_s


def extra_cpu(
    campaign: str, profiles: Iterable[JobProfile], platform: str, baseline: str = "native", cell: str | None = None
) -> list[ExtraCpu]:
    """Each job (step) of each cell (size) of the campaign that both `platform` and `baseline` ran and
    recorded CPU for; only the cell `cell` where given. Pure."""
    groups: dict[tuple[str, str], dict[str, dict[str, float | None]]] = {}
    for r in platform_medians(profiles, baseline):
        if r.platform in (platform, baseline) and (cell is None or r.cell == cell):
            groups.setdefault((r.cell, r.step), {}).setdefault(r.platform, {})[r.resource] = r.median
    out = []
    for (job_cell, step), sides in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        mine, base = sides.get(platform), sides.get(baseline)
        if not mine or not base or mine.get("cpu_ms") is None or base.get("cpu_ms") is None:
            continue
        moved = sum(base.get(c) or 0.0 for c in BYTE_COUNTERS) / MIB
        tasks = (base.get("launched_maps") or 0.0) + (base.get("launched_reduces") or 0.0)
        t, bt = mine.get("job_time_s"), base.get("job_time_s")
        ratio = t / bt if t and bt else None
        out.append(
            ExtraCpu(
                campaign, job_cell, step, platform, mine["cpu_ms"] / 1e3, base["cpu_ms"] / 1e3, moved, tasks, ratio
            )
        )
    return out


@dataclass(frozen=True)
class Line:
    """extra CPU (s) = intercept + slope * MiB, least squares; None where fewer than 3 jobs."""

    intercept: float
    slope: float
    #: The jobs' residuals' root mean square (s).
    rms: float
    n: int


def bytes_line(rows: Sequence[ExtraCpu]) -> Line | None:
    """The least-squares line of extra CPU on bytes moved over `rows`. Pure."""
    if len(rows) < 3 or len({r.moved_mib for r in rows}) < 2:
        return None
    x = np.array([r.moved_mib for r in rows])
    y = np.array([r.extra_cpu_s for r in rows])
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (intercept + slope * x)
    return Line(float(intercept), float(slope), float(np.sqrt(np.mean(resid**2))), len(rows))


@dataclass(frozen=True)
class SizeSlope:
    """One job in one block: the platform's extra task CPU per MiB the job moves more at the big size."""

    step: str
    block: int
    small: ExtraCpu
    big: ExtraCpu

    @property
    def ms_per_mib(self) -> float:
        return (self.big.extra_cpu_s - self.small.extra_cpu_s) / (self.big.moved_mib - self.small.moved_mib) * 1e3


def size_slopes(
    profiles: Sequence[JobProfile], platform: str, small: str, big: str, baseline: str = "native"
) -> list[SizeSlope]:
    """Per block and job, the extra CPU's growth from cell `small` to cell `big` over the bytes'
    growth; a block or job missing either size on either side, or moving no more bytes, is left
    out. Pure."""
    out = []
    for block in sorted({p.run.block for p in profiles if p.run.block is not None}):
        mine = [p for p in profiles if p.run.block == block]
        at = {cell: {r.step: r for r in extra_cpu("", mine, platform, baseline, cell)} for cell in (small, big)}
        for step in sorted(set(at[small]) & set(at[big])):
            s_row, b_row = at[small][step], at[big][step]
            if b_row.moved_mib > s_row.moved_mib:
                out.append(SizeSlope(step, block, s_row, b_row))
    return out


def size_report(path: Path, platform: str, small: str, big: str) -> str:
    slopes = size_slopes(load_profiles(path), platform, small, big)
    lines = [f"{path.name}: {platform} against native, extra task CPU from {small} to {big}, per block"]
    lines.append(
        f"  {'job':<14} {'block':>5} {'extra ' + small:>12} {'extra ' + big:>12} {'MiB ' + small:>10} "
        f"{'MiB ' + big:>10} {'tasks':>9} {'ms/MiB':>7}"
    )
    for s in slopes:
        tasks = f"{s.small.tasks:.0f}/{s.big.tasks:.0f}"
        lines.append(
            f"  {s.step:<14} {s.block:>5} {s.small.extra_cpu_s:>12.2f} {s.big.extra_cpu_s:>12.2f} "
            f"{s.small.moved_mib:>10.1f} {s.big.moved_mib:>10.1f} {tasks:>9} {s.ms_per_mib:>7.0f}"
        )
    for step in sorted({s.step for s in slopes}):
        values = [s.ms_per_mib for s in slopes if s.step == step]
        lines.append(f"  {step}: median over {len(values)} blocks {float(np.median(values)):.0f} ms/MiB")
    return "\n".join(lines)


def report(campaigns: Sequence[Path], platform: str) -> str:
    lines = []
    for path in campaigns:
        rows = extra_cpu(path.name, load_profiles(path), platform)
        lines.append(f"{path.name}: {platform} against native, medians over compared runs")
        lines.append(
            f"  {'job':<14} {'size':>6} {'CPU s':>7} {'native':>7} {'extra':>7} {'MiB moved':>10} {'tasks':>6} {'job ratio':>10}"
        )
        for r in rows:
            ratio = f"{r.job_ratio:.2f}" if r.job_ratio else "-"
            lines.append(
                f"  {r.step:<14} {r.cell:>6} {r.cpu_s:>7.2f} {r.baseline_cpu_s:>7.2f} {r.extra_cpu_s:>7.2f} "
                f"{r.moved_mib:>10.1f} {r.tasks:>6.0f} {ratio:>10}"
            )
        line = bytes_line(rows)
        if line is None:
            lines.append("  (fewer than 3 jobs with different bytes: no line)")
        else:
            lines.append(
                f"  extra CPU = {line.intercept:.2f} s + {line.slope * 1e3:.0f} ms/MiB * MiB moved "
                f"(n {line.n}, residual rms {line.rms:.2f} s)"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("campaigns", nargs="+", type=Path)
    ap.add_argument("--platform", default="gvisor")
    ap.add_argument("--sizes", nargs=2, metavar=("SMALL", "BIG"), help="cells (size labels) to read per block")
    args = ap.parse_args(argv)
    if args.sizes:
        print("\n".join(size_report(p, args.platform, *args.sizes) for p in args.campaigns))
    else:
        print(report(args.campaigns, args.platform))


if __name__ == "__main__":
    main()

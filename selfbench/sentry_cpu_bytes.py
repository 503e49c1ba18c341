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

Reads committed data; runs nothing.

    cd <repository> && python -m selfbench.sentry_cpu_bytes data/raw/costs-nospec-sameday-amd [more campaigns]
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


def extra_cpu(campaign: str, profiles: Iterable[JobProfile], platform: str, baseline: str = "native") -> list[ExtraCpu]:
    """Each job (step) of the campaign that both `platform` and `baseline` ran and recorded CPU for. Pure."""
    by_step: dict[str, dict[str, dict[str, float | None]]] = {}
    for r in platform_medians(profiles, baseline):
        if r.platform in (platform, baseline):
            by_step.setdefault(r.step, {}).setdefault(r.platform, {})[r.resource] = r.median
    out = []
    for step, sides in sorted(by_step.items()):
        mine, base = sides.get(platform), sides.get(baseline)
        if not mine or not base or mine.get("cpu_ms") is None or base.get("cpu_ms") is None:
            continue
        moved = sum(base.get(c) or 0.0 for c in BYTE_COUNTERS) / MIB
        tasks = (base.get("launched_maps") or 0.0) + (base.get("launched_reduces") or 0.0)
        t, bt = mine.get("job_time_s"), base.get("job_time_s")
        out.append(
            ExtraCpu(
                campaign,
                step,
                platform,
                mine["cpu_ms"] / 1e3,
                base["cpu_ms"] / 1e3,
                moved,
                tasks,
                t / bt if t and bt else None,
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


def report(campaigns: Sequence[Path], platform: str) -> str:
    lines = []
    for path in campaigns:
        rows = extra_cpu(path.name, load_profiles(path), platform)
        lines.append(f"{path.name}: {platform} against native, medians over compared runs")
        lines.append(
            f"  {'job':<14} {'CPU s':>7} {'native':>7} {'extra':>7} {'MiB moved':>10} {'tasks':>6} {'job ratio':>10}"
        )
        for r in rows:
            ratio = f"{r.job_ratio:.2f}" if r.job_ratio else "-"
            lines.append(
                f"  {r.step:<14} {r.cpu_s:>7.2f} {r.baseline_cpu_s:>7.2f} {r.extra_cpu_s:>7.2f} "
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
    args = ap.parse_args(argv)
    print(report(args.campaigns, args.platform))


if __name__ == "__main__":
    main()

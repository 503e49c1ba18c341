"""gVisor's machine CPU on each Hadoop job predicted from native's alone and one JVM start: the
platform runs the JVMs' own code at native speed and multiplies the kernel's part of their work
(issue #53; costs-jvm-kernel-gvisor's rule).

costs-jvm-suite-gvisor: scaling native's whole Hadoop JVM prices by a JVM start's machine-CPU ratio
(`java -version`, jvmstart) over-states gVisor's. A bare JVM's start is mostly the kernel's work
(mapping, faulting in, starting threads), a Hadoop JVM's mostly its own code (loading and
compiling classes), and gVisor's Sentry takes the place of only the first. So, per block, from the
machine's busy CPU and the kernel's part of it (system, irq, softirq: `machine_kernel_cpu_s`), read
over each native step and each jvmstart run:

- f, the platform's multiplier on the kernel's part of a JVM start: (the platform's machine CPU per
  start - native's user part per start) / native's kernel part per start;
- the waiting cluster (clientjvm's `idle` step on native): its rate, and the kernel's part of it;
  on the platform the rate's user part as native's and its kernel part times f;
- a native job step's own work (its CPU less the waiting cluster's over its wall time), split the
  same way: user part as native's, kernel part times f;
- the job's wall time grows as its machine CPU does (the 2-core machine is CPU-bound on both
  platforms), so the platform's CPU = own work / (1 - the platform's waiting rate x native's wall /
  native's CPU); no prediction where that denominator is not positive.

The platform's jobs are read only to compare: its predicted machine-CPU ratio against the measured
one and YARN's job-time ratio. Beside: a client JVM's own CPU (clientjvm's `jvmN` steps), predicted
from native's the same way, against the platform's measured.

Reads a committed campaign; runs nothing.

    cd <repository> && python -m selfbench.kernel_scaling data/raw/costs-jvm-kernel-gvisor
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from selfbench.jvm_share import (
    Job,
    Prediction,
    Span,
    StartCost,
    grown_ratio,
    prediction,
    prices_of,
    read,
    side_by_side,
)


@dataclass(frozen=True)
class Waiting:
    """A platform's waiting cluster in one block: CPUs busy, and the kernel's part of them."""

    cpus: float
    kernel_cpus: float


def kernel_factor(native: StartCost, platform: StartCost) -> float | None:
    """f: the platform's multiplier on the kernel's part of a JVM start; None without native's
    kernel part. Pure."""
    if native.kernel_s is None or native.kernel_s <= 0:
        return None
    return (platform.cpu_s - (native.cpu_s - native.kernel_s)) / native.kernel_s


def scaled(cpu_s: float, kernel_s: float, f: float) -> float:
    """A native CPU time with its kernel part (clamped to [0, cpu_s]) multiplied by f. Pure."""
    k = min(max(kernel_s, 0.0), cpu_s)
    return cpu_s - k + f * k


def waiting_of(spans: Iterable[Span]) -> dict[tuple[str, int], Waiting]:
    """Each (platform, block)'s waiting cluster, from its clientjvm prices with a kernel part. Pure."""
    return {
        key: Waiting(p.idle_cpus, p.idle_kernel_cpus)
        for key, p in prices_of(spans).items()
        if p.idle_kernel_cpus is not None
    }


def predicted_ratio(job: Job, waiting: Waiting, f: float) -> float | None:
    """The platform's machine-CPU ratio to native's on `job` (native's step, with its kernel part),
    by the module's rule. None where the job has no kernel part or spent no CPU, or the waiting
    would outgrow the machine. Pure."""
    if job.kernel_s is None:
        return None
    own = job.cpu_s - waiting.cpus * job.wall_s
    own_kernel = job.kernel_s - waiting.kernel_cpus * job.wall_s
    return grown_ratio(job, scaled(own, own_kernel, f), scaled(waiting.cpus, waiting.kernel_cpus, f))


def rows(
    jobs: Iterable[Job],
    spans: Iterable[Span],
    starts: dict[tuple[str, int], StartCost],
    platform: str,
    baseline: str = "native",
) -> list[Prediction]:
    """Per (step, block) both sides ran, with native's waiting cluster and both calibrations. Pure."""
    waiting = waiting_of(spans)
    out = []
    for mine, base in side_by_side(jobs, platform, baseline):
        w, sb, sm = (
            waiting.get((baseline, base.block)),
            starts.get((baseline, base.block)),
            starts.get((platform, base.block)),
        )
        if w is None or sb is None or sm is None:
            continue
        f = kernel_factor(sb, sm)
        got = predicted_ratio(base, w, f) if f is not None else None
        if got is not None:
            out.append(prediction(mine, base, got, f))
    return out


def client_prices(spans: Iterable[Span]) -> dict[tuple[str, int], StartCost]:
    """Each (platform, block)'s client JVM own CPU and the kernel's part of it, from its clientjvm
    prices with a kernel part. Pure."""
    return {
        key: StartCost(p.jvm_cpu_s, p.jvm_kernel_s) for key, p in prices_of(spans).items() if p.jvm_kernel_s is not None
    }


def report(
    spans: Sequence[Span], jobs: Sequence[Job], starts: dict[tuple[str, int], StartCost], platform: str, baseline: str
) -> str:
    """f per block with the client JVM's price predicted beside the measured, then each step's row. Pure."""
    lines = [
        f"per block: {baseline}'s JVM start CPU s (kernel part), {platform}'s, f;  {baseline}'s waiting CPUs (kernel "
        f"part);  a client JVM's own CPU s: {baseline} (kernel part), {platform} predicted, measured"
    ]
    waiting, clients = waiting_of(spans), client_prices(spans)
    for block in sorted({b for _, b in starts}):
        sb, sm = starts.get((baseline, block)), starts.get((platform, block))
        if sb is None or sm is None:
            continue
        f = kernel_factor(sb, sm)
        w = waiting.get((baseline, block))
        cb, cm = clients.get((baseline, block)), clients.get((platform, block))
        wtxt = f"{w.cpus:.3f} ({w.kernel_cpus:.3f})" if w else "-"
        ctxt = "-"
        if cb is not None and f is not None:
            ctxt = f"{cb.cpu_s:.2f} ({cb.kernel_s:.2f}), {scaled(cb.cpu_s, cb.kernel_s, f):.2f}, " + (
                f"{cm.cpu_s:.2f}" if cm is not None else "-"
            )
        ftxt = f"{f:.2f}" if f is not None else "-"
        ktxt = f"{sb.kernel_s:.3f}" if sb.kernel_s is not None else "-"
        lines.append(f"  {block}: {sb.cpu_s:.3f} ({ktxt}), {sm.cpu_s:.3f}, f {ftxt};  {wtxt};  {ctxt}")
    lines.append(
        f"{platform}'s machine-CPU ratio to {baseline}: step  block  predicted  measured  error  job-time ratio  error"
    )
    for r in rows(jobs, spans, starts, platform, baseline):
        jt = f"{r.job_time_ratio:.2f}{r.predicted_ratio / r.job_time_ratio - 1:>+8.1%}" if r.job_time_ratio else "-"
        lines.append(
            f"  {r.step:<14}{r.block:>5}{r.predicted_ratio:>11.2f}{r.measured_ratio:>10.2f}{r.error:>+8.1%}  {jt}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("campaign", type=Path)
    ap.add_argument("--platform", default="gvisor")
    ap.add_argument("--baseline", default="native")
    args = ap.parse_args(argv)
    spans, jobs, starts = read(args.campaign)
    print(report(spans, jobs, starts, args.platform, args.baseline))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

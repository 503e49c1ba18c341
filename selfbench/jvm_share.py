"""How much of each Hadoop job's machine CPU its JVMs' starts and the waiting cluster explain, per
platform, and how much of gVisor's extra over native (issue #53, the attribution).

On the 2-core local testbed a 16-MB job's time is the machine CPU it needs (docs/results.md,
costs-accounting-gvisor), and a 16-MB job's data is a small part of that CPU: each job starts a
client, an ApplicationMaster and a JVM per task attempt, and the cluster's daemons keep working
while it runs. The `clientjvm` benchmark prices both on the cluster the jobs ran on, per platform
and block:

- the waiting cluster's rate, `idle_cpus`: its `idle` step's machine CPU over its wall time;
- a Hadoop JVM's own CPU, `jvm_cpu_s`: each `jvmN` step's machine CPU less the waiting cluster's
  over its wall time, the median over the run's JVMs (a client JVM: `hadoop fs -ls /`).

A job step's explained CPU is then `idle_cpus x its wall time + JVMs x jvm_cpu_s`, where its JVMs
are its jobs' launched map and reduce attempts (JobHistory's counters), an ApplicationMaster per
job and the step's one client. Per block, the share of gVisor's extra machine CPU explained is (explained on gVisor -
explained on native) / (gVisor's machine CPU - native's), split into the waiting cluster's part
and the JVMs' part; what is left is the jobs' own work (their data) and whatever a task JVM costs
beyond a client's.

With `--task-step mrbench` (a step of jobs with no data, in the same blocks), what the two prices
leave of that step's CPU, over its JVMs that are not its client, is a third price: a task JVM's (or
an ApplicationMaster's) beyond a client JVM's. Each other step's machine CPU is then predicted with
all three, and the platform's machine-CPU ratio to the baseline's as (the baseline's measured CPU +
the platform's predicted - the baseline's predicted) / the baseline's measured, beside the measured
ratio and YARN's job-time ratio (costs-jvm-predict-gvisor's rule).

With a `jvmstart` calibration in the same blocks (costs-jvm-suite-gvisor's rule 2), each job step
is also predicted without the platform's Hadoop: the platform's three prices are the baseline's
times r, the ratio of the two platforms' machine CPU per JVM start (`jvmstart`'s time per start
times its run's busy CPUs), the JVMs are the baseline job's, and the job's wall time grows as its
machine CPU does (`calibrated_ratio`).

Reads a committed campaign; runs nothing.

    cd <repository> && python -m selfbench.jvm_share data/raw/costs-jvm-share-gvisor [--platform gvisor]
    cd <repository> && python -m selfbench.jvm_share data/raw/costs-jvm-predict-gvisor --task-step mrbench
    cd <repository> && python -m selfbench.jvm_share data/raw/costs-jvm-suite-gvisor --task-step mrbench
"""

from __future__ import annotations

import argparse
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

from vbench.benchmarks.hadoop import clientjvm
from vbench.benchmarks.micro import jvmstart
from vbench.samples import MACHINE_CPU_FIELD, MACHINE_KERNEL_FIELD, MACHINE_WALL_FIELD
from vbench.stats.campaign import load_campaign
from vbench.stats.profile import JobProfile, job_profiles

#: The JVMs a step starts besides its jobs' task attempts: one ApplicationMaster per job, and the one
#: client that submits them all (MRBench's step submits several jobs from one client).
CLIENTS_PER_STEP = 1
#: jvmstart's metric: ms from a JVM's start to its exit.
START_METRIC = "jvm_start_ms"


@dataclass(frozen=True)
class Span:
    """One step of a clientjvm run: the machine's CPU and wall seconds over it."""

    platform: str
    block: int
    step: str
    cpu_s: float
    wall_s: float
    #: Of cpu_s, the kernel's (None: not read).
    kernel_s: float | None = None


@dataclass(frozen=True)
class Prices:
    """One platform's prices in one block."""

    idle_cpus: float
    jvm_cpu_s: float
    #: The kernel's parts of the two (None: a step's kernel CPU not read).
    idle_kernel_cpus: float | None = None
    jvm_kernel_s: float | None = None


@dataclass(frozen=True)
class Job:
    """One job step of one run: the machine's CPU and wall seconds over it, and the JVMs it started."""

    platform: str
    block: int
    step: str
    cpu_s: float
    wall_s: float
    jvms: int
    #: YARN's time of its jobs, summed (None: a job's missing).
    job_time_s: float | None = None
    #: Of cpu_s, the kernel's (None: not read).
    kernel_s: float | None = None


@dataclass(frozen=True)
class Split:
    """A job's machine CPU and the parts of it the prices explain (CPU-seconds)."""

    cpu_s: float
    waiting_s: float
    jvms_s: float

    @property
    def explained_s(self) -> float:
        return self.waiting_s + self.jvms_s


def prices_of(spans: Iterable[Span]) -> dict[tuple[str, int], Prices]:
    """Each (platform, block)'s prices from its clientjvm steps; one without its idle step or a JVM
    step is left out. The kernel's parts are priced the same way where every step read it. Pure."""
    groups: dict[tuple[str, int], list[Span]] = {}
    for s in spans:
        groups.setdefault((s.platform, s.block), []).append(s)
    out = {}
    for key, steps in groups.items():
        idle = [s for s in steps if s.step == clientjvm.IDLE_STEP and s.wall_s > 0]
        jvms = [s for s in steps if s.step != clientjvm.IDLE_STEP]
        if not idle or not jvms:
            continue
        rate = sum(s.cpu_s for s in idle) / sum(s.wall_s for s in idle)
        prices = Prices(rate, statistics.median(s.cpu_s - rate * s.wall_s for s in jvms))
        if all(s.kernel_s is not None for s in idle + jvms):
            k_rate = sum(s.kernel_s for s in idle) / sum(s.wall_s for s in idle)
            k_jvm = statistics.median(s.kernel_s - k_rate * s.wall_s for s in jvms)
            prices = Prices(prices.idle_cpus, prices.jvm_cpu_s, k_rate, k_jvm)
        out[key] = prices
    return out


def split(job: Job, prices: Prices) -> Split:
    """The job's machine CPU beside what the waiting cluster and its JVMs explain of it. Pure."""
    return Split(job.cpu_s, prices.idle_cpus * job.wall_s, job.jvms * prices.jvm_cpu_s)


@dataclass(frozen=True)
class Share:
    """One job step in one block: the platform's extra machine CPU over the baseline's and the part
    of it each price explains."""

    step: str
    block: int
    extra_cpu_s: float
    waiting_s: float
    jvms_s: float

    @property
    def share(self) -> float:
        return (self.waiting_s + self.jvms_s) / self.extra_cpu_s if self.extra_cpu_s > 0 else math.nan


@dataclass(frozen=True)
class Pair:
    """One job step in one block that both sides ran and were priced for."""

    step: str
    block: int
    mine: Job
    base: Job
    mine_prices: Prices
    base_prices: Prices


def side_by_side(jobs: Iterable[Job], platform: str, baseline: str) -> list[tuple[Job, Job]]:
    """(the platform's job, the baseline's) of each step and block both ran, in step and block
    order. Pure."""
    by: dict[tuple[str, int, str], Job] = {(j.step, j.block, j.platform): j for j in jobs}
    return [
        (by[(step, block, plat)], by[(step, block, baseline)])
        for step, block, plat in sorted(by)
        if plat == platform and (step, block, baseline) in by
    ]


def pairs(jobs: Iterable[Job], prices: dict[tuple[str, int], Prices], platform: str, baseline: str) -> list[Pair]:
    """The platform's job steps beside the baseline's of the same step and block, where both
    blocks are priced; in step and block order. Pure."""
    out = []
    for mine, base in side_by_side(jobs, platform, baseline):
        pm, pb = prices.get((platform, mine.block)), prices.get((baseline, mine.block))
        if pm is not None and pb is not None:
            out.append(Pair(mine.step, mine.block, mine, base, pm, pb))
    return out


def shares(
    jobs: Iterable[Job], prices: dict[tuple[str, int], Prices], platform: str, baseline: str = "native"
) -> list[Share]:
    """Per (step, block) both platforms ran and priced: the platform's extra machine CPU and the
    explained parts of it (the platform's explained less the baseline's). Pure."""
    out = []
    for pr in pairs(jobs, prices, platform, baseline):
        a, b = split(pr.mine, pr.mine_prices), split(pr.base, pr.base_prices)
        out.append(Share(pr.step, pr.block, a.cpu_s - b.cpu_s, a.waiting_s - b.waiting_s, a.jvms_s - b.jvms_s))
    return out


def jobs_of(profiles: Iterable[JobProfile]) -> list[Job]:
    """One Job per step of each run whose machine CPU was read and whose block is known: the step's
    machine CPU and wall time (each of its jobs' profiles carries the whole step's), and the JVMs
    its jobs launched (task attempts and an ApplicationMaster each) and its client. Pure."""
    steps: dict[tuple[str, str], list[JobProfile]] = {}
    for p in profiles:
        if p.machine_cpu_s is not None and p.machine_wall_s is not None and p.run.block is not None:
            steps.setdefault((p.run.run_id, p.step), []).append(p)
    out = []
    for (_, step), ps in sorted(steps.items()):
        first = ps[0]
        tasks = sum((p.counters.launched_maps or 0) + (p.counters.launched_reduces or 0) for p in ps)
        jvms = tasks + len(ps) + CLIENTS_PER_STEP
        times = [p.job_time_s for p in ps]
        job_time = sum(times) if all(t is not None for t in times) else None
        out.append(
            Job(
                first.run.platform,
                first.run.block,
                step,
                first.machine_cpu_s,
                first.machine_wall_s,
                jvms,
                job_time,
                first.machine_kernel_cpu_s,
            )
        )
    return out


def _kernel(row) -> float | None:
    """A sample row's kernel CPU-seconds; None where the campaign predates them."""
    v = row.get(MACHINE_KERNEL_FIELD)
    return None if v is None or v != v else float(v)


def measured(samples: pd.DataFrame, fields: Sequence[str]) -> pd.DataFrame:
    """The samples that carry every one of `fields` (machine stamps), warm-up runs left out; none
    where a field was never stamped."""
    if not all(f in samples for f in fields):
        return samples[:0]
    out = samples.dropna(subset=list(fields))
    if "warmup" in out:
        out = out[out["warmup"].fillna(False) != True]  # noqa: E712 (a column of objects)
    return out


def read(path: Path) -> tuple[list[Span], list[Job], dict[tuple[str, int], StartCost]]:
    """The clientjvm spans, the priced jobs and the machine CPU per JVM start (`start_cpu_of`; empty
    without a jvmstart calibration) of a campaign directory."""
    camp = load_campaign(path)
    timed = measured(camp.samples, (MACHINE_CPU_FIELD,))
    rows = timed[timed["benchmark"] == clientjvm.NAME]
    spans = [
        Span(
            str(r["platform"]),
            int(r["block"]),
            str(r["step"]),
            float(r[MACHINE_CPU_FIELD]),
            float(r[MACHINE_WALL_FIELD]),
            _kernel(r),
        )
        for _, r in rows.iterrows()
    ]
    starts = timed[(timed["benchmark"] == jvmstart.NAME) & (timed["metric"] == START_METRIC)]
    start_cpu = start_cpu_of(
        (
            str(r["platform"]),
            int(r["block"]),
            float(r["value"]),
            float(r[MACHINE_CPU_FIELD]),
            float(r[MACHINE_WALL_FIELD]),
            _kernel(r),
        )
        for _, r in starts.iterrows()
    )
    return spans, jobs_of(job_profiles(camp)), start_cpu


def task_prices(jobs: Iterable[Job], prices: dict[tuple[str, int], Prices], step: str) -> dict[tuple[str, int], float]:
    """A task JVM's (or ApplicationMaster's) price beyond a client JVM's, per (platform, block),
    from `step`, a job step with no data (MRBench's): what the waiting cluster and its JVMs at the
    client's price leave of its machine CPU, over its JVMs that are not its client. Pure."""
    out = {}
    for j in jobs:
        p = prices.get((j.platform, j.block))
        if j.step == step and p is not None and j.jvms > CLIENTS_PER_STEP:
            sp = split(j, p)
            out[(j.platform, j.block)] = (sp.cpu_s - sp.explained_s) / (j.jvms - CLIENTS_PER_STEP)
    return out


def predicted_cpu_s(job: Job, prices: Prices, task_price_s: float) -> float:
    """The job step's machine CPU as its waiting cluster, its JVMs at a client's price, and its
    JVMs that are not its client at the task price beyond it. Pure."""
    return split(job, prices).explained_s + (job.jvms - CLIENTS_PER_STEP) * task_price_s


@dataclass(frozen=True)
class Prediction:
    """One job step in one block: the platform's machine-CPU ratio to the baseline's, predicted
    (the baseline's measured CPU plus the predicted difference) and measured, and YARN's job-time
    ratio."""

    step: str
    block: int
    predicted_ratio: float
    measured_ratio: float
    job_time_ratio: float | None
    #: The platform's one calibrated number the prediction scaled native's by (r or f), if any.
    scale: float | None = None

    @property
    def error(self) -> float:
        """Predicted over measured, less 1."""
        return self.predicted_ratio / self.measured_ratio - 1


def prediction(mine: Job, base: Job, predicted_ratio: float, scale: float | None = None) -> Prediction:
    """The record of a predicted ratio beside the measured machine-CPU and job-time ratios of the
    platform's job `mine` to the baseline's `base`. Pure."""
    jt = mine.job_time_s / base.job_time_s if mine.job_time_s and base.job_time_s else None
    return Prediction(mine.step, mine.block, predicted_ratio, mine.cpu_s / base.cpu_s, jt, scale)


def predictions(
    jobs: Iterable[Job],
    prices: dict[tuple[str, int], Prices],
    tasks: dict[tuple[str, int], float],
    platform: str,
    baseline: str = "native",
) -> list[Prediction]:
    """Per (step, block) both sides ran and were priced (task price included). Pure."""
    out = []
    for pr in pairs(jobs, prices, platform, baseline):
        tm, tb = tasks.get((platform, pr.block)), tasks.get((baseline, pr.block))
        if tm is None or tb is None or pr.base.cpu_s <= 0:
            continue
        mine, base = pr.mine, pr.base
        diff = predicted_cpu_s(mine, pr.mine_prices, tm) - predicted_cpu_s(base, pr.base_prices, tb)
        out.append(prediction(mine, base, (base.cpu_s + diff) / base.cpu_s))
    return out


@dataclass(frozen=True)
class StartCost:
    """A platform's machine CPU per JVM start in one block, and the kernel's part of it (None: not
    read)."""

    cpu_s: float
    kernel_s: float | None = None


def start_cpu_of(
    rows: Iterable[tuple[str, int, float, float, float, float | None]],
) -> dict[tuple[str, int], StartCost]:
    """Machine CPU-seconds per JVM start per (platform, block), from jvmstart's samples given as
    (platform, block, ms per start, the run's machine CPU s, its wall s, its kernel CPU s or None):
    ms x the run's busy CPUs (and x its busy kernel CPUs), the median over the block's samples. A
    sample without a wall time is left out; the kernel's part only where every sample has it. Pure."""
    groups: dict[tuple[str, int], list[tuple[float, float | None]]] = {}
    for platform, block, ms, cpu_s, wall_s, kernel_s in rows:
        if wall_s > 0:
            per = ms / 1000 / wall_s
            groups.setdefault((platform, block), []).append((per * cpu_s, None if kernel_s is None else per * kernel_s))
    out = {}
    for key, v in groups.items():
        kernels = [k for _, k in v]
        kernel = statistics.median(kernels) if all(k is not None for k in kernels) else None
        out[key] = StartCost(statistics.median(c for c, _ in v), kernel)
    return out


def calibrated_ratio(base: Job, prices: Prices, task_price_s: float, r: float) -> float | None:
    """The platform's machine-CPU ratio to the baseline's on `base`'s step, predicted from the
    baseline's job and prices alone and r, the platform's machine CPU per JVM start over the
    baseline's: the JVMs' part of the baseline's CPU (at the client's and the task's prices) times r,
    what the prices leave of it (the job's own work) unchanged, and the waiting cluster's rate
    times r over a wall time that grows as the machine CPU does (a CPU-bound machine):
    cpu = (left + r x JVMs' part) / (1 - r x rate x wall / cpu_baseline). None where that
    denominator is not positive (the waiting alone would outgrow the machine) or the baseline spent
    no CPU. Pure."""
    jvms_part = base.jvms * prices.jvm_cpu_s + (base.jvms - CLIENTS_PER_STEP) * task_price_s
    left = base.cpu_s - prices.idle_cpus * base.wall_s - jvms_part
    return grown_ratio(base, left + r * jvms_part, r * prices.idle_cpus)


def grown_ratio(base: Job, own_cpu_s: float, waiting_cpus: float) -> float | None:
    """The platform's machine-CPU ratio to the baseline's job `base` when the platform spends
    `own_cpu_s` on the job's own work and its waiting cluster keeps `waiting_cpus` busy over a wall
    time that grows as the machine CPU does (a CPU-bound machine): cpu = own / (1 - waiting x the
    baseline's wall / its CPU). None where that denominator is not positive (the waiting alone would
    outgrow the machine) or the baseline spent no CPU. Pure."""
    if base.cpu_s <= 0:
        return None
    denominator = 1 - waiting_cpus * base.wall_s / base.cpu_s
    if denominator <= 0:
        return None
    return own_cpu_s / denominator / base.cpu_s


def calibrated_predictions(
    jobs: Iterable[Job],
    prices: dict[tuple[str, int], Prices],
    tasks: dict[tuple[str, int], float],
    starts: dict[tuple[str, int], StartCost],
    platform: str,
    baseline: str = "native",
) -> list[Prediction]:
    """Per (step, block) both sides ran, the baseline priced (task price included) and both
    calibrated: the platform's prices and JVMs are not read, only its measured ratios to compare
    with. Pure."""
    out = []
    for mine, base in side_by_side(jobs, platform, baseline):
        pb, tb = prices.get((baseline, base.block)), tasks.get((baseline, base.block))
        sm, sb = starts.get((platform, base.block)), starts.get((baseline, base.block))
        if pb is None or tb is None or not sm or not sb:
            continue
        r = sm.cpu_s / sb.cpu_s
        got = calibrated_ratio(base, pb, tb, r)
        if got is not None:
            out.append(prediction(mine, base, got, r))
    return out


def report(
    spans: Sequence[Span],
    jobs: Sequence[Job],
    platform: str,
    baseline: str = "native",
    task_step: str | None = None,
    starts: dict[tuple[str, int], StartCost] | None = None,
) -> str:
    """The prices per block, each step's explained fraction per platform, and the shares. Pure."""
    prices = prices_of(spans)
    lines = ["prices (per block): platform  block  waiting cluster (CPUs)  a client JVM's own CPU (s)"]
    for (plat, block), p in sorted(prices.items()):
        lines.append(f"  {plat:<10}{block:>5}{p.idle_cpus:>24.3f}{p.jvm_cpu_s:>28.2f}")
    lines.append(
        "explained fraction of each step's machine CPU (medians over blocks): step  platform  CPU s  explained"
    )
    steps = sorted({j.step for j in jobs})
    for step in steps:
        for plat in (baseline, platform):
            got = [
                (j, split(j, prices[(j.platform, j.block)]))
                for j in jobs
                if j.step == step and j.platform == plat and (j.platform, j.block) in prices
            ]
            if got:
                cpu = statistics.median(sp.cpu_s for _, sp in got)
                frac = statistics.median(sp.explained_s / sp.cpu_s for _, sp in got if sp.cpu_s > 0)
                lines.append(f"  {step:<14}{plat:<10}{cpu:>8.1f}{frac:>10.2f}")
    lines.append(
        f"{platform}'s extra over {baseline}: step  extra CPU s  waiting part  JVMs part  share (blocks)  median"
    )
    all_shares = shares(jobs, prices, platform, baseline)
    for step in steps:
        mine = [s for s in all_shares if s.step == step]
        if not mine:
            continue
        extra = statistics.median(s.extra_cpu_s for s in mine)
        waiting = statistics.median(s.waiting_s for s in mine)
        jvm = statistics.median(s.jvms_s for s in mine)
        per = ", ".join(f"{s.share:.2f}" for s in sorted(mine, key=lambda s: s.block))
        lines.append(
            f"  {step:<14}{extra:>8.1f}{waiting:>10.1f}{jvm:>10.1f}   ({per})  {statistics.median(s.share for s in mine):.2f}"
        )
    if task_step is not None:
        tasks = task_prices(jobs, prices, task_step)
        lines.append(f"a task JVM's price beyond a client JVM's, from {task_step} (per block): platform  block  s")
        for (plat, block), t in sorted(tasks.items()):
            lines.append(f"  {plat:<10}{block:>5}{t:>8.2f}")
        lines.append(
            f"{platform}'s machine-CPU ratio to {baseline}, with the task price: step  block  predicted  measured  "
            "error  job-time ratio"
        )
        for pr in predictions(jobs, prices, tasks, platform, baseline):
            if pr.step == task_step:
                continue  # the step the task price came from predicts itself
            jt = f"{pr.job_time_ratio:.2f}" if pr.job_time_ratio is not None else "-"
            lines.append(
                f"  {pr.step:<14}{pr.block:>5}{pr.predicted_ratio:>11.2f}{pr.measured_ratio:>10.2f}{pr.error:>+8.1%}{jt:>8}"
            )
        if starts:
            lines += calibrated_lines(jobs, prices, tasks, starts, platform, baseline)
    return "\n".join(lines)


def calibrated_lines(
    jobs: Sequence[Job],
    prices: dict[tuple[str, int], Prices],
    tasks: dict[tuple[str, int], float],
    starts: dict[tuple[str, int], StartCost],
    platform: str,
    baseline: str,
) -> list[str]:
    """The report's part without the platform's Hadoop: r per block beside each price's own ratio,
    and each step's calibrated prediction. Pure."""
    lines = [
        f"machine CPU per JVM start (jvmstart) and {platform}'s prices over {baseline}'s: block  "
        f"{baseline} s  {platform} s  r  waiting  client JVM  task JVM"
    ]
    for block in sorted({b for _, b in starts}):
        sb, sm = starts.get((baseline, block)), starts.get((platform, block))
        if not sb or not sm:
            continue
        pb, pm = prices.get((baseline, block)), prices.get((platform, block))
        tb, tm = tasks.get((baseline, block)), tasks.get((platform, block))
        each = [
            f"{a / b:.2f}" if a is not None and b else "-"
            for a, b in (
                (pm and pm.idle_cpus, pb and pb.idle_cpus),
                (pm and pm.jvm_cpu_s, pb and pb.jvm_cpu_s),
                (tm, tb),
            )
        ]
        r = sm.cpu_s / sb.cpu_s
        lines.append(f"  {block:>5}{sb.cpu_s:>8.3f}{sm.cpu_s:>8.3f}{r:>6.2f}  " + "  ".join(f"{e:>8}" for e in each))
    lines.append(
        f"{platform}'s machine-CPU ratio to {baseline} from {baseline}'s prices and r alone: step  block  r  "
        "predicted  measured  error  job-time ratio  error"
    )
    for pr in calibrated_predictions(jobs, prices, tasks, starts, platform, baseline):
        jt = f"{pr.job_time_ratio:.2f}{pr.predicted_ratio / pr.job_time_ratio - 1:>+8.1%}" if pr.job_time_ratio else "-"
        lines.append(
            f"  {pr.step:<14}{pr.block:>5}{pr.scale:>6.2f}{pr.predicted_ratio:>11.2f}{pr.measured_ratio:>10.2f}"
            f"{pr.error:>+8.1%}  {jt}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("campaign", type=Path)
    ap.add_argument("--platform", default="gvisor")
    ap.add_argument("--baseline", default="native")
    ap.add_argument("--task-step", help="a job step with no data (mrbench) to price a task JVM beyond a client JVM")
    args = ap.parse_args(argv)
    spans, jobs, starts = read(args.campaign)
    print(report(spans, jobs, args.platform, args.baseline, args.task_step, starts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

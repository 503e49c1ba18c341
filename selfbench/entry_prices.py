"""gVisor's machine CPU on each Hadoop job predicted from native's counted kernel entries, each at the
price two micro-benchmarks show on each platform (issue #53; costs-entries-gvisor's rule).

costs-jvm-kernel-gvisor: native's kernel time times a JVM start's factor under-predicts gVisor; a
JVM start's whole ratio over-predicts it (costs-jvm-suite-gvisor). gVisor's Sentry serves each
system call and each fault at its own price, whatever native's kernel spent on it. So, per block,
from the machine's busy CPU and its kernel entries over each run (`machine_syscalls`,
`machine_faults`: vbench.monitor.kernel_entries; a design with `count_syscalls`):

- a system call's machine CPU on each platform (`syscall`: dd's ns per call x its run's busy CPUs,
  the median), and ds, the platform's extra per call over native's;
- a JVM start's machine CPU on each platform (`jvmstart`, the same) and native's calls and faults
  per start (each run's count per wall second x the time per start, the median); df, the
  platform's extra per fault: what the start costs the platform beyond native's and beyond its
  calls at ds, over native's faults per start;
- native's waiting cluster (clientjvm's `idle` step: CPUs, calls and faults per second) and each
  native job step's own work (the step less the waiting cluster over its wall time), each priced:
  CPU + calls x ds + faults x df;
- the platform's CPU = own work / (1 - the waiting cluster's priced CPUs x native's wall / native's
  CPU): the wall time grows with the CPU (jvm_share.grown_ratio).

The platform's jobs are read only to compare. Beside: each step's predicted extra split into its
calls' and faults' parts; the client JVM predicted the same way; the prices a least-squares fit of
the platform's extra CPU on native's calls and faults over the job steps gives (an explanation from
the jobs, not a prediction); native's context switches per step.

`--calls` prices a call otherwise (CALL_RULES, costs-entries-rpc-gvisor's rules): by dd's wall
time per call, or by a JVM's loopback RPC (`rpc`: its machine CPU per round trip over native's
counted calls per round trip).

Reads a committed campaign; runs nothing.

    cd <repository> && python -m selfbench.entry_prices data/raw/costs-entries-gvisor
    cd <repository> && python -m selfbench.entry_prices data/raw/costs-entries-rpc-gvisor --calls rpc_cpu
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from selfbench.jvm_share import Job, Prediction, grown_ratio, jobs_of, measured, prediction, side_by_side
from vbench.benchmarks.hadoop import clientjvm
from vbench.benchmarks.micro import jvmstart, rpc, syscall
from vbench.samples import (
    MACHINE_CPU_FIELD,
    MACHINE_FAULTS_FIELD,
    MACHINE_SWITCHES_FIELD,
    MACHINE_SYSCALLS_FIELD,
    MACHINE_WALL_FIELD,
)
from vbench.stats.campaign import load_campaign
from vbench.stats.profile import job_profiles

START_METRIC = "jvm_start_ms"
CALL_METRIC = "syscall_ns"
RPC_METRIC = "rpc_us"
#: How a system call is priced on each platform: `dd_cpu`, dd's machine CPU per call
#: (costs-entries-gvisor's rule); `dd_wall`, dd's wall time per call; `rpc_cpu`, a JVM's loopback
#: RPC's machine CPU per round trip over the baseline's counted calls per round trip
#: (costs-entries-rpc-gvisor's two rules).
CALL_RULES = ("dd_cpu", "dd_wall", "rpc_cpu")
#: The job steps the design judges, as jvm_share names them.
JUDGED = ("wordcount", "create_write", "open_read", "write", "terasort")


@dataclass(frozen=True)
class Counted:
    """One span on one platform in one block: the machine's CPU-seconds and wall seconds over it,
    and its system calls, page faults and context switches."""

    platform: str
    block: int
    step: str
    cpu_s: float
    wall_s: float
    syscalls: float
    faults: float
    switches: float


@dataclass(frozen=True)
class Rates:
    """A span's CPU and entries per second of wall time (a waiting cluster), or per one operation."""

    cpu: float
    syscalls: float
    faults: float


@dataclass(frozen=True)
class EntryPrices:
    """A platform's extra machine CPU-seconds over the baseline's per system call and per fault."""

    call_s: float
    fault_s: float


def per_operation(rows: Iterable[tuple[str, int, float, float, float, float, float]]) -> dict[tuple[str, int], Rates]:
    """Each (platform, block)'s machine CPU, calls and faults per operation, from a micro-benchmark's
    samples given as (platform, block, seconds per operation, the run's machine CPU s, wall s,
    calls, faults): the seconds x the run's busy CPUs (and x its calls and faults per wall second),
    the median over the block's samples. A sample without a wall time is left out. Pure."""
    groups: dict[tuple[str, int], list[Rates]] = {}
    for platform, block, secs, cpu_s, wall_s, calls, faults in rows:
        if wall_s > 0:
            per = secs / wall_s
            groups.setdefault((platform, block), []).append(Rates(per * cpu_s, per * calls, per * faults))
    return {
        key: Rates(*(statistics.median(getattr(r, f) for r in v) for f in ("cpu", "syscalls", "faults")))
        for key, v in groups.items()
    }


def entry_prices(call_base: Rates, call_mine: Rates, start_base: Rates, start_mine: Rates) -> EntryPrices | None:
    """ds from a system call on both platforms; df from a JVM start's extra beyond its calls at ds,
    over the baseline's faults per start. None where the baseline's start made no fault. Pure."""
    ds = call_mine.cpu - call_base.cpu
    if start_base.faults <= 0:
        return None
    df = (start_mine.cpu - start_base.cpu - start_base.syscalls * ds) / start_base.faults
    return EntryPrices(ds, df)


def priced(cpu: float, calls: float, faults: float, prices: EntryPrices) -> float:
    """A baseline's CPU with its calls and faults each at the platform's extra price. Pure."""
    return cpu + calls * prices.call_s + faults * prices.fault_s


def waiting_of(spans: Iterable[Counted]) -> dict[tuple[str, int], Rates]:
    """Each (platform, block)'s waiting cluster per second, from clientjvm's idle steps. Pure."""
    groups: dict[tuple[str, int], list[Counted]] = {}
    for s in spans:
        if s.step == clientjvm.IDLE_STEP and s.wall_s > 0:
            groups.setdefault((s.platform, s.block), []).append(s)
    out = {}
    for key, v in groups.items():
        wall = sum(s.wall_s for s in v)
        out[key] = Rates(
            sum(s.cpu_s for s in v) / wall, sum(s.syscalls for s in v) / wall, sum(s.faults for s in v) / wall
        )
    return out


def own_work(step: Counted, waiting: Rates) -> Rates:
    """A step's CPU and entries less its waiting cluster's over its wall time. Pure."""
    return Rates(
        step.cpu_s - waiting.cpu * step.wall_s,
        step.syscalls - waiting.syscalls * step.wall_s,
        step.faults - waiting.faults * step.wall_s,
    )


def client_price(spans: Iterable[Counted], platform: str, block: int) -> Rates | None:
    """A client JVM's own CPU and entries on one platform in one block: the median over clientjvm's
    JVM steps of each less the waiting cluster over its wall time. None without both. Pure."""
    spans = [s for s in spans if (s.platform, s.block) == (platform, block)]
    w = waiting_of(spans).get((platform, block))
    jvms = [s for s in spans if s.step.startswith(clientjvm.JVM_STEP_PREFIX)]
    if w is None or not jvms:
        return None
    own = [own_work(s, w) for s in jvms]
    return Rates(*(statistics.median(getattr(o, f) for o in own) for f in ("cpu", "syscalls", "faults")))


def predicted_ratio(job: Job, step: Counted, waiting: Rates, prices: EntryPrices) -> float | None:
    """The platform's machine-CPU ratio to the baseline's on one step, by the module's rule. Pure."""
    own = own_work(step, waiting)
    return grown_ratio(
        job,
        priced(own.cpu, own.syscalls, own.faults, prices),
        priced(waiting.cpu, waiting.syscalls, waiting.faults, prices),
    )


@dataclass(frozen=True)
class Campaign:
    """What the reading needs of a campaign: every counted span, its jobs, and per (platform,
    block) a system call's and a JVM start's machine CPU and entries."""

    spans: list[Counted]
    jobs: list[Job]
    calls: dict[tuple[str, int], Rates]
    starts: dict[tuple[str, int], Rates]
    #: dd's wall seconds per call, and a JVM's loopback RPC's machine CPU, calls and faults per round
    #: trip, per (platform, block); empty where not calibrated.
    call_walls: dict[tuple[str, int], float] = field(default_factory=dict)
    rpcs: dict[tuple[str, int], Rates] = field(default_factory=dict)

    def span(self, platform: str, block: int, step: str) -> Counted | None:
        return next((s for s in self.spans if (s.platform, s.block, s.step) == (platform, block, step)), None)


def call_rates(c: Campaign, rule: str, baseline: str) -> dict[tuple[str, int], Rates]:
    """A system call's price on each (platform, block) by `rule` (CALL_RULES), as the CPU of one
    call: the differences of two platforms' are ds. Pure."""
    if rule == "dd_cpu":
        return c.calls
    if rule == "dd_wall":
        return {k: Rates(w, 1.0, 0.0) for k, w in c.call_walls.items()}
    if rule == "rpc_cpu":
        calls = {b: r.syscalls for (p, b), r in c.rpcs.items() if p == baseline and r.syscalls > 0}
        return {(p, b): Rates(r.cpu / calls[b], 1.0, 0.0) for (p, b), r in c.rpcs.items() if b in calls}
    raise ValueError(f"unknown call rule {rule!r}: one of {', '.join(CALL_RULES)}")


def prices_by_block(c: Campaign, platform: str, baseline: str, rule: str = "dd_cpu") -> dict[int, EntryPrices]:
    calls = call_rates(c, rule, baseline)
    out = {}
    for block in sorted({b for _, b in c.starts}):
        keys = [(baseline, block), (platform, block)]
        if all(k in calls and k in c.starts for k in keys):
            got = entry_prices(calls[keys[0]], calls[keys[1]], c.starts[keys[0]], c.starts[keys[1]])
            if got is not None:
                out[block] = got
    return out


@dataclass(frozen=True)
class Row:
    """One step's prediction, with the predicted extra CPU-seconds its calls and its faults make."""

    prediction: Prediction
    calls_extra_s: float
    faults_extra_s: float
    switches: float


def rows(c: Campaign, platform: str, baseline: str = "native", rule: str = "dd_cpu") -> list[Row]:
    """Per (step, block) both sides ran with counted entries, the baseline's waiting cluster and
    both calibrations, a call priced by `rule`. Pure."""
    prices, waiting = prices_by_block(c, platform, baseline, rule), waiting_of(c.spans)
    out = []
    for mine, base in side_by_side(c.jobs, platform, baseline):
        p, w, step = (
            prices.get(base.block),
            waiting.get((baseline, base.block)),
            c.span(baseline, base.block, base.step),
        )
        if p is None or w is None or step is None:
            continue
        got = predicted_ratio(base, step, w, p)
        if got is not None:
            out.append(
                Row(prediction(mine, base, got), step.syscalls * p.call_s, step.faults * p.fault_s, step.switches)
            )
    return out


def fitted_prices(pairs: Iterable[tuple[Counted, float]]) -> EntryPrices | None:
    """The per-call and per-fault prices a least-squares fit (no intercept) of the platform's extra
    CPU-seconds on the baseline's calls and faults gives, from (baseline's step, platform's CPU s)
    pairs: an explanation from the jobs, not a prediction. None with fewer than two pairs. Pure."""
    pairs = list(pairs)
    if len(pairs) < 2:
        return None
    x = np.array([[s.syscalls, s.faults] for s, _ in pairs], dtype=float)
    y = np.array([cpu - s.cpu_s for s, cpu in pairs], dtype=float)
    (a, b), *_ = np.linalg.lstsq(x, y, rcond=None)
    return EntryPrices(float(a), float(b))


def verdict(errors: Sequence[float], within: float = 0.15, off: float = 0.25) -> str:
    """The design's rule per step: held if every block is within 15 %; rejected if 2 or more blocks
    are more than 25 % off; else neither. Pure."""
    if errors and all(abs(e) <= within for e in errors):
        return "held"
    if sum(abs(e) > off for e in errors) >= 2:
        return "rejected"
    return "neither"


def _counted(r) -> Counted:
    return Counted(
        str(r["platform"]),
        int(r["block"]),
        str(r["step"]),
        float(r[MACHINE_CPU_FIELD]),
        float(r[MACHINE_WALL_FIELD]),
        float(r[MACHINE_SYSCALLS_FIELD]),
        float(r[MACHINE_FAULTS_FIELD]),
        float(r[MACHINE_SWITCHES_FIELD]),
    )


def read(path: Path) -> Campaign:
    """A campaign directory's counted spans (Hadoop steps and clientjvm's, one per platform, block
    and step), its jobs, and its micro-benchmarks' rates per operation."""
    camp = load_campaign(path)
    fields = (MACHINE_CPU_FIELD, MACHINE_WALL_FIELD, MACHINE_SYSCALLS_FIELD, MACHINE_FAULTS_FIELD)
    if not all(f in camp.samples for f in fields):
        raise SystemExit(f"{path}: its samples carry no counted kernel entries (a design with count_syscalls)")
    counted = measured(camp.samples, fields)
    hadoop = counted[counted["step"].notna() & ~counted["benchmark"].isin([jvmstart.NAME, syscall.NAME, rpc.NAME])]
    spans = [_counted(r) for _, r in hadoop.drop_duplicates(["platform", "block", "step"]).iterrows()]

    def rates(bench: str, metric: str, unit_s: float) -> dict[tuple[str, int], Rates]:
        rows_ = counted[(counted["benchmark"] == bench) & (counted["metric"] == metric)]
        return per_operation(
            (
                str(r["platform"]),
                int(r["block"]),
                float(r["value"]) * unit_s,
                float(r[MACHINE_CPU_FIELD]),
                float(r[MACHINE_WALL_FIELD]),
                float(r[MACHINE_SYSCALLS_FIELD]),
                float(r[MACHINE_FAULTS_FIELD]),
            )
            for _, r in rows_.iterrows()
        )

    dd = counted[(counted["benchmark"] == syscall.NAME) & (counted["metric"] == CALL_METRIC)]
    walls = {(str(p), int(b)): float(g["value"].median()) * 1e-9 for (p, b), g in dd.groupby(["platform", "block"])}
    return Campaign(
        spans,
        jobs_of(job_profiles(camp)),
        rates(syscall.NAME, CALL_METRIC, 1e-9),
        rates(jvmstart.NAME, START_METRIC, 1e-3),
        walls,
        rates(rpc.NAME, RPC_METRIC, 1e-6),
    )


def report(c: Campaign, platform: str, baseline: str, rule: str = "dd_cpu") -> str:
    """The prices per block, each step's row, the verdicts, then what is read beside. Pure."""
    lines = [
        f"a call priced by {rule}; per block: a system call's price us ({baseline}, {platform}); a JVM start's machine "
        f"CPU s ({baseline}, {platform}) and {baseline}'s calls and faults per start; ds us, df us"
    ]
    prices, calls = prices_by_block(c, platform, baseline, rule), call_rates(c, rule, baseline)
    for block, p in prices.items():
        cb, cm = calls[(baseline, block)], calls[(platform, block)]
        sb, sm = c.starts[(baseline, block)], c.starts[(platform, block)]
        lines.append(
            f"  {block}: {cb.cpu * 1e6:.3f}, {cm.cpu * 1e6:.2f};  {sb.cpu:.4f}, {sm.cpu:.4f}, {sb.syscalls:.0f} calls, "
            f"{sb.faults:.0f} faults;  ds {p.call_s * 1e6:.2f}, df {p.fault_s * 1e6:.2f}"
        )
    waiting = waiting_of(c.spans)
    for block in sorted({b for _, b in waiting}):
        w = waiting.get((baseline, block))
        if w is not None:
            lines.append(
                f"  {baseline}'s waiting cluster, block {block}: {w.cpu:.3f} CPUs, {w.syscalls:.0f} calls/s, "
                f"{w.faults:.0f} faults/s"
            )
    lines.append(
        f"{platform}'s machine-CPU ratio to {baseline}: step  block  predicted  measured  error  job-time ratio  error;"
        f"  predicted extra CPU s from calls, from faults; {baseline}'s calls, faults, switches"
    )
    got = rows(c, platform, baseline, rule)
    for r in got:
        p = r.prediction
        step = c.span(baseline, p.block, p.step)
        jt = f"{p.job_time_ratio:.2f}{p.predicted_ratio / p.job_time_ratio - 1:>+8.1%}" if p.job_time_ratio else "-"
        lines.append(
            f"  {p.step:<14}{p.block:>5}{p.predicted_ratio:>11.2f}{p.measured_ratio:>10.2f}{p.error:>+8.1%}  {jt};"
            f"  {r.calls_extra_s:.2f}, {r.faults_extra_s:.2f};  {step.syscalls:.0f}, {step.faults:.0f}, {r.switches:.0f}"
        )
    lines.append("verdicts (design rule 2):")
    verdicts = {}
    for name in JUDGED:
        errors = [r.prediction.error for r in got if r.prediction.step == name]
        verdicts[name] = verdict(errors) if errors else "no rows"
        lines.append(f"  {name:<14}{verdicts[name]:<10}" + " ".join(f"{e:+.1%}" for e in errors))
    n_held = sum(v == "held" for v in verdicts.values())
    n_rejected = sum(v == "rejected" for v in verdicts.values())
    whole = "held" if n_held >= 4 else "rejected" if n_rejected >= 3 else "neither"
    lines.append(f"  the suite: {whole} ({n_held} held, {n_rejected} rejected of {len(JUDGED)})")
    lines.append(f"beside: a client JVM's own machine CPU s ({baseline}; {platform} predicted, measured)")
    for block, p in prices.items():
        base, got_ = client_price(c.spans, baseline, block), client_price(c.spans, platform, block)
        if base is not None and got_ is not None:
            lines.append(
                f"  {block}: {base.cpu:.2f} ({base.syscalls:.0f} calls, {base.faults:.0f} faults); "
                f"{priced(base.cpu, base.syscalls, base.faults, p):.2f}, {got_.cpu:.2f}"
            )
    mine = {(j.block, j.step): j for j in c.jobs if j.platform == platform}
    pairs = [
        (s, mine[(s.block, s.step)].cpu_s)
        for s in c.spans
        if s.platform == baseline and s.step in JUDGED and (s.block, s.step) in mine
    ]
    fit = fitted_prices(pairs)
    if fit is not None:
        lines.append(
            f"beside: least squares of {platform}'s extra CPU on {baseline}'s calls and faults over {len(pairs)} job "
            f"steps: {fit.call_s * 1e6:.2f} us per call, {fit.fault_s * 1e6:.2f} us per fault"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("campaign", type=Path)
    ap.add_argument("--platform", default="gvisor")
    ap.add_argument("--baseline", default="native")
    ap.add_argument("--calls", choices=CALL_RULES, default="dd_cpu", help="how a system call is priced")
    args = ap.parse_args(argv)
    print(report(read(args.campaign), args.platform, args.baseline, args.calls))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

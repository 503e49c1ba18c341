"""The quiet-machine gate (issue #18): before each round, is this machine fit to measure on?

A campaign measured while other work loads the machine reports that work as platform overhead
or as noise (the reference campaign of 2026-11-22, since replaced: sysbench CPU CV 16-28 % under load, 1-3 % idle).
Before each round the gate reads what the inventory checks read (vbench.inventory.checks: load,
swap, governor, transparent huge pages, with their parsers), CPU steal over a short window (the
/proc/stat cpu line, with the monitor's parser), the memory available, and the CPU used over the
same window by every process that is not the caller's (`own`: the controller and the testbed's
processes, which the runner knows): a busy neighbour is the usual reason a laptop or a shared
server measures badly, and the load average cannot tell it from the testbed's own last round.

Two readings look for what neither the load nor the outside CPU shows. The CPU probe times a
fixed piece of work (`cpu_probe_ms`): a machine that is itself a VM can lose CPU to a neighbour
on its host (a shared core, cache or memory bus) that the hypervisor never reports as steal, and
then every run is slower, the testbed's own included (xavier2014-warm's block 9, 2026-11-25: the
native session's TeraSort took twice the CPU time of every other block's, with no steal and no
reclaim). The probe is judged against the median of this campaign run's earlier probes taken on
a quiet machine (`max_cpu_slowdown`), and against this machine's reference from the campaigns
recorded beside this one (`max_machine_slowdown`: vbench.campaign.machine_ref), which a slow day
cannot move. The dirty page cache (Dirty + Writeback) says whether the previous
session's writes are still going to disk (`max_dirty_mb`). `every: session` gates before each
session (each configuration's fresh testbed), not only before each round, so a slow spell that
starts within a block is caught before the next platform comes up.

The design says what to do (`quiet:` in the experiment): `flag` (the default) records the
readings and a verdict on every sample of the round; `wait` re-checks every `retry_s` until the
machine is quiet or `max_wait_s` have passed (then it flags); `off` reads nothing. Verdicts:
`ok`, `waited` (quiet after waiting), `flagged`, `off`. The statistics count the runs taken on a
flagged machine.

It reads the machine it runs on: the local testbed's hosts share this kernel. An inventory's
hosts are read over SSH by vbench.campaign.quiet_remote, with the same parsers and rules.
The parsing and judging are pure functions over /proc text; `read_state` and `measure` are the
thin part that reads the machine.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from vbench.campaign.machine_ref import ProbeReference
from vbench.inventory.checks import NOT_EXPOSED, parse_governor, parse_loadavg, parse_swaps, parse_thp
from vbench.monitor.sampler import parse_cpu_line
from vbench.samples import QUIET_CPU_PROBE, QUIET_MACHINE_PROBE, QUIET_VERDICT
from vbench.testbed.local import testbed_pids
from vbench.testbed.owned import parse_start_time

OK, WAITED, FLAGGED, OFF = "ok", "waited", "flagged", "off"
#: How many of the busiest outside processes a record names.
TOP_OUTSIDE = 3


class QuietParams(BaseModel):
    """`quiet:` in an experiment: when the machine counts as quiet, and what to do when it is not."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["flag", "wait", "off"] = "flag"
    #: Length of the window over which CPU use (outside processes, steal) is measured, s.
    window_s: float = Field(2.0, gt=0, le=60)
    #: CPU used by processes outside the testbed and the controller, in % of one CPU (as top
    #: counts: two busy cores are 200).
    max_outside_cpu_pct: float = Field(25.0, ge=0)
    #: CPU time stolen by a hypervisor from this machine, % of its CPU time in the window.
    max_steal_pct: float = Field(5.0, ge=0, le=100)
    #: 1-minute load average per CPU. Off by default: the load average still holds the
    #: testbed's own previous round for a minute or more, so it cannot say who loads the machine.
    max_load_per_cpu: float | None = Field(None, ge=0)
    #: Swap in use, MiB (None: recorded, not judged).
    max_swap_used_mb: int | None = Field(None, ge=0)
    #: MemAvailable below this is a reason (the page cache a run needs is gone).
    min_free_memory_mb: int = Field(512, ge=0)
    #: Accepted CPU frequency governors / THP settings (None: recorded, not judged).
    governors: tuple[str, ...] | None = None
    thp: tuple[str, ...] | None = None
    #: mode wait: give up (and flag) after this long; re-check every retry_s.
    max_wait_s: float = Field(300.0, ge=0)
    retry_s: float = Field(10.0, gt=0)
    #: When the gate checks: before each round (as before), or before each session: every
    #: configuration's fresh testbed, before it comes up (the gate's stamp then goes on that
    #: session's runs).
    every: Literal["round", "session"] = "round"
    #: The CPU probe slower than the median of the campaign run's quiet probes by more than this
    #: share (0.2: 20 %) is a reason (None: recorded, not judged).
    max_cpu_slowdown: float | None = Field(None, gt=0, le=10)
    #: The CPU probe slower than this machine's reference (the median of the campaigns recorded
    #: beside this one on the same CPU model: vbench.campaign.machine_ref) by more than this share
    #: is a reason (None: recorded, not judged). A slow day lasts hours: with `wait` every round
    #: waits `max_wait_s` and is flagged, so `flag` is the mode that goes with it.
    max_machine_slowdown: float | None = Field(None, gt=0, le=10)
    #: Dirty + Writeback page cache above this, MiB, is a reason (None: recorded, not judged).
    max_dirty_mb: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _wait_limit(self) -> "QuietParams":
        if self.mode == "wait" and self.max_wait_s <= 0:
            raise ValueError("max_wait_s: mode wait needs a positive limit (or use mode flag)")
        return self


@dataclass(frozen=True)
class ProcTimes:
    """One process as /proc/<pid>/stat gives it."""

    comm: str
    ppid: int
    cpu_ticks: int  # utime + stime, clock ticks (all threads)
    start: int  # start time, clock ticks after boot: tells a reused pid apart


@dataclass(frozen=True)
class MachineState:
    """The text of the files the gate reads, at one moment."""

    loadavg: str
    swaps: str
    meminfo: str
    governor: str
    thp: str
    cpu_line: str  # the aggregate line of /proc/stat
    procs: str  # every /proc/<pid>/stat, one per line
    cpus: int


@dataclass(frozen=True)
class Readings:
    load1: float
    cpus: int
    steal_pct: float | None
    busy_pct: float | None  # the whole machine's non-idle CPU in the window
    swap_used_mb: int
    swap_total_mb: int
    mem_available_mb: int | None
    governor: str
    thp: str
    outside_cpu_pct: float
    #: The busiest outside processes: (pid, name, % of one CPU).
    top_outside: tuple[tuple[int, str, float], ...]
    window_s: float
    #: Dirty + Writeback page cache, MiB (None: not read).
    dirty_mb: int | None = None
    #: The CPU probe's time, ms (None: not run: an inventory host is read over SSH).
    cpu_probe_ms: float | None = None


@dataclass(frozen=True)
class QuietRecord:
    """What the gate found before a round, and what it did."""

    verdict: str  # OK, WAITED, FLAGGED or OFF
    readings: Readings | None = None
    reasons: tuple[str, ...] = ()
    waited_s: float = 0.0
    checks: int = 0
    history: tuple[tuple[str, ...], ...] = field(default=(), repr=False)  # reasons of every check
    #: The probe time the reading was judged against (the median of the run's quiet probes before it).
    probe_ref_ms: float | None = None
    #: This machine's reference for the probe (vbench.campaign.machine_ref), if one was recorded.
    machine_ref_ms: float | None = None

    def line(self) -> str:
        """One line for the terminal."""
        if self.verdict == OFF:
            return "quiet gate: off"
        r = self.readings
        head = f"quiet gate: {self.verdict}"
        if self.verdict == WAITED:
            head += f" after {self.waited_s:.0f} s"
        facts = (
            (
                f"load {r.load1:.2f}, outside CPU {r.outside_cpu_pct:.0f} %, steal {_pct(r.steal_pct)}, "
                f"available {r.mem_available_mb} MiB"
                + (f", dirty {r.dirty_mb} MiB" if r.dirty_mb is not None else "")
                + (
                    f", CPU probe {_probe(r.cpu_probe_ms, self.probe_ref_ms, self.machine_ref_ms)}"
                    if r.cpu_probe_ms is not None
                    else ""
                )
            )
            if r
            else ""
        )
        why = f"; {'; '.join(self.reasons)}" if self.reasons else ""
        return f"{head} ({facts}){why}"


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f} %"


def _probe(ms: float, ref_ms: float | None, machine_ms: float | None = None) -> str:
    against = [f"x{ms / ref_ms:.2f} the run's median"] if ref_ms else []
    against += [f"x{ms / machine_ms:.2f} this machine's reference"] if machine_ms else []
    return f"{ms:.1f} ms" + (f" ({', '.join(against)})" if against else "")


def dirty_mb(mem: dict[str, int]) -> int | None:
    """Dirty + Writeback of a parsed /proc/meminfo, MiB (None: neither there). Pure."""
    if "Dirty" not in mem and "Writeback" not in mem:
        return None
    return (mem.get("Dirty", 0) + mem.get("Writeback", 0)) // 1024


# -- pure parsing and judging ------------------------------------------------------------------


def parse_meminfo(text: str) -> dict[str, int]:
    """/proc/meminfo as {field: kB}. Pure."""
    out = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            out[name.strip()] = int(parts[0])
    return out


def parse_proc_stats(text: str) -> dict[int, ProcTimes]:
    """Every process of a concatenation of /proc/<pid>/stat lines. Pure.

    The name (field 2) is in parentheses and may hold spaces and ')': fields are counted after
    the last ')'. A line cut short (the process ended while it was read) is skipped."""
    out = {}
    for line in text.splitlines():
        head, sep, rest = line.rpartition(")")
        if not sep or "(" not in head:
            continue
        pid_text, _, comm = head.partition(" (")
        f = rest.split()
        try:
            out[int(pid_text)] = ProcTimes(comm, int(f[1]), int(f[11]) + int(f[12]), parse_start_time(line))
        except (ValueError, IndexError):
            continue
    return out


def descendants(roots: Iterable[int], procs: dict[int, ProcTimes]) -> set[int]:
    """`roots` and every process below them. Pure."""
    children: dict[int, list[int]] = {}
    for pid, p in procs.items():
        children.setdefault(p.ppid, []).append(pid)
    found, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        found.add(pid)
        todo += children.get(pid, [])
    return found


def outside_cpu(
    before: dict[int, ProcTimes], after: dict[int, ProcTimes], own: Iterable[int], window_s: float, clk_tck: int
) -> tuple[float, tuple[tuple[int, str, float], ...]]:
    """(% of one CPU used in the window by processes outside `own` and their descendants, the
    busiest of them). A process that started in the window counts whole; one that ended in it
    is not seen (its last moments are lost, a small undercount). Pure."""
    mine = descendants(own, after) | descendants(own, before)
    used = []
    for pid, p in after.items():
        if pid in mine:
            continue
        old = before.get(pid)
        ticks = p.cpu_ticks - old.cpu_ticks if old is not None and old.start == p.start else p.cpu_ticks
        if ticks > 0:
            used.append((pid, p.comm, 100.0 * ticks / clk_tck / window_s))
    used.sort(key=lambda u: (-u[2], u[0]))
    return sum(u[2] for u in used), tuple((pid, comm, round(pct, 1)) for pid, comm, pct in used[:TOP_OUTSIDE])


def cpu_shares(before_line: str, after_line: str) -> tuple[float | None, float | None]:
    """(steal %, busy %) of the machine's CPU time between two /proc/stat cpu lines. Pure."""
    a, b = parse_cpu_line(before_line), parse_cpu_line(after_line)
    d = {k: b[k] - a[k] for k in a}
    total = sum(d.values())
    if total <= 0:
        return None, None
    return 100.0 * d["steal"] / total, 100.0 * (total - d["idle"] - d["iowait"]) / total


def readings_of(
    before: MachineState, after: MachineState, own: Iterable[int], window_s: float, clk_tck: int
) -> Readings:
    """The readings from two states `window_s` apart. Pure."""
    total, used = parse_swaps(after.swaps)
    mem = parse_meminfo(after.meminfo)
    steal, busy = cpu_shares(before.cpu_line, after.cpu_line)
    outside, top = outside_cpu(parse_proc_stats(before.procs), parse_proc_stats(after.procs), own, window_s, clk_tck)
    return Readings(
        load1=parse_loadavg(after.loadavg),
        cpus=after.cpus,
        steal_pct=steal,
        busy_pct=busy,
        swap_used_mb=used,
        swap_total_mb=total,
        mem_available_mb=mem["MemAvailable"] // 1024 if "MemAvailable" in mem else None,
        governor=parse_governor(after.governor),
        thp=parse_thp(after.thp),
        outside_cpu_pct=outside,
        top_outside=top,
        window_s=window_s,
        dirty_mb=dirty_mb(mem),
    )


def judge(
    r: Readings, p: QuietParams, probe_ref_ms: float | None = None, machine_ref_ms: float | None = None
) -> tuple[str, ...]:
    """Every reason the machine is not quiet (none: it is); `probe_ref_ms`: the CPU probe's
    yardstick (the median of the campaign run's quiet probes so far); `machine_ref_ms`: the
    probe's time on this machine in the campaigns recorded beside this one. Pure."""
    reasons = []
    if r.outside_cpu_pct > p.max_outside_cpu_pct:
        who = ", ".join(f"{name}[{pid}] {pct:.0f} %" for pid, name, pct in r.top_outside)
        reasons.append(
            f"processes outside the testbed used {r.outside_cpu_pct:.0f} % of a CPU over {r.window_s:g} s "
            f"(max {p.max_outside_cpu_pct:g}): {who}"
        )
    if r.steal_pct is not None and r.steal_pct > p.max_steal_pct:
        reasons.append(f"CPU steal {r.steal_pct:.1f} % (max {p.max_steal_pct:g})")
    if p.max_load_per_cpu is not None and r.load1 / max(1, r.cpus) > p.max_load_per_cpu:
        reasons.append(f"load average {r.load1:.2f} on {r.cpus} CPUs (max {p.max_load_per_cpu:g}/CPU)")
    if p.max_swap_used_mb is not None and r.swap_used_mb > p.max_swap_used_mb:
        reasons.append(f"{r.swap_used_mb} MiB of swap in use (max {p.max_swap_used_mb})")
    if r.mem_available_mb is not None and r.mem_available_mb < p.min_free_memory_mb:
        reasons.append(f"{r.mem_available_mb} MiB of memory available (min {p.min_free_memory_mb})")
    if (
        p.governors is not None
        and r.governor != NOT_EXPOSED
        and any(g not in p.governors for g in r.governor.split(","))
    ):
        reasons.append(f"CPU frequency governor {r.governor} (accepted: {', '.join(p.governors)})")
    if p.thp is not None and r.thp != NOT_EXPOSED and r.thp not in p.thp:
        reasons.append(f"transparent huge pages '{r.thp}' (accepted: {', '.join(p.thp)})")
    if p.max_dirty_mb is not None and r.dirty_mb is not None and r.dirty_mb > p.max_dirty_mb:
        reasons.append(f"{r.dirty_mb} MiB of dirty page cache not yet written (max {p.max_dirty_mb})")
    for limit, ref_ms, yardstick in (
        (p.max_cpu_slowdown, probe_ref_ms, "this campaign run's median"),
        (p.max_machine_slowdown, machine_ref_ms, "this machine's reference"),
    ):
        if limit is not None and r.cpu_probe_ms is not None and ref_ms and r.cpu_probe_ms / ref_ms - 1 > limit:
            reasons.append(
                f"the CPU probe took {r.cpu_probe_ms:.1f} ms, {100 * (r.cpu_probe_ms / ref_ms - 1):.0f} % over "
                f"{yardstick} {ref_ms:.1f} ms (max {100 * limit:g} %)"
            )
    return tuple(reasons)


def stamp(record: QuietRecord) -> dict[str, object]:
    """The flat fields every sample of the round carries (`quiet.verdict`, `quiet.load1`, ...). Pure."""
    out: dict[str, object] = {QUIET_VERDICT: record.verdict}
    r = record.readings
    if r is None:
        # No readings, but perhaps a reason (an inventory host the gate could not read).
        return {**out, "quiet.reasons": "; ".join(record.reasons)} if record.reasons else out
    out.update(
        {
            "quiet.load1": r.load1,
            "quiet.outside_cpu_pct": round(r.outside_cpu_pct, 1),
            "quiet.top_outside": ", ".join(f"{name}[{pid}] {pct:g} %" for pid, name, pct in r.top_outside),
            "quiet.steal_pct": None if r.steal_pct is None else round(r.steal_pct, 2),
            "quiet.busy_pct": None if r.busy_pct is None else round(r.busy_pct, 1),
            "quiet.mem_available_mb": r.mem_available_mb,
            "quiet.swap_used_mb": r.swap_used_mb,
            "quiet.governor": r.governor,
            "quiet.thp": r.thp,
            "quiet.window_s": r.window_s,
            "quiet.waited_s": round(record.waited_s, 1),
            "quiet.reasons": "; ".join(record.reasons),
        }
    )
    # Readings newer than the gate: only where taken, so older campaigns' records look the same.
    if r.dirty_mb is not None:
        out["quiet.dirty_mb"] = r.dirty_mb
    if r.cpu_probe_ms is not None:
        out[QUIET_CPU_PROBE] = round(r.cpu_probe_ms, 2)
    if record.probe_ref_ms is not None:
        out["quiet.cpu_probe_ref_ms"] = round(record.probe_ref_ms, 2)
    if record.machine_ref_ms is not None:
        out[QUIET_MACHINE_PROBE] = round(record.machine_ref_ms, 2)
    return out


# -- reading the machine -----------------------------------------------------------------------


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text()
    except OSError:  # absent (a VM hides cpufreq), or a process gone between listing and reading
        return ""


def read_state(proc: Path = Path("/proc"), sys: Path = Path("/sys")) -> MachineState:
    """The files the gate reads, now."""
    governors = sorted((sys / "devices/system/cpu").glob("cpu[0-9]*/cpufreq/scaling_governor"))
    stat = _read(proc / "stat")
    procs = [_read(proc / name / "stat") for name in os.listdir(proc) if name.isdigit()]
    return MachineState(
        loadavg=_read(proc / "loadavg"),
        swaps=_read(proc / "swaps"),
        meminfo=_read(proc / "meminfo"),
        governor="".join(_read(g) for g in governors),
        thp=_read(sys / "kernel/mm/transparent_hugepage/enabled"),
        cpu_line=stat.splitlines()[0] if stat else "cpu 0 0 0 0",
        procs="".join(p for p in procs if p),
        cpus=os.cpu_count() or 1,
    )


#: The CPU probe: how many times the work runs (the median counts) and how much work it is
#: (~40 ms of one core here, ~0.2 s in all). On this machine, idle, 20 probes of it spread
#: 38-56 ms (median 1.06x the fastest); 9 tries of a quarter of the work spread 1.8x.
PROBE_TRIES = 5
PROBE_WORK = 600_000


def cpu_probe_ms(
    tries: int = PROBE_TRIES, work: int = PROBE_WORK, clock: Callable[[], float] = time.perf_counter
) -> float:
    """The median time, ms, of `tries` runs of the same integer arithmetic on one thread: what
    the CPU gives this process now. The median, not the fastest: a slow spell lasts minutes, so
    most of the tries fall in it, and one lucky try must not hide it."""
    times = []
    for _ in range(tries):
        t0 = clock()
        acc = 0
        for i in range(work):
            acc ^= (i * 2654435761) & 0xFFFF
        times.append((clock() - t0) * 1000.0)
    return statistics.median(times)


def measure(window_s: float, own: Iterable[int], sleep: Callable[[float], None] = time.sleep) -> Readings:
    """Read the machine, wait `window_s`, read it again; then run the CPU probe (after the
    window, so that its own CPU is not in the window's readings)."""
    before = read_state()
    sleep(window_s)
    after = read_state()
    r = readings_of(before, after, own, window_s, os.sysconf("SC_CLK_TCK"))
    return replace(r, cpu_probe_ms=cpu_probe_ms())


def gate(
    params: QuietParams,
    own: Iterable[int],
    log: Callable[[str], None] = print,
    measure: Callable[[float, Iterable[int]], Readings] = measure,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    probe_ref_ms: float | None = None,
    machine_ref_ms: float | None = None,
) -> QuietRecord:
    """Check the machine before a round, waiting for it to be quiet if the design says so.

    `own`: the pids that are the measurement's own (the controller, the testbed's hosts and
    daemons); their descendants count as own too. `probe_ref_ms`: the CPU probe's yardstick;
    `machine_ref_ms`: its time on this machine in earlier campaigns (vbench.campaign.machine_ref)."""
    if params.mode == OFF:
        return QuietRecord(OFF)
    own = frozenset(own)
    t0 = clock()
    r = measure(params.window_s, own)
    reasons = judge(r, params, probe_ref_ms, machine_ref_ms)
    history = [reasons]
    ref = probe_ref_ms
    if not reasons:
        return QuietRecord(OK, r, (), 0.0, 1, tuple(history), ref, machine_ref_ms)
    if params.mode == "flag":
        return QuietRecord(FLAGGED, r, reasons, 0.0, 1, tuple(history), ref, machine_ref_ms)
    log(f"quiet gate: waiting up to {params.max_wait_s:g} s: {'; '.join(reasons)}")
    while clock() - t0 + params.retry_s <= params.max_wait_s:
        sleep(params.retry_s)
        r = measure(params.window_s, own)
        reasons = judge(r, params, probe_ref_ms, machine_ref_ms)
        history.append(reasons)
        if not reasons:
            return QuietRecord(WAITED, r, (), clock() - t0, len(history), tuple(history), ref, machine_ref_ms)
    waited = clock() - t0
    return QuietRecord(
        FLAGGED,
        r,
        (*reasons, f"still not quiet after waiting {waited:.0f} s"),
        waited,
        len(history),
        tuple(history),
        ref,
        machine_ref_ms,
    )


# -- the gate as the runner's before-round hook --------------------------------------------------


def round_name(info) -> str:
    """How the terminal names what the gate checked: a session's label, else b<block>/r<round>."""
    return getattr(info, "label", None) or f"b{info.block}/r{info.round}"


def controller_and_testbeds(testbeds: Iterable) -> Callable[[], set[int]]:
    """The pids that are the measurement's own, read afresh before each round: this process (the
    controller; its descendants count too) and every process of the testbeds (their network
    namespaces and cgroups: vbench.testbed.local.testbed_pids)."""
    testbeds = list(testbeds)

    def own() -> set[int]:
        pids = {os.getpid()}
        for tb in testbeds:
            pids |= testbed_pids(tb)
        return pids

    return own


class QuietHook:
    """The runner's RoundHooks for the gate: before each round, check the machine (waiting if
    the design says so), say the verdict, and give the fields every sample of the round carries."""

    def __init__(
        self,
        params: QuietParams,
        own: Callable[[], set[int]],
        log: Callable[[str], None] = print,
        gate: Callable[..., QuietRecord] = gate,
        machine_ref: ProbeReference | None = None,
    ):
        self.params, self.own, self.log, self._gate = params, own, log, gate
        #: This machine's probe time in the campaigns beside this one (None: none recorded).
        self.machine_ref = machine_ref
        self.records: list[tuple[int, int, QuietRecord]] = []
        #: The CPU probes of this campaign run taken on a quiet machine; their median is the next
        #: one's yardstick. Not their fastest: one lucky reading would set a bar the machine's own
        #: noise then fails (xavier2014-gated: a 37.6 ms probe among 42-47 ms ones).
        self.quiet_probes: list[float] = []

    @property
    def probe_ref_ms(self) -> float | None:
        """The yardstick of the next CPU probe (None: no quiet probe yet)."""
        return statistics.median(self.quiet_probes) if self.quiet_probes else None

    def before_round(self, info) -> dict[str, object]:
        rec = self._gate(
            self.params,
            self.own(),
            log=self.log,
            probe_ref_ms=self.probe_ref_ms,
            machine_ref_ms=self.machine_ref.median_ms if self.machine_ref else None,
        )
        self.records.append((info.block, info.round, rec))
        probe = rec.readings.cpu_probe_ms if rec.readings is not None else None
        if probe is not None and rec.verdict in (OK, WAITED):
            self.quiet_probes.append(probe)
        if rec.verdict != OFF:
            self.log(f"{round_name(info)}: {rec.line()}")
        return stamp(rec)

    def after_round(self, info) -> str | None:
        return None

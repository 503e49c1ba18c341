"""The quiet gate on an inventory's hosts (issue #18): before each round, every host of the
campaign is read over SSH as vbench.campaign.quiet reads this machine, and judged by the same
rules (`judge`), so that a neighbour's job on a cluster node is recorded (or waited out) like one
on the local machine.

On a remote host the measurement's own processes are the Hadoop daemons vbench started there
(the pids in the pid files it wrote under the host's work dir), everything below them (the YARN
containers), and the reading shell itself; every other process counts as outside. A pid file is
read, never trusted further: a pid whose process is gone simply matches nothing.

The script and its parsing are pure; `measure_host` is the thin part that runs it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

import paramiko

from vbench.each_host import INVENTORY_WORKERS, on_each
from vbench.campaign.quiet import FLAGGED, OFF, OK, WAITED, MachineState, QuietParams, QuietRecord, Readings
from vbench.campaign.quiet import gate as quiet_gate
from vbench.campaign.quiet import readings_of, round_name, stamp
from vbench.hadoop import daemons as dm
from vbench.hadoop.config import HostLayout
from vbench.host import Host, connect
from vbench.inventory.checks import sections

Log = Callable[[str], None]

_SNAPSHOT = (
    "echo @@loadavg; cat /proc/loadavg; "
    "echo @@swaps; cat /proc/swaps 2>/dev/null; "
    "echo @@meminfo; cat /proc/meminfo; "
    "echo @@governor; cat /sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor 2>/dev/null; "
    "echo @@thp; cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; "
    "echo @@cpu; head -n1 /proc/stat; "
    # One stat per line: a process gone between the glob and the read prints nothing.
    'echo @@procs; for f in /proc/[0-9]*/stat; do read -r l < "$f" 2>/dev/null && echo "$l"; done'
)


def state_script(pid_files: Sequence[str], window_s: float) -> str:
    """A shell script printing the host's CPU count, clock tick, own pids and two snapshots of
    what the gate reads, `window_s` apart, as `@@section` blocks. Pure; every path is quoted."""
    files = " ".join(shlex.quote(p) for p in pid_files)
    return "\n".join(
        [
            "echo @@nproc; nproc",
            "echo @@clk_tck; getconf CLK_TCK",
            "echo @@own; echo $$" + (f"; cat {files} 2>/dev/null; echo" if files else ""),
            "echo @@@before",
            _SNAPSHOT,
            f"sleep {float(window_s):g}",
            "echo @@@after",
            _SNAPSHOT,
        ]
    )


def _state(part: str, cpus: int) -> MachineState:
    s = sections(part)
    return MachineState(
        loadavg=s.get("loadavg", ""),
        swaps=s.get("swaps", ""),
        meminfo=s.get("meminfo", ""),
        governor=s.get("governor", ""),
        thp=s.get("thp", ""),
        cpu_line=s.get("cpu", "") or "cpu 0 0 0 0",
        procs=s.get("procs", ""),
        cpus=cpus,
    )


@dataclass(frozen=True)
class HostState:
    before: MachineState
    after: MachineState
    own: frozenset[int]
    clk_tck: int


def parse_state_output(text: str) -> HostState:
    """The output of `state_script`. Pure. Raises ValueError when a part is missing."""
    head, sep1, rest = text.partition("@@@before\n")
    before, sep2, after = rest.partition("@@@after\n")
    if not (sep1 and sep2):
        raise ValueError("the host's state lacks its snapshots")
    s = sections(head)
    cpus = int(s.get("nproc", "1").split()[0])
    clk = int(s.get("clk_tck", "100").split()[0])
    own = frozenset(int(w) for w in s.get("own", "").split() if w.isdigit())
    return HostState(_state(before, cpus), _state(after, cpus), own, clk)


def own_pid_files(host: Host) -> list[str]:
    """The pid files vbench writes for the daemons it starts on this host (by its role)."""
    lay = HostLayout(work_dir=host.work_dir, lib_dir="")
    return [lay.pid_file(d.name) for d in dm.DAEMONS if d.role == host.role]


#: How long the gate waits for a host's SSH answer: a host that does not answer is the
#: configuration's failure to record (its bring-up says so), not a reason to stall every round.
READ_TIMEOUT_S = 10.0

#: What reading a host can fail with: no route or answer, a closed proxy stream, SSH refusing it.
UNREADABLE = (OSError, EOFError, paramiko.SSHException)


def measure_host(host: Host, window_s: float) -> Readings:
    """Read one inventory host over SSH: two snapshots `window_s` apart, judged as the local gate's."""
    conn = connect(host, connect_timeout=READ_TIMEOUT_S)
    # A proxied socket never times out in connect(); bound the banner and the authentication too.
    conn.connect_kwargs.update(banner_timeout=READ_TIMEOUT_S, auth_timeout=READ_TIMEOUT_S)
    with conn as c:
        out = c.run(state_script(own_pid_files(host), window_s), hide=True, warn=True, in_stream=False).stdout
    st = parse_state_output(out)
    return readings_of(st.before, st.after, st.own, window_s, st.clk_tck)


_RANK = {FLAGGED: 3, WAITED: 2, OK: 1, OFF: 0}


def combine(records: dict[str, QuietRecord]) -> tuple[str, QuietRecord]:
    """One record for the round from every host's: the worst verdict (flagged > waited > ok),
    every host's reasons prefixed with its name, and the readings of the host that decided it
    (among equals, the one with the most CPU used outside the measurement). Pure."""
    if not records:
        return "", QuietRecord(OFF)

    def badness(item: tuple[str, QuietRecord]) -> tuple[int, float]:
        name, rec = item
        return _RANK[rec.verdict], rec.readings.outside_cpu_pct if rec.readings else 0.0

    worst_name, worst = max(sorted(records.items()), key=badness)
    reasons = tuple(f"{name}: {why}" for name, rec in sorted(records.items()) for why in rec.reasons)
    return worst_name, replace(
        worst,
        reasons=reasons,
        waited_s=max(r.waited_s for r in records.values()),
        checks=sum(r.checks for r in records.values()),
    )


class InventoryQuietHook:
    """The runner's RoundHooks for the gate on an inventory: before each round every host is read
    (in parallel, each by the design's rules, waiting if it says so); the verdict is the worst one."""

    def __init__(
        self,
        params: QuietParams,
        hosts: Iterable[Host],
        log: Log = print,
        measure: Callable[[Host, float], Readings] = measure_host,
        gate: Callable[..., QuietRecord] = quiet_gate,
    ):
        self.params, self.hosts, self.log = params, list(hosts), log
        self._measure, self._gate = measure, gate
        self.records: list[tuple[int, int, dict[str, QuietRecord]]] = []

    def _one(self, host: Host) -> QuietRecord:
        try:
            return self._gate(
                self.params,
                (),
                log=lambda line: self.log(f"{host.name}: {line}"),
                measure=lambda window_s, _own: self._measure(host, window_s),
            )
        except UNREADABLE as exc:
            # A host that cannot be read has no verdict (OFF ranks below every other): the round's
            # verdict is the readable hosts', and the reason says which host was not read and why.
            return QuietRecord(OFF, reasons=(f"not read over SSH ({type(exc).__name__}: {exc or 'no answer'})",))

    def before_round(self, info) -> dict[str, object]:
        recs = dict(zip((h.name for h in self.hosts), on_each(self._one, self.hosts, workers=INVENTORY_WORKERS)))
        self.records.append((info.block, info.round, recs))
        host, rec = combine(recs)
        self.log(f"{round_name(info)}: on {len(recs)} hosts, readings of {host}: {rec.line()}")
        return {**stamp(rec), "quiet.host": host, "quiet.hosts": len(recs)}

    def after_round(self, info) -> str | None:
        return None

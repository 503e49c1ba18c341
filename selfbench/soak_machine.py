"""The soak's hands and eyes on the machine: what a trial's testbeds recorded, the campaign's
progress seen from outside the runner, and the injectors that strike (issue #52 item 2).

The soak acts as root on a shared machine, so it finds its targets only through what vbench
itself wrote, never by a process's name:

- a testbed's state file (<work_root>/<testbed>/state.json: its namespaces, links, processes
  with their start times, directories, cgroups), the same record `vbench testbed down` removes by;
- a native host's Hadoop pid files (<host work dir>/run/<daemon>.pid), taken only while the pid's
  command line still carries the identity vbench gave that daemon's JVM
  (vbench.hadoop.daemons.identity: its own log directory and file), as vbench's own stop line does;
- the runner: the process the soak started itself.

Every trial has a work root of its own under the soak's directory, so every state file there is
one of its testbeds'.
"""

from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from selfbench import soak_ledger
from selfbench.soak_invariants import MachineView, ProcessRecord, Recorded, recorded_from_state
from selfbench.soak_plan import FaultKind, Observation, Trial, pick_one
from vbench.hadoop import daemons as dm
from vbench.hadoop.config import HostLayout
from vbench.testbed import netcmd, owned, sysops
from vbench.testbed.guest import testbed_cgroup
from vbench.testbed.limits import cgroup_dirs

DAEMON_NAMES = frozenset(d.name for d in dm.DAEMONS)


# --- what the testbeds recorded ------------------------------------------------------------------


def testbed_states(work_root: Path) -> dict[str, dict]:
    """testbed name -> its state file's content, for every testbed under `work_root`."""
    out = {}
    for path in sorted(work_root.glob("*/state.json")):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):  # being replaced (written to .tmp, then renamed) or removed
            continue
        if isinstance(doc, dict):
            out[path.parent.name] = doc
    return out


def host_work_dirs(work_root: Path) -> list[Path]:
    """The native hosts' work directories (vbench.testbed.native: <root>/hosts/<host>/work)."""
    return sorted(work_root.glob("*/hosts/*/work"))


@dataclass(frozen=True, order=True)
class DaemonProcess:
    host: str
    daemon: str
    pid: int


def is_vbench_daemon(cmdline: str, daemon: str, work_dir: str) -> bool:
    """Whether a command line (NULs as spaces) is the JVM vbench started for `daemon` in the host
    work directory `work_dir`: it carries vbench.hadoop.daemons.identity. Pure."""
    if daemon not in DAEMON_NAMES:
        return False
    d = next(x for x in dm.DAEMONS if x.name == daemon)
    return dm.identity(d, HostLayout(work_dir, "")) in cmdline


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def recorded_daemons(work_root: Path) -> list[DaemonProcess]:
    """The Hadoop daemons whose pid files the hosts hold and that are still the JVM vbench started."""
    found = []
    for work in host_work_dirs(work_root):
        for pid_file in sorted((work / "run").glob("*.pid")):
            text = sysops.read_text(pid_file).strip()
            if text.isdigit() and is_vbench_daemon(_cmdline(int(text)), pid_file.stem, str(work)):
                found.append(DaemonProcess(work.parent.name, pid_file.stem, int(text)))
    return found


def recorded_now(work_root: Path) -> Recorded:
    """What the trial's testbeds record at this instant (merged over a trial by the caller)."""
    rec = Recorded()
    for name, state in testbed_states(work_root).items():
        rec = rec.merged(recorded_from_state(state, testbed_cgroup(name)))
    boot = owned.boot_id()
    daemons = frozenset(
        ProcessRecord(d.pid, owned.start_time(d.pid), boot, f"{d.daemon} of {d.host}")
        for d in recorded_daemons(work_root)
    )
    return rec.merged(Recorded(processes=daemons))


def naming(root: str, cmdlines: dict[int, str], skip: frozenset[int] = frozenset()) -> tuple[str, ...]:
    """`pid: command` of each command line that names `root` (a trial's own work root, which no
    process of anyone else's names). Pure."""
    return tuple(f"{pid} ({cmd[:100]})" for pid, cmd in sorted(cmdlines.items()) if root in cmd and pid not in skip)


def _cmdlines() -> dict[int, str]:
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and sysops.alive(int(entry)):
            cmd = _cmdline(int(entry))
            if cmd:
                out[int(entry)] = cmd
    return out


def machine_view(rec: Recorded, work_root: Path) -> MachineView:
    """What the machine has now of what was recorded (the same sources teardown reads), and the
    processes that name the trial's work root."""
    running = {p.pid: owned.start_time(p.pid) for p in rec.processes if sysops.alive(p.pid)}
    return MachineView(
        netns=frozenset(sysops.existing_netns()),
        links=frozenset(sysops.existing_links()),
        paths=frozenset(d for d in rec.dirs if os.path.lexists(d)),
        cgroups=frozenset(c for c in rec.cgroups if cgroup_dirs(c)),
        running=running,
        boot=owned.boot_id(),
        strays=naming(str(work_root) + "/", _cmdlines(), frozenset({os.getpid()})),
    )


# --- the campaign seen from outside ---------------------------------------------------------------


def commits(ledger: Path) -> int:
    try:
        raw = ledger.read_bytes()
    except FileNotFoundError:
        return 0
    return len(soak_ledger.read(raw).appends)


def observe(work_root: Path, ledger: Path, elapsed_s: float) -> Observation:
    works = host_work_dirs(work_root)
    return Observation(
        elapsed_s=elapsed_s,
        commits=commits(ledger),
        testbeds=len(list(work_root.glob("*/state.json"))),
        daemons=sum(len(list((w / "run").glob("*.pid"))) for w in works),
        task_containers=sum(len(list((w / "logs" / "userlogs").glob("application_*/container_*"))) for w in works),
    )


# --- the injectors ---------------------------------------------------------------------------------


def host_namespaces(states: dict[str, dict]) -> list[str]:
    """The hosts' network namespaces the testbeds' states list (the controller's left out: it
    is the runner's own way in, not a host). Pure."""
    out = []
    for name, state in states.items():
        ctl = netcmd.controller_netns(str(state.get("testbed", name)))
        out += [n for n in state.get("netns") or [] if isinstance(n, str) and n != ctl]
    return out


def recorded_hosts(work_root: Path) -> list[str]:
    return host_namespaces(testbed_states(work_root))


@dataclass
class Target:
    """What an injector may act on, and how (replaced by fakes in the unit tests)."""

    runner_pid: int
    work_root: Path
    runner_alive: Callable[[], bool]
    kill: Callable[[int, int], None] = os.kill
    killpg: Callable[[int, int], None] = os.killpg
    sleep: Callable[[float], None] = time.sleep
    find_daemons: Callable[[Path], list[DaemonProcess]] = recorded_daemons
    find_hosts: Callable[[Path], list[str]] = recorded_hosts
    netns_pids: Callable[[str], list[int]] = sysops.netns_pids


@dataclass(frozen=True)
class Injection:
    """What an injector did: whether it struck, what, and the pids it signalled."""

    struck: bool
    what: str
    pids: tuple[int, ...] = ()


def signal_runner(fault: FaultKind, trial: Trial, t: Target) -> Injection:
    """The runner's signal(s): to its process group for a Ctrl-C (as a terminal sends it: the
    soak started it in a session of its own), else to its pid."""
    sent = []
    for i, sig in enumerate(fault.signals):
        if i:
            t.sleep(trial.gap_s)
        if not t.runner_alive():
            break
        (t.killpg if fault.to_group else t.kill)(t.runner_pid, sig)
        sent.append(signal.Signals(sig).name)
    if not sent:
        return Injection(False, "the runner had ended")
    return Injection(
        True, f"{'+'.join(sent)} to the runner {'group ' if fault.to_group else ''}{t.runner_pid}", (t.runner_pid,)
    )


def kill_daemon(fault: FaultKind, trial: Trial, t: Target) -> Injection:
    hit = pick_one(t.find_daemons(t.work_root), trial.pick)
    if hit is None:
        return Injection(False, "no Hadoop daemon was running")
    # Checked again just before: the pid file may have gone with its daemon meanwhile.
    if hit not in t.find_daemons(t.work_root):
        return Injection(False, f"{hit.daemon} of {hit.host} stopped before it could be killed")
    t.kill(hit.pid, fault.signals[0])
    return Injection(
        True, f"{signal.Signals(fault.signals[0]).name} to {hit.daemon} of {hit.host} (pid {hit.pid})", (hit.pid,)
    )


def kill_host(fault: FaultKind, trial: Trial, t: Target) -> Injection:
    ns = pick_one(t.find_hosts(t.work_root), trial.pick)
    if ns is None:
        return Injection(False, "no host namespace was recorded")
    pids = tuple(t.netns_pids(ns))
    for pid in pids:
        try:
            t.kill(pid, fault.signals[0])
        except ProcessLookupError:
            pass
    return Injection(bool(pids), f"{signal.Signals(fault.signals[0]).name} to the {len(pids)} processes of {ns}", pids)


INJECTORS: dict[str, Callable[[FaultKind, Trial, Target], Injection]] = {
    "runner": signal_runner,
    "daemon": kill_daemon,
    "host": kill_host,
}


def injector_for(fault: FaultKind) -> Callable[[FaultKind, Trial, Target], Injection]:
    return INJECTORS[fault.target]


def inject(trial: Trial, t: Target) -> Injection:
    return injector_for(trial.fault)(trial.fault, trial, t)

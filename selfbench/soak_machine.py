"""The soak's hands and eyes on the machine: what a trial's testbeds recorded, the campaign's
progress seen from outside the runner, and the injectors that strike (issue #52 item 2).

The soak acts as root on a shared machine, so it finds its targets only through what vbench
itself wrote, never by a process's name:

- a testbed's state file (<work_root>/<testbed>/state.json: its namespaces, links, processes
  with their start times, directories, cgroups), the same record `vbench testbed down` removes by;
- a native host's Hadoop pid files (<host work dir>/run/<daemon>.pid), taken only while the pid's
  command line still carries the identity vbench gave that daemon's JVM
  (vbench.hadoop.daemons.identity: its own log directory and file), as vbench's own stop line does;
- the runner: the process the soak started itself;
- a filesystem the soak mounted itself (a tmpfs over the trial's work root, before the campaign
  started), recognised in /proc/self/mountinfo by its mount point and its source name;
- a MapReduce task JVM: a process whose command line carries org.apache.hadoop.mapred.YarnChild
  AND that descends (by /proc's parent pids) from a NodeManager the hosts' pid files record
  (recorded_daemons): never a YarnChild of anyone else's cluster. The task-oom fault creates a
  memory cgroup of its own (cgroup v1: /sys/fs/cgroup/memory/vbench-soak-<seed>-<trial>-oom), sets
  its limit (16 MiB, and memsw's where there is one) BEFORE it moves that one pid in (v1 leaves the
  charges already made where they were: the JVM's next allocations hit the limit and the kernel's
  memcg OOM killer kills it), waits for it to go, reads the cgroup's oom_kill count as evidence,
  and undoes: a task that still lives is moved back to the memory cgroup it was in, and the soak's
  cgroup is removed (both said as problems, "fault as planned", when they fail).

A name a state lists is acted on only when it carries that testbed's name as vbench names
everything of it (vbench.testbed.netcmd: namespaces <testbed>-*, links <testbed>*, cgroups
vbench-<testbed>[/...]): a state file that lists something else is not obeyed. Commands are argv
lists, never a shell.

Every trial has a work root of its own under the soak's directory, so every state file there is
one of its testbeds'.

Canaries (the "canaries kept" invariant): before each trial's campaign the soak plants things of
its own that a careless cleanup would take and that vbench never records: a bridge
<testbed>cy (`ip link add <name> type bridge`), a `sleep 86400` in a session of its own (pid and
start time recorded), and a file of known content in <trial>/canary/ and in <work root>/<testbed>cy/
(beside the testbed's own <work root>/<testbed>/ and <testbed>.lock). After the trial they must
be as planted; then the soak removes them itself: the bridge only while it has the interface
index it was planted with, the sleep only while it is the same process, the directories it made.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from selfbench import soak_ledger
from selfbench.soak_invariants import CanaryRecord, MachineView, ProcessRecord, Recorded, recorded_from_state
from selfbench.soak_plan import FaultKind, Observation, Trial, pick_one
from vbench.hadoop import daemons as dm
from vbench.hadoop.config import HostLayout
from vbench.testbed import netcmd, owned, sysops
from vbench.testbed.guest import testbed_cgroup
from vbench.testbed.limits import cgroup_dirs, cgroup_pids, parse_proc_cgroup

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


#: What a MapReduce task JVM's command line carries (its main class).
YARN_CHILD = "org.apache.hadoop.mapred.YarnChild"


@dataclass(frozen=True, order=True)
class TaskProcess:
    host: str  # the host of the NodeManager it descends from
    pid: int


def task_jvms(procs: dict[int, tuple[int, str]], nodemanagers: dict[int, str]) -> list[TaskProcess]:
    """The MapReduce task JVMs among `procs` (pid -> (parent pid, command line)): a java command
    line carrying YarnChild's class (not the `bash -c "java ... YarnChild ..."` that may launch it)
    AND a parent chain that reaches one of `nodemanagers` (pid -> its host). A YarnChild of anyone
    else's cluster, or whose chain breaks (its parent gone), is not one. Pure."""
    found = []
    for pid, (_ppid, cmd) in sorted(procs.items()):
        words = cmd.split()
        if YARN_CHILD not in words or not words or words[0].rsplit("/", 1)[-1] != "java" or pid in nodemanagers:
            continue
        seen = {pid}
        up = procs[pid][0]
        while up not in nodemanagers and up in procs and up not in seen and up > 1:
            seen.add(up)
            up = procs[up][0]
        if up in nodemanagers:
            found.append(TaskProcess(nodemanagers[up], pid))
    return found


def parse_ppid(stat: str) -> int | None:
    """The parent pid in a /proc/<pid>/stat text (after the command's closing parenthesis, which
    may itself hold spaces and parentheses); None for a zombie or a text not of that form. Pure."""
    fields = stat.rpartition(")")[2].split()
    if len(fields) < 2 or fields[0] == "Z" or not fields[1].isdigit():
        return None
    return int(fields[1])


def process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every live process (zombies left out)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            ppid = parse_ppid(Path(f"/proc/{entry}/stat").read_text())
        except OSError:
            continue
        if ppid is not None:
            out[int(entry)] = (ppid, _cmdline(int(entry)))
    return out


def recorded_tasks(work_root: Path) -> list[TaskProcess]:
    """The task JVMs of the NodeManagers the trial's hosts record (none: /proc not read)."""
    nms = {d.pid: d.host for d in recorded_daemons(work_root) if d.daemon == dm.NODEMANAGER.name}
    return task_jvms(process_table(), nms) if nms else []


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


def host_links(states: dict[str, dict]) -> list[str]:
    """The hosts' bridge-side veths the testbeds' states list: <testbed>h<i>, i >= 1
    (vbench.testbed.netcmd.veth_names; h0 is the controller's, the runner's own way in). They
    live in the machine's namespace, where teardown deletes them. Pure."""
    out = []
    for name, state in states.items():
        tb = str(state.get("testbed", name))
        links = state.get("links") if isinstance(state.get("links"), list) else []
        for link in links:
            m = re.fullmatch(re.escape(tb) + r"h([1-9][0-9]*)", link) if isinstance(link, str) else None
            if m and netcmd.veth_names(tb, int(m.group(1)))[0] == link:
                out.append(link)
    return out


def recorded_links(work_root: Path) -> list[str]:
    return host_links(testbed_states(work_root))


def link_index(name: str) -> int | None:
    """The interface index of link `name` in the machine's namespace (None: no such link). A
    link deleted and made again under the same name has another index."""
    if not name or "/" in name or name.startswith("."):
        return None
    try:
        return int(Path("/sys/class/net", name, "ifindex").read_text())
    except (OSError, ValueError):
        return None


def run_argv(argv: list[str]) -> int:
    """An argv (never a shell), its exit status; its output discarded."""
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True).returncode


@dataclass(frozen=True)
class RebootTargets:
    """What a reboot ends or clears of the testbeds a trial's states list (all of it recorded by
    vbench, and each name carrying its testbed's): processes by pid, start time and boot, network
    namespaces, links (bridges last) and cgroups."""

    processes: tuple[ProcessRecord, ...] = ()
    netns: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    cgroups: tuple[str, ...] = ()
    #: What a state listed that does not carry its testbed's name: not acted on, said.
    refused: tuple[str, ...] = ()


def _cgroup_of(rel: str, tb: str) -> bool:
    top = testbed_cgroup(tb)
    return (rel == top or rel.startswith(top + "/")) and ".." not in rel.split("/") and "//" not in rel


def reboot_targets(states: dict[str, dict]) -> RebootTargets:
    """Pure: from the states' content alone."""
    procs: set[ProcessRecord] = set()
    netns: list[str] = []
    links: list[str] = []
    bridges: list[str] = []
    cgroups: set[str] = set()
    refused: list[str] = []
    for name, state in states.items():
        tb = str(state.get("testbed", name))
        rec = recorded_from_state(state, testbed_cgroup(tb))
        procs |= rec.processes
        for ns in sorted(rec.netns):
            if ns.startswith(tb + "-") and "/" not in ns:
                netns.append(ns)
            else:
                refused.append(f"namespace {ns}")
        for link in sorted(rec.links):
            if not (link.startswith(tb) and "/" not in link):
                refused.append(f"link {link}")
            elif link == state.get("bridge"):
                bridges.append(link)
            else:
                links.append(link)
        for rel in sorted(rec.cgroups):
            if _cgroup_of(rel, tb):
                cgroups.add(rel)
            else:
                refused.append(f"cgroup {rel}")
    return RebootTargets(
        tuple(sorted(procs)),
        tuple(netns),
        tuple(links + bridges),
        tuple(sorted(cgroups, key=lambda c: (-c.count("/"), c))),  # deepest first
        tuple(refused),
    )


def _rmdir(path: Path) -> bool:
    """rmdir a cgroup directory; one whose last process just died may be busy a moment."""
    for _ in range(20):
        try:
            path.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.05)
    return False


def _existing_links() -> set[str]:
    return sysops.existing_links()


def _existing_netns() -> set[str]:
    return sysops.existing_netns()


# --- the soak's own filesystem (the full disk) ------------------------------------------------------

#: The size of the tmpfs the soak mounts over a disk-full trial's work root, MiB: the soak design's
#: testbed holds a few tens of MiB (conf, logs, HDFS, YARN's local directories; Hadoop's jars are
#: not copied), the NameNode wants 100 MB free (dfs.namenode.resource.du.reserved), and a DataNode
#: of Hadoop 3.4 writes a block only to a volume with the block's size plus 1 GiB free
#: (dfs.datanode.round-robin-volume-choosing-policy.additional-available-space): on the 512 MiB
#: this was until 2026-11-29 every Pi of a disk-full trial failed, fault or not ("Out of space: The
#: volume with the most available space (=535339008 B) is less than the block size", in the
#: DataNode's log vbench kept). RAM while it is full, released when the soak unmounts it.
DISK_MIB = 1536
#: The file that fills it, in its root (the work root's own directory, no testbed's).
FILL_NAME = ".soak-fill"


def mount_source(trial: Trial) -> str:
    """The source name the soak's tmpfs is mounted with: how it is told from any other mount."""
    return f"vbench-soak-{trial.seed}-{trial.index}"


def _unescape(field_text: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field_text)


def mounts_at(mountinfo: str, path: str) -> list[tuple[str, str]]:
    """(fstype, source) of every mount at mount point `path`, in mount order (the last is on
    top), from /proc/self/mountinfo's text. Pure."""
    out = []
    for line in mountinfo.splitlines():
        pre, sep, post = line.partition(" - ")
        fields, tail = pre.split(), post.split()
        if sep and len(fields) >= 5 and len(tail) >= 2 and _unescape(fields[4]) == path:
            out.append((tail[0], _unescape(tail[1])))
    return out


def own_mount(mountinfo: str, path: Path, source: str) -> bool:
    """Whether the filesystem on top at `path` is the soak's tmpfs named `source`. Pure."""
    found = mounts_at(mountinfo, str(path))
    return bool(found) and found[-1] == ("tmpfs", source)


def _mountinfo() -> str:
    return Path("/proc/self/mountinfo").read_text()


def is_own_mount(path: Path, source: str) -> bool:
    return own_mount(_mountinfo(), path, source)


def fill(path: Path, write: Callable[[int, bytes], int] = os.write, chunks: tuple[int, ...] = (1 << 20, 4096)) -> int:
    """Create `path` (a new file, no link followed) and write zeros to it until the filesystem
    says ENOSPC, in big chunks then small ones; the bytes written. Any other error is raised."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    written = 0
    try:
        for size in chunks:
            buf = bytes(size)
            while True:
                try:
                    n = write(fd, buf)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
                written += n
                if n < size:  # short: the next write says ENOSPC, or fills the last page
                    continue
    finally:
        os.close(fd)
    return written


def free_bytes(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


class OwnTmpfs:
    """The tmpfs a disk-full trial runs its testbed on: mounted by the soak over the trial's
    (empty, new) work root before the campaign starts, so that every native host's private mount
    namespace holds it from its first instruction; filled at the fault; its fill removed after the
    faulted run (the user frees the disk, then resumes); unmounted after the trial's checks (never
    lazily: what holds it is said). Acts on nothing but the mount it made, found by mount point
    and source name."""

    def __init__(self, work_root: Path, source: str, enabled: bool, run: Callable[[list[str]], int] = run_argv):
        self.path, self.source, self.enabled, self.run = work_root, source, enabled, run
        self.mounted = False
        self.problems: list[str] = []

    def __enter__(self) -> "OwnTmpfs":
        if self.enabled:
            self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
            if any(self.path.iterdir()) or os.path.ismount(self.path):
                self.problems.append(f"{self.path} is not an empty directory of the trial's own: nothing mounted")
                return self
            argv = ["mount", "-t", "tmpfs", "-o", f"size={DISK_MIB}m,mode=0700", self.source, str(self.path)]
            rc = self.run(argv)
            self.mounted = rc == 0 and is_own_mount(self.path, self.source)
            if not self.mounted:
                self.problems.append(f"`{' '.join(argv)}` exited {rc}: no filesystem to fill")
        return self

    def free(self) -> None:
        """The fill removed: the disk has room again for the resume."""
        if self.mounted and is_own_mount(self.path, self.source):
            try:
                (self.path / FILL_NAME).unlink()
            except FileNotFoundError:
                pass

    def release(self) -> None:
        if not self.mounted:
            return
        self.mounted = False
        if not is_own_mount(self.path, self.source):
            self.problems.append(f"the soak's tmpfs at {self.path} is no longer on top there: left as it is")
            return
        rc = self.run(["umount", str(self.path)])
        if rc != 0 or is_own_mount(self.path, self.source):
            self.problems.append(f"`umount {self.path}` exited {rc}: the soak's tmpfs is still mounted (busy)")

    def __exit__(self, *exc) -> None:
        self.release()


# --- the soak's own memory cgroup (a task OOM-killed) ---------------------------------------------

#: The cgroup v1 memory hierarchy (this machine's: vbench.testbed.limits).
MEMORY_ROOT = Path("/sys/fs/cgroup/memory")
#: The memory limit the task is moved under, MiB: far below a task JVM's heap, so its next
#: allocations (a map task's buffers, the young generation it touches) hit it within seconds.
OOM_LIMIT_MIB = 16
#: How long the task-oom fault waits for a task JVM after its moment, s, polling every
#: TASK_POLL_S (a tiny Pi's tasks live a few seconds; the job marker may be a block early).
TASK_WAIT_S = 120.0
TASK_POLL_S = 0.15
#: How long it waits for the task to be OOM-killed under the limit, s, and for the cgroup to empty.
OOM_WAIT_S = 15.0
OOM_POLL_S = 0.1


def oom_cgroup(trial: Trial) -> str:
    """The name of the soak's own memory cgroup of a task-oom trial (under the hierarchy's root)."""
    return f"{mount_source(trial)}-oom"


def parse_oom_kill(oom_control: str) -> int | None:
    """The `oom_kill` counter of a v1 memory.oom_control text (kernel >= 4.13), or None. Pure."""
    for line in oom_control.splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill" and value.strip().isdigit():
            return int(value)
    return None


def memory_cgroup_of(pid: int) -> str | None:
    """The memory cgroup (v1) process `pid` is in, as /proc/<pid>/cgroup names it, or None."""
    try:
        return parse_proc_cgroup(Path(f"/proc/{pid}/cgroup").read_text()).get("memory")
    except OSError:
        return None


def write_text(path: Path, text: str) -> None:
    """One write of `text` to an existing (cgroup) file: no creation, no truncation dance."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def read_text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def same_process(pid: int, start: int | None) -> bool:
    """Whether `pid` is still the live (not zombie) process that started at `start`."""
    return start is not None and sysops.alive(pid) and owned.start_time(pid) == start


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
    find_links: Callable[[Path], list[str]] = recorded_links
    link_index: Callable[[str], int | None] = link_index
    run: Callable[[list[str]], int] = run_argv
    states: Callable[[Path], dict[str, dict]] = testbed_states
    start_time: Callable[[int], int | None] = owned.start_time
    boot_id: Callable[[], str] = owned.boot_id
    cgroup_pids: Callable[[str], set[int]] = cgroup_pids
    cgroup_dirs: Callable[[str], list[Path]] = cgroup_dirs
    rmdir: Callable[[Path], bool] = _rmdir
    existing_netns: Callable[[], set[str]] = _existing_netns
    existing_links: Callable[[], set[str]] = _existing_links
    #: The disk-full trial's own tmpfs: (is it mounted, on top, at the work root?), the fill.
    disk_source: str = ""
    is_own_mount: Callable[[Path, str], bool] = is_own_mount
    fill: Callable[[Path], int] = fill
    free_bytes: Callable[[Path], int] = free_bytes
    #: A task OOM-killed: the task JVMs found, the memory hierarchy and its files, a clock.
    find_tasks: Callable[[Path], list[TaskProcess]] = recorded_tasks
    memory_root: Path = MEMORY_ROOT
    memory_cgroup_of: Callable[[int], str | None] = memory_cgroup_of
    mkdir: Callable[[Path], None] = os.mkdir
    exists: Callable[[Path], bool] = os.path.exists
    write: Callable[[Path, str], None] = write_text
    read: Callable[[Path], str] = read_text
    same_process: Callable[[int, int | None], bool] = same_process
    clock: Callable[[], float] = time.monotonic


@dataclass(frozen=True)
class Injection:
    """What an injector did: whether it struck, what, and the pids it signalled; `problems`:
    what it meant to do and could not (a dropped link not brought up again, what a reboot
    should have cleared and did not)."""

    struck: bool
    what: str
    pids: tuple[int, ...] = ()
    problems: tuple[str, ...] = field(default=())


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
    """SIGKILL of one recorded daemon: of the kind the trial aims at (`trial.aim`) when one runs,
    else of any kind (said), picked among those by the trial's pick."""
    found = t.find_daemons(t.work_root)
    aimed = [d for d in found if d.daemon == trial.aim]
    hit = pick_one(aimed or found, trial.pick)
    if hit is None:
        return Injection(False, "no Hadoop daemon was running" + (f" (aimed at {trial.aim})" if trial.aim else ""))
    # Checked again just before: the pid file may have gone with its daemon meanwhile.
    if hit not in t.find_daemons(t.work_root):
        return Injection(False, f"{hit.daemon} of {hit.host} stopped before it could be killed")
    t.kill(hit.pid, fault.signals[0])
    what = f"{signal.Signals(fault.signals[0]).name} to {hit.daemon} of {hit.host} (pid {hit.pid})"
    if trial.aim and not aimed:
        what += f"; aimed at {trial.aim}, none running: fell back to a daemon present"
    return Injection(True, what, (hit.pid,))


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


def drop_link(fault: FaultKind, trial: Trial, t: Target) -> Injection:
    """One host's bridge-side veth down for `trial.hold_s`, then up again: every packet to and
    from the host is dropped meanwhile (a veth whose peer is down drops what is sent to it), and
    nothing is left to undo but the link's state. Brought up again only while it is the link
    that was taken down (same interface index): if teardown deleted it meanwhile, or a new
    session made it anew, it is not touched."""
    link = pick_one(t.find_links(t.work_root), trial.pick)
    if link is None:
        return Injection(False, "no host link was recorded")
    index = t.link_index(link)
    if index is None:
        return Injection(False, f"{link} was recorded but is gone")
    rc = t.run(["ip", "link", "set", "dev", link, "down"])
    if rc != 0:
        return Injection(False, f"`ip link set dev {link} down` exited {rc}")
    t0 = time.monotonic()
    t.sleep(trial.hold_s)
    what = f"{link} (ifindex {index}) down for {trial.hold_s:.1f} s"
    if t.link_index(link) != index:
        return Injection(True, what + ", then gone (deleted by teardown meanwhile): not brought up")
    rc = t.run(["ip", "link", "set", "dev", link, "up"])
    if rc != 0:
        return Injection(True, what, problems=(f"`ip link set dev {link} up` exited {rc}: {link} stays down",))
    return Injection(True, what + f", then up ({time.monotonic() - t0:.1f} s)")


#: How many times a reboot sweeps for what is left to kill (a process may fork while it dies).
REBOOT_SWEEPS = 20


def _reboot_pids(targets: RebootTargets, t: Target) -> set[int]:
    boot = t.boot_id()
    pids = {
        p.pid for p in targets.processes if p.start is not None and p.boot == boot and t.start_time(p.pid) == p.start
    }
    for ns in targets.netns:
        pids |= set(t.netns_pids(ns))
    for rel in targets.cgroups:
        pids |= set(t.cgroup_pids(rel))
    pids |= {d.pid for d in t.find_daemons(t.work_root)}
    return pids - {os.getpid()}


def reboot(fault: FaultKind, trial: Trial, t: Target) -> Injection:
    """A machine reboot, as far as vbench's share of it goes: SIGKILL of the runner's process group
    (the soak started it in a session of its own), then of every process the testbeds recorded (by
    pid, start time and boot), every process in their recorded namespaces and cgroups and every
    Hadoop daemon of their pid files, swept until none is left; then what a reboot clears and vbench
    created: the recorded network namespaces (/run/netns), links (bridges last) and cgroups
    (deepest first). What is on disk (the state files, the ledger, pid and lock files, the hosts'
    directories) stays, as it does across a reboot. vbench keeps nothing else in /run for native
    hosts (/run/sshd is the machine's sshd's, shared: left)."""
    if not t.runner_alive():
        return Injection(False, "the runner had ended")
    try:
        t.killpg(t.runner_pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    targets = reboot_targets(t.states(t.work_root))
    killed: set[int] = set()
    left: set[int] = set()
    for _ in range(REBOOT_SWEEPS):
        left = _reboot_pids(targets, t) - {t.runner_pid}
        if not left:
            break
        for pid in sorted(left):
            try:
                t.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        killed |= left
        t.sleep(0.1)
    problems = [f"process {p} still alive after {REBOOT_SWEEPS} sweeps" for p in sorted(left)]
    for ns in targets.netns:
        if ns in t.existing_netns():
            t.run(["ip", "netns", "delete", ns])
    links_now = t.existing_links()
    for link in targets.links:  # a veth's peer goes with it (or with its namespace): check each
        if link in links_now and link in t.existing_links():
            t.run(["ip", "link", "delete", "dev", link])
    for rel in targets.cgroups:
        for d in t.cgroup_dirs(rel):
            if not t.rmdir(d):
                problems.append(f"cgroup {d} could not be removed")
    problems += [f"network namespace {ns} still there" for ns in targets.netns if ns in t.existing_netns()]
    links_after = t.existing_links()
    problems += [f"link {link} still there" for link in targets.links if link in links_after]
    problems += [f"a state lists {r}, which is not its testbed's: left alone" for r in targets.refused]
    what = (
        f"SIGKILL to the runner group {t.runner_pid} and {len(killed)} recorded processes; "
        f"{len(targets.netns)} namespaces, {len(targets.links)} links, {len(targets.cgroups)} cgroups cleared"
    )
    return Injection(True, what, (t.runner_pid, *sorted(killed)), tuple(problems))


def fill_disk(fault: FaultKind, trial: Trial, t: Target) -> Injection:
    """The soak's own tmpfs over the trial's work root filled to ENOSPC (a file of the soak's in
    its root). Nothing is filled unless that mount, by its mount point and source name, is on top
    at the work root: never the machine's disk."""
    if not t.disk_source or not t.is_own_mount(t.work_root, t.disk_source):
        return Injection(
            False, f"no tmpfs of the soak's own ({t.disk_source or 'none'}) at {t.work_root}: nothing filled"
        )
    written = t.fill(t.work_root / FILL_NAME)
    free = t.free_bytes(t.work_root)
    return Injection(
        True, f"{t.work_root} (the soak's {DISK_MIB} MiB tmpfs) filled: {written >> 20} MiB written, {free} bytes free"
    )


def _wait_for_task(t: Target) -> list[TaskProcess]:
    """The task JVMs of the recorded NodeManagers, polled until there is one, the runner ends or
    TASK_WAIT_S has passed ([])."""
    end = t.clock() + TASK_WAIT_S
    while True:
        tasks = t.find_tasks(t.work_root)
        if tasks or t.clock() >= end or not t.runner_alive():
            return tasks
        t.sleep(TASK_POLL_S)


def _undo_oom(t: Target, cg: Path, pid: int, start: int | None, home: str, problems: list[str]) -> bool:
    """The task moved back to its memory cgroup `home` if it still lives (True: it did), then the
    soak's cgroup `cg` removed once empty; what could not be undone is added to `problems`."""
    back = False
    if t.same_process(pid, start):
        try:
            t.write(t.memory_root / home.lstrip("/") / "cgroup.procs", str(pid))
            back = True
        except OSError as exc:
            if t.same_process(pid, start):
                problems.append(f"task {pid} could not be moved back to memory cgroup {home}: {exc.strerror or exc}")
    end = t.clock() + OOM_WAIT_S
    while t.read(cg / "cgroup.procs").split() and t.clock() < end:  # an OOM-killed task exiting
        t.sleep(OOM_POLL_S)
    if not t.rmdir(cg):
        problems.append(f"the soak's memory cgroup {cg} could not be removed")
    return back


def oom_task(fault: FaultKind, trial: Trial, t: Target) -> Injection:
    """A MapReduce task JVM (YarnChild) of a recorded NodeManager OOM-killed by a memory limit:
    moved into a memory cgroup of the soak's own whose limit is set first (v1: the charges it has
    made stay where they were, its next allocations are charged here and hit the limit, and the
    kernel's memcg OOM killer kills it). Waits OOM_WAIT_S for it to go and reads the cgroup's
    oom_kill count; a task that still lives is moved back where it was (the fault did not strike);
    the cgroup is removed. Nothing but that one pid is ever moved."""
    if not t.exists(t.memory_root / "memory.limit_in_bytes"):
        return Injection(False, f"no cgroup v1 memory hierarchy at {t.memory_root}: nothing limited")
    tasks = _wait_for_task(t)
    task = pick_one(tasks, trial.pick)
    if task is None:
        return Injection(False, f"no task JVM (YarnChild) of a recorded NodeManager within {TASK_WAIT_S:g} s")
    who = f"YarnChild of {task.host} (pid {task.pid})"
    start, home = t.start_time(task.pid), t.memory_cgroup_of(task.pid)
    if home is None or start is None:
        return Injection(False, f"{who} ended before it could be limited")
    cg = t.memory_root / oom_cgroup(trial)
    try:
        t.mkdir(cg)
    except OSError as exc:
        return Injection(False, f"memory cgroup {cg} could not be made: {exc.strerror or exc}")
    limit = OOM_LIMIT_MIB << 20
    problems: list[str] = []
    try:
        t.write(cg / "memory.limit_in_bytes", str(limit))
        if t.exists(cg / "memory.memsw.limit_in_bytes"):  # no swapping out of it either
            t.write(cg / "memory.memsw.limit_in_bytes", str(limit))
    except OSError as exc:
        _undo_oom(t, cg, task.pid, None, home, problems)
        return Injection(False, f"the limit of {cg} could not be set: {exc.strerror or exc}", problems=tuple(problems))
    # Checked again just before: the task may have ended meanwhile (and its pid be reused).
    if task not in t.find_tasks(t.work_root) or not t.same_process(task.pid, start):
        _undo_oom(t, cg, task.pid, None, home, problems)
        return Injection(False, f"{who} ended before it could be moved", problems=tuple(problems))
    try:
        t.write(cg / "cgroup.procs", str(task.pid))
    except OSError as exc:  # not moved: nothing to move back
        _undo_oom(t, cg, task.pid, None, home, problems)
        return Injection(False, f"{who} could not be moved into {cg}: {exc.strerror or exc}", problems=tuple(problems))
    t0 = t.clock()
    while t.same_process(task.pid, start) and t.clock() - t0 < OOM_WAIT_S:
        t.sleep(OOM_POLL_S)
    waited = t.clock() - t0
    kills = parse_oom_kill(t.read(cg / "memory.oom_control"))
    moved_back = _undo_oom(t, cg, task.pid, start, home, problems)
    counted = "oom_kill not readable" if kills is None else f"oom_kill {kills}"
    if moved_back or t.same_process(task.pid, start):
        where = f"moved back to {home}" if moved_back else "left in the soak's cgroup"
        what = f"{who} still alive {waited:.1f} s under a {OOM_LIMIT_MIB} MiB memory limit ({counted}): {where}"
        return Injection(False, what + "; the fault did not strike", problems=tuple(problems))
    if kills == 0:
        what = f"{who} ended {waited:.1f} s under a {OOM_LIMIT_MIB} MiB memory limit, but {counted}: not an OOM kill"
        return Injection(False, what + "; the fault did not strike", problems=tuple(problems))
    what = f"{who} OOM-killed by a {OOM_LIMIT_MIB} MiB memory limit ({counted}, {waited:.1f} s)"
    return Injection(True, what, (task.pid,), tuple(problems))


INJECTORS: dict[str, Callable[[FaultKind, Trial, Target], Injection]] = {
    "runner": signal_runner,
    "daemon": kill_daemon,
    "host": kill_host,
    "link": drop_link,
    "reboot": reboot,
    "disk": fill_disk,
    "task": oom_task,
}


def injector_for(fault: FaultKind) -> Callable[[FaultKind, Trial, Target], Injection]:
    return INJECTORS[fault.target]


def inject(trial: Trial, t: Target) -> Injection:
    return injector_for(trial.fault)(trial.fault, trial, t)


# --- the soak's canaries (nothing vbench did not create touched) -----------------------------------


def canary_bridge(testbed: str) -> str:
    """The canary bridge's name: the testbed's name and `cy` (no name vbench gives: <testbed>br,
    <testbed>h<i>, <testbed>p<i>), <= 15 bytes for a testbed name of <= 13. Pure."""
    return f"{testbed}cy"


def canary_files(testbed: str, tdir: Path, work_root: Path) -> tuple[tuple[Path, str], ...]:
    """(path, content) of the canary files: one beside the work root in the trial's directory,
    one in a directory named like the testbed's (<work root>/<testbed>cy, where a cleanup
    globbing <testbed>* would look). Pure."""
    text = f"canary of the vbench soak, testbed {testbed}: vbench did not make this and must not touch it\n"
    return (tdir / "canary" / "keep.txt", text), (work_root / f"{testbed}cy" / "keep.txt", text)


def spawn_sleep() -> int:
    """A `sleep` of the soak's own, in a session of its own (no Ctrl-C or group signal of the
    runner's reaches it), its pid."""
    return subprocess.Popen(
        ["sleep", "86400"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    ).pid


def reap(pid: int, wait_s: float = 5.0) -> None:
    """Wait (at most `wait_s`) for the soak's own child `pid` to be dead and reaped; a pid that is
    no child of the soak's (reaped already) is nothing to wait for."""
    end = time.monotonic() + wait_s
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:
            return
        if time.monotonic() >= end:
            return
        time.sleep(0.05)


def make_file(path: Path, text: str) -> None:
    """A new directory (0700) and a new file in it: neither may exist already (the directory's
    parent is made if missing: the work root, made before vbench makes it, as vbench would)."""
    path.parent.parent.mkdir(parents=True, exist_ok=True)
    path.parent.mkdir(mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def read_file(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:  # a symlink is followed: a swapped file reads as changed
            return fh.read().decode(errors="replace")
    except OSError:
        return None


def remove_dir(path: Path) -> None:
    shutil.rmtree(path)  # refuses a symbolic link


@dataclass
class CanaryHands:
    """How the canaries are planted, looked at and removed (replaced by fakes in the unit tests)."""

    run: Callable[[list[str]], int] = run_argv
    link_index: Callable[[str], int | None] = link_index
    spawn: Callable[[], int] = spawn_sleep
    start_time: Callable[[int], int | None] = owned.start_time
    same_process: Callable[[int, int | None], bool] = same_process
    kill: Callable[[int, int], None] = os.kill
    reap: Callable[[int], None] = reap
    make_file: Callable[[Path, str], None] = make_file
    read_file: Callable[[Path], str | None] = read_file
    remove_dir: Callable[[Path], None] = remove_dir


class Canaries:
    """The soak's canaries of one trial: planted on entering (before the campaign starts),
    looked at by harms() (after the resume, 'nothing left' and any cleanup), removed by remove()
    or on leaving. What could not be planted or removed is in `problems`; nothing that was not
    planted here (a name that existed already) is ever removed."""

    def __init__(self, testbed: str, tdir: Path, work_root: Path, hands: CanaryHands | None = None):
        self.testbed, self.tdir, self.work_root = testbed, tdir, work_root
        self.h = hands or CanaryHands()
        self.record = CanaryRecord()
        self.problems: list[str] = []
        self.removed = False

    def __enter__(self) -> "Canaries":
        self.plant()
        return self

    def __exit__(self, *exc) -> None:
        self.remove()

    def plant(self) -> CanaryRecord:
        h = self.h
        bridge, ifindex = canary_bridge(self.testbed), None
        if h.link_index(bridge) is not None:
            self.problems.append(f"canary bridge {bridge} exists already (not the soak's to plant or remove)")
        else:
            argv = ["ip", "link", "add", bridge, "type", "bridge"]
            rc = h.run(argv)
            ifindex = h.link_index(bridge)
            if rc != 0 or ifindex is None:
                self.problems.append(f"canary bridge: `{' '.join(argv)}` exited {rc}")
                ifindex = None
        pid = start = None
        try:
            pid = h.spawn()
            start = h.start_time(pid)
        except OSError as exc:
            self.problems.append(f"canary process: sleep could not be started: {exc.strerror or exc}")
        if pid is not None and start is None:
            self.problems.append(f"canary process {pid}: no start time")
        files = []
        for path, text in canary_files(self.testbed, self.tdir, self.work_root):
            try:
                h.make_file(path, text)
                files.append((str(path), text))
            except OSError as exc:
                self.problems.append(f"canary file {path} could not be made: {exc.strerror or exc}")
        self.record = CanaryRecord(bridge if ifindex is not None else "", ifindex, pid, start, tuple(files))
        return self.record

    def harms(self) -> tuple[str, ...]:
        """What of the canaries is not as planted, each named; () when all are."""
        r, h, found = self.record, self.h, []
        if r.bridge:
            now = h.link_index(r.bridge)
            if now is None:
                found.append(f"bridge {r.bridge} deleted")
            elif now != r.ifindex:
                found.append(f"bridge {r.bridge} deleted and made anew (ifindex {r.ifindex} -> {now})")
        if r.pid is not None and r.start is not None and not h.same_process(r.pid, r.start):
            found.append(f"process {r.pid} (the soak's sleep) killed")
        for path, text in r.files:
            now = h.read_file(Path(path))
            if now is None:
                found.append(f"file {path} gone")
            elif now != text:
                found.append(f"file {path} changed")
        return tuple(found)

    def remove(self) -> None:
        """The canaries removed, each only while it is the one planted; what is left is said."""
        if self.removed:
            return
        self.removed = True
        r, h = self.record, self.h
        if r.bridge and h.link_index(r.bridge) == r.ifindex:
            argv = ["ip", "link", "delete", r.bridge, "type", "bridge"]
            rc = h.run(argv)
            if rc != 0 or h.link_index(r.bridge) is not None:
                self.problems.append(f"canary bridge: `{' '.join(argv)}` exited {rc}: {r.bridge} still there")
        if r.pid is not None:
            if r.start is not None and h.same_process(r.pid, r.start):
                try:
                    h.kill(r.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            h.reap(r.pid)  # the soak's own child: killed now or meanwhile, waited for
            if r.start is not None and h.same_process(r.pid, r.start):
                self.problems.append(f"canary process {r.pid} still alive after SIGKILL")
        for path, _ in r.files:
            d = Path(path).parent
            try:
                h.remove_dir(d)
            except FileNotFoundError:
                pass
            except OSError as exc:
                self.problems.append(f"canary directory {d} could not be removed: {exc.strerror or exc}")

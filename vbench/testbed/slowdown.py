"""Planted slowdowns (`testbed.slowdown`, issue #51 item 2; the controlled slowdowns of issue #53):
one configuration's whole testbed made slower by a known setting, to check that a protocol
recovers an effect of known size, and to see how a job's time answers each resource.

What is planted, and where (cgroup v1: this machine's controllers are v1, see vbench.testbed.limits):

- CPU: one parent cgroup per testbed, `vbench-<testbed>` in the `cpu` hierarchy, with
  `cpu.cfs_quota_us` = cpu_fraction x the CPUs vbench may run on x `cpu.cfs_period_us`: all the
  testbed's hosts together get that share of the machine. CFS bandwidth is hierarchical, so it
  holds every cgroup below. Containers are there already: LXC (`lxc.cgroup.dir.container`) and
  crun (`cgroupsPath`) put each host in `vbench-<testbed>/<host>`. A native host's sshd, from
  which every daemon descends over SSH, is started inside `vbench-<testbed>/<host>`: a shell
  writes its own pid into the cgroups' `cgroup.procs`, then execs the host's command
  (`in_cgroups_argv`), so nothing of the host ever runs outside.
- Disk: `blkio.throttle.{read,write}_bps_device` on the disk holding the testbed's work root, in
  EACH host's own cgroup (`vbench-<testbed>/<host>` in the `blkio` hierarchy): a native host's
  (`host_procs` writes them), a container's through its limits (`params.planted_disk`). Not on the
  parent: cgroup v1's blk-throttle holds only the cgroup a process is in. Measured here (kernel
  6.18, 2026-11-30): fio's direct 1 MiB writes at 102-104 MiB/s under a 100 MiB/s limit on their
  own cgroup, 1.1-1.3 GiB/s under the same limit on its parent, which is how `costs-fit-nodelay`'s
  disk level came to move nothing. So each host has the rate, not the testbed: the cost a host's
  fio measures is the cost its daemons pay. Direct and synchronous I/O only, as for per-host limits.
- Network: a netem delay and/or a tbf rate (physnet.shape, the builders of link shaping) on
  the egress of each host's own interface towards it: the bridge side of its veth (LXC names it
  `lxc.net.0.veth.pair`), inside the emulated physical host's namespace when there is one (and
  both NICs in bridge+nat). Every packet to a host crosses its own interface once, so each is
  delayed once and a round trip between two hosts grows by 2 x delay_ms.
- System calls (`syscall_stops`, native hosts only): the host's sshd started under strace -f,
  which stops every call of every process descending from it, or at "process" only their process
  and thread calls (vbench.testbed.syscall_stops).
  No cgroup: the tracer is the host's init process, checked to trace its sshd.

Ownership (vbench.testbed.owned): the parent cgroup must not exist before bring-up (refused,
never adopted); each cgroup and qdisc is recorded in the testbed's state before it is made;
teardown deletes the recorded qdiscs (the links they sit on go too) and the testbed's cgroup
tree (vbench.testbed.local). After the hosts answer SSH, each host's init process is checked to
be inside the parent in every planted hierarchy, the parent's files and each link's qdiscs are
read back, and the host's facts record what was planted (`slowdown`, `slowdown_applied`), which
the runner stamps on every sample.

The command and file builders are pure; values reach a shell only as positional arguments.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from vbench.errors import VbenchError
from vbench.params import HostParams, SlowdownParams, TestbedParams, parse_cpuset
from vbench.testbed import netcmd, physhosts, physnet, syscall_stops, sysops
from vbench.testbed.guest import testbed_cgroup
from vbench.testbed.limits import (
    CFS_PERIOD_US,
    BlockDevice,
    blkio_throttles,
    block_device_of,
    mismatches,
    normalise,
    parse_cgroup_mounts,
    parse_proc_cgroup,
)
from vbench.testbed.provisioner import TestbedContext

Cmd = list[str]
#: The kernel refuses a CFS quota below 1 ms.
MIN_QUOTA_US = 1000
#: State keys (the testbed's state file) of what a slowdown creates.
STATE_QDISCS = "qdiscs"
STATE_CGROUPS = "cgroups"


# -- pure builders -----------------------------------------------------------------------------


def cpu_quota_us(fraction: float, cpus: int, period_us: int = CFS_PERIOD_US) -> int:
    """The CFS quota that gives a cgroup `fraction` of `cpus` CPUs. Pure."""
    if not 0 < fraction <= 1 or cpus < 1:
        raise VbenchError(f"a CPU quota needs 0 < fraction <= 1 and at least one CPU, got {fraction} of {cpus}")
    return max(MIN_QUOTA_US, round(fraction * cpus * period_us))


#: CFS's default weight of a cgroup (cgroup v1 cpu.shares): a testbed's cpu cgroup weighs as
#: much as any other testbed's.
DEFAULT_CPU_SHARES = 1024


def cgroup_settings(
    sd: SlowdownParams,
    cpus: int,
    disk: BlockDevice | None,
    cpu_group: bool = False,
    cpuset_root: tuple[str, str] | None = None,
) -> dict[str, str]:
    """The parent cgroup's files (controller.file -> value, written in this order) that plant `sd`'s
    CPU quota, with `cpu_group` make the testbed one cpu cgroup of the default weight, and with
    `cpuset_root` (the cpuset hierarchy root's CPUs and memory nodes) make it a cpuset cgroup holding
    what the root holds. Pure. The period is written before the quota. A disk throttle is not
    here: each host's own cgroup holds it (`host_settings`).

    The parent is not where a testbed's CPUs are held (testbed.cpuset): LXC rewrites every
    cpuset level on its container's path from the level above (unless that one has
    clone_children set, which the machine's root has not), so a parent's narrower cpuset would
    be widened again by the first LXC host. Each host's own cgroup holds them: a native host's
    (host_procs), a container's through its limits (TestbedParams.resolved_hosts)."""
    out: dict[str, str] = {}
    if cpuset_root is not None:
        out["cpuset.cpus"], out["cpuset.mems"] = cpuset_root
    if cpu_group:
        out["cpu.shares"] = str(DEFAULT_CPU_SHARES)
    if sd.cpu:
        out["cpu.cfs_period_us"] = str(CFS_PERIOD_US)
        out["cpu.cfs_quota_us"] = str(cpu_quota_us(sd.cpu_fraction, cpus))
    return out


def host_settings(sd: SlowdownParams, disk: BlockDevice | None) -> dict[str, str]:
    """A native host's own cgroup's files that plant `sd`'s disk throttles (cgroup v1's blk-throttle
    holds only the cgroup a process is in, never its children). Pure."""
    return blkio_throttles(sd, disk, "testbed.slowdown.")


def controllers(settings: dict[str, str]) -> list[str]:
    """The cgroup v1 controllers `settings` write to, sorted. Pure."""
    return sorted({key.split(".", 1)[0] for key in settings})


def parent_cgroup(testbed: str) -> str:
    """The testbed's parent cgroup (relative to each hierarchy's root): every host's is below."""
    return testbed_cgroup(testbed)


def host_cgroup(testbed: str, host: str) -> str:
    """A host's cgroup below the parent: where a native host's sshd is started."""
    return f"{parent_cgroup(testbed)}/{host}"


def in_cgroups_argv(procs_files: list[Path], argv: list[str]) -> list[str]:
    """Run `argv` after moving the shell (then exec'd into it) into every cgroup whose
    `cgroup.procs` is listed: the process and all it starts live there from its first
    instruction. Paths and argv are positional arguments, never shell text. Pure."""
    script = 'n="$1"; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"'
    return ["sh", "-c", script, "vbench-cgroup", str(len(procs_files)), *(str(p) for p in procs_files), *argv]


def host_links(params: TestbedParams, spec: HostParams, index: int, layout: physnet.NetLayout | None):
    """(device, namespace or None) of each interface traffic to host `spec` leaves by last: the
    bridge side of its veth(s), in the machine's namespace or in its emulated physical host's. Pure."""
    outer, _ = netcmd.veth_names(params.name, index)
    if layout is None:
        return [(outer, None)]
    guest = layout.guest(spec.name)
    ns = physnet.physical_netns_of(layout, guest)
    out = [(outer, ns)]
    if guest.dual:
        out.append((physnet.nat_veth_names(params.name, index)[0], ns))
    return out


def shape_commands(sd: SlowdownParams, dev: str, netns: str | None) -> list[Cmd]:
    """tc commands that plant `sd`'s delay and rate on the egress of `dev`. Pure."""
    return physnet.shape(dev, sd.rate_mbit, sd.delay_ms, netns=netns) if sd.network else []


def _in_netns(netns: str | None) -> Cmd:
    return ["ip", "netns", "exec", netns] if netns else []


def unshape_command(dev: str, netns: str | None) -> Cmd:
    """Remove what shape_commands put on `dev` (its root qdisc and every one below). Pure."""
    return [*_in_netns(netns), "tc", "qdisc", "del", "dev", dev, "root"]


def show_command(dev: str, netns: str | None) -> Cmd:
    return [*_in_netns(netns), "tc", "qdisc", "show", "dev", dev]


_TIME = re.compile(r"\bdelay ([0-9.]+)(s|ms|us)\b")
_RATE = re.compile(r"\brate ([0-9.]+)([KMGT]?)(bit|bps)\b")
_TIME_MS = {"s": 1000.0, "ms": 1.0, "us": 0.001}
_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def parse_qdiscs(text: str) -> dict[str, float]:
    """`tc qdisc show` of one device -> {"delay_ms": ..., "rate_mbit": ...} (what it holds). Pure."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("qdisc netem ") and (m := _TIME.search(line)):
            out["delay_ms"] = float(m.group(1)) * _TIME_MS[m.group(2)]
        if line.startswith("qdisc tbf ") and (m := _RATE.search(line)):
            bits = float(m.group(1)) * _PREFIX[m.group(2)] * (8 if m.group(3) == "bps" else 1)
            out["rate_mbit"] = bits / 1e6
    return out


def qdisc_problems(sd: SlowdownParams, dev: str, shown: str) -> list[str]:
    """What `tc qdisc show dev <dev>` lacks of `sd`'s network part (1 % tolerance: tc prints
    rounded units). Pure."""
    got = parse_qdiscs(shown)
    bad = []
    for key, want in (("delay_ms", sd.delay_ms or None), ("rate_mbit", sd.rate_mbit)):
        if want is None:
            continue
        have = got.get(key)
        if have is None:
            bad.append(f"{dev}: no {key.split('_')[0]} ({shown.strip() or 'no qdisc'!r})")
        elif abs(have - want) > 0.01 * want:
            bad.append(f"{dev}: {key} is {have:g}, wanted {want:g}")
    return bad


def inside(path: str, parent: str) -> bool:
    """Whether cgroup `path` (as /proc/<pid>/cgroup writes it) is `parent` or below it. Pure."""
    p, top = path.strip("/"), parent.strip("/")
    return p == top or p.startswith(top + "/")


def membership_problems(proc_cgroup: str, parent: str, ctrls: list[str]) -> list[str]:
    """Where a process (its /proc/<pid>/cgroup text) is outside `parent` in a planted hierarchy. Pure."""
    where = parse_proc_cgroup(proc_cgroup)
    return [
        f"its {c} cgroup is {where.get(c, '(none)')}, not inside /{parent}"
        for c in ctrls
        if not inside(where.get(c, ""), parent)
    ]


def exact_membership_problems(proc_cgroup: str, rel: str, ctrls: list[str]) -> list[str]:
    """Where a process (its /proc/<pid>/cgroup text) is not in cgroup `rel` itself in a hierarchy
    whose limits hold only the cgroup a process is in (v1 blkio), not its children. Pure."""
    where = parse_proc_cgroup(proc_cgroup)
    return [
        f"its {c} cgroup is {where.get(c, '(none)')}, not /{rel.strip('/')} (which holds its limits)"
        for c in ctrls
        if where.get(c, "").strip("/") != rel.strip("/")
    ]


def applied_text(settings: dict[str, str], sd: SlowdownParams, cpus: int) -> str:
    """What was planted, in words for host facts and samples. Pure."""
    parts = [f"{k}={v}" for k, v in settings.items()]
    if "cpu.cfs_quota_us" in settings:
        parts.append(f"machine_cpus={cpus}")
    if sd.delay_ms > 0:
        parts.append(f"netem_delay_ms={sd.delay_ms:g}")
    if sd.rate_mbit is not None:
        parts.append(f"tbf_rate_mbit={sd.rate_mbit:g}")
    if sd.syscall_stops:
        parts.append(f"syscall_stops={syscall_stops.applied(sd.syscall_stops)}")
    return ";".join(parts)


# -- the machine ---------------------------------------------------------------------------------


def machine_cpus() -> int:
    """The CPUs vbench (and every host it starts, which inherit its affinity) may run on."""
    return len(os.sched_getaffinity(0))


def cpuset_root() -> tuple[str, str]:
    """The CPUs and memory nodes of the cpuset hierarchy's root."""
    root = cgroup_mounts()["cpuset"]
    return (root / "cpuset.cpus").read_text().strip(), (root / "cpuset.mems").read_text().strip()


def parse_cpus_allowed(status: str) -> tuple[int, ...]:
    """The CPUs a process may run on, from its /proc/<pid>/status text (() when absent). Pure."""
    for line in status.splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return parse_cpuset(line.split(":", 1)[1].strip())
    return ()


def cpus_allowed(pid: int) -> tuple[int, ...]:
    try:
        return parse_cpus_allowed(Path(f"/proc/{pid}/status").read_text())
    except OSError:
        return ()


def proc_cgroup(pid: int) -> str:
    """/proc/<pid>/cgroup ('' when the process is gone)."""
    try:
        return Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return ""


def cgroup_mounts() -> dict[str, Path]:
    return parse_cgroup_mounts(Path("/proc/self/mountinfo").read_text())


def make_cgroup(
    rel: str, settings: dict[str, str], mounts: dict[str, Path] | None = None, also: tuple[str, ...] = ()
) -> list[Path]:
    """Create cgroup `rel` in the hierarchy of each controller `settings` name (and of those `also`
    names, left as made) and write them; returns the directories made. One that exists already is
    refused (not vbench's to take over)."""
    mounts = cgroup_mounts() if mounts is None else mounts
    made: list[Path] = []
    for ctrl in sorted(set(controllers(settings)) | set(also)):
        if ctrl not in mounts:
            raise VbenchError(f"no cgroup v1 hierarchy holds the {ctrl} controller on this machine")
        d = mounts[ctrl] / rel
        try:
            d.mkdir()
        except FileExistsError:
            raise VbenchError(
                f"cgroup {d} exists already and vbench did not create it; vbench neither adopts nor removes it"
            ) from None
        made.append(d)
    write_settings(rel, settings, mounts)
    return made


def write_settings(rel: str, settings: dict[str, str], mounts: dict[str, Path]) -> None:
    """Write `settings` (controller.file -> value, in order) into cgroup `rel`, which exists."""
    for key, value in settings.items():
        path = mounts[key.split(".", 1)[0]] / rel / key
        try:
            path.write_text(value)
        except OSError as exc:
            raise VbenchError(f"write {value!r} to {path}: {exc.strerror or exc}") from None


def read_settings(rel: str, keys: list[str], mounts: dict[str, Path] | None = None) -> dict[str, str]:
    """The content of cgroup `rel`'s files `keys` (controller.file); unreadable ones left out."""
    mounts = cgroup_mounts() if mounts is None else mounts
    out: dict[str, str] = {}
    for key in keys:
        ctrl = key.split(".", 1)[0]
        try:
            out[key] = (mounts[ctrl] / rel / key).read_text()
        except (KeyError, OSError):
            pass
    return out


class Slowdown:
    """The planted slowdown of one testbed: what bring-up, native hosts and teardown call."""

    def __init__(self, ctx: TestbedContext):
        self.ctx = ctx
        self.sd = ctx.params.slowdown
        self.parent = parent_cgroup(ctx.params.name)
        self._settings: dict[str, str] | None = None
        self._cpus = 0

    def _disk(self) -> BlockDevice | None:
        return block_device_of(self.ctx.params.work_root) if self.sd.disk else None

    @property
    def cpu_group(self) -> bool:
        return self.ctx.params.cpu_group

    @property
    def cpuset(self) -> str | None:
        return self.ctx.params.cpuset

    @property
    def makes_parent(self) -> bool:
        """Whether the testbed has a parent cgroup of its own: a slowdown planted, a cpu group or
        a cpuset."""
        return self.sd.active or self.cpu_group or self.cpuset is not None

    def host_files(self) -> dict[str, str]:
        """A native host's own cgroup's files: the planted disk throttles."""
        return host_settings(self.sd, self._disk()) if self.sd.disk else {}

    def hierarchies(self) -> list[str]:
        """The cgroup v1 controllers the testbed's cgroups live in: the parent's and a native host's."""
        return sorted(set(controllers(self.settings())) | set(controllers(self.host_files())))

    def settings(self) -> dict[str, str]:
        """The parent's files (the quota from the CPUs vbench may run on now: computed once)."""
        if self._settings is None:
            self._settings = (
                cgroup_settings(
                    self.sd,
                    machine_cpus(),
                    self._disk(),
                    self.cpu_group,
                    cpuset_root() if self.cpuset is not None else None,
                )
                if self.makes_parent
                else {}
            )
            self._cpus = machine_cpus()
        return self._settings

    def preflight(self) -> None:
        """Refuse, before anything is created, what cannot be planted here."""
        sd = self.sd
        if not self.makes_parent:
            return
        mounts = cgroup_mounts()
        for ctrl in self.hierarchies():
            if ctrl not in mounts:
                raise VbenchError(
                    f"{self._what()} needs the cgroup v1 {ctrl} controller, which this "
                    "machine does not mount (cgroup v2 only machines are not supported yet)"
                )
            if (mounts[ctrl] / self.parent).exists():
                raise VbenchError(
                    f"{self._what()}: cgroup {mounts[ctrl] / self.parent} exists already and no testbed state "
                    "says vbench created it; vbench neither adopts nor removes it (remove it yourself, or "
                    "choose another testbed name)"
                )
        if self.cpuset is not None:
            outside = sorted(set(parse_cpuset(self.cpuset)) - os.sched_getaffinity(0))
            if outside:
                raise VbenchError(
                    f"testbed.cpuset {self.cpuset!r}: CPU {', '.join(map(str, outside))} is not one vbench may run "
                    f"on here (it may run on {', '.join(map(str, sorted(os.sched_getaffinity(0))))})"
                )
        if sd.syscall_stops:
            syscall_stops.find_strace()
        if sd.network:
            if shutil.which("tc") is None:
                raise VbenchError("testbed.slowdown: 'tc' is not installed (Debian package iproute2)")
            if sd.delay_ms > 0 and not physhosts.netem_available():
                raise VbenchError(
                    "testbed.slowdown.delay_ms: this kernel has no netem qdisc (sch_netem), so no delay can be "
                    "planted here; set delay_ms to 0 (rate shaping with tbf works)"
                )

    def _what(self) -> str:
        """The field that asked for the parent cgroup, for messages."""
        if self.sd.active:
            return f"testbed.slowdown ({self.sd.describe()})"
        return "testbed.cpuset" if self.cpuset is not None and not self.cpu_group else "testbed.cpu_group"

    def create_parent(self) -> None:
        """The parent cgroup with the CPU quota (or, for a cpu group, the default weight), in every
        hierarchy a host's cgroup lives in, before any host exists."""
        settings = self.settings()
        if not self.hierarchies():
            return
        self.ctx.record(STATE_CGROUPS, self.parent)
        make_cgroup(self.parent, settings, also=tuple(self.hierarchies()))
        what = "slowdown planted on" if self.sd.active else "its hosts share"
        own = self.host_files()
        self.ctx.log(
            f"testbed '{self.ctx.params.name}': {what} cgroup {self.parent}: "
            + "; ".join(
                part
                for part in (
                    applied_text(settings, self.sd, self._cpus) if settings else "",
                    "each host's own cgroup below it: " + ";".join(f"{k}={v}" for k, v in own.items()) if own else "",
                )
                if part
            )
        )

    def native_argv(self, spec: HostParams, argv: list[str]) -> list[str]:
        """A native host's command, started inside its cgroup below the parent (unchanged when
        nothing is planted on cgroups)."""
        procs = self.host_procs(spec)
        return in_cgroups_argv(procs, argv) if procs else argv

    def init_argv(self, argv: list[str]) -> list[str]:
        """A native host's sshd command, under the tracer when system calls are stopped (else as is):
        the innermost command, so that the tracer lives in the host's namespaces and cgroups."""
        if not self.sd.syscall_stops:
            return argv
        return syscall_stops.traced_argv(syscall_stops.find_strace(), argv, self.sd.syscall_stops)

    def host_procs(self, spec: HostParams) -> list[Path]:
        """The `cgroup.procs` a native host's first process moves itself into (made and recorded
        here, the planted disk throttles written in them; none when nothing is planted on cgroups)."""
        ctrls = self.hierarchies()
        if not ctrls:
            return []
        mounts = cgroup_mounts()
        rel = host_cgroup(self.ctx.params.name, spec.name)
        self.ctx.record(STATE_CGROUPS, rel)
        procs = []
        for ctrl in ctrls:
            d = mounts[ctrl] / rel
            d.mkdir(exist_ok=True)  # below the parent this testbed made
            if ctrl == "cpuset":  # the testbed's CPUs (a new v1 cpuset cgroup takes no task before it has some)
                (d / "cpuset.cpus").write_text(self.cpuset or (d.parent / "cpuset.cpus").read_text().strip())
                (d / "cpuset.mems").write_text((d.parent / "cpuset.mems").read_text().strip())
            procs.append(d / "cgroup.procs")
        write_settings(rel, self.host_files(), mounts)
        return procs

    def shape_host(self, spec: HostParams, index: int) -> None:
        """The delay and rate on the way into one host (after its interface exists)."""
        for dev, ns in host_links(self.ctx.params, spec, index, self.ctx.layout):
            cmds = shape_commands(self.sd, dev, ns)
            if cmds:
                self.ctx.record(STATE_QDISCS, {"dev": dev, "netns": ns})
            for cmd in cmds:
                sysops.run(cmd)

    def verify_host(self, spec: HostParams, index: int, pid: int) -> dict[str, str]:
        """Read back what is planted on one host (its init `pid`); fail if it differs. Returns facts."""
        sd = self.sd
        if not self.makes_parent:
            return {}
        settings = self.settings()
        # A container's disk throttles are its limits (params.planted_disk), read back with them.
        own = self.host_files() if spec.platform == "native" else {}
        what = f"{spec.platform} host {spec.name}"
        bad = mismatches(settings, read_settings(self.parent, list(settings)))
        rel = host_cgroup(self.ctx.params.name, spec.name)
        bad += [f"{rel}: {m}" for m in mismatches(own, read_settings(rel, list(own)))]
        proc = proc_cgroup(pid)
        if not proc:
            bad.append(f"its init process {pid} is gone")
        bad += membership_problems(proc, self.parent, self.hierarchies()) if proc else []
        bad += exact_membership_problems(proc, rel, controllers(own)) if proc else []
        if sd.syscall_stops and spec.platform == "native":
            bad += syscall_stops.tracer_problems(pid)
        if self.cpuset is not None and proc:
            allowed = cpus_allowed(pid)
            if allowed != parse_cpuset(self.cpuset):
                bad.append(f"its init process {pid} may run on CPUs {allowed}, not {self.cpuset}")
        for dev, ns in host_links(self.ctx.params, spec, index, self.ctx.layout) if sd.network else []:
            bad += qdisc_problems(sd, dev, sysops.run(show_command(dev, ns), check=False).stdout)
        if bad:
            raise VbenchError(f"{what}: {self._what()} is not applied as asked: " + "; ".join(bad))
        placed = {"cpuset": self.cpuset} if self.cpuset is not None else {}
        if not sd.active:
            return {**({"cpu_group": self.parent} if self.cpu_group else {}), **placed}
        return {
            "slowdown": sd.describe(),
            "slowdown_applied": applied_text(
                {k: normalise(k, v) for k, v in (settings | self.host_files()).items()}, sd, self._cpus
            ),
            **placed,
        }


def remove_qdiscs(state: dict, log) -> None:
    """Delete the qdiscs a testbed's state says a slowdown put on its links (the links may be gone
    already, and their qdiscs with them)."""
    for rec in state.get(STATE_QDISCS, []):
        if not isinstance(rec, dict) or not isinstance(rec.get("dev"), str):
            continue
        dev, ns = rec["dev"], rec.get("netns")
        if ns is not None and (not isinstance(ns, str) or ns not in sysops.existing_netns()):
            continue
        if sysops.run([*_in_netns(ns), "ip", "link", "show", dev], check=False).returncode != 0:
            continue
        r = sysops.run(unshape_command(dev, ns), check=False)
        if r.returncode != 0 and "No such file" not in r.stderr and "Cannot find" not in r.stderr:
            log(f"teardown: qdisc of {dev} could not be removed: {r.stderr.strip()}")

"""A local testbed: emulated hosts on a private bridge of this machine, each with its own
address, hostname, /etc/hosts, data directory and sshd, driven over SSH like real machines.
What a host *is* (a network namespace, a container, a VM) is its platform's provisioner.

Lifecycle: `up()` creates everything and records each resource in a state file as soon as it
exists, so `down()` can undo a half-finished `up()`; `down()` is idempotent. vbench runs as
root, so it acts only on what it created (vbench.testbed.owned): the state directory is its
own (0700, checked before it is read), a pid is killed only while it is still the process
vbench started, a bridge, link or namespace that exists before bring-up is refused rather than
adopted, teardown removes only what the state file lists (processes in the testbed's cgroups
excepted: every one of them is the testbed's), and one process at a time works on a testbed
(a lock per name).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import time
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from vbench.each_host import on_each
from vbench.errors import VbenchError
from vbench.host import Host, connect, known_hosts_line
from vbench.lifecycle import UpDown, shielded
from vbench.machine_fit import check_physical_hosts_fit
from vbench.params import HostParams, TestbedParams
from vbench.testbed import facts, freezer, netcmd, owned, physnet, physhosts, sysops
from vbench.testbed.guest import testbed_cgroup
from vbench.testbed.limits import cgroup_dirs, cgroup_pids, kill_cgroup, remove_cgroups
from vbench.testbed.native import attach_netns, remove_netns
from vbench.testbed.placement import with_placement
from vbench.testbed.platforms import provisioner_for
from vbench.testbed.provisioner import Created, TestbedContext, TestbedPaths
from vbench.testbed.slowdown import STATE_CGROUPS, Slowdown, membership_problems, proc_cgroup, remove_qdiscs

#: The state file's list of "<host>=<platform>" the testbed's hosts were made as.
STATE_PLATFORMS = "platforms"

Log = Callable[[str], None]

__all__ = ["Testbed", "TestbedPaths", "TestbedStatus", "testbed_status"]


class Testbed(UpDown):
    """Emulated hosts of one testbed. Use as a context manager to guarantee teardown."""

    __test__ = False

    def __init__(self, params: TestbedParams, log: Log = print):
        self.params = params
        self.paths = TestbedPaths(params.work_root / params.name)
        self.log = log
        self.hosts: list[Host] = []
        self._state: dict = {}
        self.bringup_seconds: float | None = None
        #: This object brought the testbed up or attached to it (so its down() removes it).
        self._mine = False
        #: up() outside a `with`: the testbed is meant to outlive this process (`vbench testbed up`).
        self._keep = True
        self.ctx = TestbedContext(params, self.paths, self._record, log, self._owns)
        #: The planted slowdown (testbed.slowdown; nothing when it plants nothing).
        self.slowdown = Slowdown(self.ctx)

    def __enter__(self):
        self._keep = False  # a `with` block takes it down again: what it leaves after a kill -9 is a leftover
        return super().__enter__()

    @property
    def bridge(self) -> str:
        return self.params.network.bridge

    @property
    def controller_netns(self) -> str:
        return netcmd.controller_netns(self.params.name)

    def _indexed_specs(self):
        # Index 0 is the controller's veth; hosts count from 1.
        return list(enumerate(self.params.resolved_hosts(), start=1))

    def _netns_all(self) -> list[str]:
        hosts = [netcmd.netns_name(self.params.name, h.name) for h in self.params.resolved_hosts()]
        return [self.controller_netns, *hosts, *self._physical_netns()]

    def _planned_links(self) -> list[str]:
        """Every link name bring-up may create in this machine's namespace (veths, their peers
        before they move, taps, uplinks), to refuse them if they exist already."""
        name, out = self.params.name, []
        for i in range(len(self._indexed_specs()) + 1):
            out += [*netcmd.veth_names(name, i), *physnet.nat_veth_names(name, i)]
        for k in range(1, len(self._physical_netns()) + 1):
            out += [physnet.uplink_name(name, k), physnet.uplink_name(name, k) + "i"]
        return out

    def _physical_netns(self) -> list[str]:
        # From the params alone, whatever the mode: the names bring-up refuses if they exist, and
        # those teardown names (without deleting them) when no state file lists them.
        phys = dict.fromkeys(self.params.physical_hosts().values())
        return [physnet.physical_netns(self.params.name, p) for p in phys]

    # -- state -------------------------------------------------------------------------
    def _record(self, key: str, value) -> None:
        self._state.setdefault(key, [])
        if value not in self._state[key]:
            self._state[key].append(value)
        tmp = self.paths.state_file.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(json.dumps(self._state, indent=1))
        tmp.replace(self.paths.state_file)

    def _owns(self, kind: str, value) -> bool:
        return value in (self._state.get(kind) or [])

    def _load_state(self) -> dict:
        """The state file, read only from a directory vbench could have made (else refused)."""
        owned.check_state_dir(self.paths.work_root)
        owned.check_state_dir(self.paths.root)
        try:
            state = json.loads(self.paths.state_file.read_text())
        except (FileNotFoundError, NotADirectoryError, json.JSONDecodeError):
            return {}
        return state if isinstance(state, dict) else {}

    def _lock(self) -> bool:
        """Take the testbed's lock (refused naming its holder); True when taken just now."""
        if owned.holds(self.paths.lock_file):
            return False
        owned.make_state_dir(self.paths.work_root)
        owned.acquire(self.paths.lock_file, f"testbed '{self.params.name}'")
        return True

    # -- lifecycle ---------------------------------------------------------------------
    def preflight(self) -> None:
        """Refuse to start over an existing testbed, or without the tools, before creating anything."""
        if os.geteuid() != 0:
            raise VbenchError("the local testbed needs root (network namespaces, bridges, sshd)")
        for tool in ("ip", "ssh-keygen", "nc"):
            if shutil.which(tool) is None:
                raise VbenchError(f"'{tool}' is not installed; run the README's setup command")
        owned.check_state_dir(self.paths.work_root)
        problem = owned.preexisting_problem(
            self.bridge,
            self._planned_links(),
            self._netns_all(),
            sysops.existing_links(),
            sysops.existing_netns(),
            self.paths.state_file.exists(),
            str(self.paths.root),
            os.path.lexists(self.paths.root),
        )
        if problem:
            raise VbenchError(f"testbed '{self.params.name}' {problem}")
        check_physical_hosts_fit(self.params)
        if self.ctx.layout is not None:
            self._preflight_physical_hosts()
        by_platform: dict[str, list] = {}
        for spec in self.params.resolved_hosts():
            by_platform.setdefault(spec.platform, []).append(spec)
        for platform, specs in by_platform.items():
            provisioner_for(platform).preflight(specs, self.ctx)
        self.slowdown.preflight()
        if self.params.freezer:
            freezer.preflight(self.params.name)

    def _preflight_physical_hosts(self) -> None:
        p = self.params
        if shutil.which("tc") is None:
            raise VbenchError("'tc' is not installed (Debian package iproute2)")
        if p.network.mode != "bridge" and shutil.which("nft") is None:
            raise VbenchError(f"network.mode {p.network.mode!r} needs 'nft' (Debian package nftables)")
        # LXC attaches its veth to a bridge of the root namespace and QEMU its tap: neither can
        # reach a bridge inside a physical host's namespace (yet); say so rather than half-work.
        odd = sorted({h.platform for h in p.resolved_hosts()} - {"native", "oci"})
        if odd:
            raise VbenchError(
                f"emulated physical hosts (network.mode {p.network.mode!r}, vms_per_host={p.vms_per_host}, "
                f"link shaping) work with native and oci hosts; not yet with {', '.join(odd)} "
                "(use network.mode bridge, vms_per_host 1, no network.link)"
            )
        if p.network.link.delay_ms > 0 and not physhosts.netem_available():
            raise VbenchError(
                "network.link.delay_ms: this kernel has no netem qdisc (sch_netem), so no delay can be "
                "emulated here; set delay_ms to 0 (rate shaping with tbf works)"
            )

    def up(self) -> list[Host]:
        # A refused up() created nothing, and must not tear down what it was refused for (a
        # testbed of the same name that already exists).
        self._refused = True
        locked_now = self._lock()
        try:
            self.preflight()
        except BaseException:
            if locked_now:
                owned.release(self.paths.lock_file)
            raise
        self._refused = False
        self._mine = True
        t0 = time.monotonic()
        p, paths = self.params, self.paths
        owned.make_own_dir(paths.root)
        holder = {**owned.process_record(os.getpid()), "cmd": " ".join(sys.argv)[:300]}
        self._state = {
            "testbed": p.name,
            "bridge": p.network.bridge,
            "root": str(paths.root),
            "holder": holder,
            "kept": self._keep,
        }
        self._record("dirs", str(paths.root))
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory

        for cmd in netcmd.create_bridge(self.bridge):
            sysops.run(cmd)
            self._record("links", self.bridge)
        attach_netns(self.ctx, self.controller_netns, 0, str(p.controller_address))
        lay = self.ctx.layout
        if lay is not None:
            physhosts.create_physical_hosts(self.ctx, lay)

        sysops.ssh_keygen(paths.client_key, f"vbench-{p.name}")
        paths.authorized_keys.write_text(paths.client_key.with_suffix(".pub").read_text())
        specs = self._indexed_specs()
        paths.hosts_file.write_text(netcmd.hosts_file([(h.name, str(h.address)) for _, h in specs]))
        if lay is not None:
            for g in lay.guests:
                paths.hosts_file_of(g.name).write_text(netcmd.hosts_file(physnet.hosts_view(lay, g.name)))

        # The planted slowdown's parent cgroup exists before any host, so each is born inside it.
        self.slowdown.create_parent()
        if p.freezer:
            freezer.create_parent(p.name, lambda rel: self.ctx.record(STATE_CGROUPS, rel))
        created: list[Created] = []
        started: list[float] = []
        for i, spec in specs:
            self._record(STATE_PLATFORMS, f"{spec.name}={spec.platform}")
            started.append(time.monotonic())
            created.append(provisioner_for(spec.platform).create(spec, i, self.ctx))
            self.slowdown.shape_host(spec, i)
        paths.known_hosts.write_text(
            "".join(known_hosts_line([c.host.address, c.host.name], c.host_key) + "\n" for c in created)
        )
        self.hosts = [c.host for c in created]
        ready = self._wait_ssh(created)
        # Limits and the planted slowdown read back, and host facts (vbench.testbed.facts), kept with each host.
        self.hosts = [
            facts.finish(
                c.host,
                spec,
                self.ctx,
                provisioner_for(spec.platform),
                ready[c.host.name] - t_start,
                self._slowdown_facts(spec, i),
            )
            for c, (i, spec), t_start in zip(created, specs, started)
        ]
        self.hosts = with_placement(self.hosts, p)
        self.bringup_seconds = time.monotonic() - t0
        self.log(
            f"testbed '{p.name}': {len(self.hosts)} hosts reachable over SSH in {self.bringup_seconds:.1f} s ("
            + ", ".join(f"{h.name} {h.platform} {h.facts['ssh_ready_s']} s" for h in self.hosts)
            + ")"
        )
        return self.hosts

    def _slowdown_facts(self, spec: HostParams, index: int) -> dict[str, str]:
        """What the planted slowdown holds on one host, read back (nothing when none is planted),
        and, with a freezer, the check that the host's first process is inside its freezer cgroup."""
        if not (self.params.slowdown.active or self.params.freezer or self.params.cpu_group or self.params.cpuset):
            return {}
        pid = provisioner_for(spec.platform).init_pid(spec, self.ctx)  # type: ignore[attr-defined]
        if self.params.freezer:
            rel = freezer.host_rel(self.params.name, spec.name)
            bad = membership_problems(proc_cgroup(pid), rel, [freezer.CONTROLLER])
            if bad:
                raise VbenchError(f"{spec.platform} host {spec.name} cannot be frozen whole: " + "; ".join(bad))
        return self.slowdown.verify_host(spec, index, pid)

    def recorded_platforms(self) -> dict[str, str]:
        """Each host's platform as this testbed's bring-up recorded it (empty: none recorded)."""
        entries = self._load_state().get(STATE_PLATFORMS) or []
        return dict(e.split("=", 1) for e in entries if isinstance(e, str) and "=" in e)

    def attach(self) -> list[Host]:
        """The hosts of a testbed that an earlier `up()` (maybe another process) created."""
        owned.check_state_dir(self.paths.work_root)
        if not self.paths.state_file.exists():
            raise VbenchError(f"testbed '{self.params.name}' is not up; run `vbench testbed up`")
        self._lock()  # no second process drives hosts a campaign measures on
        self._state = self._load_state()
        self._mine = True
        self.hosts = [
            facts.with_saved_facts(provisioner_for(s.platform).host(s, self.ctx), s, self.ctx)
            for _, s in self._indexed_specs()
        ]
        self.hosts = with_placement(self.hosts, self.params)
        return self.hosts

    def _wait_ssh(self, created: list[Created]) -> dict[str, float]:
        """Wait until each sshd listens, then check that each host answers with its own hostname.
        Returns when (time.monotonic()) each host answered."""

        stop = threading.Event()  # set when the wait is interrupted: the polls below end at once

        def wait_one(c: Created) -> float:
            host = c.host
            timeout_s = c.ready_timeout_s
            deadline = time.monotonic() + timeout_s
            # Where the sshd log is readable, poll it rather than the port: a connection
            # attempt abandoned during start-up leaves paramiko threads reporting errors later.
            while c.sshd_log is not None and "Server listening" not in sysops.read_text(c.sshd_log):
                _raise_if_stopped_or_dead(c, stop)
                if time.monotonic() > deadline:
                    raise VbenchError(
                        f"sshd on {host.name} ({host.address}) did not start in {timeout_s:.0f} s; log: {c.sshd_log}"
                    )
                time.sleep(0.05)
            name = self._hostname_when_reachable(host, deadline, c, stop)
            if name != host.name:
                raise VbenchError(f"host {host.address} answers with hostname {name!r}, expected {host.name!r}")
            return time.monotonic()

        return dict(zip([c.host.name for c in created], on_each(wait_one, created, stop=stop)))

    @staticmethod
    def _hostname_when_reachable(host: Host, deadline: float, created: Created, stop: threading.Event) -> str:
        transport_log = logging.getLogger("paramiko.transport")
        last = ""
        while True:
            _raise_if_stopped_or_dead(created, stop)
            try:
                with connect(host, connect_timeout=max(1.0, min(10.0, deadline - time.monotonic()))) as c:
                    return c.run("hostname", hide=True, in_stream=False).stdout.strip()
            except Exception as exc:  # not listening yet (hosts without a readable sshd log)
                last = f"{type(exc).__name__}: {exc}"
                transport_log.setLevel(logging.CRITICAL)
            if time.monotonic() > deadline:
                raise VbenchError(f"{host.name} ({host.address}) not reachable over SSH: {last}")
            time.sleep(0.5)

    def down(self, remove_kept: bool = False) -> None:
        """Remove every host, process, namespace, link and file this testbed's state says it
        created. Harmless twice. A testbed another process brought up to stay up (`vbench testbed
        up`) is removed only with `remove_kept` (`vbench testbed down`): a campaign clearing the
        leftovers of a killed run must not destroy a testbed someone is using."""
        if getattr(self, "_refused", False):
            return
        with shielded():
            self._down(remove_kept)

    def _down(self, remove_kept: bool) -> None:
        owned.check_state_dir(self.paths.work_root)
        if os.path.lexists(self.paths.work_root):
            self._lock()
        try:
            state = self._load_state() or self._state
            self._refuse_kept(state, remove_kept)
            self._state = state  # what ctx.owns() answers from while the provisioners tear down
            if not state:
                self._say_unowned()
            self._remove(state)
        finally:
            owned.release(self.paths.lock_file)
        self.hosts = []
        self._state = {}
        self._mine = False

    def _refuse_kept(self, state: dict, remove_kept: bool) -> None:
        holder = state.get("holder") if isinstance(state.get("holder"), dict) else {}
        if state.get("kept") and not (remove_kept or self._mine or owned.still_ours(holder)):
            raise VbenchError(
                f"testbed '{self.params.name}' was brought up to stay up by pid {holder.get('pid', '?')} "
                f"(`{holder.get('cmd', '?')}`) and is not removed here (it may be in use); remove it with "
                "`vbench testbed down`, or give this run another testbed name"
            )

    def _say_unowned(self) -> None:
        """Without a state file nothing is vbench's to delete; name what only looks like it."""
        ns = [n for n in self._netns_all() if n in sysops.existing_netns()]
        links = sorted(set(self._planned_links() + [self.bridge]) & sysops.existing_links())
        if ns or links:
            self.log(
                f"teardown: no state at {self.paths.state_file}; "
                + ", ".join([f"namespace {n}" for n in ns] + [f"link {link}" for link in links])
                + " have this testbed's names but no vbench state says it created them: left in place "
                "(remove them yourself if they are yours)"
            )

    def _remove(self, state: dict) -> None:
        remove_qdiscs(state, self.log)  # a planted slowdown's, before the links they sit on go
        freezer.thaw_tree(self.params.name)  # a frozen process cannot die (a runner killed mid-freeze)
        for i, spec in reversed(self._indexed_specs()):
            try:
                provisioner_for(spec.platform).destroy(spec, i, self.ctx)
            except Exception as exc:  # keep tearing down the rest; say what was left
                self.log(f"teardown of {spec.name} ({spec.platform}) failed: {exc}")
        for ns in reversed(state.get("netns", [])):
            remove_netns(ns)
        records = state.get("pids", [])
        sysops.kill_pids([r["pid"] for r in records if owned.still_ours(r) and sysops.alive(r["pid"])])
        for r in records:
            pid = r.get("pid") if isinstance(r, dict) else r
            if isinstance(pid, int) and not owned.still_ours(r) and sysops.alive(pid):
                self.log(
                    f"teardown: pid {pid} is no longer the process vbench started (another start time); left alone"
                )
        # Whatever a container or VM left in the testbed's cgroup tree (e.g. torn down with
        # params naming another platform): every process there is the testbed's.
        kill_cgroup(testbed_cgroup(self.params.name))
        for left in remove_cgroups(testbed_cgroup(self.params.name)):
            self.log(f"teardown: cgroup {left} could not be removed")
        links = list(dict.fromkeys(state.get("links", [])))
        bridge = state.get("bridge", self.bridge)
        for link in [x for x in links if x != bridge] + [x for x in links if x == bridge]:  # the bridge last
            if sysops.link_exists(link):
                sysops.run(netcmd.delete_link(link), check=False)
        root = self.paths.root
        if str(root) in state.get("dirs", []) and root.is_dir() and not root.is_symlink():
            shutil.rmtree(root, ignore_errors=True)
        elif os.path.lexists(root):
            self.log(f"teardown: {root} is in no vbench state; left in place")


def _raise_if_stopped_or_dead(c: Created, stop: threading.Event) -> None:
    if stop.is_set():  # the caller was interrupted and has gone on to tear the testbed down
        raise VbenchError(f"{c.host.name}: the wait for its sshd was interrupted")
    why = c.failure() if c.failure is not None else None
    if why:
        raise VbenchError(f"{c.host.name} ({c.host.platform}) died while starting: {why}")


def platform_mismatch(recorded: dict[str, str], asked: Sequence[HostParams]) -> str | None:
    """What differs between the platforms a testbed's hosts were made with and those `asked` of
    it, said for a user; None when they agree or nothing was recorded. Pure."""
    if not recorded:
        return None
    want = {h.name: h.platform for h in asked}
    if want == recorded:
        return None
    made = ", ".join(f"{n} {p}" for n, p in sorted(recorded.items()))
    wanted = ", ".join(f"{n} {p}" for n, p in sorted(want.items()))
    return f"its hosts were made as {made}; this asks for {wanted}"


@dataclass(frozen=True)
class TestbedStatus:
    __test__ = False

    name: str
    exists: bool
    namespaces: tuple[str, ...]
    bridge_up: bool
    processes: int


def testbed_pids(params: TestbedParams) -> set[int]:
    """The processes of a testbed: those in its network namespaces (native hosts, the
    controller's) and those in its cgroup vbench-<testbed> (containers and VMs, not all in
    namespaces of their own)."""
    tb = Testbed(params, log=lambda _m: None)
    ns = tuple(n for n in tb._netns_all() if n in sysops.existing_netns())
    return {p for n in ns for p in sysops.netns_pids(n)} | cgroup_pids(testbed_cgroup(params.name))


def testbed_status(params: TestbedParams) -> TestbedStatus:
    tb = Testbed(params, log=lambda _m: None)
    ns = tuple(n for n in tb._netns_all() if n in sysops.existing_netns())
    cgroup = testbed_cgroup(params.name)
    exists = bool(ns) or bool(cgroup_dirs(cgroup)) or tb.paths.state_file.exists()
    return TestbedStatus(params.name, exists, ns, sysops.link_exists(tb.bridge), len(testbed_pids(params)))

"""A local testbed: emulated hosts on a private bridge of this machine, each with its own
address, hostname, /etc/hosts, data directory and sshd, driven over SSH like real machines.
What a host *is* (a network namespace, a container, a VM) is its platform's provisioner.

Lifecycle: `up()` creates everything and records each resource in a state file as soon as it
exists, so `down()` can undo a half-finished `up()`; `down()` is idempotent and also finds
resources by their names when the state file is gone.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from vbench.errors import VbenchError
from vbench.host import Host, connect, known_hosts_line
from vbench.lifecycle import UpDown, shielded
from vbench.params import TestbedParams, check_physical_hosts_fit
from vbench.testbed import facts, netcmd, physnet, physhosts, sysops
from vbench.testbed.guest import testbed_cgroup
from vbench.testbed.limits import cgroup_dirs, cgroup_pids, kill_cgroup, remove_cgroups
from vbench.testbed.native import attach_netns, remove_netns
from vbench.testbed.placement import with_placement
from vbench.testbed.platforms import provisioner_for
from vbench.testbed.provisioner import Created, TestbedContext, TestbedPaths

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
        self.ctx = TestbedContext(params, self.paths, self._record, log)

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

    def _physical_netns(self) -> list[str]:
        # From the params alone (teardown without a state file), whatever the mode: a testbed
        # brought up with other network params must still be found by its physical hosts' names.
        phys = dict.fromkeys(self.params.physical_hosts().values())
        return [physnet.physical_netns(self.params.name, p) for p in phys]

    # -- state -------------------------------------------------------------------------
    def _record(self, key: str, value) -> None:
        self._state.setdefault(key, [])
        if value not in self._state[key]:
            self._state[key].append(value)
        self.paths.root.mkdir(parents=True, exist_ok=True)
        tmp = self.paths.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(self._state, indent=1))
        tmp.replace(self.paths.state_file)

    def _load_state(self) -> dict:
        try:
            return json.loads(self.paths.state_file.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    # -- lifecycle ---------------------------------------------------------------------
    def preflight(self) -> None:
        """Refuse to start over an existing testbed, or without the tools, before creating anything."""
        if os.geteuid() != 0:
            raise VbenchError("the local testbed needs root (network namespaces, bridges, sshd)")
        for tool in ("ip", "ssh-keygen", "nc"):
            if shutil.which(tool) is None:
                raise VbenchError(f"'{tool}' is not installed; run the README's setup command")
        clash = [n for n in self._netns_all() if n in sysops.existing_netns()]
        if clash or sysops.link_exists(self.bridge) or self.paths.state_file.exists():
            raise VbenchError(
                f"testbed '{self.params.name}' already exists (namespaces {clash or '-'}, bridge "
                f"{self.bridge}); run `vbench testbed down` first"
            )
        check_physical_hosts_fit(self.params)
        if self.ctx.layout is not None:
            self._preflight_physical_hosts()
        by_platform: dict[str, list] = {}
        for spec in self.params.resolved_hosts():
            by_platform.setdefault(spec.platform, []).append(spec)
        for platform, specs in by_platform.items():
            provisioner_for(platform).preflight(specs, self.ctx)

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
            raise VbenchError(f"emulated physical hosts (network.mode {p.network.mode!r}, vms_per_host={p.vms_per_host}, "
                              f"link shaping) work with native and oci hosts; not yet with {', '.join(odd)} "
                              "(use network.mode bridge, vms_per_host 1, no network.link)")
        if p.network.link.delay_ms > 0 and not physhosts.netem_available():
            raise VbenchError("network.link.delay_ms: this kernel has no netem qdisc (sch_netem), so no delay can be "
                              "emulated here; set delay_ms to 0 (rate shaping with tbf works)")

    def up(self) -> list[Host]:
        # A refused up() created nothing, and must not tear down what it was refused for (a
        # testbed of the same name that already exists).
        self._refused = True
        self.preflight()
        self._refused = False
        t0 = time.monotonic()
        p, paths = self.params, self.paths
        self._state = {"testbed": p.name, "bridge": p.network.bridge, "root": str(paths.root)}
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

        created: list[Created] = []
        started: list[float] = []
        for i, spec in specs:
            started.append(time.monotonic())
            created.append(provisioner_for(spec.platform).create(spec, i, self.ctx))
        paths.known_hosts.write_text(
            "".join(known_hosts_line([c.host.address, c.host.name], c.host_key) + "\n" for c in created)
        )
        self.hosts = [c.host for c in created]
        ready = self._wait_ssh(created)
        # Limits read back and host facts (vbench.testbed.facts), kept with each host.
        self.hosts = [
            facts.finish(c.host, spec, self.ctx, provisioner_for(spec.platform), ready[c.host.name] - t_start)
            for c, (_, spec), t_start in zip(created, specs, started)
        ]
        self.hosts = with_placement(self.hosts, p)
        self.bringup_seconds = time.monotonic() - t0
        self.log(f"testbed '{p.name}': {len(self.hosts)} hosts reachable over SSH in {self.bringup_seconds:.1f} s ("
                 + ", ".join(f"{h.name} {h.platform} {h.facts['ssh_ready_s']} s" for h in self.hosts) + ")")
        return self.hosts

    def attach(self) -> list[Host]:
        """The hosts of a testbed that an earlier `up()` (maybe another process) created."""
        if not self.paths.state_file.exists():
            raise VbenchError(f"testbed '{self.params.name}' is not up; run `vbench testbed up`")
        self._state = self._load_state()
        self.hosts = [facts.with_saved_facts(provisioner_for(s.platform).host(s, self.ctx), s, self.ctx)
                      for _, s in self._indexed_specs()]
        self.hosts = with_placement(self.hosts, self.params)
        return self.hosts

    def _wait_ssh(self, created: list[Created]) -> dict[str, float]:
        """Wait until each sshd listens, then check that each host answers with its own hostname.
        Returns when (time.monotonic()) each host answered."""

        def wait_one(c: Created) -> float:
            host = c.host
            timeout_s = c.ready_timeout_s
            deadline = time.monotonic() + timeout_s
            # Where the sshd log is readable, poll it rather than the port: a connection
            # attempt abandoned during start-up leaves paramiko threads reporting errors later.
            while c.sshd_log is not None and "Server listening" not in sysops.read_text(c.sshd_log):
                _raise_if_dead(c)
                if time.monotonic() > deadline:
                    raise VbenchError(f"sshd on {host.name} ({host.address}) did not start in {timeout_s:.0f} s; log: {c.sshd_log}")
                time.sleep(0.05)
            name = self._hostname_when_reachable(host, deadline, c)
            if name != host.name:
                raise VbenchError(f"host {host.address} answers with hostname {name!r}, expected {host.name!r}")
            return time.monotonic()

        with ThreadPoolExecutor(max_workers=max(1, len(created))) as pool:
            return dict(zip([c.host.name for c in created], pool.map(wait_one, created)))

    @staticmethod
    def _hostname_when_reachable(host: Host, deadline: float, created: Created | None = None) -> str:
        transport_log = logging.getLogger("paramiko.transport")
        last = ""
        while True:
            if created is not None:
                _raise_if_dead(created)
            try:
                with connect(host, connect_timeout=max(1.0, min(10.0, deadline - time.monotonic()))) as c:
                    return c.run("hostname", hide=True, in_stream=False).stdout.strip()
            except Exception as exc:  # not listening yet (hosts without a readable sshd log)
                last = f"{type(exc).__name__}: {exc}"
                transport_log.setLevel(logging.CRITICAL)
            if time.monotonic() > deadline:
                raise VbenchError(f"{host.name} ({host.address}) not reachable over SSH: {last}")
            time.sleep(0.5)

    def down(self) -> None:
        """Remove every host, process, namespace, link and file of this testbed. Harmless twice."""
        if getattr(self, "_refused", False):
            return
        with shielded():
            self._down()

    def _down(self) -> None:
        state = self._load_state() or self._state
        for i, spec in reversed(self._indexed_specs()):
            try:
                provisioner_for(spec.platform).destroy(spec, i, self.ctx)
            except Exception as exc:  # keep tearing down the rest; say what was left
                self.log(f"teardown of {spec.name} ({spec.platform}) failed: {exc}")
        for ns in sorted(set(state.get("netns", [])) | set(self._netns_all())):
            remove_netns(ns)
        sysops.kill_pids([p for p in state.get("pids", []) if sysops.alive(p)])
        # Whatever a container or VM left in the testbed's cgroup tree (e.g. torn down with
        # params naming another platform): every process there is the testbed's.
        kill_cgroup(testbed_cgroup(self.params.name))
        for left in remove_cgroups(testbed_cgroup(self.params.name)):
            self.log(f"teardown: cgroup {left} could not be removed")
        index_count = len(self._netns_all())
        links = set(state.get("links", [])) | {netcmd.veth_names(self.params.name, i)[0] for i in range(index_count)}
        links |= {physnet.uplink_name(self.params.name, k) for k in range(1, len(self._physical_netns()) + 1)}
        links |= {physnet.nat_veth_names(self.params.name, i)[0] for i in range(index_count)}
        for link in sorted(links - {self.bridge}) + [self.bridge]:
            if sysops.link_exists(link):
                sysops.run(netcmd.delete_link(link), check=False)
        if self.paths.root.exists():
            shutil.rmtree(self.paths.root, ignore_errors=True)
        self.hosts = []
        self._state = {}


def _raise_if_dead(c: Created) -> None:
    why = c.failure() if c.failure is not None else None
    if why:
        raise VbenchError(f"{c.host.name} ({c.host.platform}) died while starting: {why}")


@dataclass(frozen=True)
class TestbedStatus:
    __test__ = False

    name: str
    exists: bool
    namespaces: tuple[str, ...]
    bridge_up: bool
    processes: int


def testbed_status(params: TestbedParams) -> TestbedStatus:
    tb = Testbed(params, log=lambda _m: None)
    ns = tuple(n for n in tb._netns_all() if n in sysops.existing_netns())
    # Containers and VMs live in the cgroup vbench-<testbed> (not all in namespaces of their own).
    cgroup = testbed_cgroup(params.name)
    procs = {p for n in ns for p in sysops.netns_pids(n)} | cgroup_pids(cgroup)
    exists = bool(ns) or bool(cgroup_dirs(cgroup)) or tb.paths.state_file.exists()
    return TestbedStatus(params.name, exists, ns, sysops.link_exists(tb.bridge), len(procs))

"""A local testbed: hosts as Linux network namespaces on a private bridge, each with its own
address, hostname, /etc/hosts, data directory and sshd, driven over SSH like real machines.

Lifecycle: `up()` creates everything and records each resource in a state file as soon as it
exists, so `down()` can undo a half-finished `up()`; `down()` is idempotent and also finds
resources by their names when the state file is gone.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from vbench.errors import VbenchError
from vbench.lifecycle import shielded
from vbench.host import Host, SshEndpoint, connect, known_hosts_line
from vbench.params import TestbedParams
from vbench.testbed import netcmd
from vbench.testbed.sshd import sshd_config

Log = Callable[[str], None]


def _run(cmd: list[str], check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise VbenchError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.strip()}")
    return proc


def _existing_netns() -> set[str]:
    out = _run(["ip", "netns", "list"], check=False).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def _link_exists(name: str) -> bool:
    return _run(["ip", "link", "show", name], check=False).returncode == 0


def _netns_pids(netns: str) -> list[int]:
    out = _run(["ip", "netns", "pids", netns], check=False).stdout
    return [int(p) for p in out.split()]


def _kill_pids(pids: list[int], grace_s: float = 5.0) -> None:
    """TERM, wait up to `grace_s`, then KILL what is left. Only pids we started are passed."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace_s
    alive = list(pids)
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if _alive(p)]
        if alive:
            time.sleep(0.1)
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return ""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@dataclass(frozen=True)
class TestbedPaths:
    """Where a testbed keeps its keys, configs and per-host data, all under one directory."""

    __test__ = False

    root: Path

    @property
    def state_file(self) -> Path:
        return self.root / "state.json"

    @property
    def client_key(self) -> Path:
        return self.root / "id_ed25519"

    @property
    def authorized_keys(self) -> Path:
        return self.root / "authorized_keys"

    @property
    def known_hosts(self) -> Path:
        return self.root / "known_hosts"

    @property
    def hosts_file(self) -> Path:
        return self.root / "etc_hosts"

    def host_dir(self, name: str) -> Path:
        return self.root / "hosts" / name


class Testbed:
    """Emulated hosts of one testbed. Use as a context manager to guarantee teardown."""

    __test__ = False

    def __init__(self, params: TestbedParams, log: Log = print):
        self.params = params
        self.paths = TestbedPaths(params.work_root / params.name)
        self.log = log
        self.hosts: list[Host] = []
        self._state: dict = {}
        self.bringup_seconds: float | None = None

    # -- names -------------------------------------------------------------------------
    @property
    def bridge(self) -> str:
        return self.params.network.bridge

    def _netns_all(self) -> list[str]:
        names = [netcmd.netns_name(self.params.name, h.name) for h in self.params.resolved_hosts()]
        return [netcmd.controller_netns(self.params.name), *names]

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
        """Refuse to start over a testbed that exists, or without the tools, before creating anything."""
        if os.geteuid() != 0:
            raise VbenchError("the local testbed needs root (network namespaces, bridges, sshd)")
        for tool in ("ip", "unshare", "ssh-keygen", "nc"):
            if shutil.which(tool) is None:
                raise VbenchError(f"'{tool}' is not installed; run the README's setup command")
        if not Path("/usr/sbin/sshd").exists():
            raise VbenchError("/usr/sbin/sshd is not installed (Debian package openssh-server)")
        clash = [n for n in self._netns_all() if n in _existing_netns()]
        if clash or _link_exists(self.bridge) or self.paths.state_file.exists():
            raise VbenchError(
                f"testbed '{self.params.name}' already exists (namespaces {clash or '-'}, bridge "
                f"{self.bridge}); run `vbench testbed down` first"
            )

    def up(self) -> list[Host]:
        self.preflight()
        t0 = time.monotonic()
        p, paths = self.params, self.paths
        self._state = {"testbed": p.name, "bridge": p.network.bridge, "root": str(paths.root)}
        self._record("dirs", str(paths.root))
        paths.root.mkdir(parents=True, exist_ok=True)
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory
        prefix = p.network.subnet.prefixlen

        for cmd in netcmd.create_bridge(self.bridge):
            _run(cmd)
            self._record("links", self.bridge)
        ctl = netcmd.controller_netns(p.name)
        self._attach(ctl, 0, str(p.controller_address), prefix)

        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"vbench-{p.name}", "-f", str(paths.client_key)])
        paths.authorized_keys.write_text(paths.client_key.with_suffix(".pub").read_text())
        specs = p.resolved_hosts()
        paths.hosts_file.write_text(netcmd.hosts_file([(h.name, str(h.address)) for h in specs]))

        known = []
        for i, spec in enumerate(specs, start=1):
            ns = netcmd.netns_name(p.name, spec.name)
            self._attach(ns, i, str(spec.address), prefix)
            hdir = paths.host_dir(spec.name)
            (hdir / "work").mkdir(parents=True, exist_ok=True)
            key = hdir / "ssh_host_ed25519_key"
            _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", spec.name, "-f", str(key)])
            known.append(known_hosts_line([str(spec.address), spec.name], key.with_suffix(".pub").read_text()))
            cfg = hdir / "sshd_config"
            cfg.write_text(sshd_config(str(spec.address), str(key), str(paths.authorized_keys), str(hdir / "sshd.pid")))
            with open(hdir / "sshd.log", "ab") as log:
                proc = subprocess.Popen(
                    netcmd.in_identity(ns, spec.name, str(paths.hosts_file), ["/usr/sbin/sshd", "-D", "-e", "-f", str(cfg)]),
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                )
            self._record("pids", proc.pid)
        paths.known_hosts.write_text("\n".join(known) + "\n")

        self.hosts = [self._host(spec) for spec in specs]
        self._wait_ssh(timeout_s=30)
        self.bringup_seconds = time.monotonic() - t0
        self.log(f"testbed '{p.name}': {len(self.hosts)} hosts reachable over SSH in {self.bringup_seconds:.1f} s")
        return self.hosts

    def attach(self) -> list[Host]:
        """The hosts of a testbed that an earlier `up()` (maybe another process) created."""
        if not self.paths.state_file.exists():
            raise VbenchError(f"testbed '{self.params.name}' is not up; run `vbench testbed up`")
        self._state = self._load_state()
        self.hosts = [self._host(spec) for spec in self.params.resolved_hosts()]
        return self.hosts

    def _attach(self, ns: str, index: int, address: str, prefix: int) -> None:
        outer, inner = netcmd.veth_names(self.params.name, index)
        for cmd in netcmd.attach_namespace(self.bridge, ns, outer, inner, address, prefix):
            _run(cmd)
            if cmd[:3] == ["ip", "netns", "add"]:
                self._record("netns", ns)
            elif cmd[:3] == ["ip", "link", "add"]:
                self._record("links", outer)

    def _host(self, spec) -> Host:
        paths = self.paths
        return Host(
            name=spec.name,
            role=spec.role,
            platform=spec.platform,
            address=str(spec.address),
            work_dir=str(paths.host_dir(spec.name) / "work"),
            ssh=SshEndpoint(
                address=str(spec.address),
                user=self.params.ssh_user,
                key_file=paths.client_key,
                known_hosts=paths.known_hosts,
                proxy_command=f"ip netns exec {netcmd.controller_netns(self.params.name)} nc %h %p",
            ),
            shares_controller_fs=True,
            facts={"netns": netcmd.netns_name(self.params.name, spec.name)},
        )

    def _wait_ssh(self, timeout_s: float) -> None:
        """Wait until each sshd says it listens, then check each answers with its own hostname."""

        def wait_one(host: Host) -> None:
            deadline = time.monotonic() + timeout_s
            log = self.paths.host_dir(host.name) / "sshd.log"
            # Polling the log instead of the port: a connection attempt abandoned during
            # start-up leaves paramiko threads that report errors long after.
            while "Server listening" not in _read(log):
                if time.monotonic() > deadline:
                    raise VbenchError(f"sshd on {host.name} ({host.address}) did not start in {timeout_s:.0f} s; log: {log}")
                time.sleep(0.05)
            with connect(host, connect_timeout=max(1.0, deadline - time.monotonic())) as c:
                name = c.run("hostname", hide=True, in_stream=False).stdout.strip()
            if name != host.name:
                raise VbenchError(f"host {host.address} answers with hostname {name!r}, expected {host.name!r}")

        with ThreadPoolExecutor(max_workers=len(self.hosts)) as pool:
            list(pool.map(wait_one, self.hosts))

    def down(self) -> None:
        """Remove every process, namespace, link and file of this testbed. Harmless twice."""
        with shielded():
            self._down()

    def _down(self) -> None:
        state = self._load_state() or self._state
        existing = _existing_netns()
        namespaces = set(state.get("netns", [])) | set(self._netns_all())
        for ns in sorted(namespaces & existing):
            _kill_pids(_netns_pids(ns))
        _kill_pids([p for p in state.get("pids", []) if _alive(p)])
        for ns in sorted(namespaces & existing):
            _run(netcmd.delete_netns(ns), check=False)
        links = set(state.get("links", [])) | {netcmd.veth_names(self.params.name, i)[0] for i in range(len(namespaces) + 1)}
        for link in sorted(links - {self.bridge}) + [self.bridge]:
            if _link_exists(link):
                _run(netcmd.delete_link(link), check=False)
        if self.paths.root.exists():
            shutil.rmtree(self.paths.root, ignore_errors=True)
        self.hosts = []
        self._state = {}

    def __enter__(self) -> "Testbed":
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.down()


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
    ns = tuple(n for n in tb._netns_all() if n in _existing_netns())
    procs = sum(len(_netns_pids(n)) for n in ns)
    return TestbedStatus(params.name, bool(ns) or tb.paths.state_file.exists(), ns, _link_exists(tb.bridge), procs)

"""What a platform provisioner implements, and what the testbed hands it.

A provisioner turns a `HostParams` into a host attached to the testbed's bridge with a running
sshd, and removes it again. Everything above (SSH, Hadoop, benchmarks) is platform-blind.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, Protocol

from vbench.host import Host, SshEndpoint
from vbench.params import HostParams, TestbedParams
from vbench.path_below import PathBelow
from vbench.testbed import netcmd, physnet


@dataclass(frozen=True)
class TestbedPaths:
    """Where a testbed keeps its keys, configs and per-host data, all under one directory."""

    __test__ = False

    root: Path

    state_file = PathBelow[Path]("root", "state.json")
    client_key = PathBelow[Path]("root", "id_ed25519")
    authorized_keys = PathBelow[Path]("root", "authorized_keys")
    known_hosts = PathBelow[Path]("root", "known_hosts")
    hosts_file = PathBelow[Path]("root", "etc_hosts")

    @property
    def work_root(self) -> Path:
        return self.root.parent

    @property
    def lock_file(self) -> Path:
        """Beside the testbed's directory, not in it: teardown removes that directory while a
        second process may be waiting on the lock."""
        return self.root.parent / f"{self.root.name}.lock"

    def hosts_file_of(self, host: str) -> Path:
        """/etc/hosts of one guest on a NAT network (its own view of the testbed)."""
        return self.root / f"etc_hosts.{host}"

    def host_dir(self, name: str) -> Path:
        return self.root / "hosts" / name


@dataclass(frozen=True, eq=False)
class TestbedContext:
    """The testbed-wide facts and services a provisioner may use."""

    __test__ = False

    params: TestbedParams
    paths: TestbedPaths
    #: Record a created resource in the state file at once (kind, value), so a crash
    #: half-way through creation can still be undone.
    record: Callable[[str, object], None]
    log: Callable[[str], None]
    #: Whether the testbed's state says it created (kind, value): teardown removes a namespace or
    #: link only then, never one that merely has the name vbench would give it.
    owns: Callable[[str, object], bool] = lambda _kind, _value: False

    @property
    def bridge(self) -> str:
        return self.params.network.bridge

    @cached_property
    def layout(self) -> physnet.NetLayout | None:
        """Emulated physical hosts and NAT addresses (vbench.testbed.physnet); None: direct attachment."""
        return physnet.layout(self.params)

    def hosts_file(self, spec: HostParams) -> Path:
        """The /etc/hosts this host gets: the testbed's, or (NAT networks) its own view of it."""
        if self.layout is None or self.layout.mode == "bridge":
            return self.paths.hosts_file
        return self.paths.hosts_file_of(spec.name)

    def own_address(self, spec: HostParams) -> str:
        """The address the host itself holds and listens on (a private one behind NAT)."""
        return str(spec.address) if self.layout is None else self.layout.guest(spec.name).own_address

    @property
    def prefixlen(self) -> int:
        return self.params.network.subnet.prefixlen

    def endpoint(self, spec: HostParams) -> SshEndpoint:
        return SshEndpoint(
            address=str(spec.address),
            user=self.params.ssh_user,
            key_file=self.paths.client_key,
            known_hosts=self.paths.known_hosts,
            netns=netcmd.controller_netns(self.params.name),
        )


@dataclass(frozen=True)
class Created:
    host: Host
    #: The host's public host key line (`ssh-ed25519 AAAA... comment`), to pin in known_hosts.
    host_key: str
    #: A file the host's sshd logs to, if the controller can read it (readiness without polling SSH).
    sshd_log: Path | None = None
    #: How long the host may take to answer SSH (a VM under TCG boots for a minute).
    ready_timeout_s: float = 120.0
    #: Says why the host died while the testbed waits for it (None while it lives), so a
    #: crashed container or VM fails the wait at once, with its log.
    failure: Callable[[], str | None] | None = None


class Provisioner(Protocol):
    platform: str

    def preflight(self, specs: list[HostParams], ctx: TestbedContext) -> None:
        """Refuse (VbenchError/ParamsError) before anything is created: tools, images, limits."""

    def create(self, spec: HostParams, index: int, ctx: TestbedContext) -> Created:
        """Create the host, attached to ctx.bridge at spec.address, with sshd started."""

    def host(self, spec: HostParams, ctx: TestbedContext) -> Host:
        """The Host record of an existing host (for attaching from another process)."""

    def destroy(self, spec: HostParams, index: int, ctx: TestbedContext) -> None:
        """Remove everything `create` made for this host; harmless if nothing exists."""

    # Optional: `verify(spec, host, ctx) -> dict[str, str]`, called once the host answers SSH:
    # read the applied limits back (cgroup files, QMP, the guest), raise if they differ from
    # what was asked, and return facts to keep with the host (see vbench.testbed.facts).

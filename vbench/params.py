"""Validated parameters: the testbed and the Hadoop configuration.

params/*.yaml are the single source of truth; these models check them on load and every
error names the file and the field (e.g. ``params/hadoop.yaml: hadoop.block_size: ...``),
before anything is started.
"""

from __future__ import annotations

import difflib
import ipaddress
import re
import sys
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from vbench.errors import ParamsError
from vbench.statedir import default_work_root
from vbench.units import mib_or_size, parse_size
from vbench.validate import (
    InterfaceName,
    JvmFlag,
    Name,
    RackName,
    SafePath,
    TestbedHostName,
    TestbedName,
    UserName,
    check_hadoop_property,
    key_text,
)


@dataclass(frozen=True)
class HadoopVersion:
    """What vbench knows of one Hadoop release: the examples jar's version to fetch with it
    (hadoop-mapreduce-examples is missing for several releases), and the JVM options its MapReduce
    application master needs on Java 17. 3.3's (Guice 4) reflects into java.lang, which Java 17
    refuses without `--add-opens`, and the AM exits 1 before it logs (found 2026-12-07 bringing
    3.3.6 up); 3.4's needs none, so its configuration stays as it ran."""

    examples: str
    am_flags: tuple[str, ...] = ()


#: Hadoop versions whose artifacts were checked on Maven Central, and what each needs.
KNOWN_HADOOP_VERSIONS: dict[str, HadoopVersion] = {
    "3.3.6": HadoopVersion("3.3.6", am_flags=("--add-opens=java.base/java.lang=ALL-UNNAMED",)),
    "3.4.2": HadoopVersion("3.4.2"),
}

#: Platforms a testbed host can be: a network namespace on the machine's kernel (the baseline),
#: an LXC or OCI (crun) container, a gVisor sandbox (an OCI container run by runsc: a user-space
#: kernel between the guest and the machine's), or a QEMU virtual machine.
PLATFORMS = ("native", "lxc", "oci", "gvisor", "qemu")
#: Containers whose processes are the machine's own tasks (what the isolation experiment's pids
#: limit and fork bomb rely on; a gVisor guest's processes are the Sentry's, not the machine's).
CONTAINER_PLATFORMS = ("lxc", "oci")
#: Platforms whose hosts take resource limits; native hosts run unconfined (the baseline).
LIMITED_PLATFORMS = ("lxc", "oci", "gvisor", "qemu")
#: A VM without explicit limits gets this much memory (MiB) and these vCPUs (capped at the machine's).
VM_DEFAULT_MEMORY_MB = 3072
VM_DEFAULT_CPUS = 2
#: Memory a VM's guest OS needs besides Hadoop's daemons (kernel, systemd, sshd, page cache floor).
VM_OS_OVERHEAD_MB = 256

#: Why vbench refuses I/O weights (the brief of issue #3 asks to say so clearly).
DISK_WEIGHT_REFUSAL = (
    "proportional I/O weights are not available: cgroup v1 blkio.weight does not exist on these machines "
    "(the disks use the mq-deadline scheduler; weights need BFQ), and QEMU has no per-VM weight; "
    "limit bandwidth with disk_read_bps/disk_write_bps instead"
)

_RFC1918 = tuple(ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))


def _not_a_bool(error_type: str) -> classmethod:
    """A before-validator refusing YAML's true/false where an address or a network is due, as the
    type it is not (`error_type`, e.g. "ip_v4_address"). To Python a bool is an int, and ipaddress
    takes an int as an address: `address: true` became 0.0.0.1 and `subnet: true` 0.0.0.1/32,
    refused later for the wrong reason (outside the subnet, not private), the bool kept as the
    address's integer (int() of it warns: Python deprecates an __int__ returning a bool, and a
    later one may raise a TypeError, which pydantic would not turn into a refusal)."""

    def check(cls, v: Any) -> Any:
        if isinstance(v, bool):
            raise PydanticCustomError(error_type, "a boolean")
        return v

    return classmethod(check)


def _known_platform(v: str) -> str:
    if v not in PLATFORMS:
        raise ValueError(f"unknown platform {v!r}; known: {', '.join(PLATFORMS)}")
    return v


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: Virtual network architectures (Jeong et al.): every host on one shared bridge; each physical
#: host's guests on a private network behind NAT; or both NICs (intra-physical-host traffic on
#: the NAT network, inter-host on the bridge). SR-IOV is a label of real inventories only.
NETWORK_MODES = ("bridge", "nat", "bridge+nat", "sriov")
LOCAL_NETWORK_MODES = ("bridge", "nat", "bridge+nat")
#: Hadoop topology: none (one default rack), virtual rack grouping (the guests of one physical
#: host form a rack), or node groups (HVE: racks from `rack`, node group = physical host).
TOPOLOGIES = ("flat", "rack", "nodegroup")


class LinkParams(_Strict):
    """Shaping (tc) of each emulated physical host's uplink; None/0 means unshaped."""

    #: Rates above 100 Gbit/s or below 0.1 Mbit/s are typos, not experiments (tbf needs a sane burst).
    rate_mbit: float | None = Field(None, ge=0.1, le=100_000)
    #: One-way delay added by netem on each end of the uplink (so an RTT grows by 2 x delay_ms).
    delay_ms: float = Field(0.0, ge=0, le=10_000)

    @property
    def shaped(self) -> bool:
        return self.rate_mbit is not None or self.delay_ms > 0


class NetworkParams(_Strict):
    """The private layer-2 network of a local testbed."""

    bridge: InterfaceName = "vbbr0"
    subnet: ipaddress.IPv4Network = ipaddress.IPv4Network("10.213.0.0/24")
    mode: Literal["bridge", "nat", "bridge+nat", "sriov"] = "bridge"
    #: The link between emulated physical hosts (traffic inside one physical host is not shaped).
    link: LinkParams = LinkParams()
    #: The private network behind NAT inside every emulated physical host (nat, bridge+nat):
    #: the same on each, as libvirt's default network is on every hypervisor.
    nat_subnet: ipaddress.IPv4Network = ipaddress.IPv4Network("192.168.122.0/24")

    _networks_not_bools = field_validator("subnet", "nat_subnet", mode="before")(_not_a_bool("ip_v4_network"))

    @field_validator("subnet", "nat_subnet")
    @classmethod
    def _private(cls, v: ipaddress.IPv4Network) -> ipaddress.IPv4Network:
        if not any(v.subnet_of(r) for r in _RFC1918):
            raise ValueError("must be inside a private RFC 1918 range (10/8, 172.16/12, 192.168/16)")
        if v.num_addresses < 8:
            raise ValueError("is too small: use a /29 or larger")
        return v

    @model_validator(mode="after")
    def _nat_apart(self) -> "NetworkParams":
        if self.nat_subnet.overlaps(self.subnet):
            raise _FieldError("nat_subnet", f"{self.nat_subnet} overlaps the bridge subnet {self.subnet}")
        return self


_CPUSET = re.compile(r"[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*")


def _platforms_outside(hosts, allowed) -> list[str]:
    """The platforms of `hosts` not in `allowed`, sorted: what a testbed-wide cgroup cannot hold. Pure."""
    return sorted({str(h.platform) for h in hosts} - set(allowed))


def _one_cgroup_holds(hosts, field: str, controller: str, hint: str) -> None:
    """A testbed's own `controller` cgroup holds the hosts a planted slowdown holds (their
    processes are this machine's tasks); refused, naming `field`, for the others before anything
    starts, with `hint` on what to do instead."""
    odd = _platforms_outside(hosts, SLOWDOWN_PLATFORMS)
    if odd:
        raise _FieldError(
            field,
            f"one {controller} cgroup per testbed holds {', '.join(SLOWDOWN_PLATFORMS)} hosts, not {', '.join(odd)} "
            f"hosts ({hint})",
        )


def parse_cpuset(text: str) -> tuple[int, ...]:
    """CPU ids of a cpuset list such as "0", "0-1" or "0,2-3". Pure."""
    if not _CPUSET.fullmatch(text):
        raise ValueError(f"{text!r} is not a CPU list (use e.g. 0, 0-1 or 0,2-3)")
    cpus: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        a, b = int(lo), int(hi or lo)
        if b < a:
            raise ValueError(f"{text!r}: range {part} is reversed")
        cpus.update(range(a, b + 1))
    return tuple(sorted(cpus))


def _cpuset_or_none(v: str | None) -> str | None:
    """`v` unchanged: a cpuset list or None (a ValueError naming what is wrong otherwise)."""
    if v is not None:
        parse_cpuset(v)
    return v


def _byte_rate_or_none(v: Any) -> Any:
    """A disk rate as bytes/s: 1048576 or "1MB" (None stays None)."""
    return None if v is None else parse_size(v)


class LimitsParams(_Strict):
    """Resource limits of a container or VM host. Unset fields are not limited.

    Containers: cpus -> CFS quota (cpus x period), cpuset -> cpuset.cpus, memory_mb -> memory
    cgroup limit, disk_*_bps -> blkio.throttle on the disk holding the testbed, pids_max ->
    pids.max (tasks, i.e. processes and threads, of the whole container: what contains a fork
    bomb). VMs: cpus -> -smp (cpuset pins the QEMU process), memory_mb -> -m, disk_*_bps ->
    QEMU's drive throttling; pids_max is refused (a guest's processes are the guest kernel's).
    """

    cpus: int | None = Field(None, ge=1, le=1024)
    cpuset: str | None = None
    memory_mb: int | None = Field(None, ge=64)
    disk_read_bps: int | None = Field(None, ge=1)
    disk_write_bps: int | None = Field(None, ge=1)
    #: Most tasks (processes + threads) in the container; a JVM alone has dozens of threads,
    #: so a Hadoop host needs thousands, a stress neighbour a few hundred.
    pids_max: int | None = Field(None, ge=16)
    #: Refused (see DISK_WEIGHT_REFUSAL); present so that asking for it gets that message.
    disk_weight: int | None = None

    _cpuset = field_validator("cpuset")(classmethod(lambda cls, v: _cpuset_or_none(v)))

    @field_validator("memory_mb", mode="before")
    @classmethod
    def _memory(cls, v: Any) -> Any:
        return mib_or_size(v)  # 2048 is MiB; "1GB", "512MB" are converted

    _bps = field_validator("disk_read_bps", "disk_write_bps", mode="before")(
        classmethod(lambda cls, v: _byte_rate_or_none(v))
    )

    @field_validator("disk_weight")
    @classmethod
    def _weight(cls, v: int | None) -> int | None:
        if v is not None:
            raise ValueError(DISK_WEIGHT_REFUSAL)
        return v

    @model_validator(mode="after")
    def _cpus_fit_cpuset(self) -> "LimitsParams":
        if self.cpus is not None and self.cpuset is not None and self.cpus > len(parse_cpuset(self.cpuset)):
            raise _FieldError(
                "cpus",
                f"{self.cpus} vCPUs do not fit in cpuset {self.cpuset!r} ({len(parse_cpuset(self.cpuset))} CPUs)",
            )
        return self

    @property
    def cpuset_cpus(self) -> tuple[int, ...]:
        return parse_cpuset(self.cpuset) if self.cpuset else ()

    def over(self, base: "LimitsParams | None") -> "LimitsParams":
        """These limits, with unset fields taken from `base` (the testbed-wide defaults)."""
        if base is None:
            return self
        return base.model_copy(update={k: v for k, v in self.model_dump().items() if v is not None})

    def is_empty(self) -> bool:
        return all(v is None for v in self.model_dump().values())

    def as_dict(self) -> dict[str, int | str]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class GvisorParams(_Strict):
    """How gVisor hosts run (runsc). Every field may be a factor of a design."""

    #: sandbox: gVisor's own network stack (netstack) inside the Sentry, runsc's default; host: the
    #: host's network namespace's stack, reached through the Sentry (runsc --network=host).
    network: Literal["sandbox", "host"] = "sandbox"
    #: How the Sentry intercepts the guest's system calls. auto: systrap where this runsc has it
    #: (releases from mid-2023), else ptrace; kvm needs a /dev/kvm that runs guests.
    platform: Literal["auto", "ptrace", "kvm", "systrap"] = "auto"
    #: Which of a gVisor testbed's hosts run in the sandbox, the others natively: all; only the
    #: master (NameNode, ResourceManager); only the workers (DataNodes, NodeManagers, tasks). A
    #: design crosses it to find which side of an RPC pays a job's overhead (costs-nnbench-sides).
    #: A host given its own `platform` in `testbed.hosts` keeps it.
    sandboxed: Literal["all", "master", "workers"] = "all"

    def sandboxes(self, role: str) -> bool:
        """Whether a host of this role runs in the sandbox on a gVisor testbed. Pure."""
        return self.sandboxed == "all" or self.sandboxed == {"master": "master", "worker": "workers"}.get(role)


#: Platforms whose hosts a planted slowdown (`testbed.slowdown`) can hold: their processes are the
#: machine's own tasks in the testbed's cgroup tree and their interface is a veth of the testbed.
SLOWDOWN_PLATFORMS = ("native", "lxc", "oci")
#: Platforms whose hosts a testbed's freezer (`testbed.freezer`) holds whole.
FREEZER_PLATFORMS = ("native", "lxc")


def planted_disk(limits: LimitsParams, sd: "SlowdownParams") -> dict[str, int]:
    """A container's disk limits under a planted disk slowdown: the stricter of its own and the
    planted rate, per direction (cgroup v1's blk-throttle holds only the cgroup a process is in,
    so the plant goes into each host's own limits, as the testbed's CPUs do). Pure."""
    out: dict[str, int] = {}
    for key in ("disk_read_bps", "disk_write_bps"):
        planted, own = getattr(sd, key), getattr(limits, key)
        if planted is not None:
            out[key] = planted if own is None else min(own, planted)
    return out


class SlowdownParams(_Strict):
    """A planted slowdown of one configuration (issue #51 item 2): the instrument's known-answer
    test, and the controlled slowdowns a model of job times is fitted on (issue #53). Every field
    may be a factor of a design (`factors: {testbed.slowdown.cpu_fraction: [1.0, 0.9]}`); the
    defaults plant nothing. vbench.testbed.slowdown applies it.

    cpu_fraction: the share of the machine's CPUs (those vbench may run on) that ALL the testbed's
    hosts get together: a CFS quota of cpu_fraction x CPUs x period on the testbed's parent cgroup
    `vbench-<testbed>` (cgroup v1), under which every host's processes run. delay_ms / rate_mbit:
    netem delay / tbf rate on the egress of each host's own interface towards it (the bridge side
    of its veth), so every packet between two hosts is delayed once (a round trip by 2 x delay_ms).
    disk_read_bps / disk_write_bps: blkio throttling of EACH host on the disk holding work_root
    (its own cgroup: cgroup v1's blk-throttle does not hold a child's I/O to its parent's limit),
    direct and synchronous I/O only (see vbench.testbed.limits). syscall_stops: every system call
    of a native host's processes stopped twice under ptrace (strace -f), as gVisor's ptrace platform
    stops each, or "process": only the calls that create, exec, wait for and end processes and
    threads, or "file": only the calls that name a file, or "memory": only the calls that map and
    unmap memory (vbench.testbed.syscall_stops): native hosts only.
    """

    #: 1.0: no quota. Below 0.1 a Hadoop cluster hardly comes up: a typo, not an experiment.
    cpu_fraction: float = Field(1.0, ge=0.1, le=1.0)
    #: One-way delay (ms) added on the way into each host; 0: none.
    delay_ms: float = Field(0.0, ge=0, le=1000)
    #: Rate (Mbit/s) into each host; None: unshaped.
    rate_mbit: float | None = Field(None, ge=0.1, le=100_000)
    disk_read_bps: int | None = Field(None, ge=1)
    disk_write_bps: int | None = Field(None, ge=1)
    #: True: every system call of the host's processes stopped under ptrace; "process": only the
    #: process and thread calls (strace's %process class); "file": only the calls naming a file
    #: (strace's %file class); "memory": only the calls mapping memory (strace's %memory class);
    #: False: none.
    syscall_stops: bool | Literal["process", "file", "memory"] = False

    _bps = field_validator("disk_read_bps", "disk_write_bps", mode="before")(
        classmethod(lambda cls, v: _byte_rate_or_none(v))
    )

    @field_validator("syscall_stops", mode="before")
    @classmethod
    def _stops_level(cls, v: Any) -> Any:
        # One message naming every level, not one per member of the union.
        if isinstance(v, bool) or v in ("process", "file", "memory"):
            return v
        raise ValueError(f"expected true, false, 'process', 'file' or 'memory', got {v!r}")

    @property
    def cpu(self) -> bool:
        return self.cpu_fraction < 1.0

    @property
    def network(self) -> bool:
        return self.delay_ms > 0 or self.rate_mbit is not None

    @property
    def disk(self) -> bool:
        return self.disk_read_bps is not None or self.disk_write_bps is not None

    @property
    def active(self) -> bool:
        return self.cpu or self.network or self.disk or bool(self.syscall_stops)

    def describe(self) -> str:
        """The fields that plant something, as sorted `key=value` pairs ('' when nothing is planted):
        what samples and host facts record. Pure."""
        return ",".join(
            f"{k}={v if isinstance(v, (int, str)) else format(v, 'g')}" for k, v in sorted(self.planted().items())
        )

    def planted(self) -> dict[str, float | int | str]:
        """The fields that differ from planting nothing."""
        defaults = SlowdownParams()
        return {k: v for k, v in self.model_dump().items() if v != getattr(defaults, k)}


class HostParams(_Strict):
    """One host of a testbed. Without an address, one is assigned from the subnet; without a
    platform, it is the testbed's; its limits override the testbed's `limits` field by field."""

    name: TestbedHostName
    role: Literal["master", "worker"]
    platform: str | None = None
    address: ipaddress.IPv4Address | None = None
    limits: LimitsParams | None = None
    #: The emulated physical host this guest runs on (default: from testbed.vms_per_host).
    physical_host: Name | None = None
    #: The rack of its physical host (default: "rack1").
    rack: RackName | None = None

    _platform = field_validator("platform")(classmethod(lambda cls, v: v if v is None else _known_platform(v)))
    _address_not_a_bool = field_validator("address", mode="before")(_not_a_bool("ip_v4_address"))

    @model_validator(mode="after")
    def _limits_need_a_confined_platform(self) -> "HostParams":
        if self.platform == "native" and self.limits is not None and not self.limits.is_empty():
            raise _FieldError(
                "limits",
                "native hosts run unconfined (the baseline); limits apply to "
                + ", ".join(LIMITED_PLATFORMS)
                + " hosts",
            )
        return self


class TestbedParams(_Strict):
    """A set of emulated hosts on this machine, reached over SSH like real ones."""

    __test__ = False  # not a pytest test class despite the name

    name: TestbedName = "vb"
    platform: str = "native"
    workers: int = Field(2, ge=1, le=32)
    network: NetworkParams = NetworkParams()
    #: State, keys and guest trees (0700, checked before use): /var/lib/vbench as root (vbench.statedir).
    work_root: SafePath = Field(default_factory=default_work_root)
    hosts: tuple[HostParams, ...] | None = None
    ssh_user: UserName = "root"
    #: Default limits of every container and VM host (each host's own `limits` override them).
    limits: LimitsParams | None = None
    #: QEMU accelerator: auto = KVM if /dev/kvm can actually boot a guest, else TCG.
    accelerator: Literal["auto", "kvm", "tcg"] = "auto"
    #: gVisor hosts: network stack and platform (vbench.testbed.gvisor).
    gvisor: GvisorParams = GvisorParams()
    #: Workers per emulated physical host (VMware's 1/2/4 VMs per host, Jeong's consolidation);
    #: the master is alone on its own. Hosts naming a physical_host override it.
    vms_per_host: int = Field(1, ge=1, le=32)
    #: Memory (MiB) of each emulated physical host: its guests' memory must fit in it (VMs per
    #: host are bounded by memory on real hypervisors too). None: not checked.
    physical_host_memory_mb: int | None = Field(None, ge=256)
    #: A planted slowdown of the whole testbed (vbench.testbed.slowdown); the default plants none.
    slowdown: SlowdownParams = SlowdownParams()
    #: Every host in a freezer cgroup, so that a campaign can pause the whole testbed while
    #: another configuration runs (a design's `idle: freeze` sets it; vbench.testbed.freezer).
    freezer: bool = False
    #: Every host in one cpu cgroup of the testbed's own (`vbench-<testbed>`, default weight), as
    #: LXC and OCI hosts always are; native hosts are otherwise in the machine's root cpu cgroup,
    #: where under contention each of their threads weighs as much as a whole container testbed
    #: (CFS group scheduling). A design's duet sets it, so that sides share the CPUs as equals.
    cpu_group: bool = False
    #: The CPUs every host of the testbed runs on (a cpuset list such as "0" or "0-1"), held by
    #: one cpuset cgroup of the testbed's own (`vbench-<testbed>`). None: every CPU vbench may run
    #: on. A duet with `cpus: split` sets it, a part of the machine's CPUs per side.
    cpuset: str | None = None

    _platform = field_validator("platform")(classmethod(lambda cls, v: _known_platform(v)))
    _cpuset = field_validator("cpuset")(classmethod(lambda cls, v: _cpuset_or_none(v)))

    @model_validator(mode="after")
    def _hosts_fit(self) -> "TestbedParams":
        net = self.network.subnet
        usable = list(net.hosts())
        count = len(self.hosts) if self.hosts is not None else self.workers + 1
        if count + 1 > len(usable):
            raise _FieldError("network.subnet", f"{net} has room for {len(usable) - 1} hosts, {count} asked")
        hosts = self.resolved_hosts()
        seen: dict[str, str] = {}
        for i, h in enumerate(hosts):
            if h.address not in net or h.address in (net.network_address, net.broadcast_address):
                raise _FieldError(f"hosts[{i}].address", f"{h.address} is outside the bridge subnet {net}")
            if h.address == usable[0]:
                raise _FieldError(f"hosts[{i}].address", f"{h.address} is reserved for the controller")
            if str(h.address) in seen:
                raise _FieldError(f"hosts[{i}].address", f"{h.address} is also used by {seen[str(h.address)]}")
            seen[str(h.address)] = h.name
        names = [h.name for h in hosts]
        if len(set(names)) != len(names):
            raise _FieldError("hosts", f"host names must be unique, got {names}")
        if [h.role for h in hosts].count("master") != 1:
            raise _FieldError("hosts", "exactly one host must have role 'master'")
        if self.network.mode not in LOCAL_NETWORK_MODES:
            raise _FieldError(
                "network.mode",
                f"{self.network.mode!r} (SR-IOV) cannot exist on the local testbed (no NIC with "
                "virtual functions to pass to guests); it is accepted as a label of an SSH inventory; "
                f"local modes: {', '.join(LOCAL_NETWORK_MODES)}",
            )
        self._physical_hosts_fit(usable, seen)
        self._physical_host_names_apart()
        self._slowdown_platforms(hosts)
        self._freezer_platforms(hosts)
        self._cpu_group_platforms(hosts)
        self._cpuset_platforms(hosts)
        return self

    def _cpuset_platforms(self, hosts: tuple[HostParams, ...]) -> None:
        """A testbed's cpuset cgroup holds the hosts its cpu cgroup holds; refused for the others
        before anything starts."""
        if self.cpuset is None:
            return
        _one_cgroup_holds(
            hosts,
            "cpuset",
            "cpuset",
            "a duet with cpus: split sets it: pin those with each host's limits.cpuset instead",
        )
        width = len(parse_cpuset(self.cpuset))
        asked = [(f"host {h.name}", h.limits) for h in self.hosts or ()] + [("testbed.limits", self.limits)]
        for who, lim in asked:
            if lim is not None and lim.cpuset not in (None, self.cpuset):
                raise _FieldError(
                    "cpuset", f"{who} has limits.cpuset {lim.cpuset!r}; a testbed cpuset sets every host's"
                )
        for h in hosts:
            if h.limits is not None and h.limits.cpus is not None and h.limits.cpus > width:
                raise _FieldError(
                    "cpuset", f"host {h.name}'s limits.cpus {h.limits.cpus} do not fit in cpuset {self.cpuset!r}"
                )

    def _cpu_group_platforms(self, hosts: tuple[HostParams, ...]) -> None:
        if self.cpu_group:
            _one_cgroup_holds(hosts, "cpu_group", "cpu", "a duet sets it: run those platforms one at a time")

    def _freezer_platforms(self, hosts: tuple[HostParams, ...]) -> None:
        """Freezing holds native and LXC hosts only (checked there: every process of the host in
        its freezer cgroup); refused for the others before anything starts."""
        odd = _platforms_outside(hosts, FREEZER_PLATFORMS) if self.freezer else []
        if odd:
            raise _FieldError(
                "freezer",
                f"a testbed can be frozen with {', '.join(FREEZER_PLATFORMS)} hosts, not {', '.join(odd)} hosts "
                "(their processes have not been checked to be all inside the host's freezer cgroup): "
                "use idle: run for them",
            )

    def _slowdown_platforms(self, hosts: tuple[HostParams, ...]) -> None:
        """A planted slowdown holds native, LXC and OCI hosts only: refused for the others before
        anything starts, naming the field."""
        if not self.slowdown.active:
            return
        if self.slowdown.syscall_stops:
            odd = _platforms_outside(hosts, ("native",))
            if odd:
                raise _FieldError(
                    "slowdown.syscall_stops",
                    f"system calls are stopped under ptrace on native hosts only, not on {', '.join(odd)} hosts "
                    "(a container's init is not started by vbench's own command; gVisor stops them already)",
                )
        odd = _platforms_outside(hosts, SLOWDOWN_PLATFORMS)
        if odd:
            raise _FieldError(
                "slowdown",
                f"a planted slowdown ({self.slowdown.describe()}) works on {', '.join(SLOWDOWN_PLATFORMS)} hosts; "
                f"not on {', '.join(odd)} hosts (their processes are not the machine's tasks in the testbed's "
                "cgroup, or have not been checked to be): plant it on another platform, or leave it out",
            )

    def _physical_host_names_apart(self) -> None:
        """Refuse a physical host named like one vbench names itself ("pm", "p1"...) for hosts that
        name none: the hosts placed by hand would silently share it with the hosts placed by vbench."""
        placement = self.physical_hosts()
        generated = {placement[h.name] for h in self.hosts or () if not h.physical_host}
        for i, h in enumerate(self.hosts or ()):
            if h.physical_host in generated:
                raise _FieldError(
                    f"hosts[{i}].physical_host",
                    f"{h.physical_host!r} is the name vbench gives the physical host of hosts that name "
                    "none (the master's pm, the workers' p1, p2...); choose another name",
                )

    def _physical_hosts_fit(self, usable: list, taken: dict[str, str]) -> None:
        """Physical hosts take testbed addresses from the top of the subnet down, and their guests
        private addresses from .10 of network.nat_subnet: both must fit."""
        placement = self.physical_hosts()
        phys = list(dict.fromkeys(placement.values()))
        if len(phys) <= 1 and self.network.mode == "bridge" and not self.network.link.shaped and self.vms_per_host == 1:
            return
        for k, name in enumerate(phys):
            addr = str(usable[-1 - k])
            if addr in taken:
                raise _FieldError(
                    "network.subnet",
                    f"{self.network.subnet} has no room for physical host {name} "
                    f"(its address {addr} is used by {taken[addr]}); use a larger subnet",
                )
        most = max(list(placement.values()).count(p) for p in phys)
        room = len(list(self.network.nat_subnet.hosts())) - 9
        if self.network.mode != "bridge" and most > room:
            raise _FieldError(
                "network.nat_subnet", f"{self.network.nat_subnet} holds {room} guests per physical host, {most} asked"
            )

    def resolved_hosts(self) -> tuple[HostParams, ...]:
        """The hosts with addresses: explicit ones, else master + worker1..N.

        Assigned addresses start at .10 when the subnet has room (easy to read), else right
        after the controller's; the validator has already checked that they fit.
        """
        usable = list(self.network.subnet.hosts())
        count = len(self.hosts) if self.hosts is not None else self.workers + 1
        start = 9 if len(usable) >= 9 + count else 1
        if self.hosts is not None:
            taken = {h.address for h in self.hosts if h.address is not None}
            free = iter([a for a in usable[start:] + usable[1:start] if a not in taken])
            hosts = [h if h.address else h.model_copy(update={"address": next(free)}) for h in self.hosts]
        else:
            names = [("master", "master")] + [(f"worker{i}", "worker") for i in range(1, self.workers + 1)]
            hosts = [HostParams(name=n, role=r, address=usable[start + i]) for i, (n, r) in enumerate(names)]
        return tuple(self._completed(h) for h in hosts)

    def _completed(self, h: HostParams) -> HostParams:
        platform = h.platform or self.platform
        if h.platform is None and platform == "gvisor" and not self.gvisor.sandboxes(h.role):
            platform = "native"
        limits = None
        if platform in LIMITED_PLATFORMS:
            limits = (h.limits or LimitsParams()).over(self.limits)
            if (
                self.cpuset is not None
            ):  # a container's own cgroup holds the testbed's CPUs (see slowdown.cgroup_settings)
                limits = limits.model_copy(update={"cpuset": self.cpuset})
            limits = limits.model_copy(update=planted_disk(limits, self.slowdown))
            limits = None if limits.is_empty() else limits
        return h.model_copy(update={"platform": platform, "limits": limits})

    def physical_hosts(self) -> dict[str, str]:
        """Host name -> the emulated physical host it runs on: the master alone on "pm", workers
        in order, `vms_per_host` to a physical host "p1", "p2", ...; an explicit physical_host wins."""
        out: dict[str, str] = {}
        w = 0
        for h in self.resolved_hosts():
            if h.physical_host:
                out[h.name] = h.physical_host
            elif h.role == "master":
                out[h.name] = "pm"
            else:
                out[h.name] = f"p{w // self.vms_per_host + 1}"
                w += 1
        return out

    def racks(self) -> dict[str, str]:
        """Host name -> its physical host's rack (explicit `rack`, else "rack1")."""
        return {h.name: h.rack or "rack1" for h in self.resolved_hosts()}

    @property
    def controller_address(self) -> ipaddress.IPv4Address:
        return next(self.network.subnet.hosts())


class DaemonHeaps(_Strict):
    """JVM heaps (MiB) of the Hadoop daemons; the defaults suit this 2-core machine."""

    namenode: int = Field(384, ge=64)
    datanode: int = Field(192, ge=64)
    resourcemanager: int = Field(384, ge=64)
    nodemanager: int = Field(256, ge=64)
    historyserver: int = Field(192, ge=64)
    client: int = Field(256, ge=64)


class HadoopParams(_Strict):
    """The Hadoop version and the configuration rendered into its *-site.xml files."""

    version: str = "3.4.2"
    java_home: SafePath = Path("/usr/lib/jvm/java-17-openjdk-amd64")
    #: The JVM build a local testbed's native hosts run: `host`, the machine's own at `java_home`;
    #: or `image`, the guest image's (its unpacked tree's `java_home`), the build its LXC, OCI,
    #: gVisor and QEMU hosts run, so that a platform comparison compares one JVM. Container and VM
    #: hosts run the image's whatever it says. The machine's JDK and the image's are upgraded
    #: apart, so they drift: 17.0.15 and 17.0.19 on the machines lent here.
    jdk: Literal["host", "image"] = "host"
    block_size: int = 32 * 1024**2
    bytes_per_checksum: int = Field(512, ge=1)
    replication: int = Field(2, ge=1, le=10)
    nodemanager_memory_mb: int = Field(2048, ge=256)
    nodemanager_vcores: int = Field(2, ge=1)
    scheduler_min_memory_mb: int = Field(256, ge=64)
    am_memory_mb: int = Field(512, ge=128)
    map_memory_mb: int = Field(512, ge=128)
    reduce_memory_mb: int = Field(512, ge=128)
    task_heap_fraction: float = Field(0.75, gt=0.1, le=0.95)
    task_timeout_s: int = Field(600, ge=10)
    #: How often (ms) the job client asks whether its job has finished. Hadoop's 5000 ms puts
    #: every job time on a ~5 s grid (TeraSort 26.2, 26.3, 31.2 s), larger than the effects
    #: measured; 100 ms puts the grid below the noise.
    client_poll_ms: int = Field(100, ge=10, le=60_000)
    #: How often (ms) the ApplicationMaster asks the ResourceManager for containers (Hadoop: 1000)
    #: and the ResourceManager has NodeManagers report (Hadoop: 1000): each task wave waits for both.
    am_heartbeat_ms: int = Field(100, ge=10, le=60_000)
    nodemanager_heartbeat_ms: int = Field(200, ge=10, le=60_000)
    heaps: DaemonHeaps = DaemonHeaps()
    #: Extra JVM flags for the daemons. ["-XX:TieredStopAtLevel=1"] cuts bring-up here by about
    #: a third, at the price of a JIT that no production cluster runs, so it is off by default.
    daemon_jvm_flags: tuple[JvmFlag, ...] = ()
    #: Extra JVM flags for a job's JVMs: the client that submits it (and every `hdfs dfs` client),
    #: its ApplicationMaster and its map and reduce tasks. The same C1 flag halves the CPU a
    #: short job burns here (pi with 2 maps: 21 -> 14 s of CPU); off by default for the same reason.
    job_jvm_flags: tuple[JvmFlag, ...] = ()
    #: Speculative execution of map and reduce tasks (Hadoop's default: on). On a small testbed a
    #: speculative copy runs on the same oversubscribed cores as the attempt it races, and whichever
    #: finishes first decides the job time: a race in nearly every TeraSort of the default design.
    #: VMware's Appendix A turned it off (the vmware2015 preset).
    speculative: bool = True
    topology_script: SafePath | None = None
    #: flat, rack (virtual rack grouping: a physical host's guests form a rack) or nodegroup (HVE).
    topology: Literal["flat", "rack", "nodegroup"] = "flat"
    #: Extra properties per file, e.g. {"mapred-site": {"mapreduce.task.io.sort.mb": "100"}}:
    #: how a study's tuned parameters (VMware Appendix A) are expressed.
    extra: dict[Literal["core-site", "hdfs-site", "yarn-site", "mapred-site"], dict[str, str]] = {}

    @field_validator("version")
    @classmethod
    def _known_version(cls, v: str) -> str:
        if v not in KNOWN_HADOOP_VERSIONS:
            raise ValueError(
                f"unknown Hadoop version {v!r}; versions whose artifacts are all on Maven Central: "
                + ", ".join(sorted(KNOWN_HADOOP_VERSIONS))
            )
        return v

    @field_validator("block_size", mode="before")
    @classmethod
    def _size(cls, v: Any) -> int:
        return parse_size(v)

    @field_validator("extra")
    @classmethod
    def _extra(cls, v: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for file, props in v.items():
            for name, value in props.items():
                try:
                    check_hadoop_property(name, value)
                except ValueError as exc:
                    raise ValueError(f"{file}: {exc}") from None
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "HadoopParams":
        if self.block_size % self.bytes_per_checksum:
            raise _FieldError(
                "block_size",
                f"{self.block_size} bytes is not a multiple of the checksum chunk "
                f"(bytes_per_checksum={self.bytes_per_checksum})",
            )
        if self.block_size < 1024**2:
            raise _FieldError("block_size", "must be at least 1MB (dfs.namenode.fs-limits.min-block-size)")
        for f in ("am_memory_mb", "map_memory_mb", "reduce_memory_mb"):
            if getattr(self, f) > self.nodemanager_memory_mb:
                raise _FieldError(
                    f, f"{getattr(self, f)} MiB exceeds nodemanager_memory_mb={self.nodemanager_memory_mb}"
                )
            if getattr(self, f) < self.scheduler_min_memory_mb:
                raise _FieldError(f, f"is below scheduler_min_memory_mb={self.scheduler_min_memory_mb}")
        return self

    @property
    def examples_version(self) -> str:
        return KNOWN_HADOOP_VERSIONS[self.version].examples

    @property
    def am_version_flags(self) -> tuple[str, ...]:
        return KNOWN_HADOOP_VERSIONS[self.version].am_flags


class _FieldError(ValueError):
    """Raised inside model validators to name a field pydantic cannot locate by itself."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


def _validate(model: type[BaseModel], data: Any, where: str, context: dict[str, Any] | None = None) -> Any:
    try:
        return model.model_validate(data if data is not None else {}, context=context)
    except ValidationError as exc:
        raise describe_validation_error(exc, where, model) from None


# --- errors in plain English ---------------------------------------------------------------


def prefixed(exc: ParamsError, prefix: str, sep: str = ": ") -> ParamsError:
    """The same error, its field placed inside `prefix` (a file, a section, a configuration)."""
    return ParamsError(f"{prefix}{sep}{exc.field}" if exc.field else prefix, exc.message)


@dataclass(frozen=True)
class Problem:
    """The first thing pydantic refused, in the words of a YAML file: where and what."""

    #: Dotted path below the validated model (e.g. "network.subnet", "hosts[0].role"); "" for the model itself.
    path: str
    message: str


#: Pydantic error type -> what a YAML value should have been.
_EXPECTED = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "int_parsing_size": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "decimal_type": "a number",
    "decimal_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "bytes_type": "a string",
    "dict_type": "a mapping (key: value)",
    "model_type": "a mapping (key: value)",
    "model_attributes_type": "a mapping (key: value)",
    "dataclass_type": "a mapping (key: value)",
    "list_type": "a list",
    "tuple_type": "a list",
    "set_type": "a list",
    "frozen_set_type": "a list",
    "iterable_type": "a list",
    "path_type": "a path",
    "none_required": "nothing (null)",
    "ip_v4_address": "an IPv4 address such as 10.0.0.5",
    "ip_any_address": "an IP address such as 10.0.0.5",
    "ip_v4_network": "an IPv4 network such as 10.0.0.0/24",
    "ip_any_network": "an IP network such as 10.0.0.0/24",
    "ip_v4_interface": "an IPv4 interface such as 10.0.0.5/24",
}

#: Pydantic bound error type -> (its ctx key, the rule in English).
_BOUNDS = {
    "greater_than_equal": ("ge", "must be at least {}"),
    "less_than_equal": ("le", "must be at most {}"),
    "greater_than": ("gt", "must be greater than {}"),
    "less_than": ("lt", "must be less than {}"),
    "multiple_of": ("multiple_of", "must be a multiple of {}"),
    "too_short": ("min_length", "must have at least {} item(s)"),
    "too_long": ("max_length", "must have at most {} item(s)"),
    "string_too_short": ("min_length", "must be at least {} character(s) long"),
    "string_too_long": ("max_length", "must be at most {} character(s) long"),
}


def describe_validation_error(
    exc: ValidationError, where: str = "", model: type[BaseModel] | None = None
) -> ParamsError:
    """Pydantic's first error as one plain-English ParamsError: the one way a ValidationError
    becomes vbench's error. Its field is `where` (e.g. "params/hadoop.yaml: hadoop") followed by
    the path inside, or the model's name when neither says more; `model` (the validated model)
    also lets an unknown field be answered with the known ones."""
    problem = _first_problem(exc, model)
    field = ".".join(p for p in (where, problem.path) if p) or (model.__name__ if model is not None else "")
    return ParamsError(field, problem.message)


def _first_problem(exc: ValidationError, model: type[BaseModel] | None = None) -> Problem:
    err = exc.errors()[0]
    # A dict key that is refused is reported at the key itself, not at pydantic's "[key]" marker.
    loc = tuple(p for p in err["loc"] if p != "[key]")
    ctx_err = (err.get("ctx") or {}).get("error")
    if isinstance(ctx_err, _FieldError):  # a model validator named the field pydantic could not
        loc += tuple(ctx_err.field.split("."))
    return Problem(_dotted(loc), _english(err, model, loc))


def _dotted(loc: tuple[Any, ...]) -> str:
    """("hosts", 0, "role") -> "hosts[0].role"; keys holding dots (factor paths) go in brackets."""
    out = ""
    for part in loc:
        if isinstance(part, int) or "." in str(part):
            out += f"[{key_text(part)}]"
        else:
            out += f".{key_text(part)}"
    return out.lstrip(".")


def _english(err: Any, model: type[BaseModel] | None, loc: tuple[Any, ...]) -> str:
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return str(ctx["error"])  # our own validators already speak English
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return _unknown_field(str(loc[-1]) if loc else "", _fields_at(model, loc[:-1]))
    if kind in ("literal_error", "enum"):
        return f"expected one of {_choices(str(ctx.get('expected', '')))}, got {_shown(value)}"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {_shown(value)}"
    if kind in _BOUNDS:
        key, rule = _BOUNDS[kind]
        bound = ctx.get(key)
        # A float field's bound reads 0.0 in pydantic; a YAML author wrote 0.
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        got = ctx["actual_length"] if "actual_length" in ctx else _shown(value)  # a length rule: how many
        return f"{rule.format(bound)}, got {got}"
    msg = err["msg"].removeprefix("Value error, ")
    if msg.startswith("Input should be "):
        return f"expected {msg.removeprefix('Input should be ')}, got {_shown(value)}"
    return msg.replace("Input is not", "is not", 1)


def _shown(value: Any) -> str:
    """A refused value as its YAML author would recognise it."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return repr(value) if isinstance(value, str) else str(value)


def _choices(expected: str) -> str:
    """Pydantic's "'flat', 'rack' or 'nodegroup'" -> "flat, rack, nodegroup"."""
    quoted = re.findall(r"'([^']*)'", expected)
    return ", ".join(quoted) if quoted else expected.replace(" or ", ", ")


def _unknown_field(name: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return f"is not a known field; did you mean {close[0]}?"
    return f"is not a known field; known fields: {', '.join(known)}" if known else "is not a known field"


def _fields_at(model: type[BaseModel] | None, loc: tuple[Any, ...]) -> tuple[str, ...]:
    """The field names of the model found at `loc` below `model` (empty when it cannot be told)."""
    for part in loc:
        if model is None:
            return ()
        if isinstance(part, int):  # an item of a list: the list's element model, found already
            continue
        field = model.model_fields.get(str(part))
        model = _model_in(field.annotation) if field is not None else None
    return tuple(model.model_fields) if model is not None else ()


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds: itself, or inside Optional[...] / tuple[..., ...] / list[...]."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def testbed_params(data: Any = None) -> TestbedParams:
    return _validate(TestbedParams, data, "testbed")


def hadoop_params(data: Any = None) -> HadoopParams:
    return _validate(HadoopParams, data, "hadoop")


def params_file(params_dir: Path, name: str, note: Callable[[str], None] | None = None) -> Path:
    """The params file `name` of `params_dir`, or /dev/null (built-in defaults) when the directory
    lacks it, said aloud (by default on stderr) so that a mistyped --params-dir is not silently a
    default run."""
    path = params_dir / name
    if path.exists():
        return path
    (note or _note_on_stderr)(f"vbench: note: {path} not found; using built-in defaults")
    return Path("/dev/null")


def _note_on_stderr(text: str) -> None:
    print(text, file=sys.stderr)


#: PyYAML's safe loader, in C where libyaml is built in (a tenth of the time: the paper reads ~100
#: params files); the same constructor, so the same documents.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path) -> Any:
    """The document of a YAML file; a missing, unreadable or malformed file is one ParamsError line."""
    try:
        with open(path, encoding="utf-8") as fh:
            return yaml.load(fh, Loader=SAFE_LOADER)
    except FileNotFoundError:
        raise ParamsError(str(path), "no such file") from None
    except OSError as exc:
        raise ParamsError(str(path), f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ParamsError(str(path), "is not a UTF-8 text file") from None
    except yaml.YAMLError as exc:
        raise ParamsError(str(path), _yaml_problem(exc)) from None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """pyyaml's several-line report as one line: where it stopped understanding and why."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and start is not None and mark is not None and start.line != mark.line:
        problem += f" ({context} started on line {start.line + 1})"
    elif context:
        problem += f" ({context})"
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    return f"is not valid YAML{where}: {problem}"


#: The top-level keys a study file (params/experiments/*.yaml) may hold: the design, and the
#: isolation experiment's params (params/experiments/xavier2014.yaml has both).
STUDY_FILE_SECTIONS = ("experiment", "isolation")


def load_yaml_section(path: Path, section: str, required: bool = False, sections: tuple[str, ...] | None = None) -> Any:
    """The `section` mapping of a params YAML file (empty if the file lacks it, unless `required`).
    `sections`: every top-level key this kind of file may hold (default: `section` alone); any other
    is refused, since a misspelled section would otherwise silently mean the built-in defaults."""
    doc = read_yaml(path)
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise ParamsError(str(path), "must be a YAML mapping")
    _refuse_unknown_sections(path, doc, sections or (section,))
    data = doc.get(section)
    if data is None and required:
        raise ParamsError(f"{path}: {section}", "is required (the file's settings go under this key)")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: {section}", f"must be a mapping (key: value), got {_shown(data)}")
    return data


def _refuse_unknown_sections(path: Path, doc: dict[Any, Any], sections: tuple[str, ...]) -> None:
    for key in doc:
        if key not in sections:
            close = difflib.get_close_matches(str(key), sections, n=1)
            hint = f"did you mean {close[0]}?" if close else f"its sections: {', '.join(sections)}"
            raise ParamsError(f"{path}: {key_text(key)}", f"is not a section of this file; {hint}")


def load_testbed(path: Path, **overrides: Any) -> TestbedParams:
    data = {**load_yaml_section(path, "testbed"), **{k: v for k, v in overrides.items() if v is not None}}
    try:
        return testbed_params(data)
    except ParamsError as exc:
        raise prefixed(exc, str(path)) from None


def load_hadoop(path: Path, **overrides: Any) -> HadoopParams:
    data = {**load_yaml_section(path, "hadoop"), **{k: v for k, v in overrides.items() if v is not None}}
    try:
        return hadoop_params(data)
    except ParamsError as exc:
        raise prefixed(exc, str(path)) from None

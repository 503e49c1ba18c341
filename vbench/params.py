"""Validated parameters: the testbed and the Hadoop configuration.

params/*.yaml are the single source of truth; these models check them on load and every
error names the file and the field (e.g. ``params/hadoop.yaml: hadoop.block_size: ...``),
before anything is started.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from vbench.errors import ParamsError
from vbench.units import parse_size

#: Hadoop versions whose artifacts were checked on Maven Central, with the version of the
#: examples jar to use (hadoop-mapreduce-examples is missing for several releases).
KNOWN_HADOOP_VERSIONS: dict[str, str] = {"3.4.2": "3.4.2"}

#: Platforms a testbed host can be. #3 adds containers and VMs.
PLATFORMS = ("native",)

_RFC1918 = tuple(ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


def _known_platform(v: str) -> str:
    if v not in PLATFORMS:
        raise ValueError(f"unknown platform {v!r}; known: {', '.join(PLATFORMS)}")
    return v


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NetworkParams(_Strict):
    """The private layer-2 network of a local testbed."""

    bridge: str = "vbbr0"
    subnet: ipaddress.IPv4Network = ipaddress.IPv4Network("10.213.0.0/24")

    @field_validator("bridge")
    @classmethod
    def _bridge_name(cls, v: str) -> str:
        # Linux interface names are at most 15 bytes.
        if not (1 <= len(v) <= 15) or not re.match(r"^[A-Za-z0-9_-]+$", v):
            raise ValueError("must be 1-15 characters of letters, digits, '-' or '_'")
        return v

    @field_validator("subnet")
    @classmethod
    def _private(cls, v: ipaddress.IPv4Network) -> ipaddress.IPv4Network:
        if not any(v.subnet_of(r) for r in _RFC1918):
            raise ValueError("must be inside a private RFC 1918 range (10/8, 172.16/12, 192.168/16)")
        if v.num_addresses < 8:
            raise ValueError("is too small: use a /29 or larger")
        return v


class HostParams(_Strict):
    """One host of a testbed. Without an address, one is assigned from the subnet."""

    name: str
    role: Literal["master", "worker"]
    platform: str = "native"
    address: ipaddress.IPv4Address | None = None

    @field_validator("name")
    @classmethod
    def _hostname(cls, v: str) -> str:
        if not _NAME.match(v) or len(v) > 20:
            raise ValueError("must be a lowercase hostname (letters, digits, '-'), at most 20 characters")
        return v

    _platform = field_validator("platform")(classmethod(lambda cls, v: _known_platform(v)))


class TestbedParams(_Strict):
    """A set of emulated hosts on this machine, reached over SSH like real ones."""

    __test__ = False  # not a pytest test class despite the name

    name: str = "vb"
    platform: str = "native"
    workers: int = Field(2, ge=1, le=32)
    network: NetworkParams = NetworkParams()
    work_root: Path = Path("/var/tmp/vbench")
    hosts: tuple[HostParams, ...] | None = None
    ssh_user: str = "root"

    @field_validator("name")
    @classmethod
    def _short_name(cls, v: str) -> str:
        # The name prefixes namespaces and 15-byte interface names.
        if not re.match(r"^[a-z][a-z0-9]{0,5}$", v):
            raise ValueError("must be 1-6 lowercase letters/digits, starting with a letter")
        return v

    _platform = field_validator("platform")(classmethod(lambda cls, v: _known_platform(v)))

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
        return self

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
            return tuple(h if h.address else h.model_copy(update={"address": next(free)}) for h in self.hosts)
        names = [("master", "master")] + [(f"worker{i}", "worker") for i in range(1, self.workers + 1)]
        return tuple(
            HostParams(name=n, role=r, platform=self.platform, address=usable[start + i])
            for i, (n, r) in enumerate(names)
        )

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
    java_home: Path = Path("/usr/lib/jvm/java-17-openjdk-amd64")
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
    heaps: DaemonHeaps = DaemonHeaps()
    #: Extra JVM flags for the daemons. ["-XX:TieredStopAtLevel=1"] cuts bring-up here by about
    #: a third, at the price of a JIT that no production cluster runs, so it is off by default.
    daemon_jvm_flags: tuple[str, ...] = ()
    topology_script: Path | None = None
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
                raise _FieldError(f, f"{getattr(self, f)} MiB exceeds nodemanager_memory_mb={self.nodemanager_memory_mb}")
            if getattr(self, f) < self.scheduler_min_memory_mb:
                raise _FieldError(f, f"is below scheduler_min_memory_mb={self.scheduler_min_memory_mb}")
        return self

    @property
    def examples_version(self) -> str:
        return KNOWN_HADOOP_VERSIONS[self.version]


class _FieldError(ValueError):
    """Raised inside model validators to name a field pydantic cannot locate by itself."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


@dataclass(frozen=True)
class MachineFacts:
    """What the controller machine offers; passed in so validation stays testable."""

    mem_total_mb: int
    cpus: int

    @classmethod
    def local(cls) -> "MachineFacts":
        import os

        with open("/proc/meminfo") as fh:
            kb = next(int(line.split()[1]) for line in fh if line.startswith("MemTotal:"))
        return cls(mem_total_mb=kb // 1024, cpus=os.cpu_count() or 1)


def check_cluster_fits(testbed: TestbedParams, hadoop: HadoopParams, machine: MachineFacts) -> None:
    """Refuse a cluster this machine cannot hold, before anything is started."""
    workers = [h for h in testbed.resolved_hosts() if h.role == "worker"]
    if hadoop.replication > len(workers):
        raise ParamsError(
            "hadoop.replication",
            f"{hadoop.replication} replicas need at least as many workers, the testbed has {len(workers)}",
        )
    heaps = hadoop.heaps
    need = (
        heaps.namenode + heaps.resourcemanager + heaps.historyserver + heaps.client
        + len(workers) * (heaps.datanode + heaps.nodemanager + hadoop.nodemanager_memory_mb)
    )
    if need > machine.mem_total_mb:
        raise ParamsError(
            "hadoop.nodemanager_memory_mb",
            f"the cluster needs {need} MiB ({len(workers)} workers x (nodemanager_memory_mb="
            f"{hadoop.nodemanager_memory_mb} + daemon heaps) + master daemons) but this machine has "
            f"{machine.mem_total_mb} MiB",
        )


def _validate(model: type[BaseModel], data: Any, where: str) -> Any:
    try:
        return model.model_validate(data if data is not None else {})
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
        ctx_err = (err.get("ctx") or {}).get("error")
        if isinstance(ctx_err, _FieldError):
            loc = ".".join(p for p in (loc, ctx_err.field) if p)
            msg = str(ctx_err)
        else:
            msg = err["msg"].removeprefix("Value error, ")
        field = f"{where}.{loc}" if loc else where
        raise ParamsError(field, msg) from None


def testbed_params(data: Any = None) -> TestbedParams:
    return _validate(TestbedParams, data, "testbed")


def hadoop_params(data: Any = None) -> HadoopParams:
    return _validate(HadoopParams, data, "hadoop")


def load_yaml_section(path: Path, section: str) -> Any:
    """The `section` mapping of a params YAML file (empty if the file lacks it)."""
    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.safe_load(fh) or {}
    except yaml.YAMLError as exc:
        raise ParamsError(str(path), f"is not valid YAML: {exc}") from None
    if not isinstance(doc, dict):
        raise ParamsError(str(path), "must be a YAML mapping")
    data = doc.get(section) or {}
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: {section}", f"must be a mapping, got {type(data).__name__}")
    return data


def load_testbed(path: Path, **overrides: Any) -> TestbedParams:
    data = {**load_yaml_section(path, "testbed"), **{k: v for k, v in overrides.items() if v is not None}}
    try:
        return testbed_params(data)
    except ParamsError as exc:
        raise ParamsError(f"{path}: {exc.field}", str(exc).split(": ", 1)[1]) from None


def load_hadoop(path: Path, **overrides: Any) -> HadoopParams:
    data = {**load_yaml_section(path, "hadoop"), **{k: v for k, v in overrides.items() if v is not None}}
    try:
        return hadoop_params(data)
    except ParamsError as exc:
        raise ParamsError(f"{path}: {exc.field}", str(exc).split(": ", 1)[1]) from None

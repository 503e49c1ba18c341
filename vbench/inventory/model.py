"""The SSH inventory (params/inventory.yaml): hosts someone else provisioned, however they were
made (bare metal, KVM, Xen, OpenVZ, VMware, a cloud), described by how to reach them.

Only paths to keys are stored, never keys. Validation is strict (unknown fields are errors) and
errors name the file and the field, as for every params file.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vbench.errors import ParamsError
from vbench.host import Host, SshEndpoint
from vbench.params import _FieldError, _validate, load_yaml_section

_LABEL = re.compile(r"^[a-z][a-z0-9_+.-]*$")
_HOSTNAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")

#: Platform labels the studies used; any other lower-case label is accepted too (a label is what
#: the samples are grouped by, vbench does not act on it).
KNOWN_LABELS = ("native", "kvm", "xen", "openvz", "vserver", "lxc", "oci", "qemu", "vmware", "opennebula",
                "docker", "sriov")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CheckThresholds(_Strict):
    """Limits of the checks before measuring (vbench.inventory.checks); a host beyond one is
    "not fit to measure"."""

    #: Governors that keep the clock steady; anything else (ondemand, powersave...) is a reason.
    governors: tuple[str, ...] = ("performance",)
    require_turbo_off: bool = False
    #: THP settings accepted ("never", "madvise", "always").
    thp: tuple[str, ...] = ("never", "madvise", "always")
    #: Swap in use (MiB) above which a host is not fit; swap merely enabled is only a note.
    max_swap_used_mb: int = Field(0, ge=0)
    #: 1-minute load average per CPU.
    max_load_per_cpu: float = Field(0.5, ge=0)
    min_free_disk_gb: float = Field(1.0, ge=0)
    #: |clock offset| to the controller (ms); HDFS and YARN tolerate little skew, timestamps less.
    max_clock_offset_ms: float = Field(500.0, ge=0)
    #: Java feature version the cluster needs (Hadoop 3.4 runs on 17).
    java_major: int | None = 17


class InventoryHost(_Strict):
    name: str
    address: str
    port: int = Field(22, ge=1, le=65535)
    user: str = "root"
    #: Path of the private key (the key itself never goes into params).
    key_file: Path
    #: What the host is, as the samples will say: native, kvm, xen, openvz, vserver, lxc, vmware, ...
    platform: str = "native"
    role: Literal["master", "worker"] = "worker"
    #: The machine this host runs on (VMs/containers) and its rack: recorded, and Hadoop topology.
    physical_host: str | None = None
    rack: str = "/default-rack"
    #: Network label (e.g. "sriov", "bridge"), recorded with the samples.
    network: str | None = None
    #: Directories HDFS stores blocks in; checked for free space. Default: under the work dir.
    hdfs_dirs: tuple[str, ...] = ()
    #: Whether the user must use sudo (non-root users); root needs none.
    sudo: bool = False

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _HOSTNAME.match(v):
            raise ValueError(f"{v!r} is not a host name (lower-case letters, digits, '-')")
        return v

    @field_validator("platform", "network")
    @classmethod
    def _label(cls, v: str | None) -> str | None:
        if v is not None and not _LABEL.match(v):
            raise ValueError(f"{v!r} is not a label (lower-case, e.g. {', '.join(KNOWN_LABELS[:6])})")
        return v

    @model_validator(mode="after")
    def _sudo_for_non_root(self) -> "InventoryHost":
        if self.user == "root" and self.sudo:
            raise _FieldError("sudo", "root needs no sudo; set sudo: false or use another user")
        return self


class Inventory(_Strict):
    hosts: tuple[InventoryHost, ...]
    #: The known_hosts file host keys are checked against (never the user's ~/.ssh one by accident).
    known_hosts: Path
    #: A jump host `user@host[:port]` (ssh -J) or a generic OpenSSH ProxyCommand (%h %p expanded);
    #: at most one. The local testbed's hosts are reached with
    #: proxy_command: "ip netns exec <testbed>-ctl nc %h %p".
    jump_host: str | None = None
    proxy_command: str | None = None
    #: Key for the jump host (default: each host's key_file).
    jump_key_file: Path | None = None
    java_home: str = "/usr/lib/jvm/java-17-openjdk-amd64"
    #: Each host works in <work_root>/<host name> (config, logs, HDFS data, Hadoop's jars).
    work_root: str = "/var/lib/vbench"
    checks: CheckThresholds = CheckThresholds()
    #: How long Hadoop may take to be ready on these hosts (busy or slow hosts need more).
    ready_timeout_s: float = Field(300.0, gt=0)
    #: Debian/Ubuntu packages `vbench inventory prepare` installs when missing: the JDK Hadoop
    #: runs on and the micro-benchmarks' tools. Hadoop's jars are pushed from the controller.
    packages: tuple[str, ...] = ("openjdk-17-jre-headless", "curl", "tar", "fio", "iperf3", "sysbench",
                                 "bonnie++", "hdparm")

    @field_validator("hosts")
    @classmethod
    def _hosts(cls, v: tuple[InventoryHost, ...]) -> tuple[InventoryHost, ...]:
        if not v:
            raise ValueError("at least one host")
        names = [h.name for h in v]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"host names must be unique; repeated: {', '.join(dup)}")
        return v

    @field_validator("work_root")
    @classmethod
    def _abs(cls, v: str) -> str:
        if not v.startswith("/"):
            raise ValueError("must be an absolute path on the hosts")
        return v.rstrip("/") or "/"

    @model_validator(mode="after")
    def _one_way_through(self) -> "Inventory":
        if self.jump_host and self.proxy_command:
            raise _FieldError("proxy_command", "give jump_host or proxy_command, not both")
        for label in sorted({h.platform for h in self.hosts}):
            masters = [h.name for h in self.hosts if h.platform == label and h.role == "master"]
            if len(masters) != 1:
                raise _FieldError("hosts", f"platform {label!r} needs exactly one master host, has {masters or 'none'}")
        return self

    def platforms(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(h.platform for h in self.hosts))

    def of_platform(self, platform: str) -> tuple[InventoryHost, ...]:
        return tuple(h for h in self.hosts if h.platform == platform)


def proxy_for(inv: Inventory, h: InventoryHost) -> str | None:
    """The ProxyCommand that reaches `h`: the generic one, or `ssh -W` through the jump host, with
    %h, %p and %r expanded here: fabric expands a string gateway's %p as 22 whatever the port. Pure."""
    raw = inv.proxy_command or _jump_proxy(inv, h)
    if raw is None:
        return None
    return raw.replace("%h", h.address).replace("%p", str(h.port)).replace("%r", h.user)


def _jump_proxy(inv: Inventory, h: InventoryHost) -> str | None:
    if not inv.jump_host:
        return None
    target, _, port = inv.jump_host.partition(":")
    key = inv.jump_key_file or h.key_file
    # The jump host's own key is checked against the same known_hosts, never trusted blindly.
    return (f"ssh -i {key} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes "
            f"-o UserKnownHostsFile={inv.known_hosts} -p {port or 22} -W %h:%p {target}")


def work_dir(inv: Inventory, h: InventoryHost) -> str:
    return f"{inv.work_root}/{h.name}"


def to_host(inv: Inventory, h: InventoryHost) -> Host:
    """The Host record the cluster code drives: remote, so Hadoop's jars get pushed."""
    facts = {"platform": h.platform, "rack": h.rack, "inventory": "yes"}
    if h.physical_host:
        facts["physical_host"] = h.physical_host
    if h.network:
        facts["network"] = h.network
    return Host(
        name=h.name, role=h.role, platform=h.platform, address=h.address, work_dir=work_dir(inv, h),
        ssh=SshEndpoint(h.address, h.user, h.key_file, inv.known_hosts, h.port, proxy_for(inv, h)),
        shares_controller_fs=False, facts=facts,
        # A host that names no physical host is one (bare metal); hadoop.topology groups by these.
        physical_host=h.physical_host or h.name, rack=h.rack,
    )


def to_hosts(inv: Inventory, platform: str | None = None) -> list[Host]:
    return [to_host(inv, h) for h in (inv.of_platform(platform) if platform else inv.hosts)]


def inventory(data: object) -> Inventory:
    return _validate(Inventory, data, "inventory")


def load_inventory(path: Path) -> Inventory:
    """Validate params/inventory.yaml (section `inventory:`); errors name the file and the field.
    `~` is expanded; other relative key and known_hosts paths are relative to the file's directory."""
    if not path.exists():
        raise ParamsError(str(path), "no such inventory file")
    data = load_yaml_section(path, "inventory")
    try:
        inv = inventory(data)
    except ParamsError as exc:
        raise ParamsError(f"{path}: {exc.field}", str(exc).split(": ", 1)[1]) from None
    base = path.resolve().parent

    def rel(p: Path | None) -> Path | None:
        if p is None:
            return None
        p = p.expanduser()
        return p if p.is_absolute() else base / p

    return inv.model_copy(update={
        "known_hosts": rel(inv.known_hosts) or inv.known_hosts,
        "jump_key_file": rel(inv.jump_key_file) or inv.jump_key_file,
        "hosts": tuple(h.model_copy(update={"key_file": rel(h.key_file) or h.key_file}) for h in inv.hosts),
    })

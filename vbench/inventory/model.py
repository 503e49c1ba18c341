"""The SSH inventory (params/inventory.yaml): hosts someone else provisioned, however they were
made (bare metal, KVM, Xen, OpenVZ, VMware, a cloud), described by how to reach them.

Only paths to keys are stored, never keys. Validation is strict (unknown fields are errors) and
errors name the file and the field, as for every params file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vbench.errors import ParamsError
from vbench.host import Host, SshEndpoint
from vbench.params import _FieldError, _validate, load_yaml_section, prefixed
from vbench.validate import (
    HostAddress,
    JumpHost,
    LocalFilePath,
    Name,
    NetworkLabel,
    OneLineCommand,
    PackageName,
    RackName,
    SafePathText,
    UserName,
)

#: Platform labels the studies used; any other name is accepted too (a label is what the samples
#: are grouped by, vbench does not act on it).
KNOWN_LABELS = (
    "native",
    "kvm",
    "xen",
    "openvz",
    "vserver",
    "lxc",
    "oci",
    "gvisor",
    "qemu",
    "vmware",
    "opennebula",
    "docker",
    "sriov",
)


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
    name: Name
    #: An IP address or a DNS name (never an ssh option: it reaches ssh command lines).
    address: HostAddress
    port: int = Field(22, ge=1, le=65535)
    user: UserName = "root"
    #: Path of the private key (the key itself never goes into params).
    key_file: LocalFilePath
    #: What the host is, as the samples will say: native, kvm, xen, openvz, vserver, lxc, vmware, ...
    platform: Name = "native"
    role: Literal["master", "worker"] = "worker"
    #: The machine this host runs on (VMs/containers) and its rack: recorded, and Hadoop topology.
    physical_host: Name | None = None
    rack: RackName = "/default-rack"
    #: Network label (e.g. "sriov", "bridge", "bridge+nat"), recorded with the samples.
    network: NetworkLabel | None = None
    #: Not used: Hadoop keeps HDFS blocks under the work dir (put work_root on the disk you want);
    #: accepted so older inventories load, but neither created, chowned nor checked.
    hdfs_dirs: tuple[SafePathText, ...] = ()
    #: Whether the user must use sudo (non-root users); root needs none.
    sudo: bool = False

    @model_validator(mode="after")
    def _sudo_for_non_root(self) -> "InventoryHost":
        if self.user == "root" and self.sudo:
            raise _FieldError("sudo", "root needs no sudo; set sudo: false or use another user")
        return self


class Inventory(_Strict):
    hosts: tuple[InventoryHost, ...]
    #: The known_hosts file host keys are checked against (never the user's ~/.ssh one by accident).
    known_hosts: LocalFilePath
    #: A jump host `user@host[:port]` (ssh -J) or a generic OpenSSH ProxyCommand (%h %p expanded);
    #: at most one. The local testbed's hosts are reached with
    #: proxy_command: "ip netns exec <testbed>-ctl nc %h %p".
    jump_host: JumpHost | None = None
    #: A command by design, written by whoever writes the inventory (as ProxyCommand in ssh_config):
    #: paramiko splits it and runs it without a shell; what vbench puts into it (%h %p %r) is checked.
    proxy_command: OneLineCommand | None = None
    #: Key for the jump host (default: each host's key_file).
    jump_key_file: LocalFilePath | None = None
    java_home: SafePathText = "/usr/lib/jvm/java-17-openjdk-amd64"
    #: Each host works in <work_root>/<host name> (config, logs, HDFS data, Hadoop's jars).
    work_root: SafePathText = "/var/lib/vbench"
    checks: CheckThresholds = CheckThresholds()
    #: How long Hadoop may take to be ready on these hosts (busy or slow hosts need more).
    ready_timeout_s: float = Field(300.0, gt=0)
    #: Debian/Ubuntu packages `vbench inventory prepare` installs when missing: the JDK Hadoop
    #: runs on and the micro-benchmarks' tools. Hadoop's jars are pushed from the controller.
    packages: tuple[PackageName, ...] = (
        "openjdk-17-jre-headless",
        "curl",
        "tar",
        "fio",
        "iperf3",
        "sysbench",
        "bonnie++",
        "hdparm",
    )

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
    def _no_trailing_slash(cls, v: str) -> str:
        return v.rstrip("/") or "/"  # work_dir appends "/<host name>"

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
    return (
        f"ssh -i {key} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes "
        f"-o UserKnownHostsFile={inv.known_hosts} -p {port or 22} -W %h:%p {target}"
    )


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
        name=h.name,
        role=h.role,
        platform=h.platform,
        address=h.address,
        work_dir=work_dir(inv, h),
        ssh=SshEndpoint(h.address, h.user, h.key_file, inv.known_hosts, h.port, proxy_for(inv, h)),
        shares_controller_fs=False,
        facts=facts,
        # A host that names no physical host is one (bare metal); hadoop.topology groups by these.
        physical_host=h.physical_host or h.name,
        rack=h.rack,
    )


def to_hosts(inv: Inventory, platform: str | None = None) -> list[Host]:
    return [to_host(inv, h) for h in (inv.of_platform(platform) if platform else inv.hosts)]


def distinct_hosts(hosts: Iterable[Host]) -> list[Host]:
    """Each machine once (by its SSH address and port), in the order given. Pure."""
    seen, out = set(), []
    for h in hosts:
        key = (h.ssh.address, h.ssh.port, h.ssh.netns, h.ssh.proxy_command)
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out


def inventory(data: object, relative_to: Path | None = None) -> Inventory:
    """The validated inventory; key and known_hosts paths may be relative to `relative_to`."""
    return _validate(Inventory, data, "inventory", context={"relative_to": relative_to})


def load_inventory(path: Path) -> Inventory:
    """Validate params/inventory.yaml (section `inventory:`); errors name the file and the field.
    `~` is expanded; other relative key and known_hosts paths are relative to the file's directory."""
    if not path.exists():
        raise ParamsError(str(path), "no such inventory file")
    data = load_yaml_section(path, "inventory")
    try:
        return inventory(data, relative_to=path.resolve().parent)
    except ParamsError as exc:
        raise prefixed(exc, str(path)) from None

"""LXC hosts: LXC 5 system containers on the testbed bridge.

Each container's root is an overlay (LXC's own `overlay:` rootfs backend: the cached image's
`rootfs/` as the read-only lower layer, the host's `upper/` as the writable one), mounted by
LXC inside the container's mount namespace, so nothing is mounted in the machine's namespace
and the overlay disappears with the container. LXC creates the veth (`<tb>h<i>` on the
bridge, `eth0` inside with the host's address), sets the hostname and the cgroup v1 limits
(`vbench-<tb>/<host>`), and runs tini -> sshd as the container's init.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Protocol

from vbench.errors import VbenchError
from vbench.host import Host
from vbench.machine_fit import MachineFacts, check_limits_fit
from vbench.params import HostParams
from vbench.testbed import netcmd, sysops
from vbench.testbed.guest import (
    CONTAINER_SSHD_LOG,
    cgroup_rel,
    guest_host,
    instance_name,
    testbed_cgroup,
    write_identity,
)
from vbench.testbed.image import GuestImage, image_for, require_image
from vbench.testbed.limits import (
    BlockDevice,
    block_device_of,
    cgroup_v1_settings,
    kill_cgroup,
    limits_fact,
    remove_cgroups,
    verify_cgroup_limits,
)
from vbench.testbed.provisioner import Created, TestbedContext

CONTAINER_INIT = "/usr/bin/tini -- /usr/local/sbin/vbench-init"


def lxc_config(
    *,
    name: str,
    hostname: str,
    lower: Path,
    upper: Path,
    bridge: str,
    veth: str,
    address_cidr: str,
    cgroup_dir: str,
    settings: dict[str, str],
    log_file: Path,
    console_log: Path,
) -> str:
    """The LXC config of one host. Pure."""
    lines = [
        f"# vbench host {hostname} ({name})",
        f"lxc.uts.name = {hostname}",
        f"lxc.rootfs.path = overlay:{lower}:{upper}",
        "lxc.net.0.type = veth",
        f"lxc.net.0.link = {bridge}",
        f"lxc.net.0.veth.pair = {veth}",
        "lxc.net.0.name = eth0",
        "lxc.net.0.flags = up",
        f"lxc.net.0.ipv4.address = {address_cidr}",
        f"lxc.init.cmd = {CONTAINER_INIT}",
        "lxc.mount.auto = proc:mixed sys:mixed cgroup:mixed:force",
        "lxc.autodev = 1",
        "lxc.tty.max = 0",
        "lxc.pty.max = 64",
        "lxc.apparmor.profile = unconfined",
        f"lxc.cgroup.dir.container = {cgroup_dir}",
        f"lxc.cgroup.dir.monitor = {cgroup_dir}.monitor",
        f"lxc.log.file = {log_file}",
        "lxc.log.level = NOTICE",
        f"lxc.console.logfile = {console_log}",
        "lxc.console.path = none",
    ]
    lines += [f"lxc.cgroup.{k} = {v}" for k, v in settings.items()]
    return "\n".join(lines) + "\n"


def disk_for(spec: HostParams, ctx: TestbedContext) -> BlockDevice | None:
    lim = spec.limits
    if lim is None or (lim.disk_read_bps is None and lim.disk_write_bps is None):
        return None
    return block_device_of(ctx.params.work_root)


def container_preflight(
    specs: list[HostParams], ctx: TestbedContext, tools: tuple[str, ...], platform: str
) -> GuestImage:
    """Checks shared by the container platforms; nothing is created."""
    for tool in tools:
        if shutil.which(tool) is None:
            raise VbenchError(f"'{tool}' is not installed (needed by {platform} hosts); run the README's setup command")
    check_limits_fit(ctx.params, MachineFacts.local())
    for spec in specs:
        disk_for(spec, ctx)  # refuses a work_root that is not on a disk when disk limits are asked
    return require_image(f"{platform} host {specs[0].name}")


class LxcProvisioner:
    platform = "lxc"

    def lxcpath(self, ctx: TestbedContext) -> Path:
        return ctx.paths.root / "lxc"

    def preflight(self, specs: list[HostParams], ctx: TestbedContext) -> None:
        container_preflight(specs, ctx, ("lxc-start", "lxc-stop", "lxc-info"), self.platform)

    def create(self, spec: HostParams, index: int, ctx: TestbedContext) -> Created:
        img = require_image(f"lxc host {spec.name}")
        name = instance_name(ctx, spec)
        hdir = ctx.paths.host_dir(spec.name)
        upper = hdir / "upper"
        upper.mkdir(parents=True, exist_ok=True)
        pub = write_identity(upper, spec, ctx)
        cdir = self.lxcpath(ctx) / name
        cdir.mkdir(parents=True, exist_ok=True)
        veth, _ = netcmd.veth_names(ctx.params.name, index)
        settings = cgroup_v1_settings(spec.limits, disk_for(spec, ctx))
        (cdir / "config").write_text(
            lxc_config(
                name=name,
                hostname=spec.name,
                lower=img.rootfs,
                upper=upper,
                bridge=ctx.bridge,
                veth=veth,
                address_cidr=f"{spec.address}/{ctx.prefixlen}",
                cgroup_dir=cgroup_rel(ctx, spec),
                settings=settings,
                log_file=hdir / "lxc.log",
                console_log=hdir / "console.log",
            )
        )
        ctx.record("lxc", name)
        ctx.record("links", veth)
        r = sysops.run(["lxc-start", "-P", str(self.lxcpath(ctx)), "-n", name], check=False)
        if r.returncode != 0:
            raise VbenchError(
                f"lxc-start of {spec.name} failed ({r.returncode}): {r.stderr.strip()}\n"
                + _tail(sysops.read_text(hdir / "lxc.log"))
            )
        pid = self.init_pid(spec, ctx)
        return container_created(self.host(spec, ctx), pub, upper, pid, hdir / "console.log")

    def host(self, spec: HostParams, ctx: TestbedContext) -> Host:
        return guest_host(spec, ctx, {"image_hash": image_for().hash, "container": instance_name(ctx, spec)})

    def init_pid(self, spec: HostParams, ctx: TestbedContext) -> int:
        r = sysops.run(
            ["lxc-info", "-P", str(self.lxcpath(ctx)), "-n", instance_name(ctx, spec), "-p", "-H"], check=False
        )
        if r.returncode != 0 or not r.stdout.strip().isdigit():
            raise VbenchError(f"lxc host {spec.name} is not running: {r.stderr.strip() or r.stdout.strip()}")
        return int(r.stdout.strip())

    def verify(self, spec: HostParams, host: Host, ctx: TestbedContext) -> dict[str, str]:
        return verify_container_limits(self, spec, ctx)

    def destroy(self, spec: HostParams, index: int, ctx: TestbedContext) -> None:
        name = instance_name(ctx, spec)
        if (self.lxcpath(ctx) / name / "config").exists():
            sysops.run(["lxc-stop", "-P", str(self.lxcpath(ctx)), "-n", name, "-k", "-t", "10"], check=False)
        # Whatever is left (state dir lost, lxc-stop failed): the container's and its monitor's
        # processes are exactly those in its cgroups.
        rel = cgroup_rel(ctx, spec)
        for cg in (rel, rel + ".monitor"):
            kill_cgroup(cg)
        left = remove_cgroups(rel) + remove_cgroups(rel + ".monitor", parent=testbed_cgroup(ctx.params.name))
        if left:
            raise VbenchError(f"cgroups of {spec.name} could not be removed: {', '.join(left)}")
        veth, _ = netcmd.veth_names(ctx.params.name, index)
        if ctx.owns("links", veth) and sysops.link_exists(veth):
            sysops.run(netcmd.delete_link(veth), check=False)


class _Container(Protocol):
    platform: str

    def init_pid(self, spec: HostParams, ctx: TestbedContext) -> int: ...


def container_created(host: Host, host_key: str, upper: Path, init_pid: int, console_log: Path) -> Created:
    """What a container platform's create() hands back: the sshd log the guest writes into its
    overlay's `upper` directory, and a failure that tells of its init's exit with the tails of
    `console_log` and that sshd log."""
    sshd_log = upper / CONTAINER_SSHD_LOG.lstrip("/")
    return Created(host, host_key, sshd_log, failure=container_failure(init_pid, console_log, sshd_log))


def verify_container_limits(prov: _Container, spec: HostParams, ctx: TestbedContext) -> dict[str, str]:
    """Read the limits back from the container's cgroup files; fail if they differ. Returns the
    host's limit facts."""
    expected = cgroup_v1_settings(spec.limits, disk_for(spec, ctx))
    verify_cgroup_limits(prov.init_pid(spec, ctx), expected, f"{prov.platform} host {spec.name}")
    return {"limits": limits_fact(spec.limits), "cgroup": cgroup_rel(ctx, spec)}


def container_failure(init_pid: int, *logs: Path):
    """A Created.failure for a container whose init is `init_pid`."""

    def failure() -> str | None:
        if sysops.alive(init_pid):
            return None
        return "its init exited; " + "; ".join(f"{p.name}: {_tail(sysops.read_text(p), 5) or '(empty)'}" for p in logs)

    return failure


def _tail(text: str, n: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-n:])

"""OCI hosts: containers run by crun (the OCI runtime Podman-class tools use), with no daemon.

Each host is an OCI bundle (`config.json` generated here) whose root is an overlay of the
cached image (lower) and the host's `upper/`; its network namespace is the testbed's usual one
(`<tb>-<host>`, a veth on the bridge, made exactly as for native hosts) and is handed to crun
by path. The init is tini -> sshd. Limits go into the spec's `linux.resources` and crun writes
them into the v1 cgroup `vbench-<tb>/<host>`.

The hybrid-cgroup quirk. This machine mounts cgroup v1 controllers under /sys/fs/cgroup and a
cgroup2 hierarchy at /sys/fs/cgroup/unified that holds one controller, hugetlb. crun treats
that as an unsupported hybrid layout and refuses to run anything ("cgroups in hybrid mode not
supported, drop all controllers from cgroupv2"). vbench does not change the machine to please
it (moving hugetlb to a v1 hierarchy would be a machine-wide change other users see). Instead
every crun invocation runs in a private mount namespace of its own in which
/sys/fs/cgroup/unified is unmounted: crun then sees a plain v1 ("legacy") layout and uses the
v1 controllers, which are the ones vbench limits. Nothing outside that namespace changes, there
is no state to undo, and running it twice is the same as once; the only thing given up is a
hugetlb cgroup for the container, which vbench never limits. The overlay root is mounted in the
same namespace just before `crun run`, so it exists only in the container's mount namespace and
vanishes with the container. `crun delete` goes through the same wrapper.

The runtime is a swappable part: `OciProvisioner`'s hooks (the runtime's command, the bundle,
what the machine needs before `run`, the facts the runtime reports) are what
vbench.testbed.gvisor overrides to run the same bundle, network namespace, overlay and cgroup
under runsc; creation, the wait for sshd, the limits' read-back and teardown are this module's.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

from vbench.errors import VbenchError
from vbench.host import Host
from vbench.params import HostParams
from vbench.testbed import netcmd, sysops
from vbench.testbed.guest import cgroup_rel, guest_host, instance_name, testbed_cgroup, write_identity
from vbench.testbed.image import image_for, require_image
from vbench.testbed.limits import BlockDevice, cgroup_v1_settings, kill_cgroup, remove_cgroups
from vbench.testbed.lxc import container_created, container_preflight, disk_for, verify_container_limits
from vbench.testbed.native import attach_host_netns, remove_netns
from vbench.testbed.provisioner import Created, TestbedContext

UNIFIED = "/sys/fs/cgroup/unified"
#: Docker's default capability set: enough for sshd (setuid, chroot) and Hadoop.
CAPABILITIES = [
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_FSETID",
    "CAP_FOWNER",
    "CAP_MKNOD",
    "CAP_NET_RAW",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETFCAP",
    "CAP_SETPCAP",
    "CAP_NET_BIND_SERVICE",
    "CAP_SYS_CHROOT",
    "CAP_KILL",
    "CAP_AUDIT_WRITE",
]


def oci_config(
    *,
    hostname: str,
    rootfs: Path,
    netns_path: str,
    cgroups_path: str,
    limits_settings: dict[str, str],
    disk: BlockDevice | None,
) -> dict:
    """The OCI runtime spec of one host. Pure."""
    resources: dict = {"devices": [{"allow": False, "access": "rwm"}]}
    s = limits_settings
    cpu: dict = {}
    if "cpu.cfs_quota_us" in s:
        cpu["quota"] = int(s["cpu.cfs_quota_us"])
        cpu["period"] = int(s["cpu.cfs_period_us"])
    if "cpuset.cpus" in s:
        cpu["cpus"] = s["cpuset.cpus"]
    if cpu:
        resources["cpu"] = cpu
    if "memory.limit_in_bytes" in s:
        resources["memory"] = {"limit": int(s["memory.limit_in_bytes"])}
    if "pids.max" in s:
        resources["pids"] = {"limit": int(s["pids.max"])}
    blkio: dict = {}
    for key, name in (
        ("blkio.throttle.read_bps_device", "throttleReadBpsDevice"),
        ("blkio.throttle.write_bps_device", "throttleWriteBpsDevice"),
    ):
        if key in s:
            assert disk is not None
            blkio[name] = [{"major": disk.major, "minor": disk.minor, "rate": int(s[key].split()[1])}]
    if blkio:
        resources["blockIO"] = blkio
    caps = list(CAPABILITIES)
    return {
        "ociVersion": "1.0.2",
        "process": {
            "terminal": False,
            "user": {"uid": 0, "gid": 0},
            "args": ["/usr/bin/tini", "--", "/usr/local/sbin/vbench-init"],
            "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "container=oci"],
            "cwd": "/",
            "capabilities": {k: caps for k in ("bounding", "effective", "inheritable", "permitted", "ambient")},
            "noNewPrivileges": False,
        },
        "root": {"path": str(rootfs), "readonly": False},
        "hostname": hostname,
        "mounts": [
            {"destination": "/proc", "type": "proc", "source": "proc"},
            {
                "destination": "/dev",
                "type": "tmpfs",
                "source": "tmpfs",
                "options": ["nosuid", "strictatime", "mode=755", "size=65536k"],
            },
            {
                "destination": "/dev/pts",
                "type": "devpts",
                "source": "devpts",
                "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"],
            },
            {
                "destination": "/dev/shm",
                "type": "tmpfs",
                "source": "shm",
                "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"],
            },
            {
                "destination": "/dev/mqueue",
                "type": "mqueue",
                "source": "mqueue",
                "options": ["nosuid", "noexec", "nodev"],
            },
            {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
            {
                "destination": "/sys/fs/cgroup",
                "type": "cgroup",
                "source": "cgroup",
                "options": ["nosuid", "noexec", "nodev", "relatime", "ro"],
            },
            {"destination": "/run", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=755"]},
        ],
        "linux": {
            "namespaces": [
                {"type": "pid"},
                {"type": "ipc"},
                {"type": "uts"},
                {"type": "mount"},
                {"type": "network", "path": netns_path},
            ],
            "cgroupsPath": cgroups_path,
            "resources": resources,
            "maskedPaths": [
                "/proc/acpi",
                "/proc/kcore",
                "/proc/keys",
                "/proc/latency_stats",
                "/proc/timer_list",
                "/proc/timer_stats",
                "/proc/sched_debug",
                "/sys/firmware",
                "/proc/scsi",
            ],
            "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"],
        },
    }


def private_mounts_argv(
    prelude: str,
    runtime: str,
    state_root: Path,
    args: list[str],
    mount_overlay: tuple[Path, Path, Path, Path] | None = None,
) -> list[str]:
    """An OCI runtime's command in a private mount namespace of its own. Pure.

    `prelude` (fixed shell text) runs first; with `mount_overlay` = (lower, upper, work, merged)
    the container's overlay root is then mounted (only that namespace, and then the
    container's, ever see it); then `runtime` (fixed shell words, in which "$0" is `state_root`)
    is exec'd with `args`. No path is written into the script: they reach it as positional
    arguments ("$0", "$1", "$2"), so a quote or `$(...)` in a path is data, never shell.
    """
    script = prelude
    overlay: list[str] = []
    if mount_overlay is not None:
        lower, upper, work, merged = mount_overlay
        for p in mount_overlay:
            if any(c in str(p) for c in ",:= \n"):
                raise VbenchError(
                    f"overlay path {p} contains one of ',:= ' or a newline, which mount options cannot carry"
                )
        overlay = [f"lowerdir={lower},upperdir={upper},workdir={work}", str(merged)]
        script += ' && mount -t overlay overlay -o "$1" "$2" && shift 2'
    script += f' && exec {runtime} "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(state_root), *overlay, *args]


def crun_argv(
    state_root: Path, args: list[str], mount_overlay: tuple[Path, Path, Path, Path] | None = None
) -> list[str]:
    """crun `args` in a private mount namespace without the cgroup2 mount (see the module doc). Pure."""
    prelude = f"if mountpoint -q {shlex.quote(UNIFIED)}; then umount {shlex.quote(UNIFIED)}; fi"
    return private_mounts_argv(prelude, 'crun --root "$0" --cgroup-manager=cgroupfs', state_root, args, mount_overlay)


class OciProvisioner:
    """Hosts that are OCI containers: a bundle from the guest image, run by an OCI runtime (crun
    here; vbench.testbed.gvisor swaps in runsc through the hooks below)."""

    platform = "oci"
    #: The OCI runtime: the name of its state directory in the testbed's and the host's `runtime` fact.
    runtime = "crun"
    #: What preflight requires on the PATH.
    tools: tuple[str, ...] = ("crun", "unshare", "mountpoint")

    def state_root(self, ctx: TestbedContext) -> Path:
        return ctx.paths.root / self.runtime

    def preflight(self, specs: list[HostParams], ctx: TestbedContext) -> None:
        container_preflight(specs, ctx, self.tools, self.platform)

    # -- the hooks a runtime swaps ----------------------------------------------------------
    def runtime_argv(
        self, ctx: TestbedContext, args: list[str], mount_overlay: tuple[Path, Path, Path, Path] | None = None
    ) -> list[str]:
        """The runtime command running `args` (run, delete) for this testbed."""
        return crun_argv(self.state_root(ctx), args, mount_overlay)

    def bundle_config(
        self, spec: HostParams, ctx: TestbedContext, rootfs: Path, netns: str, disk: BlockDevice | None
    ) -> dict:
        return oci_config(
            hostname=spec.name,
            rootfs=rootfs,
            netns_path=f"/var/run/netns/{netns}",
            cgroups_path="/" + cgroup_rel(ctx, spec),
            limits_settings=cgroup_v1_settings(spec.limits, disk),
            disk=disk,
        )

    def before_run(self, spec: HostParams, ctx: TestbedContext) -> None:
        """What the machine needs before the runtime creates the host's cgroup (crun: nothing)."""

    def prepare_upper(self, spec: HostParams, ctx: TestbedContext, upper: Path) -> None:
        """Files the guest needs beside the image's, written into the host's own (fresh) overlay
        upper directory before it starts (crun: none)."""

    def has_state(self, ctx: TestbedContext, name: str) -> bool:
        """Whether the runtime keeps state for container `name` (crun: a directory of that name)."""
        return (self.state_root(ctx) / name).exists()

    def runtime_facts(self, spec: HostParams, host: Host, ctx: TestbedContext) -> dict[str, str]:
        """Facts the runtime reports about a running host, checked against what was asked."""
        return {}

    # -- the host's life ----------------------------------------------------------------------
    def create(self, spec: HostParams, index: int, ctx: TestbedContext) -> Created:
        img = require_image(f"{self.platform} host {spec.name}")
        name = instance_name(ctx, spec)
        ns = netcmd.netns_name(ctx.params.name, spec.name)
        attach_host_netns(ctx, spec, ns, index)
        hdir = ctx.paths.host_dir(spec.name)
        upper, work, merged, bundle = hdir / "upper", hdir / "work", hdir / "rootfs", hdir / "bundle"
        for d in (upper, work, merged, bundle, self.state_root(ctx)):
            d.mkdir(parents=True, exist_ok=True)
        pub = write_identity(upper, spec, ctx)
        self.prepare_upper(spec, ctx, upper)
        config = self.bundle_config(spec, ctx, merged, ns, disk_for(spec, ctx))
        (bundle / "config.json").write_text(json.dumps(config, indent=1))
        ctx.record(self.platform, name)
        self.before_run(spec, ctx)
        # The container keeps the runtime's stdout and stderr: a file, not a pipe nobody would close.
        console = hdir / "console.log"
        with open(console, "ab") as out:
            r = subprocess.run(
                self.runtime_argv(
                    ctx,
                    ["run", "--detach", "--bundle", str(bundle), "--pid-file", str(hdir / "init.pid"), name],
                    mount_overlay=(img.rootfs, upper, work, merged),
                ),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                timeout=60,
            )
        if r.returncode != 0:
            tail = "\n".join(sysops.read_text(console).strip().splitlines()[-8:])
            raise VbenchError(f"{self.runtime} run of {spec.name} failed ({r.returncode}): {tail}")
        return container_created(self.host(spec, ctx), pub, upper, self.init_pid(spec, ctx), hdir / "console.log")

    def host(self, spec: HostParams, ctx: TestbedContext) -> Host:
        return guest_host(
            spec, ctx, {"image_hash": image_for().hash, "container": instance_name(ctx, spec), "runtime": self.runtime}
        )

    def init_pid(self, spec: HostParams, ctx: TestbedContext) -> int:
        """The pid the runtime wrote: the container's init (crun), the sandbox (runsc)."""
        text = sysops.read_text(ctx.paths.host_dir(spec.name) / "init.pid").strip()
        if not text.isdigit() or not sysops.alive(int(text)):
            raise VbenchError(f"{self.platform} host {spec.name} is not running (pid file: {text or 'missing'})")
        return int(text)

    def verify(self, spec: HostParams, host: Host, ctx: TestbedContext) -> dict[str, str]:
        """The limits read back from the container's cgroup (as for LXC hosts), and the runtime's facts."""
        return {**verify_container_limits(self, spec, ctx), **self.runtime_facts(spec, host, ctx)}

    def destroy(self, spec: HostParams, index: int, ctx: TestbedContext) -> None:
        name = instance_name(ctx, spec)
        if self.has_state(ctx, name):
            subprocess.run(self.runtime_argv(ctx, ["delete", "--force", name]), capture_output=True, timeout=60)
        # Whatever is left (state lost, delete failed): the container's processes are those in its
        # cgroup and in its network namespace.
        rel = cgroup_rel(ctx, spec)
        kill_cgroup(rel)
        ns = netcmd.netns_name(ctx.params.name, spec.name)
        if ctx.owns("netns", ns):
            remove_netns(ns)
        left = remove_cgroups(rel, parent=testbed_cgroup(ctx.params.name))
        if left:
            raise VbenchError(f"cgroups of {spec.name} could not be removed: {', '.join(left)}")
        veth, _ = netcmd.veth_names(ctx.params.name, index)
        if ctx.owns("links", veth) and sysops.link_exists(veth):
            sysops.run(netcmd.delete_link(veth), check=False)

"""gVisor hosts: the OCI hosts' bundle, network namespace, overlay and cgroup, run by runsc.

gVisor puts a user-space kernel (the Sentry) between the guest and the machine's kernel: every
system call of the guest is served by the Sentry, which itself uses a small set of the
machine's. How it intercepts them is its *platform* (`testbed.gvisor.platform`): ptrace (works
anywhere, the slowest), systrap (runsc from mid-2023 on) or kvm (needs a /dev/kvm that runs
guests). Its network is either its own stack inside the Sentry (`testbed.gvisor.network:
sandbox`, runsc's default) or the host namespace's, reached through the Sentry (`host`). Both
are recorded in the host's facts as detected on the running sandbox, with runsc's version.

Everything else is vbench.testbed.oci's, with the runtime swapped (`OciProvisioner`'s hooks):
the same bundle from the same guest image (the environment says `container=gvisor`, and the
cgroupfs mount is left out: runsc 0.0~20221219 does not provide one inside), the same overlay
mounted in a private mount namespace just before `runsc run`, the host's namespace handed over
by path, limits written by runsc into the v1 cgroup `vbench-<tb>/<host>` (where the sandbox,
its gofer and its ptrace stubs all live) and read back from there.

What this runsc (Debian's 0.0~20221219) needs on this machine, each found by trying:

- `--network=sandbox` refuses to start on kernels from 6.11 on ("cannot run with network
  enabled in root network namespace", gVisor issue #10704): runsc decides it runs in the root
  network namespace if /proc/sys/net/core/rmem_default exists, and newer kernels show that file
  in every namespace. runsc runs here with an empty read-only tmpfs over /proc/sys/net in its
  private mount namespace, so the check sees a non-root namespace, as it is. Nothing else
  changes: the sandbox mounts its own /proc.
- A cpuset limit fails ("write .../cpuset.cpus: permission denied") because runsc leaves the
  new parent cgroup `vbench-<tb>` without CPUs; vbench fills the parent first
  (vbench.testbed.limits.fill_cpuset_parent).
- The Sentry answers statx(2) with EINVAL on every path, so the guest's coreutils 9.1 `ls` and
  `stat` (which call statx) fail, and Hadoop's NodeManager, which reads file permissions with
  `ls -ld` (its shell fallback without libhadoop), exits at start-up. Every gVisor host gets
  BusyBox's `ls` and `stat` (the machine's static busybox, Debian package busybox-static, which
  calls fstatat) in /usr/local/bin of its own overlay, ahead of /usr/bin on the PATH.
- The KVM platform hangs at start-up (the machine is itself a VM whose /dev/kvm runs no guest:
  the same verdict as QEMU's KVM probe), and systrap does not exist in this release: both are
  refused before anything starts, with that explanation.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from vbench.errors import ParamsError, VbenchError
from vbench.host import Host
from vbench.params import HostParams, TestbedParams
from vbench.testbed import netcmd, sysops
from vbench.testbed.facts import this_cpu_model
from vbench.testbed.guest import cgroup_rel
from vbench.testbed.image import require_image
from vbench.testbed.limits import BlockDevice, cgroup_pids, fill_cpuset_parent
from vbench.testbed.oci import OciProvisioner, private_mounts_argv
from vbench.testbed.provisioner import TestbedContext
from vbench.testbed.qemu import kvm_verdict

RUNSC = "runsc"
#: The machine's static BusyBox (busybox-static), copied into every gVisor host's overlay.
BUSYBOX = "busybox"
#: Its applets that stand in for the guest's statx-calling coreutils (module doc), and where.
STATX_FREE_APPLETS = ("ls", "stat")
STATX_FREE_DIR = "usr/local/bin"
#: Covered in runsc's private mount namespace for --network=sandbox (see the module doc).
SYS_NET = "/proc/sys/net"
#: How long `runsc --version` and `runsc flags` may take.
QUERY_TIMEOUT_S = 30


# -- pure: runsc's answers and command -------------------------------------------------------
#: Benchmarks a gVisor host cannot run on the host's network stack (`testbed.gvisor.network:
#: host`), and why: refused before anything starts rather than failed mid-campaign.
HOST_NETWORK_REFUSED = {
    "latency": (
        "fio's net engine gets EINVAL (error 22) from this runsc's host-network sockets: with "
        "runsc --network=host, two of three pairs failed at once and the third hung for ten minutes "
        "(2026-11-24); use testbed.gvisor.network: sandbox, where it runs"
    ),
}


def refused_benchmarks(testbed: TestbedParams) -> dict[str, str]:
    """Benchmark -> why it cannot run on this testbed's gVisor hosts; empty without such hosts."""
    gvisor = any(h.platform == "gvisor" for h in testbed.resolved_hosts())
    return dict(HOST_NETWORK_REFUSED) if gvisor and testbed.gvisor.network == "host" else {}


def parse_version(text: str) -> str:
    """'runsc version 0.0~20221219.0' (first line of `runsc --version`) -> '0.0~20221219.0'. Pure."""
    for line in text.splitlines():
        head, sep, version = line.strip().partition("runsc version ")
        if sep and not head and version.strip():
            return version.strip()
    raise VbenchError(f"`runsc --version` printed no version: {text.strip()[:200]!r}")


def parse_platforms(flags_text: str) -> tuple[str, ...]:
    """The platforms this runsc knows, from the help of its -platform flag in `runsc flags`
    ("specifies which platform to use: ptrace (default), kvm."). Pure; () if not found."""
    lines = flags_text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().split()[:1] == ["-platform"]:
            text = " ".join(x.strip() for x in lines[i + 1 : i + 3])
            _, sep, listed = text.partition("to use:")
            if not sep:
                return ()
            names = listed.split(".")[0].replace("(default)", "").split(",")
            return tuple(n.strip() for n in names if n.strip().isalpha())
    return ()


def choose_platform(wanted: str, known: tuple[str, ...], version: str, kvm_ok: bool | None, kvm_detail: str) -> str:
    """The gVisor platform for `testbed.gvisor.platform`, or a refusal naming why. Pure.

    auto: systrap where this runsc has it, else ptrace (never kvm: whether /dev/kvm runs guests
    is worth asking for, not assuming). `kvm_ok` is the machine's KVM verdict (None: not probed)."""
    field = "testbed.gvisor.platform"
    if wanted == "auto":
        return "systrap" if "systrap" in known else "ptrace"
    if known and wanted not in known:
        later = " (systrap came with runsc releases from mid-2023)" if wanted == "systrap" else ""
        raise ParamsError(
            field,
            f"{wanted} is not a platform of runsc {version}, which knows {', '.join(known)}{later}; use auto or ptrace",
        )
    if wanted == "kvm" and not kvm_ok:
        raise ParamsError(
            field,
            f"kvm was asked for, but KVM cannot run a guest here ({kvm_detail}); runsc's "
            "KVM platform hangs at start-up on such a machine (tried here: `runsc "
            "--platform=kvm --network=none do /bin/true` had not returned after 30 s); "
            "use auto or ptrace",
        )
    return wanted


def runsc_argv(
    state_root: Path,
    args: list[str],
    platform: str | None = None,
    network: str | None = None,
    mount_overlay: tuple[Path, Path, Path, Path] | None = None,
) -> list[str]:
    """runsc `args` in a private mount namespace. Pure.

    `runsc run` gets the platform and network flags, the overlay root and, for the sandbox's own
    network stack, /proc/sys/net covered (see the module doc); `runsc delete` needs none of them,
    so teardown works whatever the params say now."""
    prelude, flags = "true", []
    if args[:1] == ["run"]:
        if platform is None or network is None:
            raise VbenchError("runsc run needs the gVisor platform and network")
        flags = [f"--platform={platform}", f"--network={network}"]
        if network == "sandbox":
            prelude = f"mount -t tmpfs -o ro,size=4k,mode=555 vbench-mask {shlex.quote(SYS_NET)}"
    return private_mounts_argv(prelude, f'{RUNSC} --root "$0"', state_root, flags + args, mount_overlay)


def gvisor_config(config: dict) -> dict:
    """The OCI hosts' spec adapted to runsc. Pure.

    The environment names the sandbox for the guest's own tools (systemd-detect-virt reads
    container= of PID 1), and the cgroupfs mount goes: runsc 0.0~20221219 has no /sys/fs inside."""
    process = dict(config["process"])
    process["env"] = [e for e in process["env"] if not e.startswith("container=")] + ["container=gvisor"]
    mounts = [m for m in config["mounts"] if m.get("type") != "cgroup"]
    return {**config, "process": process, "mounts": mounts}


@dataclass(frozen=True)
class SandboxTask:
    """One process of a sandbox's cgroup, as /proc shows it."""

    pid: int
    #: TracerPid of /proc/<pid>/status (0: not traced).
    tracer: int
    #: Holds /dev/kvm open.
    kvm: bool


def detect_platform(sandbox_threads: set[int], tasks: list[SandboxTask]) -> str:
    """Which platform a running sandbox uses, from its processes. Pure.

    kvm: the Sentry holds /dev/kvm; ptrace: the guest's stub processes are traced by the Sentry's
    threads; anything else is not told apart here ("unknown")."""
    if any(t.kvm for t in tasks):
        return "kvm"
    if any(t.tracer in sandbox_threads for t in tasks):
        return "ptrace"
    return "unknown"


def detect_network(ip_addr_output: str, address: str) -> str:
    """Which network stack a sandbox uses, from `ip -o -4 addr show dev eth0` in its namespace. Pure.

    With its own stack (sandbox) runsc moves the interface's address into the Sentry, so the
    namespace's eth0 no longer holds it; with the host's stack (host) it still does."""
    for line in ip_addr_output.splitlines():
        words = line.split()
        if "inet" in words and words.index("inet") + 1 < len(words):
            if words[words.index("inet") + 1].split("/")[0] == address:
                return "host"
    return "sandbox"


# -- reading the machine -----------------------------------------------------------------------
def install_statx_free_tools(upper: Path, busybox: str) -> list[Path]:
    """Put BusyBox and its `ls` and `stat` applets (links to it) into `<upper>/usr/local/bin`, the
    host's own overlay layer that vbench made for it (module doc: the Sentry's statx). Returns the
    links made."""
    if not busybox or not Path(busybox).is_file():
        raise VbenchError(
            "'busybox' is not installed (gvisor hosts need its statx-free ls and stat; Debian package "
            "busybox-static); run the README's setup command"
        )
    where = upper / STATX_FREE_DIR
    where.mkdir(parents=True, exist_ok=True)
    target = where / BUSYBOX
    shutil.copy2(busybox, target)
    links = []
    for applet in STATX_FREE_APPLETS:
        link = where / applet
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(BUSYBOX)  # relative: resolved inside the guest
        links.append(link)
    return links


def runsc_query(*args: str) -> str:
    r = subprocess.run([RUNSC, *args], capture_output=True, text=True, timeout=QUERY_TIMEOUT_S)
    if r.returncode != 0:
        raise VbenchError(f"`runsc {' '.join(args)}` failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-300:]}")
    return r.stdout + r.stderr


def sandbox_tasks(pids: set[int]) -> list[SandboxTask]:
    out = []
    for pid in sorted(pids):
        status = sysops.read_text(Path(f"/proc/{pid}/status"))
        tracer = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("TracerPid:")), 0)
        out.append(SandboxTask(pid, tracer, _holds_kvm(pid)))
    return out


def _holds_kvm(pid: int) -> bool:
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(fd) == "/dev/kvm":
                return True
        except OSError:  # closed meanwhile
            continue
    return False


def thread_ids(pid: int) -> set[int]:
    try:
        return {int(t.name) for t in Path(f"/proc/{pid}/task").iterdir() if t.name.isdigit()}
    except OSError:
        return set()


class GvisorProvisioner(OciProvisioner):
    platform = "gvisor"
    runtime = "runsc"
    tools = ("runsc", "unshare", BUSYBOX)

    def __init__(self) -> None:
        #: (testbed name, platform asked) -> (platform chosen in preflight, runsc version)
        self._chosen: dict[tuple[str, str], tuple[str, str]] = {}

    def preflight(self, specs: list[HostParams], ctx: TestbedContext) -> None:
        super().preflight(specs, ctx)
        self.choice(ctx)

    def choice(self, ctx: TestbedContext) -> tuple[str, str]:
        """(the gVisor platform to use, runsc's version), asked of runsc once per testbed."""
        key = (ctx.params.name, ctx.params.gvisor.platform)
        if key not in self._chosen:
            if shutil.which(RUNSC) is None:
                raise VbenchError(
                    "'runsc' is not installed (needed by gvisor hosts; Debian package runsc); "
                    "run the README's setup command"
                )
            version = parse_version(runsc_query("--version"))
            known = parse_platforms(runsc_query("flags"))
            wanted = ctx.params.gvisor.platform
            kvm_ok, detail = (None, "not probed")
            if wanted == "kvm":  # the machine's KVM probe (QEMU's), cached per boot
                kvm_ok, detail = kvm_verdict(
                    require_image("gvisor hosts (the KVM probe boots its kernel)"), log=ctx.log
                )
            self._chosen[key] = (choose_platform(wanted, known, version, kvm_ok, detail), version)
        return self._chosen[key]

    def runtime_argv(
        self, ctx: TestbedContext, args: list[str], mount_overlay: tuple[Path, Path, Path, Path] | None = None
    ) -> list[str]:
        if args[:1] != ["run"]:
            return runsc_argv(self.state_root(ctx), args)
        platform, _ = self.choice(ctx)
        return runsc_argv(self.state_root(ctx), args, platform, ctx.params.gvisor.network, mount_overlay)

    def bundle_config(
        self, spec: HostParams, ctx: TestbedContext, rootfs: Path, netns: str, disk: BlockDevice | None
    ) -> dict:
        return gvisor_config(super().bundle_config(spec, ctx, rootfs, netns, disk))

    def before_run(self, spec: HostParams, ctx: TestbedContext) -> None:
        if spec.limits is not None and spec.limits.cpuset is not None:
            fill_cpuset_parent(cgroup_rel(ctx, spec))

    def prepare_upper(self, spec: HostParams, ctx: TestbedContext, upper: Path) -> None:
        install_statx_free_tools(upper, shutil.which(BUSYBOX) or "")

    def has_state(self, ctx: TestbedContext, name: str) -> bool:
        return (self.state_root(ctx) / f"{name}_sandbox:{name}.state").exists()

    def runtime_facts(self, spec: HostParams, host: Host, ctx: TestbedContext) -> dict[str, str]:
        """The platform and network the sandbox runs with, detected on it, and runsc's version;
        fails if either differs from what was asked."""
        platform, version = self.choice(ctx)
        sandbox = self.init_pid(spec, ctx)
        seen_platform = detect_platform(thread_ids(sandbox), sandbox_tasks(cgroup_pids(cgroup_rel(ctx, spec))))
        ns = netcmd.netns_name(ctx.params.name, spec.name)
        addr = sysops.run(["ip", "-n", ns, "-o", "-4", "addr", "show", "dev", "eth0"], check=False).stdout
        seen_network = detect_network(addr, ctx.own_address(spec))
        bad = [
            f"{what} is {seen}, {asked} was asked"
            for what, seen, asked in (
                ("platform", seen_platform, platform),
                ("network", seen_network, ctx.params.gvisor.network),
            )
            if seen not in (asked, "unknown")
        ]
        if bad:
            raise VbenchError(f"gvisor host {spec.name}: the sandbox does not run as asked: " + "; ".join(bad))
        facts = {"runsc_version": version, "gvisor_platform": seen_platform, "gvisor_network": seen_network}
        # The Sentry names no CPU (/proc/cpuinfo says "unknown"); runsc runs here, on this machine.
        machine = this_cpu_model()
        return facts | ({"cpu_model": machine} if machine else {})

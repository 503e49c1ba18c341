"""QEMU hosts: full virtual machines with virtio disk and network, booting Debian's kernel.

Each VM boots the image's kernel and initramfs (`-kernel/-initrd`, root=/dev/vda) from a qcow2
overlay of the cached image disk (copy-on-write, created in the host's state directory), with a
tap device `<tb>h<i>` on the testbed bridge and a small read-only seed disk (/dev/vdb, ext4
made with `mke2fs -d`) carrying its identity and address, which `vbench-seed.service` applies
before sshd starts. Limits: vCPUs -> -smp (a cpuset pins the QEMU process with taskset),
memory -> -m, disk bandwidth -> QEMU's drive throttling; all read back over QMP and from the
guest after boot.

Accelerator: KVM where /dev/kvm can actually boot a guest, found by trying (the image's kernel
booted to its root-mount panic with a short timeout; verdict cached per boot of the machine in
`<cache>/kvm-probe.json`), else TCG. On the machines this project runs on /dev/kvm exists but
boots nothing, so VMs run under TCG: fine to test the VM path, meaningless as a measure of
hardware virtualisation. The accelerator in use is read back over QMP into the host's facts.

The QEMU process runs in the pids cgroup `vbench-<tb>/<host>`, so teardown finds it by name
even when the state file is gone.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from vbench.errors import VbenchError
from vbench.cache import default_cache_dir
from vbench.host import Host, connect
from vbench.machine_fit import MachineFacts, check_limits_fit
from vbench.params import VM_DEFAULT_CPUS, VM_DEFAULT_MEMORY_MB, HostParams
from vbench.testbed import netcmd, owned, sysops
from vbench.testbed.guest import (
    cgroup_rel,
    guest_host,
    instance_name,
    testbed_cgroup,
    write_identity,
    write_with_mode,
)
from vbench.testbed.facts import this_cpu_model
from vbench.testbed.image import SEED_LABEL, GuestImage, image_for, require_image
from vbench.testbed.limits import kill_cgroup, limits_fact, remove_cgroups
from vbench.testbed.provisioner import Created, TestbedContext

QEMU = "qemu-system-x86_64"
#: Kernel command line of every VM; `quiet` matters under TCG, where each console line is slow.
KERNEL_APPEND = "root=/dev/vda rw console=ttyS0 net.ifnames=0 fsck.mode=skip quiet loglevel=3 panic=-1"
PIDS_CGROUP = Path("/sys/fs/cgroup/pids")
#: Boot to SSH under TCG takes ~30-60 s on 2 busy cores; allow for a loaded machine.
READY_TIMEOUT_S = 420.0
KVM_PROBE_TIMEOUT_S = 10.0


# -- pure builders ------------------------------------------------------------------------
def mac_for(address: str) -> str:
    """A locally administered MAC from the host's IPv4 address (unique on the testbed's subnet). Pure."""
    a, b, c, d = (int(x) for x in address.split("."))
    return f"52:54:00:{b:02x}:{c:02x}:{d:02x}"


def vm_shape(spec: HostParams, machine_cpus: int) -> tuple[int, int]:
    """(vCPUs, memory MiB) of a VM host: its limits, else the defaults. Pure."""
    lim = spec.limits
    cpus = (lim.cpus if lim and lim.cpus else None) or (len(lim.cpuset_cpus) if lim and lim.cpuset else None)
    cpus = cpus or min(VM_DEFAULT_CPUS, machine_cpus)
    memory = (lim.memory_mb if lim and lim.memory_mb else None) or VM_DEFAULT_MEMORY_MB
    return cpus, memory


def headless_boot_argv(console: Path, kernel: Path) -> list[str]:
    """QEMU's options for a VM with no display, VGA or monitor, whose serial console is written to
    `console`, booting `kernel` directly (the VMs and the KVM probe alike). Pure."""
    return [
        "-display",
        "none",
        "-vga",
        "none",
        "-monitor",
        "none",
        "-serial",
        f"file:{console}",
        "-kernel",
        str(kernel),
    ]


def qemu_argv(
    *,
    name: str,
    accel: str,
    cpus: int,
    memory_mb: int,
    kernel: Path,
    initrd: Path,
    append: str,
    disk: Path,
    seed: Path,
    tap: str,
    mac: str,
    qmp: Path,
    pidfile: Path,
    console: Path,
    bps_read: int | None = None,
    bps_write: int | None = None,
    cpuset: str | None = None,
) -> list[str]:
    """The QEMU command line of one VM. Pure."""
    drive = f"file={disk},if=virtio,format=qcow2,id=root,cache=none"
    if bps_read:
        drive += f",throttling.bps-read={bps_read}"
    if bps_write:
        drive += f",throttling.bps-write={bps_write}"
    argv = [] if not cpuset else ["taskset", "-c", cpuset]
    argv += [
        QEMU,
        "-name",
        f"{name},process={name}",
        "-nodefaults",
        "-no-user-config",
        "-no-reboot",
        # Multi-threaded TCG crashed JVMs here (SIGSEGV in JIT-compiled code, i.e. code the guest
        # writes and runs at once); one TCG thread for all vCPUs runs them correctly.
        "-accel",
        "kvm" if accel == "kvm" else "tcg,thread=single",
        *(["-cpu", "host"] if accel == "kvm" else []),
        "-smp",
        str(cpus),
        "-m",
        str(memory_mb),
        *headless_boot_argv(console, kernel),
        "-initrd",
        str(initrd),
        "-append",
        append,
        "-drive",
        drive,
        "-drive",
        f"file={seed},if=virtio,format=raw,readonly=on,id=seed",
        "-netdev",
        f"tap,id=net0,ifname={tap},script=no,downscript=no",
        "-device",
        f"virtio-net-pci,netdev=net0,mac={mac}",
        "-qmp",
        f"unix:{qmp},server=on,wait=off",
        "-pidfile",
        str(pidfile),
    ]
    return argv


def in_cgroup_argv(procs_file: Path, argv: list[str]) -> list[str]:
    """Run `argv` after moving the shell (then exec'd into it) into a cgroup. Pure."""
    return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(procs_file), *argv]


def parse_qmp_readback(cpus: list, memory: dict, block: list, kvm: dict) -> dict[str, int | str | None]:
    """What QEMU says it runs with, from QMP's query-cpus-fast, query-memory-size-summary,
    query-block and query-kvm answers. Pure."""
    root = next((b for b in block if b.get("device") == "root"), {})
    inserted = root.get("inserted", {})
    return {
        "cpus": len(cpus),
        "memory_mb": int(memory.get("base-memory", 0)) // 1024**2,
        "bps_rd": int(inserted.get("bps_rd", 0)) or None,
        "bps_wr": int(inserted.get("bps_wr", 0)) or None,
        "accelerator": "kvm" if kvm.get("enabled") else "tcg",
    }


#: What `verify` reads in the guest, one value a line: its CPUs, its MemTotal in kB, and the CPU model
#: its /proc/cpuinfo names (under TCG, QEMU's emulated model, not the machine's).
GUEST_SHAPE_SCRIPT = (
    "nproc; sed -n 's/^MemTotal:[[:space:]]*\\([0-9]*\\).*/\\1/p' /proc/meminfo; "
    "sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n1"
)


def parse_guest_shape(text: str) -> tuple[int | None, int | None, str]:
    """The guest's CPUs, MemTotal (kB) and CPU model from GUEST_SHAPE_SCRIPT's output; (None, None, "")
    for what it did not print as asked. Pure."""
    lines = [line.strip() for line in text.splitlines()]
    cpus, mem = (lines + ["", ""])[:2]
    if not (cpus.isdigit() and mem.isdigit()):
        return None, None, ""
    return int(cpus), int(mem), lines[2] if len(lines) > 2 else ""


def readback_mismatches(want: dict, got: dict, guest_cpus: int | None, guest_mem_kb: int | None) -> list[str]:
    """Differences between the VM asked for and the VM QEMU and the guest report. Pure."""
    bad = [f"{k} is {got.get(k)}, wanted {v}" for k, v in want.items() if got.get(k) != v]
    if guest_cpus is not None and guest_cpus != want["cpus"]:
        bad.append(f"the guest sees {guest_cpus} CPUs, wanted {want['cpus']}")
    if guest_mem_kb is not None:
        mb = guest_mem_kb / 1024
        # MemTotal excludes what the firmware and kernel reserve: a few percent below -m.
        if not (0.8 * want["memory_mb"] <= mb <= want["memory_mb"]):
            bad.append(f"the guest sees {mb:.0f} MiB of memory, wanted about {want['memory_mb']}")
    return bad


# -- QMP ----------------------------------------------------------------------------------
def qmp(sock_path: Path, commands: list[str], timeout_s: float = 10.0) -> list[dict]:
    """Run QMP commands (no arguments) and return their `return` values, in order."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout_s)
        s.connect(str(sock_path))
        f = s.makefile("rwb")

        def reply() -> dict:
            while True:
                line = f.readline()
                if not line:
                    raise VbenchError(f"QMP at {sock_path} closed the connection")
                msg = json.loads(line)
                if "event" not in msg:
                    return msg

        reply()  # greeting
        out = []
        for cmd in ["qmp_capabilities", *commands]:
            f.write(json.dumps({"execute": cmd}).encode() + b"\n")
            f.flush()
            msg = reply()
            if "error" in msg:
                raise VbenchError(f"QMP {cmd}: {msg['error'].get('desc', msg['error'])}")
            out.append(msg.get("return"))
        return out[1:]


# -- the accelerator ------------------------------------------------------------------------
def _boot_id() -> str:
    return sysops.read_text(Path("/proc/sys/kernel/random/boot_id")).strip()


def probe_kvm(kernel: Path, timeout_s: float = KVM_PROBE_TIMEOUT_S) -> tuple[bool, str]:
    """Can /dev/kvm boot a guest? Boot `kernel` with KVM until it panics for want of a root fs."""
    if not os.path.exists("/dev/kvm"):
        return False, "/dev/kvm is absent"
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
    except OSError as exc:
        return False, f"/dev/kvm cannot be opened: {exc.strerror}"
    with tempfile.TemporaryDirectory(prefix="vbench-kvm-probe-") as tmp:
        log = Path(tmp) / "console.log"
        proc = subprocess.Popen(
            [
                QEMU,
                "-accel",
                "kvm",
                "-cpu",
                "host",
                "-m",
                "256",
                "-nodefaults",
                "-no-user-config",
                "-no-reboot",
                *headless_boot_argv(log, kernel),
                "-append",
                "console=ttyS0 panic=-1 root=/dev/vbench-none",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        t0 = time.monotonic()
        try:
            while proc.poll() is None and time.monotonic() - t0 < timeout_s:
                text = sysops.read_text(log)
                if "Kernel panic" in text or "VFS:" in text:
                    return True, f"a guest kernel booted under KVM in {time.monotonic() - t0:.1f} s"
                time.sleep(0.1)
            text = sysops.read_text(log)
            if "Kernel panic" in text or "VFS:" in text:
                return True, f"a guest kernel booted under KVM in {time.monotonic() - t0:.1f} s"
            if proc.poll() is None:
                return (
                    False,
                    f"a guest kernel printed {len(text.splitlines())} lines under KVM in {timeout_s:.0f} s and never reached its root mount",
                )
            return (
                False,
                f"QEMU with KVM exited ({proc.returncode}): {(proc.stderr.read() if proc.stderr else '').strip()[-300:]}",
            )
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def kvm_verdict(image: GuestImage, cache: Path | None = None, log=print) -> tuple[bool, str]:
    """probe_kvm's verdict, cached per boot of the machine."""
    path = (cache or default_cache_dir()) / "kvm-probe.json"
    try:
        saved = json.loads(path.read_text())
        if saved.get("boot_id") == _boot_id():
            return bool(saved["kvm"]), str(saved["detail"])
    except (FileNotFoundError, json.JSONDecodeError, KeyError):
        pass
    log(f"probing whether /dev/kvm can boot a guest (up to {KVM_PROBE_TIMEOUT_S:.0f} s, once per machine boot) ...")
    ok, detail = probe_kvm(image.kernel)
    log(f"KVM {'usable' if ok else 'not usable'}: {detail}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"boot_id": _boot_id(), "kvm": ok, "detail": detail}) + "\n")
    return ok, detail


def choose_accelerator(wanted: str, kvm_ok: bool, detail: str) -> str:
    """The accelerator for `testbed.accelerator` = auto | kvm | tcg, given the probe. Pure."""
    if wanted == "tcg":
        return "tcg"
    if wanted == "kvm" and not kvm_ok:
        raise VbenchError(
            f"testbed.accelerator: kvm was asked for, but KVM cannot boot a guest here ({detail}); "
            "use accelerator: auto or tcg"
        )
    return "kvm" if kvm_ok else "tcg"


# -- the provisioner ------------------------------------------------------------------------
class QemuProvisioner:
    platform = "qemu"

    def __init__(self) -> None:
        self._accel: dict[str, str] = {}  # testbed name -> accelerator chosen in preflight
        self._procs: dict[tuple[str, str], subprocess.Popen] = {}  # (testbed, host) -> QEMU we started

    def preflight(self, specs: list[HostParams], ctx: TestbedContext) -> None:
        for tool in (QEMU, "qemu-img", "mke2fs", "taskset"):
            if shutil.which(tool) is None:
                raise VbenchError(f"'{tool}' is not installed (needed by qemu hosts); run the README's setup command")
        check_limits_fit(ctx.params, MachineFacts.local())
        img = require_image(f"qemu host {specs[0].name}")
        for f in (img.disk, img.kernel, img.initrd):
            if not f.exists():
                raise VbenchError(
                    f"the guest image {img.hash} lacks {f.name}; rebuild it with `vbench image build --force`"
                )
        self.accelerator(ctx, img)

    def accelerator(self, ctx: TestbedContext, img: GuestImage) -> str:
        if ctx.params.name not in self._accel:
            ok, detail = (False, "not probed") if ctx.params.accelerator == "tcg" else kvm_verdict(img, log=ctx.log)
            self._accel[ctx.params.name] = choose_accelerator(ctx.params.accelerator, ok, detail)
        return self._accel[ctx.params.name]

    def create(self, spec: HostParams, index: int, ctx: TestbedContext) -> Created:
        img = require_image(f"qemu host {spec.name}")
        accel = self.accelerator(ctx, img)
        hdir = ctx.paths.host_dir(spec.name)
        hdir.mkdir(parents=True, exist_ok=True)
        tap, _ = netcmd.veth_names(ctx.params.name, index)

        # Per-instance disk: a qcow2 overlay over the image's disk.
        disk = hdir / "disk.qcow2"
        sysops.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(img.disk), "-F", "qcow2", str(disk)])
        # Per-instance identity on a small ext4 seed disk.
        seed_dir = hdir / "seed"
        pub = write_identity(seed_dir / "files", spec, ctx)
        (seed_dir / "address").write_text(f"{spec.address}/{ctx.prefixlen}\n")
        seed = hdir / "seed.img"
        write_with_mode(seed, b"", 0o600)  # it holds the host's private key: never readable by others
        sysops.run(["mke2fs", "-q", "-t", "ext4", "-L", SEED_LABEL, "-d", str(seed_dir), str(seed), "8M"])

        ctx.record("links", tap)
        sysops.run(["ip", "tuntap", "add", "dev", tap, "mode", "tap"])
        sysops.run(["ip", "link", "set", tap, "master", ctx.bridge, "up"])

        rel = cgroup_rel(ctx, spec)
        ctx.record("cgroups", rel)
        cg = PIDS_CGROUP / rel
        cg.mkdir(parents=True, exist_ok=True)

        cpus, memory = vm_shape(spec, os.cpu_count() or 1)
        lim = spec.limits
        argv = qemu_argv(
            name=instance_name(ctx, spec),
            accel=accel,
            cpus=cpus,
            memory_mb=memory,
            kernel=img.kernel,
            initrd=img.initrd,
            append=KERNEL_APPEND,
            disk=disk,
            seed=seed,
            tap=tap,
            mac=mac_for(str(spec.address)),
            qmp=hdir / "qmp.sock",
            pidfile=hdir / "qemu.pid",
            console=hdir / "console.log",
            bps_read=lim.disk_read_bps if lim else None,
            bps_write=lim.disk_write_bps if lim else None,
            cpuset=lim.cpuset if lim else None,
        )
        (hdir / "qemu.argv").write_text(json.dumps(argv, indent=1))
        with open(hdir / "qemu.log", "ab") as out:
            proc = subprocess.Popen(
                in_cgroup_argv(cg / "cgroup.procs", argv),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
        ctx.record("pids", owned.process_record(proc.pid))  # pid and start time: a stale pid is never killed
        self._procs[(ctx.params.name, spec.name)] = proc

        def failure() -> str | None:
            if proc.poll() is None:
                return None
            return (
                f"QEMU of {spec.name} exited ({proc.returncode}): {sysops.read_text(hdir / 'qemu.log').strip()[-400:]}\n"
                f"console ends with:\n" + "\n".join(sysops.read_text(hdir / "console.log").splitlines()[-8:])
            )

        return Created(self.host(spec, ctx), pub, None, ready_timeout_s=READY_TIMEOUT_S, failure=failure)

    def host(self, spec: HostParams, ctx: TestbedContext) -> Host:
        return guest_host(spec, ctx, {"image_hash": image_for().hash, "vm": instance_name(ctx, spec)})

    def verify(self, spec: HostParams, host: Host, ctx: TestbedContext) -> dict[str, str]:
        """Read the VM's shape back from QEMU (QMP) and from the guest; fail if it differs."""
        hdir = ctx.paths.host_dir(spec.name)
        cpus_r, mem_r, block_r, kvm_r = qmp(
            hdir / "qmp.sock", ["query-cpus-fast", "query-memory-size-summary", "query-block", "query-kvm"]
        )
        got = parse_qmp_readback(cpus_r, mem_r, block_r, kvm_r)
        cpus, memory = vm_shape(spec, os.cpu_count() or 1)
        lim = spec.limits
        want = {
            "cpus": cpus,
            "memory_mb": memory,
            "bps_rd": lim.disk_read_bps if lim else None,
            "bps_wr": lim.disk_write_bps if lim else None,
            "accelerator": self._accel.get(ctx.params.name, got["accelerator"]),
        }
        with connect(host) as c:
            out = c.run(GUEST_SHAPE_SCRIPT, hide=True, in_stream=False).stdout
        guest_cpus, guest_mem, guest_model = parse_guest_shape(out)
        bad = readback_mismatches(want, got, guest_cpus, guest_mem)
        if lim and lim.cpuset:
            pid = int(sysops.read_text(hdir / "qemu.pid").strip() or 0)
            pinned = sorted(os.sched_getaffinity(pid)) if pid else []
            if pinned != list(lim.cpuset_cpus):
                bad.append(f"QEMU runs on CPUs {pinned}, wanted {list(lim.cpuset_cpus)}")
        if bad:
            raise VbenchError(f"qemu host {spec.name}: limits not applied as asked: " + "; ".join(bad))
        # The guest runs on this machine, whose CPU it names only under KVM: the machine's model is
        # the host's cpu_model (as a gVisor host's), the guest's its own fact.
        machine = this_cpu_model()
        return {
            "limits": limits_fact(spec.limits),
            "accelerator": str(got["accelerator"]),
            "vm_vcpus": str(got["cpus"]),
            "vm_memory_mb": str(got["memory_mb"]),
            **({"guest_cpu_model": guest_model} if guest_model else {}),
            **({"cpu_model": machine} if machine else {}),
        }

    def destroy(self, spec: HostParams, index: int, ctx: TestbedContext) -> None:
        rel = cgroup_rel(ctx, spec)
        # The process we started, first: it may not have moved itself into its cgroup yet.
        proc = self._procs.pop((ctx.params.name, spec.name), None)
        if proc is not None:
            if proc.poll() is None:
                sysops.kill_pids([proc.pid])
            try:
                proc.wait(timeout=10)  # reaped, so nothing pins the cgroup
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        kill_cgroup(rel)  # by name: QEMU and nothing else lives there
        pid_text = sysops.read_text(ctx.paths.host_dir(spec.name) / "qemu.pid").strip()
        if pid_text.isdigit() and sysops.alive(int(pid_text)) and _is_qemu(int(pid_text)):
            sysops.kill_pids([int(pid_text)])  # not in the cgroup (moving it failed half-way)
        left = remove_cgroups(rel, parent=testbed_cgroup(ctx.params.name))
        tap, _ = netcmd.veth_names(ctx.params.name, index)
        if ctx.owns("links", tap) and sysops.link_exists(tap):
            sysops.run(netcmd.delete_link(tap), check=False)
        if left:
            raise VbenchError(f"cgroups of {spec.name} could not be removed: {', '.join(left)}")


def _is_qemu(pid: int) -> bool:
    """Only a QEMU is killed by a pid read from its pid file (which may be stale)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(QEMU.encode())
    except OSError:
        return False

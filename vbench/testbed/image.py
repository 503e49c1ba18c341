"""The guest image: one Debian bookworm root filesystem for every container and VM host.

Built with debootstrap (minbase) from the machine's own apt mirror, then `apt-get install` in a
chroot; cached as a tarball under `<cache>/images/<recipe hash>/` and rebuilt only when the
recipe (suite, packages, files written into the image) changes. Derived from it, once:

- `rootfs/`      the unpacked tree, the read-only lower layer of every container's overlay;
- `disk.qcow2`   an ext4 disk of that tree, the backing file of every VM's qcow2 overlay;
- `vmlinuz`, `initrd.img`  Debian's kernel and an initramfs that loads virtio_pci/blk/net.

Containers run `tini` -> `sshd` (no init system); VMs boot systemd, and `vbench-seed.service`
copies the per-instance identity (hostname, /etc/hosts, host key, authorized key, address) from
a small second disk before sshd starts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from vbench.errors import VbenchError
from vbench.cache import default_cache_dir
from vbench.path_below import PathBelow
from vbench.testbed.sshd import sshd_config

Log = Callable[[str], None]

#: Bumped when the build procedure itself changes in a way the package list and files do not show.
RECIPE_VERSION = 2

#: What every host needs: Java for Hadoop, sshd, iproute2, curl (health probes), tar (jar push),
#: an init for containers (tini) and VMs (systemd), the kernel for VMs, and the micro-benchmarks.
PACKAGES: tuple[str, ...] = (
    "openjdk-17-jre-headless",
    "openssh-server",
    "iproute2",
    "procps",
    "curl",
    "ca-certificates",
    "tar",
    "gzip",
    "netbase",
    "kmod",
    "tini",
    "systemd-sysv",
    "linux-image-amd64",
    "initramfs-tools",
    "e2fsprogs",
    "util-linux",
    "fio",
    "iperf3",
    "sysbench",
    "bonnie++",
    "hdparm",
    "stress-ng",
    "pi",
)

#: Where the guest's own sshd reads what vbench writes per instance.
GUEST_HOST_KEY = "/etc/ssh/ssh_host_ed25519_key"
GUEST_AUTHORIZED_KEYS = "/root/.ssh/authorized_keys"
#: Work directory of Hadoop inside containers and VMs.
GUEST_WORK_DIR = "/var/lib/vbench"
#: Label of a VM's per-instance seed disk (second virtio disk, /dev/vdb).
SEED_LABEL = "VBSEED"
#: Virtual size of the VM root filesystem (sparse; the qcow2 holds only what is written).
DISK_SIZE = "8G"

_SEED_SCRIPT = f"""#!/bin/sh
# vbench: apply this VM's identity from its seed disk (label {SEED_LABEL}, /dev/vdb) before sshd starts.
set -eu
i=0
while [ ! -b /dev/vdb ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
mkdir -p /run/vbench-seed
mount -o ro /dev/vdb /run/vbench-seed
cp -a /run/vbench-seed/files/. /
hostname "$(cat /etc/hostname)"
ip link set lo up
ip link set eth0 up
ip addr add "$(cat /run/vbench-seed/address)" dev eth0
umount /run/vbench-seed
"""

_CONTAINER_INIT = """#!/bin/sh
# vbench: what a container host runs under tini: sshd in the foreground, logging to a file the
# controller reads through the overlay's upper directory ("Server listening" = ready).
mkdir -p /run/sshd /var/log
exec /usr/sbin/sshd -D -e -E /var/log/vbench-sshd.log
"""

_SEED_UNIT = """[Unit]
Description=vbench per-instance identity (hostname, hosts, keys, address)
DefaultDependencies=no
After=local-fs.target
Before=ssh.service network-pre.target sysinit.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/vbench-seed

[Install]
WantedBy=sysinit.target
"""

#: Files written into the image before the packages are installed (paths inside the guest).
FILES: dict[str, str] = {
    # Loaded by the initramfs, so the VM can mount its virtio root and has eth0 without udev.
    "/etc/initramfs-tools/modules": "virtio_pci\nvirtio_blk\nvirtio_net\next4\n",
    # Only those: a small initramfs is quicker to unpack and run under TCG.
    "/etc/initramfs-tools/conf.d/vbench.conf": "MODULES=list\nCOMPRESS=gzip\n",
    "/etc/ssh/sshd_config": sshd_config("0.0.0.0", GUEST_HOST_KEY, GUEST_AUTHORIZED_KEYS, "/run/sshd.pid"),
    # The VM's root is mounted rw by the kernel (root=/dev/vda rw); no unit waits for its device.
    "/etc/fstab": "# root: root=/dev/vda rw on the kernel command line\n",
    # PID 1's child in containers (under tini, which reaps orphaned daemons).
    "/usr/local/sbin/vbench-init": _CONTAINER_INIT,
    "/usr/local/sbin/vbench-seed": _SEED_SCRIPT,
    "/etc/systemd/system/vbench-seed.service": _SEED_UNIT,
    "/etc/vbench-image": "vbench guest image\n",
}

#: Units masked in the image: nothing a benchmark host should run behind our back.
#: In VMs, udev is not needed either: the initramfs loads the virtio drivers, the seed unit
#: configures eth0, and no unit waits for a device. Under TCG each unit costs seconds of boot.
MASKED_UNITS = (
    "apt-daily.timer",
    "apt-daily-upgrade.timer",
    "dpkg-db-backup.timer",
    "e2scrub_all.timer",
    "e2scrub_reap.service",
    "fstrim.timer",
    "systemd-timesyncd.service",
    "getty-static.service",
    "getty@.service",
    "serial-getty@.service",
    "systemd-udevd.service",
    "systemd-udevd-control.socket",
    "systemd-udevd-kernel.socket",
    "systemd-udev-trigger.service",
    "systemd-udev-settle.service",
    "systemd-hwdb-update.service",
)


@dataclass(frozen=True)
class ImageRecipe:
    suite: str = "bookworm"
    variant: str = "minbase"
    packages: tuple[str, ...] = PACKAGES
    files: dict[str, str] = field(default_factory=lambda: dict(FILES))
    masked_units: tuple[str, ...] = MASKED_UNITS

    def hash(self) -> str:
        """Covers everything that makes the image what it is (not the mirror it came from)."""
        doc = {
            "version": RECIPE_VERSION,
            "suite": self.suite,
            "variant": self.variant,
            "packages": sorted(self.packages),
            "files": {p: hashlib.sha256(t.encode()).hexdigest() for p, t in sorted(self.files.items())},
            "masked": sorted(self.masked_units),
        }
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


DEFAULT_RECIPE = ImageRecipe()


@dataclass(frozen=True)
class GuestImage:
    """A built (or to-be-built) image in the cache, addressed by its recipe hash."""

    hash: str
    home: Path

    tarball = PathBelow[Path]("home", "rootfs.tar")
    rootfs = PathBelow[Path]("home", "rootfs")
    disk = PathBelow[Path]("home", "disk.qcow2")
    kernel = PathBelow[Path]("home", "vmlinuz")
    initrd = PathBelow[Path]("home", "initrd.img")
    info_file = PathBelow[Path]("home", "image.json")
    manifest = PathBelow[Path]("home", "packages.txt")

    def exists(self) -> bool:
        return self.info_file.exists()

    def info(self) -> dict:
        try:
            return json.loads(self.info_file.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return {}


def image_for(recipe: ImageRecipe = DEFAULT_RECIPE, cache: Path | None = None) -> GuestImage:
    h = recipe.hash()
    return GuestImage(hash=h, home=(cache or default_cache_dir()) / "images" / h)


def image_java_home(guest_java_home: str, recipe: ImageRecipe = DEFAULT_RECIPE) -> Path:
    """The guest image's JDK (at `guest_java_home` inside the guest) as this machine sees it: in
    the image's unpacked tree, for native hosts that run the build the guests run (hadoop.jdk:
    image). Its `conf/` links point at /etc, so it reads the machine's JDK configuration (on the
    machines lent here the two differ in TLS and JNDI security properties alone). Refused, naming
    the param, when the image is not built or holds no java there."""
    img = require_image("hadoop.jdk: image (native hosts running the guest image's JDK)", recipe)
    home = img.rootfs / guest_java_home.strip("/")
    if not (home / "bin" / "java").is_file():
        raise VbenchError(
            f"hadoop.jdk: image: the guest image {img.hash} has no java at {guest_java_home}/bin/java "
            f"(looked in {home}); set hadoop.java_home to the image's JDK directory"
        )
    return home


def require_image(what: str, recipe: ImageRecipe = DEFAULT_RECIPE) -> GuestImage:
    """The built image, or a clear refusal naming the command that builds it."""
    img = image_for(recipe)
    if not img.exists():
        raise VbenchError(
            f"{what} needs the guest image (recipe {img.hash}), which is not built yet at {img.home}; "
            "build it once with `vbench image build` (a few minutes; the README's setup command does it)"
        )
    return img


# -- the apt mirror --------------------------------------------------------------------
def mirror_from_sources(texts: dict[str, str], suite: str = "bookworm") -> str | None:
    """The first Debian mirror URI serving `suite` (main) in apt source files. Pure.

    `texts` maps file names to contents: one-line `.list` files and deb822 `.sources` files.
    """
    for name, text in texts.items():
        if name.endswith(".sources"):
            for stanza in re.split(r"\n\s*\n", text):
                fields: dict[str, str] = {}
                for line in stanza.splitlines():
                    if line.startswith("#") or ":" not in line or line[:1].isspace():
                        continue
                    k, v = line.split(":", 1)
                    fields[k.strip().lower()] = v.strip()
                if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes").lower() == "no":
                    continue
                if suite in fields.get("suites", "").split() and "main" in fields.get("components", "").split():
                    uris = fields.get("uris", "").split()
                    if uris:
                        return uris[0]
        else:
            for line in text.splitlines():
                words = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
                if len(words) >= 4 and words[0] == "deb" and words[2] == suite and "main" in words[3:]:
                    return words[1]
    return None


#: The host's apt settings a build in the chroot must share to reach the same mirror: a
#: proxy, and the date checks a snapshot mirror needs switched off.
CARRIED_APT_SETTINGS = (
    "Acquire::http::Proxy",
    "Acquire::https::Proxy",
    "Acquire::Check-Valid-Until",
    "Acquire::Check-Date",
)


def apt_settings_from_dump(dump: str) -> dict[str, str]:
    """The CARRIED_APT_SETTINGS of `apt-config dump` output (`Name "value";` lines). Pure."""
    found: dict[str, str] = {}
    for line in dump.splitlines():
        m = re.fullmatch(r'\s*([\w:.-]+)\s+"(.*)";\s*', line)
        if m and m.group(1).lower() in {k.lower() for k in CARRIED_APT_SETTINGS} and m.group(2):
            found[next(k for k in CARRIED_APT_SETTINGS if k.lower() == m.group(1).lower())] = m.group(2)
    return found


def apt_conf_text(settings: dict[str, str]) -> str:
    """An apt.conf.d snippet setting `settings`, values quoted as apt quotes them. Pure."""
    return "".join(f'{k} "{v.replace(chr(34), "")}";\n' for k, v in sorted(settings.items()))


def proxy_environment(settings: dict[str, str]) -> dict[str, str]:
    """http_proxy/https_proxy for debootstrap (which fetches with wget, not apt). Pure."""
    env = {}
    for scheme in ("http", "https"):
        value = settings.get(f"Acquire::{scheme}::Proxy")
        if value and value.upper() != "DIRECT":
            env[f"{scheme}_proxy"] = value
    return env


def host_apt_settings() -> dict[str, str]:
    try:
        dump = subprocess.run(["apt-config", "dump"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    return apt_settings_from_dump(dump)


def local_mirror(suite: str = "bookworm") -> str:
    texts: dict[str, str] = {}
    for p in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]:
        if p.is_file() and p.suffix in (".list", ".sources"):
            texts[str(p)] = p.read_text(errors="replace")
    uri = mirror_from_sources(texts, suite)
    if uri is None:
        raise VbenchError(f"no apt source for Debian {suite} main found in /etc/apt/sources.list{{,.d/*}}")
    return uri


# -- building --------------------------------------------------------------------------
#: The host's apt settings inside the chroot while it installs; not part of the image.
HOST_APT_CONF = "00vbench-build-host"


def chroot_install_script(recipe: ImageRecipe) -> str:
    """What runs (under a private mount namespace) to install the packages into root $R. Pure."""
    pkgs = " ".join(recipe.packages)
    masked = " ".join(recipe.masked_units)
    return f"""set -euo pipefail
R="$1"
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount --bind /dev "$R/dev"
printf '#!/bin/sh\\nexit 101\\n' > "$R/usr/sbin/policy-rc.d"; chmod 755 "$R/usr/sbin/policy-rc.d"
chroot "$R" apt-get -q update
chroot "$R" env DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends {pkgs}
chroot "$R" apt-get clean
rm -rf "$R"/var/lib/apt/lists/* "$R/usr/sbin/policy-rc.d" "$R"/etc/ssh/ssh_host_* "$R/etc/apt/apt.conf.d/{HOST_APT_CONF}"
chmod 755 "$R/usr/local/sbin/vbench-seed" "$R/usr/local/sbin/vbench-init"
chroot "$R" systemctl enable vbench-seed.service
chroot "$R" systemctl set-default multi-user.target
for u in {masked}; do chroot "$R" systemctl mask "$u"; done
mkdir -p "$R/root/.ssh" "$R{GUEST_WORK_DIR}" "$R/run/sshd"
chmod 700 "$R/root/.ssh"
chroot "$R" dpkg-query -W -f '${{Package}}\\t${{Version}}\\n' > "$R/../packages.txt"
umount "$R/dev" "$R/sys" "$R/proc"
"""


def _run(cmd: list[str], log: Log, what: str, env: dict[str, str] | None = None) -> None:
    """Run a long build step, relaying its output to `log` a line at a time."""
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **env} if env else None,
    )
    tail: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        line = line.rstrip()
        tail = (tail + [line])[-20:]
        if line and (
            line.startswith(("I: Retrieving", "I: Extracting", "I: Installing", "I: Configuring", "I: Base"))
            or line.startswith(("Setting up ", "Unpacking ", "update-initramfs", "Get:", "Fetched"))
        ):
            log(f"  {line[:150]}")
    if proc.wait() != 0:
        raise VbenchError(f"image build: {what} failed (exit {proc.returncode}):\n" + "\n".join(tail))


def build_image(
    recipe: ImageRecipe = DEFAULT_RECIPE,
    cache: Path | None = None,
    force: bool = False,
    log: Log = print,
    mirror: str | None = None,
) -> GuestImage:
    """Build the image unless the cache already holds it; returns it. Root only; minutes.

    The Debian mirror, its proxy and date checks are the host's own apt configuration's, so a
    machine behind a local mirror or proxy builds it too; `mirror` overrides the mirror."""
    img = image_for(recipe, cache)
    if img.exists() and not force:
        log(f"guest image {img.hash} is built: {img.home}")
        return img
    if os.geteuid() != 0:
        raise VbenchError("building the guest image needs root (debootstrap, chroot)")
    for tool in ("debootstrap", "unshare", "chroot", "mke2fs", "qemu-img", "tar"):
        if shutil.which(tool) is None:
            raise VbenchError(f"'{tool}' is not installed; run the README's setup command")
    mirror = mirror or local_mirror(recipe.suite)
    apt_settings = host_apt_settings()
    t0 = time.monotonic()
    log(f"building guest image {img.hash} (Debian {recipe.suite} {recipe.variant} from {mirror}) into {img.home} ...")
    if img.home.exists():
        shutil.rmtree(img.home)
    img.home.mkdir(parents=True)
    root = img.home / "build"
    try:
        log("[1/5] debootstrap ...")
        _run(
            ["debootstrap", f"--variant={recipe.variant}", recipe.suite, str(root), mirror],
            log,
            "debootstrap",
            env=proxy_environment(apt_settings),
        )
        host_conf = root / "etc/apt/apt.conf.d" / HOST_APT_CONF
        host_conf.write_text(apt_conf_text(apt_settings))  # removed again by the install script
        for path, text in recipe.files.items():
            dest = root / path.lstrip("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text)
        log(f"[2/5] installing {len(recipe.packages)} packages in the chroot ...")
        _run(
            [
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "bash",
                "-c",
                chroot_install_script(recipe),
                "build",
                str(root),
            ],
            log,
            "package installation",
        )
        log("[3/5] kernel and initramfs ...")
        kernels = sorted((root / "boot").glob("vmlinuz-*"))
        initrds = sorted((root / "boot").glob("initrd.img-*"))
        if not kernels or not initrds:
            raise VbenchError(f"image build: no kernel/initramfs in {root / 'boot'}")
        shutil.copy2(kernels[-1], img.kernel)
        shutil.copy2(initrds[-1], img.initrd)
        log("[4/5] tarball ...")
        _run(["tar", "--numeric-owner", "--xattrs", "-C", str(root), "-cf", str(img.tarball), "."], log, "tar")
        log(f"[5/5] VM disk ({DISK_SIZE} ext4, qcow2) ...")
        raw = img.home / "disk.raw"
        _run(["mke2fs", "-q", "-t", "ext4", "-L", "vbroot", "-d", str(root), str(raw), DISK_SIZE], log, "mke2fs")
        _run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(img.disk)], log, "qemu-img convert")
        raw.unlink()
        root.rename(img.rootfs)
    except BaseException:
        shutil.rmtree(img.home, ignore_errors=True)
        raise
    info = {
        "hash": img.hash,
        "suite": recipe.suite,
        "variant": recipe.variant,
        "mirror": mirror,
        "packages": list(recipe.packages),
        "kernel": kernels[-1].name,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "build_seconds": round(time.monotonic() - t0, 1),
        "tarball_bytes": img.tarball.stat().st_size,
    }
    img.info_file.write_text(json.dumps(info, indent=1) + "\n")
    log(f"guest image {img.hash} built in {info['build_seconds']:.0f} s: {img.home}")
    return img

"""What every container and VM host gets on top of the guest image: its identity.

Hostname, the testbed's /etc/hosts, a host key generated on the controller (so it can be
pinned before the first connection) and the testbed's client key as root's authorized key.
Containers get these files in their overlay's upper directory; VMs on a small seed disk.
"""

from __future__ import annotations

import os
from pathlib import Path

from vbench.host import Host
from vbench.params import HostParams
from vbench.testbed import netcmd, sysops
from vbench.testbed.image import GUEST_AUTHORIZED_KEYS, GUEST_HOST_KEY, GUEST_WORK_DIR
from vbench.testbed.provisioner import TestbedContext

#: Where the container init (image: /usr/local/sbin/vbench-init) has sshd log; read through the upper dir.
CONTAINER_SSHD_LOG = "/var/log/vbench-sshd.log"


def instance_name(ctx: TestbedContext, spec: HostParams) -> str:
    """The container/VM name: unique per testbed, found again from the params alone."""
    return netcmd.netns_name(ctx.params.name, spec.name)


def cgroup_rel(ctx: TestbedContext, spec: HostParams) -> str:
    """The host's cgroup, relative to each hierarchy's root: vbench-<testbed>/<host>."""
    return f"{testbed_cgroup(ctx.params.name)}/{spec.name}"


def testbed_cgroup(testbed: str) -> str:
    return f"vbench-{testbed}"


def write_identity(root: Path, spec: HostParams, ctx: TestbedContext) -> str:
    """Write the host's identity files under `root` (a guest's '/'); returns the host key line."""
    hdir = ctx.paths.host_dir(spec.name)
    hdir.mkdir(parents=True, exist_ok=True)
    key = hdir / "ssh_host_ed25519_key"
    if not key.exists():
        sysops.ssh_keygen(key, spec.name)
    pub = key.with_suffix(".pub").read_text().strip()

    def put(path: str, text: str | None = None, src: Path | None = None, mode: int = 0o644) -> None:
        dest = root / path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        write_with_mode(dest, src.read_bytes() if src is not None else (text or "").encode(), mode)

    put("/etc/hostname", spec.name + "\n")
    put("/etc/hosts", src=ctx.hosts_file(spec))
    put(GUEST_HOST_KEY, src=key, mode=0o600)
    put(GUEST_HOST_KEY + ".pub", pub + "\n")
    put(GUEST_AUTHORIZED_KEYS, src=ctx.paths.authorized_keys, mode=0o600)
    (root / GUEST_AUTHORIZED_KEYS.lstrip("/")).parent.chmod(0o700)
    (root / GUEST_WORK_DIR.lstrip("/")).mkdir(parents=True, exist_ok=True)
    return pub


def write_with_mode(dest: Path, data: bytes, mode: int) -> None:
    """Write `dest` anew with `mode` from its first moment: a private key copied then chmod'ed
    is world-readable in between. An old file (or a symlink planted in the guest's tree) is
    removed, not written through; the mode is set on the descriptor, so the umask cannot widen
    or narrow it."""
    dest.unlink(missing_ok=True)
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def guest_host(spec: HostParams, ctx: TestbedContext, facts: dict[str, str]) -> Host:
    """The Host record of a container or VM: its own filesystem, Hadoop under /var/lib/vbench."""
    return Host(
        name=spec.name,
        role=spec.role,
        platform=str(spec.platform),
        address=str(spec.address),
        work_dir=GUEST_WORK_DIR,
        ssh=ctx.endpoint(spec),
        shares_controller_fs=False,
        facts=facts,
    )

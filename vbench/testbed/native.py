"""Native hosts: a network namespace with its own hostname, /etc/hosts and sshd, sharing the
machine's kernel and filesystem (the bare-metal baseline of every study)."""

from __future__ import annotations

import pwd
import shutil
import subprocess
from pathlib import Path

from vbench.errors import VbenchError
from vbench.host import Host
from vbench.params import HostParams
from vbench.testbed import freezer, netcmd, owned, sysops
from vbench.testbed.physhosts import attach_guest
from vbench.testbed.provisioner import Created, TestbedContext
from vbench.testbed.slowdown import STATE_CGROUPS, Slowdown, in_cgroups_argv
from vbench.testbed.sshd import sshd_config


def attach_netns(ctx: TestbedContext, ns: str, index: int, address: str) -> None:
    """A namespace with one veth on the testbed bridge holding `address` (also used for the controller)."""
    outer, inner = netcmd.veth_names(ctx.params.name, index)
    for cmd in netcmd.attach_namespace(ctx.bridge, ns, outer, inner, address, ctx.prefixlen):
        sysops.run(cmd)
        if cmd[:3] == ["ip", "netns", "add"]:
            ctx.record("netns", ns)
        elif cmd[:3] == ["ip", "link", "add"]:
            ctx.record("links", outer)


def attach_host_netns(ctx: TestbedContext, spec: HostParams, ns: str, index: int) -> None:
    """A host's namespace: on the testbed bridge directly, or on its emulated physical host."""
    if ctx.layout is None:
        attach_netns(ctx, ns, index, str(spec.address))
    else:
        attach_guest(ctx, ctx.layout, spec, ns, index)


#: An empty file in the host's state directory, bind-mounted over the login user's shell startup files.
EMPTY_STARTUP_FILE = "empty-shell-startup"


def login_home(user: str) -> str:
    """The home directory of `user` as sshd finds it (the password database, not $HOME)."""
    try:
        return pwd.getpwnam(user).pw_dir
    except KeyError:
        raise VbenchError(f"testbed.ssh_user {user!r} is not a user of this machine") from None


def remove_netns(ns: str) -> None:
    """Kill every process inside `ns` (all were started by the testbed) and delete it. Only for
    a namespace the testbed's state says it created (ctx.owns("netns", ns))."""
    if ns in sysops.existing_netns():
        sysops.kill_pids(sysops.netns_pids(ns))
        sysops.run(netcmd.delete_netns(ns), check=False)


class NativeProvisioner:
    platform = "native"

    def preflight(self, specs: list[HostParams], ctx: TestbedContext) -> None:
        if not Path("/usr/sbin/sshd").exists():
            raise VbenchError("/usr/sbin/sshd is not installed (Debian package openssh-server)")
        if shutil.which("unshare") is None:
            raise VbenchError("'unshare' is not installed (Debian package util-linux)")

    def create(self, spec: HostParams, index: int, ctx: TestbedContext) -> Created:
        ns = netcmd.netns_name(ctx.params.name, spec.name)
        attach_host_netns(ctx, spec, ns, index)
        hdir = ctx.paths.host_dir(spec.name)
        (hdir / "work").mkdir(parents=True, exist_ok=True)
        key = hdir / "ssh_host_ed25519_key"
        pub = sysops.ssh_keygen(key, spec.name)
        cfg = hdir / "sshd_config"
        cfg.write_text(
            sshd_config(ctx.own_address(spec), str(key), str(ctx.paths.authorized_keys), str(hdir / "sshd.pid"))
        )
        log_path = hdir / "sshd.log"
        # A native host shares the controller's filesystem, so bash, started by sshd for every
        # SSH command, would source the login user's own ~/.bashrc (Debian builds bash to do so
        # under sshd): root's ran `pyenv init`, 0.17-0.29 s per command that container hosts,
        # with their own root, do not pay (~0.6 % of a 40 s TeraSort timed around its command),
        # and once hung every command after a reboot left a stale lock in ~/.pyenv. An empty
        # file is bind-mounted over each startup file that exists, in the host's own mount
        # namespace only: the user's files are not touched.
        empty = hdir / EMPTY_STARTUP_FILE
        empty.write_bytes(b"")
        empty.chmod(0o644)  # readable by a non-root ssh_user through the bind mount
        slowdown = Slowdown(ctx)
        argv = netcmd.in_identity(
            ns,
            spec.name,
            str(ctx.hosts_file(spec)),
            slowdown.init_argv(["/usr/sbin/sshd", "-D", "-e", "-f", str(cfg)]),
            mask=netcmd.shell_startup_files(login_home(ctx.params.ssh_user)),
            mask_with=str(empty),
        )
        # A planted slowdown's cgroups (and the testbed's freezer, when it has one) hold the sshd
        # from its first instruction, so every daemon started over SSH is inside them too.
        # One wrapper moves it into all of them (not one wrapper per mechanism).
        procs = slowdown.host_procs(spec)
        if ctx.params.freezer:
            procs += freezer.native_procs(ctx.params.name, spec.name, lambda rel: ctx.record(STATE_CGROUPS, rel))
        argv = in_cgroups_argv(procs, argv) if procs else argv
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        ctx.record("pids", owned.process_record(proc.pid))  # pid and start time: a stale pid is never killed
        # One process: the cgroup wrapper's sh (if any), ip, unshare and sh each exec the next, then
        # sshd (or, when system calls are stopped, strace, whose child sshd is).
        (hdir / "init.pid").write_text(f"{proc.pid}\n")
        return Created(self.host(spec, ctx), pub, log_path)

    def init_pid(self, spec: HostParams, ctx: TestbedContext) -> int:
        """The host's sshd, from which every process of the host descends."""
        text = sysops.read_text(ctx.paths.host_dir(spec.name) / "init.pid").strip()
        if not text.isdigit() or not sysops.alive(int(text)):
            raise VbenchError(f"native host {spec.name} is not running (pid file: {text or 'missing'})")
        return int(text)

    def host(self, spec: HostParams, ctx: TestbedContext) -> Host:
        return Host(
            name=spec.name,
            role=spec.role,
            platform=spec.platform,
            address=str(spec.address),
            work_dir=str(ctx.paths.host_dir(spec.name) / "work"),
            ssh=ctx.endpoint(spec),
            shares_controller_fs=True,
            facts={
                "netns": netcmd.netns_name(ctx.params.name, spec.name),
                # Started with the login user's shell startup files masked (a host started
                # before vbench masked them has no such file).
                "shell_startup": "masked"
                if (ctx.paths.host_dir(spec.name) / EMPTY_STARTUP_FILE).exists()
                else "controller user's",
            },
        )

    def destroy(self, spec: HostParams, index: int, ctx: TestbedContext) -> None:
        ns = netcmd.netns_name(ctx.params.name, spec.name)
        if ctx.owns("netns", ns):
            remove_netns(ns)

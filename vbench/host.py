"""A host of a cluster, however it was provisioned, and the one way to drive it: SSH.

The cluster code only sees `Host` records and fabric `Connection`s: a network-namespace
host of the local testbed, a container, a VM or a remote machine look the same.

Every remote command vbench runs goes through `connect()`'s Connection and so through one runner,
`KillableRemote`: an interrupt (Ctrl-C, or SIGTERM/SIGHUP as `vbench.lifecycle.Terminated`)
while a command runs kills the command on its host and reaches the caller at once, and a
command's `timeout` kills it there too (fabric only closed the channel, and waited for a command
without a pty to end however long it ran: issue #52).
"""

from __future__ import annotations

import ctypes
import os
import shlex
import socket
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import fabric
import fabric.runners
import paramiko

from vbench.lifecycle import shielded


@dataclass(frozen=True)
class SshEndpoint:
    """How to reach a host's sshd. Host keys are pinned: unknown keys are rejected."""

    address: str
    user: str
    key_file: Path
    known_hosts: Path
    port: int = 22
    #: An OpenSSH-style ProxyCommand, e.g. for a jump host.
    proxy_command: str | None = None
    #: A network namespace of this machine (under /run/netns) to open the TCP connection from:
    #: the local testbed's controller namespace, the only place its hosts' addresses route.
    netns: str | None = None


@dataclass(frozen=True)
class Host:
    name: str
    role: str  # "master" or "worker"
    platform: str
    address: str
    #: Where vbench keeps this host's Hadoop configuration, data and logs.
    work_dir: str
    ssh: SshEndpoint
    #: True when the host sees the controller's filesystem (testbed namespace hosts), so
    #: artifacts need no copying; False for containers with their own root, VMs, remote hosts.
    shares_controller_fs: bool = False
    facts: Mapping[str, str] = field(default_factory=dict)
    #: Where the host sits: the (emulated or real) physical machine it runs on, and its rack.
    #: Hadoop's rack / node-group topology is generated from these.
    physical_host: str = ""
    rack: str = ""


#: Where a remote command's shell records its pid (vbench-run-<random>.pid, made by the command
#: itself, removed when it ends): the one process group an interrupt kills on that host.
REMOTE_PID_DIR = "/tmp"
#: How long stopping a remote command may take: a second SSH session on the same connection, the
#: group's grace after SIGTERM (2 s) and its SIGKILL.
KILL_TIMEOUT_S = 10.0


def recorded_command(command: str, pid_file: str) -> str:
    """`command` as its remote shell runs it after writing its pid to `pid_file` (a new file,
    never one that exists: noclobber), which the shell removes when it exits. OpenSSH starts the
    shell of every session as a session leader, so that pid is also the command's process group:
    whatever it started, unless that called setsid itself (a daemon).

    The command runs in a subshell, `( ... )`, never in the recording shell itself: a shell has
    one EXIT trap, and a command that sets its own (rpc's and fileopen's `trap 'rm -f <their
    file>' EXIT`) replaced the one removing `pid_file`, as a command that `exec`s replaced the
    shell: rpc's calibration left one file in /tmp per host it ran on. In the subshell either
    acts on the subshell alone; `$$` and the process group stay the recording shell's, the
    shell's exit status is the command's, and a simple command is exec'd by the subshell, not
    forked once more. Pure."""
    f = shlex.quote(pid_file)
    remove = shlex.quote(f"rm -f {f}")
    return f"trap {remove} EXIT; {{ set -C; echo $$ > {f}; }} 2>/dev/null; set +C; (\n{command}\n)"


def kill_line(pid_file: str, grace_s: float = 2.0) -> str:
    """A shell line that stops the command whose shell wrote `pid_file` (recorded_command):
    SIGTERM to its process group (to the pid and its children if it leads none), SIGKILL after
    `grace_s` if any is left; nothing when the file is gone (the command ended) or holds no pid
    a shell could have (not a number, 0 or 1: `kill -1` would signal every process), or when
    that process is not the command's shell (its command line, which names `pid_file`, says so:
    a pid reused, or a file someone else wrote). `kill -SIG -PGID`: the one form dash, bash and
    busybox sh all take. Pure."""
    f = shlex.quote(pid_file)
    tries = max(1, int(grace_s / 0.1))
    return (
        f"p=$(cat {f} 2>/dev/null); rm -f {f}; "
        'case "$p" in ""|*[!0-9]*|0*|1) exit 0;; esac; '
        f'grep -qF -- {f} "/proc/$p/cmdline" 2>/dev/null || exit 0; '
        'kill -TERM "-$p" 2>/dev/null || { pkill -TERM -P "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; }; '
        f'i=0; while kill -0 "-$p" 2>/dev/null && [ "$i" -lt {tries} ]; do sleep 0.1; i=$((i + 1)); done; '
        'kill -KILL "-$p" 2>/dev/null; exit 0'
    )


class KillableRemote(fabric.runners.Remote):
    """fabric's runner of a remote command, whose command can be stopped on its host.

    invoke hands a KeyboardInterrupt (so also `Terminated`) that arrives while it waits for the
    command to `send_interrupt`; fabric's sends Ctrl-C to a pty and, without one (every vbench
    command), re-raises, after which invoke waited for the remote command's output to end: a
    TeraGen went on for minutes after Ctrl-C (issue #52). Here the command's shell records its
    pid in a file this runner names (`recorded_command`); an interrupt, wherever it reaches the
    runner, kills that process group through a second short session on the same connection
    (`kill_line`, acting on that pid alone), closes the channel and is raised again at once. A
    timeout (invoke's `kill`) stops the command the same way. A second interrupt while that kill
    runs (at most KILL_TIMEOUT_S) is deferred (vbench.lifecycle.shielded)."""

    pid_dir = REMOTE_PID_DIR
    #: The file the running command's shell records its pid in (None before it starts).
    pid_file: str | None = None
    _stopped = False
    _timer_fired = False

    def send_start_message(self, command):
        self.pid_file = f"{self.pid_dir}/vbench-run-{uuid.uuid4().hex}.pid"
        super().send_start_message(recorded_command(command, self.pid_file))

    def run(self, command, **kwargs):
        try:
            return super().run(command, **kwargs)
        except KeyboardInterrupt:  # one that came elsewhere than in the wait (starting, collecting output)
            self.stop_remote()
            raise

    def send_interrupt(self, interrupt):
        self.stop_remote()
        raise interrupt

    def kill(self):  # invoke's timer, at the command's timeout
        self._timer_fired = True
        self.stop_remote()

    @property
    def timed_out(self) -> bool:
        # invoke asks whether its timer thread has ended; the killed command can end before it.
        return self._timer_fired or super().timed_out

    def stop_remote(self) -> None:
        """Kill the command on its host (once), then close the channel, so that the threads
        reading its output end."""
        if self._stopped:
            return
        self._stopped = True
        try:
            if self.pid_file is not None:
                with shielded():
                    kill_remote(self.context, self.pid_file)
        finally:
            channel = getattr(self, "channel", None)
            if channel is not None:
                channel.close()


def kill_remote(conn: fabric.Connection, pid_file: str, timeout_s: float = KILL_TIMEOUT_S) -> bool:
    """Run `kill_line(pid_file)` in a new session on `conn`'s open connection; True when it ended
    within `timeout_s`. Never raises: a host that cannot be reached any more has nothing to kill
    that vbench could reach."""
    done = threading.Event()

    def one() -> None:
        chan = None
        try:
            transport = conn.transport
            if transport is None or not transport.is_active():
                return
            chan = transport.open_session(timeout=timeout_s)
            chan.exec_command(kill_line(pid_file))
            if chan.status_event.wait(timeout_s):
                done.set()
        except Exception:  # the connection is gone: so is the way to the command
            pass
        finally:
            if chan is not None:
                chan.close()

    worker = threading.Thread(target=one, name="vbench-kill-remote", daemon=True)
    worker.start()
    worker.join(timeout_s)
    return done.is_set()


def isolated_config() -> fabric.Config:
    """A fabric Config that reads no file: neither /etc/ssh/ssh_config nor ~/.ssh/config (a
    `ProxyJump` or `IdentityFile` there would add an unverified hop, or offer it keys), nor
    fabric's own /etc/fabric.yml and ~/.fabric.yml. Everything a connection needs is in its
    endpoint."""
    # An explicit (empty) SSHConfig stops fabric loading ssh_config files; lazy stops the
    # config files; load_ssh_configs off keeps a later load_ssh_config() (clone) from reading them.
    # Every command through KillableRemote: an interrupt or a timeout stops it on its host.
    return fabric.Config(
        ssh_config=paramiko.SSHConfig(),
        lazy=True,
        overrides={"load_ssh_configs": False, "runners": {"remote": KillableRemote}},
    )


_CLONE_NEWNET = 0x40000000


def netns_socket(netns: str, address: str, port: int, timeout: float | None) -> socket.socket:
    """A TCP connection to address:port opened from inside network namespace `netns`.

    A socket keeps the namespace it was made in, so only a short-lived thread enters the
    namespace (setns changes the calling thread's alone). This replaces a ProxyCommand
    `ip netns exec <ns> nc %h %p`, through which paramiko copied every byte in Python: pushing
    Hadoop's 208 MB of jars into three containers kept the controller at ~90 % of a core."""
    out: dict[str, object] = {}

    def enter_and_connect() -> None:
        try:
            fd = os.open(f"/run/netns/{netns}", os.O_RDONLY | os.O_CLOEXEC)
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                if libc.setns(fd, _CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"entering network namespace {netns}: {os.strerror(err)}")
            finally:
                os.close(fd)
            out["sock"] = socket.create_connection((address, port), timeout=timeout)
        except BaseException as exc:  # handed to the caller's thread
            out["error"] = exc

    worker = threading.Thread(target=enter_and_connect, name=f"netns-{netns}", daemon=True)
    worker.start()
    worker.join()
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["sock"]  # type: ignore[return-value]


class _Connection(fabric.Connection):
    """A fabric Connection whose 'gateway' may be a network namespace of this machine."""

    #: Declared here so that fabric keeps it as an attribute, not a config key.
    netns: str | None = None

    def open_gateway(self):
        if self.netns is not None:
            return netns_socket(self.netns, self.host, self.port, self.connect_timeout)
        return super().open_gateway()


def connect(host: Host, connect_timeout: float = 10.0) -> fabric.Connection:
    """A fabric Connection that trusts only the host keys in the endpoint's known_hosts, and
    takes nothing from the user's or the system's ssh_config."""
    ep = host.ssh
    conn = _Connection(
        config=isolated_config(),
        host=ep.address,
        user=ep.user,
        port=ep.port,
        # fabric opens its gateway only when one is set: the namespace stands in for it.
        gateway=ep.proxy_command or (f"netns {ep.netns}" if ep.netns else None),
        connect_timeout=connect_timeout,
        connect_kwargs={
            "key_filename": str(ep.key_file),
            "look_for_keys": False,
            "allow_agent": False,
        },
    )
    # fabric defaults to AutoAddPolicy and the user's known_hosts; a benchmark controller
    # must not silently trust a new key, nor be confused by the user's own entries.
    conn.netns = ep.netns if not ep.proxy_command else None
    client = paramiko.SSHClient()
    client.load_host_keys(str(ep.known_hosts))
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    conn.client = client
    return conn


def known_hosts_line(names: list[str], key_line: str, port: int = 22) -> str:
    """A known_hosts entry for `names` given the text of an `ssh_host_*_key.pub` file."""
    keytype, blob = key_line.split()[:2]
    fmt = (lambda n: n) if port == 22 else (lambda n: f"[{n}]:{port}")
    return f"{','.join(fmt(n) for n in names)} {keytype} {blob}"

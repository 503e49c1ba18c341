"""A host of a cluster, however it was provisioned, and the one way to drive it: SSH.

The cluster code only sees `Host` records and fabric `Connection`s: a network-namespace
host of the local testbed, a container, a VM or a remote machine look the same.
"""

from __future__ import annotations

import ctypes
import os
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import fabric
import paramiko


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


def isolated_config() -> fabric.Config:
    """A fabric Config that reads no file: neither /etc/ssh/ssh_config nor ~/.ssh/config (a
    `ProxyJump` or `IdentityFile` there would add an unverified hop, or offer it keys), nor
    fabric's own /etc/fabric.yml and ~/.fabric.yml. Everything a connection needs is in its
    endpoint."""
    # An explicit (empty) SSHConfig stops fabric loading ssh_config files; lazy stops the
    # config files; load_ssh_configs off keeps a later load_ssh_config() (clone) from reading them.
    return fabric.Config(ssh_config=paramiko.SSHConfig(), lazy=True, overrides={"load_ssh_configs": False})


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

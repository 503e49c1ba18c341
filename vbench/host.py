"""A host of a cluster, however it was provisioned, and the one way to drive it: SSH.

The cluster code only sees `Host` records and fabric `Connection`s: a network-namespace
host of the local testbed, a container, a VM or a remote machine look the same.
"""
from __future__ import annotations

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
    #: An OpenSSH-style ProxyCommand; the local testbed uses one to enter its controller
    #: namespace, a real cluster may use one for a jump host.
    proxy_command: str | None = None


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


def connect(host: Host, connect_timeout: float = 10.0) -> fabric.Connection:
    """A fabric Connection that trusts only the host keys in the endpoint's known_hosts, and
    takes nothing from the user's or the system's ssh_config."""
    ep = host.ssh
    conn = fabric.Connection(
        config=isolated_config(),
        host=ep.address,
        user=ep.user,
        port=ep.port,
        gateway=ep.proxy_command,
        connect_timeout=connect_timeout,
        connect_kwargs={
            "key_filename": str(ep.key_file),
            "look_for_keys": False,
            "allow_agent": False,
        },
    )
    # fabric defaults to AutoAddPolicy and the user's known_hosts; a benchmark controller
    # must not silently trust a new key, nor be confused by the user's own entries.
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

"""Pure builders of the `ip` commands that lay out a testbed's network, and its names.

Every resource is named from the testbed name, so teardown can find it from the params
alone even when the state file was lost.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

Cmd = list[str]


def netns_name(testbed: str, host: str) -> str:
    return f"{testbed}-{host}"


def controller_netns(testbed: str) -> str:
    # The controller (this process) reaches hosts from a namespace of its own, so that no
    # address of the testbed's subnet exists in the machine's root namespace.
    return f"{testbed}-ctl"


def veth_names(testbed: str, index: int) -> tuple[str, str]:
    """(bridge side, namespace side before renaming) for host `index`; <= 15 bytes."""
    return f"{testbed}h{index}", f"{testbed}p{index}"


def create_bridge(bridge: str) -> list[Cmd]:
    return [
        ["ip", "link", "add", bridge, "type", "bridge"],
        ["ip", "link", "set", bridge, "up"],
    ]


def attach_namespace(
    bridge: str, netns: str, outer: str, inner: str, address: str, prefixlen: int, ifname: str = "eth0"
) -> list[Cmd]:
    """Create `netns` with one veth on `bridge`, named `ifname` inside, holding `address`."""
    return [
        ["ip", "netns", "add", netns],
        ["ip", "link", "add", outer, "type", "veth", "peer", "name", inner],
        ["ip", "link", "set", outer, "master", bridge, "up"],
        ["ip", "link", "set", inner, "netns", netns],
        ["ip", "-n", netns, "link", "set", inner, "name", ifname],
        ["ip", "-n", netns, "addr", "add", f"{address}/{prefixlen}", "dev", ifname],
        ["ip", "-n", netns, "link", "set", ifname, "up"],
        ["ip", "-n", netns, "link", "set", "lo", "up"],
    ]


def delete_netns(netns: str) -> Cmd:
    return ["ip", "netns", "delete", netns]


def delete_link(name: str) -> Cmd:
    return ["ip", "link", "delete", name]


#: The login user's bash startup files a native host's SSH sessions must not read (vbench.testbed.native).
SHELL_STARTUP_FILES = (".bashrc", ".bash_profile", ".bash_login", ".profile")


def shell_startup_files(home: str, is_file: Callable[[str], bool] = os.path.isfile) -> list[str]:
    """The login user's bash startup files under `home` that exist (a bind mount needs a target)."""
    return [p for p in (os.path.join(home, name) for name in SHELL_STARTUP_FILES) if is_file(p)]


def in_identity(
    netns: str, hostname: str, hosts_file: str, argv: list[str], mask: Sequence[str] = (), mask_with: str = ""
) -> Cmd:
    """Run `argv` in `netns` with its own hostname and /etc/hosts.

    Without its own UTS namespace every JVM sees the machine's hostname, which resolves to
    127.0.0.1 and misdirects Hadoop's shuffle and AM traffic. Every process started under
    this one (sshd, then each SSH session) inherits the identity. The bind mount lives in a
    private mount namespace and disappears with its last process.

    `mask`: files covered by a bind mount of the file `mask_with` (an empty one) in the same
    mount namespace, nothing on the machine touched. All paths are arguments of the script,
    never in its text; without `mask` the command is what it always was.
    """
    script = 'hostname "$1" && mount --bind "$2" /etc/hosts'
    inputs = [hostname, hosts_file]
    if mask:
        if not mask_with:
            raise ValueError("mask needs mask_with: the file bind-mounted over each one")
        # "$3" is mask_with, "${4}" on the files it covers.
        script += "".join(f' && mount --bind "$3" "${{{i}}}"' for i in range(4, 4 + len(mask)))
        inputs += [mask_with, *mask]
    script += f' && shift {len(inputs)} && exec "$@"'
    return [
        "ip",
        "netns",
        "exec",
        netns,
        "unshare",
        "--uts",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        script,
        "vbench-host",
        *inputs,
        *argv,
    ]


def hosts_file(entries: list[tuple[str, str]]) -> str:
    """/etc/hosts text for the testbed: localhost plus every host's address and name."""
    lines = ["127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback"]
    lines += [f"{addr}\t{name}" for name, addr in entries]
    return "\n".join(lines) + "\n"

"""The preflight: every host of an inventory checked before anything is touched.

Per host: the key file exists and is readable (before any connection), the host key is the one
pinned in known_hosts (a new key is refused with the command that accepts it, a changed key with
the known_hosts line that disagrees), the host answers in time, the key is accepted, and a user
that needs sudo has it without a password. Only `true` and `sudo -n true` are run.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import paramiko
from paramiko.hostkeys import HostKeys

from vbench.each_host import INVENTORY_WORKERS, on_each
from vbench.errors import VbenchError
from vbench.host import connect
from vbench.inventory.model import Inventory, InventoryHost, to_host


@dataclass(frozen=True)
class Problem:
    host: str
    #: key_file | known_hosts | unknown_key | changed_key | unreachable | auth | sudo
    kind: str
    message: str


class InventoryRefused(VbenchError):
    """The preflight found hosts that cannot be used; nothing was touched on any host."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        # One line: it becomes the reason of failure records (vbench.campaign.measure.failure_reason).
        super().__init__(
            "inventory preflight failed, nothing was touched: " + "; ".join(f"{p.host}: {p.message}" for p in problems)
        )


def host_pattern(address: str, port: int) -> str:
    return address if port == 22 else f"[{address}]:{port}"


def known_hosts_lines(text: str, address: str, port: int = 22) -> list[int]:
    """1-based numbers of the known_hosts lines that name `address` (plain or hashed). Pure."""
    want = host_pattern(address, port)
    found = []
    for n, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if fields[0].startswith("@"):  # @cert-authority / @revoked markers
            fields = fields[1:]
        for name in fields[0].split(","):
            if name.startswith("|1|"):
                salt = name.split("|")[2]
                if HostKeys.hash_host(want, salt) == name:
                    found.append(n)
                    break
            elif name == want:
                found.append(n)
                break
    return found


def accept_command(h: InventoryHost, known_hosts: Path, proxy: str | None) -> str:
    """The command a person runs (after checking the fingerprint out of band) to pin a new key. Pure."""
    scan = f"ssh-keyscan -p {h.port} {h.address} >> {known_hosts}"
    if proxy and proxy.startswith("ip netns exec "):  # the local testbed: scan from its namespace
        ns = proxy.split()[3]
        return f"ip netns exec {ns} {scan}"
    return scan


def check_files(inv: Inventory) -> list[Problem]:
    """Local checks before any connection: key files and known_hosts exist and are readable."""
    problems = []
    for i, h in enumerate(inv.hosts):
        if not h.key_file.is_file():
            problems.append(Problem(h.name, "key_file", f"inventory.hosts[{i}].key_file: {h.key_file} does not exist"))
        elif not os.access(h.key_file, os.R_OK):
            problems.append(Problem(h.name, "key_file", f"inventory.hosts[{i}].key_file: {h.key_file} is not readable"))
    if not inv.known_hosts.is_file():
        problems.append(
            Problem(
                "*",
                "known_hosts",
                f"inventory.known_hosts: {inv.known_hosts} does not exist; create it with "
                f"ssh-keyscan (see docs/inventory.md) after checking the hosts' fingerprints",
            )
        )
    return problems


def describe_error(exc: BaseException, inv: Inventory, h: InventoryHost, timeout_s: float) -> Problem:
    """One clear sentence for a failed connection. Pure (reads known_hosts text only for line numbers)."""
    where = f"{h.user}@{h.address}:{h.port}"
    proxy = to_host(inv, h).ssh.proxy_command
    if isinstance(exc, paramiko.BadHostKeyException):
        try:
            lines = known_hosts_lines(inv.known_hosts.read_text(), h.address, h.port)
        except OSError:
            lines = []
        at = ", ".join(f"{inv.known_hosts}:{n}" for n in lines) or str(inv.known_hosts)
        return Problem(
            h.name,
            "changed_key",
            f"host key of {h.address}:{h.port} CHANGED: it offers {exc.key.get_name()} "
            f"{exc.key.get_base64()[:24]}..., known_hosts has another ({at}). Either the host was "
            f"reinstalled or someone is in between; check, then remove that line and accept the new key",
        )
    if isinstance(exc, paramiko.SSHException) and "not found in known_hosts" in str(exc):
        return Problem(
            h.name,
            "unknown_key",
            f"host {h.address}:{h.port} is not in {inv.known_hosts} and new keys are never trusted "
            f"automatically; check its fingerprint, then accept it with: {accept_command(h, inv.known_hosts, proxy)}",
        )
    if isinstance(exc, paramiko.AuthenticationException):
        return Problem(h.name, "auth", f"{where} did not accept the key {h.key_file}: {exc}")
    via = f" through `{proxy}`" if proxy else ""
    detail = str(exc) or type(exc).__name__
    # Behind a proxy a dead address shows up as a closed or silent stream, not a socket error.
    return Problem(
        h.name,
        "unreachable",
        f"{where} unreachable{via}: no SSH answer within {timeout_s:.0f} s ({type(exc).__name__}: {detail})",
    )


def check_host(inv: Inventory, h: InventoryHost, timeout_s: float = 10.0) -> Problem | None:
    """Connect, run `true` (and `sudo -n true` if the host needs sudo). None when usable."""
    conn = connect(to_host(inv, h), connect_timeout=timeout_s)
    # A proxied socket never times out in connect(); bound the SSH banner and auth too.
    conn.connect_kwargs.update(banner_timeout=timeout_s, auth_timeout=timeout_s)
    try:
        try:
            conn.open()
        except Exception as exc:  # every way of not getting in becomes one sentence
            return describe_error(exc, inv, h, timeout_s)
        r = conn.run("true", hide=True, warn=True, in_stream=False, timeout=timeout_s)
        if r.exited != 0:
            return Problem(
                h.name,
                "auth",
                f"{h.user}@{h.address}: logged in but `true` exited {r.exited}: {r.stderr.strip()[:200]}",
            )
        if h.sudo:
            r = conn.run("sudo -n true", hide=True, warn=True, in_stream=False, timeout=timeout_s)
            if r.exited != 0:
                why = (r.stderr.strip() or r.stdout.strip() or f"exit {r.exited}").splitlines()[-1][:200]
                return Problem(
                    h.name,
                    "sudo",
                    f"user {h.user} on {h.address} cannot use sudo without a password "
                    f"(`sudo -n true`: {why}); vbench needs it to install packages and "
                    f"drop caches: grant NOPASSWD sudo or log in as root",
                )
        return None
    finally:
        conn.close()


def _quiet_paramiko() -> None:
    # paramiko's transport thread logs a traceback for every refused connection; the
    # preflight says what happened in one sentence instead (as the testbed's SSH wait does).
    logging.getLogger("paramiko.transport").setLevel(logging.CRITICAL)


def preflight(inv: Inventory, timeout_s: float = 10.0, hosts: tuple[InventoryHost, ...] | None = None) -> list[Problem]:
    """Every problem of every host (all hosts are checked, in parallel). Local file problems stop
    before any connection is made."""
    problems = check_files(inv)
    if problems:
        return problems
    hosts = hosts if hosts is not None else inv.hosts
    _quiet_paramiko()
    found = on_each(lambda h: check_host(inv, h, timeout_s), hosts, workers=INVENTORY_WORKERS)
    return [p for p in found if p is not None]


def require_usable(inv: Inventory, timeout_s: float = 10.0, hosts: tuple[InventoryHost, ...] | None = None) -> None:
    problems = preflight(inv, timeout_s, hosts)
    if problems:
        raise InventoryRefused(problems)

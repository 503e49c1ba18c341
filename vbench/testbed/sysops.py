"""Small wrappers over the machine's tools, shared by the testbed and its provisioners."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from vbench.errors import VbenchError


def run(cmd: list[str], check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise VbenchError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.strip()}")
    return proc


def existing_netns() -> set[str]:
    out = run(["ip", "netns", "list"], check=False).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def parse_link_names(text: str) -> set[str]:
    """Interface names from `ip -o link show` ("3: vbh1@if2: <...> ..." -> "vbh1"). Pure."""
    names = set()
    for line in text.splitlines():
        parts = line.split(": ", 2)
        if len(parts) >= 2 and parts[0].strip().isdigit():
            names.add(parts[1].split("@")[0].strip())
    return names


def existing_links() -> set[str]:
    return parse_link_names(run(["ip", "-o", "link", "show"], check=False).stdout)


def link_exists(name: str) -> bool:
    return run(["ip", "link", "show", name], check=False).returncode == 0


def netns_pids(netns: str) -> list[int]:
    out = run(["ip", "netns", "pids", netns], check=False).stdout
    return [int(p) for p in out.split()]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone, or reaped between open and read (ESRCH)
        return False


def kill_pids(pids: list[int], grace_s: float = 5.0) -> None:
    """TERM, wait up to `grace_s`, then KILL what is left. Only pids we started are passed
    (checked by start time, vbench.testbed.owned, or found in the testbed's own namespace or cgroup)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace_s
    remaining = list(pids)
    while remaining and time.monotonic() < deadline:
        remaining = [p for p in remaining if alive(p)]
        if remaining:
            time.sleep(0.1)
    for pid in remaining:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def read_text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return ""


def ssh_keygen(path: Path, comment: str) -> str:
    """A new ed25519 key pair at `path`; returns the public key line."""
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)])
    return path.with_suffix(".pub").read_text().strip()

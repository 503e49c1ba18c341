"""The neighbour's stress loads as shell lines. Pure.

Each load runs in tenant B, detached from the SSH session (setsid, all descriptors redirected)
so the command returns at once; it is stopped by destroying tenant B's container, which kills
everything in its PID namespace at once (even a fork bomb that keeps forking).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

#: Levels of the `stress` factor: the baseline (idle neighbour) first, then Xavier's four.
STRESSES = ("none", "cpu", "memory", "io", "forkbomb")
#: The real thing: a shell function that pipes itself into itself in the background, forever.
#: Only tenant B's pids.max stops it (checked before it starts, see vbench.isolation.pids).
FORK_BOMB = "bomb() { bomb | bomb & }; bomb"


@dataclass(frozen=True)
class StressLoad:
    """How hard each stress pushes; sized from tenant B's limits by `load_for`."""

    workers: int = 1
    #: Memory stress: bytes each --vm worker keeps touching (below tenant B's memory limit).
    vm_bytes: int = 256 * 1024**2
    #: I/O stress: bytes each --hdd worker writes (and rewrites) per file.
    hdd_bytes: int = 256 * 1024**2
    #: Safety net: stress-ng stops by itself after this long even if teardown never came.
    timeout_s: int = 900
    #: Where the I/O stress writes (tenant B's own disk, under its blkio throttle).
    temp_dir: str = "/var/tmp/vbench-stress"


def load_for(cpus: int, memory_mb: int | None, timeout_s: int, vm_fraction: float = 0.6) -> StressLoad:
    """One worker per CPU of tenant B; the memory stress takes `vm_fraction` of its limit (so the
    neighbour thrashes its memory without its own OOM killer ending the stress). Pure."""
    workers = max(1, cpus)
    mem = (memory_mb or 1024) * 1024**2
    return StressLoad(workers=workers, vm_bytes=int(mem * vm_fraction / workers) // 4096 * 4096, timeout_s=timeout_s)


def command(kind: str, load: StressLoad) -> str | None:
    """The foreground command of one stress (None for the idle baseline). Pure."""
    t = f"--timeout {load.timeout_s}s --metrics-brief"
    if kind == "none":
        return None
    if kind == "cpu":
        return f"stress-ng --cpu {load.workers} --cpu-method all {t}"
    if kind == "memory":
        return f"stress-ng --vm {load.workers} --vm-bytes {load.vm_bytes} --vm-keep {t}"
    if kind == "io":
        # dsync: every write is synchronous, so cgroup v1's blkio throttle applies to it (v1
        # cannot attribute buffered write-back to a cgroup).
        return (
            f"mkdir -p {shlex.quote(load.temp_dir)} && stress-ng --hdd {load.workers} --hdd-bytes {load.hdd_bytes} "
            f"--hdd-opts dsync --temp-path {shlex.quote(load.temp_dir)} {t}"
        )
    if kind == "forkbomb":
        return f"bash -c {shlex.quote(FORK_BOMB)}"
    raise ValueError(f"unknown stress {kind!r}; known: {', '.join(STRESSES)}")


def launch_line(cmd: str, log: str = "/var/tmp/vbench-stress.log") -> str:
    """Start `cmd` detached in its own session and print its pid. Pure.

    Detached (setsid, no descriptor left open on the SSH channel) so the SSH command returns
    while the stress keeps running; its output goes to `log` inside the tenant."""
    return f"setsid sh -c {shlex.quote(cmd)} > {shlex.quote(log)} 2>&1 < /dev/null & echo $!"

"""The fork-bomb guard: tenant B's pids.max, read from the cgroup and enforced before a stress.

cgroup v1 pids controller files (here at /sys/fs/cgroup/pids/<cgroup>): `pids.max` ("max" or a
number), `pids.current` (tasks now), `pids.events` ("max N": forks refused by the limit so far).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vbench.errors import VbenchError
from vbench.testbed.limits import cgroup_dirs_of


def parse_pids_max(text: str) -> int | None:
    """pids.max content -> the limit, None when unlimited ("max"). Pure."""
    v = text.strip()
    if v == "max":
        return None
    if not v.isdigit():
        raise ValueError(f"pids.max holds {v!r}")
    return int(v)


def parse_pids_events(text: str) -> int:
    """pids.events content -> forks refused because of pids.max. Pure."""
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "max" and value.strip().isdigit():
            return int(value)
    return 0


def refusal(pids_max: int | None, wanted: int) -> str | None:
    """Why a fork bomb must not start under this pids.max (None: it may). Pure."""
    if pids_max is None:
        return "pids.max is 'max' (no limit in force)"
    if pids_max > wanted:
        return f"pids.max is {pids_max}, above the {wanted} asked"
    return None


@dataclass(frozen=True)
class PidsCgroup:
    """The pids cgroup directory of a container (its init process's)."""

    path: Path

    @classmethod
    def of_pid(cls, pid: int) -> "PidsCgroup":
        dirs = cgroup_dirs_of(pid)
        if "pids" not in dirs:
            raise VbenchError(f"process {pid} has no pids cgroup: the pids controller is not mounted")
        return cls(dirs["pids"])

    def limit(self) -> int | None:
        return parse_pids_max((self.path / "pids.max").read_text())

    def current(self) -> int:
        return int((self.path / "pids.current").read_text().strip())

    def refused_forks(self) -> int:
        try:
            return parse_pids_events((self.path / "pids.events").read_text())
        except FileNotFoundError:  # older kernels: no events file in v1
            return 0


def require_pids_limit(cg: PidsCgroup, wanted: int) -> int:
    """Read pids.max back and refuse (raise) unless a limit <= `wanted` is in force."""
    got = cg.limit()
    why = refusal(got, wanted)
    if why:
        raise VbenchError(f"refusing to start the fork bomb in {cg.path}: {why}")
    assert got is not None
    return got

"""Pausing a whole testbed (cgroup v1 freezer): `testbed.freezer`, which a design's `idle: freeze`
asks for (issue #51).

Why: with a block's clusters up together (`interleave: concurrent`) the clusters not running a
job are not idle: nine hosts' daemons heartbeat, poll and collect garbage on two cores, and
TeraSort took 29-32 s there against 18 s with one cluster up (docs/results.md, `lean`). Frozen
between their own runs, they cost the running job nothing, while the configurations still take
turns minutes apart on the same cluster instances.

Where: every host of the testbed lives in `vbench-<testbed>/<host>` in the freezer hierarchy.
LXC (`lxc.cgroup.dir.container`) and crun (`cgroupsPath`) put containers there already; a native
host's sshd is started inside it (vbench.testbed.slowdown.in_cgroups_argv), so every daemon
started over SSH is too. Freezing writes FROZEN to each host's `freezer.state` and waits until
the kernel reports FROZEN (FREEZING while tasks are still being stopped); thawing writes THAWED.

Ownership: the parent `vbench-<testbed>` must not exist in the freezer hierarchy before bring-up
(refused, never adopted); it and each native host's cgroup are recorded in the testbed's state
before they are made. A frozen task cannot die, so teardown thaws the testbed's freezer tree
before it kills anything (`thaw_tree`), also after a runner that froze it was killed.

The path builders and the parser are pure; the rest reads and writes cgroup files only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from vbench.errors import VbenchError
from vbench.testbed.guest import testbed_cgroup
from vbench.testbed.limits import parse_cgroup_mounts

CONTROLLER = "freezer"
FROZEN, THAWED = "FROZEN", "THAWED"
#: How long a freeze may take before it is an error: the kernel stops every task of the cgroup,
#: which on this machine takes milliseconds; a task in uninterruptible I/O can hold it longer.
FREEZE_TIMEOUT_S = 30.0


# -- pure ----------------------------------------------------------------------------------------


def host_rel(testbed: str, host: str) -> str:
    """A host's freezer cgroup, relative to the hierarchy's root."""
    return f"{testbed_cgroup(testbed)}/{host}"


def state_file(mount: Path, rel: str) -> Path:
    return mount / rel / "freezer.state"


def parse_state(text: str) -> str:
    """FROZEN, FREEZING or THAWED from a freezer.state file's content. Pure."""
    state = text.strip()
    if state not in (FROZEN, "FREEZING", THAWED):
        raise VbenchError(f"freezer.state reads {state!r}, not FROZEN, FREEZING or THAWED")
    return state


# -- the machine ---------------------------------------------------------------------------------


def freezer_mount() -> Path | None:
    """Where the cgroup v1 freezer hierarchy is mounted (None: not on this machine)."""
    return parse_cgroup_mounts(Path("/proc/self/mountinfo").read_text()).get(CONTROLLER)


def _mount_or_refuse(testbed: str) -> Path:
    mount = freezer_mount()
    if mount is None:
        raise VbenchError(
            f"testbed '{testbed}': testbed.freezer needs the cgroup v1 freezer controller, which this machine "
            "does not mount (cgroup v2 only machines are not supported yet); use idle: run"
        )
    return mount


def preflight(testbed: str) -> None:
    """Refuse, before anything is created, a testbed that cannot be frozen here."""
    parent = _mount_or_refuse(testbed) / testbed_cgroup(testbed)
    if parent.exists():
        raise VbenchError(
            f"testbed.freezer: cgroup {parent} exists already and no testbed state says vbench created it; "
            "vbench neither adopts nor removes it (remove it yourself, or choose another testbed name)"
        )


def create_parent(testbed: str, record) -> None:
    """The testbed's parent freezer cgroup, before any host exists (`record` notes it in the
    testbed's state first, so a half-made one is removed too)."""
    parent = testbed_cgroup(testbed)
    record(parent)
    (_mount_or_refuse(testbed) / parent).mkdir()


def native_procs(testbed: str, host: str, record) -> list[Path]:
    """The `cgroup.procs` a native host's first process moves itself into: its own freezer
    cgroup below the testbed's parent (made and recorded here)."""
    rel = host_rel(testbed, host)
    record(rel)
    d = _mount_or_refuse(testbed) / rel
    d.mkdir(exist_ok=True)
    return [d / "cgroup.procs"]


@dataclass(frozen=True)
class TestbedFreezer:
    """Freezes and thaws the hosts of one testbed that is up (hosts named as in its params)."""

    __test__ = False

    testbed: str
    hosts: tuple[str, ...]

    def _files(self) -> list[Path]:
        mount = _mount_or_refuse(self.testbed)
        files = [state_file(mount, host_rel(self.testbed, h)) for h in self.hosts]
        missing = [str(f.parent) for f in files if not f.exists()]
        if missing:
            raise VbenchError(f"testbed '{self.testbed}': no freezer cgroup for its hosts: {', '.join(missing)}")
        return files

    def freeze(self) -> float:
        """Freeze every host; returns the seconds until the kernel reported all FROZEN."""
        t0 = time.monotonic()
        files = self._files()
        for f in files:
            f.write_text(FROZEN)
        while True:
            pending = [f for f in files if parse_state(f.read_text()) != FROZEN]
            if not pending:
                return time.monotonic() - t0
            if time.monotonic() - t0 > FREEZE_TIMEOUT_S:
                self.thaw()
                raise VbenchError(
                    f"testbed '{self.testbed}': {', '.join(str(f.parent) for f in pending)} still FREEZING "
                    f"after {FREEZE_TIMEOUT_S:.0f} s (a task in uninterruptible I/O?); thawed again"
                )
            time.sleep(0.01)

    def thaw(self) -> None:
        """Thaw every host (a no-op on hosts not frozen; hosts already gone are skipped)."""
        mount = freezer_mount()
        if mount is None:
            return
        for h in self.hosts:
            f = state_file(mount, host_rel(self.testbed, h))
            if f.exists():
                f.write_text(THAWED)

    def states(self) -> dict[str, str]:
        """Each host's freezer state, as the kernel reports it."""
        return {h: parse_state(f.read_text()) for h, f in zip(self.hosts, self._files())}


def thaw_tree(testbed: str) -> None:
    """Thaw every cgroup of the testbed's freezer tree (before teardown kills its processes: a
    frozen task does not die); nothing when the tree does not exist. A child frozen by itself
    stays frozen when only its parent is thawed, so each is thawed."""
    mount = freezer_mount()
    root = mount / testbed_cgroup(testbed) if mount is not None else None
    if root is None or not root.is_dir():
        return
    for d in [root, *sorted(p for p in root.rglob("*") if p.is_dir())]:
        f = d / "freezer.state"
        if f.exists():
            f.write_text(THAWED)

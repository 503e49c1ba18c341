"""The soak's faults and its seeded schedule (issue #52 items 1-2): pure descriptions, no machine.

A trial is the soak design's campaign run, cut by ONE fault, then resumed. What the fault is
(`FaultKind`) and when it strikes (`Moment`) are drawn from a generator seeded by the soak's seed
and the trial's index alone, so trial 17 of seed 52 is the same trial in a run of 20 or of 60,
and `--replay 17` reruns it.

A moment is a marker of the campaign's life, seen from outside the runner (selfbench/soak_machine.py
reads it), plus a delay after it:

  start     the runner's start (the delay: anywhere in the campaign's estimated length)
  testbed   a testbed's state file exists (bring-up under way, hosts up, or teardown not done)
  cluster   a Hadoop daemon's pid file exists (the cluster starting, up, or stopping)
  job       a task container's log directory exists (a job's map or reduce tasks run)
  task      the same sign as `job`, with a short delay: a task-oom fault then waits (polls, up to
            soak_machine.TASK_WAIT_S) for a MapReduce task JVM (YarnChild) of a recorded
            NodeManager to exist, since a tiny Pi's tasks live a few seconds
  ledger    the ledger holds `after_commits` closing records (the append just made)
  teardown  every cell of the design is committed (the last session's teardown)

Markers other than `start` and `teardown` count only once the ledger holds `after_commits`
closing records, so the same marker can be aimed at the first block or at the second.

A daemon kill aims at a daemon KIND that rotates over a schedule (`DAEMON_KINDS`: the k-th
daemon-kill trial of a seed's schedule aims at kind k mod 5), so that every kind is killed in a
few trials rather than by chance (seed 52 drew no DataNode in 6 uniform picks); the injector falls
back to any daemon present when the aimed kind is not, and says so.

`--kinds` runs the schedule over a subset of the kinds: the same shuffle (`kind_order`) over the
subset, in FAULTS' order whatever order they were named in.
"""

from __future__ import annotations

import random
import signal
from dataclasses import dataclass

from vbench.hadoop import daemons as dm

MARKERS = ("start", "testbed", "cluster", "job", "task", "ledger", "teardown")
#: How long after its marker a fault may strike at most, s: bring-up takes ~35-45 s natively, a
#: tiny Pi job ~20 s, teardown ~10 s; a delay past the marker's span still strikes (elsewhere).
MARKER_DELAY_S = {"testbed": 40.0, "cluster": 25.0, "job": 15.0, "task": 1.0, "ledger": 3.0, "teardown": 8.0}
#: Between the two signals of a double Ctrl-C, s: a user who presses twice, quickly or after a pause.
DOUBLE_GAP_S = (0.2, 4.0)
#: How long a dropped link stays down, s ("tens of seconds", the issue says): longer than SSH's and
#: Hadoop's quick retries, shorter than the job's timeout (params/experiments/soak.yaml: 120 s).
LINK_DROP_S = (20.0, 60.0)

#: The markers a runner fault may be aimed at (`task` is the task-oom kind's alone: as `job`).
RUNNER_MARKERS = ("start", "testbed", "cluster", "job", "ledger", "teardown")
CLUSTER_MARKERS = ("cluster", "job")
HOST_MARKERS = ("testbed", "cluster", "job")
TASK_MARKERS = ("task",)
#: The daemon kinds a daemon kill aims at in turn, named as vbench.hadoop.daemons names them (their
#: pid files' names): NameNode, DataNode, ResourceManager, NodeManager, JobHistoryServer.
DAEMON_KINDS = (dm.NAMENODE.name, dm.DATANODE.name, dm.RESOURCEMANAGER.name, dm.NODEMANAGER.name, dm.HISTORYSERVER.name)


@dataclass(frozen=True)
class FaultKind:
    """One kind of fault: what it hits and how, and when it may strike."""

    name: str
    what: str
    #: "runner": the `vbench campaign run` process the soak started; "daemon": a Hadoop daemon whose
    #: pid file the testbed's host holds (of the kind `Trial.aim` names when one runs); "host":
    #: every process of a native host's network namespace that the testbed's state lists; "link": a
    #: host's bridge-side veth the state lists, taken down for `Trial.hold_s`, then up; "reboot":
    #: the runner and every process, namespace, link and cgroup the testbeds' states list (what a
    #: reboot ends); "disk": a filesystem the soak mounted itself over the trial's work root, filled
    #: to ENOSPC; "task": a MapReduce task JVM (YarnChild) descended from a recorded NodeManager,
    #: moved into a memory cgroup of the soak's own with a small limit, where the kernel's memcg OOM
    #: killer kills it.
    target: str
    #: Signals sent, in order (a double Ctrl-C sends two).
    signals: tuple[int, ...]
    #: The runner is expected to stop by itself (record the running cell as interrupted, tear
    #: down) within the stop limit.
    graceful: bool
    #: A runner's Ctrl-C goes to its process group, as a terminal sends it; kill(1) to the pid.
    to_group: bool = False
    markers: tuple[str, ...] = RUNNER_MARKERS

    @property
    def runner_survives(self) -> bool:
        """The fault leaves the runner running: the campaign is expected to go on by itself and
        record the cell it hit as done or failed (with a one-line reason)."""
        return self.target in ("daemon", "host", "link", "disk", "task")


FAULTS = (
    FaultKind("sigkill", "SIGKILL of the runner (kill -9, an OOM kill)", "runner", (signal.SIGKILL,), False),
    FaultKind("sigterm", "SIGTERM of the runner (kill, a shutdown)", "runner", (signal.SIGTERM,), True),
    FaultKind("sigint", "SIGINT to the runner's process group (Ctrl-C)", "runner", (signal.SIGINT,), True, True),
    FaultKind(
        "double-sigint",
        "two SIGINTs to the runner's process group (Ctrl-C twice)",
        "runner",
        (signal.SIGINT, signal.SIGINT),
        True,
        True,
    ),
    FaultKind(
        "daemon-kill",
        "SIGKILL of one Hadoop daemon, picked among the pid files the hosts hold",
        "daemon",
        (signal.SIGKILL,),
        False,
        markers=CLUSTER_MARKERS,
    ),
    FaultKind(
        "host-kill",
        "SIGKILL of every process of one native host (its network namespace, from the testbed's state)",
        "host",
        (signal.SIGKILL,),
        False,
        markers=HOST_MARKERS,
    ),
    FaultKind(
        "link-drop",
        "one host's bridge-side veth (from the testbed's state) down for 20-60 s, then up: all its packets dropped",
        "link",
        (),
        False,
        markers=HOST_MARKERS,
    ),
    FaultKind(
        "reboot",
        "a reboot simulated: SIGKILL of the runner's group and of every process the testbeds recorded, "
        "their namespaces, links and cgroups deleted",
        "reboot",
        (signal.SIGKILL,),
        False,
    ),
    FaultKind(
        "disk-full",
        "the trial's work root (every native host's work directory; a tmpfs the soak mounted) filled to ENOSPC",
        "disk",
        (),
        False,
        markers=HOST_MARKERS,
    ),
    FaultKind(
        "task-oom",
        "a MapReduce task JVM (YarnChild) of a recorded NodeManager OOM-killed by a 16 MiB memory limit "
        "(a memory cgroup of the soak's own)",
        "task",
        (),
        False,
        markers=TASK_MARKERS,
    ),
)
FAULTS_BY_NAME = {f.name: f for f in FAULTS}


@dataclass(frozen=True)
class Moment:
    marker: str
    #: Closing records the ledger must hold before the marker counts (see the module doc).
    after_commits: int
    delay_s: float

    def text(self) -> str:
        if self.marker == "start":
            return f"{self.delay_s:.1f} s after the start"
        if self.marker == "teardown":
            return f"{self.delay_s:.1f} s after the last cell's commit (teardown)"
        if self.marker == "ledger":
            return f"{self.delay_s:.1f} s after commit {self.after_commits}"
        return f"{self.delay_s:.1f} s after '{self.marker}', {self.after_commits} cells committed"


@dataclass(frozen=True)
class Trial:
    index: int
    seed: int
    fault: FaultKind
    moment: Moment
    #: Which of the candidates (daemons, hosts) found at the moment is hit: its place in their
    #: sorted list is int(pick * len). Drawn in advance, so a replay picks the same one.
    pick: float
    #: The pause between the signals of a double Ctrl-C, s.
    gap_s: float
    #: How long a dropped link stays down, s (drawn for every trial, after the draws above, so
    #: that adding it changed none of them).
    hold_s: float = 0.0
    #: The daemon kind a daemon kill aims at (DAEMON_KINDS, in turn over the schedule); "" for
    #: other kinds. Not drawn: it changes none of the draws above.
    aim: str = ""

    def line(self) -> str:
        gap = f", {self.gap_s:.1f} s apart" if len(self.fault.signals) > 1 else ""
        if self.fault.target == "link":
            gap = f", down {self.hold_s:.1f} s"
        if self.aim:
            gap += f", aims at {self.aim}"
        return f"trial {self.index:3d}  seed {self.seed}  {self.fault.name:<13} {self.moment.text()}{gap}"


def kind_order(seed: int, cycle: int, faults: tuple[FaultKind, ...] = FAULTS) -> list[FaultKind]:
    """The fault kinds of the `cycle`-th run of len(faults) trials, shuffled: every kind once per
    cycle, so N trials hold each kind N/len(faults) times (the issue asks for each kind >= 5). Pure."""
    order = list(faults)
    random.Random(f"soak-kinds:{seed}:{cycle}").shuffle(order)
    return order


def draw_moment(rng: random.Random, fault: FaultKind, cells: int, campaign_s: float) -> Moment:
    """When `fault` strikes in a campaign of `cells` cells lasting about `campaign_s`. Pure given rng."""
    marker = rng.choice(fault.markers)
    if marker == "start":
        return Moment("start", 0, round(rng.uniform(0.0, campaign_s), 1))
    if marker == "teardown":
        return Moment("teardown", cells, round(rng.uniform(0.0, MARKER_DELAY_S["teardown"]), 1))
    if marker == "ledger":  # the last commit is `teardown`'s
        return Moment("ledger", rng.randint(1, max(1, cells - 1)), round(rng.uniform(0.0, MARKER_DELAY_S["ledger"]), 1))
    return Moment(marker, rng.randrange(0, cells), round(rng.uniform(0.0, MARKER_DELAY_S[marker]), 1))


def kind_of(seed: int, index: int, faults: tuple[FaultKind, ...] = FAULTS) -> FaultKind:
    """The fault kind of trial `index` (from 1) of the schedule over `faults`. Pure."""
    return kind_order(seed, (index - 1) // len(faults), faults)[(index - 1) % len(faults)]


def occurrence(seed: int, index: int, faults: tuple[FaultKind, ...] = FAULTS) -> int:
    """How many trials before trial `index` of the schedule over `faults` are of its kind (k of
    'the k-th trial of this kind', from 0). Pure."""
    kind = kind_of(seed, index, faults)
    return sum(kind_of(seed, i, faults) == kind for i in range(1, index))


def aimed_daemon(seed: int, index: int, faults: tuple[FaultKind, ...] = FAULTS) -> str:
    """The daemon kind trial `index` aims at if it is a daemon kill ("" otherwise): the k-th daemon
    kill of the schedule aims at DAEMON_KINDS[k mod 5]. Pure."""
    if kind_of(seed, index, faults).target != "daemon":
        return ""
    return DAEMON_KINDS[occurrence(seed, index, faults) % len(DAEMON_KINDS)]


def trial(seed: int, index: int, cells: int, campaign_s: float, faults: tuple[FaultKind, ...] = FAULTS) -> Trial:
    """Trial `index` (from 1) of the soak seeded `seed` over the kinds `faults`: a function of
    (seed, index, faults) and the design's size alone. Pure."""
    fault = kind_of(seed, index, faults)
    rng = random.Random(f"soak-trial:{seed}:{index}")
    moment = draw_moment(rng, fault, cells, campaign_s)
    pick, gap = round(rng.random(), 4), round(rng.uniform(*DOUBLE_GAP_S), 1)
    hold = round(rng.uniform(*LINK_DROP_S), 1)
    return Trial(index, seed, fault, moment, pick, gap, hold, aimed_daemon(seed, index, faults))


def schedule(
    seed: int, trials: int, cells: int, campaign_s: float, faults: tuple[FaultKind, ...] = FAULTS
) -> list[Trial]:
    return [trial(seed, i, cells, campaign_s, faults) for i in range(1, trials + 1)]


def kinds_named(names: list[str]) -> tuple[FaultKind, ...]:
    """The fault kinds `names` names, in FAULTS' order (so the order they are named in changes
    nothing); a ValueError naming the unknown ones and the known kinds. Pure."""
    unknown = [n for n in names if n not in FAULTS_BY_NAME]
    if unknown:
        raise ValueError(f"unknown fault kind(s) {', '.join(unknown)}; known: {', '.join(f.name for f in FAULTS)}")
    if not names:
        raise ValueError(f"no fault kind named; known: {', '.join(f.name for f in FAULTS)}")
    return tuple(f for f in FAULTS if f.name in names)


def pick_one(candidates: list, pick: float):
    """The candidate a trial's `pick` names among `candidates` (sorted first, so that the same
    machine state gives the same one); None when there is none. Pure."""
    if not candidates:
        return None
    ordered = sorted(candidates)
    return ordered[min(len(ordered) - 1, int(pick * len(ordered)))]


@dataclass(frozen=True)
class Observation:
    """The campaign seen from outside its runner at one instant (soak_machine.observe reads it)."""

    elapsed_s: float
    commits: int  # closing records in the ledger
    testbeds: int  # testbed state files under the trial's work root
    daemons: int  # Hadoop daemon pid files on the testbeds' hosts
    task_containers: int  # task containers' log directories on the testbeds' hosts


def marker_reached(moment: Moment, obs: Observation, cells: int) -> bool:
    """Whether the campaign, as `obs` shows it, has reached the moment's marker. Pure."""
    m = moment.marker
    if m == "start":
        return True
    if m == "teardown":
        return obs.commits >= cells
    if obs.commits < moment.after_commits:
        return False
    return {
        "ledger": True,
        "testbed": obs.testbeds > 0,
        "cluster": obs.daemons > 0,
        "job": obs.task_containers > 0,
        "task": obs.task_containers > 0,
    }[m]

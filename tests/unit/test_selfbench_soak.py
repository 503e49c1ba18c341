"""The fault-injection soak's pure parts (selfbench/soak*.py, issue #52): its seeded schedule, the
fault kinds' injectors (on fakes), its own reading of the ledger, and every invariant on crafted
campaign directories, good and bad. The soak itself (clusters, signals) is not run here."""

from __future__ import annotations

import errno
import json
import random
import signal
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from selfbench import soak_invariants as inv
from selfbench import soak_ledger as sl
from selfbench import soak_machine as sm
from selfbench.soak_plan import (
    DAEMON_KINDS,
    DOUBLE_GAP_S,
    FAULTS,
    FAULTS_BY_NAME,
    LINK_DROP_S,
    Moment,
    Observation,
    aimed_daemon,
    draw_moment,
    kind_order,
    kinds_named,
    marker_reached,
    occurrence,
    pick_one,
    schedule,
    trial,
)
from tests.unit.selfbench_scripts import load
from vbench import ledger as vbench_ledger

soak = load("soak")

PLANNED = ("b0/native/cpu", "b0/native/pi", "b1/native/cpu", "b1/native/pi")


def sample(cell: str, value: float = 1.0) -> dict:
    bench = cell.rsplit("/", 1)[1]
    return {
        "kind": "sample",
        "benchmark": bench,
        "metric": "t",
        "value": value,
        "unit": "s",
        "metadata": {"cell_id": cell},
        "timestamp": 0.0,
    }


def interrupted(cell: str) -> dict:
    return {
        "kind": "failure",
        "benchmark": cell.rsplit("/", 1)[1],
        "reason": "interrupted (received signal SIGTERM)",
        "metadata": {"cell_id": cell, "interrupted": True},
        "timestamp": 0.0,
    }


def ledger(*appends: tuple[list[dict], str | None, bool]) -> bytes:
    return sl.marker_bytes() + b"".join(sl.append_bytes(recs, cell, done) for recs, cell, done in appends)


def done(cell: str) -> tuple[list[dict], str, bool]:
    return [sample(cell)], cell, True


GOOD_FIRST = ledger(done(PLANNED[0]), ([interrupted(PLANNED[1])], PLANNED[1], False))
GOOD_FINAL = GOOD_FIRST + b"".join(sl.append_bytes(*done(c)) for c in PLANNED[1:])


def evidence(fault: str = "sigterm", **kw) -> inv.Evidence:
    doc = dict(
        planned=PLANNED,
        fault=FAULTS_BY_NAME[fault],
        injected=True,
        first_ledger=GOOD_FIRST,
        final_ledger=GOOD_FINAL,
        running_at_fault=PLANNED[1],
        stop_s=12.5,
        resume_rc=0,
        leftovers=(),
    )
    return inv.Evidence(**{**doc, **kw})


def failed(ev: inv.Evidence) -> dict[str, str]:
    return {c.name: c.reason for c in inv.check_all(ev) if not c.ok}


# --- the schedule ------------------------------------------------------------------------------


def test_the_seeded_schedule_is_reproducible_and_each_trial_depends_on_its_seed_and_index_only():
    a = schedule(52, 12, 4, 150.0)
    assert a == schedule(52, 12, 4, 150.0)
    assert a[:6] == schedule(52, 6, 4, 150.0)  # trial 5 of 6 is trial 5 of 12: a replay finds it
    assert trial(52, 9, 4, 150.0) == a[8]
    assert [t.index for t in a] == list(range(1, 13))
    assert a != schedule(53, 12, 4, 150.0)


def test_every_fault_kind_comes_once_per_cycle_and_strikes_only_at_its_markers():
    trials = schedule(7, len(FAULTS) * 5, 4, 150.0)
    counts = {f.name: sum(t.fault == f for t in trials) for f in FAULTS}
    assert set(counts.values()) == {5}
    for t in trials:
        assert t.moment.marker in t.fault.markers
        assert 0 <= t.pick < 1
    assert sorted(f.name for f in kind_order(7, 0)) == sorted(f.name for f in FAULTS)
    starts = [t.moment for t in schedule(1, 300, 4, 150.0) if t.moment.marker == "start"]
    assert starts and all(0 <= m.delay_s <= 150 for m in starts)
    ledgers = [t.moment for t in schedule(1, 300, 4, 150.0) if t.moment.marker == "ledger"]
    assert ledgers and all(1 <= m.after_commits <= 3 for m in ledgers)


def test_a_marker_is_reached_once_the_campaign_shows_it_and_the_ledger_holds_its_commits():
    def obs(**kw):
        return Observation(**{"elapsed_s": 1.0, "commits": 0, "testbeds": 0, "daemons": 0, "task_containers": 0, **kw})

    assert marker_reached(Moment("start", 0, 3.0), obs(), 4)
    assert not marker_reached(Moment("job", 2, 0.0), obs(task_containers=3, commits=1), 4)
    assert marker_reached(Moment("job", 2, 0.0), obs(task_containers=3, commits=2), 4)
    assert not marker_reached(Moment("cluster", 0, 0.0), obs(testbeds=1), 4)
    assert marker_reached(Moment("cluster", 0, 0.0), obs(testbeds=1, daemons=5), 4)
    assert marker_reached(Moment("ledger", 3, 0.0), obs(commits=3), 4)
    assert not marker_reached(Moment("teardown", 4, 0.0), obs(commits=3, testbeds=1), 4)
    assert marker_reached(Moment("teardown", 4, 0.0), obs(commits=4), 4)


def test_pick_one_names_the_same_candidate_whatever_order_they_are_found_in():
    assert pick_one([], 0.5) is None
    assert pick_one(["c", "a", "b"], 0.0) == "a"
    assert pick_one(["c", "a", "b"], 0.5) == pick_one(["b", "c", "a"], 0.5) == "b"
    assert pick_one(["c", "a", "b"], 0.9999) == "c"


# --- faults and their injectors ------------------------------------------------------------------


class Fakes:
    def __init__(self, alive=(True, True), daemons=(), hosts=(), pids=None):
        self.sent: list[tuple[str, int, int]] = []
        self.slept: list[float] = []
        self._alive = list(alive)
        self.daemons, self.hosts, self.pids = list(daemons), list(hosts), pids or {}

    def target(self) -> sm.Target:
        return sm.Target(
            runner_pid=4242,
            work_root=Path("/nonexistent"),
            runner_alive=lambda: self._alive.pop(0) if self._alive else False,
            kill=lambda pid, sig: self.sent.append(("kill", pid, sig)),
            killpg=lambda pid, sig: self.sent.append(("killpg", pid, sig)),
            sleep=self.slept.append,
            find_daemons=lambda _root: self.daemons,
            find_hosts=lambda _root: self.hosts,
            netns_pids=lambda ns: self.pids.get(ns, []),
        )


def _trial(name: str, pick: float = 0.0):
    return replace(trial(52, 1, 4, 150.0), fault=FAULTS_BY_NAME[name], pick=pick, gap_s=1.5)


@pytest.mark.parametrize(
    "name, injector",
    [
        ("sigkill", sm.signal_runner),
        ("sigterm", sm.signal_runner),
        ("sigint", sm.signal_runner),
        ("double-sigint", sm.signal_runner),
        ("daemon-kill", sm.kill_daemon),
        ("host-kill", sm.kill_host),
        ("link-drop", sm.drop_link),
        ("reboot", sm.reboot),
        ("disk-full", sm.fill_disk),
        ("task-oom", sm.oom_task),
    ],
)
def test_each_fault_kind_maps_to_its_injector(name, injector):
    assert sm.injector_for(FAULTS_BY_NAME[name]) is injector
    assert {f.name for f in FAULTS} == {
        "sigkill",
        "sigterm",
        "sigint",
        "double-sigint",
        "daemon-kill",
        "host-kill",
        "link-drop",
        "reboot",
        "disk-full",
        "task-oom",
    }
    assert len(FAULTS) == 10  # ten kinds since task-oom (nine before it: seed 52's schedule then differs)


@pytest.mark.parametrize(
    "name, sent",
    [
        ("sigkill", [("kill", 4242, signal.SIGKILL)]),
        ("sigterm", [("kill", 4242, signal.SIGTERM)]),
        ("sigint", [("killpg", 4242, signal.SIGINT)]),  # a terminal's Ctrl-C: to the group
        ("double-sigint", [("killpg", 4242, signal.SIGINT), ("killpg", 4242, signal.SIGINT)]),
    ],
)
def test_runner_faults_send_their_signals_to_the_runner_the_soak_started(name, sent):
    f = Fakes()
    got = sm.inject(_trial(name), f.target())
    assert got.struck and got.pids == (4242,)
    assert f.sent == sent
    assert f.slept == ([1.5] if name == "double-sigint" else [])


def test_a_second_ctrl_c_is_not_sent_to_a_runner_that_has_ended_and_none_to_one_never_alive():
    f = Fakes(alive=(True, False))
    assert sm.inject(_trial("double-sigint"), f.target()).struck
    assert f.sent == [("killpg", 4242, signal.SIGINT)]
    f = Fakes(alive=())
    got = sm.inject(_trial("sigkill"), f.target())
    assert not got.struck and f.sent == []


def test_a_daemon_kill_hits_one_recorded_daemon_by_the_trials_pick_and_nothing_without_one():
    ds = [sm.DaemonProcess("master", "namenode", 11), sm.DaemonProcess("worker1", "datanode", 12)]
    f = Fakes(daemons=ds)
    got = sm.inject(_trial("daemon-kill", pick=0.9), f.target())
    assert got.struck and f.sent == [("kill", 12, signal.SIGKILL)] and "datanode of worker1" in got.what
    f = Fakes()
    assert not sm.inject(_trial("daemon-kill"), f.target()).struck and f.sent == []


def test_a_host_kill_kills_every_process_of_one_recorded_host_namespace():
    f = Fakes(hosts=["sk0001-master", "sk0001-worker1"], pids={"sk0001-worker1": [21, 22, 23]})
    got = sm.inject(_trial("host-kill", pick=0.7), f.target())
    assert got.struck and got.pids == (21, 22, 23)
    assert f.sent == [("kill", p, signal.SIGKILL) for p in (21, 22, 23)]


def test_the_hosts_are_the_namespaces_a_testbed_state_lists_but_its_controllers():
    states = {"sk0001": {"testbed": "sk0001", "netns": ["sk0001-ctl", "sk0001-master", "sk0001-worker1", 5]}}
    assert sm.host_namespaces(states) == ["sk0001-master", "sk0001-worker1"]


def test_a_daemon_is_recognised_by_the_identity_vbench_gave_its_jvm_only():
    work = "/r/sk0001/hosts/master/work"
    line = f"java -Xmx512m -Dhadoop.log.dir={work}/logs -Dhadoop.log.file=namenode.log -cp x Main"
    assert sm.is_vbench_daemon(line, "namenode", work)
    assert not sm.is_vbench_daemon(line, "datanode", work)
    assert not sm.is_vbench_daemon(line, "namenode", "/r/sk0002/hosts/master/work")
    assert not sm.is_vbench_daemon("sleep 1000", "namenode", work)
    assert not sm.is_vbench_daemon(line, "sshd", work)


def test_recorded_daemons_reads_the_pid_files_and_keeps_those_whose_pid_is_that_jvm(tmp_path, monkeypatch):
    work = tmp_path / "sk0001" / "hosts" / "master" / "work"
    (work / "run").mkdir(parents=True)
    (work / "run" / "namenode.pid").write_text("101\n")
    (work / "run" / "resourcemanager.pid").write_text("102\n")  # its pid is someone else's now
    (work / "run" / "historyserver.pid").write_text("garbage\n")
    lines = {101: f"java -Dhadoop.log.dir={work}/logs -Dhadoop.log.file=namenode.log X", 102: "vim notes"}
    monkeypatch.setattr(sm, "_cmdline", lambda pid: lines.get(pid, ""))
    assert sm.recorded_daemons(tmp_path) == [sm.DaemonProcess("master", "namenode", 101)]


# --- the new fault kinds: a link dropped, a reboot, a full disk ------------------------------------


def test_the_link_drop_time_is_drawn_after_every_older_draw_so_none_of_them_moved():
    for i in range(1, 40):
        t = trial(52, i, 4, 150.0)
        rng = random.Random(f"soak-trial:52:{i}")  # the draws in the order they had before hold_s
        assert draw_moment(rng, t.fault, 4, 150.0) == t.moment
        assert (round(rng.random(), 4), round(rng.uniform(*DOUBLE_GAP_S), 1)) == (t.pick, t.gap_s)
        assert LINK_DROP_S[0] <= t.hold_s <= LINK_DROP_S[1]


def test_the_new_kinds_strike_where_their_targets_exist_and_say_so_in_the_plan():
    assert FAULTS_BY_NAME["link-drop"].markers == ("testbed", "cluster", "job")
    assert FAULTS_BY_NAME["disk-full"].markers == ("testbed", "cluster", "job")
    assert "start" in FAULTS_BY_NAME["reboot"].markers and "teardown" in FAULTS_BY_NAME["reboot"].markers
    assert not any(FAULTS_BY_NAME[n].graceful for n in ("link-drop", "reboot", "disk-full"))
    survives = {f.name for f in FAULTS if f.runner_survives}
    assert survives == {"daemon-kill", "host-kill", "link-drop", "disk-full", "task-oom"}
    t = replace(_trial("link-drop"), hold_s=33.3)
    assert t.line().endswith(", down 33.3 s")


def test_the_host_links_are_the_bridge_side_veths_a_state_lists_but_the_controllers():
    states = {
        "sk0001": {
            "testbed": "sk0001",
            "bridge": "sk0001br",
            "links": ["sk0001br", "sk0001h0", "sk0001h2", "sk0001h1", "eth0", "sk0001h1x", "sk0001h01", 5],
        },
        "sk0002": {"testbed": "sk0002", "links": "sk0002h1"},  # not a list: nothing
    }
    assert sm.host_links(states) == ["sk0001h2", "sk0001h1"]
    assert sm.link_index("../../etc") is None and sm.link_index("") is None


class Machine:
    """A fake machine for the link, reboot and disk injectors: what exists, what was run."""

    def __init__(self, **kw):
        self.ran: list[list[str]] = []
        self.sent: list[tuple[str, int, int]] = []
        self.slept: list[float] = []
        self.alive = kw.get("alive", True)
        self.indexes = dict(kw.get("indexes", {}))  # link -> ifindex, over time: a list of values
        self.netns = set(kw.get("netns", ()))
        self.links = set(kw.get("links", ()))
        self.ns_pids = {k: list(v) for k, v in kw.get("ns_pids", {}).items()}
        self.cg_pids = {k: set(v) for k, v in kw.get("cg_pids", {}).items()}
        self.cg_dirs = dict(kw.get("cg_dirs", {}))
        self.starts = dict(kw.get("starts", {}))
        self.states = kw.get("states", {})
        self.daemons = list(kw.get("daemons", ()))
        self.fail = kw.get("fail", {})  # argv[3] or argv[2] -> exit status
        self.unkillable = set(kw.get("unkillable", ()))
        self.stuck_cgroups = set(kw.get("stuck_cgroups", ()))
        self.removed: list[Path] = []
        self.mounted = kw.get("mounted", False)
        self.filled: list[Path] = []

    def run(self, argv: list[str]) -> int:
        self.ran.append(argv)
        rc = self.fail.get(" ".join(argv[:5]), 0)
        if rc == 0 and argv[:3] == ["ip", "netns", "delete"]:
            self.netns.discard(argv[3])
        if rc == 0 and argv[:3] == ["ip", "link", "delete"]:
            self.links.discard(argv[4])
        return rc

    def kill(self, pid: int, sig: int) -> None:
        self.sent.append(("kill", pid, sig))
        if pid in self.unkillable:
            return
        for pids in self.ns_pids.values():
            if pid in pids:
                pids.remove(pid)
        for pids in self.cg_pids.values():
            pids.discard(pid)
        self.starts.pop(pid, None)
        self.daemons = [d for d in self.daemons if d.pid != pid]

    def killpg(self, pid: int, sig: int) -> None:
        self.sent.append(("killpg", pid, sig))

    def index(self, link: str):
        v = self.indexes.get(link)
        return v.pop(0) if isinstance(v, list) else v

    def rmdir(self, d: Path) -> bool:
        if d in self.stuck_cgroups:
            return False
        self.removed.append(d)
        return True

    def target(self, source: str = "") -> sm.Target:
        return sm.Target(
            runner_pid=4242,
            work_root=Path("/soak/trial-001/tb"),
            runner_alive=lambda: self.alive,
            kill=self.kill,
            killpg=self.killpg,
            sleep=self.slept.append,
            find_daemons=lambda _root: list(self.daemons),
            netns_pids=lambda ns: list(self.ns_pids.get(ns, [])),
            find_links=lambda root: sm.host_links(self.states),
            link_index=self.index,
            run=self.run,
            states=lambda _root: self.states,
            start_time=lambda pid: self.starts.get(pid),
            boot_id=lambda: "b1",
            cgroup_pids=lambda rel: set(self.cg_pids.get(rel, set())),
            cgroup_dirs=lambda rel: list(self.cg_dirs.get(rel, [])),
            rmdir=self.rmdir,
            existing_netns=lambda: set(self.netns),
            existing_links=lambda: set(self.links),
            disk_source=source,
            is_own_mount=lambda path, src: self.mounted and src == "vbench-soak-52-1",
            fill=lambda path: self.filled.append(path) or 7 << 20,
            free_bytes=lambda path: 0,
        )


LINK_STATE = {"sk0001": {"testbed": "sk0001", "bridge": "sk0001br", "links": ["sk0001br", "sk0001h0", "sk0001h1"]}}


def test_a_link_drop_takes_the_recorded_host_veth_down_for_its_time_then_up_again():
    mach = Machine(states=LINK_STATE, indexes={"sk0001h1": 17})
    got = sm.inject(replace(_trial("link-drop"), hold_s=42.0), mach.target())
    assert got.struck and not got.problems and "sk0001h1 (ifindex 17) down for 42.0 s" in got.what
    assert mach.ran == [
        ["ip", "link", "set", "dev", "sk0001h1", "down"],
        ["ip", "link", "set", "dev", "sk0001h1", "up"],
    ]
    assert mach.slept == [42.0] and mach.sent == []  # no process signalled


def test_a_dropped_link_that_teardown_deleted_or_made_anew_is_not_brought_up():
    for later in (None, 23):  # deleted; deleted and made again under the same name
        mach = Machine(states=LINK_STATE, indexes={"sk0001h1": [17, later]})
        got = sm.inject(_trial("link-drop"), mach.target())
        assert got.struck and not got.problems and "not brought up" in got.what
        assert mach.ran == [["ip", "link", "set", "dev", "sk0001h1", "down"]]


def test_a_link_drop_strikes_nothing_without_a_recorded_existing_link_and_says_a_link_left_down():
    mach = Machine(states={"sk0001": {"testbed": "sk0001", "links": ["sk0001br", "sk0001h0"]}})
    assert not sm.inject(_trial("link-drop"), mach.target()).struck and mach.ran == []
    mach = Machine(states=LINK_STATE)  # recorded, but no such link now
    assert "gone" in sm.inject(_trial("link-drop"), mach.target()).what and mach.ran == []
    mach = Machine(states=LINK_STATE, indexes={"sk0001h1": 17}, fail={"ip link set dev sk0001h1": 2})
    got = sm.inject(_trial("link-drop"), mach.target())
    assert not got.struck and "exited 2" in got.what and len(mach.ran) == 1
    mach = Machine(states=LINK_STATE, indexes={"sk0001h1": 17})
    mach.fail = {}
    orig = mach.run
    mach.run = lambda argv: 1 if argv[-1] == "up" else orig(argv)
    got = sm.inject(_trial("link-drop"), mach.target())
    assert got.struck and "stays down" in got.problems[0]


REBOOT_STATE = {
    "sk0001": {
        "testbed": "sk0001",
        "bridge": "sk0001br",
        "links": ["sk0001br", "sk0001h0", "sk0001h1", "eth0"],
        "netns": ["sk0001-ctl", "sk0001-master", "other-ns"],
        "cgroups": ["vbench-sk0001/master", "vbench-sk0002", "vbench-sk0001/../x"],
        "pids": [{"pid": 300, "start": 9000, "boot": "b1"}, {"pid": 301, "start": 9001, "boot": "b0"}, 302],
    }
}


def test_a_reboots_targets_are_what_the_state_lists_with_its_testbeds_name_only():
    got = sm.reboot_targets(REBOOT_STATE)
    assert got.netns == ("sk0001-ctl", "sk0001-master")
    assert got.links == ("sk0001h0", "sk0001h1", "sk0001br")  # the bridge last
    assert got.cgroups == ("vbench-sk0001/master", "vbench-sk0001")  # deepest first
    assert [p.pid for p in got.processes] == [300, 301]  # a bare pid is no record
    assert set(got.refused) == {"namespace other-ns", "link eth0", "cgroup vbench-sk0002", "cgroup vbench-sk0001/../x"}


def test_a_reboot_kills_the_runner_and_all_vbench_recorded_then_clears_namespaces_links_cgroups():
    cg = Path("/sys/fs/cgroup/vbench-sk0001")
    mach = Machine(
        states=REBOOT_STATE,
        starts={300: 9000, 301: 9001, 302: 1},  # 301 was recorded in another boot: someone else's now
        ns_pids={"sk0001-master": [310, 311], "other-ns": [999]},
        cg_pids={"vbench-sk0001/master": {310, 320}},
        cg_dirs={"vbench-sk0001/master": [cg / "master"], "vbench-sk0001": [cg / "master", cg]},
        daemons=[sm.DaemonProcess("master", "namenode", 330)],
        netns={"sk0001-ctl", "sk0001-master", "other-ns"},
        links={"sk0001br", "sk0001h0", "sk0001h1", "eth0"},
    )
    got = sm.inject(_trial("reboot"), mach.target())
    assert got.struck and mach.sent[0] == ("killpg", 4242, signal.SIGKILL)
    killed = {pid for how, pid, sig in mach.sent[1:] if how == "kill" and sig == signal.SIGKILL}
    assert killed == {300, 310, 311, 320, 330}  # never 301 (another boot), 302 (a bare pid), 999 (not its namespace)
    assert ["ip", "netns", "delete", "sk0001-ctl"] in mach.ran and [
        "ip",
        "netns",
        "delete",
        "sk0001-master",
    ] in mach.ran
    deleted = [argv[4] for argv in mach.ran if argv[:3] == ["ip", "link", "delete"]]
    assert deleted == ["sk0001h0", "sk0001h1", "sk0001br"]
    assert mach.netns == {"other-ns"} and mach.links == {"eth0"}
    assert mach.removed[:2] == [cg / "master", cg / "master"] and mach.removed[-1] == cg
    assert all(argv[0] == "ip" for argv in mach.ran)
    # What the state listed that is not its testbed's is named, never acted on.
    assert any("other-ns" in p for p in got.problems) and not any("still" in p for p in got.problems)


def test_a_reboot_says_what_it_could_not_clear_and_strikes_nothing_once_the_runner_has_ended():
    mach = Machine(
        states={"sk0001": {"testbed": "sk0001", "netns": ["sk0001-master"], "links": ["sk0001h1"]}},
        ns_pids={"sk0001-master": [310]},
        unkillable={310},
        netns={"sk0001-master"},
        links={"sk0001h1"},
        fail={"ip netns delete sk0001-master": 1, "ip link delete dev sk0001h1": 1},
        cg_dirs={"vbench-sk0001": [Path("/cg/vbench-sk0001")]},
        stuck_cgroups={Path("/cg/vbench-sk0001")},
    )
    got = sm.inject(_trial("reboot"), mach.target())
    text = " ".join(got.problems)
    assert "process 310 still alive" in text and "sk0001-master still there" in text
    assert "link sk0001h1 still there" in text and "/cg/vbench-sk0001 could not be removed" in text
    assert len(mach.slept) == sm.REBOOT_SWEEPS
    mach = Machine(alive=False, states=REBOOT_STATE)
    got = sm.inject(_trial("reboot"), mach.target())
    assert not got.struck and mach.sent == [] and mach.ran == []


MOUNTINFO = "\n".join(
    [
        "22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
        r"90 22 0:50 / /soak/trial\040one/tb rw shared:40 - tmpfs vbench-soak-52-1 rw,size=524288k",
        "91 22 0:51 / /soak/trial-001/tb rw shared:41 - tmpfs vbench-soak-52-1 rw,size=524288k",
        "92 91 0:52 / /soak/trial-001/tb rw shared:42 - tmpfs other rw",
        "93 22 0:53 / /soak/trial-002/tb rw shared:43 - ext4 vbench-soak-52-2 rw",
    ]
)


def test_the_soaks_own_mount_is_told_by_its_mount_point_source_and_type_and_must_be_on_top():
    assert sm.mounts_at(MOUNTINFO, "/soak/trial one/tb") == [("tmpfs", "vbench-soak-52-1")]
    assert sm.own_mount(MOUNTINFO, Path("/soak/trial one/tb"), "vbench-soak-52-1")
    assert not sm.own_mount(MOUNTINFO, Path("/soak/trial-001/tb"), "vbench-soak-52-1")  # covered by another
    assert not sm.own_mount(MOUNTINFO, Path("/soak/trial-002/tb"), "vbench-soak-52-2")  # not a tmpfs
    assert not sm.own_mount(MOUNTINFO, Path("/"), "/dev/vda")
    assert sm.mount_source(_trial("disk-full")) == "vbench-soak-52-1"


def test_fill_writes_until_enospc_big_chunks_then_small_and_raises_any_other_error(tmp_path):
    room = [3 * (1 << 20) + 5000]

    def write(fd, buf):
        if room[0] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = min(len(buf), room[0])
        room[0] -= n
        return n

    assert sm.fill(tmp_path / "fill", write) == 3 * (1 << 20) + 5000
    assert (tmp_path / "fill").exists()
    with pytest.raises(FileExistsError):  # a new file only: nothing there is written over
        sm.fill(tmp_path / "fill", write)
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        sm.fill(tmp_path / "link", write)
    assert not (tmp_path / "elsewhere").exists()

    def eio(fd, buf):
        raise OSError(errno.EIO, "I/O error")

    with pytest.raises(OSError, match="I/O"):
        sm.fill(tmp_path / "fill2", eio)


def test_a_disk_fill_fills_only_the_soaks_own_tmpfs_at_the_work_root():
    mach = Machine(mounted=True)
    got = sm.inject(_trial("disk-full"), mach.target("vbench-soak-52-1"))
    assert got.struck and mach.filled == [Path("/soak/trial-001/tb") / sm.FILL_NAME] and "7 MiB written" in got.what
    for mounted, source in ((False, "vbench-soak-52-1"), (True, ""), (True, "vbench-soak-52-9")):
        mach = Machine(mounted=mounted)
        got = sm.inject(_trial("disk-full"), mach.target(source))
        assert not got.struck and mach.filled == [] and "nothing filled" in got.what


def test_the_soaks_tmpfs_is_mounted_on_an_empty_work_root_freed_and_unmounted_after(tmp_path, monkeypatch):
    on_top = {"yes": False}
    ran = []

    def run(argv):
        ran.append(argv)
        on_top["yes"] = argv[0] == "mount"
        return 0

    monkeypatch.setattr(sm, "is_own_mount", lambda path, source: on_top["yes"])
    root = tmp_path / "tb"
    with sm.OwnTmpfs(root, "vbench-soak-52-1", True, run) as disk:
        assert disk.mounted and root.is_dir() and oct(root.stat().st_mode & 0o777) == "0o700"
        (root / sm.FILL_NAME).write_bytes(b"x")
        disk.free()
        assert not (root / sm.FILL_NAME).exists()
    assert ran == [
        ["mount", "-t", "tmpfs", "-o", f"size={sm.DISK_MIB}m,mode=0700", "vbench-soak-52-1", str(root)],
        ["umount", str(root)],
    ]
    assert not disk.problems and not disk.mounted
    # Not enabled: nothing made, nothing run.
    ran.clear()
    with sm.OwnTmpfs(tmp_path / "other", "s", False, run) as disk:
        assert not disk.mounted
    assert ran == [] and not (tmp_path / "other").exists()
    # A work root with something in it is never mounted over.
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    with sm.OwnTmpfs(tmp_path / "full", "s", True, run) as disk:
        assert not disk.mounted and "not an empty directory" in disk.problems[0]
    assert ran == []


def test_an_unmount_that_fails_is_said(tmp_path, monkeypatch):
    monkeypatch.setattr(sm, "is_own_mount", lambda path, source: True)
    with sm.OwnTmpfs(tmp_path / "tb", "vbench-soak-52-1", True, lambda argv: 32 if argv[0] == "umount" else 0) as d:
        pass
    assert "still mounted (busy)" in d.problems[0]


# --- the soak's own reading of the ledger ----------------------------------------------------------


def test_the_soaks_ledger_reading_agrees_with_what_vbench_writes(tmp_path):
    path = tmp_path / "samples.jsonl"
    vbench_ledger.append_unit(path, [sample(PLANNED[0])], PLANNED[0])
    vbench_ledger.append_unit(path, [interrupted(PLANNED[1])], PLANNED[1], cell_done=False)
    vbench_ledger.append_unit(path, [sample(PLANNED[1]), sample(PLANNED[1], 2.0)], PLANNED[1])
    r = sl.read(path.read_bytes())
    assert r.ok, r.problems
    assert r.done_counts() == {PLANNED[0]: 1, PLANNED[1]: 1}
    assert [len(a.records) for a in r.appends] == [1, 1, 2]
    assert r.whole_bytes == path.stat().st_size


def test_the_soaks_ledger_reading_names_a_torn_tail_a_bad_digest_and_a_miscount():
    torn = GOOD_FINAL + json.dumps(sample(PLANNED[0])).encode()[:20]
    r = sl.read(torn)
    assert not r.ok and "torn" in r.problems[0] and r.whole_bytes == len(GOOD_FINAL)
    assert "sha256" in " ".join(sl.read(GOOD_FINAL.replace(b'"value": 1.0', b'"value": 9.0', 1)).problems)
    lines = GOOD_FINAL.splitlines(keepends=True)
    assert any("records after the last" in p for p in sl.read(b"".join(lines[:-1])).problems)
    assert any("not the ledger marker" in p for p in sl.read(b"".join(lines[1:])).problems)
    assert sl.read(b"").problems == ("the ledger is empty",)


# --- the invariants --------------------------------------------------------------------------------


def test_a_good_trial_passes_every_invariant():
    checks = inv.check_all(evidence())
    assert [c.name for c in checks] == list(inv.NAMES)
    assert all(c.ok for c in checks), [c for c in checks if not c.ok]


def test_a_lost_cell_fails_cells_once():
    final = ledger(done(PLANNED[0]), ([interrupted(PLANNED[1])], PLANNED[1], False), done(PLANNED[2]), done(PLANNED[3]))
    why = failed(evidence(final_ledger=final))
    assert set(why) == {"cells once"} and "lost" in why["cells once"] and PLANNED[1] in why["cells once"]


def test_the_invariants_read_a_crafted_trial_directory(tmp_path):
    """A trial directory as run_trial leaves it: the ledger after the fault, the campaign's now."""
    (tmp_path / soak.AFTER_FAULT).write_bytes(GOOD_FIRST)
    soak.ledger_path(tmp_path).parent.mkdir(parents=True)
    soak.ledger_path(tmp_path).write_bytes(GOOD_FINAL)
    first, final = soak.ledgers_of(tmp_path)
    assert not failed(evidence(first_ledger=first, final_ledger=final))
    lost = b"".join(GOOD_FINAL.splitlines(keepends=True)[:-2])  # the last cell's append gone
    soak.ledger_path(tmp_path).write_bytes(lost)
    first, final = soak.ledgers_of(tmp_path)
    assert set(failed(evidence(first_ledger=first, final_ledger=final))) == {"cells once"}
    assert soak.ledgers_of(tmp_path / "none") == (b"", b"")


def test_a_repeated_cell_fails_cells_once():
    why = failed(evidence(final_ledger=GOOD_FINAL + sl.append_bytes(*done(PLANNED[3]))))
    assert set(why) == {"cells once"} and "repeated" in why["cells once"] and PLANNED[3] in why["cells once"]


def test_a_cell_not_in_the_design_fails_cells_once():
    why = failed(evidence(final_ledger=GOOD_FINAL + sl.append_bytes(*done("b2/native/cpu"))))
    assert "not planned" in why["cells once"]


def test_a_torn_or_forged_final_ledger_fails_ledger_whole():
    assert "ledger whole" in failed(evidence(final_ledger=GOOD_FINAL + b'{"kind": "sample"'))
    forged = GOOD_FINAL.replace(b'"value": 1.0', b'"value": 2.0')
    assert "sha256" in failed(evidence(final_ledger=forged))["ledger whole"]


def test_what_was_committed_before_the_fault_must_start_the_final_ledger():
    rewritten = ledger(([sample(PLANNED[0], 5.0)], PLANNED[0], True)) + GOOD_FINAL.split(b"\n", 3)[3]
    assert "committed kept" in failed(evidence(final_ledger=rewritten))
    # A torn tail of the faulted run is what a resume cuts off: it need not survive.
    ok = failed(evidence(fault="sigkill", first_ledger=GOOD_FIRST + b'{"kind": "sam', stop_s=None))
    assert "committed kept" not in ok


def test_an_interrupted_cell_must_be_recorded_as_interrupted():
    first = ledger(done(PLANNED[0]))  # the running cell left nothing
    final = first + b"".join(sl.append_bytes(*done(c)) for c in PLANNED[1:])
    why = failed(evidence(first_ledger=first, final_ledger=final))
    assert set(why) == {"interrupt recorded"} and PLANNED[1] in why["interrupt recorded"]
    # ...not asked of a kill -9, nor when no cell was running, and met when the cell finished first
    assert not failed(evidence(fault="sigkill", first_ledger=first, final_ledger=final, stop_s=None))
    assert not failed(evidence(first_ledger=first, final_ledger=final, running_at_fault=None))
    assert not failed(evidence(first_ledger=first, final_ledger=final, running_at_fault=PLANNED[0]))


def test_a_graceful_stop_that_tore_the_ledger_fails():
    why = failed(evidence(first_ledger=GOOD_FIRST + b'{"kind": "sam'))
    assert "torn tail" in why["interrupt recorded"]


def test_a_slow_stop_fails_stopped_in_time_and_so_does_none():
    assert "> 45 s" in failed(evidence(stop_s=90.0))["stopped in time"]
    assert "did not exit" in failed(evidence(stop_s=None))["stopped in time"]
    assert not failed(evidence(stop_s=44.9))
    assert not failed(evidence(fault="sigkill", stop_s=None))
    assert not failed(evidence(fault="daemon-kill", stop_s=None, running_at_fault=None))
    assert not failed(evidence(injected=False, stop_s=None))  # the runner had ended: nothing was asked


def test_a_failure_without_a_one_line_reason_fails_failures_explained():
    bad = dict(interrupted(PLANNED[1]), reason="line one\nline two")
    first = ledger(done(PLANNED[0]), ([bad], PLANNED[1], False))
    final = first + b"".join(sl.append_bytes(*done(c)) for c in PLANNED[1:])
    assert "one-line reason" in failed(evidence(first_ledger=first, final_ledger=final))["failures explained"]
    silent = ledger(done(PLANNED[0]), ([], PLANNED[1], False))
    final = silent + b"".join(sl.append_bytes(*done(c)) for c in PLANNED[1:])
    assert (
        "holds no failure"
        in failed(evidence(first_ledger=silent, final_ledger=final, running_at_fault=None))["failures explained"]
    )


def test_a_failure_must_name_daemon_logs_the_campaign_holds(tmp_path):
    # vbench keeps the end of a failed cluster's daemon logs before teardown (failed-logs/<name>/)
    # and the failure record names them; the soak checks they are there.
    rec = dict(interrupted(PLANNED[1]), reason="pi exited 1", metadata={"cell_id": PLANNED[1]})
    rec["metadata"]["failed_logs"] = "failed-logs/pi-1"
    first = ledger(done(PLANNED[0]), ([rec], PLANNED[1], False))
    final = first + b"".join(sl.append_bytes(*done(c)) for c in PLANNED[1:])
    base = dict(first_ledger=first, final_ledger=final, running_at_fault=None)
    assert not failed(evidence(**base, kept_logs=("failed-logs/pi-1",)))
    assert not failed(evidence(**base))  # not looked at
    why = failed(evidence(**base, kept_logs=()))["failures explained"]
    assert "names daemon logs at 'failed-logs/pi-1', which the campaign does not hold" in why
    camp = tmp_path / "camp"
    (camp / "failed-logs" / "pi-1" / "master").mkdir(parents=True)
    (camp / "failed-logs" / "pi-1" / "master" / "namenode.log").write_text("Safe mode is ON\n")
    (camp / "failed-logs" / "empty" / "master").mkdir(parents=True)  # nothing copied: not held
    assert inv.kept_logs_in(camp) == ("failed-logs/pi-1",)
    assert inv.kept_logs_in(tmp_path / "none") == ()


def test_a_failure_is_explained_only_between_the_fault_and_the_resume():
    # Seed 52's disk-full trials: every Pi failed on a tmpfs Hadoop 3.4 would not write to, fault
    # or not, and a trial whose fault never struck passed with two failed cells.
    pi_failed = dict(interrupted(PLANNED[1]), reason="pi exited 255", metadata={"cell_id": PLANNED[1]})
    at_fault = ledger(done(PLANNED[0]))
    first = ledger(done(PLANNED[0]), ([pi_failed], PLANNED[1], False))
    final = first + b"".join(sl.append_bytes(*done(c)) for c in PLANNED[1:])
    base = dict(fault="disk-full", stop_s=None, first_ledger=first, final_ledger=final, running_at_fault=PLANNED[1])
    # Appended after the fault, in the faulted run: the fault's.
    assert not failed(evidence(**base, at_fault=at_fault))
    # The same failure already there when the fault struck: not the fault's.
    why = failed(evidence(**base, at_fault=first))["failures explained"]
    assert "b0/native/pi failed (append of line 4), appended before the fault struck: pi exited 255" in why
    # A fault that never struck explains nothing.
    why = failed(evidence(**{**base, "injected": False}, at_fault=b""))["failures explained"]
    assert "the fault never struck" in why
    # The resume runs after the fault was undone: its failures are its own.
    resumed = first + sl.append_bytes([dict(pi_failed, metadata={"cell_id": PLANNED[3]})], PLANNED[3], False)
    why = failed(evidence(**{**base, "final_ledger": resumed}, at_fault=at_fault))["failures explained"]
    assert "b1/native/pi failed" in why and "appended by the resume" in why
    # Not recorded (a trial directory from before the field): timing is not judged.
    assert not failed(evidence(**{**base, "injected": False}))


def test_after_a_fault_the_runner_survives_the_cell_it_hit_is_recorded_done_or_failed():
    first = ledger(done(PLANNED[0]))
    final = first + b"".join(sl.append_bytes(*done(c)) for c in PLANNED[1:])
    for fault in ("link-drop", "disk-full", "daemon-kill", "host-kill"):
        base = dict(fault=fault, stop_s=None, first_ledger=first, final_ledger=final, running_at_fault=PLANNED[1])
        why = failed(evidence(**base))
        assert set(why) == {"cell recorded"} and PLANNED[1] in why["cell recorded"]
        failure = dict(interrupted(PLANNED[1]), reason="job failed: connection timed out", metadata={})
        ok_first = ledger(done(PLANNED[0]), ([failure], PLANNED[1], False))
        ok_final = ok_first + b"".join(sl.append_bytes(*done(c)) for c in PLANNED[1:])
        assert not failed(evidence(**{**base, "first_ledger": ok_first, "final_ledger": ok_final}))
        assert not failed(evidence(**{**base, "first_ledger": ledger(done(PLANNED[0]), done(PLANNED[1]))}))
        assert not failed(evidence(**{**base, "running_at_fault": None}))
        hang = failed(evidence(**{**base, "running_at_fault": None, "first_exited": False}))
        assert "did not end by itself" in hang["cell recorded"]
    # Not asked where the fault stops the runner, nor when it did not strike.
    assert not failed(evidence(fault="reboot", stop_s=None, first_ledger=first, final_ledger=final))
    assert not failed(evidence(fault="link-drop", injected=False, first_ledger=first, final_ledger=final))


def test_what_an_injector_could_not_do_or_undo_fails_fault_as_planned():
    why = failed(evidence(fault="link-drop", stop_s=None, fault_problems=("`ip link set dev sk0001h1 up` exited 1",)))
    assert set(why) == {"fault as planned"} and "sk0001h1" in why["fault as planned"]


def test_a_resume_that_did_not_end_well_fails_resumed():
    assert "exited 1" in failed(evidence(resume_rc=1))["resumed"]
    assert "exited None" in failed(evidence(resume_rc=None))["resumed"]


# --- leftovers -----------------------------------------------------------------------------------

STATE = {
    "testbed": "sk0001",
    "bridge": "sk0001br",
    "root": "/soak/trial-001/tb/sk0001",
    "dirs": ["/soak/trial-001/tb/sk0001"],
    "links": ["sk0001br", "sk0001h0", "sk0001h1"],
    "netns": ["sk0001-ctl", "sk0001-master"],
    "pids": [{"pid": 300, "start": 9000, "boot": "b1"}, 301],
}


def clean_machine(**kw) -> inv.MachineView:
    doc = dict(netns=frozenset({"other"}), links=frozenset({"eth0", "vbbr0"}), paths=frozenset(), cgroups=frozenset())
    return inv.MachineView(**{**doc, "boot": "b1", **kw})


def test_the_state_file_is_read_as_vbench_wrote_it():
    rec = inv.recorded_from_state(STATE, "vbench-sk0001")
    assert rec.netns == {"sk0001-ctl", "sk0001-master"}
    assert rec.links == {"sk0001br", "sk0001h0", "sk0001h1"}
    assert rec.dirs == {"/soak/trial-001/tb/sk0001"}
    assert rec.cgroups == {"vbench-sk0001"}
    assert rec.processes == {inv.ProcessRecord(300, 9000, "b1", "testbed process")}  # a bare pid is no record


def test_nothing_left_passes_on_a_clean_machine_and_names_each_leftover():
    rec = inv.recorded_from_state(STATE, "vbench-sk0001")
    assert inv.leftovers(rec, clean_machine()) == []
    left = inv.leftovers(
        rec,
        clean_machine(
            netns=frozenset({"sk0001-master"}),
            links=frozenset({"sk0001br"}),
            paths=frozenset({"/soak/trial-001/tb/sk0001"}),
            cgroups=frozenset({"vbench-sk0001"}),
            running={300: 9000},
        ),
    )
    assert left == [
        "network namespace sk0001-master",
        "link sk0001br",
        "directory /soak/trial-001/tb/sk0001",
        "cgroup vbench-sk0001",
        "process 300 (testbed process)",
    ]
    why = failed(evidence(leftovers=tuple(left[:1])))
    assert set(why) == {"nothing left"} and "sk0001-master" in why["nothing left"]


def test_a_process_naming_the_trials_work_root_is_a_leftover_though_no_state_lists_it():
    root = "/soak/trial-001/tb/"
    cmdlines = {
        7: f"java -Dyarn.app.container.log.dir={root}sk0001/hosts/worker1/work/logs/userlogs/c1 YarnChild",
        8: "java -Dhadoop.log.dir=/soak/trial-0010/tb/sk0010/x",  # another trial's (and so not this one's)
        9: "vim /soak/notes",
        10: f"python3 selfbench/soak.py --out {root}",  # the soak itself
    }
    strays = sm.naming(root, cmdlines, frozenset({10}))
    assert strays == (f"7 ({cmdlines[7][:100]})",)
    rec = inv.recorded_from_state(STATE, "vbench-sk0001")
    assert inv.leftovers(rec, clean_machine(strays=strays)) == [f"process {strays[0]}"]


def test_a_recorded_pid_now_someone_elses_is_no_leftover():
    rec = inv.recorded_from_state(STATE, "vbench-sk0001")
    assert inv.leftovers(rec, clean_machine(running={300: 9999})) == []  # another start time
    assert inv.leftovers(rec, clean_machine(running={300: 9000}, boot="b2")) == []  # another boot


def test_records_merge_over_a_trial():
    a = inv.recorded_from_state(STATE, "vbench-sk0001")
    b = inv.recorded_from_state({"netns": ["sk0001-worker1"], "dirs": []}, "vbench-sk0001")
    assert a.merged(b).netns == {"sk0001-ctl", "sk0001-master", "sk0001-worker1"}


# --- the runner's log ----------------------------------------------------------------------------


def test_the_running_cell_is_the_one_started_and_not_finished():
    log = "\n".join(
        [
            "15:00:01 campaign soak: 4 cells, 0 already done, 4 to run",
            "[0/4 cells, 0s elapsed, ETA 2m] running b0/native/cpu",
            "15:00:05 b0/native/cpu: ok",
            "[1/4] b0/native/cpu: ok (3s)",
            "[1/4 cells, 40s elapsed, ETA 1m] running b0/native/pi",
        ]
    )
    assert inv.running_cell(log) == "b0/native/pi"
    assert inv.running_cell(log + "\n[2/4] b0/native/pi: FAILED: job failed (20s)") is None
    assert inv.running_cell("") is None


# --- the report and the command ------------------------------------------------------------------


def result(index: int, fault: str, checks=None, **kw):
    doc = dict(
        index=index,
        seed=52,
        fault=fault,
        moment="1.0 s after the start",
        injected=True,
        hit="x",
        fault_at_s=1.0,
        running_at_fault=None,
        stop_s=10.0,
        first_rc=130,
        resume_rc=0,
        to_resumed_s=100.0,
        lost=0,
        repeated=0,
        leftovers=(),
        cleanup="",
        checks=checks or tuple(inv.Check(n, True) for n in inv.NAMES),
        seconds=200.0,
    )
    return soak.TrialResult(**{**doc, **kw})


def test_the_report_counts_per_fault_kind_and_names_each_failed_invariant():
    bad = tuple(inv.Check(n, n != "nothing left", "link sk0002br" if n == "nothing left" else "") for n in inv.NAMES)
    rs = [
        result(1, "sigint"),
        result(2, "sigint", checks=bad, leftovers=("link sk0002br",)),
        result(3, "sigkill", lost=1, stop_s=None),
    ]
    rows = {k.fault: k for k in soak.kind_rows(rs)}
    assert rows["sigint"].trials == 2 and rows["sigint"].passed == 1 and rows["sigint"].leftovers == 1
    assert rows["sigkill"].lost == 1 and rows["sigkill"].completed == 0 and rows["sigkill"].median_stop_s is None
    text = soak.markdown(rs)
    assert text.startswith("# vbench fault-injection soak")
    assert "3 trials (seed 52): 2 passed every invariant, 1 failed" in text
    assert "FAILED: nothing left: link sk0002br" in text and "`--seed 52 --replay 2`" in text
    assert soak.markdown(rs, loaded=True, load1=2.5).startswith("# LOADED machine (load average 2.50")
    doc = soak.report_json(rs)
    assert [t["passed"] for t in doc["trials"]] == [True, False, True]


def test_a_trial_result_survives_its_json(tmp_path):
    r = result(4, "host-kill", leftovers=("network namespace sk0004-worker1",))
    d = tmp_path / "trial-004"
    d.mkdir()
    (d / soak.TRIAL_FILE).write_text(json.dumps(asdict(r)))
    assert soak.read_results(tmp_path) == [r]


def test_a_trial_result_written_before_fault_problems_existed_still_reads(tmp_path):
    r = result(5, "sigkill")
    doc = asdict(r)
    del doc["fault_problems"]
    d = tmp_path / "trial-005"
    d.mkdir()
    (d / soak.TRIAL_FILE).write_text(json.dumps(doc))
    assert soak.read_results(tmp_path) == [r]


def test_plan_prints_the_new_fault_kinds(capsys):
    assert soak.main(["--plan", "--trials", str(len(FAULTS)), "--seed", "52", "--no-check-machine"]) == 0
    out = capsys.readouterr().out
    for name in ("link-drop", "reboot", "disk-full", "task-oom"):
        assert any(line.startswith("trial ") and f" {name} " in line for line in out.splitlines()), name
    assert ", down " in out


def test_each_trial_has_a_testbed_of_its_own():
    a, b = soak.testbed_doc(1, Path("/x/tb"))["testbed"], soak.testbed_doc(2, Path("/y/tb"))["testbed"]
    assert a["name"] == "sk0001" and len(a["name"]) <= 6 and a["network"]["bridge"] == "sk0001br"
    assert a["network"]["subnet"] != b["network"]["subnet"] and a["work_root"] == "/x/tb"
    argv = soak.campaign_argv(Path("/p"), Path("/d"))
    assert argv[1:5] == ["-m", "vbench.cli", "campaign", "run"] and argv[-4:] == ["--params-dir", "/p", "--data", "/d"]


def test_the_soak_design_is_small_native_and_has_two_blocks():
    exp, cells = soak.load_design()
    assert exp.platforms == ("native",) and exp.workers == 1 and exp.repetitions == 2
    assert len(cells) == 4 and exp.job_timeout_s


def test_plan_prints_every_trial_and_a_total_and_runs_nothing(capsys):
    assert soak.main(["--plan", "--trials", "6", "--seed", "9", "--no-check-machine"]) == 0
    out = capsys.readouterr().out
    assert sum(line.startswith("trial ") for line in out.splitlines()) == 6
    assert "design soak" in out and "6 trials" in out and "estimated total" in out
    assert soak.main(["--plan", "--replay", "4", "--seed", "9", "--no-check-machine"]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("trial ")] == [trial(9, 4, 4, _campaign_s()).line()]


def _campaign_s() -> float:
    exp, _ = soak.load_design()
    return soak.estimate(exp, soak.SOAK_COSTS).seconds


def test_first_starts_the_schedule_at_a_later_trial_and_is_checked(capsys):
    assert soak.main(["--plan", "--trials", "6", "--first", "5", "--seed", "9", "--no-check-machine"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("trial ")]
    assert lines == [trial(9, i, 4, _campaign_s()).line() for i in (5, 6)]
    with pytest.raises(SystemExit):
        soak.main(["--plan", "--trials", "6", "--first", "7", "--no-check-machine"])
    assert "--first 7 is past" in capsys.readouterr().err


# --- a task OOM-killed by a memory limit -----------------------------------------------------------

NM = "java -Dhadoop.log.dir=/soak/trial-001/tb/sk0001/hosts/worker1/work/logs NodeManager"
CHILD = "java -Xmx820m -Dyarn.app.container.log.dir=/x org.apache.hadoop.mapred.YarnChild 10.0.0.1 4 att 2"
PROCS = {
    1: (0, "init"),
    500: (1, NM),  # the recorded NodeManager
    501: (500, "bash default_container_executor.sh"),
    502: (501, "bash launch_container.sh"),
    503: (502, CHILD),  # its task JVM
    504: (502, "java org.apache.hadoop.mapreduce.v2.app.MRAppMaster"),  # its AM: no task
    600: (1, NM.replace("sk0001", "sk0002")),  # another cluster's NodeManager (not recorded)
    601: (600, CHILD),
    700: (1, CHILD),  # an orphan YarnChild: its chain reaches no recorded NodeManager
    800: (801, CHILD),  # a parent loop
    801: (800, "bash"),
    900: (999, CHILD),  # its parent is gone from the table
    505: (502, f'/bin/bash -c "{CHILD} 1>stdout 2>stderr"'),  # a shell launching one: not a JVM
    506: (505, CHILD.replace("java", "/usr/lib/jvm/java-11/bin/java", 1)),
    507: (502, CHILD.replace("YarnChild", "YarnChildFoo")),  # another class
}


def test_the_task_finder_takes_only_yarnchilds_descended_from_a_recorded_nodemanager():
    ours = [sm.TaskProcess("worker1", 503), sm.TaskProcess("worker1", 506)]
    assert sm.task_jvms(PROCS, {500: "worker1"}) == ours
    assert sm.task_jvms(PROCS, {500: "worker1", 600: "worker2"}) == ours + [sm.TaskProcess("worker2", 601)]
    assert sm.task_jvms(PROCS, {}) == []
    direct = {500: (1, NM), 510: (500, CHILD)}  # a direct child counts too
    assert sm.task_jvms(direct, {500: "worker1"}) == [sm.TaskProcess("worker1", 510)]


def test_the_parent_pid_is_read_after_the_commands_last_parenthesis_and_zombies_are_none():
    assert sm.parse_ppid("503 (java) S 502 503 501 0 -1") == 502
    assert sm.parse_ppid("77 (a) b (c)) R 12 77 77") == 12
    assert sm.parse_ppid("503 (java) Z 502 503 501") is None
    assert sm.parse_ppid("") is None


def test_the_oom_kill_count_is_read_from_memory_oom_control():
    assert sm.parse_oom_kill("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n") == 2
    assert sm.parse_oom_kill("oom_kill_disable 0\nunder_oom 0\n") is None  # a kernel < 4.13


class Memcg:
    """A fake cgroup v1 memory hierarchy and a task that dies (or not) once moved under a limit."""

    ROOT = Path("/fake/memory")

    def __init__(self, tasks=(sm.TaskProcess("worker1", 503),), dies=True, memsw=True, appear_after=0, **kw):
        self.tasks = list(tasks)
        self.dies, self.memsw = dies, memsw
        self.appear_after = appear_after  # polls before the task shows
        self.polls = 0
        self.now = 0.0
        self.log: list[tuple] = []  # ("mkdir", path), ("write", path, text), ("rmdir", path)
        self.dirs: set[Path] = set()
        self.procs: dict[Path, set[int]] = {}
        self.live = {t.pid for t in self.tasks}
        self.oom_kill = kw.get("oom_kill", 1)
        self.fail_write = kw.get("fail_write", ())  # file names whose write fails
        self.v1 = kw.get("v1", True)
        self.rmdir_ok = kw.get("rmdir_ok", True)

    def find(self, _root):
        self.polls += 1
        return [t for t in self.tasks if t.pid in self.live] if self.polls > self.appear_after else []

    def sleep(self, s):
        self.now += s
        moved = self.procs.get(self.ROOT / "vbench-soak-52-1-oom", set())
        if self.dies and moved:
            self.live -= moved
            moved.clear()

    def write(self, path: Path, text: str):
        self.log.append(("write", path, text))
        if path.name in self.fail_write:
            raise OSError(errno.EINVAL, "Invalid argument")
        if path.name == "cgroup.procs":
            for procs in self.procs.values():
                procs.discard(int(text))
            self.procs.setdefault(path.parent, set()).add(int(text))

    def read(self, path: Path) -> str:
        if path.name == "memory.oom_control":
            return f"oom_kill_disable 0\nunder_oom 0\noom_kill {self.oom_kill}\n"
        if path.name == "cgroup.procs":
            return "".join(f"{p}\n" for p in self.procs.get(path.parent, ()))
        return ""

    def exists(self, path: Path) -> bool:
        if path == self.ROOT / "memory.limit_in_bytes":
            return self.v1
        return path.name == "memory.memsw.limit_in_bytes" and self.memsw and path.parent in self.dirs

    def mkdir(self, path: Path):
        if path in self.dirs:
            raise FileExistsError(errno.EEXIST, "File exists")
        self.log.append(("mkdir", path))
        self.dirs.add(path)

    def rmdir(self, path: Path) -> bool:
        self.log.append(("rmdir", path))
        if self.procs.get(path) or not self.rmdir_ok:
            return False
        self.dirs.discard(path)
        return True

    def target(self) -> sm.Target:
        return sm.Target(
            runner_pid=4242,
            work_root=Path("/soak/trial-001/tb"),
            runner_alive=lambda: True,
            kill=lambda pid, sig: self.log.append(("kill", pid, sig)),
            sleep=self.sleep,
            start_time=lambda pid: 7000 + pid if pid in self.live else None,
            rmdir=self.rmdir,
            find_tasks=self.find,
            memory_root=self.ROOT,
            memory_cgroup_of=lambda pid: "/vbench-sk0001/worker1" if pid in self.live else None,
            mkdir=self.mkdir,
            exists=self.exists,
            write=self.write,
            read=self.read,
            same_process=lambda pid, start: start is not None and pid in self.live and start == 7000 + pid,
            clock=lambda: self.now,
        )


OOM_CG = Memcg.ROOT / "vbench-soak-52-1-oom"


def test_a_task_oom_sets_the_limit_before_it_moves_exactly_that_task_then_removes_its_cgroup():
    mc = Memcg(tasks=[sm.TaskProcess("worker1", 503), sm.TaskProcess("worker1", 505)])
    got = sm.inject(_trial("task-oom", pick=0.0), mc.target())
    assert got.struck and got.pids == (503,) and not got.problems
    assert "YarnChild of worker1 (pid 503) OOM-killed by a 16 MiB memory limit (oom_kill 1" in got.what
    limit = str(16 << 20)
    writes = [e for e in mc.log if e[0] == "write"]
    assert mc.log[0] == ("mkdir", OOM_CG)
    assert writes == [
        ("write", OOM_CG / "memory.limit_in_bytes", limit),
        ("write", OOM_CG / "memory.memsw.limit_in_bytes", limit),
        ("write", OOM_CG / "cgroup.procs", "503"),  # after both limits, and only 503
    ]
    assert mc.log[-1] == ("rmdir", OOM_CG) and OOM_CG not in mc.dirs
    assert 505 in mc.live and not any(e[0] == "kill" for e in mc.log)  # nothing signalled by the soak
    assert sm.oom_cgroup(_trial("task-oom")) == "vbench-soak-52-1-oom"


def test_a_task_that_survives_the_limit_is_moved_back_where_it_was_and_the_fault_did_not_strike():
    mc = Memcg(dies=False, memsw=False, oom_kill=0)
    got = sm.inject(_trial("task-oom"), mc.target())
    assert not got.struck and not got.problems and "the fault did not strike" in got.what
    assert "moved back to /vbench-sk0001/worker1" in got.what
    writes = [e[1:] for e in mc.log if e[0] == "write"]
    assert writes == [
        (OOM_CG / "memory.limit_in_bytes", str(16 << 20)),  # no memsw file: not written
        (OOM_CG / "cgroup.procs", "503"),
        (Memcg.ROOT / "vbench-sk0001" / "worker1" / "cgroup.procs", "503"),
    ]
    assert mc.log[-1] == ("rmdir", OOM_CG) and OOM_CG not in mc.dirs
    assert mc.now >= sm.OOM_WAIT_S


def test_a_task_that_ended_under_the_limit_without_an_oom_kill_is_not_counted_as_struck():
    mc = Memcg(oom_kill=0)
    got = sm.inject(_trial("task-oom"), mc.target())
    assert not got.struck and "not an OOM kill" in got.what and mc.log[-1] == ("rmdir", OOM_CG)


def test_what_a_task_oom_could_not_undo_is_a_problem_for_fault_as_planned():
    mc = Memcg(rmdir_ok=False)
    got = sm.inject(_trial("task-oom"), mc.target())
    assert got.struck and got.problems == (f"the soak's memory cgroup {OOM_CG} could not be removed",)
    mc = Memcg(dies=False)
    back = Memcg.ROOT / "vbench-sk0001" / "worker1" / "cgroup.procs"
    orig = mc.write
    mc.write = lambda path, text: (
        (_ for _ in ()).throw(OSError(errno.EACCES, "denied")) if path == back else orig(path, text)
    )
    got = sm.inject(_trial("task-oom"), mc.target())
    assert not got.struck and "left in the soak's cgroup" in got.what
    assert "could not be moved back to memory cgroup /vbench-sk0001/worker1" in got.problems[0]
    assert f"{OOM_CG} could not be removed" in got.problems[1]  # it still holds the task
    why = failed(evidence(fault="task-oom", stop_s=None, injected=got.struck, fault_problems=got.problems))
    assert set(why) == {"fault as planned"}


def test_a_task_oom_waits_for_a_task_jvm_and_strikes_nothing_without_one():
    mc = Memcg(appear_after=30)
    got = sm.inject(_trial("task-oom"), mc.target())
    assert got.struck and mc.polls > 30  # polled every TASK_POLL_S until the task showed
    mc = Memcg(tasks=())
    got = sm.inject(_trial("task-oom"), mc.target())
    assert not got.struck and "no task JVM (YarnChild) of a recorded NodeManager within 120 s" in got.what
    assert mc.log == [] and mc.now >= sm.TASK_WAIT_S
    mc = Memcg(v1=False)
    got = sm.inject(_trial("task-oom"), mc.target())
    assert not got.struck and "no cgroup v1 memory hierarchy" in got.what and mc.log == [] and mc.polls == 0


def test_a_limit_that_cannot_be_set_moves_nothing_and_removes_the_cgroup():
    mc = Memcg(fail_write=("memory.limit_in_bytes",))
    got = sm.inject(_trial("task-oom"), mc.target())
    assert not got.struck and "could not be set" in got.what and not got.problems
    assert not any(e[0] == "write" and e[1].name == "cgroup.procs" for e in mc.log)
    assert mc.log[-1] == ("rmdir", OOM_CG)


def test_the_task_oom_kind_strikes_when_a_jobs_tasks_run():
    t = next(t for t in schedule(52, 30, 4, 150.0) if t.fault.name == "task-oom")
    assert t.moment.marker == "task" and 0 <= t.moment.delay_s <= 1.0
    obs = Observation(elapsed_s=1.0, commits=0, testbeds=1, daemons=5, task_containers=0)
    assert not marker_reached(Moment("task", 0, 0.0), obs, 4)
    assert marker_reached(Moment("task", 0, 0.0), replace(obs, task_containers=1), 4)
    assert all("task" not in f.markers for f in FAULTS if f.name != "task-oom")


# --- daemon kills aimed at every kind in turn ------------------------------------------------------


def test_the_kth_daemon_kill_of_a_schedule_aims_at_kind_k_mod_5():
    assert DAEMON_KINDS == ("namenode", "datanode", "resourcemanager", "nodemanager", "historyserver")
    assert set(DAEMON_KINDS) == sm.DAEMON_NAMES
    for seed in (52, 53, 7):
        kills = [t for t in schedule(seed, len(FAULTS) * 12, 4, 150.0) if t.fault.name == "daemon-kill"]
        assert [t.aim for t in kills] == [DAEMON_KINDS[k % 5] for k in range(len(kills))]
        assert [occurrence(seed, t.index) for t in kills] == list(range(len(kills)))
        assert {t.aim for t in kills[:5]} == set(DAEMON_KINDS)  # every kind within 5 kills
    others = [t for t in schedule(52, 30, 4, 150.0) if t.fault.name != "daemon-kill"]
    assert others and all(t.aim == "" and aimed_daemon(52, t.index) == "" for t in others)
    t = next(t for t in schedule(52, 30, 4, 150.0) if t.fault.name == "daemon-kill")
    assert t.line().endswith(f", aims at {t.aim}")


def test_a_daemon_kill_hits_the_aimed_kind_or_falls_back_and_says_so():
    ds = [
        sm.DaemonProcess("master", "namenode", 11),
        sm.DaemonProcess("worker1", "datanode", 12),
        sm.DaemonProcess("worker1", "nodemanager", 13),
    ]
    f = Fakes(daemons=ds)
    got = sm.inject(replace(_trial("daemon-kill", pick=0.0), aim="nodemanager"), f.target())
    assert got.struck and f.sent == [("kill", 13, signal.SIGKILL)] and "fell back" not in got.what
    f = Fakes(daemons=ds)
    got = sm.inject(replace(_trial("daemon-kill", pick=0.9), aim="historyserver"), f.target())
    assert got.struck and f.sent == [("kill", 13, signal.SIGKILL)]  # any present, by the pick
    assert got.what.endswith("aimed at historyserver, none running: fell back to a daemon present")
    f = Fakes()
    got = sm.inject(replace(_trial("daemon-kill"), aim="datanode"), f.target())
    assert not got.struck and "aimed at datanode" in got.what and f.sent == []


# --- --kinds -------------------------------------------------------------------------------------


def test_a_schedule_over_some_kinds_shuffles_only_those_and_their_order_changes_nothing():
    sub = kinds_named(["task-oom", "daemon-kill"])
    assert (
        sub == kinds_named(["daemon-kill", "task-oom"]) == (FAULTS_BY_NAME["daemon-kill"], FAULTS_BY_NAME["task-oom"])
    )
    ts = schedule(53, 10, 4, 150.0, sub)
    assert [t.fault for t in ts] == [f for c in range(5) for f in kind_order(53, c, sub)]
    kills = [t for t in ts if t.fault.name == "daemon-kill"]
    assert [t.aim for t in kills] == list(DAEMON_KINDS)  # 5 kills over 10 trials: every kind once
    assert trial(53, 4, 4, 150.0, sub) == ts[3]
    with pytest.raises(ValueError, match="unknown fault kind.*oom.*known: sigkill"):
        kinds_named(["oom"])


def test_the_kinds_option_restricts_the_plan_and_refuses_an_unknown_kind(capsys):
    argv = ["--plan", "--kinds", "task-oom,daemon-kill", "--trials", "10", "--seed", "53", "--no-check-machine"]
    assert soak.main(argv) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("trial ")]
    sub = kinds_named(["task-oom", "daemon-kill"])
    assert lines == [t.line() for t in schedule(53, 10, 4, _campaign_s(), sub)]
    assert {line.split()[4] for line in lines} == {"task-oom", "daemon-kill"}
    with pytest.raises(SystemExit):
        soak.main(["--plan", "--kinds", "task-oom,bogus", "--no-check-machine"])
    err = capsys.readouterr().err
    assert "--kinds: unknown fault kind(s) bogus; known: sigkill, sigterm" in err and "task-oom" in err


def test_a_trial_of_a_restricted_schedule_replays_with_its_kinds():
    r = result(3, "task-oom", kinds=("daemon-kill", "task-oom"))
    assert r.replay_args() == "--seed 52 --kinds daemon-kill,task-oom --replay 3"
    assert "`--seed 52 --kinds daemon-kill,task-oom --replay 3`" in soak.markdown([r])
    assert result(3, "sigkill").replay_args() == "--seed 52 --replay 3"
    assert soak.kinds_given(FAULTS) == () and soak.kinds_given(kinds_named(["task-oom"])) == ("task-oom",)


# --- the soak's canaries (nothing vbench did not create touched) ----------------------------------


class CanaryMachine:
    """A fake machine for the canaries: links (name -> ifindex), live processes (pid -> start
    time), files (path -> text); what was run, killed and reaped."""

    def __init__(self):
        self.links: dict[str, int] = {}
        self.procs: dict[int, int] = {}
        self.files: dict[str, str] = {}
        self.ran: list[list[str]] = []
        self.killed: list[tuple[int, int]] = []
        self.reaped: list[int] = []
        self.removed: list[str] = []
        self.rc: dict[str, int] = {}  # an ip verb -> the exit status it gives (0 and done otherwise)
        self.unremovable: set[str] = set()
        self.next_index = 40

    def run(self, argv: list[str]) -> int:
        self.ran.append(argv)
        verb, name = argv[2], argv[3]
        if self.rc.get(verb):
            return self.rc[verb]
        if verb == "add":
            self.next_index += 1
            self.links[name] = self.next_index
        elif verb == "delete":
            self.links.pop(name, None)
        return 0

    def spawn(self) -> int:
        self.procs[777] = 5555
        return 777

    def make_file(self, path: Path, text: str) -> None:
        self.files[str(path)] = text

    def remove_dir(self, path: Path) -> None:
        if str(path) in self.unremovable:
            raise OSError(errno.EBUSY, "Device or resource busy")
        self.removed.append(str(path))
        for p in [p for p in self.files if p.startswith(str(path) + "/")]:
            del self.files[p]

    def hands(self) -> sm.CanaryHands:
        return sm.CanaryHands(
            run=self.run,
            link_index=self.links.get,
            spawn=self.spawn,
            start_time=self.procs.get,
            same_process=lambda pid, start: start is not None and self.procs.get(pid) == start,
            kill=lambda pid, sig: (self.killed.append((pid, sig)), self.procs.pop(pid, None)),
            reap=self.reaped.append,
            make_file=self.make_file,
            read_file=lambda path: self.files.get(str(path)),
            remove_dir=self.remove_dir,
        )


TDIR = Path("/soak/trial-001")
CANARY_FILES = ("/soak/trial-001/canary/keep.txt", "/soak/trial-001/tb/sk0001cy/keep.txt")


def planted(machine: CanaryMachine) -> sm.Canaries:
    c = sm.Canaries("sk0001", TDIR, TDIR / "tb", machine.hands())
    c.plant()
    return c


def test_the_canaries_are_a_bridge_a_sleep_and_two_files_of_the_soaks_own_then_removed():
    machine = CanaryMachine()
    c = planted(machine)
    assert machine.ran == [["ip", "link", "add", "sk0001cy", "type", "bridge"]]
    assert len("sk0001cy") <= 15 and not c.problems
    assert c.record.bridge == "sk0001cy" and c.record.ifindex == 41
    assert (c.record.pid, c.record.start) == (777, 5555)
    assert [p for p, _ in c.record.files] == list(CANARY_FILES)
    assert all("sk0001" in text for _, text in c.record.files)
    assert c.harms() == ()
    c.remove()
    assert machine.ran[-1] == ["ip", "link", "delete", "sk0001cy", "type", "bridge"]
    assert machine.killed == [(777, signal.SIGKILL)] and machine.reaped == [777]
    assert machine.removed == ["/soak/trial-001/canary", "/soak/trial-001/tb/sk0001cy"]
    assert not machine.links and not machine.procs and not machine.files and not c.problems
    c.remove()  # once only (the with block's exit after run_trial's own remove)
    assert len(machine.ran) == 2


def test_a_harmed_canary_is_named_and_fails_canaries_kept():
    machine = CanaryMachine()
    c = planted(machine)
    machine.links["sk0001cy"] = 99  # deleted and made anew
    del machine.procs[777]  # killed
    machine.files[CANARY_FILES[0]] = "x"
    del machine.files[CANARY_FILES[1]]
    harmed = c.harms()
    assert harmed == (
        "bridge sk0001cy deleted and made anew (ifindex 41 -> 99)",
        "process 777 (the soak's sleep) killed",
        f"file {CANARY_FILES[0]} changed",
        f"file {CANARY_FILES[1]} gone",
    )
    del machine.links["sk0001cy"]
    assert c.harms()[0] == "bridge sk0001cy deleted"
    why = failed(evidence(canaries_harmed=harmed[1:2]))
    assert set(why) == {"canaries kept"} and "process 777" in why["canaries kept"]
    assert not failed(evidence(canaries_harmed=()))
    assert not failed(evidence(canaries_harmed=None))  # none planted (what could not be is a fault problem)
    # Removal touches only what is still the canary planted: not the new bridge, not the pid.
    machine.links["sk0001cy"] = 99
    c.remove()
    assert ["ip", "link", "delete", "sk0001cy", "type", "bridge"] not in machine.ran
    assert machine.killed == [] and machine.reaped == [777]


def test_what_the_soak_could_not_plant_or_remove_is_said_and_nothing_not_its_own_is_removed():
    machine = CanaryMachine()
    machine.links["sk0001cy"] = 7  # someone's, or left by a soak killed mid-trial
    c = planted(machine)
    assert machine.ran == [] and c.record.bridge == ""
    assert c.problems == ["canary bridge sk0001cy exists already (not the soak's to plant or remove)"]
    c.remove()
    assert machine.links == {"sk0001cy": 7}
    machine = CanaryMachine()
    c = planted(machine)
    machine.rc["delete"] = 2
    machine.unremovable.add("/soak/trial-001/canary")
    c.remove()
    assert c.problems == [
        "canary bridge: `ip link delete sk0001cy type bridge` exited 2: sk0001cy still there",
        "canary directory /soak/trial-001/canary could not be removed: Device or resource busy",
    ]
    machine = CanaryMachine()
    machine.rc["add"] = 1
    c = planted(machine)
    assert c.problems == ["canary bridge: `ip link add sk0001cy type bridge` exited 1"] and c.record.bridge == ""


def test_nothing_left_does_not_count_the_soaks_canaries_but_still_counts_vbenchs():
    rec = inv.recorded_from_state(STATE, "vbench-sk0001")
    canaries = inv.CanaryRecord("sk0001cy", 41, 777, 5555, tuple((p, "t") for p in CANARY_FILES))
    machine = clean_machine(
        links=frozenset({"sk0001cy", "sk0001br"}),
        paths=frozenset({"/soak/trial-001/canary", "/soak/trial-001/tb/sk0001cy"}),
        running={777: 5555},
        strays=("777 (sleep 86400)", "8 (java -Dx=/soak/trial-001/tb/sk0001/x)"),
    )
    assert inv.leftovers(rec, inv.without_canaries(machine, canaries)) == [
        "link sk0001br",
        "process 8 (java -Dx=/soak/trial-001/tb/sk0001/x)",
    ]
    assert "process 777 (sleep 86400)" in inv.leftovers(rec, machine)  # without the exclusion: counted


def test_a_trial_plants_its_canaries_before_the_campaign_and_looks_at_them_after_the_resume(tmp_path, monkeypatch):
    events: list[str] = []
    machine = CanaryMachine()

    class Recording(sm.Canaries):
        def plant(self):
            events.append("plant")
            return super().plant()

        def harms(self):
            events.append("harms")
            return super().harms()

        def remove(self):
            events.append("remove")
            return super().remove()

    class FakeRunner:
        def __init__(self, argv, log):
            events.append(f"campaign {log.name}")
            if log.name == "resume.log":
                machine.procs.pop(777)  # a careless cleanup
            self.proc = type("P", (), {"pid": 123456789, "returncode": 0})()
            self.started = self.ended = 0.0

        def alive(self):
            return False

        def wait(self, deadline, harvest):
            return True

        def stop(self, limit_s):
            pass

        def kill(self):
            pass

        def log_text(self):
            return ""

    monkeypatch.setattr(sm, "Canaries", lambda tb, tdir, wr: Recording(tb, tdir, wr, machine.hands()))
    monkeypatch.setattr(soak, "Runner", FakeRunner)
    monkeypatch.setattr(sm, "recorded_now", lambda work_root: inv.Recorded())
    seen = {}

    def view(rec, work_root):  # the canaries are on the machine while 'nothing left' looks
        seen["bridge"] = "sk0003cy" in machine.links
        return clean_machine(links=frozenset(machine.links), running={777: 5555}, strays=("777 (sleep 86400)",))

    monkeypatch.setattr(sm, "machine_view", view)
    t = replace(trial(52, 3, 4, 150.0), fault=FAULTS_BY_NAME["sigkill"])
    r = soak.run_trial(t, tmp_path / "trial-003", PLANNED, 45.0)
    assert events == ["plant", "campaign run.log", "campaign resume.log", "harms", "remove", "remove"]
    assert seen["bridge"] and r.leftovers == ()
    checks = {c.name: c for c in r.checks}
    assert not checks["canaries kept"].ok and checks["canaries kept"].reason == "process 777 (the soak's sleep) killed"
    assert not machine.links and not machine.files
    row = soak.kind_rows([r])[0]
    assert row.canaries_harmed == 1
    assert "| trials with canaries harmed |" in soak.markdown([r]) and "1 harmed a canary" in soak.markdown([r])


def test_the_report_says_when_no_trial_had_canaries():
    old = result(1, "sigint", checks=tuple(inv.Check(n, True) for n in inv.NAMES if n != "canaries kept"))
    assert soak.kind_rows([old])[0].canaries_harmed is None
    assert "no canary planted" in soak.summary_line([old])
    assert "1 trials run before canaries" in soak.summary_line([old, result(2, "sigint")])

"""Duet runs in the campaign runner (issue #51 item 1): every configuration of a round runs its
Hadoop job at the same moment, on clusters up together, released by one barrier; every record
says its group, partners, CPU sharing and release skew; a failed side fails alone, a broken
configuration is lost as in sequential rounds, an interrupt stops every side and a resume runs
what did not finish, repeating neither side. Testbeds and clusters are the records of
`fake_machine` (tests/conftest.py); the Hadoop job is `Jobs`, which notes when each ran."""

from __future__ import annotations

import _thread
import threading
import time
from collections import Counter

import pytest

from vbench.benchmarks.hadoop.execute import BenchRun
from vbench.campaign import runner
from vbench.campaign.design import DuetParams, design_hash, duet_cpusets, expand, sessions, side_cpuset
from vbench.campaign.hooks import RunHook
from vbench.campaign.pagecache import kept
from vbench.campaign.runner import PartnerLost, done_cells, duet_group, duet_label
from vbench.errors import ParamsError
from vbench.lifecycle import Terminated
from vbench.samples import Failure, Sample
from vbench.store import CampaignStore

from tests.unit.test_campaign_runner import closed_cells, design, records, run
from tests.unit.test_campaign_together import ctrl_c_as_a_terminal_gives_it  # noqa: F401 - autouse here too


SUITE = [{"benchmark": "terasort", "config": {"size_mb": 16}}]


def duet_design(**kw):
    """Three configurations (native, lxc, native~aa), one block of two concurrent rounds, one job:
    groups of three sides (the warm-up runs' group, then one per round)."""
    return design(**{"duet": {"cpus": "shared"}, "aa": True, "repetitions": 1, "suite": SUITE, **kw})


class Jobs:
    """measure_hadoop, faked: each job waits at the duet's start line (`before_first_step`), notes (cell, testbed, start, end) and takes `seconds`
    (in short sleeps, as a job client polls; `slow` by cell id: longer); `faults` by cell id:
    "fail" (the job fails), an exception to raise, or a function called as the job starts."""

    def __init__(self, machine, seconds: float = 0.02):
        self.machine, self.seconds = machine, seconds
        self.ran: list[tuple[str, str, float, float]] = []
        self.started: list[str] = []
        self.faults: dict[str, object] = {}
        self.slow: dict[str, float] = {}

    def __call__(self, cluster, cell, *, before_first_step=None, **_kw):
        assert cluster.testbed in self.machine.clusters, "a job ran on a cluster that is not up"
        if before_first_step is not None:  # a duet's start line, as execute waits there
            before_first_step()
        t0 = time.monotonic()
        self.started.append(cell.cell_id)
        fault = self.faults.get(cell.cell_id)
        if isinstance(fault, BaseException):
            raise fault
        if callable(fault):
            fault()
        while time.monotonic() < t0 + self.slow.get(cell.cell_id, self.seconds):
            time.sleep(0.005)
        self.ran.append((cell.cell_id, cluster.testbed, t0, time.monotonic()))
        name = cell.variant.benchmark
        run_ = BenchRun(name, f"{name}-{len(self.ran)}", {}, hdfs_output_removed=True)
        if fault == "fail":
            run_.failure = Failure(name, "job failed: exit code 1", {}, "", {"step": "sort"})
        else:
            run_.samples = [Sample(name, "time", 1.0 + len(self.ran), "s")]
        return run_, kept()


@pytest.fixture
def jobs(fake_machine, monkeypatch):
    j = Jobs(fake_machine)
    monkeypatch.setattr(runner, "measure_hadoop", j)
    return j


def plan_of(e):
    return [c for s in sessions(e, expand(e)) for c in s.runs]


def hadoop_records(camp):
    return [r for r in records(camp) if r["metadata"]["benchmark_kind"] == "hadoop"]


def suite_cells(e) -> set[str]:
    return {c.cell_id for c in expand(e) if c.variant.kind == "hadoop"}


def test_each_rounds_jobs_run_at_the_same_moment_and_every_record_names_its_duet(tmp_path, fake_machine, jobs):
    jobs.seconds = 0.2
    e = duet_design()
    result = run(e, tmp_path / "c", fake_machine)
    assert result.failures == 0 and not result.stopped
    plan = plan_of(e)
    groups = {duet_label(c) for c in plan if c.variant.kind == "hadoop"}
    assert groups == {"b0/r0/terasort/warmup", "b0/r0/terasort", "b0/r1/terasort"}
    by_group: dict[str, list] = {}
    label_of = {c.cell_id: duet_label(c) for c in plan}
    for cell_id, testbed, t0, t1 in jobs.ran:
        by_group.setdefault(label_of[cell_id], []).append((testbed, t0, t1))
    for label, sides in by_group.items():
        assert sorted(tb for tb, _, _ in sides) == ["vb0", "vb1", "vb2"], label  # one side per cluster
        assert max(t0 for _, t0, _ in sides) < min(t1 for _, _, t1 in sides), f"{label}: the jobs did not overlap"
    # The groups one after the other: a round's jobs start after the previous round's ended.
    spans = sorted((min(t0 for _, t0, _ in s), max(t1 for _, _, t1 in s)) for s in by_group.values())
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))

    recs = hadoop_records(tmp_path / "c")
    assert len(recs) == 3 * 3 and all(r["kind"] == "sample" for r in recs)
    for r in recs:
        md = r["metadata"]
        partners = {c.cell_id for c in plan if duet_label(c) == md["duet_group"]} - {md["cell_id"]}
        assert md["duet_group"] == label_of[md["cell_id"]] and sorted(md["duet_partners"]) == sorted(partners)
        assert len(md["duet_partners"]) == 2 and md["duet_cpus"] == "shared"
        assert isinstance(md["duet_release_skew_s"], float) and 0 <= md["duet_release_skew_s"] < 0.5
    assert not any("duet_group" in r["metadata"] for r in records(tmp_path / "c") if r not in recs)  # calibration
    # Each cell closed once; the clusters were all up together for every job and torn down after.
    closed = [c for c in closed_cells(tmp_path / "c") if not c.endswith("/warmup")]
    assert sorted(closed) == sorted(c.cell_id for c in expand(e)) and len(closed) == len(set(closed))
    assert sorted(result.ran) == sorted(c.cell_id for c in expand(e)) and result.warmups == 3 + 3
    assert not fake_machine.testbeds and not fake_machine.clusters


def test_duet_group_takes_the_rounds_runs_of_one_variant_not_yet_accounted_for():
    e = duet_design(suite=[{"benchmark": "pi"}, *SUITE])
    s = next(s for s in sessions(e, expand(e)))
    first_job = next(p for p, c in enumerate(s.runs) if c.variant.kind == "hadoop" and not c.warms_up)
    group = duet_group(s.runs, first_job, set())
    cells = [s.runs[p] for p in group]
    assert len(group) == 3 and len({c.config.key for c in cells}) == 3
    assert {duet_label(c) for c in cells} == {duet_label(s.runs[first_job])}
    assert duet_group(s.runs, first_job, {group[1]}) == [group[0], group[2]]
    warm = next(p for p, c in enumerate(s.runs) if c.variant.kind == "hadoop" and c.warms_up)
    assert all(s.runs[p].warms_up for p in duet_group(s.runs, warm, set()))


def test_a_side_whose_job_fails_is_recorded_failed_and_its_partners_ok_all_done(tmp_path, fake_machine, jobs):
    e = duet_design()
    jobs.faults["b0/r0/lxc/terasort"] = "fail"
    result = run(e, tmp_path / "c", fake_machine)
    assert result.failures == 1 and not result.stopped
    group = {
        r["metadata"]["cell_id"]: r
        for r in hadoop_records(tmp_path / "c")
        if r["metadata"]["duet_group"] == "b0/r0/terasort"
    }
    assert sorted(group) == ["b0/r0/lxc/terasort", "b0/r0/native/terasort", "b0/r0/native~aa/terasort"]
    assert group["b0/r0/lxc/terasort"]["kind"] == "failure"
    assert group["b0/r0/lxc/terasort"]["reason"] == "job failed: exit code 1"
    assert all(group[c]["kind"] == "sample" for c in group if "lxc" not in c)
    # Every side is done: the failed one too (a job that failed is an outcome, not a lost run).
    assert done_cells(CampaignStore(tmp_path / "c")) >= suite_cells(e)
    closed = [c for c in closed_cells(tmp_path / "c") if not c.endswith("/warmup")]
    assert sorted(closed) == sorted(c.cell_id for c in expand(e))
    # The lxc cluster went on: it ran round 1 with its partners.
    assert {c for c, tb, _, _ in jobs.ran if c.startswith("b0/r1/")} == {
        "b0/r1/lxc/terasort",
        "b0/r1/native/terasort",
        "b0/r1/native~aa/terasort",
    }


def test_a_side_whose_configuration_breaks_is_lost_as_in_sequential_rounds_and_the_others_go_on(
    tmp_path, fake_machine, jobs
):
    e = duet_design()
    jobs.faults["b0/r0/lxc/terasort"] = RuntimeError("worker1 unreachable")
    log: list[str] = []
    result = run(e, tmp_path / "c", fake_machine, log)
    failed = sorted(
        r["metadata"]["cell_id"] for r in records(tmp_path / "c") if r["metadata"].get("configuration_failed")
    )
    assert failed == ["b0/r0/lxc/terasort", "b0/r1/lxc/terasort"]  # the broken run and lxc's run after it
    assert result.failures == 2 and not result.stopped
    assert any("configuration b0/lxc failed: worker1 unreachable" in line for line in log)
    # lxc torn down at once; round 1 ran its two other sides together.
    down = fake_machine.events.index(("close", "vb1"))
    assert fake_machine.events.index(("cluster down", "vb1")) < down
    r1 = [
        r["metadata"]
        for r in hadoop_records(tmp_path / "c")
        if r["metadata"]["cell_id"].startswith("b0/r1/") and r["kind"] == "sample"
    ]
    assert sorted(md["cell_id"] for md in r1) == ["b0/r1/native/terasort", "b0/r1/native~aa/terasort"]
    assert all(len(md["duet_partners"]) == 1 and "lxc" not in md["duet_partners"][0] for md in r1)
    done = done_cells(CampaignStore(tmp_path / "c"))
    assert {c.cell_id for c in expand(e) if c.config.key != "lxc"} <= done and not set(failed) & done
    assert not fake_machine.testbeds and not fake_machine.clusters


def test_a_side_lost_before_the_start_line_leaves_its_partners_unrun_and_a_resume_runs_them(
    tmp_path, fake_machine, jobs, monkeypatch
):
    real = runner._start_together
    lines: list = []
    lock = threading.Lock()

    def start_together(start, side, mon):  # lxc (side 1) of the second group breaks before its job
        with lock:
            if start not in lines:
                lines.append(start)
            second = lines.index(start) == 1
        if second and side == 1:
            raise RuntimeError("lxc hosts lost")
        return real(start, side, mon)

    monkeypatch.setattr(runner, "_start_together", start_together)
    e = duet_design()
    result = run(e, tmp_path / "c", fake_machine)
    md = {r["metadata"]["cell_id"]: r for r in hadoop_records(tmp_path / "c") if not r["metadata"]["warmup"]}
    for partner in ("b0/r0/native/terasort", "b0/r0/native~aa/terasort"):
        assert md[partner]["kind"] == "failure" and md[partner]["metadata"]["configuration_failed"]
        assert md[partner]["reason"] == str(PartnerLost("its duet partner failed before the job started"))
    assert md["b0/r0/lxc/terasort"]["reason"] == "lxc hosts lost"
    assert not any(c.startswith("b0/r0/") and "warmup" not in c for c, *_ in jobs.ran)  # no side of r0 ran
    assert result.failures == 2 + 2  # two partners unrun, lxc's two cells lost
    todo = suite_cells(e) - done_cells(CampaignStore(tmp_path / "c"))
    assert todo == {"b0/r0/native/terasort", "b0/r0/native~aa/terasort", "b0/r0/lxc/terasort", "b0/r1/lxc/terasort"}

    monkeypatch.setattr(runner, "_start_together", real)
    jobs.ran.clear()
    again = run(e, tmp_path / "c", fake_machine)
    assert sorted(again.ran) == sorted(todo) and again.failures == 0
    assert sorted(c for c, *_ in jobs.ran if not c.endswith("/warmup")) == sorted(todo)  # nothing done ran again
    closed = [c for c in closed_cells(tmp_path / "c") if not c.endswith("/warmup")]
    assert sorted(closed) == sorted(c.cell_id for c in expand(e))


def test_a_resume_after_one_side_of_a_group_finished_runs_only_the_missing_side(tmp_path, fake_machine, jobs):
    e = duet_design()
    jobs.faults["b0/r1/lxc/terasort"] = Terminated("received signal SIGTERM")
    with pytest.raises(Terminated):
        run(e, tmp_path / "c", fake_machine)
    assert not fake_machine.testbeds and not fake_machine.clusters  # torn down
    cut = [r for r in records(tmp_path / "c") if r["metadata"]["cell_id"] == "b0/r1/lxc/terasort"]
    assert [(r["kind"], r["reason"], r["metadata"]["interrupted"]) for r in cut] == [
        ("failure", "interrupted (received signal SIGTERM)", True)
    ]
    done = done_cells(CampaignStore(tmp_path / "c"))
    assert suite_cells(e) - done == {"b0/r1/lxc/terasort"}  # its partners finished

    jobs.faults.clear()
    jobs.ran.clear()
    again = run(e, tmp_path / "c", fake_machine)
    assert again.ran == ["b0/r1/lxc/terasort"] and again.failures == 0
    assert [c for c, *_ in jobs.ran if not c.endswith("/warmup")] == ["b0/r1/lxc/terasort"]  # neither partner again
    closed = [c for c in closed_cells(tmp_path / "c") if not c.endswith("/warmup")]
    assert sorted(closed) == sorted(c.cell_id for c in expand(e)) and len(closed) == len(set(closed))


def test_an_interrupt_of_the_main_thread_stops_every_side_within_seconds_and_a_resume_runs_them(
    tmp_path, fake_machine, jobs
):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("Ctrl-C reaches the main thread only")
    e = duet_design()
    group = {"b0/r1/lxc/terasort", "b0/r1/native/terasort", "b0/r1/native~aa/terasort"}
    jobs.slow = dict.fromkeys(group, 5.0)  # round 1's jobs: each side runs until it hears the interrupt
    jobs.faults["b0/r1/native/terasort"] = _thread.interrupt_main  # Ctrl-C while every side runs
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run(e, tmp_path / "c", fake_machine)
    took = time.monotonic() - t0
    assert took < 3, f"run_campaign stopped after {took:.1f} s"
    assert not {c for c, *_ in jobs.ran} & group  # no side of round 1 ran to its end
    assert not fake_machine.testbeds and not fake_machine.clusters
    cut = [r for r in records(tmp_path / "c") if r["metadata"]["cell_id"] in group]
    assert sorted(r["metadata"]["cell_id"] for r in cut) == sorted(group)
    assert all(r["kind"] == "failure" and r["reason"] == "interrupted (received signal SIGINT)" for r in cut)
    assert all(r["metadata"]["interrupted"] and r["metadata"]["duet_group"] == "b0/r1/terasort" for r in cut)
    assert suite_cells(e) - done_cells(CampaignStore(tmp_path / "c")) == group

    jobs.faults.clear()
    jobs.ran.clear()
    jobs.slow.clear()
    again = run(e, tmp_path / "c", fake_machine)
    assert sorted(again.ran) == sorted(group) and again.failures == 0
    assert sorted(c for c, *_ in jobs.ran if not c.endswith("/warmup")) == sorted(group)
    resumed = [
        r["metadata"]
        for r in hadoop_records(tmp_path / "c")
        if r["metadata"]["cell_id"] in group and r["kind"] == "sample"
    ]
    assert len(resumed) == 3 and {md["duet_group"] for md in resumed} == {"b0/r1/terasort"}  # again together
    closed = [c for c in closed_cells(tmp_path / "c") if not c.endswith("/warmup")]
    assert sorted(closed) == sorted(c.cell_id for c in expand(e)) and len(closed) == len(set(closed))


@pytest.mark.parametrize(
    "change, why",
    [
        ({"rounds": 1}, "needs rounds > 1"),
        ({"interleave": "alternating"}, "interleave: concurrent"),
        ({"idle": "freeze"}, "idle: freeze"),
        ({"retries": 1}, "retries"),
        ({"drop_caches": True}, "drop_caches"),
        ({"suite": []}, "no suite"),
        ({"platforms": ["native"], "aa": False}, "at least two configurations"),
    ],
)
def test_a_design_that_cannot_run_duets_is_refused_naming_duet(change, why):
    with pytest.raises(ValueError, match=f"duet: .*{why}"):
        duet_design(**change)


def test_duet_params_know_two_ways_of_sharing_cpus():
    assert duet_design().duet == DuetParams(cpus="shared") == DuetParams()
    assert duet_design(duet={"cpus": "split"}).duet == DuetParams(cpus="split")
    for bad in ({"cpus": "cpuset"}, {"cpus": "shared", "pin": True}):
        with pytest.raises(ValueError):
            duet_design(duet=bad)
    assert design_hash(duet_design(duet={"cpus": "split"})) != design_hash(duet_design())


def test_the_cpus_are_cut_into_equal_parts_of_consecutive_cpus_rotated_from_block_to_block():
    assert duet_cpusets([1, 0], 2) == ("0", "1")
    assert duet_cpusets(range(8), 2) == ("0,1,2,3", "4,5,6,7")
    assert duet_cpusets(range(5), 2) == ("0,1", "2,3")  # the odd CPU goes to no side: both have as many
    with pytest.raises(ValueError):
        duet_cpusets([0, 1], 3)
    parts = ("0", "1")
    assert [side_cpuset(parts, 0, b) for b in range(4)] == ["0", "1", "0", "1"]
    assert [side_cpuset(parts, 1, b) for b in range(4)] == ["1", "0", "1", "0"]


def test_a_split_duet_holds_each_side_on_its_own_cpus_and_swaps_them_every_block(
    tmp_path, fake_machine, jobs, monkeypatch
):
    seen: list[tuple[int, str, str | None]] = []

    def placed(cluster, cell, **kw):
        seen.append((cell.block, cell.config.key, fake_machine.testbeds[cluster.testbed].cpuset))
        return jobs(cluster, cell, **kw)

    monkeypatch.setattr(runner, "measure_hadoop", placed)
    e = duet_design(platforms=["native"], repetitions=2, duet={"cpus": "split"})
    result = run(e, tmp_path / "c", fake_machine)
    assert result.failures == 0
    by_block: dict[int, dict[str, set]] = {}
    for block, key, cpuset in seen:
        by_block.setdefault(block, {}).setdefault(key, set()).add(cpuset)
    # The fake machine's 8 CPUs in two halves: one per side, the same for a side all block long.
    assert by_block[0] == {"native": {"0,1,2,3"}, "native~aa": {"4,5,6,7"}}
    assert by_block[1] == {"native": {"4,5,6,7"}, "native~aa": {"0,1,2,3"}}
    assert {r["metadata"]["duet_cpus"] for r in hadoop_records(tmp_path / "c")} == {"split"}


def test_a_split_duet_with_more_sides_than_cpus_is_refused_before_anything_starts(
    tmp_path, fake_machine, jobs, monkeypatch
):
    monkeypatch.setattr(runner.MachineFacts, "local", classmethod(lambda cls: runner.MachineFacts(65536, 2, (0, 1))))
    with pytest.raises(ParamsError) as err:
        run(duet_design(duet={"cpus": "split"}), tmp_path / "c", fake_machine)
    assert err.value.field.endswith("experiment.duet.cpus") and "3 configurations" in str(err.value)
    assert not fake_machine.events and not jobs.started


def test_a_split_duet_is_refused_on_an_inventorys_hosts():
    with pytest.raises(ParamsError, match="inventory") as err:
        runner.split_parts(2, False, runner.MachineFacts(65536, 2, (0, 1)))
    assert err.value.field == "experiment.duet.cpus"


def test_a_hook_is_refused_with_a_duet_design_before_anything_starts(tmp_path, fake_machine, jobs):
    with pytest.raises(ParamsError) as err:
        run(duet_design(), tmp_path / "c", fake_machine, hook=RunHook())
    assert err.value.field == "experiment.duet"
    assert not fake_machine.events and not jobs.started and not (tmp_path / "c" / "samples.jsonl").exists()


def test_a_design_without_duet_keeps_its_hash_and_one_with_duet_gets_another():
    assert design_hash(design()) == design_hash(design(duet=None))
    assert design_hash(duet_design(duet=None)) != design_hash(duet_design())


def test_without_duet_the_same_design_runs_its_jobs_one_after_the_other(tmp_path, fake_machine, jobs):
    run(duet_design(duet=None), tmp_path / "c", fake_machine)
    spans = sorted((t0, t1) for _, _, t0, t1 in jobs.ran)
    assert len(spans) == 9 and all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    assert not any("duet_group" in r["metadata"] for r in records(tmp_path / "c"))
    assert Counter(tb for _, tb, _, _ in jobs.ran) == {"vb0": 3, "vb1": 3, "vb2": 3}

"""The campaign runner's sessions (issue #18): interleaved rounds on clusters up together or one
at a time, warm-up runs, teardown of every configuration on failure and Ctrl-C, the machine-fit
refusal, resumption mid-block, and the hooks around every round. Testbeds and clusters are
records (`fake_machine`, tests/conftest.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from vbench.campaign.design import Experiment, expand, sessions
from vbench.campaign.runner import RoundInfo, done_cells, run_campaign, slot_testbed
from vbench.errors import ParamsError
from vbench.ledger import read_ledger
from vbench.machine_fit import MachineFacts
from vbench.params import HadoopParams, TestbedParams
from vbench.store import CampaignStore

from tests.unit.builders import two_platform_design


def design(**kw) -> Experiment:
    suite = [{"benchmark": "pi"}, {"benchmark": "terasort", "config": {"size_mb": 16}}]
    return two_platform_design(
        **{"repetitions": 2, "rounds": 2, "calibrate": [{"benchmark": "cpu"}], "suite": suite, **kw}
    )


def run(e: Experiment, camp: Path, machine, log: list[str] | None = None, **kw):
    return run_campaign(
        e,
        TestbedParams(),
        HadoopParams(),
        camp,
        log=(log.append if log is not None else lambda _l: None),
        hosts_source=machine.source,
        **kw,
    )


def records(camp: Path) -> list[dict]:
    return read_ledger(camp / "samples.jsonl").records


def closed_cells(camp: Path) -> list[str]:
    """Cell ids of the ledger's closing records that say the cell is done, in order."""
    lines = [json.loads(x) for x in (camp / "samples.jsonl").read_text().splitlines()]
    return [x["cell_id"] for x in lines if x.get("kind") == "commit" and x.get("cell_done")]


def test_every_run_of_the_plan_runs_once_in_order_with_block_round_and_warmup_on_every_sample(tmp_path, fake_machine):
    e = design()
    result = run(e, tmp_path / "c", fake_machine)
    plan = [c.cell_id for s in sessions(e, expand(e)) for c in s.runs]
    assert closed_cells(tmp_path / "c") == plan
    assert sorted(result.ran) == sorted(c.cell_id for c in expand(e)) and result.warmups == 2 * 2 * 3
    recs = records(tmp_path / "c")
    assert recs and all({"block", "round", "warmup", "repetition"} <= r["metadata"].keys() for r in recs)
    for r in recs:
        md = r["metadata"]
        assert md["cell_id"].startswith(f"b{md['block']}/r{md['round']}/")
        assert md["warmup"] == md["cell_id"].endswith("/warmup")
        assert md["repetition"] == md["block"] * 2 + md["round"]
    # Each round ran every (configuration, benchmark) once, besides the warm-up runs.
    measured = Counter((r["metadata"]["block"], r["metadata"]["round"]) for r in recs if not r["metadata"]["warmup"])
    assert measured == {(b, r): 6 for b in range(2) for r in range(2)}


def test_concurrent_clusters_are_all_up_during_every_job_and_none_during_calibration(tmp_path, fake_machine):
    run(design(), tmp_path / "c", fake_machine)
    hadoop = [r for r in fake_machine.runs if r["kind"] == "hadoop"]
    micro = [r for r in fake_machine.runs if r["kind"] == "micro"]
    assert hadoop and all(r["clusters"] == {"vb0", "vb1"} for r in hadoop)
    assert micro and all(r["testbeds"] == {"vb0", "vb1"} and not r["clusters"] for r in micro)
    opened = [x[1] for x in fake_machine.events if x[0] == "open"]
    assert len(opened) == 4 and set(opened[:2]) == set(opened[2:]) == {"vb0", "vb1"}  # each once per block
    assert not fake_machine.testbeds and not fake_machine.clusters


def test_testbeds_up_together_each_get_their_own_name_bridge_and_subnet(tmp_path, fake_machine):
    seen: dict[str, TestbedParams] = {}
    real_open = fake_machine.source.open

    def open_(platform, tb):
        seen[platform] = tb
        return real_open(platform, tb)

    fake_machine.source.open = open_
    run(design(repetitions=1), tmp_path / "c", fake_machine)
    nets = {p: (tb.name, tb.network.bridge, str(tb.network.subnet)) for p, tb in seen.items()}
    assert nets == {"native": ("vb0", "vbbr0-0", "10.213.0.0/24"), "lxc": ("vb1", "vbbr0-1", "10.213.1.0/24")}
    assert seen["lxc"].platform == "lxc" and all(
        str(h.address).startswith("10.213.1.") for h in seen["lxc"].resolved_hosts()
    )


def test_slot_testbeds_move_named_hosts_along_and_refuse_a_name_too_long():
    tb = TestbedParams.model_validate(
        {
            "name": "vb",
            "hosts": [{"name": "m", "role": "master", "address": "10.213.0.20"}, {"name": "w", "role": "worker"}],
        }
    )
    moved = slot_testbed(tb, 2)
    assert [str(h.address) for h in moved.hosts][:1] == ["10.213.2.20"] and moved.hosts[1].address is None
    with pytest.raises(ParamsError) as err:
        slot_testbed(TestbedParams(name="abcdef"), 1)
    assert err.value.field == "testbed.name"


def test_a_configuration_that_breaks_mid_block_is_recorded_and_torn_down_and_the_others_go_on(tmp_path, fake_machine):
    e = design(repetitions=1)
    plan = [c for s in sessions(e, expand(e)) for c in s.runs]
    # The 2nd suite run of lxc (vb1) loses its hosts.
    lxc_jobs = [i for i, c in enumerate(plan, 1) if c.platform == "lxc" and c.variant.kind == "hadoop"]
    fake_machine.raise_on_run[lxc_jobs[1]] = RuntimeError("worker1 unreachable")
    log: list[str] = []
    result = run(e, tmp_path / "c", fake_machine, log)
    failed = [r["metadata"]["cell_id"] for r in records(tmp_path / "c") if r["metadata"].get("configuration_failed")]
    lost = [c.cell_id for c in plan[lxc_jobs[1] - 1 :] if c.platform == "lxc" and not c.warms_up]
    assert failed == lost and result.failures == len(lost) and not result.stopped
    assert any("configuration b0/lxc failed: worker1 unreachable" in line for line in log)
    # lxc was torn down at once; native ran all its cells after it.
    down = fake_machine.events.index(("close", "vb1"))
    assert fake_machine.events.index(("cluster down", "vb1")) < down
    after = [x[1] for x in fake_machine.events[down:] if x[0] == "run"]
    assert after and set(after) == {"vb0"}
    assert {c.cell_id for c in expand(e) if c.platform == "native"} <= done_cells(CampaignStore(tmp_path / "c"))
    assert not fake_machine.testbeds and not fake_machine.clusters


@pytest.mark.parametrize("fault", ["on_failure stop", "ctrl-c", "sigterm"])
def test_every_configuration_is_torn_down_when_the_campaign_stops_or_is_interrupted(tmp_path, fake_machine, fault):
    from vbench.lifecycle import Terminated

    e = design(**({"on_failure": "stop"} if fault == "on_failure stop" else {}))
    plan = [c for s in sessions(e, expand(e)) for c in s.runs]
    n = next(i for i, c in enumerate(plan, 1) if c.variant.kind == "hadoop" and c.round == 1)
    exc = {
        "on_failure stop": RuntimeError("DataNode lost"),
        "ctrl-c": KeyboardInterrupt(),
        "sigterm": Terminated("received signal SIGTERM"),
    }[fault]
    fake_machine.raise_on_run[n] = exc
    if fault == "on_failure stop":
        result = run(e, tmp_path / "c", fake_machine)
        assert result.stopped == "DataNode lost"
    else:
        with pytest.raises(KeyboardInterrupt):
            run(e, tmp_path / "c", fake_machine)
    assert len(fake_machine.runs) == n  # nothing ran after it
    assert not fake_machine.testbeds and not fake_machine.clusters
    assert Counter(x for x in fake_machine.events if x[0] in ("cluster up", "cluster down")) == {
        ("cluster up", "vb0"): 1,
        ("cluster up", "vb1"): 1,
        ("cluster down", "vb0"): 1,
        ("cluster down", "vb1"): 1,
    }


def test_a_configuration_that_cannot_come_up_has_its_cells_recorded_as_failed(tmp_path, fake_machine):
    fake_machine.cannot_open.add("lxc")
    e = design(repetitions=1)
    result = run(e, tmp_path / "c", fake_machine)
    failed = {r["metadata"]["cell_id"] for r in records(tmp_path / "c") if r["metadata"].get("configuration_failed")}
    assert failed == {c.cell_id for c in expand(e) if c.platform == "lxc"} and result.failures == len(failed)
    assert all(r["testbed"] == "vb0" for r in fake_machine.runs) and len(fake_machine.runs) == 6 + 3


def test_a_cluster_that_does_not_start_loses_only_its_own_suite_runs(tmp_path, fake_machine):
    fake_machine.cannot_start.add("vb1")
    e = design(repetitions=1)
    run(e, tmp_path / "c", fake_machine)
    failed = {r["metadata"]["cell_id"] for r in records(tmp_path / "c") if r["metadata"].get("configuration_failed")}
    assert failed == {c.cell_id for c in expand(e) if c.platform == "lxc" and c.variant.kind == "hadoop"}
    assert ("micro", "vb1") in {(r["kind"], r["testbed"]) for r in fake_machine.runs}
    assert not fake_machine.testbeds


def test_clusters_that_do_not_fit_the_machine_together_are_refused_naming_the_reason(
    tmp_path, fake_machine, monkeypatch
):
    one = 6208  # MiB of one default two-worker cluster (daemon heaps and YARN memory)
    monkeypatch.setattr(MachineFacts, "local", classmethod(lambda cls: MachineFacts(one + 1000, 2, (0, 1))))
    with pytest.raises(ParamsError) as err:
        run(design(), tmp_path / "c", fake_machine)
    assert err.value.field == "experiment.interleave"
    assert f"need {2 * one} MiB together (native {one} MiB, lxc {one} MiB)" in str(err.value)
    assert f"this machine has {one + 1000} MiB" in str(err.value) and "interleave: alternating" in str(err.value)
    assert not fake_machine.events and not (tmp_path / "c").exists()
    # One configuration at a time fits: alternating rounds run, never two testbeds up at once.
    result = run(design(interleave="alternating"), tmp_path / "c", fake_machine)
    assert fake_machine.most_testbeds_up == 1 and not result.failures
    assert {r["testbed"] for r in fake_machine.runs} == {"vb"}


def test_alternating_rounds_bring_a_fresh_cluster_up_per_round_in_alternating_order(tmp_path, fake_machine):
    e = design(interleave="alternating", repetitions=1, rounds=4)
    run(e, tmp_path / "c", fake_machine)
    platforms = [c.platform for s in sessions(e, expand(e)) for c in s.runs[:1]]
    assert platforms[0::2] == [platforms[0], platforms[1]] * 2 and len(set(platforms[:2])) == 2  # A B B A A B B A
    assert Counter(x[0] for x in fake_machine.events)["cluster up"] == 4 * 2
    warm = [r for r in records(tmp_path / "c") if r["metadata"]["warmup"]]
    assert len({r["metadata"]["cell_id"] for r in warm}) == 4 * 2 * 3  # each fresh cluster warmed up


def test_a_resumed_campaign_continues_mid_block_without_repeating_a_finished_cell(tmp_path, fake_machine):
    e = design()
    plan = [c for s in sessions(e, expand(e)) for c in s.runs]
    stop_at = next(i for i, c in enumerate(plan, 1) if (c.block, c.round, c.variant.kind) == (0, 1, "hadoop")) + 1
    fake_machine.raise_on_run[stop_at] = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        run(e, tmp_path / "c", fake_machine)
    first = set(closed_cells(tmp_path / "c"))
    assert {c.cell_id for c in plan[: stop_at - 1]} == first  # up to the interrupted run
    fake_machine.raise_on_run.clear()
    again = run(e, tmp_path / "c", fake_machine)
    assert again.already_done == len([c for c in first if not c.endswith("/warmup")])
    assert not set(again.ran) & first and set(again.ran) | first >= {c.cell_id for c in expand(e)}
    cells = [c for c in closed_cells(tmp_path / "c") if not c.endswith("/warmup")]
    assert sorted(cells) == sorted(c.cell_id for c in expand(e))  # each cell closed exactly once
    # Block 0 resumed in its second suite round: its fresh clusters were warmed up again first.
    resumed = closed_cells(tmp_path / "c")[len(first) :]
    warm_again = [c for c in resumed if c.startswith("b0/") and c.endswith("/warmup")]
    assert len(warm_again) == len(
        {(c.config.key, c.variant.key) for c in plan[stop_at - 1 :] if c.block == 0 and not c.warms_up}
    )


def test_rounds_hooks_hear_every_round_stamp_its_samples_and_can_stop_the_campaign(tmp_path, fake_machine):
    heard: list[tuple] = []

    class Hooks:
        def before_round(self, info: RoundInfo):
            heard.append(("before", info.block, info.round, len(info.cell_ids)))
            return {"gate.verdict": f"quiet-{info.block}-{info.round}"}

        def after_round(self, info: RoundInfo):
            heard.append(("after", info.block, info.round))
            suite = any("/pi" in c or "/terasort" in c for c in info.cell_ids)
            return "precision reached" if (info.block, info.round) == (1, 0) and suite else None

    e = design()
    result = run(e, tmp_path / "c", fake_machine, round_hooks=Hooks())
    assert result.stopped == "precision reached"
    # block 0: calibration rounds 0, 1 (warm-ups in round 0), suite rounds 0, 1; block 1: ... stopped after suite round 0
    # (block, round, cells in the round) of every round, each heard before and after it.
    rounds = [(0, 0, 4), (0, 1, 2), (0, 0, 8), (0, 1, 4), (1, 0, 4), (1, 1, 2), (1, 0, 8)]
    assert heard == [step for b, r, n in rounds for step in (("before", b, r, n), ("after", b, r))]
    recs = records(tmp_path / "c")
    assert all(
        r["metadata"]["gate.verdict"] == f"quiet-{r['metadata']['block']}-{r['metadata']['round']}" for r in recs
    )
    assert not any(r["metadata"]["cell_id"].startswith("b1/r1/") and r["benchmark"] != "cpu" for r in recs)
    assert not fake_machine.testbeds


def test_a_session_gate_checks_before_each_session_with_nothing_up_and_stamps_that_sessions_runs(
    tmp_path, fake_machine
):
    from vbench.campaign.runner import SessionGate

    asked: list[tuple[str, frozenset]] = []

    class Gate:
        def before_round(self, info: RoundInfo):
            asked.append((info.label, frozenset(fake_machine.testbeds)))
            return {"gate.session": info.label}

        def after_round(self, info: RoundInfo):
            return None

    e = design(rounds=1, warmup_runs="first")
    run(e, tmp_path / "c", fake_machine, round_hooks=SessionGate(Gate()))
    plan = sessions(e, expand(e))
    labels = [f"b{s.block}/{'+'.join(c.key for c in s.configs)}" for s in plan]
    assert [label for label, _ in asked] == labels and len(set(labels)) == len(plan) == 4
    assert all(not up for _, up in asked)  # the previous session's testbed was down, the next not up yet
    session_of = {c.cell_id: label for s, label in zip(plan, labels) for c in s.runs}
    recs = records(tmp_path / "c")
    assert recs and all(r["metadata"]["gate.session"] == session_of[r["metadata"]["cell_id"]] for r in recs)


def test_a_design_without_rounds_runs_one_configuration_at_a_time_without_warmup_runs(tmp_path, fake_machine):
    e = design(rounds=1)
    result = run(e, tmp_path / "c", fake_machine)
    assert closed_cells(tmp_path / "c") == [c.cell_id for c in expand(e)] == result.ran
    assert fake_machine.most_testbeds_up == 1 and {r["testbed"] for r in fake_machine.runs} == {"vb"}
    assert all(
        not r["metadata"]["warmup"]
        and r["metadata"]["round"] == 0
        and r["metadata"]["repetition"] == r["metadata"]["block"]
        for r in records(tmp_path / "c")
    )


def test_a_design_without_rounds_opens_each_cluster_with_one_warmup_run_when_asked(tmp_path, fake_machine):
    e = design(rounds=1, warmup_runs="first")
    result = run(e, tmp_path / "c", fake_machine)
    assert result.ran == [c.cell_id for c in expand(e)] and result.failures == 0
    sessions_run = 2 * 2  # blocks x configurations, each a fresh testbed and cluster
    assert result.warmups == sessions_run * 2  # one per kind (calibration, suite) in each
    recs = records(tmp_path / "c")
    warm = [r["metadata"] for r in recs if r["metadata"]["warmup"]]
    assert {m["cell_id"].rsplit("/", 1)[1] for m in warm} == {"warmup"} and len({m["cell_id"] for m in warm}) == 8
    # Each warm-up run is its session's first run, a run of the cell that follows it.
    order = list(dict.fromkeys(r["metadata"]["cell_id"] for r in recs))
    for m in warm:
        i = order.index(m["cell_id"])
        assert order[i + 1] == m["cell_id"].removesuffix("/warmup")


def test_what_was_done_between_runs_is_on_every_suite_sample(tmp_path, fake_machine):
    run(design(repetitions=1, drop_caches=True), tmp_path / "c", fake_machine)
    suite = [r["metadata"] for r in records(tmp_path / "c") if r["metadata"]["benchmark_kind"] == "hadoop"]
    assert suite and all(md["page_cache"] == "dropped" and md["hdfs_output_removed"] is True for md in suite)


def test_the_time_budget_skips_cells_and_warmup_runs_alike(tmp_path, fake_machine):
    result = run(design(budget_minutes=1e-9), tmp_path / "c", fake_machine)
    skipped = json.loads((tmp_path / "c" / "skipped.json").read_text())["cells"]
    assert sorted(skipped) == sorted(c.cell_id for c in expand(design())) == sorted(result.skipped)
    assert not fake_machine.events and not result.ran


@pytest.mark.parametrize("rounds", [1, 2])
def test_the_time_budget_is_spent_in_whole_blocks(tmp_path, fake_machine, monkeypatch, rounds):
    # Whatever the estimate says, a started block runs to its end and a block past the budget is
    # skipped whole: a campaign run in parts never splits a block's pairs between two runs.
    asked: list[tuple[int, int]] = []

    def over(elapsed_s, budget_s, runs, blocks_run):
        asked.append((runs, len(blocks_run)))
        return len(blocks_run) >= 1  # the first block fits, the second does not

    monkeypatch.setattr("vbench.campaign.runner._block_over_budget", over)
    e = design(rounds=rounds, budget_minutes=60)
    result = run(e, tmp_path / "c", fake_machine)
    cells = expand(e)
    assert sorted(result.ran) == sorted(c.cell_id for c in cells if c.block == 0)
    assert sorted(result.skipped) == sorted(c.cell_id for c in cells if c.block == 1)
    assert [n for n, _ in asked] == [sum(len(s.runs) for s in sessions(e, cells) if s.block == b) for b in (0, 1)]
    skipped = json.loads((tmp_path / "c" / "skipped.json").read_text())
    assert skipped["cells"] == result.skipped and "time budget of 60" in skipped["reason"]
    # Run again with the budget spent in another part: the skipped block runs, nothing else.
    monkeypatch.setattr("vbench.campaign.runner._block_over_budget", lambda *a: False)
    more = run(e, tmp_path / "c", fake_machine)
    assert sorted(more.ran) == sorted(result.skipped) and not more.skipped
    # ...and the earlier part's list of skipped cells goes: it names none left to run.
    assert not (tmp_path / "c" / "skipped.json").exists()


def test_a_block_is_estimated_at_the_seconds_per_run_of_the_blocks_finished():
    from vbench.campaign.runner import _block_over_budget

    assert not _block_over_budget(0.0, 60.0, 10, [])  # nothing to go by: the first block starts
    assert _block_over_budget(61.0, 60.0, 10, [])  # ...unless the budget is spent already
    # Two blocks of 10 runs took 30 s and 50 s: 4 s a run, so 10 more runs take 40 s.
    assert not _block_over_budget(80.0, 120.0, 10, [(30.0, 10), (50.0, 10)])
    assert _block_over_budget(80.1, 120.0, 10, [(30.0, 10), (50.0, 10)])
    # A short block (a resumed one's rest) counts by its runs, not as a whole block.
    assert _block_over_budget(20.0, 100.0, 10, [(9.0, 1)]) and not _block_over_budget(20.0, 100.0, 1, [(9.0, 1)])


def test_inventory_configurations_sharing_hosts_cannot_be_up_together(tmp_path, fake_machine):
    fake_machine.source.local = False
    e = design(platforms=["native"], factors={"hadoop.replication": [1, 2]})
    with pytest.raises(ParamsError) as err:
        run(e, tmp_path / "c", fake_machine)
    assert err.value.field == "experiment.interleave" and "same hosts" in str(err.value)


def test_a_campaign_gets_more_blocks_and_nothing_else(tmp_path, fake_machine):
    # Intervals too wide after 2 blocks: the same design with 3 runs the third block only.
    camp = tmp_path / "c"
    first = run(design(rounds=1), camp, fake_machine)
    assert first.failures == 0 and {c.split("/")[0] for c in first.ran} == {"b0", "b1"}
    log: list[str] = []
    more = run(design(rounds=1, repetitions=3), camp, fake_machine, log=log)
    assert more.already_done == len(first.ran)
    assert more.ran and {c.split("/")[0] for c in more.ran} == {"b2"}
    assert any("2 blocks extended to 3" in line for line in log), log
    meta = json.loads((camp / "campaign.json").read_text())
    assert meta["experiment"]["repetitions"] == 3
    assert [h["repetitions"] for h in meta["extended_from"]] == [2]
    # Any other change is still another design; so is a design with fewer blocks.
    for other in (design(rounds=1, repetitions=4, seed=8), design(rounds=1, repetitions=2)):
        with pytest.raises(Exception, match="another design"):
            run(other, camp, fake_machine)


def test_a_vms_records_name_its_hosts_accelerator_and_other_platforms_records_carry_no_such_stamp(
    tmp_path, fake_machine
):
    run(design(platforms=["native", "qemu"], rounds=1, repetitions=1), tmp_path / "c", fake_machine)
    by_platform = {
        p: [r["metadata"] for r in records(tmp_path / "c") if r["metadata"]["platform"] == p]
        for p in ("native", "qemu")
    }
    assert by_platform["qemu"] and by_platform["native"]
    for md in by_platform["qemu"]:
        assert md["host_accelerators"] == {h: "tcg" for h in md["host_platforms"]} and md["host_platforms"]
    assert not any("host_accelerators" in md for md in by_platform["native"])


def test_every_record_names_the_cpu_its_hosts_reported(tmp_path, fake_machine):
    from tests.conftest import FAKE_CPU

    run(design(platforms=["native", "qemu"], rounds=1, repetitions=1), tmp_path / "c", fake_machine)
    recs = records(tmp_path / "c")
    kinds = {r["metadata"]["benchmark_kind"] for r in recs}
    assert kinds == {"micro", "hadoop"}
    assert all(r["metadata"]["cpu_model"] == FAKE_CPU and r["metadata"]["vcpus"] == "2" for r in recs)
    assert not any("mem_total_mb" in r["metadata"] for r in recs)  # the fake hosts do not report it


class _FakeFreezer:
    """A testbed's freezer (vbench.testbed.freezer.TestbedFreezer), faked: the machine's events
    say what was frozen and thawed, and a run on a frozen testbed fails the test."""

    frozen: set[str] = set()
    machine = None

    def __init__(self, testbed, hosts):
        self.testbed, self.hosts = testbed, hosts

    def freeze(self) -> float:
        assert self.testbed in self.machine.clusters or self.testbed in self.machine.testbeds
        self.frozen.add(self.testbed)
        self.machine.events.append(("freeze", self.testbed))
        return 0.001

    def thaw(self) -> None:
        if self.testbed in self.frozen:
            self.frozen.discard(self.testbed)
            self.machine.events.append(("thaw", self.testbed))


def test_idle_freeze_runs_every_job_with_the_other_clusters_frozen_and_thaws_each_before_its_teardown(
    tmp_path, fake_machine, monkeypatch
):
    from vbench.campaign import runner

    _FakeFreezer.frozen, _FakeFreezer.machine = set(), fake_machine
    monkeypatch.setattr(runner, "TestbedFreezer", _FakeFreezer)
    real_run = fake_machine.run

    wrong: list[str] = []  # the runner records a failing run as a failed cell: collect, assert after

    def run_unfrozen(kind, benchmark, testbed):
        if fake_machine.testbeds.keys() - _FakeFreezer.frozen != {testbed}:
            wrong.append(f"{benchmark} on {testbed} with {sorted(_FakeFreezer.frozen)} frozen")
        real_run(kind, benchmark, testbed)

    fake_machine.run = run_unfrozen
    result = run(design(idle="freeze"), tmp_path / "c", fake_machine)
    assert wrong == [] and result.failures == 0
    recs = records(tmp_path / "c")
    assert recs and all(r["metadata"]["idle"] == "freeze" for r in recs)
    assert all(len(r["metadata"]["frozen_configs"]) == 1 for r in recs)
    assert all(r["metadata"]["platform"] not in r["metadata"]["frozen_configs"] for r in recs)
    assert not _FakeFreezer.frozen  # all thawed at the end
    ev = fake_machine.events
    for i, e in enumerate(ev):  # a cluster goes down (and its hosts close) only after its thaw
        if isinstance(e, tuple) and e[0] in ("cluster down", "close"):
            last = [x for x in ev[:i] if isinstance(x, tuple) and x[0] in ("freeze", "thaw") and x[1] == e[1]]
            assert not last or last[-1][0] == "thaw", f"{e} while frozen"


def test_idle_freeze_is_refused_without_concurrent_rounds_and_on_what_it_cannot_freeze(tmp_path, fake_machine):
    with pytest.raises(ValueError, match="idle: freeze needs rounds > 1"):
        design(idle="freeze", rounds=1)
    with pytest.raises(ValueError, match="idle: freeze needs rounds > 1"):
        design(idle="freeze", interleave="alternating")
    with pytest.raises(ParamsError) as err:
        run(two_platform_design(platforms=["native", "qemu"], rounds=2, idle="freeze"), tmp_path / "c", fake_machine)
    assert "freezer" in err.value.field and "qemu" in str(err.value)
    assert not fake_machine.events  # refused before anything started


def test_idle_run_leaves_the_design_hash_of_every_design_without_it_unchanged():
    from vbench.campaign.design import design_hash

    assert design_hash(design()) == design_hash(design(idle="run"))
    assert design_hash(design()) != design_hash(design(idle="freeze"))


def test_a_finished_campaign_run_again_clears_what_a_run_killed_in_its_last_teardown_left(tmp_path, fake_machine):
    run(design(repetitions=1), tmp_path / "c", fake_machine)
    assert not [e for e in fake_machine.events if e[0] == "clear"]  # opening a testbed clears it
    fake_machine.events.clear()
    result = run(design(repetitions=1), tmp_path / "c", fake_machine)
    assert result.ran == [] and not [e for e in fake_machine.events if e[0] == "open"]
    assert sorted(e[1] for e in fake_machine.events if e[0] == "clear") == ["vb0", "vb1"]

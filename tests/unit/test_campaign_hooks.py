"""The runner's hook (vbench.campaign.hooks): what a design adds around each Hadoop run, run by
the one loop with the same provenance, failure records and page-cache record as every cell."""

from __future__ import annotations

import contextlib

import pytest

from vbench.campaign.design import Condition, Experiment, design_hash, expand, load_experiment, make_experiment
from vbench.campaign.hooks import Beside, RunHook, condition_level
from vbench.campaign.pagecache import drop_caches_line
from vbench.campaign.runner import run_campaign
from vbench.errors import JobFailed, ParamsError, VbenchError
from vbench.params import HadoopParams, TestbedParams
from vbench.samples import Failure, Sample, read_records

CONDITION = Condition(name="noise", levels=("none", "loud"))


def _design(**kw) -> Experiment:
    return make_experiment({"name": "h", "repetitions": 1, "suite": [{"benchmark": "pi"}], **kw})


class Noise(RunHook):
    """Plays `level` beside each run; says what it saw as a sample; fails to set up when told."""

    condition = "noise"

    def __init__(self, events: list[str], refuse: str | None = None):
        self.events, self.refuse = events, refuse

    @contextlib.contextmanager
    def around(self, cell, cluster, log):
        level = condition_level(cell, self.condition)
        if level == self.refuse:
            raise VbenchError(f"cannot play {level}")
        self.events.append(f"start {level}")
        beside = Beside(stamp={"noise_level": level})
        try:
            yield beside
        finally:
            self.events.append(f"stop {level}")
            beside.samples.append(Sample("noise_watch", "peak", 3.0, "count"))
            beside.raw["noise_log"] = f"played {level}"


def _run(tmp_path, fake, exp, hook=None, **kw):
    return run_campaign(
        exp,
        TestbedParams(),
        HadoopParams(),
        tmp_path / "camp",
        log=lambda _l: None,
        hosts_source=fake.source(),
        hook=hook,
        **kw,
    )


def _records(tmp_path):
    return list(read_records(tmp_path / "camp" / "samples.jsonl"))


def test_the_condition_levels_are_cells_of_their_own():
    cells = expand(_design(condition=CONDITION))
    assert sorted(c.cell_id for c in cells) == ["b0/native/pi[noise=loud]", "b0/native/pi[noise=none]"]
    assert {condition_level(c, "noise") for c in cells} == {"none", "loud"}


def test_a_condition_cannot_shadow_a_factor():
    with pytest.raises(ParamsError, match="'maps' is a factor of the design already"):
        _design(suite=[{"benchmark": "pi", "config": {"maps": [1, 2]}}], condition={"name": "maps", "levels": ["x"]})


def test_a_design_file_cannot_declare_a_condition(tmp_path):
    f = tmp_path / "d.yaml"
    f.write_text("experiment:\n  name: d\n  suite: [{benchmark: pi}]\n  condition: {name: noise, levels: [none]}\n")
    with pytest.raises(ParamsError, match=r"d.yaml: experiment.condition: is set in code"):
        load_experiment(f)


def test_the_condition_is_part_of_the_design_hash():
    plain, noisy = _design(), _design(condition=CONDITION)
    louder = _design(condition={**CONDITION.model_dump(), "settings": {"volume": 11}})
    assert len({design_hash(plain), design_hash(noisy), design_hash(louder)}) == 3


def test_a_design_and_a_hook_that_do_not_belong_together_are_refused_before_anything_starts(tmp_path, fake_hadoop):
    with pytest.raises(ParamsError, match="experiment.condition: 'noise' is applied by a hook"):
        _run(tmp_path, fake_hadoop, _design(condition=CONDITION))
    with pytest.raises(ParamsError, match="the hook applies 'noise', the design declares no condition"):
        _run(tmp_path, fake_hadoop, _design(), Noise([]))
    assert fake_hadoop.events == [] and not (tmp_path / "camp").exists()


def test_the_hook_wraps_each_run_and_its_samples_share_the_runs_provenance(tmp_path, fake_hadoop):
    events = fake_hadoop.events
    result = _run(tmp_path, fake_hadoop, _design(condition=CONDITION, drop_caches=True), Noise(events))
    assert result.failures == 0 and len(result.ran) == 2
    # Per cell: the neighbour set up, then the page cache dropped on every host, the run, the tear-down.
    first = events.index("execute pi")
    level = events[first - 3].removeprefix("start ")
    assert events[first - 3 : first + 2] == [
        f"start {level}",
        "master: " + drop_caches_line(),
        "worker1: " + drop_caches_line(),
        "execute pi",
        f"stop {level}",
    ]
    records = _records(tmp_path)
    for r in records:
        m = r.metadata
        assert m["run_id"] and m["vbench_commit"] == "0123abcd" and m["design_hash"] and m["cell_id"]
        assert m["block"] == 0 and m["page_cache"] == "dropped" and m["noise_level"] == m["factor.noise"]
    watch = [r for r in records if r.benchmark == "noise_watch"]
    assert len(watch) == 2
    for w in watch:  # stored with the run it watched
        run = [r for r in records if r.benchmark == "pi" and r.metadata["run_id"] == w.metadata["run_id"]]
        assert run and run[0].metadata["cell_id"] == w.metadata["cell_id"]
    raw = sorted((tmp_path / "camp" / "raw").glob("*/noise_log.txt"))
    assert sorted(p.read_text() for p in raw) == ["played loud", "played none"]


def test_what_ran_beside_a_failed_run_is_kept_with_its_failure(tmp_path, fake_hadoop):
    def fails(module, cfg, run_dir):
        raise JobFailed("pi exited 1")

    fake_hadoop.execute = fails
    result = _run(tmp_path, fake_hadoop, _design(condition=CONDITION), Noise(fake_hadoop.events))
    assert result.failures == 2
    records = _records(tmp_path)
    assert sorted(type(r).__name__ for r in records) == ["Failure", "Failure", "Sample", "Sample"]
    assert all(r.metadata["page_cache"] == "kept" for r in records)


def test_a_hook_that_cannot_set_up_fails_its_run_not_the_other_cells(tmp_path, fake_hadoop):
    result = _run(tmp_path, fake_hadoop, _design(condition=CONDITION), Noise(fake_hadoop.events, refuse="loud"))
    assert result.failures == 1 and len(result.ran) == 2
    records = _records(tmp_path)
    (failure,) = [r for r in records if isinstance(r, Failure)]
    assert failure.metadata["cell_id"] == "b0/native/pi[noise=loud]" and "configuration_failed" not in failure.metadata
    assert failure.reason == "set-up beside the run failed: cannot play loud"
    assert [r.metadata["cell_id"] for r in records if isinstance(r, Sample) and r.benchmark == "pi"] == [
        "b0/native/pi[noise=none]"
    ]
    assert fake_hadoop.events.count("execute pi") == 1 and fake_hadoop.events[-1] == "hosts down"


def test_inspect_reads_the_runs_directory_before_it_goes(tmp_path, fake_hadoop):
    seen = []

    class Look(RunHook):
        def inspect(self, cell, cluster, run_dir):
            seen.append((cell.cell_id, run_dir))
            return [Sample("look", "files", 2.0, "count")]

    _run(tmp_path, fake_hadoop, _design(), Look())
    ((cell, run_dir),) = seen
    (look,) = [r for r in _records(tmp_path) if r.benchmark == "look"]
    assert cell == "b0/native/pi" and run_dir == f"/vbench/{look.metadata['run_id']}"


def test_micro_samples_say_the_page_cache_was_kept(tmp_path, fake_hadoop, monkeypatch):
    from vbench.benchmarks.hadoop.execute import BenchRun
    from vbench.campaign import runner

    monkeypatch.setattr(
        runner,
        "measure_micro",
        lambda hosts, item, log=print, layout=None, machine=None: [
            BenchRun("cpu", "cpu-1", {}, samples=[Sample("cpu", "events", 1.0, "events/s")])
        ],
    )
    _run(
        tmp_path,
        fake_hadoop,
        make_experiment({"name": "m", "repetitions": 1, "drop_caches": True, "calibrate": [{"benchmark": "cpu"}]}),
    )
    (s,) = _records(tmp_path)
    assert s.metadata["page_cache"] == "kept" and s.metadata["benchmark_kind"] == "micro"

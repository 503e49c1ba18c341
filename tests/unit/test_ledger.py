"""The campaign ledger never loses or fakes a cell (issue #22, item 4): a cell is done only when
its closing record is there, a torn tail is cut back (and kept aside) on resume, raw outputs and
new directories are fsync'd, and committed campaigns are only added to when asked (--append)."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from vbench import cli, pipeline
from vbench.benchmarks.hadoop.execute import BenchRun
from vbench.campaign import hosts_source, runner
from vbench.campaign.design import Experiment
from vbench.campaign.runner import done_cells, run_campaign
from vbench.commands import isolation_cmd
from vbench.errors import VbenchError
from vbench.params import HadoopParams, TestbedParams
from vbench.samples import Failure, Sample, append_records, read_records
from vbench.store import CampaignStore

from tests.conftest import NoHostsSource

PARAMS = Path(__file__).resolve().parents[2] / "params"


def _sample(cell: str, value: float = 1.0, metric: str = "events") -> Sample:
    return Sample("cpu", metric, value, "events/s", {"cell_id": cell})


def _save_cell(store: CampaignStore, cell: str, n: int = 3) -> None:
    store.save_runs([(f"run-{cell.replace('/', '-')}", [_sample(cell, i) for i in range(n)], {})], {"cell_id": cell})


def _tear_after_lines(path: Path, start: int, whole_lines: int) -> bytes:
    """Power loss during the append that began at byte `start`: `whole_lines` of it reached the
    disk, then half of the next line. Returns what the file held from `start` before the tear."""
    data = path.read_bytes()
    appended = data[start:]
    kept = b"".join(appended.splitlines(keepends=True)[:whole_lines])
    torn = appended.splitlines(keepends=True)[whole_lines][:20]
    path.write_bytes(data[:start] + kept + torn)
    return kept + torn


def _cells_of(path: Path) -> Counter:
    return Counter(r.metadata.get("cell_id") for r in read_records(path))


# -- a cell is done only when its closing record is there ---------------------------------------


def test_a_torn_tail_after_complete_lines_of_a_cell_leaves_that_cell_not_done(tmp_path):
    store = CampaignStore(tmp_path / "camp")
    _save_cell(store, "b0/native/cpu")
    before_b = store.samples_path.stat().st_size
    _save_cell(store, "b1/native/cpu")
    _tear_after_lines(store.samples_path, before_b, whole_lines=2)  # two of b1's three records, then torn
    assert done_cells(store) == {"b0/native/cpu"}
    # Readers do not see the half-recorded cell either: its two whole lines would fake a result.
    assert _cells_of(store.samples_path) == {"b0/native/cpu": 3}


def test_a_ledger_whose_very_first_append_tore_is_not_taken_for_an_old_file(tmp_path):
    store = CampaignStore(tmp_path / "camp")
    _save_cell(store, "b0/native/cpu")
    text = store.samples_path.read_text().splitlines(keepends=True)
    # The marker and two whole records reached the disk, the rest did not.
    store.samples_path.write_text("".join(text[:3]) + text[3][:15])
    assert done_cells(store) == set()
    assert list(read_records(store.samples_path)) == []


def test_a_configuration_failure_is_recorded_but_its_cell_is_not_done(tmp_path):
    store = CampaignStore(tmp_path / "camp")
    f = Failure("cpu", "testbed did not come up", {}, "", {"configuration_failed": True})
    store.save_runs([("unrun-b0", [f], {})], {"cell_id": "b0/native/cpu"}, cell_done=False)
    assert done_cells(store) == set()
    assert [r.reason for r in read_records(store.samples_path)] == ["testbed did not come up"]


# -- a resume cuts the torn tail back, keeps it aside, and runs the cell again -----------------


def _two_cell_design() -> Experiment:
    return Experiment.model_validate({"name": "t", "repetitions": 2, "calibrate": [{"benchmark": "cpu"}]})


@pytest.fixture
def fake_micro(monkeypatch):
    """Every micro cell measures two samples; `ran` lists what was measured."""
    ran: list[str] = []

    def measure(hosts, item, log=print, iperf_pairs=None, layout=None, machine=None):
        ran.append(item.benchmark)
        return [
            BenchRun(
                "cpu",
                f"cpu-{len(ran)}",
                {},
                samples=[Sample("cpu", "events", 1.0 + len(ran), "events/s"), Sample("cpu", "latency", 2.0, "ms")],
            )
        ]

    monkeypatch.setattr(runner, "measure_micro", measure)
    return ran


def _run(camp: Path, log: list[str] | None = None, design: Experiment | None = None, **kw):
    """The micro cells of `design` (two cells by default) on no hosts, into `camp`."""
    return run_campaign(
        design or _two_cell_design(),
        TestbedParams(),
        HadoopParams(),
        camp,
        log=log.append if log is not None else (lambda _line: None),
        kinds=frozenset({"micro"}),
        hosts_source=NoHostsSource(),
        **kw,
    )


def test_resume_cuts_the_torn_tail_keeps_it_aside_and_runs_the_cell_again_once(tmp_path, fake_micro):
    camp = tmp_path / "camp"
    first = _run(camp)
    assert first.ran == ["b0/native/cpu", "b1/native/cpu"]
    samples = camp / "samples.jsonl"
    # The second cell's append tore after its first record (power loss): cut the file there.
    lines = samples.read_bytes().splitlines(keepends=True)
    start = sum(len(x) for x in lines[:-3])  # b1's two records and its closing record are the last lines
    cut = _tear_after_lines(samples, start, whole_lines=1)
    before = samples.read_bytes()[:start]

    log: list[str] = []
    again = _run(camp, log)
    assert again.ran == ["b1/native/cpu"] and again.already_done == 1
    assert any("cut off" in line for line in log), log
    kept = list(camp.glob("samples.jsonl.torn-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == cut  # nothing silently destroyed
    assert samples.read_bytes().startswith(before)
    # Each cell's two samples once: b1's earlier whole line went with the cut.
    assert _cells_of(samples) == {"b0/native/cpu": 2, "b1/native/cpu": 2}
    assert done_cells(CampaignStore(camp)) == {"b0/native/cpu", "b1/native/cpu"}
    assert _run(camp).ran == []


def _retried_design() -> Experiment:
    return Experiment.model_validate({"name": "r", "repetitions": 1, "retries": 1, "calibrate": [{"benchmark": "cpu"}]})


def _failing_then(monkeypatch, second):
    """Attempt 0 of every cell fails; attempt 1 does `second()`."""
    calls: list[int] = []

    def measure(hosts, item, log=print, iperf_pairs=None, layout=None, machine=None):
        calls.append(1)
        if len(calls) == 1:
            return [BenchRun("cpu", "cpu-a0", {}, failure=Failure("cpu", "host busy"))]
        return second()

    monkeypatch.setattr(runner, "measure_micro", measure)


def test_a_retried_cell_is_one_append_closed_once(tmp_path, monkeypatch):
    _failing_then(
        monkeypatch, lambda: [BenchRun("cpu", "cpu-a1", {}, samples=[Sample("cpu", "events", 5.0, "events/s")])]
    )
    camp = tmp_path / "camp"
    _run(camp, design=_retried_design())
    kinds = [json.loads(line)["kind"] for line in (camp / "samples.jsonl").read_text().splitlines()]
    assert kinds == ["ledger", "failure", "sample", "commit"]
    assert [r.metadata["attempt"] for r in read_records(camp / "samples.jsonl")] == [0, 1]


def test_a_cell_interrupted_between_attempts_is_not_done(tmp_path, monkeypatch):
    def interrupted():
        raise KeyboardInterrupt

    _failing_then(monkeypatch, interrupted)
    camp = tmp_path / "camp"
    with pytest.raises(KeyboardInterrupt):
        _run(camp, design=_retried_design())
    # Its first attempt's failure alone must not pass for the finished cell.
    assert done_cells(CampaignStore(camp)) == set()


def test_a_torn_last_line_of_an_old_campaign_is_cut_aside_and_its_cells_stay_done(tmp_path):
    camp = tmp_path / "old"
    old = [
        _sample("b0/native/cpu"),
        _sample("b1/native/cpu"),
        Failure("cpu", "no testbed", {}, "", {"cell_id": "b2/native/cpu", "configuration_failed": True}),
    ]
    append_records(camp / "samples.jsonl", old)  # the old format: no marker, no closing records
    with open(camp / "samples.jsonl", "a") as fh:
        fh.write('{"benchmark": "cpu", "kind": "sam')
    store = CampaignStore(camp)
    assert done_cells(store) == {"b0/native/cpu", "b1/native/cpu"}  # read the old way
    _save_cell(store, "b2/native/cpu", n=1)
    assert [p.read_text() for p in camp.glob("samples.jsonl.torn-*")] == ['{"benchmark": "cpu", "kind": "sam']
    assert done_cells(store) == {"b0/native/cpu", "b1/native/cpu", "b2/native/cpu"}
    assert [r.to_dict() for r in read_records(camp / "samples.jsonl")][:3] == [r.to_dict() for r in old]
    assert len(list(read_records(camp / "samples.jsonl"))) == 4


def test_the_stats_reader_sees_only_whole_appends_and_no_ledger_records(tmp_path):
    from vbench.stats.io import _read_jsonl

    store = CampaignStore(tmp_path / "camp")
    _save_cell(store, "b0/native/cpu", n=2)
    before = store.samples_path.stat().st_size
    _save_cell(store, "b1/native/cpu", n=2)
    _tear_after_lines(store.samples_path, before, whole_lines=1)
    df = _read_jsonl(store.samples_path)
    # Two rows: the first cell's samples; the marker and closing records are not rows.
    assert len(df) == 2 and set(df["cell_id"]) == {"b0/native/cpu"}


# -- raw outputs and new directories are fsync'd ------------------------------------------------


@pytest.fixture
def fsynced(monkeypatch):
    """The paths os.fsync was called on (files and directories), in order."""
    paths: list[Path] = []
    real = os.fsync

    def record(fd):
        paths.append(Path(os.readlink(f"/proc/self/fd/{fd}")))
        return real(fd)

    monkeypatch.setattr(os, "fsync", record)
    return paths


def test_raw_outputs_new_directories_and_the_ledger_are_fsynced(tmp_path, fsynced):
    root = tmp_path / "data" / "raw" / "camp"
    store = CampaignStore(root)
    raw = {"terasort": SimpleNamespace(stdout="out", stderr="err"), "note": "text"}
    store.save_runs([("run-1", [_sample("b0/native/cpu")], raw)], {"cell_id": "b0/native/cpu"})
    run_dir = root / "raw" / "run-1"
    files = {run_dir / "terasort.stdout", run_dir / "terasort.stderr", run_dir / "note.txt", root / "samples.jsonl"}
    assert files <= set(fsynced)
    # Each new directory's entry, in its parent; the raw files' entries in theirs.
    assert {tmp_path, tmp_path / "data", tmp_path / "data" / "raw", root, root / "raw", run_dir} <= set(fsynced)
    # The raw outputs are on disk before the records that point at them.
    assert max(fsynced.index(f) for f in files - {root / "samples.jsonl"}) < fsynced.index(root / "samples.jsonl")


# -- committed campaigns are only added to when asked -------------------------------------------


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _commit_campaign(data: Path, name: str) -> None:
    """data/raw/<name>: a campaign (written by an older vbench) committed to the repository."""
    camp = data / "raw" / name
    append_records(camp / "samples.jsonl", [_sample("b0/native/cpu")])
    (camp / "campaign.json").write_text("{}")
    _git(data.parent, "add", "data")
    _git(data.parent, "commit", "-q", "-m", name)


@pytest.fixture
def committed(tmp_path) -> Path:
    """A git repository whose data/raw/done campaign is committed; returns its data directory."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _commit_campaign(repo / "data", "done")
    return repo / "data"


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_committed_campaign_is_refused_by_the_store_unless_asked(committed):
    camp = committed / "raw" / "done"
    before = (camp / "samples.jsonl").read_bytes()
    with pytest.raises(VbenchError) as err:
        _save_cell(CampaignStore(camp), "b1/native/cpu")
    assert "committed campaign (git tracks its files)" in str(err.value) and "--append" in str(err.value)
    assert "\n" not in str(err.value)
    assert (camp / "samples.jsonl").read_bytes() == before and not (camp / "raw").exists()
    _save_cell(CampaignStore(camp, append=True), "b1/native/cpu")
    assert done_cells(CampaignStore(camp)) == {"b0/native/cpu", "b1/native/cpu"}


def test_a_frozen_mark_refuses_appends_without_git(tmp_path):
    camp = tmp_path / "camp"
    _save_cell(CampaignStore(camp), "b0/native/cpu")
    (camp / "frozen").write_text("the paper's numbers\n")
    with pytest.raises(VbenchError, match=r"'frozen' mark file.*--append"):
        _save_cell(CampaignStore(camp), "b1/native/cpu")
    _save_cell(CampaignStore(camp, append=True), "b1/native/cpu")


def _in_data(data: Path, campaign: str | None = None) -> list[str]:
    """The command-line options for the repository's params, samples under `data`, and the campaign named."""
    return ["--params-dir", str(PARAMS), "--data", str(data), *(["--campaign", campaign] if campaign else [])]


def test_campaign_run_refuses_a_committed_campaign_before_anything_starts(committed, fake_micro, capsys):
    rc = cli.main(["campaign", "run", "default", "--only", "calibrate", *_in_data(committed, "done")])
    line = _one_line(capsys.readouterr().err)
    assert rc != 0 and "committed campaign" in line and "--append" in line
    assert fake_micro == []


def test_the_runner_refuses_a_committed_campaign_unless_append(committed, fake_micro):
    camp = committed / "raw" / "done"
    (camp / "campaign.json").unlink()  # an untracked change: the directory is still committed
    with pytest.raises(VbenchError, match="committed campaign"):
        _run(camp)
    assert fake_micro == [] and not (camp / "campaign.json").exists()
    # Asked: its old record keeps b0 done, b1 runs.
    assert _run(camp, append=True).ran == ["b1/native/cpu"]


def test_bench_run_refuses_a_committed_campaign_and_append_lets_it_through(committed, monkeypatch, capsys):
    def testbed_reached(*_a, **_k):
        raise VbenchError("testbed reached")

    monkeypatch.setattr(hosts_source, "Testbed", testbed_reached)
    camp = committed / "raw" / "done"
    (camp / "campaign.json").unlink()  # samples of no known design: adopted when asked
    # Its old record is b0's: b1 runs.
    argv = ["bench", "run", "cpu", *_in_data(committed, "done"), "--repetitions", "2"]
    rc = cli.main(argv)
    line = _one_line(capsys.readouterr().err)
    assert rc != 0 and "committed campaign" in line and "--append" in line
    assert not (camp / "campaign.json").exists()
    rc = cli.main([*argv, "--append"])
    # Let through: the runner reached the testbed, whose failure is the cell's record.
    assert rc == 1 and "testbed reached" in capsys.readouterr().err
    assert json.loads((camp / "campaign.json").read_text())["experiment"]["experiment"] == "adhoc"
    failures = [r for r in read_records(camp / "samples.jsonl") if isinstance(r, Failure)]
    assert [f.reason for f in failures] == ["testbed reached"]


def test_isolation_run_refuses_its_committed_default_campaign(committed, monkeypatch, capsys):
    def must_not_start(*_a, **_k):
        raise AssertionError("isolation run went past the committed campaign")

    _commit_campaign(committed, "isolation")  # `isolation run`'s default campaign
    monkeypatch.setattr(isolation_cmd, "run_isolation", must_not_start)
    rc = cli.main(
        ["isolation", "run", "--preset", str(PARAMS / "experiments" / "xavier2014.yaml"), *_in_data(committed)]
    )
    line = _one_line(capsys.readouterr().err)
    assert rc != 0 and "isolation is a committed campaign" in line and "--append" in line


def test_pipeline_provision_refuses_to_overwrite_a_committed_campaigns_facts(committed, monkeypatch):
    def must_not_start(*_a, **_k):
        raise AssertionError("provision brought a testbed up for a committed campaign")

    monkeypatch.setattr(pipeline, "Testbed", must_not_start)
    stage = pipeline.Stage(PARAMS, committed, "default", "done")
    with pytest.raises(VbenchError, match="committed campaign.*pipeline.campaign"):
        pipeline.provision(stage)
    assert not (committed / "raw" / "done" / "facts.json").exists()


# -- a directory of samples without a design is not adopted silently ----------------------------


def test_samples_without_campaign_json_are_refused_unless_append(tmp_path, fake_micro):
    camp = tmp_path / "adhoc"
    _save_cell(CampaignStore(camp), "b0/native/cpu")  # e.g. `bench run --campaign adhoc`
    with pytest.raises(VbenchError, match="no campaign.json.*--append"):
        _run(camp)
    assert fake_micro == [] and not (camp / "campaign.json").exists()
    _run(camp, append=True)
    assert json.loads((camp / "campaign.json").read_text())["experiment"]["name"] == "t"

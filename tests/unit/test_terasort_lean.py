"""TeraSort's cheaper runs (issue #51): the input generated once per cluster and reused, and the
output-size gate instead of TeraValidate. The executor runs against a fake cluster whose HDFS is
a set of paths, so what is skipped, removed and listed is the executor's own logic."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pytest

from vbench.benchmarks.base import StepOutput
from vbench.benchmarks.hadoop import execute, terasort
from vbench.benchmarks.hadoop.steps import JavaStep, ListStep
from vbench.errors import JobFailed, ParamsError
from vbench.hadoop import jobs, webhdfs
from vbench.hadoop.cluster import CommandResult
from vbench.monitor.machine_cpu import Mark
from vbench.samples import MACHINE_CPU_FIELD, MACHINE_WALL_FIELD, Sample

LEAN = terasort.Config(size_mb=1, generate="once_per_cluster", gate="output_size")
ROW_BYTES = jobs.teragen_rows(1024**2) * jobs.TERA_ROW_BYTES


@dataclass
class FakeHdfs:
    """Just enough of a cluster for `execute`: java writes its last argument's directory;
    exists, remove and listing answer over the set of paths."""

    paths: set[str] = field(default_factory=set)
    jobs_run: list[str] = field(default_factory=list)
    sorted_bytes: int = ROW_BYTES

    def _ok(self, out: str = "", code: int = 0) -> CommandResult:
        return CommandResult("fake", code, out, "", 0.5)

    def java(self, main_class, args, timeout=None):
        job, out = args[0], args[-1]
        self.jobs_run.append(job)
        if job == "terasort":
            self.paths |= {f"{out}/_SUCCESS", f"{out}/part-r-00000", f"{out}/_partition.lst"}
        else:
            self.paths.add(f"{out}/_SUCCESS")
        return self._ok()

    def exists(self, path):
        return path in self.paths

    def remove(self, path):
        self.paths = {p for p in self.paths if not p.startswith(path)}
        return True

    def listing(self, path):
        names = sorted(p[len(path) + 1 :] for p in self.paths if p.startswith(path + "/"))
        return [webhdfs.FileEntry(n, self.sorted_bytes if n.startswith("part-") else 11, False) for n in names]


def run(cluster: FakeHdfs, cfg: terasort.Config = LEAN) -> execute.BenchRun:
    return execute.execute(cluster, terasort, cfg, job_details=False, log=lambda _m: None)


def test_the_input_is_generated_once_per_cluster_and_each_run_sorts_it():
    cluster = FakeHdfs()
    first, second = run(cluster), run(cluster)
    assert first.ok and second.ok, (first.failure, second.failure)
    assert cluster.jobs_run == ["teragen", "terasort", "terasort"]
    assert {s.metric for s in first.samples} >= {"teragen_time", "terasort_time"}
    assert "teragen_time" not in {s.metric for s in second.samples}
    assert [s.metadata["input_generated"] for s in (first.samples[0], second.samples[0])] == [True, False]
    # The shared input outlives the runs; each run's own directory does not.
    assert f"{terasort.cluster_input_dir(LEAN)}/_SUCCESS" in cluster.paths
    assert not any(p.startswith("/vbench/") for p in cluster.paths)


def test_a_partial_input_is_removed_and_generated_again():
    gen = terasort.cluster_input_dir(LEAN)
    cluster = FakeHdfs(paths={f"{gen}/part-m-00000"})  # a TeraGen that died: no _SUCCESS
    assert run(cluster).ok
    assert cluster.jobs_run[0] == "teragen" and f"{gen}/part-m-00000" not in cluster.paths


def test_the_input_is_named_by_everything_teragen_was_given():
    dirs = {
        terasort.cluster_input_dir(terasort.Config(size_mb=m, maps=k, replication=r, generate="once_per_cluster"))
        for m in (1, 2)
        for k in (1, 2)
        for r in (1, 3)
    }
    assert len(dirs) == 8


def test_an_output_of_the_wrong_size_fails_the_run():
    cluster = FakeHdfs(sorted_bytes=ROW_BYTES - 100)
    r = run(cluster)
    assert not r.ok and "bytes" in r.failure.reason and not r.samples


def test_output_size_gate_replaces_teravalidate_only_when_asked():
    lean = terasort.steps(LEAN, "/r")
    assert [s.name for s in lean] == ["teragen", "terasort", "sizes"]
    assert lean[-1] == ListStep("sizes", "/r/sorted")
    assert lean[0].reuses == lean[1].args[-2] == terasort.cluster_input_dir(LEAN)
    plain = terasort.steps(terasort.Config(size_mb=1), "/r")
    assert [s.name for s in plain] == ["teragen", "terasort", "teravalidate", "report"]
    assert all(s.reuses is None for s in plain if isinstance(s, JavaStep))


def test_output_bytes_counts_the_part_files_and_refuses_garbled_listings():
    entries = [webhdfs.FileEntry("part-r-00000", 100, False), webhdfs.FileEntry("_partition.lst", 9, False)]
    assert terasort.output_bytes(webhdfs.listing_text([*entries, webhdfs.FileEntry("part-r-00001", 50, False)])) == 150
    for garbled in ("", "not json", '[{"name": "part-r-0"}]', '{"a": 1}'):
        with pytest.raises(JobFailed, match="unreadable"):
            terasort.output_bytes(garbled)


def test_generate_only_takes_neither_sort_option():
    with pytest.raises(ParamsError):
        terasort.Config(generate_only=True, generate="once_per_cluster")


def test_parse_without_teragen_has_no_teragen_samples():
    listing = webhdfs.listing_text([webhdfs.FileEntry("part-r-00000", ROW_BYTES, False)])
    outputs = {"terasort": StepOutput("", "", 20.0), "sizes": StepOutput(listing, "", 0.1)}
    samples = {s.metric: s.value for s in terasort.parse(outputs, LEAN)}
    assert samples == {"terasort_time": 20.0, "terasort_throughput": 1 / 20.0}


def test_each_steps_jobhistory_samples_carry_the_machine_cpu_over_that_step(monkeypatch):
    # The machine's busy ticks grow by 100 per reading: TeraGen's, TeraSort's and TeraValidate's
    # spans each read two marks, so each step is 100 ticks and its own wall seconds.
    marks = iter([Mark(busy=100 * i, at=10.0 * i * i) for i in range(10)])
    monkeypatch.setattr(
        execute,
        "job_detail_samples",
        lambda cluster, benchmark, step, log: [
            Sample(benchmark, f"{step}_job_time", 1.0, "s", {"step": step, "job_id": f"job_{step}"})
        ],
    )
    cfg = terasort.Config(size_mb=1, gate="output_size")
    run = execute.execute(FakeHdfs(), terasort, cfg, log=lambda _m: None, machine=lambda: next(marks))

    assert run.ok, run.failure
    stamped = {s.metadata["step"]: s.metadata for s in run.samples if "step" in s.metadata}
    hz = os.sysconf("SC_CLK_TCK")
    assert set(stamped) == {"teragen", "terasort"}
    # Marks 0-1 around TeraGen, 2-3 around TeraSort: (10*i*i) makes every span's wall different.
    assert stamped["teragen"][MACHINE_WALL_FIELD] == 10.0 and stamped["terasort"][MACHINE_WALL_FIELD] == 50.0
    assert stamped["teragen"][MACHINE_CPU_FIELD] == round(100 / hz, 3) == stamped["terasort"][MACHINE_CPU_FIELD]
    # The parser's own samples are not a job's: they stay as they were.
    assert all(MACHINE_CPU_FIELD not in s.metadata for s in run.samples if "step" not in s.metadata)


def test_without_a_machine_reader_nothing_is_stamped(monkeypatch):
    monkeypatch.setattr(
        execute,
        "job_detail_samples",
        lambda cluster, benchmark, step, log: [
            Sample(benchmark, f"{step}_job_time", 1.0, "s", {"step": step, "job_id": f"job_{step}"})
        ],
    )
    run = execute.execute(FakeHdfs(), terasort, terasort.Config(size_mb=1, gate="output_size"), log=lambda _m: None)

    assert run.ok and all(MACHINE_CPU_FIELD not in s.metadata for s in run.samples)

"""TeraSort's cheaper runs (issue #51): the input generated once per cluster and reused, and the
output-size gate instead of TeraValidate. The executor runs against a fake cluster whose HDFS is
a set of paths, so what is skipped, removed and read is the executor's own logic."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

import pytest

from vbench.benchmarks.base import StepOutput
from vbench.benchmarks.hadoop import execute, terasort
from vbench.benchmarks.hadoop.steps import JavaStep, ReadStep
from vbench.errors import JobFailed, ParamsError
from vbench.hadoop import jobs
from vbench.hadoop.cluster import CommandResult

LEAN = terasort.Config(size_mb=1, generate="once_per_cluster", gate="output_size")
ROW_BYTES = jobs.teragen_rows(1024**2) * jobs.TERA_ROW_BYTES


@dataclass
class FakeHdfs:
    """Just enough of a cluster for `execute`: java writes its last argument's directory, fs
    answers -test, -rm, -du over the set of paths."""

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

    def fs(self, op, *args):
        if op == "-test":
            return self._ok(code=0 if args[-1] in self.paths else 1)
        if op == "-rm":
            self.paths = {p for p in self.paths if not p.startswith(args[-1])}
            return self._ok()
        if op == "-du":
            hits = [p for p in sorted(self.paths) if fnmatch.fnmatch(p, args[-1])]
            return self._ok("".join(f"{self.sorted_bytes}  {self.sorted_bytes}  {p}\n" for p in hits))
        raise AssertionError(f"unexpected fs {op}")


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
    assert isinstance(lean[-1], ReadStep) and lean[-1].op == "-du" and lean[-1].hdfs_glob == "/r/sorted/part-r-*"
    assert lean[0].reuses == lean[1].args[-2] == terasort.cluster_input_dir(LEAN)
    plain = terasort.steps(terasort.Config(size_mb=1), "/r")
    assert [s.name for s in plain] == ["teragen", "terasort", "teravalidate", "report"]
    assert all(s.reuses is None for s in plain if isinstance(s, JavaStep))


def test_output_bytes_refuses_garbled_listings():
    assert terasort.output_bytes("100  300  /a\n\n50 150 /b\n") == 150
    with pytest.raises(JobFailed, match="unreadable"):
        terasort.output_bytes("du: cannot access\n")


def test_generate_only_takes_neither_sort_option():
    with pytest.raises(ParamsError):
        terasort.Config(generate_only=True, generate="once_per_cluster")


def test_parse_without_teragen_has_no_teragen_samples():
    outputs = {"terasort": StepOutput("", "", 20.0), "sizes": StepOutput(f"{ROW_BYTES} 0 /x\n", "", 0.1)}
    samples = {s.metric: s.value for s in terasort.parse(outputs, LEAN)}
    assert samples == {"terasort_time": 20.0, "terasort_throughput": 1 / 20.0}

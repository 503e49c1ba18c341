"""clientjvm: a waiting cluster's and a Hadoop client JVM's machine CPU. Its steps and parser are
pure; the executor runs them against a fake cluster, with a stand-in for the machine's marks."""

from __future__ import annotations

import os

import pytest

from vbench.benchmarks.base import StepOutput
from vbench.benchmarks.hadoop import clientjvm, execute
from vbench.benchmarks.hadoop.steps import JavaStep, WaitStep
from vbench.errors import JobFailed, ParamsError
from vbench.hadoop.cluster import CommandResult
from vbench.monitor.machine_cpu import Mark
from vbench.samples import MACHINE_CPU_FIELD, MACHINE_WALL_FIELD


def test_the_cluster_waits_first_then_each_client_jvm_is_its_own_step_without_a_job():
    steps = clientjvm.steps(clientjvm.Config(count=3, idle_s=15), "/vbench/r")
    assert steps[0] == WaitStep("idle", 15.0)
    assert [s.name for s in steps[1:]] == ["jvm1", "jvm2", "jvm3"]
    for s in steps[1:]:
        assert isinstance(s, JavaStep)
        assert (s.main_class, s.args, s.job_details) == ("org.apache.hadoop.fs.FsShell", ("-ls", "/"), False)


def test_bad_counts_and_waits_are_refused_naming_the_field():
    with pytest.raises(ParamsError, match="count"):
        clientjvm.Config(count=0)
    with pytest.raises(ParamsError, match="idle_s"):
        clientjvm.Config(idle_s=0.5)


def test_parse_gives_one_sample_per_step_each_naming_it():
    outs = {"idle": StepOutput("", "", 20.0004), "jvm1": StepOutput("", "", 1.2), "jvm2": StepOutput("", "", 4.5)}
    samples = clientjvm.parse(outs, clientjvm.Config(count=2))
    assert [(s.metric, s.value, s.metadata["step"]) for s in samples] == [
        ("idle_time", 20.0, "idle"),
        ("client_jvm_time", 1.2, "jvm1"),
        ("client_jvm_time", 4.5, "jvm2"),
    ]
    with pytest.raises(JobFailed, match="jvm2"):
        clientjvm.parse({"idle": outs["idle"], "jvm1": outs["jvm1"]}, clientjvm.Config(count=2))


class FakeCluster:
    def __init__(self) -> None:
        self.java_runs: list[tuple[str, tuple[str, ...]]] = []

    def java(self, main_class, args, timeout=None):
        self.java_runs.append((main_class, tuple(args)))
        return CommandResult("fake", 0, "Found 1 items\n", "", 0.7)

    def remove(self, path):
        return True


def test_each_step_sample_carries_the_machine_cpu_over_its_own_step(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(execute.time, "sleep", slept.append)
    marks = iter([Mark(busy=50 * i * i, at=float(i)) for i in range(10)])
    cluster = FakeCluster()
    run = execute.execute(
        cluster, clientjvm, clientjvm.Config(count=2, idle_s=7), log=lambda _m: None, machine=lambda: next(marks)
    )

    assert run.ok, run.failure
    assert slept == [7.0] and len(cluster.java_runs) == 2
    hz = os.sysconf("SC_CLK_TCK")
    by_step = {s.metadata["step"]: s.metadata for s in run.samples}
    # Marks 0-1 around the wait, 2-3 and 4-5 around the JVMs: 50*i*i makes each span different.
    assert by_step["idle"][MACHINE_CPU_FIELD] == round(50 / hz, 3)
    assert by_step["jvm1"][MACHINE_CPU_FIELD] == round(250 / hz, 3)
    assert by_step["jvm2"][MACHINE_CPU_FIELD] == round(450 / hz, 3)
    assert all(m[MACHINE_WALL_FIELD] == 1.0 for m in by_step.values())

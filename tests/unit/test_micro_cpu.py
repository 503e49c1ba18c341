"""cpu module (sysbench cpu): command line, parse of captured text, real run."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from vbench.benchmarks.micro import cpu
from vbench.errors import JobFailed, ParamsError

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
TEXT = (DATA / "cpu.txt").read_text()
CFG = cpu.CpuConfig(time_s=2)  # what the capture was made with


def test_argv_time_bounded_by_default():
    argv = cpu.argv(cpu.CpuConfig())
    assert argv == ["sysbench", "cpu", "--cpu-max-prime=10000", "--threads=1", "--time=5", "run"]
    assert cpu.command(cpu.CpuConfig()) == "LC_ALL=C " + shlex.join(argv)


def test_argv_fixed_work_lifts_the_time_limit():
    argv = cpu.argv(cpu.CpuConfig(events=5000, threads=2, max_prime=20000), "/w")
    assert {"--events=5000", "--time=0", "--threads=2", "--cpu-max-prime=20000"} <= set(argv)
    assert "--time=5" not in argv


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"max_prime": 1}, "max_prime"),
        ({"threads": 0}, "threads"),
        ({"time_s": 0}, "time_s"),
        ({"events": 0}, "events"),
        ({"threads": True}, "threads"),
    ],
)
def test_config_refuses_bad_values_naming_the_field(kwargs, field):
    with pytest.raises(ParamsError, match=field):
        cpu.CpuConfig(**kwargs)


def test_parse_captured_text():
    s = {x.metric: x for x in cpu.parse_stdout(TEXT, CFG)}
    assert {m: x.unit for m, x in s.items()} == cpu.METRICS
    # Read off the file.
    assert s["events_per_s"].value == 2448.79
    assert s["total_time"].value == 2.0001
    assert s["latency_avg"].value == 0.41
    events = int(re.search(r"events \(avg/stddev\):\s+([0-9.]+)/", TEXT)[1].split(".")[0])
    assert s["total_events"].value == events
    # events per second is the event count over the run time, to sysbench's rounding.
    assert s["events_per_s"].value == pytest.approx(events / s["total_time"].value, rel=0.01)
    assert s["events_per_s"].metadata["sysbench_version"] == "1.0.20"
    assert s["events_per_s"].metadata["time_s"] == 2


@pytest.mark.parametrize("text", ["", "FATAL: invalid option", "events per second: many"])
def test_parse_garbage_raises_jobfailed(text):
    with pytest.raises(JobFailed):
        cpu.parse_stdout(text, CFG)


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("sysbench") is None, reason="sysbench not installed")
def test_run_real_sysbench_cpu():
    import invoke

    samples, raw = cpu.run(invoke.Context(), cpu.CpuConfig(events=200), "/unused")
    s = {x.metric: x for x in samples}
    assert s["total_events"].value == 200 and s["events_per_s"].value > 0
    assert "CPU speed" in raw

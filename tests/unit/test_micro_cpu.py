"""cpu module (sysbench cpu): command line, parse of captured text, real run."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from vbench.benchmarks.micro import cpu

from tests.unit.builders import by_metric, config_refusal_test, garbage_refusal_test, run_here, runs_here

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


test_config_refuses_bad_values_naming_the_field = config_refusal_test(
    cpu.CpuConfig,
    [
        ({"max_prime": 1}, "max_prime"),
        ({"threads": 0}, "threads"),
        ({"time_s": 0}, "time_s"),
        ({"events": 0}, "events"),
        ({"threads": True}, "threads"),
    ],
)


def test_parse_captured_text():
    s = by_metric(cpu.parse_stdout(TEXT, CFG))
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


test_parse_garbage_raises_jobfailed = garbage_refusal_test(
    cpu.parse_stdout,
    CFG,
    ["", "FATAL: invalid option", "events per second: many"],
)


@runs_here("sysbench")
def test_run_real_sysbench_cpu():
    s, raw = run_here(cpu, cpu.CpuConfig(events=200))
    assert s["total_events"].value == 200 and s["events_per_s"].value > 0
    assert "CPU speed" in raw

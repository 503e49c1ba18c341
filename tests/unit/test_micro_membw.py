"""membw module (sysbench memory): command line, parse of captured text, real run."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from vbench.benchmarks.micro import membw

from tests.unit.builders import by_metric, config_refusal_test, garbage_refusal_test, run_here, runs_here

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
TEXT = (DATA / "membw.txt").read_text()
CFG = membw.MembwConfig(time_s=2)  # what the capture was made with


def test_argv():
    cfg = membw.MembwConfig(block_k=64, oper="read", access_mode="rnd", threads=2)
    argv = membw.argv(cfg)
    assert argv[:2] == ["sysbench", "memory"] and argv[-1] == "run"
    for flag in (
        "--memory-block-size=64K",
        "--memory-total-size=102400M",
        "--memory-oper=read",
        "--memory-access-mode=rnd",
        "--threads=2",
        "--time=5",
    ):
        assert flag in argv
    assert membw.command(cfg) == "LC_ALL=C " + shlex.join(argv)


test_config_refuses_bad_values_naming_the_field = config_refusal_test(
    membw.MembwConfig,
    [
        ({"block_k": 0}, "block_k"),
        ({"oper": "copy"}, "oper"),
        ({"access_mode": "random"}, "access_mode"),
        ({"total_mb": -1}, "total_mb"),
        ({"time_s": 0}, "time_s"),
    ],
)


def test_parse_captured_text():
    s = by_metric(membw.parse_stdout(TEXT, CFG))
    assert {m: x.unit for m, x in s.items()} == membw.METRICS
    # Read off the file: "50621.00 MiB transferred (25290.56 MiB/sec)", "total time: 2.0001s".
    assert s["bandwidth"].value == 25290.56
    assert s["transferred"].value == 50621.0
    assert s["ops_per_s"].value == 25290.56
    assert s["total_time"].value == 2.0001
    ops = int(re.search(r"total number of events:\s+(\d+)", TEXT)[1])
    assert ops == s["transferred"].value  # 1 MiB blocks: one operation per MiB
    assert s["bandwidth"].value == pytest.approx(ops / s["total_time"].value, rel=0.01)


test_parse_garbage_raises_jobfailed = garbage_refusal_test(
    membw.parse_stdout,
    CFG,
    ["", "FATAL: memory test failed", "1.00 MB transferred (3 MB/sec)"],
)


@runs_here("sysbench")
def test_run_real_sysbench_memory():
    s, raw = run_here(membw, membw.MembwConfig(total_mb=256, time_s=1))
    assert s["transferred"].value == 256 and s["bandwidth"].value > 0
    assert "MiB transferred" in raw

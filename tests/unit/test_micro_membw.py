"""membw module (sysbench memory): command line, parse of captured text, real run."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from vbench.benchmarks.micro import membw
from vbench.errors import JobFailed, ParamsError

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


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"block_k": 0}, "block_k"),
        ({"oper": "copy"}, "oper"),
        ({"access_mode": "random"}, "access_mode"),
        ({"total_mb": -1}, "total_mb"),
        ({"time_s": 0}, "time_s"),
    ],
)
def test_config_refuses_bad_values_naming_the_field(kwargs, field):
    with pytest.raises(ParamsError, match=field):
        membw.MembwConfig(**kwargs)


def test_parse_captured_text():
    s = {x.metric: x for x in membw.parse_stdout(TEXT, CFG)}
    assert {m: x.unit for m, x in s.items()} == membw.METRICS
    # Read off the file: "50621.00 MiB transferred (25290.56 MiB/sec)", "total time: 2.0001s".
    assert s["bandwidth"].value == 25290.56
    assert s["transferred"].value == 50621.0
    assert s["ops_per_s"].value == 25290.56
    assert s["total_time"].value == 2.0001
    ops = int(re.search(r"total number of events:\s+(\d+)", TEXT)[1])
    assert ops == s["transferred"].value  # 1 MiB blocks: one operation per MiB
    assert s["bandwidth"].value == pytest.approx(ops / s["total_time"].value, rel=0.01)


@pytest.mark.parametrize("text", ["", "FATAL: memory test failed", "1.00 MB transferred (3 MB/sec)"])
def test_parse_garbage_raises_jobfailed(text):
    with pytest.raises(JobFailed):
        membw.parse_stdout(text, CFG)


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("sysbench") is None, reason="sysbench not installed")
def test_run_real_sysbench_memory():
    import invoke

    samples, raw = membw.run(invoke.Context(), membw.MembwConfig(total_mb=256, time_s=1), "/unused")
    s = {x.metric: x for x in samples}
    assert s["transferred"].value == 256 and s["bandwidth"].value > 0
    assert "MiB transferred" in raw

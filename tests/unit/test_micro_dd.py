"""dd module: command line, parse of captured output, run through a fake and a real context."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from invoke import Result

from vbench.benchmarks.micro import dd
from vbench.errors import JobFailed

from tests.unit.builders import config_refusal_test, garbage_refusal_test, runs_here

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
TEXT = (DATA / "dd.txt").read_text()
CFG = dd.DdConfig(bs_mb=4, count=4, repeats=3)  # what the capture was made with


def test_command_writes_with_fdatasync_and_repeats():
    cmd = dd.command(dd.DdConfig(), "/data/w")
    assert "dd if=/dev/zero of=/data/w/vbench-dd.dat bs=4M count=8 conv=fdatasync 2>&1" in cmd
    assert "$(seq 1 3)" in cmd
    assert cmd.startswith("export LC_ALL=C;")
    assert cmd.endswith("rm -f /data/w/vbench-dd.dat; exit $rc")


def test_liu2012_preset_is_the_papers_scale():
    cfg = dd.PRESETS["liu2012"]
    assert (cfg.bs_mb, cfg.count, cfg.repeats) == (32, 100, 6)
    assert "bs=32M count=100 conv=fdatasync" in dd.command(cfg, "/w")


test_config_refuses_bad_values_naming_the_field = config_refusal_test(
    dd.DdConfig,
    [({"bs_mb": 0}, "bs_mb"), ({"count": -3}, "count"), ({"repeats": "6"}, "repeats"), ({"bs_mb": 4096}, "bs_mb")],
)


def test_parse_captured_output():
    samples = dd.parse_stdout(TEXT, CFG)
    bw = [s for s in samples if s.metric == "write_bw"]
    times = [s for s in samples if s.metric == "write_time"]
    assert len(bw) == len(times) == 3
    assert {s.unit for s in bw} == {"MB/s"} and {s.unit for s in times} == {"s"}
    assert [s.metadata["repeat"] for s in bw] == [1, 2, 3]
    # Read off the file: 16777216 bytes in 0.0314652 s, 0.0633636 s, 0.0366918 s.
    assert [s.value for s in times] == [0.0314652, 0.0633636, 0.0366918]
    assert bw[0].value == pytest.approx(16777216 / 0.0314652 / 1e6)
    # dd's own rounded rate, read with a different pattern, agrees to its 3 digits.
    printed = [float(x) for x in re.findall(r", ([0-9.]+) MB/s$", TEXT, re.M)]
    assert printed == [533, 265, 457]
    assert [round(s.value) for s in bw] == [533, 265, 457]


test_parse_garbage_raises_jobfailed = garbage_refusal_test(
    dd.parse_stdout,
    CFG,
    ["", "dd: failed to open '/x': Permission denied", "garbage\n1 2 3"],
)


def test_parse_refuses_missing_repeats_and_short_writes():
    with pytest.raises(JobFailed, match="expected 6"):
        dd.parse_stdout(TEXT, dd.DdConfig(bs_mb=4, count=4, repeats=6))
    short = TEXT.replace(
        "16777216 bytes (17 MB, 16 MiB) copied, 0.0633636", "8388608 bytes (8.4 MB, 8.0 MiB) copied, 0.0633636"
    )
    with pytest.raises(JobFailed, match="repeat 2 wrote 8388608"):
        dd.parse_stdout(short, CFG)


def test_run_reports_the_tail_of_the_output_on_failure(fake_context):
    out = "dd: error writing '/w/vbench-dd.dat': No space left on device\n"
    with pytest.raises(JobFailed, match="No space left on device"):
        dd.run(fake_context(Result(stdout=out, exited=1)), CFG, "/w")


@runs_here("dd")
def test_run_real_dd_small():
    import invoke

    cfg = dd.DdConfig(bs_mb=1, count=4, repeats=2)
    with tempfile.TemporaryDirectory(prefix="vbench-dd-") as wd:
        samples, raw = dd.run(invoke.Context(), cfg, wd)
        assert list(Path(wd).iterdir()) == []
    assert "records out" in raw
    assert [s.metadata["repeat"] for s in samples if s.metric == "write_bw"] == [1, 2]
    assert all(s.value > 0 and s.metadata["bytes"] == 4 * 2**20 for s in samples)

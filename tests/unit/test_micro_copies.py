"""Copies of a micro-benchmark's timed program at once (`copies` of rpc and jvmstart, issue #53): the
shell lines run for real by /bin/sh, the outputs split and combined, and both benchmarks' scripts
unchanged at one copy."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vbench.benchmarks import registry
from vbench.benchmarks.micro import jvmstart, rpc
from vbench.benchmarks.micro.copies import copy_outputs, in_copies, per_operation_together
from vbench.errors import JobFailed, ParamsError

JAVA = Path(jvmstart.DEFAULT_JAVA_HOME) / "bin" / "java"


def _sh(script: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, timeout=60)


def test_one_copy_is_the_script_itself_and_both_benchmarks_scripts_are_unchanged():
    assert in_copies("x", "echo hi", 1, "/w") == "echo hi"
    for module in (rpc, jvmstart):
        default = module.Config()
        assert default.copies == 1
        assert module.command(default, "/w") == module.command(module.Config(copies=1), "/w")
        assert "copy=" not in module.command(default, "/w")
    with pytest.raises(ValueError, match="at least 1"):
        in_copies("x", "echo hi", 0, "/w")


def test_the_copies_run_at_once_and_their_outputs_come_back_in_order(tmp_path):
    # Each copy says it is there, then waits for all three to be there: only copies that run at
    # once get past the wait (a copy alone would give up after 20 s and say so). `$i` is the copy's
    # number as the subshell inherited it.
    script = (
        f'touch {tmp_path}/here.$i; t=0; while [ "$(ls {tmp_path} | grep -c here)" -lt 3 ]; do '
        't=$((t + 1)); [ $t -lt 400 ] || { echo alone; exit 9; }; sleep 0.05; done; echo "copy $i"; echo done'
    )
    done = _sh(in_copies("x", script, 3, str(tmp_path)))
    assert done.returncode == 0, done.stdout
    outputs = copy_outputs("x", done.stdout, 3)
    assert [o.splitlines() for o in outputs] == [[f"copy {i}", "done"] for i in (1, 2, 3)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here.1", "here.2", "here.3"]  # no output file left


def test_the_first_failing_copys_status_is_the_scripts(tmp_path):
    assert _sh(in_copies("x", "exit 0", 2, str(tmp_path))).returncode == 0
    # Copies 2 and 3 fail, 3 later and with another status: the script exits with copy 2's.
    done = _sh(in_copies("x", "case $i in 2) exit 7;; 3) sleep 0.3; exit 5;; esac", 3, str(tmp_path)))
    assert done.returncode == 7 and done.stdout.count("x copy=") == 3
    assert list(tmp_path.iterdir()) == []  # the outputs are removed, a failed copy's too


def test_outputs_without_their_copy_lines_in_order_are_refused():
    assert copy_outputs("x", "anything", 1) == ["anything"]
    with pytest.raises(JobFailed, match="copies 1-2 in order, found copies none"):
        copy_outputs("x", "x repeat=1\n", 2)
    with pytest.raises(JobFailed, match=r"found copies \['2', '1'\]"):
        copy_outputs("x", "x copy=2\na\nx copy=1\nb\n", 2)


def test_the_price_of_copies_at_once_is_the_inverse_of_their_summed_rates():
    assert per_operation_together([3.0]) == 3.0
    assert per_operation_together([2.0, 2.0]) == pytest.approx(1.0)
    assert per_operation_together([1.0, 3.0]) == pytest.approx(0.75)
    with pytest.raises(ValueError):
        per_operation_together([1.0, 0.0])
    with pytest.raises(ValueError):
        per_operation_together([])


JAVA_LINE = 'rpc java=/usr/bin/java version=openjdk version "17.0.15" 2025-04-15\n'


def test_rpc_with_two_copies_reads_each_jvms_calls_and_prices_them_together():
    cfg = rpc.RpcConfig(seconds=0.5, repeats=2, warmup_s=0.5, copies=2)
    text = (
        JAVA_LINE
        + "rpc copy=1\nrpc warmup calls=10 ns=5\nrpc repeat=1 calls=1000 ns=500000000\nrpc repeat=2 calls=500 ns=500000000\n"
        + "rpc copy=2\nrpc warmup calls=20 ns=5\nrpc repeat=1 calls=1000 ns=510000000\nrpc repeat=2 calls=1500 ns=500000000\n"
    )
    samples = rpc.parse_stdout(text, cfg)
    per_call = [s for s in samples if s.metric == "rpc_us"]
    assert [s.value for s in per_call] == pytest.approx([1 / (1 / 500 + 1 / 510), 1 / (1 / 1000 + 3 / 1000)])
    assert [s.metadata["calls"] for s in per_call] == [2000, 2000]
    assert [s.value for s in samples if s.metric == "elapsed"] == pytest.approx([0.51, 0.5])
    assert {s.metadata["warmup_calls"] for s in samples} == {30}
    assert {s.metadata["copies"] for s in samples} == {2}
    with pytest.raises(JobFailed, match="expected 2 result lines, found 1"):
        rpc.parse_stdout(text.replace("rpc repeat=2 calls=1500 ns=500000000\n", ""), cfg)


def test_jvmstart_with_two_copies_prices_their_starts_together():
    cfg = jvmstart.JvmStartConfig(count=2, repeats=1, windows=1, copies=2)
    line = "jvmstart repeat=1 window=1 count=2 empty=1000 start=2000 end={}\n"
    text = (
        "jvmstart java=/j version=v\n"
        + "jvmstart copy=1\n"
        + line.format(2000 + 100_000_000 + 1000)
        + "jvmstart copy=2\n"
        + line.format(2000 + 300_000_000 + 1000)
    )
    samples = jvmstart.parse_stdout(text, cfg)
    # Copy 1: 50 ms a start; copy 2: 150 ms; together 1 / (1/50 + 1/150) = 37.5 ms.
    assert [s.value for s in samples if s.metric == "jvm_start_ms"] == pytest.approx([37.5])
    assert [s.value for s in samples if s.metric == "elapsed"] == pytest.approx([0.300001])


@pytest.mark.parametrize("module", [rpc, jvmstart])
def test_copies_out_of_range_are_refused_naming_the_field(module):
    for text in ("0", "17"):
        with pytest.raises(ParamsError) as info:
            registry.make_config(module, {"copies": text})
        assert info.value.field == f"{module.NAME}.copies"


@pytest.mark.skipif(not JAVA.exists() or shutil.which("sh") is None, reason="needs the JDK Hadoop's hosts use")
def test_two_rpc_jvms_run_for_real_and_leave_the_work_dir_as_they_found_it(tmp_path):
    cfg = rpc.RpcConfig(seconds=0.5, repeats=1, warmup_s=0.5, copies=2)
    done = subprocess.run(["/bin/sh", "-c", rpc.command(cfg, str(tmp_path))], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("rpc copy=") == 2
    (per_call,) = [s for s in rpc.parse_stdout(done.stdout, cfg) if s.metric == "rpc_us"]
    assert 1 < per_call.value < 1e6 and per_call.metadata["calls"] > 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not JAVA.exists() or shutil.which("sh") is None, reason="needs the JDK Hadoop's hosts use")
def test_two_jvmstart_loops_run_for_real(tmp_path):
    cfg = jvmstart.JvmStartConfig(count=1, repeats=1, windows=1, warmup_starts=0, copies=2)
    done = subprocess.run(["/bin/sh", "-c", jvmstart.command(cfg, str(tmp_path))], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (start,) = [s for s in jvmstart.parse_stdout(done.stdout, cfg) if s.metric == "jvm_start_ms"]
    assert 1 < start.value < 60_000
    assert list(tmp_path.iterdir()) == []

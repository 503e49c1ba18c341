"""The rpc micro-benchmark (a loopback RPC as a JVM pays it, issue #53): its script, its parser
against output captured here (tests/data/micro/README.md), its refusals, and its program run for
real by this machine's java."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from invoke import Result

from vbench.benchmarks import registry
from vbench.benchmarks.micro import jvmstart, rpc
from vbench.campaign.measure import failure_reason
from vbench.errors import JobFailed, ParamsError

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
CAPTURED = rpc.RpcConfig(seconds=0.5, repeats=2, warmup_s=0.5, other_cpus_busy=True)
JAVA_LINE = 'rpc java=/usr/bin/java version=openjdk version "17.0.15" 2025-04-15\n'
HEADER = JAVA_LINE + "rpc busy_loops=1\n"


def _captured() -> str:
    return (DATA / "rpc.txt").read_text()


def test_the_script_writes_the_program_to_the_work_dir_runs_it_and_removes_it():
    cmd = rpc.command(rpc.RpcConfig(seconds=2.5, repeats=4, warmup_s=1, payload=100, other_cpus_busy=True), "/w d/")
    assert "cd '/w d' || exit 1; trap 'kill $loops 2>/dev/null; rm -f RpcPingPong.java' EXIT; " in cmd
    assert cmd.index("trap ") < cmd.index("printf '%s' ") < cmd.index(" > RpcPingPong.java || exit 1; ")
    # The loops start after the program is written, just before the JVM, and are counted.
    assert cmd.index(" > RpcPingPong.java") < cmd.index(rpc.busy_loops()) < cmd.index('"$java" -Xshare')
    assert 'echo "rpc busy_loops=$n"; ' in rpc.busy_loops()
    assert cmd.endswith('"$java" -Xshare:auto -XX:+UseSerialGC -Xms64m -Xmx64m RpcPingPong.java 2.5 4 1 100')
    assert "vbench: rpc: no java on this host" in cmd and 'echo "rpc java=$java version=' in cmd


def test_the_program_is_the_file_beside_the_module():
    text = rpc.program_source()
    assert "public final class RpcPingPong" in text  # source-file mode: the class named as its file
    assert (Path(rpc.__file__).parent / rpc.PROGRAM).read_text() == text


def test_the_captured_output_parses_into_us_per_call():
    samples = rpc.parse_stdout(_captured(), CAPTURED)
    per_call = [s for s in samples if s.metric == "rpc_us"]
    assert [s.value for s in per_call] == pytest.approx([501969279 / 27598 / 1e3, 500010366 / 28244 / 1e3])
    assert [s.metadata["calls"] for s in per_call] == [27598, 28244]
    assert {s.metadata["warmup_calls"] for s in samples} == {23953}
    assert {(s.metadata["busy_loops"], s.metadata["other_cpus_busy"]) for s in samples} == {(1, True)}
    assert {s.metadata["java"] for s in samples} == {"/usr/lib/jvm/java-17-openjdk-amd64/bin/java"}
    assert [s.value for s in samples if s.metric == "elapsed"] == pytest.approx([0.501969279, 0.500010366])
    assert all(s.unit == rpc.METRICS[s.metric] for s in samples)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("rpc warmup calls=1 ns=1\nrpc repeat=1 calls=1 ns=1\nrpc repeat=2 calls=1 ns=1\n", "no 'rpc java="),
        (
            JAVA_LINE + "rpc warmup calls=1 ns=1\nrpc repeat=1 calls=1 ns=1\nrpc repeat=2 calls=1 ns=1\n",
            "no 'rpc busy_loops",
        ),
        (HEADER + "rpc repeat=1 calls=1 ns=1\nrpc repeat=2 calls=1 ns=1\n", "no 'rpc warmup"),
        (HEADER + "rpc warmup calls=1 ns=1\nrpc repeat=1 calls=1 ns=1\n", "expected 2 result lines, found 1"),
        (HEADER + "rpc warmup calls=1 ns=1\nrpc repeat=1 calls=1 ns=1\nrpc repeat=3 calls=1 ns=1\n", "is repeat 3"),
        (HEADER + "rpc warmup calls=1 ns=1\nrpc repeat=1 calls=0 ns=9\nrpc repeat=2 calls=1 ns=1\n", "0 calls in 9"),
    ],
)
def test_output_missing_a_line_or_with_an_impossible_count_is_refused(text, reason):
    with pytest.raises(JobFailed, match=reason):
        rpc.parse_stdout(text, CAPTURED)


def test_the_loops_are_pinned_here():
    # Changed on purpose only: what a busy sample measured is this text (tests/unit/test_micro_commands.py
    # pins the default script, which has no loops).
    assert rpc.busy_loops() == (
        'n=$(($(nproc 2>/dev/null || echo 1) - 1)); loops=""; i=0; while [ "$i" -lt "$n" ]; do '
        '(k=0; while :; do k=$((k + 1)); if [ "$k" -ge 100000 ]; then kill -0 $$ 2>/dev/null || exit 0; k=0; fi; '
        'done) & loops="$loops $!"; i=$((i + 1)); done; echo "rpc busy_loops=$n"; '
    )


def test_by_default_the_other_cpus_are_left_idle_and_no_loop_is_started_or_read():
    cfg = rpc.RpcConfig(seconds=0.5, repeats=2, warmup_s=0.5)
    assert cfg.other_cpus_busy is False
    cmd = rpc.command(cfg, "/w")
    assert "loops" not in cmd and "trap 'rm -f RpcPingPong.java' EXIT; " in cmd
    text = JAVA_LINE + "rpc warmup calls=1 ns=1\nrpc repeat=1 calls=2 ns=4\nrpc repeat=2 calls=2 ns=4\n"
    assert {s.metadata["busy_loops"] for s in rpc.parse_stdout(text, cfg)} == {0}


def test_a_non_zero_exit_is_a_failure_with_the_programs_last_words(fake_context):
    said = "vbench: rpc: thread receiver failed: java.io.EOFException: the server closed the connection\n"
    c = fake_context(Result(stdout=HEADER, stderr=said, exited=3))
    with pytest.raises(JobFailed) as info:
        rpc.run(c, CAPTURED, "/w")
    assert failure_reason(info.value) == f"rpc: exit 3: {said.strip()}"


@pytest.mark.parametrize(
    "key, text",
    [("seconds", "0.1"), ("repeats", "0"), ("warmup_s", "-1"), ("payload", "65537"), ("java_home", "jdk")],
)
def test_a_bad_config_is_refused_naming_the_field(key, text):
    with pytest.raises(ParamsError) as info:
        registry.make_config(rpc, {key: text})
    assert info.value.field == f"rpc.{key}"


def test_a_host_without_java_fails_saying_so_as_rpc():
    cfg = rpc.RpcConfig(java_home="/nonexistent")
    done = subprocess.run(
        ["/bin/sh", "-c", rpc.command(cfg, "/tmp")], capture_output=True, text=True, env={"PATH": "/nonexistent"}
    )
    assert done.returncode == jvmstart.NO_JAVA and done.stdout == ""
    assert done.stderr.startswith("vbench: rpc: no java on this host")


JAVA = Path(jvmstart.DEFAULT_JAVA_HOME) / "bin" / "java"


@pytest.mark.skipif(not JAVA.exists() or shutil.which("sh") is None, reason="needs the JDK Hadoop's hosts use")
def test_the_program_runs_for_real_and_leaves_the_work_dir_as_it_found_it(tmp_path):
    cfg = rpc.RpcConfig(seconds=0.5, repeats=2, warmup_s=0.5)
    done = subprocess.run(["/bin/sh", "-c", rpc.command(cfg, str(tmp_path))], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    samples = rpc.parse_stdout(done.stdout, cfg)
    per_call = [s.value for s in samples if s.metric == "rpc_us"]
    # A loopback round trip through four threads: more than a microsecond, less than a second.
    assert len(per_call) == 2 and all(1 < us < 1e6 for us in per_call)
    assert list(tmp_path.iterdir()) == []


def _stub_java(tmp_path: Path, body: str) -> str:
    """A java home whose java answers `-version` and otherwise runs `body`: rpc's script around the
    JVM is what these tests run for real."""
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text('#!/bin/sh\ncase "$1" in -version) echo "openjdk version stub"; exit 0;; esac\n' + body)
    java.chmod(0o755)
    return str(home)


def _in_session(sid: int) -> list[int]:
    """The pids of the processes in session `sid` (the fields after the command name in
    /proc/<pid>/stat: state, ppid, pgrp, session)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended while it was read
        if int(fields[3]) == sid:
            found.append(int(stat.parent.name))
    return found


def _gone(sid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while _in_session(sid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


LINES = 'echo "rpc warmup calls=1 ns=1"; echo "rpc repeat=1 calls=2 ns=4"; echo "rpc repeat=2 calls=2 ns=4"\n'


@pytest.mark.skipif(os.cpu_count() == 1, reason="a one-CPU host starts no loop")
def test_the_loops_run_beside_the_jvm_and_end_with_the_script(tmp_path):
    # The stand-in JVM says it has started, then waits for the test to look at its session.
    home = _stub_java(tmp_path, 'echo "java $$"; read _; ' + LINES)
    cfg = rpc.RpcConfig(seconds=0.5, repeats=2, warmup_s=0.5, java_home=home, other_cpus_busy=True)
    work = tmp_path / "work"
    work.mkdir()
    p = subprocess.Popen(
        ["/bin/sh", "-c", rpc.command(cfg, str(work))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    head = [p.stdout.readline() for _ in range(3)]
    assert head[2].startswith("java ")
    # While the JVM runs, its session holds the script's shell, the loops and the JVM.
    running = len(_in_session(p.pid))
    out, _ = p.communicate("go\n", timeout=30)
    assert p.returncode == 0
    loops = rpc.parse_stdout("".join(head) + out, cfg)[0].metadata["busy_loops"]
    assert loops == (os.cpu_count() or 1) - 1 >= 1
    assert running >= loops + 2
    assert _gone(p.pid, 2.0) and list(work.iterdir()) == []


@pytest.mark.skipif(os.cpu_count() == 1, reason="a one-CPU host starts no loop")
def test_a_script_killed_without_its_trap_leaves_no_loop_behind(tmp_path):
    home = _stub_java(tmp_path, 'echo "java $$"; exec sleep 60\n')
    cfg = rpc.RpcConfig(java_home=home, other_cpus_busy=True)
    work = tmp_path / "work"
    work.mkdir()
    p = subprocess.Popen(
        ["/bin/sh", "-c", rpc.command(cfg, str(work))], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        lines = [p.stdout.readline() for _ in range(3)]
        assert lines[1].startswith("rpc busy_loops=") and lines[2].startswith("java ")
        os.kill(int(lines[2].split()[1]), signal.SIGKILL)  # the JVM, and then its shell: no trap runs
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        # Each loop looks for the shell every LOOP_CHECK_EVERY iterations (~0.15 s here).
        assert _gone(p.pid, 5.0)
    finally:
        for pid in _in_session(p.pid):
            os.kill(pid, signal.SIGKILL)
        p.stdout.close()

"""The jvmcpu micro-benchmark (warm JIT-compiled Java's computing, issue #53's priced rest): its
script, its parser against output captured here (tests/data/micro/README.md), its refusals, and its
program run for real by this machine's java."""

from __future__ import annotations

import shutil
import subprocess
import zlib
from pathlib import Path

import pytest
from invoke import Result

from vbench.benchmarks import registry
from vbench.benchmarks.micro import jvmcpu, jvmstart
from vbench.campaign.measure import failure_reason
from vbench.errors import JobFailed, ParamsError
from vbench.stats.cost_model import RESOURCE_BY_NAME

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
CAPTURED = jvmcpu.JvmCpuConfig(seconds=0.5, repeats=2, warmup_s=0.5, records=1000)
HEADER = 'jvmcpu java=/usr/bin/java version=openjdk version "17.0.15" 2025-04-15\n'
CHECK = "jvmcpu check=1f\n"


def test_the_script_writes_the_program_to_the_work_dir_runs_it_and_removes_it():
    cmd = jvmcpu.command(jvmcpu.JvmCpuConfig(seconds=2.5, repeats=4, warmup_s=10, records=500), "/w d/")
    assert "cd '/w d' || exit 1; trap 'rm -f JvmCompute.java' EXIT; " in cmd
    assert cmd.index("trap ") < cmd.index("printf '%s' ") < cmd.index(" > JvmCompute.java || exit 1; ")
    assert cmd.endswith('"$java" -Xshare:auto -XX:+UseSerialGC -Xms64m -Xmx64m JvmCompute.java 2.5 4 10 500 0')
    assert "vbench: jvmcpu: no java on this host" in cmd and 'echo "jvmcpu java=$java version=' in cmd
    cold = jvmcpu.command(jvmcpu.JvmCpuConfig(repeats=1, warmup_s=0, records=80000, ops_per_repeat=1), "/w")
    assert cold.endswith("JvmCompute.java 3 1 0 80000 1")


def test_the_program_is_the_file_beside_the_module():
    text = jvmcpu.program_source()
    assert "public final class JvmCompute" in text  # source-file mode: the class named as its file
    assert (Path(jvmcpu.__file__).parent / jvmcpu.PROGRAM).read_text() == text


def test_the_captured_output_parses_into_ms_per_operation():
    samples = jvmcpu.parse_stdout((DATA / "jvmcpu.txt").read_text(), CAPTURED)
    per_op = [s for s in samples if s.metric == "jvmcpu_ms"]
    assert [s.value for s in per_op] == pytest.approx([501182916 / 635 / 1e6, 515612039 / 406 / 1e6])
    assert [s.metadata["ops"] for s in per_op] == [635, 406]
    assert {s.metadata["warmup_ops"] for s in samples} == {365}
    assert {s.metadata["java"] for s in samples} == {"/usr/lib/jvm/java-17-openjdk-amd64/bin/java"}
    assert [s.value for s in samples if s.metric == "elapsed"] == pytest.approx([0.501182916, 0.515612039])
    assert all(s.unit == jvmcpu.METRICS[s.metric] for s in samples)


def test_the_cost_model_reads_it_as_a_time_per_operation():
    resource = RESOURCE_BY_NAME["jvmcpu"]
    assert (resource.benchmark, resource.metric, resource.higher_is_better) == ("jvmcpu", "jvmcpu_ms", False)


@pytest.mark.parametrize(
    "text, reason",
    [
        (
            "jvmcpu warmup ops=1 ns=1\njvmcpu repeat=1 ops=1 ns=1\njvmcpu repeat=2 ops=1 ns=1\n" + CHECK,
            "no 'jvmcpu java=",
        ),
        (HEADER + "jvmcpu repeat=1 ops=1 ns=1\njvmcpu repeat=2 ops=1 ns=1\n" + CHECK, "no 'jvmcpu warmup"),
        (
            HEADER + "jvmcpu warmup ops=1 ns=1\njvmcpu repeat=1 ops=1 ns=1\njvmcpu repeat=2 ops=1 ns=1\n",
            "did not finish",
        ),
        (HEADER + "jvmcpu warmup ops=1 ns=1\njvmcpu repeat=1 ops=1 ns=1\n" + CHECK, "expected 2 result lines, found 1"),
        (
            HEADER + "jvmcpu warmup ops=1 ns=1\njvmcpu repeat=1 ops=1 ns=1\njvmcpu repeat=3 ops=1 ns=1\n" + CHECK,
            "is repeat 3",
        ),
        (
            HEADER + "jvmcpu warmup ops=1 ns=1\njvmcpu repeat=1 ops=0 ns=9\njvmcpu repeat=2 ops=1 ns=1\n" + CHECK,
            "0 ops in 9",
        ),
    ],
)
def test_output_missing_a_line_or_with_an_impossible_count_is_refused(text, reason):
    with pytest.raises(JobFailed, match=reason):
        jvmcpu.parse_stdout(text, CAPTURED)


def test_a_non_zero_exit_is_a_failure_with_the_programs_last_words(fake_context):
    said = 'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n'
    c = fake_context(Result(stdout=HEADER, stderr=said, exited=1))
    with pytest.raises(JobFailed) as info:
        jvmcpu.run(c, CAPTURED, "/w")
    assert failure_reason(info.value) == f"jvmcpu: exit 1: {said.strip()}"


@pytest.mark.parametrize(
    "key, text",
    [
        ("seconds", "0.1"),
        ("repeats", "0"),
        ("warmup_s", "-1"),
        ("records", "1"),
        ("records", str(jvmcpu.MAX_RECORDS + 1)),
        ("java_home", "jdk"),
    ],
)
def test_a_bad_config_is_refused_naming_the_field(key, text):
    with pytest.raises(ParamsError) as info:
        registry.make_config(jvmcpu, {key: text})
    assert info.value.field == f"jvmcpu.{key}"


def test_a_host_without_java_fails_saying_so_as_jvmcpu():
    cfg = jvmcpu.JvmCpuConfig(java_home="/nonexistent")
    done = subprocess.run(
        ["/bin/sh", "-c", jvmcpu.command(cfg, "/tmp")], capture_output=True, text=True, env={"PATH": "/nonexistent"}
    )
    assert done.returncode == jvmstart.NO_JAVA and done.stdout == ""
    assert done.stderr.startswith("vbench: jvmcpu: no java on this host")


JAVA = Path(jvmstart.DEFAULT_JAVA_HOME) / "bin" / "java"


def _run_for_real(cfg: jvmcpu.JvmCpuConfig, workdir: Path) -> str:
    done = subprocess.run(["/bin/sh", "-c", jvmcpu.command(cfg, str(workdir))], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(not JAVA.exists() or shutil.which("sh") is None, reason="needs the JDK Hadoop's hosts use")
def test_the_program_runs_for_real_does_the_same_work_each_time_and_leaves_the_work_dir_as_it_found_it(tmp_path):
    cfg = jvmcpu.JvmCpuConfig(seconds=0.5, repeats=2, warmup_s=0, records=300)
    first = _run_for_real(cfg, tmp_path)
    samples = jvmcpu.parse_stdout(first, cfg)
    per_op = [s.value for s in samples if s.metric == "jvmcpu_ms"]
    # Sorting 300 records: more than a microsecond, less than a second.
    assert len(per_op) == 2 and all(1e-3 < ms < 1e3 for ms in per_op)
    assert list(tmp_path.iterdir()) == []
    # The work is what the module says: the first operation's checksum is the CRC-32 of the records
    # an LCG gives, in key order.
    assert _first_operation_by_java(300, tmp_path) == _first_operation_by_hand(300)


def _first_operation_by_hand(records: int) -> int:
    """The CRC-32 (zlib's) of `records` 100-byte records from JvmCompute's LCG, sorted by their 10-byte
    keys as unsigned bytes (random keys: no two equal, so any correct sort gives this order)."""
    x, mask, made = 0x5DEECE66D, (1 << 64) - 1, []
    for _ in range(records):
        record = bytearray()
        for _ in range(25):
            x = (x * 6364136223846793005 + 1442695040888963407) & mask
            record += (x >> 32).to_bytes(4, "little")
        made.append(bytes(record))
    return zlib.crc32(b"".join(sorted(made, key=lambda r: r[:10])))


def _first_operation_by_java(records: int, workdir: Path) -> int:
    """JvmCompute's first operation's checksum: its class compiled by javac into `workdir` and called by
    a small driver (the program's own output sums many operations')."""
    javac = JAVA.parent / "javac"
    if not javac.exists():
        pytest.skip("needs javac")
    src = workdir / "src"
    src.mkdir()
    (src / jvmcpu.PROGRAM).write_text(jvmcpu.program_source())
    (src / "FirstOp.java").write_text(
        "public final class FirstOp { public static void main(String[] a) {"
        " System.out.println(Integer.toUnsignedString(new JvmCompute(Integer.parseInt(a[0])).operation())); } }"
    )
    subprocess.run([str(javac), "-d", str(src), str(src / jvmcpu.PROGRAM), str(src / "FirstOp.java")], check=True)
    done = subprocess.run(
        [str(JAVA), "-cp", str(src), "FirstOp", str(records)], capture_output=True, text=True, check=True
    )
    shutil.rmtree(src)
    return int(done.stdout)


@pytest.mark.skipif(not JAVA.exists() or shutil.which("sh") is None, reason="needs the JDK Hadoop's hosts use")
def test_the_most_records_a_config_takes_fit_the_programs_heap(tmp_path):
    cfg = jvmcpu.JvmCpuConfig(seconds=0.5, repeats=1, warmup_s=0, records=jvmcpu.MAX_RECORDS)
    assert [s.metric for s in jvmcpu.parse_stdout(_run_for_real(cfg, tmp_path), cfg)] == ["jvmcpu_ms", "elapsed"]


@pytest.mark.skipif(not JAVA.exists() or shutil.which("sh") is None, reason="needs the JDK Hadoop's hosts use")
def test_a_cold_run_makes_no_warm_up_operation_and_exactly_ops_a_repeat(tmp_path):
    # seconds is long: a repeat that ran for it instead of for its operations would take minutes.
    cfg = jvmcpu.JvmCpuConfig(seconds=600, repeats=2, warmup_s=0, records=2000, ops_per_repeat=3)
    out = _run_for_real(cfg, tmp_path)
    assert "jvmcpu warmup ops=0 ns=0\n" in out
    samples = jvmcpu.parse_stdout(out, cfg)
    assert [s.metadata["ops"] for s in samples] == [3, 3, 3, 3]
    assert all(s.metadata["warmup_ops"] == 0 for s in samples)

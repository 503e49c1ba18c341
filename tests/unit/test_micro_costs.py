"""The platform cost vector's micro-benchmarks (issue #53 item 2): syscall, spawn, jvmstart; and
fileopen and pagefault, which came later.

Their commands (quoting, LC_ALL=C, the timing inside one shell), their parsers against outputs
captured here (tests/data/micro/README.md), refused configs naming the field, and a failed or
garbled output becoming a Failure with a one-line reason.
"""

from __future__ import annotations

import shlex
import subprocess
import textwrap
from pathlib import Path

import pytest
from invoke import Result

from vbench.benchmarks import registry
from vbench.benchmarks.micro import fileopen, jvmstart, pagefault, spawn, syscall
from vbench.campaign.design import load_experiment
from vbench.campaign.measure import failure_reason
from vbench.errors import JobFailed, ParamsError

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"


def _text(name: str) -> str:
    return (DATA / name).read_text()


def _values(samples, metric):
    return [s.value for s in samples if s.metric == metric]


# --- syscall -------------------------------------------------------------------------------------


def test_syscall_command_copies_one_byte_at_a_time_in_the_c_locale():
    cmd = syscall.command(syscall.SyscallConfig(count=5000, repeats=4))
    assert cmd.startswith("export LC_ALL=C; ")  # dd's "0,123 s" under a comma-decimal locale
    assert "dd if=/dev/zero of=/dev/null bs=1 count=5000 2>&1" in cmd  # dd reports on stderr
    assert "$(seq 1 4)" in cmd and cmd.endswith("exit $rc")


def test_syscall_parses_dds_own_seconds_into_ns_per_call():
    cfg = syscall.SyscallConfig(count=1000, repeats=2)
    samples = syscall.parse_stdout(_text("syscall.txt"), cfg)
    # "1000 bytes (1.0 kB) copied, 0.000301602 s": 2000 calls.
    assert _values(samples, "elapsed") == pytest.approx([0.000301602, 0.00037221])
    assert _values(samples, "syscall_ns") == pytest.approx([150.801, 186.105])
    assert {s.unit for s in samples if s.metric == "syscall_ns"} == {"ns"}
    first = samples[0].metadata
    assert first["repeat"] == 1 and first["system_calls"] == 2000 and first["count"] == 1000


def test_syscall_reads_an_exponent_and_refuses_a_short_copy():
    cfg = syscall.SyscallConfig(count=1000, repeats=1)
    line = "1000+0 records in\n1000+0 records out\n1000 bytes (1.0 kB) copied, 3e-04 s, 3.3 MB/s\n"
    assert _values(syscall.parse_stdout(line, cfg), "syscall_ns") == pytest.approx([150.0])
    with pytest.raises(JobFailed, match="copied 999 bytes, expected 1000"):
        syscall.parse_stdout(line.replace("1000 bytes", "999 bytes"), cfg)


def test_syscall_under_a_comma_locale_would_be_refused_not_misread():
    comma = "1000 bytes (1,0 kB) copied, 0,000301602 s, 3,3 MB/s\n"
    with pytest.raises(JobFailed, match=r"^syscall: expected 1 dd result lines, found 0$"):
        syscall.parse_stdout(comma, syscall.SyscallConfig(count=1000, repeats=1))


# --- spawn ---------------------------------------------------------------------------------------


def test_spawn_command_times_the_loop_inside_one_shell():
    cmd = spawn.command(spawn.SpawnConfig(count=300, repeats=2))
    start, end = cmd.index("s=$(date +%s%N)"), cmd.index("e=$(date +%s%N)")
    loop = cmd[start:end]
    assert "while [ $n -lt 300 ]; do /bin/true ||" in loop and "n=$((n + 1))" in loop
    assert cmd.index("z=$(date +%s%N)") < start  # the empty window just before
    assert "$(seq 1 2)" in cmd and 'echo "spawn repeat=$r window=$w count=$n empty=$z start=$s end=$e"' in cmd[end:]


def test_spawn_parses_each_window_less_its_empty_one_and_takes_the_median_per_repeat():
    cfg = spawn.SpawnConfig(count=100, repeats=2, windows=3)
    samples = spawn.parse_stdout(_text("spawn.txt"), cfg)
    # Repeat 1's windows less their empty ones: 73,168,920 - 1,105,487 = 72,063,433 ns; 71,495,577;
    # 72,637,797. The median over 100 processes: 720.63 us.
    assert _values(samples, "spawn_us") == pytest.approx([720.63433, 707.19208])
    # elapsed: the repeat's three windows as they ran, empty windows not taken off.
    assert _values(samples, "elapsed") == pytest.approx([0.219334039, 0.214211546])
    assert samples[0].metadata["program"] == "/bin/true" and samples[0].metadata["windows"] == 3


def test_a_window_three_times_long_moves_the_mean_not_the_median():
    def line(w: int, ns: int) -> str:
        return f"spawn repeat=1 window={w} count=100 empty=1000 start=2000 end={2000 + ns}\n"

    text = line(1, 1_001_000) + line(2, 3_001_000) + line(3, 1_101_000)
    [value] = _values(spawn.parse_stdout(text, spawn.SpawnConfig(count=100, repeats=1, windows=3)), "spawn_us")
    assert value == pytest.approx(11.0)  # 1,100,000 ns over 100: the middle window, each less 1,000 ns


@pytest.mark.parametrize(
    "text, reason",
    [
        (
            "spawn repeat=1 window=1 count=100 empty=5 start=%N end=%N\n",
            r"^spawn repeat 1 window 1: bad timestamps '%N' '%N'",
        ),
        (
            "spawn repeat=1 window=1 count=100 empty=5 start=20 end=10\n",
            r"^spawn repeat 1 window 1: the clock did not advance \(20 -> 10\)$",
        ),
        (
            "spawn repeat=1 window=1 count=99 empty=5 start=10 end=20\n",
            r"^spawn: a line is window 1 of repeat 1 of 99 runs, expected window 1 of repeat 1 of 100$",
        ),
        (
            "spawn repeat=1 window=1 count=100 empty=5 start=10 end=14\n",
            r"^spawn: repeat 1: 100 runs took no longer than two stamps in most of its windows$",
        ),
        ("<html>503</html>\n", r"^spawn: expected 1 result lines \(1 a repeat\), found 0$"),
    ],
)
def test_spawn_refuses_garbled_lines_in_one_line(text, reason):
    with pytest.raises(JobFailed, match=reason) as info:
        spawn.parse_stdout(text, spawn.SpawnConfig(count=100, repeats=1))
    assert len(str(info.value).splitlines()) == 1


def test_spawn_script_runs_under_posix_sh():
    # The script itself, under dash (Debian's /bin/sh): tens of processes, well under a second.
    cfg = spawn.SpawnConfig(count=20, repeats=2)
    done = subprocess.run(["/bin/sh", "-c", spawn.command(cfg)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert all(s.value > 0 for s in spawn.parse_stdout(done.stdout, cfg))


def test_spawn_stops_at_the_first_failure_saying_which_run():
    script = spawn.timed_loop("spawn", "false", 5, 3)
    done = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "vbench: spawn: run 1 of repeat 1 exited 1\n"


# --- jvmstart ------------------------------------------------------------------------------------


def test_jvmstart_command_finds_java_then_times_its_starts():
    cmd = jvmstart.command(jvmstart.JvmStartConfig(count=4, repeats=2))
    assert cmd.startswith("export LC_ALL=C; jh=/usr/lib/jvm/java-17-openjdk-amd64; ")
    find, timed = cmd.split("rc=0; ", 1)
    assert '"$jh/bin/java" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java 2>/dev/null)"' in find
    assert "exit 127" in find  # no java: the run fails before the loop
    assert 'while [ $n -lt 4 ]; do "$java" -Xshare:auto -version > /dev/null 2>&1 ||' in timed
    assert "$(seq 1 2)" in timed


def test_jvmstart_quotes_the_java_home_it_is_given():
    cmd = jvmstart.command(jvmstart.JvmStartConfig(java_home="/opt/jdk+17/"))
    assert "jh=/opt/jdk+17; " in cmd  # no trailing slash; nothing to quote here
    assert shlex.quote("/opt/jdk+17") == "/opt/jdk+17"
    assert jvmstart.DEFAULT_JAVA_HOME == "/usr/lib/jvm/java-17-openjdk-amd64"  # hadoop.java_home's default


def test_jvmstart_warms_up_untimed_before_its_first_window():
    cmd = jvmstart.command(jvmstart.JvmStartConfig(count=2, repeats=1, warmup_starts=3))
    warm = 'while [ $n -lt 3 ]; do "$java" -Xshare:auto -version > /dev/null 2>&1 ||'
    assert cmd.index(warm) < cmd.index("for r in") < cmd.index("z=$(date +%s%N)")
    assert "warm-up run" not in jvmstart.command(jvmstart.JvmStartConfig(warmup_starts=0))


def test_jvmstart_parses_ms_per_start_and_the_java_it_used():
    cfg = jvmstart.JvmStartConfig(count=2, repeats=2, windows=3, warmup_starts=1)
    samples = jvmstart.parse_stdout(_text("jvmstart.txt"), cfg)
    # Repeat 1's windows less their empty ones: 56,203,485, 56,207,825 and 55,663,178 ns; the
    # median over 2 starts: 28.10 ms.
    assert _values(samples, "jvm_start_ms") == pytest.approx([28.1018515, 28.5088145])
    assert _values(samples, "elapsed") == pytest.approx([0.17138274, 0.173252141])
    meta = samples[0].metadata
    assert meta["java"] == "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
    assert meta["java_version"] == 'openjdk version "17.0.15" 2025-04-15'
    assert [s.metadata["repeat"] for s in samples] == [1, 1, 2, 2]


def test_jvmstart_without_its_header_line_is_refused():
    timed = "jvmstart repeat=1 window=1 count=2 empty=5 start=10 end=20\n"
    with pytest.raises(JobFailed, match=r"^jvmstart: no 'jvmstart java=\.\.\. version=\.\.\.' line in output$"):
        jvmstart.parse_stdout(timed, jvmstart.JvmStartConfig(count=2, repeats=1))


def test_a_host_without_java_fails_the_run_with_a_clear_one_line_reason():
    cfg = jvmstart.JvmStartConfig(count=1, repeats=1, java_home="/nonexistent")
    done = subprocess.run(
        ["/bin/sh", "-c", jvmstart.command(cfg)], capture_output=True, text=True, env={"PATH": "/nonexistent"}
    )
    assert done.returncode == jvmstart.NO_JAVA and done.stdout == ""
    assert "no java on this host (not /nonexistent/bin/java" in done.stderr


def test_no_java_becomes_a_failure_reason_naming_it(fake_context):
    stderr = (
        "vbench: jvmstart: no java on this host (not /usr/lib/jvm/java-17-openjdk-amd64/bin/java, "
        "not $JAVA_HOME/bin/java, none on the PATH)\n"
    )
    c = fake_context(Result(stderr=stderr, exited=127))
    with pytest.raises(JobFailed) as info:
        jvmstart.run(c, jvmstart.JvmStartConfig(), "/w")
    reason = failure_reason(info.value)
    assert "\n" not in reason
    assert reason.startswith("jvmstart: exit 127: vbench: jvmstart: no java on this host")


# --- all three -----------------------------------------------------------------------------------

CASES = [
    (syscall, "syscall.txt", {"count": 1000, "repeats": 2}),
    (spawn, "spawn.txt", {"count": 100, "repeats": 2, "windows": 3}),
    (jvmstart, "jvmstart.txt", {"count": 2, "repeats": 2, "windows": 3, "warmup_starts": 1}),
    (pagefault, "pagefault.txt", {"size_mb": 16, "count": 10, "repeats": 2, "windows": 3}),
]


@pytest.mark.parametrize("module, fname, kwargs", CASES, ids=lambda v: getattr(v, "NAME", None))
def test_run_through_a_context_gives_a_sample_per_metric_and_repeat(module, fname, kwargs, fake_context):
    cfg = module.Config(**kwargs)
    c = fake_context(Result(stdout=_text(fname)))
    samples, raw = module.run(c, cfg, "/w")
    assert raw == _text(fname)
    assert sorted(s.metric for s in samples) == sorted(list(module.METRICS) * kwargs["repeats"])
    assert all(s.benchmark == module.NAME and s.unit == module.METRICS[s.metric] and s.value > 0 for s in samples)
    [call] = c.run.call_args_list
    assert call.args == (module.command(cfg, "/w"),) and call.kwargs["in_stream"] is False


@pytest.mark.parametrize("module, fname, kwargs", CASES, ids=lambda v: getattr(v, "NAME", None))
def test_garbled_or_truncated_output_is_a_one_line_failure(module, fname, kwargs, fake_context):
    cfg = module.Config(**kwargs)
    truncated = _text(fname).splitlines(keepends=True)[:-1]  # the last repeat's line lost
    for text in ("", "<html>503</html>\n", "".join(truncated)):
        c = fake_context(Result(stdout=text))
        with pytest.raises(JobFailed) as info:
            module.run(c, cfg, "/w")
        reason = failure_reason(info.value)
        assert reason.startswith(f"{module.NAME}:") and "\n" not in reason


@pytest.mark.parametrize("module", [syscall, spawn, jvmstart, pagefault], ids=lambda m: m.NAME)
def test_a_non_zero_exit_is_a_failure_with_the_tools_last_words(module, fake_context):
    c = fake_context(Result(stdout="", stderr="noise\ndd: /dev/null: Permission denied\n", exited=1))
    with pytest.raises(JobFailed) as info:
        module.run(c, module.Config(), "/w")
    assert failure_reason(info.value) == f"{module.NAME}: exit 1: dd: /dev/null: Permission denied"


@pytest.mark.parametrize(
    "module, key, text, field",
    [
        (syscall, "count", "0", "syscall.count"),
        (syscall, "count", "10", "syscall.count"),
        (syscall, "repeats", "0", "syscall.repeats"),
        (spawn, "count", "-1", "spawn.count"),
        (spawn, "repeats", "x", "spawn.repeats"),
        (jvmstart, "count", "0", "jvmstart.count"),
        (jvmstart, "repeats", "1001", "jvmstart.repeats"),
        (jvmstart, "java_home", "relative/jdk", "jvmstart.java_home"),
        (jvmstart, "java_home", "/opt/jdk;touch /tmp/x", "jvmstart.java_home"),
        (jvmstart, "java_home", "/opt/../etc", "jvmstart.java_home"),
        (pagefault, "size_mb", "0", "pagefault.size_mb"),
        (pagefault, "size_mb", "1025", "pagefault.size_mb"),
        (pagefault, "size_mb", "64M", "pagefault.size_mb"),
        (pagefault, "count", "0", "pagefault.count"),
        (pagefault, "windows", "100", "pagefault.windows"),
    ],
)
def test_a_bad_config_is_refused_naming_the_field(module, key, text, field):
    with pytest.raises(ParamsError) as info:
        registry.make_config(module, {key: text})
    assert info.value.field == field
    assert len(str(info.value).splitlines()) == 1


@pytest.mark.parametrize(
    "module, kwargs, field",
    [
        (syscall, {"count": 999}, "count"),
        (spawn, {"repeats": 0}, "repeats"),
        (jvmstart, {"count": True}, "count"),  # strict: a bool is not a count
    ],
)
def test_the_config_itself_refuses_out_of_range_values(module, kwargs, field):
    with pytest.raises(ParamsError) as info:
        module.Config(**kwargs)
    assert info.value.field == field


def test_defaults_are_the_issues():
    assert (syscall.Config().count, syscall.Config().repeats) == (2_000_000, 5)
    assert (spawn.Config().count, spawn.Config().repeats) == (2000, 5)
    assert (spawn.Config().windows, fileopen.Config().count, fileopen.Config().windows) == (1, 4000, 5)
    assert [getattr(jvmstart.Config(), k) for k in ("count", "windows", "warmup_starts", "repeats")] == [2, 7, 3, 3]
    assert syscall.METRICS["syscall_ns"] == "ns" and spawn.METRICS["spawn_us"] == "us"
    assert jvmstart.METRICS["jvm_start_ms"] == "ms"
    kinds = {name: registry.find(name)[0] for name in ("syscall", "spawn", "jvmstart")}
    assert kinds == {"syscall": "micro", "spawn": "micro", "jvmstart": "micro"}


# --- fileopen ------------------------------------------------------------------------------------


def test_fileopen_command_opens_one_file_many_times_and_once_inside_one_shell():
    cmd = fileopen.command(fileopen.FileopenConfig(count=300, repeats=2), "/w d/")
    assert cmd.startswith("cd '/w d' || exit 1; : > vbench-fileopen || exit 1; trap 'rm -f vbench-fileopen' EXIT; ")
    # The argument list is made before the first stamp, so yes and head are not timed.
    assert cmd.index("files=$(yes vbench-fileopen | head -n 300)") < cmd.index("sm=$(date +%s%N)")
    warm = cmd.index("cat $files >/dev/null")  # untimed, before the first window
    many, one = cmd.index("cat $files >/dev/null", warm + 1), cmd.index("cat vbench-fileopen >/dev/null")
    assert warm < cmd.index("sm=") < many < cmd.index("em=") < cmd.index("so=") < one < cmd.index("eo=")
    assert "$(seq 1 2)" in cmd and cmd.endswith("done; done; exit $rc")


def test_fileopen_parses_the_difference_of_its_two_windows_into_us_per_file():
    cfg = fileopen.FileopenConfig(count=100, repeats=2, windows=3)
    samples = fileopen.parse_stdout(_text("fileopen.txt"), cfg)
    # Repeat 1's windows: 2,580,719 - 1,956,154 ns, 2,790,325 - 2,031,710 and 2,665,370 - 1,819,802
    # over 99 more files: 6.31, 7.66 and 8.54 us; the median 7.66.
    assert _values(samples, "fileopen_us") == pytest.approx([7.663, 5.905], abs=0.001)
    assert _values(samples, "elapsed") == pytest.approx([0.008036414, 0.007446236])  # the 100-file windows
    assert samples[0].metadata["files"] == 100 and samples[0].unit == "us"


def test_fileopen_refuses_missing_lines_a_wrong_count_and_a_window_not_longer_than_one_file():
    cfg = fileopen.FileopenConfig(count=100, repeats=2, windows=3)
    text = _text("fileopen.txt")
    with pytest.raises(JobFailed, match=r"expected 6 result lines \(3 a repeat\), found 1"):
        fileopen.parse_stdout(text.splitlines()[0], cfg)
    with pytest.raises(JobFailed, match="expected window 1 of repeat 1 of 200"):
        fileopen.parse_stdout(text, fileopen.FileopenConfig(count=200, repeats=2, windows=3))
    slow_one = "fileopen repeat=1 window=1 count=100 many_start=1000 many_end=2000 one_start=3000 one_end=5000\n"
    with pytest.raises(JobFailed, match="no longer than one in most of its 1 windows"):
        fileopen.parse_stdout(slow_one, fileopen.FileopenConfig(count=100, repeats=1, windows=1))
    # One such window of three is left out by the median: a disturbed window, not a failed run.
    fine = "fileopen repeat=1 window={w} count=100 many_start=1000 many_end=1982000 one_start=3000 one_end=4000\n"
    three = fine.format(w=1) + slow_one.replace("window=1", "window=2") + fine.format(w=3)
    [value] = _values(
        fileopen.parse_stdout(three, fileopen.FileopenConfig(count=100, repeats=1, windows=3)), "fileopen_us"
    )
    assert value == pytest.approx(20.0)  # (1,981,000 - 1,000 ns) / 99
    with pytest.raises(ParamsError):
        registry.make_config(fileopen, {"count": "10"})  # fewer than 100 files: cat's start would dominate


def test_fileopen_runs_here_and_says_what_a_file_costs(tmp_path):
    # The real command under /bin/sh in a fresh directory: a positive cost, and the file removed.
    # 5000 files (~75 ms of opens): with 200 (~3 ms) a stall of the one-file run under a loaded
    # suite made the difference negative once.
    cfg = fileopen.FileopenConfig(count=5000, repeats=2)
    out = subprocess.run(["sh", "-c", fileopen.command(cfg, str(tmp_path))], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert all(v > 0 for v in _values(fileopen.parse_stdout(out.stdout, cfg), "fileopen_us"))
    assert list(tmp_path.iterdir()) == []


def test_fileopen_at_its_largest_count_still_fits_the_kernels_argument_limit(tmp_path):
    # 100,000 copies of the name got "Argument list too long" (exit 126) on a host here: the kernel
    # counts each argument's pointer beside its text. The largest count allowed must run, one past it
    # is refused before anything starts.
    cfg = fileopen.FileopenConfig(count=fileopen.MAX_COUNT, repeats=1)
    out = subprocess.run(["sh", "-c", fileopen.command(cfg, str(tmp_path))], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert len(fileopen.parse_stdout(out.stdout, cfg)) == 2  # fileopen_us and elapsed
    with pytest.raises(ParamsError):
        registry.make_config(fileopen, {"count": str(fileopen.MAX_COUNT + 1)})


# --- pagefault -----------------------------------------------------------------------------------


def test_pagefault_command_alternates_a_big_and_a_small_dd_window_inside_one_shell():
    cfg = pagefault.PagefaultConfig(size_mb=32, count=7, repeats=2, windows=3)
    cmd = pagefault.command(cfg, "/w d/")
    assert cmd == pagefault.command(cfg, "")  # nothing is written: the work dir is not used, so not quoted
    assert cmd.startswith('echo "pagefault-thp $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"; ')
    big = spawn.timed_window("pagefault-big", "dd if=/dev/zero of=/dev/null bs=32M count=1 status=none", 7)
    small = spawn.timed_window("pagefault-small", "dd if=/dev/zero of=/dev/null bs=4K count=1 status=none", 7)
    # Both windows inside the same loops over repeats and windows: drift falls on both alike.
    assert f"for r in $(seq 1 2); do for w in $(seq 1 3); do {big}; {small}; done; done; exit $rc" in cmd
    # The shell reads the dd runs as the words they are.
    words = ["dd", "if=/dev/zero", "of=/dev/null", "bs=32M", "count=1", "status=none"]
    assert shlex.split(pagefault.dd_run("32M")) == words


def test_pagefault_parses_the_big_runs_less_the_small_ones_into_us_per_page():
    cfg = pagefault.PagefaultConfig(size_mb=16, count=10, repeats=2, windows=3)
    samples = pagefault.parse_stdout(_text("pagefault.txt"), cfg)
    # A native capture (the AMD EPYC machine, 2026-12-08, load 0.47). Repeat 1's windows less their empty
    # ones: big 139.9, 106.5 and 113.9 ms, small 9.73, 11.7 and 7.79 ms; the medians' difference over 10
    # runs, 10.4 ms a run, over 4096 pages: 2.543 us.
    assert _values(samples, "pagefault_us") == pytest.approx([2.542665, 2.188037], abs=1e-6)
    # elapsed: the repeat's windows of both sizes as they ran, empty windows not taken off.
    assert _values(samples, "elapsed") == pytest.approx([0.397579, 0.329721], rel=1e-5)
    meta = samples[0].metadata
    assert (meta["thp"], meta["pages"], meta["size_mb"], meta["repeat"]) == ("madvise", 4096, 16, 1)
    assert {s.unit for s in samples if s.metric == "pagefault_us"} == {"us"}


@pytest.mark.parametrize(
    "line, setting",
    [
        ("pagefault-thp always [madvise] never", "madvise"),
        ("pagefault-thp [always] madvise never", "always"),
        ("pagefault-thp always madvise [never]", "never"),
        ("pagefault-thp ", "unknown"),  # no such file on the host (gVisor): cat printed nothing
    ],
)
def test_pagefault_reads_the_thp_setting_the_kernel_brackets(line, setting):
    assert pagefault.thp_setting(f"{line}\npagefault-big repeat=1\n") == setting


#: A big window no longer than its small one: the pages cost nothing, so something else was timed.
_PAGEFAULT_NO_COST = textwrap.dedent(
    """\
    pagefault-thp always [madvise] never
    pagefault-big repeat=1 window=1 count=10 empty=1000 start=2000 end=5002000
    pagefault-small repeat=1 window=1 count=10 empty=6000000 start=6001000 end=11101000
    """
)


def _captured_without(drop) -> str:
    """pagefault.txt without the lines `drop` picks."""
    return "".join(line for line in _text("pagefault.txt").splitlines(keepends=True) if not drop(line))


@pytest.mark.parametrize(
    "text, windows, reason",
    [
        (
            _captured_without(lambda line: line.startswith("pagefault-thp")),
            3,
            r"^pagefault: no 'pagefault-thp \.\.\.' line in output$",
        ),
        (
            _captured_without(lambda line: line.startswith("pagefault-small repeat=2 window=3 ")),
            3,
            r"^pagefault: pagefault-small: expected 6 result lines \(3 a repeat\), found 5$",
        ),
        (
            _captured_without(lambda line: line.startswith("pagefault-big")),
            3,
            r"^pagefault: pagefault-big: expected 6 result lines \(3 a repeat\), found 0$",
        ),
        (
            _PAGEFAULT_NO_COST,
            1,
            r"^pagefault: repeat 1: 10 runs with a 16 MiB buffer took no longer than 10 with a 4K one$",
        ),
    ],
    ids=["no-thp-line", "a-small-line-missing", "no-big-lines", "no-cost"],
)
def test_pagefault_refuses_missing_lines_and_a_big_run_no_longer_than_a_small_one_in_one_line(text, windows, reason):
    repeats = 2 if windows == 3 else 1
    cfg = pagefault.PagefaultConfig(size_mb=16, count=10, repeats=repeats, windows=windows)
    with pytest.raises(JobFailed, match=reason) as info:
        pagefault.parse_stdout(text, cfg)
    assert len(str(info.value).splitlines()) == 1


def test_pagefault_runs_here_and_says_what_a_page_costs():
    # The real command under /bin/sh: 5 runs of 64 MiB (~16,000 pages, several ms each natively)
    # against 5 of a page, so a stall of a small window under a loaded suite does not turn it over.
    cfg = pagefault.PagefaultConfig(size_mb=64, count=5, repeats=2)
    done = subprocess.run(["/bin/sh", "-c", pagefault.command(cfg)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    samples = pagefault.parse_stdout(done.stdout, cfg)
    assert all(v > 0 for v in _values(samples, "pagefault_us"))
    thp = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    said = thp.read_text().split("[")[1].split("]")[0] if thp.exists() else "unknown"
    assert {s.metadata["thp"] for s in samples} == {said}


def test_pagefault_stops_at_dds_first_failure_saying_which_loop(tmp_path):
    # A dd that fails (as one out of memory would: "dd: memory exhausted by input buffer"), first on the PATH.
    fake = tmp_path / "dd"
    fake.write_text("#!/bin/sh\necho 'dd: memory exhausted' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin"}
    cfg = pagefault.PagefaultConfig(count=3, repeats=2)
    done = subprocess.run(["/bin/sh", "-c", pagefault.command(cfg)], capture_output=True, text=True, env=env)
    assert done.returncode == 1
    assert done.stderr == "dd: memory exhausted\nvbench: pagefault-big: run 1 of repeat 1 exited 1\n"
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["pagefault-thp"]


def test_pagefault_defaults_and_a_design_that_calibrates_it(tmp_path):
    assert [getattr(pagefault.Config(), k) for k in ("size_mb", "count", "repeats", "windows")] == [64, 50, 5, 1]
    assert pagefault.METRICS == {"pagefault_us": "us", "elapsed": "s"}
    assert registry.find("pagefault") == ("micro", pagefault)
    design = tmp_path / "pagefault.yaml"
    design.write_text(
        "experiment:\n  name: pf\n  calibrate:\n"
        "    - {benchmark: pagefault, config: {size_mb: 64, count: 50, repeats: 3}}\n"
    )
    [spec] = load_experiment(design).calibrate
    assert spec.benchmark == "pagefault" and spec.config == {"size_mb": 64, "count": 50, "repeats": 3}
    bad = tmp_path / "bad.yaml"
    bad.write_text(design.read_text().replace("size_mb: 64", "size_mb: 2048"))
    with pytest.raises(ParamsError) as info:
        load_experiment(bad)
    assert info.value.field == f"{bad}: experiment.calibrate[0].config.size_mb"

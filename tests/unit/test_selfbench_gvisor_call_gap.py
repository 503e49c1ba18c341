"""selfbench.gvisor_call_gap's pure parts: the commands, dd's seconds, a call's price from two runs
and the summary. Its runs need root and runsc (the native way is run here: dd only)."""

from __future__ import annotations

import subprocess

import pytest

from selfbench import gvisor_call_gap as gap
from vbench.errors import JobFailed


def test_each_way_runs_syscalls_dd_once_and_one_cpu_holds_the_whole_run_to_cpu_0():
    native = gap.argv_of("native", "alone", 5000)
    assert native[:2] == ["sh", "-c"] and "dd if=/dev/zero of=/dev/null bs=1 count=5000" in native[2]
    assert "seq 1 1)" in native[2]
    gvisor = gap.argv_of("gvisor", "beside-2", 5000)
    assert gvisor[:4] == ["runsc", "--network=none", "--platform=ptrace", "do"] and gvisor[4:] == native
    pinned = gap.argv_of("gvisor", "one-cpu", 5000)
    assert pinned[:3] == ["taskset", "-c", "0"] and pinned[3:] == gvisor
    with pytest.raises(ValueError, match="unknown way"):
        gap.argv_of("lxc", "alone", 5000)
    with pytest.raises(ValueError, match="unknown condition"):
        gap.argv_of("native", "beside", 5000)


def test_competitors_come_from_the_condition_name():
    assert [gap.competitors_of(c) for c in gap.CONDITIONS] == [0, 0, 1, 2]


def test_dd_seconds_reads_dds_own_summary_and_refuses_a_short_copy():
    out = "5000+0 records in\n5000+0 records out\n5000 bytes (5.0 kB, 4.9 KiB) copied, 0.00123 s, 4.1 MB/s\n"
    assert gap.dd_seconds(out, 5000) == pytest.approx(0.00123)
    with pytest.raises(JobFailed, match="copied 4000 bytes"):
        gap.dd_seconds(out.replace("5000 bytes", "4000 bytes"), 5000)


def test_a_calls_price_is_the_big_runs_extra_over_the_small_ones_per_extra_call():
    small = gap.Run("gvisor", "alone", 1000, 0.12, 1.50, 10_000)
    big = gap.Run("gvisor", "alone", 101_000, 12.6, 8.00, 830_000)
    got = gap.per_call(small, big)
    assert got.wall_us == pytest.approx(12.6 / 202_000 * 1e6)
    assert got.machine_cpu_us == pytest.approx(6.5 / 200_000 * 1e6)
    assert got.switches == pytest.approx(820_000 / 200_000)
    with pytest.raises(ValueError, match="made 2000 calls"):
        gap.per_call(big, small)


def test_summary_gives_medians_and_the_cpus_a_call_keeps_busy_in_way_and_condition_order():
    calls = [
        gap.PerCall("gvisor", "one-cpu", 22.0, 22.0, 2.0),
        gap.PerCall("gvisor", "alone", 60.0, 30.0, 4.0),
        gap.PerCall("gvisor", "alone", 64.0, 33.0, 4.2),
        gap.PerCall("gvisor", "alone", 70.0, 40.0, 4.1),
        gap.PerCall("native", "alone", 0.1, 0.1, 0.0),
    ]
    lines = gap.summary(calls).splitlines()
    assert lines[1].split() == ["native", "alone", "1", "0.10", "0.10", "1.00", "0.00"]
    assert lines[2].split() == ["gvisor", "alone", "3", "64.00", "33.00", "0.52", "4.10"]
    assert lines[3].split() == ["gvisor", "one-cpu", "1", "22.00", "22.00", "1.00", "2.00"]


def test_the_native_command_runs_and_its_output_parses():
    r = subprocess.run(gap.argv_of("native", "alone", 2000), capture_output=True, text=True, check=True)
    assert gap.dd_seconds(r.stdout, 2000) > 0


def test_parallel_runs_start_that_many_dds_in_one_shell_and_read_their_median():
    cmd = gap.argv_of("native", "alone", 3000, parallel=3)
    assert cmd[:2] == ["sh", "-c"] and cmd[2].count("count=3000") == 3 and cmd[2].endswith("; wait")
    line = "3000 bytes (3.0 kB) copied, {} s, 1 MB/s\n"
    out = "".join(line.format(s) for s in ("0.5", "0.1", "0.2"))
    assert gap.dd_seconds(out, 3000, parallel=3) == pytest.approx(0.2)
    with pytest.raises(ValueError, match="1 or more"):
        gap.argv_of("native", "alone", 3000, parallel=0)
    # A call's wall time is one dd's seconds over its own calls; the machine's over all of them.
    small = gap.Run("gvisor", "alone", 1000, 0.1, 1.0, 0, parallel=4)
    big = gap.Run("gvisor", "alone", 11_000, 1.0, 3.0, 0, parallel=4)
    got = gap.per_call(small, big)
    assert got.wall_us == pytest.approx(1.0 / 22_000 * 1e6)
    assert got.machine_cpu_us == pytest.approx(2.0 / 80_000 * 1e6)
    # The dd's end together and share one pipe: each summary must arrive whole (the bare form's
    # lines interleaved about once in 200 runs of 3).
    for _ in range(100):
        r = subprocess.run(gap.argv_of("native", "alone", 2000, parallel=4), capture_output=True, text=True, check=True)
        assert gap.dd_seconds(r.stdout, 2000, parallel=4) > 0

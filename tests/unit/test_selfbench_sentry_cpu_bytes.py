"""selfbench/sentry_cpu_bytes.py: a platform's extra task CPU per job beside the bytes it moves."""

from __future__ import annotations

import pytest

from tests.unit.selfbench_scripts import load
from vbench.stats.profile import JobCounters, JobProfile, RunIdentity, TaskTimes

mod = load("sentry_cpu_bytes")
MIB = 2**20
NONE = TaskTimes(0, None, None)


def _profile(
    platform: str, step: str, run: int, cpu_s: float, moved_mib: float, time_s: float, cell: str = "16MB"
) -> JobProfile:
    # The bytes split over two counters, so the sum over every byte counter is what is checked.
    half = int(moved_mib * MIB / 2)
    counters = JobCounters(
        cpu_ms=int(cpu_s * 1e3), gc_ms=10, hdfs_bytes_read=half, hdfs_bytes_written=0, local_bytes_read=0,
        local_bytes_written=half, shuffle_bytes=0, map_output_bytes=999 * MIB, map_output_records=1,
        reduce_input_records=1, spilled_records=1, launched_maps=2, launched_reduces=1, data_local_maps=2,
        rack_local_maps=0, other_local_maps=0,
    )  # fmt: skip
    ident = RunIdentity(f"r{run}-{platform}-{step}-{cell}", "platforms", platform, "b", cell, "c", run, 0, False)
    return JobProfile(ident, step, f"job_{run}", time_s, None, None, counters, NONE, NONE, NONE, NONE, NONE, 0, 0)


def _campaign(intercept: float, per_mib: float) -> list[JobProfile]:
    """Three runs per side of three jobs whose gVisor CPU is native's + intercept + per_mib * MiB."""
    out = []
    for step, mib, native_cpu in (("small", 10.0, 2.0), ("mid", 40.0, 3.0), ("big", 100.0, 4.0)):
        for run, jitter in enumerate((0.9, 1.0, 1.1)):
            out.append(_profile("native", step, run, native_cpu * jitter, mib, 10.0))
            out.append(_profile("gvisor", step, run, native_cpu + intercept + per_mib * mib, mib, 30.0 * jitter))
    return out


def test_the_extra_cpu_is_the_medians_difference_and_the_bytes_the_native_counters_sum():
    rows = {r.step: r for r in mod.extra_cpu("c", _campaign(3.0, 0.15), "gvisor")}
    assert set(rows) == {"small", "mid", "big"}
    big = rows["big"]
    assert big.baseline_cpu_s == pytest.approx(4.0)  # the median of 3.6, 4.0, 4.4
    assert big.extra_cpu_s == pytest.approx(3.0 + 15.0)
    assert big.moved_mib == pytest.approx(100.0, abs=1e-6)  # map output bytes are not moved bytes
    assert big.tasks == 3
    assert big.job_ratio == pytest.approx(3.0)


def test_the_line_recovers_a_known_intercept_and_cost_per_mib():
    line = mod.bytes_line(mod.extra_cpu("c", _campaign(3.0, 0.15), "gvisor"))
    assert line.intercept == pytest.approx(3.0, abs=1e-6)
    assert line.slope == pytest.approx(0.15, abs=1e-9)
    assert line.rms == pytest.approx(0.0, abs=1e-6)
    assert line.n == 3


def test_no_line_from_fewer_than_three_jobs_and_a_job_missing_on_one_side_is_left_out():
    profiles = [p for p in _campaign(3.0, 0.15) if not (p.step == "mid" and p.run.platform == "native")]
    rows = mod.extra_cpu("c", profiles, "gvisor")
    assert [r.step for r in rows] == ["big", "small"]
    assert mod.bytes_line(rows) is None


def _sized(per_mib_by_block: dict[int, float]) -> list[JobProfile]:
    """One run per side, size and block: gVisor's extra CPU 3 s + per_mib * MiB, 100 and 400 MiB moved."""
    out = []
    for block, per_mib in per_mib_by_block.items():
        for cell, mib in (("16MB", 100.0), ("64MB", 400.0)):
            out.append(_profile("native", "terasort", block, 4.0, mib, 10.0, cell))
            out.append(_profile("gvisor", "terasort", block, 4.0 + 3.0 + per_mib * mib, mib, 30.0, cell))
    return out


def test_the_size_reading_is_per_block_the_extra_cpus_growth_over_the_bytes_growth():
    slopes = mod.size_slopes(_sized({0: 0.15, 1: 0.05, 2: 0.20}), "gvisor", "16MB", "64MB")
    assert [(s.block, s.step) for s in slopes] == [(0, "terasort"), (1, "terasort"), (2, "terasort")]
    assert [round(s.ms_per_mib, 6) for s in slopes] == [150.0, 50.0, 200.0]
    assert slopes[0].small.moved_mib == pytest.approx(100.0, abs=1e-6)
    assert slopes[0].big.extra_cpu_s == pytest.approx(3.0 + 60.0)


def test_a_block_missing_one_size_on_one_side_gives_no_slope():
    profiles = [
        p
        for p in _sized({0: 0.15, 1: 0.05})
        if not (p.run.block == 1 and p.run.cell == "64MB" and p.run.platform == "native")
    ]
    assert [s.block for s in mod.size_slopes(profiles, "gvisor", "16MB", "64MB")] == [0]


def test_each_size_of_a_job_is_its_own_row():
    rows = mod.extra_cpu("c", _sized({0: 0.15}), "gvisor")
    assert [(r.step, r.cell) for r in rows] == [("terasort", "16MB"), ("terasort", "64MB")]
    assert [round(r.extra_cpu_s, 6) for r in rows] == [18.0, 63.0]
    assert [r.extra_cpu_s for r in mod.extra_cpu("c", _sized({0: 0.15}), "gvisor", cell="64MB")] == [
        pytest.approx(63.0)
    ]

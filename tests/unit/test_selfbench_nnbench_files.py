"""selfbench/nnbench_files.py: costs-nnbench-files' readings on synthetic samples with a known
once-a-map cost and per-operation cost."""

from __future__ import annotations

import math

import pytest

from selfbench import nnbench_files as N
from vbench.samples import Sample

#: Per platform: (F ms a map, s ms an operation) per block.
TRUTH = {
    "native": [(50.0, 2.0), (60.0, 2.2), (55.0, 1.9), (45.0, 2.1)],
    "gvisor": [(300.0, 5.0), (280.0, 5.5), (320.0, 4.8), (310.0, 5.2)],
}


def step(block, platform, files, per_op, op="open_read", late=0.4, **extra):
    meta = {"block": block, "platform": platform, "factor.files": files, "ops_start_after_barrier_s": late, **extra}
    return Sample("nnbench", f"{op}_avg_exec_time", per_op, "ms", meta)


def campaign():
    return [step(b, p, n, s + f / n) for p, rows in TRUTH.items() for b, (f, s) in enumerate(rows) for n in (100, 1000)]


def test_the_once_a_map_and_per_operation_costs_come_back_from_two_counts():
    fs, ss = N.once_and_steady(N.count_steps(campaign()), "gvisor", 100, 1000, "open_read")
    assert fs == pytest.approx([f for f, _ in TRUTH["gvisor"]])
    assert ss == pytest.approx([s for _, s in TRUTH["gvisor"]])


def test_the_ratio_at_each_count_and_their_ratio_are_paired_over_the_blocks():
    steps = N.count_steps(campaign())
    at = {
        n: [(fg / n + sg) / (fn / n + sn) for (fg, sg), (fn, sn) in zip(TRUTH["gvisor"], TRUTH["native"])]
        for n in (100, 1000)
    }
    r100 = N.ratio(steps, "gvisor", 100, "open_read")
    assert r100.estimate == pytest.approx(math.exp(sum(map(math.log, at[100])) / 4))
    rr = N.ratio_of_ratios(steps, "gvisor", 100, 1000, "open_read")
    assert rr.estimate == pytest.approx(math.exp(sum(math.log(b / a) for a, b in zip(at[100], at[1000])) / 4))
    assert rr.high < 1  # gVisor's once-a-map cost is the larger: its ratio falls with more files


def test_warm_ups_and_samples_without_a_files_level_are_not_read():
    extra = [
        step(0, "native", 100, 99.0, warmup=True),
        Sample("nnbench", "open_read_avg_exec_time", 9.0, "ms", {"block": 0, "platform": "native"}),
    ]
    assert N.count_steps(campaign() + extra) == N.count_steps(campaign())


def test_the_report_reads_every_step_and_refuses_a_campaign_of_another_shape():
    text = N.report(N.count_steps(campaign()), 2.0)
    for words in (
        "1. gvisor / native at 100",
        "2. at 1000 over at 100",
        "once a map F",
        "gvisor's s over native's",
        "4. steps",
    ):
        assert words in text
    assert "not read (fewer than two blocks)" in text  # create_write was not timed
    assert N.report(N.count_steps(campaign()[:8]), 2.0).startswith("expected two counts and one platform")

"""selfbench/nnbench_sides.py: costs-nnbench-sides' readings on synthetic samples with a known split."""

from __future__ import annotations

import math

import pytest

from selfbench import nnbench_sides as S
from vbench.samples import Sample

#: Per block: native's open/read time per operation, and each gVisor side's ratio to it.
NATIVE_MS = {0: 2.0, 1: 3.0, 2: 2.5, 3: 4.0}
RATIOS = {"all": [4.0, 4.4, 3.6, 4.2], "master": [3.1, 3.3, 2.8, 3.3], "workers": [1.9, 2.1, 1.8, 1.9]}


def nn(block: int, side: str, per_op_ms: float, op: str = "open_read", late: float = 0.4, **extra) -> Sample:
    meta = {"block": block, "platform": "native" if side == "native" else "gvisor", "ops_start_after_barrier_s": late}
    if side != "native":
        meta["factor.gvisor.sandboxed"] = side
    return Sample("nnbench", f"{op}_avg_exec_time", per_op_ms, "ms", {**meta, **extra})


def campaign() -> list[Sample]:
    out = [nn(b, "native", ms) for b, ms in NATIVE_MS.items()]
    for side, rs in RATIOS.items():
        out += [nn(b, side, NATIVE_MS[b] * r) for b, r in zip(NATIVE_MS, rs)]
    return out


def test_each_sides_ratio_is_a_paired_t_on_the_logs_of_its_blocks():
    r = S.ratio(S.op_times(campaign()), "master", "open_read")
    assert r.estimate == pytest.approx(math.exp(sum(map(math.log, RATIOS["master"])) / 4))
    assert r.low < min(RATIOS["master"]) < max(RATIOS["master"]) < r.high


def test_the_parts_and_the_interaction_are_read_per_block_and_sum_to_one():
    shares = S.per_block_shares(S.op_times(campaign()), "open_read")
    a, m, w = RATIOS["all"][0], RATIOS["master"][0], RATIOS["workers"][0]
    assert shares["master"][0] == pytest.approx((m - 1) / (a - 1))
    assert shares["workers"][0] == pytest.approx((w - 1) / (a - 1))
    assert [x + y + z for x, y, z in zip(shares["master"], shares["workers"], shares["interaction"])] == pytest.approx(
        [1.0] * 4
    )
    mean = S.mean_interval(shares["master"])
    assert mean.low < mean.estimate < mean.high and mean.estimate == pytest.approx(sum(shares["master"]) / 4)


def test_a_block_missing_a_side_is_left_out_of_the_split_not_of_the_other_ratios():
    samples = [
        s
        for s in campaign()
        if not (s.metadata["block"] == 3 and s.metadata.get("factor.gvisor.sandboxed") == "workers")
    ]
    times = S.op_times(samples)
    assert len(S.per_block_shares(times, "open_read")["master"]) == 3
    assert len(S.ratios_by_block(times, "master", "open_read")) == 4


def test_warm_up_runs_other_platforms_and_other_metrics_are_not_read():
    extra = [
        nn(0, "native", 99.0, warmup=True),
        Sample("nnbench", "open_read_avg_exec_time", 9.0, "ms", {"block": 0, "platform": "lxc"}),
        Sample("nnbench", "open_avg_latency", 9.0, "ms", {"block": 0, "platform": "native"}),
    ]
    assert S.op_times(campaign() + extra) == S.op_times(campaign())


def test_a_gvisor_sample_from_before_the_factor_is_all_hosts():
    assert S.side_of({"platform": "gvisor"}) == "all"
    assert S.side_of({"platform": "oci"}) is None


def test_round_trips_are_grouped_by_which_side_ran_in_the_sandbox():
    def rtt(side, client, server, us):
        meta = {
            "platform": "gvisor",
            "factor.gvisor.sandboxed": side,
            "host_platform": client,
            "server_platform": server,
        }
        return Sample("latency", "rtt_mean", us, "us", meta)

    got = S.round_trips(
        [
            rtt("workers", "native", "gvisor", 150.0),
            rtt("workers", "gvisor", "gvisor", 430.0),
            rtt("master", "gvisor", "native", 160.0),
        ]
    )
    assert got == {
        ("workers", "gVisor server"): [150.0],
        ("workers", "both in gVisor"): [430.0],
        ("master", "gVisor client"): [160.0],
    }


def test_the_report_names_every_reading_and_the_late_steps():
    text = S.report(
        campaign() + [nn(1, "all", 9.0, op="create_write", late=5.0), nn(1, "native", 3.0, op="create_write")], 2.0
    )
    for words in (
        "1. gVisor on master",
        "2. the master's part",
        "3. the interaction",
        "4. round trips",
        "b1 all create_write 5.0 s",
    ):
        assert words in text
    assert "not read (fewer than two blocks)" in text  # create_write has one block

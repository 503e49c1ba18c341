"""selfbench/nnbench_barrier_levels.py on a synthetic campaign with a known answer: gVisor's
operations pay a start-up contention at the short barrier only, native's none."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.unit.selfbench_scripts import load
from vbench.samples import Failure, Sample

M = load("nnbench_barrier_levels")

BLOCKS = 8


def _step(block, platform, barrier, op, ms, late, **extra):
    meta = {
        "block": block,
        "platform": platform,
        "factor.barrier_s": barrier,
        "ops_start_after_barrier_s": late,
        "run_id": f"nnbench-{platform}-{barrier}-{block}",
        **extra,
    }
    return Sample("nnbench", f"{op}_avg_exec_time", ms, "ms", meta)


def _campaign(seed=1):
    """Native 7 ms / 1.5 ms x a block drift common to both platforms; gVisor x3 at 60 s, and at 20 s
    x3 times a contention of 1.2-1.8 that varies by block (its maps late by 3-9 s)."""
    rng = np.random.default_rng(seed)
    out = []
    for b in range(BLOCKS):
        drift = math.exp(rng.normal(0, 0.1))
        contention = 1.2 + 0.6 * rng.random()
        for op, base in (("create_write", 7.0), ("open_read", 1.5)):
            for barrier in (20, 60):
                noise, own = np.exp(rng.normal(0, 0.01, size=2))
                out.append(_step(b, "native", barrier, op, base * drift * noise, 0.3))
                slow = contention if barrier == 20 else 1.0
                late = 3.0 + 6.0 * (contention - 1.2) / 0.6 if barrier == 20 else 0.4
                out.append(_step(b, "gvisor", barrier, op, 3 * base * drift * slow * own, late))
            # Samples the reading must leave out: the job time, a warm-up run, a failure record.
            out.append(Sample("nnbench", f"{op}_job_time", 40.0, "s", {"block": b, "platform": "native"}))
    out.append(_step(0, "gvisor", 20, "create_write", 999.0, 50.0, warmup=True))
    out.append(Failure("nnbench", "timeout", metadata={"block": 0, "platform": "gvisor", "factor.barrier_s": 20}))
    return out


def test_the_steps_are_the_per_operation_samples_with_a_barrier_level():
    steps = M.steps_of(_campaign())
    assert len(steps) == BLOCKS * 2 * 2 * 2  # blocks x ops x barriers x platforms
    assert {s.op for s in steps} == {"create_write", "open_read"} and max(s.per_op_ms for s in steps) < 999


def test_the_readings_find_the_contention_at_the_short_barrier_only():
    steps = M.steps_of(_campaign())
    late = {(r.platform, r.barrier_s, r.op): r for r in M.lateness(steps, 2.0)}
    assert (late["gvisor", 20, "create_write"].late, late["gvisor", 20, "create_write"].steps) == (BLOCKS, BLOCKS)
    assert late["gvisor", 60, "open_read"].late == 0 and late["native", 20, "open_read"].late == 0
    r = M.readings(steps, "gvisor", "create_write", 20, 60)
    assert r.blocks == BLOCKS
    # Native's barrier is a sleep: 1 inside its interval, and a tight one (noise 1 %).
    assert r.native_long_over_short.low < 1 < r.native_long_over_short.high
    # The ratio of ratios is 1 / contention (mean of 1.2-1.8): well below 1.
    assert r.ratio_long_over_short.high < 0.85
    # At 60 s the ratio is 3 to the noise's precision; at 20 s noisier by the contention.
    assert r.ratio[60].low < 3 < r.ratio[60].high and r.ratio[20].estimate > 3.3
    assert r.block_sd[60] < r.block_sd[20] / 3
    assert r.blocks_for_15[60] <= r.blocks_for_15[20]


def test_a_drift_common_to_both_platforms_leaves_the_ratio():
    steps = M.steps_of(_campaign(seed=7))
    r = M.readings(steps, "gvisor", "open_read", 20, 60)
    # Block drift sd 0.1 moves both platforms alike: the ratio at 60 s keeps the two runs' noise, 1 % each.
    assert r.block_sd[60] == pytest.approx(0.014, abs=0.008)


def test_the_report_names_what_it_needs_and_says_the_predictions():
    steps = M.steps_of(_campaign())
    text = M.report(steps, {"create_write": 3.0}, 2.0)
    assert "gvisor/native at 60 s: 3.0" in text and "predicted 3:" in text
    with pytest.raises(SystemExit, match="two barriers"):
        M.report([s for s in steps if s.barrier_s == 20], {}, 2.0)
    assert M._prediction("open_read=3.39") == ("open_read", 3.39)
    with pytest.raises(Exception, match="STEP=RATIO"):
        M._prediction("jobtime=2")

"""The precision benchmark's protocols at equal machine time (selfbench/precision.py, issue #51 item
5): the same runs read as HiBench and PKB read them, (a) the wall time around `hadoop jar`, ratio of
means, Fieller with blocks ignored, and as vbench does, the JobHistory job time paired over blocks,
(b) in a campaign of the default design's kind or (c) in a candidate protocol's. Known answers:
(a) is Fieller on the measured wall times; a block effect shared by both sides widens (a) and not
the paired reading; without one the two are about as wide."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.unit import selfbench_scripts
from tests.unit.test_selfbench_precision import LXC, NATIVE, hand_made_samples, write_campaign
from vbench.stats.ratio import fieller_interval


@pytest.fixture(scope="module")
def precision():
    return selfbench_scripts.load("precision")


def _protocol(report, platform: str):
    return next(p for p in report.protocols if p.platform == platform)


def blocked_samples(blocks: int, block_sd: float, run_sd: float, seed: int = 51) -> pd.DataFrame:
    """One TeraSort run per configuration per block, as the default design takes them: job time 30 s
    x the configuration's true ratio (lxc 1.05, the A/A copy 1) x the block's factor, shared by every
    configuration of the block (log-normal, `block_sd`) x the run's own (`run_sd`); the wall time
    around the job is 1.25 x the job time, so both readings see the same relative noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for block in range(blocks):
        shared = rng.normal(0.0, block_sd)
        for platform, truth in (("native", 1.0), ("lxc", 1.05), ("native~aa", 1.0)):
            job = 30.0 * truth * float(np.exp(shared + rng.normal(0.0, run_sd)))
            for metric, value in (("terasort_job_time", job), ("terasort_time", 1.25 * job)):
                rows.append(
                    {
                        "experiment": "platforms",
                        "platform": platform,
                        "benchmark": "terasort",
                        "metric": metric,
                        "unit": "s",
                        "size": "128MB",
                        "value": value,
                        "repetition": block,
                        "block": block,
                        "round": 0,
                        "warmup": False,
                        "run_id": f"terasort-{platform}-b{block}",
                        "timestamp": 1_000_000.0 + 60 * len(rows),
                    }
                )
    return pd.DataFrame(rows)


def test_the_peers_reading_is_fieller_on_the_measured_wall_times_beside_the_paired_row(precision):
    samples = hand_made_samples()
    report = precision.analyse(samples, campaign="hand", n_resamples=199)
    # Only steps with a wall time beside their job time: TeraSort here (TeraGen has no wall time in
    # these samples, Pi's is job_wall_time, sysbench has no job).
    assert {(p.platform, p.benchmark, p.size, p.step) for p in report.protocols} == {
        ("lxc", "terasort", "32MB", "terasort"),
        ("native~aa", "terasort", "32MB", "terasort"),
    }
    lxc = _protocol(report, "lxc")
    # The measured runs only (the warm-ups, 1000 s and more, would move the means), wall = 2 x job.
    x = [2.0 * v for b in (0, 1) for v in LXC[b]]
    y = [2.0 * v for b in (0, 1) for v in NATIVE[b]]
    assert lxc.peers_ratio == pytest.approx(np.mean(x) / np.mean(y))
    want = fieller_interval(x, y)
    assert lxc.peers_half_width_pct == pytest.approx(100 * (want.high - want.low) / 2 / want.estimate)
    assert (lxc.peers_n, lxc.peers_n_baseline) == (6, 6)
    # (b) is the report's own paired row of the job time, not a second computation.
    row = next(r for r in report.rows if r.platform == "lxc" and r.metric == "terasort_job_time")
    assert (lxc.ratio, lxc.half_width_pct, lxc.method, lxc.n_pairs) == (
        row.ratio,
        row.half_width_pct,
        row.method,
        row.n_pairs,
    )
    assert lxc.protocol == "b" and lxc.width_ratio == pytest.approx(lxc.peers_half_width_pct / row.half_width_pct)


def test_a_block_effect_shared_by_both_sides_widens_the_unpaired_reading_only(precision):
    report = precision.analyse(blocked_samples(10, block_sd=0.15, run_sd=0.01), n_resamples=199)
    for platform, truth in (("lxc", 1.05), ("native~aa", 1.0)):
        p = _protocol(report, platform)
        assert p.method == "paired-t (blocks)" and p.n_pairs == 10
        assert p.ratio == pytest.approx(truth, rel=0.02)
        assert p.half_width_pct < 2.0  # the block's factor cancels in each block's ratio
        assert p.peers_half_width_pct > 8.0  # ... and stays in each side's mean
        assert p.width_ratio > 4


def test_without_a_block_effect_the_two_readings_are_about_as_wide(precision):
    report = precision.analyse(blocked_samples(30, block_sd=0.0, run_sd=0.05), n_resamples=199)
    for platform in ("lxc", "native~aa"):
        p = _protocol(report, platform)
        # Expected about 0.98 (t on 58 against 29 df); 30 blocks put 2 s.e. of the ratio of the
        # sample s.d.s at about +/-0.35.
        assert 0.7 < p.width_ratio < 1.4
        assert p.ratio == pytest.approx(p.peers_ratio, rel=0.02)


def test_a_candidate_design_reads_as_the_new_protocol_and_the_default_says_none_adopted(precision):
    samples = blocked_samples(4, block_sd=0.1, run_sd=0.02)
    default = precision.analyse(samples, campaign="ref", design="default", n_resamples=199)
    lean = precision.analyse(samples, campaign="lean", design="lean", n_resamples=199)
    assert {p.protocol for p in default.protocols} == {"b"} and {p.protocol for p in lean.protocols} == {"c"}
    quiet = precision.LoadRecord(1.0, 0.2)
    lines = {
        name: next(
            x
            for x in precision.markdown(r, quiet).splitlines()
            if x.startswith("| lxc / native | terasort[128MB] terasort |")
        )
        for name, r in (("default", default), ("lean", lean))
    }
    p = _protocol(default, "lxc")
    paired = f"{p.ratio:.3f} +/-{p.half_width_pct:.1f} %"
    peers = f"{p.peers_ratio:.3f} +/-{p.peers_half_width_pct:.1f} %"
    assert f"| {peers} | {paired} | {precision.NO_PROTOCOL} | 4 / 4 (4) | {p.width_ratio:.2f} |" in lines["default"]
    assert f"| {peers} | - (another design) | {paired} | 4 / 4 (4) |" in lines["lean"]
    doc = json.loads(json.dumps(precision.report_json(lean, quiet), allow_nan=False))
    j = next(x for x in doc["protocols"] if x["platform"] == "lxc")
    assert j["protocol"] == "c" and j["comparison"] == "lxc/native" and doc["design"] == "lean"
    assert j["width_ratio"] == pytest.approx(_protocol(lean, "lxc").width_ratio)


def test_the_campaign_directory_names_its_design(precision, tmp_path, capsys):
    raw = tmp_path / "camp"
    write_campaign(raw)
    (raw / "campaign.json").write_text(json.dumps({"experiment": {"name": "lean-freeze", "compare": ["platform"]}}))
    assert precision.main(["--campaign", str(raw)]) == 0
    assert "design lean-freeze: a candidate protocol" in capsys.readouterr().out
    doc = json.loads((raw / precision.REPORT_FILE).read_text())
    assert {(p["platform"], p["step"], p["protocol"]) for p in doc["protocols"]} == {
        ("lxc", "terasort", "c"),
        ("native~aa", "terasort", "c"),
    }

"""vbench.stats.variance: where the variance lives (issue #51 item 3). Simulated nested normal
effects with known variances give back their shares, a covariate with a known coefficient gives
back its slope and drift share, a layout with one round per block says what it cannot separate,
and the statistics stage's pass carries the section for a committed campaign into stats.json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vbench.samples import QUIET_CPU_PROBE
from vbench.stats.campaign import load_campaign
from vbench.stats.campaign_stats import STATS_META, StatsConfig, campaign_stats, write_campaign_stats
from vbench.stats.variance import (
    BALANCED,
    DRIFT,
    INSTANCE,
    LEVELS,
    LOG_RATIO,
    PROBE_RATIO,
    PROBE_SHARED,
    ROUND_LEVEL,
    RUN,
    UNBALANCED,
    Decomposition,
    NoDecomposition,
    campaign_variance,
    decompose,
    markdown,
    variance_frame,
)

REPO = Path(__file__).resolve().parents[2]

#: Variances of the log metric by level: instance 0.04, round 0.01, run 0.0025 (shares 16:4:1).
TRUE = {INSTANCE: 0.04, ROUND_LEVEL: 0.01, RUN: 0.0025}


def nested(
    rng, blocks: int, rounds: int, runs: int, *, beta: float = 0.0, probe_sd: float = 0.0, probe_per: str = "round"
) -> pd.DataFrame:
    """log y = beta x + u_block + v_round + e_run, each normal with TRUE's variance; x, the log
    probe, normal with `probe_sd`, read once per round or once per block."""
    rows = []
    for b in range(blocks):
        u = rng.normal(0, math.sqrt(TRUE[INSTANCE]))
        xb = rng.normal(0, probe_sd)
        for r in range(rounds):
            v = rng.normal(0, math.sqrt(TRUE[ROUND_LEVEL]))
            x = rng.normal(0, probe_sd) if probe_per == "round" else xb
            for _ in range(runs):
                rows.append((str(b), str(r), beta * x + u + v + rng.normal(0, math.sqrt(TRUE[RUN])), x))
    return pd.DataFrame(rows, columns=["block", "round", "y", "x"])


def test_nested_effects_with_known_variances_come_back_with_their_shares():
    d = decompose(nested(np.random.default_rng(1), 400, 4, 3).drop(columns="x"))
    assert isinstance(d, Decomposition) and d.method == BALANCED and d.layout.text() == "400 x 4 x 3"
    total = sum(TRUE.values())
    for level, var in TRUE.items():
        assert d.component(level).variance == pytest.approx(var, rel=0.15)
        assert d.share(level) == pytest.approx(var / total, abs=0.03)
        assert d.component(level).holds == (level,)
    assert d.component(DRIFT) is None and d.share(DRIFT) is None
    assert "no CPU probe reading" in "; ".join(d.notes) and "confounded" not in "; ".join(d.notes)


def test_an_unbalanced_layout_is_split_by_the_method_of_moments_near_the_same_truth():
    units = nested(np.random.default_rng(2), 400, 4, 3)
    rng = np.random.default_rng(3)
    units = units.drop(index=rng.choice(units.index, 600, replace=False)).drop(columns="x")
    d = decompose(units)
    assert d.method == UNBALANCED and not d.layout.balanced
    for level, var in TRUE.items():
        assert d.component(level).variance == pytest.approx(var, rel=0.2)


@pytest.mark.parametrize("per", ["round", "block"])
def test_a_probe_with_a_known_coefficient_comes_back_as_the_slope_and_the_drift_share(per):
    beta, probe_sd = 0.8, 0.3
    d = decompose(nested(np.random.default_rng(4), 1000, 3, 2, beta=beta, probe_sd=probe_sd, probe_per=per))
    s = d.slope
    assert s.level == per and s.low < beta < s.high and s.estimate == pytest.approx(beta, abs=0.05)
    drift = beta**2 * probe_sd**2
    assert d.component(DRIFT).variance == pytest.approx(drift, rel=0.1)
    assert d.share(DRIFT) == pytest.approx(drift / (drift + sum(TRUE.values())), abs=0.03)
    # What the probe explains is taken out of the levels, not counted twice.
    for level, var in TRUE.items():
        assert d.component(level).variance == pytest.approx(var, rel=0.2)


def test_a_probe_that_predicts_nothing_gets_little_drift_share_by_chance():
    """The slope's own noise is taken off (beta^2 - se^2): over many small campaigns whose probe
    predicts nothing, the drift share stays well below what the bare beta^2 would give."""
    ours, bare, zero = [], [], 0
    for seed in range(200):
        units = nested(np.random.default_rng(100 + seed), 12, 1, 1, probe_sd=0.1, probe_per="block")
        d = decompose(units)
        s, var_x = d.slope, float(np.var(units["x"], ddof=1))
        assert d.component(DRIFT).variance == pytest.approx(max(0.0, s.estimate**2 - s.se**2) * var_x)
        ours.append(d.share(DRIFT))
        bare.append(s.estimate**2 * var_x / (s.estimate**2 * var_x + d.total - d.component(DRIFT).variance))
        zero += "within its standard error" in "; ".join(d.notes)
    assert np.mean(ours) < 0.5 * np.mean(bare) and zero > 100


def test_one_round_per_block_says_round_and_run_are_confounded_with_the_instance():
    d = decompose(nested(np.random.default_rng(6), 300, 1, 1).drop(columns="x"))
    assert [c.level for c in d.components] == [INSTANCE]
    assert d.component(INSTANCE).holds == (INSTANCE, ROUND_LEVEL, RUN) and d.share(INSTANCE) == 1.0
    assert d.component(INSTANCE).variance == pytest.approx(sum(TRUE.values()), rel=0.15)
    assert "instance, round and run are confounded" in "; ".join(d.notes)
    # Several runs (a micro benchmark's hosts) in the one round: the run has a stratum, the round not.
    d = decompose(nested(np.random.default_rng(7), 300, 1, 3).drop(columns="x"))
    assert d.component(INSTANCE).holds == (INSTANCE, ROUND_LEVEL) and d.component(ROUND_LEVEL) is None
    assert d.component(RUN).variance == pytest.approx(TRUE[RUN], rel=0.15)
    assert "round and instance are confounded" in "; ".join(d.notes)
    # Rounds of one run each: the round holds the run.
    d = decompose(nested(np.random.default_rng(8), 300, 3, 1).drop(columns="x"))
    assert d.component(ROUND_LEVEL).holds == (ROUND_LEVEL, RUN) and d.component(RUN) is None
    assert d.component(ROUND_LEVEL).variance == pytest.approx(TRUE[ROUND_LEVEL] + TRUE[RUN], rel=0.15)
    assert "round and run are confounded" in "; ".join(d.notes)


def test_what_cannot_be_split_says_why():
    one_block = nested(np.random.default_rng(9), 1, 4, 1)
    assert isinstance(decompose(one_block), NoDecomposition)
    units = nested(np.random.default_rng(10), 6, 1, 1, probe_sd=0.1, probe_per="block")
    units.loc[0, "x"] = np.nan
    d = decompose(units)
    assert d.slope is None and "1 of 6 units have no CPU probe reading" in "; ".join(d.notes)
    # Two blocks with one probe reading each leave the slope no degree of freedom.
    d = decompose(nested(np.random.default_rng(11), 2, 1, 1, probe_sd=0.1, probe_per="block"))
    assert d.slope is None and "no degree of freedom" in "; ".join(d.notes)


def campaign_samples(rng, blocks: int = 300, rounds: int = 2, *, own_probe: bool) -> pd.DataFrame:
    """native and lxc in every (block, round): a block effect both share (sd 0.2), each
    configuration's own cluster instance (sd 0.05) and round noise (sd 0.03); lxc 5 % slower. The
    probe: one reading per (block, round) for both, or each side its own (`own_probe`)."""
    rows = []
    for b in range(blocks):
        shared = rng.normal(0, 0.2)
        inst = {p: rng.normal(0, 0.05) for p in ("native", "lxc")}
        for r in range(rounds):
            probe = 40.0 * math.exp(rng.normal(0, 0.1))
            for p, mu in (("native", 0.0), ("lxc", math.log(1.05))):
                mine = 40.0 * math.exp(rng.normal(0, 0.1)) if own_probe else probe
                value = 100 * math.exp(mu + shared + inst[p] + rng.normal(0, 0.03))
                rows.append(
                    {
                        "experiment": "platforms",
                        "platform": p,
                        "benchmark": "terasort",
                        "metric": "terasort.job_time",
                        "size": "128MB",
                        "value": value,
                        "block": b,
                        "round": r,
                        "warmup": False,
                        QUIET_CPU_PROBE: mine,
                    }
                )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("own_probe", [False, True])
def test_a_comparisons_log_ratio_is_split_after_pairing(own_probe):
    samples = campaign_samples(np.random.default_rng(12), own_probe=own_probe)
    # A warm-up run far off: left out, as the statistics' rule leaves it.
    samples = pd.concat([samples, samples.iloc[[0]].assign(value=1e6, warmup=True, round=9)], ignore_index=True)
    rows = campaign_variance(samples, {"platforms": "native"}, lambda b, m: True)
    by = {(r.configuration, r.baseline): r for r in rows}
    assert list(by) == [("native", ""), ("lxc", ""), ("lxc", "native")]
    native, ratio = by[("native", "")].result, by[("lxc", "native")].result
    # A configuration's instance holds the shared block effect; pairing takes it out of the ratio.
    assert native.component(INSTANCE).variance == pytest.approx(0.2**2 + 0.05**2, rel=0.2)
    assert ratio.component(INSTANCE).variance == pytest.approx(2 * 0.05**2, rel=0.25)
    assert ratio.component(ROUND_LEVEL).variance == pytest.approx(2 * 0.03**2, rel=0.25)
    assert by[("lxc", "native")].quantity == LOG_RATIO and ratio.layout.text() == "300 x 2 x 1"
    assert ratio.slope.covariate == (PROBE_RATIO if own_probe else PROBE_SHARED)
    assert abs(ratio.slope.estimate) < 3 * ratio.slope.se  # the probe slows nothing here


def test_records_frame_and_markdown_carry_the_same_shares():
    samples = campaign_samples(np.random.default_rng(13), blocks=20, own_probe=False)
    rows = campaign_variance(samples, {}, lambda b, m: True)
    records = [r.record() for r in rows]
    json.dumps(records, allow_nan=False)  # what stats.json keeps: no NaN
    frame = variance_frame(records)
    assert list(frame["configuration"]) == ["native", "lxc", "lxc"] and list(frame["baseline"]) == ["", "", "native"]
    for rec, (_, row) in zip(records, frame.iterrows()):
        for level in LEVELS:
            c = rec["components"][level]
            assert (math.isnan(row[level]) and c is None) or row[level] == pytest.approx(c["share"])
        assert sum(c["share"] for c in rec["components"].values() if c) == pytest.approx(1.0)
    text = markdown(records)
    assert (
        text.count("\n") == 2 + len(records)
        and "| lxc / native | terasort[128MB] terasort.job_time | 20 x 2 x 1 |" in text
    )


def test_the_statistics_pass_writes_the_section_for_a_committed_campaign(tmp_path):
    raw = REPO / "data" / "raw" / "reference"
    cfg = StatsConfig(n_resamples=200)
    table = campaign_stats(load_campaign(raw), cfg)
    write_campaign_stats(table, cfg, raw, tmp_path)
    section = json.loads((tmp_path / STATS_META).read_text())["variance"]
    rows = {(r["metric"], r["configuration"], r["baseline"]): r for r in section["rows"]}
    for key in [
        ("terasort.job_time", "native", ""),
        ("terasort.job_time", "lxc", ""),
        ("terasort.job_time", "native~aa", ""),
        ("terasort.job_time", "lxc", "native"),
        ("terasort.job_time", "native~aa", "native"),
        ("terasort_time", "lxc", "native"),
        ("events_per_s", "lxc", "native"),
    ]:
        assert key in rows
    ratio = rows[("terasort.job_time", "lxc", "native")]
    # The reference has 4 blocks of one round and no CPU probe: one value per block, no drift term.
    assert ratio["layout"] == "4 x 1 x 1" and ratio["components"][INSTANCE]["share"] == 1.0
    assert ratio["components"][ROUND_LEVEL] is None and ratio["slope"] is None
    assert "instance, round and run are confounded" in ratio["note"] and "no CPU probe" in ratio["note"]
    # The log ratio's variance is the square of the s.d. the paired interval is built from.
    d = table[
        (table["metric"] == "terasort.job_time")
        & (table["platform"] == "lxc")
        & (table["statistic"] == "ratio_to_baseline")
        & (table["method"] == "paired-t (blocks)")
    ].iloc[0]
    half = math.log(d["ci_high"] / d["ci_low"]) / 2
    assert ratio["sd"] == pytest.approx(half * 2 / 3.182446305284263, rel=1e-6)
    # Micro benchmarks run on three hosts: the run has its own stratum.
    assert rows[("events_per_s", "lxc", "")]["layout"] == "4 x 1 x 3"

"""selfbench/run_spread.py: a run's parts from its attempts' times, the parts' shares of the
spread of within-round differences, and the A/A spread per level, on synthetic campaigns whose
answers are known."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from selfbench import run_spread as R  # noqa: E402


def _run(rows, run_id, config, block, rnd, maps_s, tail_s, cpu_s, level=None, setup_s=0.5):
    """One TeraSort run: 4 maps started 0.1 s apart lasting `maps_s` (the last map's finish),
    2 reduces finishing `tail_s` later, commit 0.05 s."""
    base = {"run_id": run_id, "platform": config, "block": block, "round": rnd, "benchmark": "terasort"}
    if level is not None:
        base["factor.task_jit"] = level
    start = 1_000_000.0
    first = start + setup_s * 1000
    last_map = first + maps_s * 1000
    finish = last_map + tail_s * 1000 + 50
    times = {"job_start_ms": start, "job_finish_ms": finish}
    for i in range(4):
        s = first + 100 * i
        f = last_map if i == 3 else s + 1000
        rows.append(
            {
                **base,
                **times,
                "metric": "map_attempt_time",
                "step": "terasort",
                "start_ms": s,
                "finish_ms": f,
                "value": (f - s) / 1000,
            }
        )
    for _ in range(2):
        rows.append(
            {
                **base,
                **times,
                "metric": "reduce_attempt_time",
                "step": "terasort",
                "start_ms": last_map - 500,
                "finish_ms": finish - 50,
                "value": 1.0,
            }
        )
    rows.append({**base, "metric": R.JOB, "value": (finish - start) / 1000})
    rows.append({**base, "metric": R.CPU, "value": cpu_s * 1000})


def test_a_runs_parts_add_up_to_its_job_time():
    rows: list[dict] = []
    _run(rows, "r1", "native", 0, 0, maps_s=15.0, tail_s=5.0, cpu_s=11.0)
    (run,) = R.runs_frame(pd.DataFrame(rows)).to_dict("records")
    assert run["setup"] == pytest.approx(0.5) and run["maps"] == pytest.approx(15.0)
    assert run["tail"] == pytest.approx(5.0) and run["commit"] == pytest.approx(0.05)
    assert run["setup"] + run["maps"] + run["tail"] + run["commit"] == pytest.approx(run["job"])
    assert run["map_stagger"] == pytest.approx(0.3) and run["cpu"] == pytest.approx(11.0)


def test_warm_up_runs_and_teragens_attempts_are_not_read():
    rows: list[dict] = []
    _run(rows, "r1", "native", 0, 0, maps_s=15.0, tail_s=5.0, cpu_s=11.0)
    _run(rows, "w", "native", 0, 0, maps_s=30.0, tail_s=5.0, cpu_s=11.0)
    df = pd.DataFrame(rows)
    df["warmup"] = df["run_id"] == "w"
    df.loc[(df["run_id"] == "r1") & (df["metric"] == "map_attempt_time"), "step"] = [
        "teragen",
        "terasort",
        "terasort",
        "terasort",
    ]
    (run,) = R.runs_frame(df).to_dict("records")
    assert run["run_id"] == "r1" and run["map_stagger"] == pytest.approx(0.2)  # TeraGen's map left out


def test_the_spread_is_placed_in_the_part_that_moves_and_follows_the_cpu_time():
    """The maps' part moves from round to round and carries the CPU time with it; the tail is
    fixed: the maps hold the whole variance, the correlation with the CPU ratio is ~1."""
    rng = np.random.default_rng(5)
    rows: list[dict] = []
    for b in range(3):
        for r in range(6):
            for cfg in ("native", "native~aa"):
                m = 15.0 * math.exp(rng.normal(0, 0.08)) + (1.0 if cfg == "native~aa" else 0.0)  # an offset: removed
                _run(rows, f"{cfg}-{b}-{r}", cfg, b, r, maps_s=m, tail_s=5.0, cpu_s=0.7 * m)
    reading = R.spread_reading("synthetic", R.runs_frame(pd.DataFrame(rows)))
    assert reading.pairs == 18 and sum(reading.shares.values()) == pytest.approx(1.0, abs=1e-6)
    assert reading.shares["maps"] == pytest.approx(1.0, abs=1e-6) and reading.shares["tail"] == pytest.approx(
        0, abs=1e-6
    )
    assert reading.corr_job_cpu > 0.95
    assert reading.sd_map_stagger_s == pytest.approx(0, abs=1e-9)


def test_the_aa_spread_per_level_finds_the_quieter_level_and_its_effect():
    """Level c1's runs are 20 % shorter and half as noisy as tiered's: its A/A s.d. is about half,
    the F test says below, and c1 / tiered is ~0.8 in job and CPU time."""
    rng = np.random.default_rng(11)
    rows: list[dict] = []
    for b in range(3):
        for r in range(15):
            for level, scale, sd in (("tiered", 1.0, 0.08), ("c1", 0.8, 0.04)):
                for cfg in ("native", "native~aa"):
                    m = 15.0 * scale * math.exp(rng.normal(0, sd))
                    _run(
                        rows,
                        f"{cfg}-{b}-{r}-{level}",
                        cfg,
                        b,
                        r,
                        maps_s=m,
                        tail_s=0.001,
                        cpu_s=0.7 * m,
                        level=level,
                        setup_s=0.001,
                    )
    runs = R.runs_frame(pd.DataFrame(rows), "task_jit")
    tiered, c1 = R.aa_by_level(runs, "tiered")
    assert (tiered.level, c1.level) == ("tiered", "c1") and tiered.dof == c1.dof == 42
    assert tiered.sd_aa == pytest.approx(0.08 * math.sqrt(2), rel=0.3)
    assert c1.sd_aa == pytest.approx(0.04 * math.sqrt(2), rel=0.3)
    assert c1.f_p_below_first < 0.01 and tiered.f_p_below_first is None
    ratio, low, high = c1.job_vs_first
    assert low < 0.8 < high or ratio == pytest.approx(0.8, rel=0.05)
    assert c1.cpu_vs_first[2] < 1  # the manipulation check: its CPU time below tiered's
    assert tiered.aa_low < 1 < tiered.aa_high

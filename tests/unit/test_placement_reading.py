"""selfbench/placement_reading.py: map splits from the samples, and the placement effect on a
synthetic campaign with a known answer."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from selfbench import placement_reading as P  # noqa: E402


def test_a_split_lists_maps_per_worker_largest_first_with_idle_workers():
    assert P.split_label(["worker1", "worker2", "worker1", "worker1"], 2) == "3+1"
    assert P.split_label(["worker2"] * 4, 2) == "4+0"
    assert P.split_label(["worker1", "worker2", "worker3"], 4) == "1+1+1+0"


def _campaign(effect: float, seed: int = 1, blocks: int = 8) -> pd.DataFrame:
    """TeraSort runs of two configurations whose job time grows by `effect` (log) per extra map
    on the busiest worker, beside a block drift and noise; TeraGen's maps are placed evenly."""
    rng = np.random.default_rng(seed)
    rows = []
    for b in range(blocks):
        drift = rng.normal(0, 0.1)
        for cfg in ("native", "lxc"):
            busiest = int(rng.choice([3, 4]))
            run = {"run_id": f"{cfg}-{b}", "platform": cfg, "block": b, "benchmark": "terasort", "workers": 2}
            maps = [("terasort", "worker1")] * busiest + [("terasort", "worker2")] * (4 - busiest)
            for step, node in maps + [("teragen", "worker2")]:
                rows.append({**run, "metric": "map_attempt_time", "step": step, "node": node, "value": 5.0})
            job = 20 * math.exp(drift + effect * busiest + rng.normal(0, 0.005))
            rows.append({**run, "metric": "terasort_job_time", "value": job})
    return pd.DataFrame(rows)


def test_the_effect_of_a_busier_worker_is_recovered_and_drift_is_not_read_as_placement():
    runs = P.runs_frame(_campaign(math.log(1.10)))
    assert len(runs) == 16 and set(runs["split"]) <= {"3+1", "4+0"}  # TeraGen's maps not counted
    r = P.reading("synthetic", runs)
    assert r.effect_low < math.log(1.10) < r.effect_high and r.effect == pytest.approx(math.log(1.10), abs=0.01)
    assert r.residual_sd_with < r.residual_sd_without
    assert f"busiest worker: {100 * (math.exp(r.effect) - 1):+.1f} %" in P.report(r)


def test_one_split_only_has_no_effect_to_estimate():
    df = _campaign(0.0)
    df.loc[df["step"] == "terasort", "node"] = "worker1"  # every run 4+0
    r = P.reading("synthetic", P.runs_frame(df))
    assert r.effect is None and "not estimable" in P.report(r)

"""selfbench/size_reading.py: the size question's reading from a campaign's samples."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.unit import selfbench_scripts


@pytest.fixture(scope="module")
def sr():
    return selfbench_scripts.load("size_reading")


def frame(job_times: dict[tuple[str, str, int], float], warmup_blocks: tuple[int, ...] = ()) -> pd.DataFrame:
    """Samples as load_campaign gives them: a job time and the cost metrics per cell."""
    rows = []
    for (size, platform, block), job in job_times.items():
        cell = f"b{block}/{platform}/terasort[{size}]"
        common = {"size": size, "platform": platform, "block": block, "cell_id": cell, "bringup_s": 30.0}
        common["warmup"] = block in warmup_blocks
        rows.append({**common, "metric": "terasort.job_time", "value": job})
        rows.append({**common, "metric": "teragen_time", "value": 10.0 if size == "128MB" else 40.0})
        rows.append({**common, "metric": "terasort_time", "value": job + 5.0})
    return pd.DataFrame(rows)


def test_pooled_sd_takes_each_comparisons_mean_out(sr):
    # A/A log ratios +/-d around 0, LXC's around log 1.1: pooled s.d. is d's, not the spread of both.
    d = 0.05
    times = {}
    for block, sign in ((1, 1), (2, -1), (3, 1), (4, -1)):
        times[("128MB", "native", block)] = 20.0
        times[("128MB", "native~aa", block)] = 20.0 * math.exp(sign * d)
        times[("128MB", "lxc", block)] = 20.0 * 1.1 * math.exp(-sign * d)
    times.update({("128MB", p, 0): 99.0 for p in ("native", "native~aa", "lxc")})  # warm-up, left out
    samples = frame(times, warmup_blocks=(0,))
    ratios = sr.block_log_ratios(samples, "terasort.job_time", "native")
    (r,) = sr.readings(ratios, sr.cell_minutes(samples))
    assert r.df == 6
    assert r.sd == pytest.approx(d * math.sqrt(8 / 6))
    assert dict((p, g) for p, g, _ in r.comparisons)["lxc"] == pytest.approx(1.1)


def test_cell_minutes_is_bringup_plus_the_sizes_own_runs(sr):
    samples = frame({("512MB", "native", 1): 60.0, ("512MB", "native", 2): 80.0})
    # (30 + 40 + 65) / 60 and (30 + 40 + 85) / 60: median of the two
    assert sr.cell_minutes(samples)["512MB"] == pytest.approx(np.median([135 / 60, 155 / 60]))


def test_efficiency_ratio_and_the_rule(sr):
    big = sr.SizeReading("512MB", sd=0.02, df=10, cell_minutes=2.0, comparisons=())
    ref = sr.SizeReading("128MB", sd=0.05, df=10, cell_minutes=1.0, comparisons=())
    ratio, lo, hi = sr.efficiency_ratio(big, ref)
    assert ratio == pytest.approx(0.02**2 * 2 / 0.05**2)
    assert lo < ratio < hi
    assert sr.verdict(ratio).startswith("the larger size measures")
    assert sr.verdict(2.5).startswith("the reference size stays")
    assert sr.verdict(1.0).startswith("not settled")

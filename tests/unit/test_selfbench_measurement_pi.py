"""selfbench/measurement_pi.py's pure parts: the blocks a measured ratio needs, the pooled noise."""

from __future__ import annotations

import math

import pytest

from tests.unit.selfbench_scripts import load
from vbench.stats.cost_model import LogRatio

M = load("measurement_pi")


def test_the_blocks_a_ratio_needs_follow_its_paired_t():
    # 3 blocks: t(2) 4.303 x 0.040 / sqrt(3) = 0.099 < log 1.15 = 0.140; 2 blocks: 12.7 x 0.04 / 1.41 = 0.36.
    assert M.blocks_needed(0.040, 0.15) == 3
    n = M.blocks_needed(0.314, 0.15)
    assert M.stats.t.ppf(0.975, n - 1) * 0.314 / math.sqrt(n) <= math.log(1.15)
    assert M.stats.t.ppf(0.975, n - 2) * 0.314 / math.sqrt(n - 1) > math.log(1.15)
    assert M.blocks_needed(0.314, 0.30) < n  # a wider target, fewer blocks
    assert M.blocks_needed(50.0, 0.01) is None


def test_the_pooled_noise_weighs_each_campaign_by_its_degrees_of_freedom():
    a = LogRatio(0.1, 0.02, 2)  # a block's sd 0.02 x sqrt(3)
    b = LogRatio(0.2, 0.05, 4)  # 0.05 x sqrt(5)
    sd, df = M.pooled_block_sd([a, b])
    assert df == 6 and sd == pytest.approx(math.sqrt((2 * 0.02**2 * 3 + 4 * 0.05**2 * 5) / 6))
    lo, hi = M.wilson(948, 1000)
    assert lo < 0.948 < hi and hi - lo < 0.03

"""Several campaigns' ratio of one job on one platform, pooled (vbench.stats.campaign_pool)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from scipy import stats

from vbench.errors import ParamsError
from vbench.stats.campaign_pool import CampaignRatio, pool_job_ratios, pooled_ratio
from vbench.stats.cost_model import JobRatio, LogRatio


def _reading(name: str, ratio: float, se: float = 0.05, df: float = 2) -> CampaignRatio:
    return CampaignRatio(name, LogRatio(math.log(ratio), se, df))


def test_the_pooled_ratio_is_the_campaigns_mean_log_ratio_on_their_number_less_one():
    readings = [_reading("a", 3.0), _reading("b", 4.0), _reading("c", 5.0)]
    p = pooled_ratio("terasort", "gvisor", readings)
    logs = [math.log(x) for x in (3.0, 4.0, 5.0)]
    assert p.ratio.estimate == pytest.approx(math.exp(statistics.fmean(logs)))
    assert p.between_sd == pytest.approx(statistics.stdev(logs))
    assert p.ratio.log_se == pytest.approx(statistics.stdev(logs) / math.sqrt(3)) and p.ratio.df == 2
    assert p.hour_sd == pytest.approx(math.sqrt(statistics.stdev(logs) ** 2 - 0.05**2))
    assert p.campaigns == ("a", "b", "c")
    iv = p.ratio.interval(0.95)
    half = stats.t.ppf(0.975, 2) * p.ratio.log_se
    assert (iv.low, iv.high) == pytest.approx((p.ratio.estimate * math.exp(-half), p.ratio.estimate * math.exp(half)))


def test_a_campaign_whose_few_blocks_agreed_does_not_outweigh_the_others():
    # costs-profile-gvisor's TeraSort: se 0.004 on 1 df among campaigns of 0.02-0.10.
    lucky = [_reading("lucky", 3.48, se=0.004, df=1), _reading("b", 4.10, 0.1), _reading("c", 3.77, 0.065)]
    even = [_reading("lucky", 3.48, se=0.1), _reading("b", 4.10, 0.1), _reading("c", 3.77, 0.065)]
    assert pooled_ratio("t", "g", lucky).ratio == pooled_ratio("t", "g", even).ratio


def test_the_hours_part_is_floored_at_zero_where_the_campaigns_own_noise_explains_their_spread():
    p = pooled_ratio("wordcount", "gvisor", [_reading("a", 3.0, se=0.2), _reading("b", 3.1, se=0.2)])
    assert p.between_sd > 0 and p.hour_sd == 0.0


def test_pooling_needs_two_distinct_campaigns():
    with pytest.raises(ParamsError, match="two campaigns or more"):
        pooled_ratio("t", "g", [_reading("a", 3.0)])
    with pytest.raises(ParamsError, match="read twice"):
        pooled_ratio("t", "g", [_reading("a", 3.0), _reading("a", 3.1)])


def test_a_job_one_campaign_alone_measured_is_left_out_and_listed():
    def ratios(*cells):
        return [JobRatio(job, platform, LogRatio(math.log(x), 0.05, 2)) for job, platform, x in cells]

    pool = pool_job_ratios(
        [
            ("a", ratios(("terasort", "gvisor", 3.5), ("wordcount", "gvisor", 3.1), ("terasort", "lxc", 1.02))),
            ("b", ratios(("terasort", "gvisor", 3.9), ("wordcount", "gvisor", 3.2))),
        ]
    )
    assert [(r.job, r.platform) for r in pool.ratios] == [("terasort", "gvisor"), ("wordcount", "gvisor")]
    assert pool.ratios[0].ratio.estimate == pytest.approx(math.sqrt(3.5 * 3.9))
    assert pool.single == (("terasort", "lxc", "a"),)
    assert [p.campaigns for p in pool.pooled] == [("a", "b"), ("a", "b")]
    with pytest.raises(ParamsError, match="named twice"):
        pool_job_ratios([("a", []), ("a", [])])


def test_the_pooled_interval_holds_the_long_run_ratio_in_95_of_100_sets_of_campaigns():
    """A known answer: campaigns whose ratio moves by the hour (sd 0.08 in the log) as well as by
    their blocks' noise (sd 0.05, 3 blocks each). Weighting each campaign by its own standard
    error would narrow the interval below its level; alike, it keeps it."""
    rng = np.random.default_rng(53075)
    truth, k, blocks, sims = math.log(3.6), 5, 3, 4000
    held = 0
    for _ in range(sims):
        readings = []
        for i in range(k):
            b = truth + 0.08 * rng.standard_normal() + 0.05 * rng.standard_normal(blocks)
            readings.append(
                CampaignRatio(str(i), LogRatio(float(b.mean()), float(b.std(ddof=1) / math.sqrt(blocks)), 2))
            )
        iv = pooled_ratio("terasort", "gvisor", readings).ratio.interval(0.95)
        held += iv.low <= math.exp(truth) <= iv.high
    assert 0.935 <= held / sims <= 0.965

"""Adaptive repetitions: precision checks and run projections, verified by brute force."""

import math

import numpy as np
import pytest
from scipy import stats

from tests.unit.selfbench_scripts import load
from vbench.stats.adaptive import CONTINUE, STOP_BUDGET, STOP_REACHED, assess_mean, assess_ratio
from vbench.stats.ratio import MeanSummary, fieller_from_summary


def _hw_mean_pct(mean, sd, n):
    return 100 * stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n) / abs(mean)


def test_assess_mean_reports_half_width_and_projection():
    x = np.random.default_rng(4).lognormal(np.log(100), 0.05, 5)
    a = assess_mean(x, target_pct=2.0)
    sd, mean = x.std(ddof=1), x.mean()
    assert a.half_width_pct == pytest.approx(_hw_mean_pct(mean, sd, 5))
    assert not a.reached and a.decision == CONTINUE
    # Brute force: the first total n whose projected half-width is within target.
    need = next(n for n in range(5, 10_000) if _hw_mean_pct(mean, sd, n) <= 2.0)
    assert a.more_runs == need - 5


def test_assess_mean_reached_and_budget():
    x = np.array([100.0, 100.5, 99.5, 100.2, 99.8, 100.1])
    assert assess_mean(x, 2.0).decision == STOP_REACHED
    noisy = np.array([100.0, 120.0, 85.0, 110.0])
    a = assess_mean(noisy, 2.0, max_runs=4)
    assert a.decision == STOP_BUDGET and "budget of 4 runs used" in a.note
    b = assess_mean(noisy, 2.0, max_runs=10)
    assert b.decision == CONTINUE and "unlikely within the budget of 10" in b.note


def test_assess_mean_with_too_few_runs_asks_for_more():
    a = assess_mean([100.0], 2.0)
    assert a.decision == CONTINUE and a.more_runs == 2 and a.half_width_pct is None


def test_assess_ratio_projection_is_minimal():
    rng = np.random.default_rng(9)
    x, y = rng.lognormal(np.log(110), 0.06, 5), rng.lognormal(np.log(100), 0.04, 5)
    a = assess_ratio(x, y, target_pct=2.0)
    assert a.statistic == "ratio_to_baseline" and a.method == "fieller" and not a.reached
    num, den = MeanSummary.of(x), MeanSummary.of(y)

    def hw(m):
        iv = fieller_from_summary(MeanSummary(num.mean, num.sd, 5 + m), MeanSummary(den.mean, den.sd, 5 + m))
        return 100 * (iv.high - iv.low) / 2 / iv.estimate

    assert hw(a.more_runs) <= 2.0 < hw(a.more_runs - 1)
    assert a.half_width_pct == pytest.approx(hw(0))


def test_assess_ratio_reached():
    x = np.array([110.0, 110.3, 109.8, 110.1, 109.9, 110.2])
    y = np.array([100.0, 100.2, 99.9, 100.1, 99.8, 100.0])
    a = assess_ratio(x, y, 2.0)
    assert a.reached and a.decision == STOP_REACHED and a.more_runs == 0


def test_assess_ratio_respects_minimum_runs():
    a = assess_ratio(np.array([110.0, 110.1]), np.array([100.0, 100.1]), 50.0, min_runs=3)
    assert not a.reached and a.more_runs == 1


def _benchmark_module():
    return load("adaptive_repetitions")


def test_benchmark_script_synthetic_and_recorded_smoke(capsys):
    from pathlib import Path

    mod = _benchmark_module()
    mod.main(["--campaigns", "3", "--max-runs", "30"])
    out = capsys.readouterr().out
    assert "adaptive-1" in out and "Summary: runs per platform" in out
    data = Path(__file__).resolve().parents[1] / "data" / "stats" / "samples.csv"
    mod.main(["--samples", str(data), "--campaigns", "3"])
    out = capsys.readouterr().out
    assert "terasort/job_time/10GB: kvm vs native (recorded n=5" in out


def test_benchmark_script_plays_the_runners_stopping_rule(capsys):
    mod = _benchmark_module()
    mod.main(
        [
            "--rule",
            "--rule-campaigns",
            "20",
            "--max-blocks",
            "12",
            "--rule-resamples",
            "200",
            "--rule-bootstrap-campaigns",
            "2",
        ]
    )
    out = capsys.readouterr().out
    assert "min 10, +8 (default)" in out and "fixed at max" in out and "hierarchical bootstrap" in out
    # With rounds, the default counts min_rounds and extra_rounds in blocks (3 rounds: 30 and 24).
    assert "min 30, +24 (default)" in out and "min 30, +8 (old default)" in out
    assert "default rule, paired-t (one round per block): lowest coverage" in out
    assert "default rule, paired-t, several rounds per block: lowest coverage" in out


def test_the_rule_with_rounds_stops_at_a_block_end_through_decide():
    mod = _benchmark_module()
    iv = mod.Interval(1.0, 0.99, 1.01)  # always within +/-3 %
    rule = mod.Rule("r", 6, 4, 3)
    # Reached at round 6, 4 more rounds end mid-block (10): the stop waits for round 12.
    assert mod.play_rule([None] + [iv] * 30, rule, 3.0, 30) == 12
    assert mod.play_rule([None] + [iv] * 30, mod.Rule("r", 6, 4), 3.0, 30) == 10


def test_lognormal_generator_has_requested_mean_and_cv():
    mod = _benchmark_module()
    x = mod.lognormal_runs(np.random.default_rng(0), 100.0, 0.05, 400_000)
    assert x.mean() == pytest.approx(100.0, rel=1e-3)
    assert x.std() / x.mean() == pytest.approx(0.05, rel=1e-2)

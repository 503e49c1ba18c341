"""The cost model's shares bounded at 0 (`vbench predict --shares nonnegative`), on synthetic data
with a known answer: the solver is exact, the bound changes nothing where the free shares are
positive, and where a true share is 0 it keeps a large cost from dragging the prediction down."""

from __future__ import annotations


import numpy as np
import pytest
from scipy.optimize import nnls

from tests.unit.builders import measured_log_ratio
from vbench.stats import cost_model as cm
from vbench.stats.cost_model import CostVector, JobRatio, ResourceCost, fit_job, predict

RESOURCES = ("rpc", "jvmstart")
#: The planted levels' true costs, shaped like costs-fit-sixblocks-amd's: every call moves rpc, the
#: memory level moves jvmstart (and rpc a little), both together.
LEVELS = {"calls": (8.0, 1.0), "memory": (1.08, 1.75), "both": (8.6, 1.8)}
#: A platform whose JVM starts cost 30 times native's: QEMU under TCG (costs-qemu-calib-amd).
SLOW_START = (9.0, 30.0)
#: NNBench's truth as the free fit reads it: round trips, no JVM start.
SHARES = (0.25, 0.0)
BLOCKS = 6
DRAWS = 300


def _true_ratio(costs: tuple[float, ...]) -> float:
    return 1 + sum(s * (x - 1) for s, x in zip(SHARES, costs))


def _world(seed: int, sd_job: float = 0.08):
    rng = np.random.default_rng(seed)
    truth = {**LEVELS, "slowstart": SLOW_START}
    costs = tuple(
        CostVector(p, tuple(ResourceCost(r, measured_log_ratio(rng, x, 0.03, BLOCKS)) for r, x in zip(RESOURCES, xs)))
        for p, xs in truth.items()
    )
    ratios = tuple(
        JobRatio("nnbench", p, measured_log_ratio(rng, _true_ratio(xs), sd_job, BLOCKS)) for p, xs in truth.items()
    )
    return costs, ratios


def _fit(costs, ratios, seed: int, nonnegative: bool) -> cm.JobFit:
    return fit_job(
        "nnbench",
        costs,
        ratios,
        design=tuple(LEVELS),
        resources=RESOURCES,
        n_draws=DRAWS,
        seed=seed,
        nonnegative=nonnegative,
    )


def test_the_bounded_solver_is_scipy_s_nnls_for_every_draw():
    rng = np.random.default_rng(5)
    b, n, k = 200, 6, 3
    x = rng.normal(size=(b, n, k))
    y = rng.normal(size=(b, n))
    w = rng.uniform(0.2, 3.0, size=n)
    got = cm.nonnegative_solve(x, y, w)
    root = np.sqrt(w)
    want = np.array([nnls(x[i] * root[:, None], y[i] * root)[0] for i in range(b)])
    assert (got >= 0).all()
    np.testing.assert_allclose(got, want, atol=1e-9)
    # Random problems hit every case: no share, one, all of them at the bound.
    at_zero = (got == 0).sum(axis=1)
    assert {0, 1, k} <= set(at_zero.tolist())


def test_where_the_free_shares_are_positive_the_bound_changes_nothing():
    rng = np.random.default_rng(9)
    x = rng.uniform(0, 5, size=(50, 8, 2))
    y = np.einsum("bnk,k->bn", x, [0.3, 0.2]) + 0.01 * rng.normal(size=(50, 8))
    w = np.ones(8)
    free = cm._weighted_solve(x, y, w)
    assert (free > 0).all()
    np.testing.assert_allclose(cm.nonnegative_solve(x, y, w), free, rtol=1e-12, atol=1e-12)


def test_a_true_share_of_zero_is_fitted_at_or_above_it_and_the_prediction_follows_the_truth():
    """NNBench's case: its true jvmstart share is 0, and the free fit's is as often below 0 as above;
    times a x30 start that moves the prediction by several native times. Bounded, every draw's share
    is >= 0, and over seeded campaigns the prediction on the slow-start platform lies nearer its true
    ratio than the free fit's, and its interval still holds the truth."""
    free_err, bounded_err, covered, negative_free = [], [], [], 0
    truth = _true_ratio(SLOW_START)
    for seed in range(40):
        costs, ratios = _world(2000 + seed)
        free, bounded = _fit(costs, ratios, seed, False), _fit(costs, ratios, seed, True)
        assert bounded.nonnegative and not free.nonnegative
        assert (bounded.draws >= 0).all() and all(c.low >= 0 and c.estimate >= 0 for c in bounded.coefficients)
        negative_free += free.share("jvmstart").estimate < 0
        platform = next(c for c in costs if c.platform == "slowstart")
        p_free, p_bounded = predict(free, platform), predict(bounded, platform)
        free_err.append(abs(p_free.ratio.estimate / truth - 1))
        bounded_err.append(abs(p_bounded.ratio.estimate / truth - 1))
        covered.append(p_bounded.ratio.low <= truth <= p_bounded.ratio.high)
        # Where the free fit's shares are all positive, the bounded one's are the same.
        if (free.estimates > 0).all():
            np.testing.assert_allclose(bounded.estimates, free.estimates, atol=1e-6)
    assert 10 <= negative_free <= 30, negative_free
    assert np.median(bounded_err) < np.median(free_err), (np.median(bounded_err), np.median(free_err))
    assert np.mean(covered) >= 0.9, np.mean(covered)


def test_the_bounded_shares_recover_positive_truths_as_the_free_fit_does():
    rng = np.random.default_rng(1)
    shares = (0.2, 0.25)
    truth = {**LEVELS}
    costs = tuple(
        CostVector(p, tuple(ResourceCost(r, measured_log_ratio(rng, x, 0.02, BLOCKS)) for r, x in zip(RESOURCES, xs)))
        for p, xs in truth.items()
    )
    ratios = tuple(
        JobRatio("terasort", p, measured_log_ratio(rng, 1 + sum(s * (x - 1) for s, x in zip(shares, xs)), 0.03, BLOCKS))
        for p, xs in truth.items()
    )
    kwargs = dict(design=tuple(LEVELS), resources=RESOURCES, n_draws=DRAWS, seed=1)
    bounded = fit_job("terasort", costs, ratios, nonnegative=True, **kwargs)
    free = fit_job("terasort", costs, ratios, **kwargs)
    for b, f, s in zip(bounded.coefficients, free.coefficients, shares):
        assert b.estimate == pytest.approx(f.estimate, abs=1e-6)
        assert b.low <= s <= b.high, b

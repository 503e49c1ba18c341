"""The native time no fitted resource explains, priced at a resource's cost (`vbench predict --rest
cpu`), on synthetic data with a known answer: a platform that slows every instruction (QEMU under
TCG) is predicted near its truth with the rest priced, far under it without; a platform whose CPU
costs native's is predicted as before; and what cannot be a rest is refused."""

from __future__ import annotations


import numpy as np
import pytest

from vbench.errors import ParamsError
from tests.unit.builders import measured_log_ratio
from vbench.stats import cost_model as cm
from vbench.stats.cost_model import CostVector, JobRatio, ResourceCost, attribute, fit_job, predict

FITTED = ("rpc", "jvmstart")
#: The planted levels' true costs (rpc, jvmstart, cpu), shaped like costs-fit-sixblocks-amd's: ptrace
#: stops slow the calls and a JVM's start, never the CPU's own work.
LEVELS = {"calls": (8.0, 1.0, 1.0), "memory": (1.08, 1.75, 1.0), "both": (8.6, 1.8, 1.0)}
#: QEMU under TCG, shaped like costs-qemu-calib-amd: every instruction emulated.
EMULATED = (9.0, 30.0, 20.0)
#: gVisor: costly calls and starts, the CPU at native's.
SANDBOX = (12.0, 6.0, 1.0)
#: TeraSort's truth: the fitted shares, the rest (0.54 of native time) at the CPU's cost.
SHARES = (0.21, 0.25)
BLOCKS = 6
DRAWS = 400


def _true_ratio(costs: tuple[float, ...]) -> float:
    *fitted, cpu = costs
    return 1 + sum(s * (x - 1) for s, x in zip(SHARES, fitted)) + (1 - sum(SHARES)) * (cpu - 1)


def _world(seed: int):
    rng = np.random.default_rng(seed)
    truth = {**LEVELS, "qemu": EMULATED, "gvisor": SANDBOX}
    costs = tuple(
        CostVector(
            p, tuple(ResourceCost(r, measured_log_ratio(rng, x, 0.03, BLOCKS)) for r, x in zip((*FITTED, "cpu"), xs))
        )
        for p, xs in truth.items()
    )
    ratios = tuple(
        JobRatio("terasort", p, measured_log_ratio(rng, _true_ratio(xs), 0.06, BLOCKS)) for p, xs in truth.items()
    )
    return costs, ratios


def _fit(costs, ratios, seed: int) -> cm.JobFit:
    return fit_job("terasort", costs, ratios, design=tuple(LEVELS), resources=FITTED, n_draws=DRAWS, seed=seed)


def _platform(costs, name: str) -> CostVector:
    return next(c for c in costs if c.platform == name)


def test_the_rest_share_is_one_less_the_shares_and_never_below_zero():
    shares = np.array([[0.2, 0.3], [0.7, 0.6], [-0.1, 0.2]])
    np.testing.assert_allclose(cm.rest_share(shares), [0.5, 0.0, 0.9])
    assert float(cm.rest_share(np.array([0.21, 0.25]))) == pytest.approx(0.54)


def test_an_emulated_cpu_is_predicted_near_its_truth_only_with_the_rest_priced():
    truth = _true_ratio(EMULATED)
    with_rest, without, covered = [], [], []
    for seed in range(20):
        costs, ratios = _world(3000 + seed)
        fit = _fit(costs, ratios, seed)
        qemu = _platform(costs, "qemu")
        priced, unpriced = predict(fit, qemu, rest="cpu"), predict(fit, qemu)
        with_rest.append(priced.ratio.estimate / truth - 1)
        without.append(unpriced.ratio.estimate / truth - 1)
        covered.append(priced.ratio.low <= truth <= priced.ratio.high)
        # The estimate is the formula's, and the draws carry the rest's cost.
        extra = fit.estimates @ (np.array([qemu.ratio(r).estimate for r in FITTED]) - 1)
        rest = cm.rest_share(fit.estimates) * (qemu.ratio("cpu").estimate - 1)
        assert priced.ratio.estimate == pytest.approx(1 + extra + rest)
        # A draw's shares trade against the rest at x20, not against native's x1: the relative
        # interval narrows.
        width = [(p.ratio.high - p.ratio.low) / p.ratio.estimate for p in (priced, unpriced)]
        assert width[0] < width[1], width
    assert abs(np.median(with_rest)) < 0.05, np.median(with_rest)
    assert np.median(without) < -0.4, np.median(without)  # the rest at native's: far under
    assert np.mean(covered) >= 0.9, np.mean(covered)


def test_a_platform_whose_cpu_costs_natives_is_predicted_as_before():
    costs, ratios = _world(77)
    fit = _fit(costs, ratios, 1)
    gvisor = _platform(costs, "gvisor")
    priced, unpriced = predict(fit, gvisor, rest="cpu"), predict(fit, gvisor)
    truth = _true_ratio(SANDBOX)
    # The rest moves it by its share times the CPU cost's own noise (a few per cent of 0.54) at most.
    assert priced.ratio.estimate == pytest.approx(unpriced.ratio.estimate, rel=0.03)
    assert priced.ratio.low <= truth <= priced.ratio.high


def test_the_attribution_names_the_rest_and_its_terms_add_up_to_the_prediction():
    costs, ratios = _world(5)
    fit = _fit(costs, ratios, 2)
    qemu = _platform(costs, "qemu")
    measured = next(r for r in ratios if r.platform == "qemu")
    split = attribute(fit, qemu, measured, rest="cpu")
    assert [t.resource for t in split.terms] == ["rpc", "jvmstart", "rest@cpu"]
    assert split.predicted == pytest.approx(predict(fit, qemu, rest="cpu").ratio.estimate)
    assert 1 + sum(t.extra_time for t in split.terms) == pytest.approx(split.predicted)
    assert sum(t.share for t in split.terms) == pytest.approx(1.0)
    assert split.terms[-1].time_share == pytest.approx(float(cm.rest_share(fit.estimates)))
    # The emulated CPU is most of TeraSort's predicted overhead, as the truth has it.
    assert split.terms[-1].share > 0.5
    assert abs(split.unexplained_log) < 0.2
    # Without a rest, the attribution is as it was.
    assert [t.resource for t in attribute(fit, qemu, measured).terms] == list(FITTED)


def test_a_fitted_resource_or_an_uncalibrated_one_is_no_rest():
    costs, ratios = _world(11)
    fit = _fit(costs, ratios, 3)
    qemu = _platform(costs, "qemu")
    with pytest.raises(ParamsError) as err:
        predict(fit, qemu, rest="jvmstart")
    assert err.value.field == "--rest" and "fitted" in str(err.value)
    with pytest.raises(ParamsError) as err:
        predict(fit, qemu, rest="membw")
    assert "no calibrated cost of 'membw'" in str(err.value)

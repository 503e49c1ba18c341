"""The mixed model on the log metric (vbench.stats.mixed) and its rows in the statistics table."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.unit.builders import sample_row
from vbench.stats import compute_stats
from vbench.stats.table import comparisons as comparisons_module
from vbench.stats import mixed as mixed_module
from vbench.stats.mixed import BOUNDARY_NOTE, MIXED, MixedFit, NoFit, balanced_reml, fit_mixed, pooled_nondecreasing


def _campaign(
    rng,
    *,
    blocks: int,
    rounds: int,
    truth: float,
    block_sd: float,
    instance_sd: float,
    round_sd: float,
    platforms=("native", "lxc"),
) -> pd.DataFrame:
    """Tidy samples drawn from the model: a block effect every platform shares, an instance effect
    per (block, platform), noise per round; `truth` is the second platform's ratio to the first."""
    rows = []
    for b in range(blocks):
        shared = rng.normal(0, block_sd)
        for k, p in enumerate(platforms):
            inst = rng.normal(0, instance_sd)
            for r in range(rounds):
                mu = math.log(100.0) + (math.log(truth) if k == 1 else 0.0)
                row = sample_row(p, math.exp(mu + shared + inst + rng.normal(0, round_sd)), b, block=b)
                if rounds > 1:
                    row["round"] = r
                rows.append(row)
    return pd.DataFrame(rows)


def test_recovers_the_ratio_and_the_variance_at_each_level_of_a_known_design():
    rng = np.random.default_rng(7)
    block_sd, instance_sd, round_sd = 0.15, 0.04, 0.02  # the block effect dominates, as on a shared machine
    df = _campaign(rng, blocks=60, rounds=4, truth=1.10, block_sd=block_sd, instance_sd=instance_sd, round_sd=round_sd)
    fit = fit_mixed(df, "native")
    assert isinstance(fit, MixedFit) and fit.has_rounds and fit.n_blocks == 60
    r = fit.ratios["lxc"].ratio
    assert r.low < 1.10 < r.high
    assert r.estimate == pytest.approx(1.10, rel=0.02)
    v = fit.variance
    assert v.block == pytest.approx(block_sd**2, rel=0.4)
    assert v.instance == pytest.approx(instance_sd**2, rel=0.4)
    assert v.residual == pytest.approx(round_sd**2, rel=0.15)
    assert v.shares()["block"] > 0.8
    # The shared block effect cancels: the interval is far narrower than one that ignores the blocks.
    lx = np.log(df.loc[df.platform == "lxc", "value"])
    ln = np.log(df.loc[df.platform == "native", "value"])
    half_ignoring_blocks = stats.t.ppf(0.975, lx.size + ln.size - 2) * math.sqrt(
        lx.var() / lx.size + ln.var() / ln.size
    )
    assert math.log(r.high / r.low) / 2 < 0.6 * half_ignoring_blocks


def test_one_run_per_block_and_platform_gives_exactly_the_paired_t_interval():
    native = [100.0, 131.0, 98.0, 112.0, 120.0]
    lxc = [104.0, 133.5, 101.0, 117.0, 121.0]
    df = pd.DataFrame(
        [dict(platform=p, value=v, block=i) for p, xs in (("native", native), ("lxc", lxc)) for i, v in enumerate(xs)]
    )
    fit = fit_mixed(df, "native")
    assert isinstance(fit, MixedFit) and not fit.has_rounds and fit.variance.instance is None
    d = np.log(np.array(lxc) / np.array(native))  # the paired-t over blocks, computed here
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    r = fit.ratios["lxc"]
    assert r.ratio.estimate == pytest.approx(math.exp(d.mean()), rel=1e-9)
    # exactly: the layout is complete, so REML is in closed form (an optimiser was held to 1e-4)
    assert r.ratio.low == pytest.approx(math.exp(d.mean() - half), rel=1e-12)
    assert r.ratio.high == pytest.approx(math.exp(d.mean() + half), rel=1e-12)
    assert r.p_value == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-9)


def _model_data(df: pd.DataFrame, platforms) -> tuple[pd.DataFrame, list[str]]:
    """`df` (one run per platform and block) as fit_mixed hands it to a fit: y, g, inst, p1.."""
    code = {p: f"p{i}" for i, p in enumerate(platforms)}
    data = pd.DataFrame({"y": np.log(df["value"]), "g": df["block"].astype(str), "inst": df["platform"].map(code)})
    for p in platforms[1:]:
        data[code[p]] = (df["platform"] == p).astype(float)
    return data.reset_index(drop=True), [code[p] for p in platforms[1:]]


@pytest.mark.parametrize("boundary", [False, True])
def test_the_closed_form_is_the_optimum_statsmodels_finds(boundary):
    """Three platforms, each once in each of 8 blocks: the closed form against statsmodels' REML
    fit of the same model. With the blocks' means made equal the optimum is a zero block variance,
    which the closed form says and an optimiser only approaches."""
    rng = np.random.default_rng(23)
    platforms = ("native", "lxc", "oci")
    df = _campaign(
        rng, blocks=8, rounds=1, truth=1.1, block_sd=0.2, instance_sd=0.0, round_sd=0.05, platforms=platforms
    )
    if boundary:  # every block's mean log the same: no block variance at all
        logs = np.log(df["value"])
        df = df.assign(value=np.exp(logs - logs.groupby(df["block"]).transform("mean") + logs.mean()))
    data, cols = _model_data(df, platforms)
    exact, general = balanced_reml(data, cols, False), mixed_module._fit(data, cols, False)
    assert exact is not None and exact.instance is None
    assert (BOUNDARY_NOTE in exact.notes) is boundary and (exact.block == 0.0) is boundary
    for c in cols:
        assert exact.beta[c] == pytest.approx(general.beta[c], abs=1e-9)
        assert exact.se[c] == pytest.approx(general.se[c], rel=1e-2 if boundary else 1e-4)
    assert exact.residual == pytest.approx(general.residual, rel=1e-2 if boundary else 1e-4)
    assert exact.block == pytest.approx(general.block, abs=1e-4)


def _reml_loglike(data: pd.DataFrame):
    """statsmodels' REML log-likelihood of the model with the instance term, as a function of an
    estimate's variances (the fixed effects profiled out): which estimate is nearer the optimum."""
    import statsmodels.formula.api as smf
    from statsmodels.regression.mixed_linear_model import MixedLMParams

    model = smf.mixedlm("y ~ p1", data, groups="g", re_formula="1", vc_formula={"instance": "0 + C(inst)"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(reml=True)  # sets what loglike reads

    def loglike(est) -> float:
        s = est.residual  # loglike takes the variances relative to the residual's
        relative = MixedLMParams.from_components(
            fe_params=np.zeros(2),
            cov_re=np.array([[max(est.block, 1e-12) / s]]),
            vcomp=np.array([max(est.instance, 1e-12) / s]),
        )
        return float(model.loglike(relative, profile_fe=True))

    return loglike


@pytest.mark.parametrize("flat", ["", "blocks", "instances"])
def test_with_rounds_the_closed_form_is_the_optimum(flat):
    """Two platforms in 10 blocks of 4 rounds (the instance term fitted), drawn with every level
    varying, or with the blocks' (the instances') means made to vary not at all, so that variance's
    optimum is 0. The closed form's REML likelihood is at least statsmodels' fit's (which stops
    short of a boundary, its standard error up to 1 % off there), and no nearby variances do better."""
    rng = np.random.default_rng(31)
    df = _campaign(rng, blocks=10, rounds=4, truth=1.05, block_sd=0.1, instance_sd=0.05, round_sd=0.03)
    df = df.assign(y=np.log(df["value"]))
    cell = df.groupby(["block", "platform"])["y"].transform("mean")
    if flat == "blocks":  # every block's mean the same
        df["y"] += df["y"].mean() - df.groupby("block")["y"].transform("mean")
    elif flat == "instances":  # every instance's mean block + platform, nothing of its own
        block, platform = (df.groupby(k)["y"].transform("mean") for k in ("block", "platform"))
        df["y"] += block + platform - df["y"].mean() - cell
    data, cols = _model_data(df.assign(value=np.exp(df["y"])), ("native", "lxc"))
    exact, general = balanced_reml(data, cols, True), mixed_module._fit(data, cols, True)
    assert exact is not None and (BOUNDARY_NOTE in exact.notes) is bool(flat)
    assert exact.beta["p1"] == pytest.approx(general.beta["p1"], abs=1e-9)
    assert exact.se["p1"] == pytest.approx(general.se["p1"], rel=2e-2)
    loglike = _reml_loglike(data)
    best = loglike(exact)
    assert best >= loglike(general) - 1e-9
    for field in ("block", "instance", "residual"):
        for step in (0.98, 1.02):
            moved = dataclasses.replace(exact, **{field: max(getattr(exact, field), 1e-6) * step})
            assert loglike(moved) < best
    if flat:
        assert (exact.block if flat == "blocks" else exact.instance) == 0.0
    assert balanced_reml(data, cols, False) is None  # rounds need the instance term
    assert balanced_reml(data.iloc[1:], cols, True) is None  # one round fewer in one instance


def test_pooling_keeps_the_expected_mean_squares_in_order():
    assert pooled_nondecreasing([1.0, 2.0, 3.0], [1, 1, 1]) == [1.0, 2.0, 3.0]
    assert pooled_nondecreasing([2.0, 1.0, 3.0], [1, 3, 1]) == [1.25, 1.25, 3.0]
    assert pooled_nondecreasing([3.0, 2.0, 1.0], [1, 1, 2]) == pytest.approx([1.75] * 3)


def test_an_incomplete_layout_is_left_to_the_general_fit():
    rng = np.random.default_rng(29)
    df = _campaign(rng, blocks=6, rounds=1, truth=1.1, block_sd=0.1, instance_sd=0.0, round_sd=0.03)
    gap = df[~((df.platform == "lxc") & (df.block == 2))]  # one run failed
    data, cols = _model_data(gap, ("native", "lxc"))
    assert balanced_reml(data, cols, False) is None
    assert balanced_reml(pd.concat([data, data.iloc[:1]]), cols, False) is None  # a platform twice in a block
    fit = fit_mixed(gap, "native")
    assert (
        isinstance(fit, MixedFit)
        and fit.n_blocks == 6
        and fit.ratios["lxc"].ratio.low < 1.1 < fit.ratios["lxc"].ratio.high
    )


def test_interval_covers_the_true_ratio_at_its_level_with_few_blocks():
    rng = np.random.default_rng(11)
    hits = 0
    trials = 80
    for _ in range(trials):
        df = _campaign(rng, blocks=5, rounds=3, truth=1.05, block_sd=0.1, instance_sd=0.02, round_sd=0.01)
        r = fit_mixed(df, "native").ratios["lxc"].ratio
        hits += r.low <= 1.05 <= r.high
    assert hits / trials >= 0.88  # 95 % nominal; the t on blocks - 1 df keeps it near


@pytest.mark.parametrize(
    "frame, reason",
    [
        (pd.DataFrame(dict(platform=["native", "lxc"], value=[1.0, 2.0])), "no block"),
        (
            pd.DataFrame(dict(platform=["native", "lxc"] * 2, value=[1.0, 0.0, 2.0, 2.0], block=[0, 0, 1, 1])),
            "not positive",
        ),
        (pd.DataFrame(dict(platform=["native", "lxc", "lxc"], value=[1.0, 2.0, 2.0], block=[0, 0, 1])), "needs 2"),
    ],
)
def test_says_why_there_is_no_model(frame, reason):
    got = fit_mixed(frame, "native")
    assert isinstance(got, NoFit) and reason in got.reason


def test_a_platform_in_one_block_is_left_out_with_the_reason():
    rng = np.random.default_rng(3)
    df = _campaign(
        rng, blocks=4, rounds=1, truth=1.1, block_sd=0.1, instance_sd=0.0, round_sd=0.02, platforms=("native", "lxc")
    )
    lone = df[(df.platform == "lxc") & (df.block == 0)].assign(platform="kvm")
    fit = fit_mixed(pd.concat([df, lone]), "native")
    assert "lxc" in fit.ratios and "kvm" not in fit.ratios and "1 block" in fit.left_out["kvm"]


def test_table_rows_sit_beside_the_others_and_change_none_of_them(monkeypatch):
    rng = np.random.default_rng(5)
    df = _campaign(rng, blocks=4, rounds=3, truth=1.1, block_sd=0.1, instance_sd=0.02, round_sd=0.01)
    with_mixed = compute_stats(df, n_resamples=999, mixed=True)
    monkeypatch.setattr(comparisons_module, "fit_mixed", lambda *a, **k: None)
    without = compute_stats(df, n_resamples=999, mixed=True)
    # Not asked for, it is not fitted (the slow part of the table): the same table without its rows.
    monkeypatch.setattr(comparisons_module, "fit_mixed", lambda *a, **k: pytest.fail("fitted without being asked"))
    unasked = compute_stats(df, n_resamples=999)
    pd.testing.assert_frame_equal(unasked, without)
    ours = with_mixed["method"] == MIXED
    assert set(with_mixed.loc[ours, "statistic"]) == {
        "ratio_to_baseline",
        "overhead_pct",
        "variance_block",
        "variance_cluster_instance",
        "variance_residual",
    }
    assert not with_mixed.loc[ours, "preferred"].fillna(False).any()  # never the comparison's answer
    pd.testing.assert_frame_equal(with_mixed[~ours].reset_index(drop=True), without.reset_index(drop=True))
    ratio = with_mixed[ours & (with_mixed.statistic == "ratio_to_baseline")].iloc[0]
    assert ratio.platform == "lxc" and ratio.ci_low < ratio.estimate < ratio.ci_high and "t on 3 df" in ratio.note
    variance = with_mixed[ours & (with_mixed.statistic == "variance_block")].iloc[0]
    assert variance.platform == "all" and variance.estimate >= 0 and "% of the total" in variance.note


def _pi_times(value: list[float], **columns) -> pd.DataFrame:
    """Times of native and lxc in turn, one per value, with the other `columns` given."""
    n = len(value) // 2
    return pd.DataFrame(
        dict(experiment="platforms", platform=["native", "lxc"] * n, benchmark="pi", metric="t", unit="s", value=value)
        | columns
    )


def test_table_says_why_a_blocked_comparison_has_no_model():
    df = _pi_times([1.0, 1.1, 1.2, 1.3], repetition=[0, 0, 1, 1], block=[0, 0, 0, 0])
    t = compute_stats(df, n_resamples=999, mixed=True)
    row = t[(t.method == MIXED) & (t.statistic == "ratio_to_baseline")].iloc[0]
    assert pd.isna(row.estimate) and "1 block" in row.note


def test_unblocked_samples_get_no_mixed_rows():
    df = _pi_times([1.0, 1.1, 1.2, 1.3, 1.1, 1.2], repetition=[0, 0, 1, 1, 2, 2])
    assert not (compute_stats(df, n_resamples=999, mixed=True)["method"] == MIXED).any()

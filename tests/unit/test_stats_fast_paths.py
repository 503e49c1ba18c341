"""The statistics table's faster paths (issue #54: the paper built in <= 30 s) give the numbers
the pandas code they replaced gave, to the last bit.

Each replaced function is kept here as it was (`_old_*`) and compared with the new one on small
inputs that reach its corners; `compute_stats` of a small blocked campaign is pinned to the
intervals the previous code computed for a fixed seed (written as float.hex, so a change in the
last bit fails), which covers the changes inside `compute_stats` and `compare_group` (each
group's kept rows, each platform's values and units) that have no old function to call.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from vbench.samples import QUIET_CPU_PROBE, QUIET_MACHINE_PROBE, QUIET_VERDICT
from vbench.stats import compute_stats
from vbench.stats import bootstrap
from vbench.stats.bootstrap import bca_ratio_interval
from vbench.stats.describe import median_order_statistic_interval, t_quantile
from vbench.stats.keys import natural_key
from vbench.stats.records import Interval
from vbench.stats.mixed import NoFit, model_units
from vbench.stats.paired import BLOCK, ROUND, Pairs, _pair_key, _upper_level, level_text, pair_runs
from vbench.stats.quiet import QUIET_CHECKED, QuietCounts, quiet_counts
from vbench.stats.table import groups
from vbench.stats.table.groups import block_means

# --- the code the faster paths replaced, as it was ------------------------------------------------


def _old_pair_key(df: pd.DataFrame, with_round: bool) -> pd.Series:
    cols = [BLOCK, ROUND] if with_round else [BLOCK]
    return df[cols].apply(lambda r: "\x1f".join(level_text(v) for v in r), axis=1)


def _old_pair_runs(platform: pd.DataFrame, baseline: pd.DataFrame) -> Pairs:
    empty = np.empty(0)
    if BLOCK not in platform.columns or BLOCK not in baseline.columns:
        return Pairs((), empty, False, len(platform) + len(baseline), "the samples carry no block: unpaired design")
    x = platform[platform[BLOCK].notna()]
    y = baseline[baseline[BLOCK].notna()]
    unkeyed = (len(platform) - len(x)) + (len(baseline) - len(y))
    if x.empty or y.empty:
        return Pairs((), empty, False, len(platform) + len(baseline), "no run carries a block: unpaired design")
    with_round = ROUND in x.columns and ROUND in y.columns and x[ROUND].notna().all() and y[ROUND].notna().all()
    kx, ky = _old_pair_key(x, with_round), _old_pair_key(y, with_round)
    mx = x["value"].astype(float).groupby(kx.to_numpy(), sort=False).mean()
    my = y["value"].astype(float).groupby(ky.to_numpy(), sort=False).mean()
    both = [k for k in mx.index if k in my.index]
    unpaired = unkeyed + int((~kx.isin(both)).sum()) + int((~ky.isin(both)).sum())
    if not both:
        return Pairs((), empty, with_round, unpaired, "no block holds both platforms: unpaired design")
    if (mx[both] <= 0).any() or (my[both] <= 0).any():
        return Pairs((), empty, with_round, unpaired, "a value is not positive: no log ratio")
    # Blocks (then rounds) in their natural order, so the bootstrap's draws do not depend on file order.
    both = sorted(both, key=lambda k: tuple(natural_key(p) for p in k.split("\x1f")))
    d = np.log(mx[both].to_numpy() / my[both].to_numpy())
    pairs = Pairs(tuple(k.split("\x1f")[0] for k in both), d, with_round, unpaired)
    if pairs.n_pairs >= 2 and np.ptp(_upper_level(pairs)) == 0:
        # Whole-unit readings (bonnie++'s CPU %) can give every block the same ratio while the
        # runs themselves vary: a t interval of zero width would claim a certainty they do not have.
        return Pairs(
            (),
            empty,
            with_round,
            len(platform) + len(baseline),
            "every block gives the same ratio (whole-unit readings): a paired t would have zero width; unpaired design",
        )
    return pairs


def _old_quiet_counts(samples: pd.DataFrame) -> QuietCounts | None:
    if QUIET_VERDICT not in samples.columns:
        return None
    runs = samples
    if "run_id" in samples.columns:
        ids = samples["run_id"]
        runs = samples[ids.isna() | (ids.astype(str) == "") | ~ids.duplicated()]
    v = runs[QUIET_VERDICT].fillna("").astype(str)
    probe_vs_machine, probe_runs = None, 0
    if {QUIET_CPU_PROBE, QUIET_MACHINE_PROBE} <= set(runs.columns):
        ratio = (
            pd.to_numeric(runs[QUIET_CPU_PROBE], errors="coerce")
            / pd.to_numeric(runs[QUIET_MACHINE_PROBE], errors="coerce")
        ).dropna()
        probe_vs_machine, probe_runs = (float(ratio.median()) if len(ratio) else None), int(len(ratio))
    return QuietCounts(
        int(v.size),
        int((v == "flagged").sum()),
        int((v == "waited").sum()),
        int((~v.isin(QUIET_CHECKED)).sum()),
        probe_vs_machine,
        probe_runs,
    )


def _old_block_means(kept: pd.DataFrame) -> np.ndarray | None:
    if "block" not in kept.columns or kept.empty:
        return None
    with_block = kept[kept["block"].notna()]
    if len(with_block) < len(kept):
        return None
    by_block = with_block.groupby(with_block["block"].map(str), sort=True)["value"]
    sizes = by_block.size()
    if len(sizes) < 2:
        return None
    return by_block.mean().to_numpy(dtype=float)


def _old_model_units(frame: pd.DataFrame) -> tuple[pd.DataFrame, bool] | NoFit:
    if BLOCK not in frame.columns:
        return NoFit("the samples carry no block: unpaired design")
    x = frame[frame[BLOCK].notna()]
    if x.empty:
        return NoFit("no run carries a block: unpaired design")
    with_round = ROUND in x.columns and bool(x[ROUND].notna().all())
    keys = {"platform": x["platform"].astype(str), BLOCK: x[BLOCK].map(level_text)}
    if with_round:
        keys[ROUND] = x[ROUND].map(level_text)
    units = (
        pd.DataFrame({**keys, "value": x["value"].astype(float)})
        .groupby(list(keys), sort=False, as_index=False)["value"]
        .mean()
    )
    if (units["value"] <= 0).any():
        return NoFit("a value is not positive: no log metric")
    columns = [units[k].tolist() for k in keys]
    order = sorted(range(len(units)), key=lambda i: tuple(natural_key(c[i]) for c in columns))
    return units.iloc[order].reset_index(drop=True), with_round


def _old_median_order_statistic_interval(x, conf: float = 0.95) -> Interval:
    x = np.sort(np.asarray(x, dtype=float))
    n = x.size
    med = float(np.median(x))
    tail = (1.0 - conf) / 2.0
    ks = np.arange(1, n // 2 + 1)
    ok = ks[stats.binom.cdf(ks - 1, n, 0.5) <= tail]
    if ok.size == 0:
        need = next(m for m in range(1, 1000) if stats.binom.cdf(0, m, 0.5) <= tail)
        return Interval(med, note=f"n={n}: an order-statistic CI at {conf:.0%} needs n >= {need}")
    k = int(ok.max())
    coverage = 1.0 - 2.0 * float(stats.binom.cdf(k - 1, n, 0.5))
    return Interval(
        med, float(x[k - 1]), float(x[n - k]), f"ranks {k} and {n - k + 1} of {n}; exact coverage {coverage:.4f}"
    )


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


# --- inputs -----------------------------------------------------------------------------------------


def _runs(blocks, rounds=None, *, index=None, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"value": rng.lognormal(4.0, 0.3, len(blocks)), BLOCK: blocks})
    if rounds is not None:
        df[ROUND] = rounds
    if index is not None:
        df.index = index
    return df


PAIR_KEY_CASES = [
    ([0, 0, 1, 1, 2], None),  # int blocks
    ([0, 0, 1, 1, 2], [0, 1, 0, 1, 0]),  # int blocks and rounds
    ([0.0, 2.0, 2.0, 3.5], [1, 1, 2, 2]),  # float blocks (a column with gaps), int rounds
    (["a", "b", "b", "c10", "c9"], [0, 0, 1, 0, 0]),  # text blocks
    ([1, 1, 2, 2], [0.0, 1.0, 0.0, 1.0]),  # float rounds
]


@pytest.mark.parametrize("blocks, rounds", PAIR_KEY_CASES)
def test_the_pair_key_is_the_row_wise_one(blocks, rounds):
    df = _runs(blocks, rounds, index=[10 + 3 * i for i in range(len(blocks))])
    with_round = rounds is not None
    new, old = _pair_key(df, with_round), _old_pair_key(df, with_round)
    assert new.tolist() == old.tolist()
    assert list(new.index) == list(old.index)


def _same_pairs(new: Pairs, old: Pairs) -> bool:
    return (
        new.blocks == old.blocks
        and _same_bits(new.log_ratios, old.log_ratios)
        and (new.unpaired_runs, new.note, new.has_rounds) == (old.unpaired_runs, old.note, old.has_rounds)
    )


@pytest.mark.parametrize("blocks, rounds", PAIR_KEY_CASES)
def test_pairs_are_those_of_the_series_lookups(blocks, rounds):
    x, y = _runs(blocks, rounds, seed=1), _runs(blocks, rounds, seed=2)
    assert _same_pairs(pair_runs(x, y), _old_pair_runs(x, y))
    # Units only one side ran, several runs of a unit averaged, a run without its block, a
    # non-positive unit mean, every block agreeing.
    y2 = y.iloc[1:].copy()
    x2 = pd.concat([x, x.iloc[:2].assign(value=lambda d: d["value"] * 1.5)])
    x2.loc[x2.index[-1], BLOCK] = None
    assert _same_pairs(pair_runs(x2, y2), _old_pair_runs(x2, y2))
    x3 = x.assign(value=lambda d: -d["value"])
    assert _same_pairs(pair_runs(x3, y), _old_pair_runs(x3, y))
    x4 = y.assign(value=lambda d: 2 * d["value"])
    assert _same_pairs(pair_runs(x4, y), _old_pair_runs(x4, y))


QUIET_CASES = {
    "one row per run": {
        "run_id": ["r1", "r2", "r3", "r4"],
        QUIET_VERDICT: ["ok", "flagged", "waited", None],
    },
    "hosts of a run, missing and empty ids": {
        "run_id": ["r1", "r1", None, "", "", "r2", "r2", np.nan],
        QUIET_VERDICT: ["flagged", "ok", "flagged", "waited", "waited", None, "flagged", "off"],
    },
    "integer ids and probes": {
        "run_id": [1, 1, 2, 3, 3, 4],
        QUIET_VERDICT: ["ok", "ok", "flagged", "ok", "flagged", np.nan],
        QUIET_CPU_PROBE: [10.0, 10.0, 12.5, "11", 11.0, None],
        QUIET_MACHINE_PROBE: [10.0, 10.0, 10.0, 10.0, 10.0, 10.0],
    },
    "no run id": {QUIET_VERDICT: ["ok", None, "flagged", "flagged"]},
    "no verdict": {"run_id": ["r1", "r2"]},
}


@pytest.mark.parametrize("case", sorted(QUIET_CASES))
def test_quiet_counts_are_those_of_the_pandas_masks(case):
    df = pd.DataFrame(QUIET_CASES[case])
    assert quiet_counts(df) == _old_quiet_counts(df)


@pytest.mark.parametrize(
    "blocks",
    [
        [0, 0, 1, 1, 2, 2, 10, 10],  # "10" sorts before "2" as text, as before
        [0.0, 0.0, 1.0, 2.0],
        ["b", "a", "b", "a"],
        [3, 3, 3],  # one block: no block means
        [0, 1, None, 1],  # a run without its block: no block means
    ],
)
def test_block_means_are_those_of_the_grouped_text_blocks(blocks):
    df = _runs(blocks, index=[5 * i for i in range(len(blocks))], seed=4)
    df["block"] = pd.Series(blocks, index=df.index, dtype=object if None in blocks else None)
    new, old = block_means(df), _old_block_means(df)
    assert (new is None) == (old is None)
    if new is not None:
        assert _same_bits(new, old)


@pytest.mark.parametrize("rounds", [None, [0, 1, 0, 1, 0, 1, 10, 2, 0, 0]])
@pytest.mark.parametrize(
    "blocks", [[3, 3, 1, 1, 2, 2, 10, 10, 2, 3], [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 9.0, 9.0]]
)
def test_model_units_are_those_of_the_grouped_frame(blocks, rounds):
    df = _runs(blocks, rounds, index=[7 * i for i in range(len(blocks))], seed=6)
    df["platform"] = ["native", "kvm-10", "native", "kvm-2", "native", "kvm-10"] + ["kvm-2", "native"] * 2
    (new, new_rounds), (old, old_rounds) = model_units(df), _old_model_units(df)
    assert new_rounds == old_rounds
    pd.testing.assert_frame_equal(new, old, check_exact=True)
    assert _same_bits(new["value"].to_numpy(), old["value"].to_numpy())
    df.loc[df.index[3], "value"] = -1.0
    got = model_units(df)
    assert isinstance(got, NoFit) and got == _old_model_units(df)


@pytest.mark.parametrize("conf", [0.9, 0.95, 0.99])
def test_remembered_t_quantiles_and_median_ranks_are_scipys(conf):
    for df in (1, 2, 3, 7, 29, 200):
        assert t_quantile(0.5 + conf / 2, df).hex() == float(stats.t.ppf(0.5 + conf / 2, df)).hex()
    rng = np.random.default_rng(7)
    for n in range(1, 41):
        x = rng.normal(100.0, 5.0, n)
        for _ in range(2):  # computed, then remembered
            assert median_order_statistic_interval(x, conf) == _old_median_order_statistic_interval(x, conf)


@pytest.mark.parametrize("n", [2, 3, 7, 20, 101])
def test_the_bootstraps_one_draw_is_the_loop_of_one_draw_per_resample(n, monkeypatch):
    """The bootstrap was vectorised before issue #54: one `integers(0, n, (B, n))` per sample. It
    gives the stream and the means of B draws of n, bit for bit (and so does the draw in row blocks
    that bounds memory), so drawing it either way changes no interval."""
    x = np.random.default_rng(n).lognormal(4.0, 0.3, n)
    y = np.random.default_rng(n + 1).lognormal(4.1, 0.3, n + 2)
    g = np.random.default_rng(5)
    loop = np.array([x[g.integers(0, n, n)].mean() for _ in range(999)])
    assert _same_bits(bootstrap._resampled_means(x, 999, np.random.default_rng(5)), loop)
    one = bca_ratio_interval(x, y, n_resamples=999, rng=11)
    monkeypatch.setattr(bootstrap, "_MAX_INDICES_PER_DRAW", 7 * n)  # rows of 7 resamples
    assert _same_bits(bootstrap._resampled_means(x, 999, np.random.default_rng(5)), loop)
    assert bca_ratio_interval(x, y, n_resamples=999, rng=11) == one


# --- the whole table, pinned --------------------------------------------------------------------------


def _campaign() -> pd.DataFrame:
    """Native, lxc and an A/A copy of native in 4 blocks of 3 rounds, with a warm-up round per
    block, two hosts' rows in some runs, and the quiet gate's verdicts."""
    rng = np.random.default_rng(54)
    rows = []
    for block in range(4):
        effect = rng.normal(1.0, 0.1)
        for rnd in range(-1, 3):  # round -1: the warm-up
            for platform, level in (("native", 100.0), ("native~aa", 100.0), ("lxc", 106.0)):
                hosts = 2 if (block + rnd) % 3 == 0 else 1
                run = f"{platform}-{block}-{rnd}"
                for host in range(hosts):
                    rows.append(
                        dict(
                            experiment="platforms",
                            platform=platform,
                            benchmark="terasort",
                            metric="terasort.job_time",
                            unit="s",
                            value=float(level * effect * rng.normal(1.0, 0.03)),
                            repetition=4 * block + rnd + 1,
                            block=block,
                            round=rnd,
                            warmup=rnd < 0,
                            run_id=run,
                            **{
                                QUIET_VERDICT: ("flagged" if (platform, block, rnd, host) == ("lxc", 2, 1, 0) else "ok")
                            },
                        )
                    )
    return pd.DataFrame(rows)


def _row(table: pd.DataFrame, platform: str, statistic: str, method: str) -> pd.Series:
    r = table[(table.platform == platform) & (table.statistic == statistic) & (table.method == method)]
    assert len(r) == 1, (platform, statistic, method)
    return r.iloc[0]


#: (platform, statistic, method) -> (estimate, ci_low, ci_high) as the previous code computed them
#: (`compute_stats(_campaign(), n_resamples=999, seed=20141, mixed=True)`), in float.hex.
PINNED = {
    ("native", "mean", "bca_bootstrap"): ("0x1.7b391f4717ef5p+6", "0x1.67e05cd16541fp+6", "0x1.964d8c4cbed7fp+6"),
    ("native", "mean", "t_block_means"): ("0x1.7b391f4717ef4p+6", "0x1.2a83759e1797dp+6", "0x1.cbeec8f01846bp+6"),
    ("lxc", "mean", "bca_bootstrap"): ("0x1.91401b2c70064p+6", "0x1.7cf2b9b292d3ap+6", "0x1.ab8e3f70bf224p+6"),
    ("lxc", "mean", "t_block_means"): ("0x1.91401b2c70064p+6", "0x1.35d5015c9db8bp+6", "0x1.ecab34fc4253dp+6"),
    ("native~aa", "mean", "bca_bootstrap"): ("0x1.7aeb6e693f24bp+6", "0x1.691121f15ceeep+6", "0x1.99cd00e7bbf03p+6"),
    ("native~aa", "mean", "t_block_means"): ("0x1.7aeb6e693f24bp+6", "0x1.2103e94e2a55ap+6", "0x1.d4d2f38453f3cp+6"),
    ("lxc", "ratio_to_baseline", "paired-t (blocks)"): (
        "0x1.0ea324de17946p+0",
        "0x1.089e182e79582p+0",
        "0x1.14cb40246a55ap+0",
    ),
    ("lxc", "ratio_to_baseline", "hierarchical bootstrap"): (
        "0x1.0ea324de17946p+0",
        "0x1.09125de39cf5bp+0",
        "0x1.13361eee458c1p+0",
    ),
    ("lxc", "ratio_to_baseline", "fieller"): ("0x1.0edead414c9cbp+0", "0x1.ee64afb591fecp-1", "0x1.28b0e87849f61p+0"),
    ("lxc", "ratio_to_baseline", "bca_bootstrap"): (
        "0x1.0edead414c9cbp+0",
        "0x1.f589268adabd0p-1",
        "0x1.2797586dc4bc5p+0",
    ),
    ("lxc", "ratio_to_baseline", "mixed model (REML)"): (
        "0x1.0ea324de17947p+0",
        "0x1.049e61bfbce43p+0",
        "0x1.190a7ff238cdbp+0",
    ),
    ("lxc", "equivalence", "paired-t (blocks)"): (
        "0x1.0ea324de17946p+0",
        "0x1.0a2c3b58c6eb5p+0",
        "0x1.132d39e88e9d2p+0",
    ),
    ("lxc", "equivalence", "tost_welch"): ("0x1.0edead414c9cbp+0", "0x1.f620612b8a9f4p-1", "0x1.24287a59914eap+0"),
    ("native~aa", "ratio_to_baseline", "paired-t (blocks)"): (
        "0x1.fc0dfa0943095p-1",
        "0x1.e450685b824acp-1",
        "0x1.0a7abb026120cp+0",
    ),
    ("native~aa", "ratio_to_baseline", "hierarchical bootstrap"): (
        "0x1.fc0dfa0943095p-1",
        "0x1.e66f374e297bep-1",
        "0x1.050b0669edfcdp+0",
    ),
    ("native~aa", "ratio_to_baseline", "fieller"): (
        "0x1.ff971b78e93c6p-1",
        "0x1.d148b7c2f881bp-1",
        "0x1.18fa76f27c825p+0",
    ),
    ("native~aa", "ratio_to_baseline", "bca_bootstrap"): (
        "0x1.ff971b78e93c6p-1",
        "0x1.d635c8e9bbcadp-1",
        "0x1.191a07944eabdp+0",
    ),
    ("native~aa", "ratio_to_baseline", "mixed model (REML)"): (
        "0x1.fc0dfa0943090p-1",
        "0x1.e93f450aa836cp-1",
        "0x1.07cae26887e68p+0",
    ),
    ("native~aa", "equivalence", "paired-t (blocks)"): (
        "0x1.fc0dfa0943095p-1",
        "0x1.ea63d039d0955p-1",
        "0x1.072d84a3b4390p+0",
    ),
    ("native~aa", "equivalence", "tost_welch"): (
        "0x1.ff971b78e93c6p-1",
        "0x1.d8dc35ce5422ap-1",
        "0x1.148f6d5d467d8p+0",
    ),
}


def test_the_table_keeps_the_previous_codes_numbers_to_the_last_bit():
    table = compute_stats(_campaign(), n_resamples=999, seed=20141, mixed=True)
    got = {key: tuple(float(v).hex() for v in _row(table, *key)[["estimate", "ci_low", "ci_high"]]) for key in PINNED}
    assert got == PINNED
    assert _row(table, "native", "flagged_runs", "quiet_gate").estimate == 0.0
    assert _row(table, "lxc", "flagged_runs", "quiet_gate").estimate == 1.0


def test_the_table_is_the_one_the_replaced_functions_give(monkeypatch):
    df = _campaign()
    new = compute_stats(df, n_resamples=999, seed=20141, mixed=True)
    monkeypatch.setattr("vbench.stats.table.comparisons.pair_runs", _old_pair_runs)
    monkeypatch.setattr("vbench.stats.table.interactions.pair_runs", _old_pair_runs)
    monkeypatch.setattr("vbench.stats.mixed.model_units", _old_model_units)
    monkeypatch.setattr(groups, "quiet_counts", _old_quiet_counts)
    monkeypatch.setattr(groups, "block_means", _old_block_means)
    old = compute_stats(df, n_resamples=999, seed=20141, mixed=True)
    pd.testing.assert_frame_equal(new, old, check_exact=True)

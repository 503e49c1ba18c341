"""The statistics table's faster paths (issue #54: the paper built in <= 30 s) give the numbers
the pandas code they replaced gave, to the last bit.

What each replaced function gave on small inputs that reach its corners, and the whole table of a
small blocked campaign, were computed by the code they replaced and frozen in
tests/data/stats/fast_paths.json, floats as float.hex; the tests compare the present functions
with it: keys, pairs and counts exactly, means and the table's numbers to 1e-9 relative (to the
last bit on the machine that wrote the record; another CPU's BLAS and SIMD sums may move it). The whole table covers the changes inside
`compute_stats` and `compare_group` (each group's kept rows, each platform's values and units)
that have no function of their own. The replaced code is in the history: the `_old_*` functions
of this file at 610f203. A change meant to move a number rewrites the file
(`python tests/unit/test_stats_fast_paths.py`) and says why in its commit.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from vbench.samples import QUIET_CPU_PROBE, QUIET_MACHINE_PROBE, QUIET_VERDICT
from vbench.stats import compute_stats
from vbench.stats import bootstrap
from vbench.stats.bootstrap import bca_ratio_interval
from vbench.stats.describe import median_order_statistic_interval, t_quantile
from vbench.stats.mixed import model_units
from vbench.stats.paired import BLOCK, ROUND, _pair_key, pair_runs
from vbench.stats.quiet import quiet_counts
from vbench.stats.table.groups import block_means

EXPECTED_PATH = Path(__file__).resolve().parents[1] / "data" / "stats" / "fast_paths.json"


def _plain(x):
    """`x` as JSON holds it, floats as float.hex: two outputs give the same text only when they
    are equal to the last bit (and of the same kinds: an int is not a float)."""
    if x is None or x is pd.NA:
        return None
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x).hex()
    if isinstance(x, str):
        return x
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, pd.DataFrame):
        return {"index": _plain(list(x.index)), "rows": [_plain(list(r)) for r in x.itertuples(index=False)]}
    if dataclasses.is_dataclass(x):
        return {type(x).__name__: {f.name: _plain(getattr(x, f.name)) for f in dataclasses.fields(x)}}
    raise TypeError(f"no plain form for {type(x).__name__}")


def _hex_float(x) -> float | None:
    if isinstance(x, str) and (x.startswith("0x") or x.startswith("-0x")):
        return float.fromhex(x)
    return None


def _same_numbers(actual, expected, rel: float = 1e-9) -> bool:
    """`_plain` outputs equal, floats within `rel` (and 1e-12 absolute): the record was written on
    one CPU, and BLAS kernels and SIMD sums may move the last bits on another (the REML rows of
    the table most of all). Integers, texts, kinds and shapes must still be equal."""
    a, e = _hex_float(actual), _hex_float(expected)
    if a is not None and e is not None:
        return math.isclose(a, e, rel_tol=rel, abs_tol=1e-12)
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(_same_numbers(actual[k], expected[k], rel) for k in actual)
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(_same_numbers(x, y, rel) for x, y in zip(actual, expected))
    return actual == expected


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


BLOCK_MEANS_CASES = [
    [0, 0, 1, 1, 2, 2, 10, 10],  # "10" sorts before "2" as text, as before
    [0.0, 0.0, 1.0, 2.0],
    ["b", "a", "b", "a"],
    [3, 3, 3],  # one block: no block means
    [0, 1, None, 1],  # a run without its block: no block means
]
MODEL_BLOCKS = [[3, 3, 1, 1, 2, 2, 10, 10, 2, 3], [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 9.0, 9.0]]
MODEL_ROUNDS = [None, [0, 1, 0, 1, 0, 1, 10, 2, 0, 0]]


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


# --- what the functions give on them -----------------------------------------------------------------


def _pair_keys() -> dict:
    out = {}
    for case, (blocks, rounds) in enumerate(PAIR_KEY_CASES):
        key = _pair_key(_runs(blocks, rounds, index=[10 + 3 * i for i in range(len(blocks))]), rounds is not None)
        out[str(case)] = {"keys": key.tolist(), "index": _plain(list(key.index))}
    return out


def _pairs() -> dict:
    out = {}
    for case, (blocks, rounds) in enumerate(PAIR_KEY_CASES):
        x, y = _runs(blocks, rounds, seed=1), _runs(blocks, rounds, seed=2)
        # Units only one side ran, several runs of a unit averaged, a run without its block, a
        # non-positive unit mean, every block agreeing.
        y2 = y.iloc[1:].copy()
        x2 = pd.concat([x, x.iloc[:2].assign(value=lambda d: d["value"] * 1.5)])
        x2.loc[x2.index[-1], BLOCK] = None
        out[str(case)] = {
            "paired": _plain(pair_runs(x, y)),
            "one-sided, averaged, unblocked": _plain(pair_runs(x2, y2)),
            "not positive": _plain(pair_runs(x.assign(value=lambda d: -d["value"]), y)),
            "every block agreeing": _plain(pair_runs(y.assign(value=lambda d: 2 * d["value"]), y)),
        }
    return out


def _quiet_counts() -> dict:
    return {case: _plain(quiet_counts(pd.DataFrame(QUIET_CASES[case]))) for case in sorted(QUIET_CASES)}


def _block_means() -> dict:
    out = {}
    for case, blocks in enumerate(BLOCK_MEANS_CASES):
        df = _runs(blocks, index=[5 * i for i in range(len(blocks))], seed=4)
        df["block"] = pd.Series(blocks, index=df.index, dtype=object if None in blocks else None)
        out[str(case)] = _plain(block_means(df))
    return out


def _model_units() -> dict:
    out = {}
    for bcase, blocks in enumerate(MODEL_BLOCKS):
        for rcase, rounds in enumerate(MODEL_ROUNDS):
            df = _runs(blocks, rounds, index=[7 * i for i in range(len(blocks))], seed=6)
            df["platform"] = ["native", "kvm-10", "native", "kvm-2", "native", "kvm-10"] + ["kvm-2", "native"] * 2
            units = model_units(df)
            df.loc[df.index[3], "value"] = -1.0
            out[f"{bcase}/{rcase}"] = {"units": _plain(units), "a value not positive": _plain(model_units(df))}
    return out


def _median_intervals(conf: float) -> dict:
    """n -> the interval of n draws, computed, then remembered (the second call)."""
    rng = np.random.default_rng(7)
    out = {}
    for n in range(1, 41):
        x = rng.normal(100.0, 5.0, n)
        out[str(n)] = [_plain(median_order_statistic_interval(x, conf)) for _ in range(2)]
    return out


def _table() -> dict:
    table = compute_stats(_campaign(), n_resamples=999, seed=20141, mixed=True)
    rows = _plain(table)
    out = {"columns": list(table.columns), "index": rows["index"]}
    for i, (r, values) in enumerate(zip(table.itertuples(index=False), rows["rows"])):
        out[f"{i:02d} {r.platform} {r.statistic} {r.method}"] = values
    return out


MEDIAN_CONFS = (0.9, 0.95, 0.99)


def outputs() -> dict:
    return {
        "pair_key": _pair_keys(),
        "pair_runs": _pairs(),
        "quiet_counts": _quiet_counts(),
        "block_means": _block_means(),
        "model_units": _model_units(),
        **{f"median_order_statistic_interval {conf}": _median_intervals(conf) for conf in MEDIAN_CONFS},
        "table": _table(),
    }


def write_expected(path: Path = EXPECTED_PATH) -> None:
    """The frozen outputs, a case a line."""
    sections = [
        f"{json.dumps(name)}: {{\n"
        + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in cases.items())
        + "\n}"
        for name, cases in outputs().items()
    ]
    path.write_text("{\n" + ",\n".join(sections) + "\n}\n")


@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads(EXPECTED_PATH.read_text())


# --- the tests ---------------------------------------------------------------------------------------


def test_the_pair_key_is_the_row_wise_one(expected):
    assert _pair_keys() == expected["pair_key"]


def test_pairs_are_those_of_the_series_lookups(expected):
    assert _pairs() == expected["pair_runs"]


def test_quiet_counts_are_those_of_the_pandas_masks(expected):
    assert _quiet_counts() == expected["quiet_counts"]


def test_block_means_are_those_of_the_grouped_text_blocks(expected):
    assert _same_numbers(_block_means(), expected["block_means"])


def test_model_units_are_those_of_the_grouped_frame(expected):
    assert _same_numbers(_model_units(), expected["model_units"])


@pytest.mark.parametrize("conf", MEDIAN_CONFS)
def test_remembered_t_quantiles_and_median_ranks_are_scipys(conf, expected):
    for df in (1, 2, 3, 7, 29, 200):
        assert t_quantile(0.5 + conf / 2, df).hex() == float(stats.t.ppf(0.5 + conf / 2, df)).hex()
    assert _median_intervals(conf) == expected[f"median_order_statistic_interval {conf}"]


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


def test_the_table_keeps_the_previous_codes_numbers(expected):
    assert _same_numbers(_table(), expected["table"])


def test_the_quiet_gate_row_counts_the_flagged_run():
    table = compute_stats(_campaign(), n_resamples=999, seed=20141, mixed=True)
    flagged = table[table.statistic == "flagged_runs"].set_index("platform").estimate
    assert (flagged["native"], flagged["lxc"]) == (0.0, 1.0)


if __name__ == "__main__":
    write_expected()

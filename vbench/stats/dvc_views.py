"""What `dvc metrics show|diff` and `dvc plots show` read: the headline comparisons and the runs behind them.

`headline_metrics(table)` turns the statistics table's ratio rows into a nested dict, one entry per
experiment, benchmark (with its cell, e.g. `terasort[32MB]`), metric and comparison
(`lxc/native`): the ratio to the baseline, its 95 % interval, the interval's method (paired by block
where the design paired the runs, else Fieller's or the bootstrap's), n per side and the pairs behind
a paired interval.
`run_plot_rows(samples)` gives one row per sample of the same metrics, numbered per platform, for
the DVC plot template `.dvc/plots/runs_by_platform.json`. Both are pure; `write_metrics` and
`write_plot_rows` write them where dvc.yaml declares them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Collection

import pandas as pd

from vbench.stats.io import validate_samples
from vbench.stats.keys import natural_key
from vbench.stats.paired import PAIRED_METHODS
from vbench.stats.table.cells import COMPARISON_ROW_KEY, cell_count, cell_text, key_as_text, preferred_row

#: (benchmark, metric) pairs to keep; None keeps every metric.
Headlines = Collection[tuple[str, str]] | None

#: Significant digits of the metrics file: enough for a ratio, few enough for `dvc metrics diff`.
SIGNIFICANT_DIGITS = 4

RATIO = "ratio_to_baseline"
PLOT_COLUMNS = [
    "panel",
    "experiment",
    "benchmark",
    "cell",
    "metric",
    "unit",
    "platform",
    "run",
    "block",
    "repetition",
    "run_id",
    "value",
]


def rounded(value, digits: int = SIGNIFICANT_DIGITS) -> float | None:
    """`value` to `digits` significant digits; None for a missing or non-finite number (JSON has no NaN)."""
    if value is None or pd.isna(value) or not math.isfinite(float(value)):
        return None
    return float(f"{float(value):.{digits}g}")


def benchmark_key(benchmark: str, cell: str) -> str:
    """`terasort[32MB]`: the cell (size, other factors) belongs to the benchmark it was run with."""
    return f"{benchmark}[{cell}]" if cell else benchmark


def _is_headline(benchmark: str, metric: str, headlines: Headlines) -> bool:
    return headlines is None or (benchmark, metric) in headlines


def comparison_entry(row: pd.Series) -> dict:
    """One comparison, always with the same keys so `dvc metrics diff` lines up revisions."""
    return {
        "ratio": rounded(row["estimate"]),
        "ci_low": rounded(row["ci_low"]),
        "ci_high": rounded(row["ci_high"]),
        "method": cell_text(row["method"]),
        "n": cell_count(row["n"]),
        "n_baseline": cell_count(row["n_baseline"]),
        # Pairs behind a paired interval (block, round); None for Fieller's, which pairs nothing.
        "n_pairs": cell_count(row["n_pairs"]) if str(row["method"]) in PAIRED_METHODS and "n_pairs" in row else None,
    }


def headline_metrics(table: pd.DataFrame, headlines: Headlines = None) -> dict:
    """{experiment: {benchmark[cell]: {metric: {platform/baseline: entry}}}} from the ratio rows.

    Any ratio row counts, so an A/A comparison (a platform against itself) appears like any other.
    The table's own order (natural, deterministic) is kept."""
    ratios = key_as_text(table[table["statistic"] == RATIO])
    out: dict = {}
    for (experiment, benchmark, size, metric, platform, baseline), rows in ratios.groupby(
        COMPARISON_ROW_KEY, sort=False
    ):
        if not _is_headline(benchmark, metric, headlines):
            continue
        by_metric = out.setdefault(experiment, {}).setdefault(benchmark_key(benchmark, size), {})
        by_metric.setdefault(metric, {})[f"{platform}/{baseline}"] = comparison_entry(preferred_row(rows))
    return out


def _panel(row: pd.Series, several_experiments: bool) -> str:
    where = f"{row['experiment']}: " if several_experiments else ""
    return f"{where}{benchmark_key(row['benchmark'], row['cell'])} {row['metric']} ({row['unit']})"


def _run_order(df: pd.DataFrame) -> list[str]:
    # Runs are numbered in the order they ran: block, then repetition, then time.
    return [c for c in ("block", "repetition", "timestamp") if c in df.columns]


def run_plot_rows(samples: pd.DataFrame, headlines: Headlines = None) -> pd.DataFrame:
    """One row per sample of the headline metrics, `run` numbering each platform's samples 1..n
    within a panel (experiment, benchmark, cell, metric) so platforms line up run by run."""
    df = validate_samples(samples, source=samples.attrs.get("source", "samples"))
    df = df[[_is_headline(b, m, headlines) for b, m in zip(df["benchmark"], df["metric"])]]
    df = df.rename(columns={"size": "cell"})
    for col in ("block", "run_id"):
        if col not in df.columns:
            df[col] = ""
    if df.empty:
        return pd.DataFrame(columns=PLOT_COLUMNS)
    df = df.sort_values(
        ["experiment", "benchmark", "cell", "metric", "platform", *_run_order(df)],
        key=lambda s: s.map(natural_key),
        kind="stable",
    )
    series = ["experiment", "benchmark", "cell", "metric", "platform"]
    df["run"] = df.groupby(series, sort=False).cumcount() + 1
    several = df["experiment"].nunique() > 1
    df["panel"] = df.apply(_panel, axis=1, several_experiments=several)
    return df[PLOT_COLUMNS].reset_index(drop=True)


def write_metrics(metrics: dict, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    return path


def write_plot_rows(rows: pd.DataFrame, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows.to_csv(path, index=False, float_format="%.10g", lineterminator="\n")
    return path

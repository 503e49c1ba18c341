"""The statistics the paper shows: `vbench.stats.compute_stats` over the metrics it uses, and lookups.

The paper does not compute its own intervals for anything `vbench.stats` covers: every mean,
CI, ratio and overhead in a table, figure or macro is a row of this table. (The reducer-phase
table per node and the reproduction delta between two non-baseline platforms use the same
Student-t and Fieller functions of `vbench.stats` directly, because their groupings are not
the statistics table's.)
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from vbench.stats import DEFAULT_SEED, compute_stats
from vbench.stats.bootstrap import DEFAULT_RESAMPLES
from vbench.stats.keys import natural_key
from vbench.stats.paired import BLOCK, FIELLER, HIERARCHICAL, PAIRED_T, ROUND

from vbench.paper.data import FACTOR_COLUMNS, Campaign

#: Step-qualified job phases (VMware's map-shuffle and reduce-merge) and per-attempt reduce phases.
_PHASE = re.compile(r"^[a-z_]+\.(job_time|map_shuffle_time|reduce_merge_time)$")
_ATTEMPT_REDUCE = re.compile(r"^[a-z_]+\.attempt\.reduce_(shuffle|merge|reduce|attempt)_time$")
#: Metrics whose unit does not say which way is better (vbench.stats.direction).
_LOWER_IS_BETTER = re.compile(r"(_cpu|^cpu_host|^cpu_remote|^retransmits|^abs_error)$")


def wanted_metric(metric: str) -> bool:
    """Whether the paper uses a metric (counters, map attempts and bonnie latencies are left out)."""
    if ".counter." in metric or metric.startswith("counter."):
        return False
    if ".attempt." in metric:
        return bool(_ATTEMPT_REDUCE.match(metric))
    if "." in metric:
        return bool(_PHASE.match(metric))
    return not metric.endswith("_latency") or metric in ("create_write_avg_latency", "open_avg_latency",
                                                          "close_avg_latency")


def directions(metrics) -> dict[str, bool]:
    return {m: False for m in sorted(set(metrics)) if _LOWER_IS_BETTER.search(m)}


@dataclass(frozen=True)
class StatsConfig:
    baseline: str = "native"
    conf: float = 0.95
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    equivalence_pct: float = 5.0


def paper_stats(campaign: Campaign, cfg: StatsConfig = StatsConfig()) -> pd.DataFrame:
    """compute_stats over the metrics the paper uses, with the cell's factors joined back as columns."""
    df = campaign.samples
    if df.empty:
        return pd.DataFrame()
    df = df[df["metric"].map(wanted_metric)]
    if df.empty:
        return pd.DataFrame()
    cols = ["experiment", "platform", "benchmark", "metric", "unit", "value", "repetition", "size"]
    # The design's pairing (block, round) and warm-up mark: the statistics pair runs by them and
    # exclude warm-ups by rule, so they must reach compute_stats.
    cols += [c for c in ("warmup", BLOCK, ROUND) if c in df.columns]
    tidy = df[cols].copy()
    tidy.attrs["source"] = str(campaign.path / "samples.jsonl")
    parts = []
    # Each experiment against its own baseline: native for platform studies, e.g. bridge for a
    # network-mode study (seeds are per group, so splitting changes no number).
    by_baseline: dict[str, list[str]] = {}
    for e in sorted(tidy["experiment"].unique()):
        by_baseline.setdefault(campaign.baselines.get(e, cfg.baseline), []).append(e)
    for baseline, experiments in sorted(by_baseline.items()):
        sub = tidy[tidy["experiment"].isin(experiments)]
        sub.attrs["source"] = tidy.attrs["source"]
        parts.append(compute_stats(sub, baseline=baseline, conf=cfg.conf, n_resamples=cfg.n_resamples,
                                   seed=cfg.seed, equivalence_pct=cfg.equivalence_pct,
                                   higher_is_better=directions(sub["metric"])))
    stats = parts[0] if len(parts) == 1 else _concat_stats(parts)
    cells = cell_table(df)
    out = stats.merge(cells, on=["experiment", "benchmark", "metric", "size"], how="left")
    out.attrs.update(stats.attrs)
    return out


def _concat_stats(parts: list[pd.DataFrame]) -> pd.DataFrame:
    out = pd.concat(parts, ignore_index=True)
    out.attrs.update(parts[0].attrs)
    out.attrs["problems"] = [p for part in parts for p in part.attrs.get("problems", [])]
    return out


def cell_table(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per (experiment, benchmark, metric, size) with its size label and factor values."""
    factors = [c for c in FACTOR_COLUMNS if c in samples.columns]
    keys = ["experiment", "benchmark", "metric", "size"]
    rows = []
    for key, grp in samples.groupby(keys, sort=False):
        row = dict(zip(keys, key))
        row["size_label"] = grp["size_label"].iloc[0]
        for c in factors:
            vals = grp[c].dropna()
            row[c] = _plain(vals.iloc[0]) if len(vals) else ""
        rows.append(row)
    return pd.DataFrame(rows, columns=[*keys, "size_label", *factors])


def _plain(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


# --- lookups -------------------------------------------------------------------------------------

def rows(stats: pd.DataFrame, **where) -> pd.DataFrame:
    """Rows of the statistics table matching every given column (values compared as text)."""
    if stats is None or stats.empty:
        return pd.DataFrame()
    mask = pd.Series(True, index=stats.index)
    for col, val in where.items():
        if val is None:
            continue
        if col not in stats.columns:
            return stats.iloc[0:0]
        mask &= stats[col].astype(str) == _plain(val)
    return stats[mask]


def one(stats: pd.DataFrame, **where) -> pd.Series | None:
    """The single matching row, or None (several matches are a programming error)."""
    r = rows(stats, **where)
    if r.empty:
        return None
    if len(r) > 1:
        raise ValueError(f"{len(r)} statistics rows match {where}")
    return r.iloc[0]


def mean_row(stats, experiment, platform, benchmark, metric, size) -> pd.Series | None:
    return one(stats, experiment=experiment, platform=platform, benchmark=benchmark, metric=metric, size=size,
               statistic="mean", method="t")


#: Methods of a comparison, preferred first: a paired interval where the design paired the runs
#: (the statistics table writes a paired row only then), else Fieller's.
COMPARISON_METHODS = (PAIRED_T, HIERARCHICAL, FIELLER)


def ratio_row(stats, experiment, platform, benchmark, metric, size, statistic="ratio_to_baseline") -> pd.Series | None:
    """The comparison the paper shows: the paired row where there is one, else Fieller's; `method` says which."""
    for method in COMPARISON_METHODS:
        row = one(stats, experiment=experiment, platform=platform, benchmark=benchmark, metric=metric, size=size,
                  statistic=statistic, method=method)
        if row is not None:
            return row
    return None


def comparison_rows(stats: pd.DataFrame, statistic: str = "ratio_to_baseline", **where) -> pd.DataFrame:
    """One row per comparison (experiment, platform, baseline, benchmark, metric, size) matching `where`,
    by the same preference as `ratio_row`."""
    r = rows(stats, statistic=statistic, **where)
    if r.empty:
        return r
    r = r[r["method"].isin(COMPARISON_METHODS)]
    rank = r["method"].map({m: i for i, m in enumerate(COMPARISON_METHODS)})
    key = ["experiment", "platform", "baseline", "benchmark", "metric", "size"]
    r = r.assign(_rank=rank.to_numpy()).sort_values("_rank", kind="stable")
    return r.drop_duplicates(subset=[k for k in key if k in r.columns]).drop(columns="_rank").sort_index()


def method_text(method: str) -> str:
    """How the paper names a comparison's method."""
    return {PAIRED_T: "paired by block", HIERARCHICAL: "hierarchical bootstrap", FIELLER: "Fieller"}.get(method, method)


def experiments_for(stats: pd.DataFrame, benchmark: str, metrics, prefer=("platforms",)) -> list[str]:
    """Experiments holding means of these metrics, the preferred names first, then by platform count."""
    r = rows(stats, benchmark=benchmark, statistic="mean", method="t")
    if r.empty:
        return []
    r = r[r["metric"].isin(list(metrics))]
    if r.empty:
        return []
    counts = r.groupby("experiment")["platform"].nunique()
    order = sorted(counts.index, key=lambda e: (e not in prefer, prefer.index(e) if e in prefer else 0,
                                                -int(counts[e]), natural_key(e)))
    return order


def pick_experiment(stats: pd.DataFrame, benchmark: str, metrics, prefer=("platforms",)) -> str | None:
    ex = experiments_for(stats, benchmark, metrics, prefer)
    return ex[0] if ex else None


def sizes_for(stats: pd.DataFrame, experiment: str, benchmark: str, metric: str) -> list[str]:
    r = rows(stats, experiment=experiment, benchmark=benchmark, metric=metric, statistic="mean", method="t")
    return sorted(r["size"].astype(str).unique(), key=natural_key) if not r.empty else []


def platforms_in(stats: pd.DataFrame, baseline: str, **where) -> list[str]:
    """Platforms with means matching `where`, baseline first."""
    r = rows(stats, statistic="mean", method="t", **where)
    if r.empty:
        return []
    ps = sorted(r["platform"].astype(str).unique(), key=natural_key)
    return ([baseline] if baseline in ps else []) + [p for p in ps if p != baseline]

"""The statistics the paper shows: the statistics stage's table of each campaign, and lookups.

The paper computes no intervals for anything `vbench.stats` covers: every mean, CI, ratio and
overhead in a table, figure or macro is a row of the table `vbench.stats.campaign_stats` computes,
which the statistics stage writes to data/processed/<campaign>/ and `campaign_statistics` reads.
(The reducer-phase table per node and the reproduction delta between two non-baseline platforms
use the same Student-t and Fieller functions of `vbench.stats` directly, because their groupings
are not the statistics table's.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from vbench.paper.parallel import parallel_map
from vbench.pipeline import processed_of
from vbench.stats.campaign import Campaign
from vbench.stats.campaign_stats import (
    STATS_FILE,
    StatsConfig,
    baselines_of,
    campaign_stats,
    concat_stats,
    read_campaign_stats,
)
from vbench.stats.keys import natural_key
from vbench.stats.paired import FIELLER, HIERARCHICAL, PAIRED_T, PAIRED_T_ROUNDS
from vbench.stats.table.cells import cell_text
from vbench.stats.table.groups import BLOCK_MEANS
from vbench.stats.tidy import plain as _plain, text_as_objects


def campaign_statistics(campaign: Campaign, cfg: StatsConfig) -> tuple[pd.DataFrame, str]:
    """The statistics table of one campaign and where it came from (a note for the build).

    The statistics stage's output (`read_campaign_stats`) wherever the campaign has one; it is
    refused, not recomputed, when it was computed with other settings or from other samples."""
    processed = processed_of(campaign.path)
    table = read_campaign_stats(processed, cfg, campaign.path) if processed is not None else None
    if table is not None:
        if campaign.renamed:  # the stage wrote the names as recorded (vbench.stats.campaign.distinct_experiments)
            table = table.assign(experiment=table["experiment"].astype(str).replace(campaign.renamed))
        return _lookup_table(table), f"{campaign.name}: statistics read from {processed / STATS_FILE}"
    # No statistics-stage output: the stage analyses one campaign (pipeline.analysis_campaign), so
    # the studies a build adds (--extra-campaign, e.g. netmodes), a campaign directory outside a
    # data/raw/ tree and the small campaigns of the tests have none. Their table is computed here,
    # once, by the function the stage runs, with the same settings.
    where = f"no {processed / STATS_FILE}" if processed is not None else "not under a data/raw/ directory"
    return _lookup_table(campaign_stats(campaign, cfg)), f"{campaign.name}: statistics computed here ({where})"


def _lookup_table(table: pd.DataFrame) -> pd.DataFrame:
    """`table` without its `attrs` (the problems and rounds-per-block advice that stats.json keeps):
    the paper reads none of them, and pandas deep-copies a frame's attrs into every column, mask
    and row taken from it, which made the paper's thousands of lookups most of its build time.
    Its text columns as object columns, in one block, for the same lookups (`text_as_objects`)."""
    table.attrs = {}
    return text_as_objects(table)


def statistics_of(campaigns: list[Campaign], cfg: StatsConfig) -> list[tuple[pd.DataFrame, str]]:
    """`campaign_statistics` of each campaign, in order: computed on every core (vbench.paper.parallel)."""
    return parallel_map(partial(campaign_statistics, cfg=cfg), campaigns, cost=lambda c: len(c.samples))


def paper_statistics(
    campaigns: list[Campaign], cfg: StatsConfig, parts: list[tuple[pd.DataFrame, str]] | None = None
) -> tuple[StatisticsLookup, list[str]]:
    """One table of several campaigns (their experiments are distinct), as the paper looks rows up
    in it (`StatisticsLookup`, made here once per build), and where each part came from; `parts`
    are the campaigns' `statistics_of` where the caller has them already.

    Parts in the order of their baselines (then as given), as one computation over the merged
    campaigns laid them out before each campaign's table came from the statistics stage."""
    parts = statistics_of(campaigns, cfg) if parts is None else parts
    ordered = sorted(range(len(campaigns)), key=lambda i: next(iter(baselines_of(campaigns[i], cfg)), ""))
    return lookup_of(concat_stats([parts[i][0] for i in ordered])), [parts[i][1] for i in ordered]


# --- lookups -------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StatisticsLookup:
    """A statistics table as the paper looks rows up in it: the table, and each of its columns as
    text (`astype(str)`, as `rows` compares them), computed once when the record is made.

    The paper looks rows up thousands of times in a table of thousands: converting a column to text
    at each lookup, and comparing it as arrow strings, was 17 s of an 80 s build. So the build makes
    this record once where it makes the table (`paper_statistics`, `lookup_of`) and hands it, not
    the frame, to the tables, figures and macros. The table is not to be changed once the record
    is made (its text columns would no longer be its own)."""

    table: pd.DataFrame
    text: Mapping[str, np.ndarray]
    #: Column -> its text value -> the (ascending) positions of the rows holding it, filled per
    #: column at its first lookup: a lookup intersects a few short lists instead of comparing
    #: every row of every column it names (a third of the build's lookups' time was those scans).
    _positions: dict[str, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)

    @property
    def empty(self) -> bool:
        return self.table.empty

    def positions(self, column: str, value: str) -> np.ndarray:
        """The positions of the rows whose `column`, as text, is `value`, ascending."""
        by_value = self._positions.get(column)
        if by_value is None:
            text = self.text[column]
            by_value = self._positions[column] = pd.Series(text).groupby(text, sort=False).indices
        return by_value.get(value, _NONE)


_NONE = np.array([], dtype=np.intp)


def lookup_of(table: pd.DataFrame) -> StatisticsLookup:
    """The lookup record of `table` (see `StatisticsLookup`), without the table's `attrs` (as
    `_lookup_table`, for the same reason). Pure: `table` itself is left as it is."""
    table = _lookup_table(table.copy(deep=False))
    return StatisticsLookup(table, {col: table[col].astype(str).to_numpy(dtype=object) for col in table.columns})


def rows(stats: StatisticsLookup, **where) -> pd.DataFrame:
    """Rows of the statistics table matching every given column (values compared as text)."""
    table = stats.table
    if table.empty:
        return pd.DataFrame()
    found: list[np.ndarray] = []
    for col, val in where.items():
        if val is None:
            continue
        if col not in stats.text:
            return table.iloc[0:0]
        found.append(stats.positions(col, _plain(val)))
    if not found:
        return table.iloc[np.arange(len(table))]
    found.sort(key=len)
    at = found[0]
    for more in found[1:]:
        at = np.intersect1d(at, more, assume_unique=True)
    return table.iloc[at]


def one(stats: StatisticsLookup, **where) -> pd.Series | None:
    """The single matching row, or None (several matches are a programming error)."""
    r = rows(stats, **where)
    if r.empty:
        return None
    if len(r) > 1:
        raise ValueError(f"{len(r)} statistics rows match {where}")
    return r.iloc[0]


def group_row(
    stats: StatisticsLookup, experiment, platform, benchmark, metric, size, statistic, method
) -> pd.Series | None:
    """The row of one group's `statistic` by `method`, or None."""
    return one(
        stats,
        experiment=experiment,
        platform=platform,
        benchmark=benchmark,
        metric=metric,
        size=size,
        statistic=statistic,
        method=method,
    )


def mean_row(stats: StatisticsLookup, experiment, platform, benchmark, metric, size) -> pd.Series | None:
    return group_row(stats, experiment, platform, benchmark, metric, size, "mean", "t")


def block_mean_row(stats: StatisticsLookup, experiment, platform, benchmark, metric, size) -> pd.Series | None:
    """A group's mean with its t interval over its blocks' means (the design's unit), or None
    where the campaign recorded fewer than two blocks (or a table made before the row existed)."""
    return group_row(stats, experiment, platform, benchmark, metric, size, "mean", BLOCK_MEANS)


#: Methods of a comparison, preferred first: a paired interval where the design paired the runs
#: (the statistics table writes a paired row only then), else Fieller's. Of the two paired t's the
#: one the table prefers (`_shown`): over every round for designs of the lean shape, else over
#: the blocks' means (vbench.stats.paired.preferred_ratio).
COMPARISON_METHODS = (PAIRED_T_ROUNDS, PAIRED_T, HIERARCHICAL, FIELLER)
_PAIRED_TS = (PAIRED_T_ROUNDS, PAIRED_T)


def _shown(method, preferred) -> bool:
    """Whether a comparison row may be the one the paper shows: a paired t unless the table says it
    is not preferred (the other t is, and stands beside it; a row without the column is shown),
    any other method by `COMPARISON_METHODS`' order."""
    return str(method) not in _PAIRED_TS or cell_text(preferred).lower() != "false"


def ratio_row(
    stats: StatisticsLookup, experiment, platform, benchmark, metric, size, statistic="ratio_to_baseline"
) -> pd.Series | None:
    """The comparison the paper shows: the preferred paired row where there is one, else Fieller's;
    `method` says which."""
    for method in COMPARISON_METHODS:
        row = group_row(stats, experiment, platform, benchmark, metric, size, statistic, method)
        if row is not None and _shown(method, row.get("preferred")):
            return row
    return None


def comparison_rows(stats: StatisticsLookup, statistic: str = "ratio_to_baseline", **where) -> pd.DataFrame:
    """One row per comparison (experiment, platform, baseline, benchmark, metric, size) matching `where`,
    by the same preference as `ratio_row`."""
    r = rows(stats, statistic=statistic, **where)
    if r.empty:
        return r
    r = r[r["method"].isin(COMPARISON_METHODS)]
    if "preferred" in r.columns:
        r = r[[_shown(m, p) for m, p in zip(r["method"], r["preferred"])]]
    rank = r["method"].map({m: i for i, m in enumerate(COMPARISON_METHODS)})
    key = ["experiment", "platform", "baseline", "benchmark", "metric", "size"]
    r = r.assign(_rank=rank.to_numpy()).sort_values("_rank", kind="stable")
    return r.drop_duplicates(subset=[k for k in key if k in r.columns]).drop(columns="_rank").sort_index()


def compared_baseline(stats: StatisticsLookup, **where) -> str:
    """The baseline level the comparisons matching `where` are normalised to ("" when there are
    none): a design comparing a factor names it on its comparisons, its means carry none."""
    r = rows(stats, statistic="ratio_to_baseline", **where)
    return str(r["baseline"].iloc[0]) if not r.empty else ""


def method_text(method: str) -> str:
    """How the paper names a comparison's method."""
    return {
        PAIRED_T: "paired by block",
        PAIRED_T_ROUNDS: "paired by round",
        HIERARCHICAL: "hierarchical bootstrap",
        FIELLER: "Fieller",
    }.get(method, method)


def experiments_for(
    stats: StatisticsLookup, benchmark: str, metrics, prefer=("platforms",), compared=False
) -> list[str]:
    """Experiments holding means of these metrics, best first: the preferred names in their order,
    then the one with most platforms, then the one with most pairs behind its comparisons (the
    most precise), then by name. `compared`: only those that compared a platform with the
    baseline. The one ranking every table, figure and sentence of the paper picks by."""
    r = rows(stats, benchmark=benchmark, statistic="mean", method="t")
    if r.empty:
        return []
    r = r[r["metric"].isin(list(metrics))]
    if r.empty:
        return []
    counts = r.groupby("experiment")["platform"].nunique()
    ratios = rows(stats, benchmark=benchmark, statistic="ratio_to_baseline")
    ratios = ratios[ratios["metric"].isin(list(metrics))] if not ratios.empty else ratios
    # A table without `n_pairs` (made before paired statistics) counts no pairs.
    n_pairs = ratios["n_pairs"] if "n_pairs" in ratios.columns else pd.Series(0, index=ratios.index)
    pairs = (
        pd.to_numeric(n_pairs, errors="coerce").fillna(0).groupby(ratios["experiment"]).max()
        if not ratios.empty
        else pd.Series(dtype=float)
    )
    candidates = [e for e in counts.index if not compared or e in pairs.index]
    return sorted(
        candidates,
        key=lambda e: (
            e not in prefer,
            prefer.index(e) if e in prefer else 0,
            -int(counts[e]),
            -float(pairs.get(e, 0)),
            natural_key(e),
        ),
    )


def pick_experiment(stats: StatisticsLookup, benchmark: str, metrics, prefer=("platforms",)) -> str | None:
    ex = experiments_for(stats, benchmark, metrics, prefer)
    return ex[0] if ex else None


def sizes_for(stats: StatisticsLookup, experiment: str, benchmark: str, metric: str) -> list[str]:
    r = rows(stats, experiment=experiment, benchmark=benchmark, metric=metric, statistic="mean", method="t")
    return sorted(r["size"].astype(str).unique(), key=natural_key) if not r.empty else []


def platforms_in(stats: StatisticsLookup, baseline: str, **where) -> list[str]:
    """Platforms with means matching `where`, baseline first."""
    r = rows(stats, statistic="mean", method="t", **where)
    if r.empty:
        return []
    ps = sorted(r["platform"].astype(str).unique(), key=natural_key)
    return ([baseline] if baseline in ps else []) + [p for p in ps if p != baseline]


def experiment_sources(samples: pd.DataFrame | None) -> dict[str, str]:
    """Experiment as the statistics name it -> the campaign its samples came from (its directory
    under data/raw/), with the experiment's recorded name after it where that campaign holds more
    than one ("vmware2015 (vms_per_host)"): what a table or figure calls it. `<experiment>@<campaign>`
    is the statistics' key for two campaigns' experiments of one name
    (vbench.stats.campaign.distinct_experiments), not a name for a reader. An experiment whose
    samples name no campaign, or several, is absent. Pure."""
    if samples is None or samples.empty or "campaign" not in samples.columns:
        return {}
    pairs = samples[["experiment", "campaign"]].dropna().astype(str).drop_duplicates()
    per_campaign = pairs.groupby("campaign")["experiment"].nunique()
    sources = pairs.groupby("experiment")["campaign"].agg(list)
    return {
        e: c if per_campaign[c] == 1 else f"{c} ({e.partition('@')[0]})"
        for e, (c, *more) in sources.items()
        if not more
    }


def experiment_source(samples: pd.DataFrame | None, experiment: str) -> str:
    """`experiment_sources` of one experiment; without samples that name its campaign, the
    campaign after its `@`, else "" (a reader then gets the experiment's own name). Pure."""
    e = str(experiment)
    return experiment_sources(samples).get(e) or e.partition("@")[2]


def experiment_name(samples: pd.DataFrame | None, experiment: str) -> str:
    """An experiment as a table or figure names it: `experiment_source`, else its own name. Pure."""
    return experiment_source(samples, experiment) or str(experiment)

"""The tidy statistics table and its entry point `compute_stats`.

One row per group, statistic and method (see `StatRow` for the columns). Every row that
should carry a number but cannot (too few runs, no baseline, a zero baseline, an unknown
direction) still appears, with the number left empty and the reason in `note`; with
`strict=True` such problems raise instead. Bootstrap seeds are derived from `seed` and the
group's own key, so a group's numbers do not change when other groups are added or removed,
and the CSV is byte-identical across runs.

The modules, each importing only those above it in this list:

    rows          the row records: a row's group, how a row is made, the collector, the settings
    verdicts      the verdict columns: equivalence (TOST), Holm across the campaign, A/A, precision
    groups        the per-group pass: means, median, spread, normality, outliers, excluded runs
    across        the rows about every platform at once: ANOVA, pairwise Welch, the mixed model's variance
    comparisons   the platform-vs-baseline pass: ratio, overhead, A/A, variance split, equivalence
    interactions  factor x platform: whether a factor's level changes a platform's ratio
    writer        the CSV text (`format_table`, `write_table`)
    cells         the table read back (its rows in the report, the explore notebook, DVC's metrics):
                  a cell as text, number or count, the row a comparison prefers

and here, the passes run in order, Holm applied and the rows sorted (`compute_stats`), and
the samples annotated with the rule that excluded each and its outlier flag (`annotate_samples`).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from vbench.errors import VbenchError
from vbench.stats.bootstrap import DEFAULT_RESAMPLES
from vbench.stats.interaction import INTERACTION
from vbench.stats.io import validate_samples
from vbench.stats.keys import COMPARISON_KEY, SAMPLE_KEY, natural_key
from vbench.stats.mixed import MIXED
from vbench.stats.outliers import DEFAULT_THRESHOLD, mad_outliers
from vbench.stats.paired import HIERARCHICAL, PAIRED_T, PAIRED_T_ROUNDS
from vbench.stats.records import StatRow
from vbench.stats.table.comparisons import compare_group
from vbench.stats.table.groups import describe_group
from vbench.stats.table.interactions import interaction_rows
from vbench.stats.table.rows import ALL_PLATFORMS, COLUMNS, DEFAULT_SEED, Collector, Group, Settings
from vbench.stats.table.verdicts import holm_across
from vbench.stats.warmup import apply_exclusions

_STAT_ORDER = [
    "excluded_runs",
    "flagged_runs",
    "mean",
    "median",
    "std",
    "cv",
    "min",
    "max",
    "normality",
    "outliers",
    "mean_ci_halfwidth_pct",
    "ratio_to_baseline",
    "overhead_pct",
    "equivalence",
    "ratio_ci_halfwidth_pct",
    "aa_check",
    INTERACTION,
    "variance_between_blocks",
    "variance_within_block",
    "variance_block",
    "variance_cluster_instance",
    "variance_residual",
    "platform_effect",
    "mean_difference",
]
_METHOD_ORDER = [
    "rule",
    "t",
    PAIRED_T,
    PAIRED_T_ROUNDS,
    HIERARCHICAL,
    "fieller",
    "bca_bootstrap",
    MIXED,
    "order_statistic",
    "sample",
    "shapiro_wilk",
    "mad",
    "tost_welch",
    "anova",
    "quiet_gate",
    "welch_anova",
    "kruskal_wallis",
    "welch_t",
]


def _sort_key(row: StatRow, baseline: str) -> tuple:
    plat_rank = 0 if row.platform == baseline else (2 if row.platform == ALL_PLATFORMS else 1)
    stat = _STAT_ORDER.index(row.statistic) if row.statistic in _STAT_ORDER else len(_STAT_ORDER)
    meth = _METHOD_ORDER.index(row.method) if row.method in _METHOD_ORDER else len(_METHOD_ORDER)
    return (
        natural_key(row.experiment),
        natural_key(row.benchmark),
        natural_key(row.metric),
        natural_key(row.size),
        stat >= _STAT_ORDER.index("ratio_to_baseline"),  # descriptive rows first, then comparisons
        plat_rank,
        natural_key(row.platform),
        stat,
        row.statistic,
        natural_key(row.baseline),
        natural_key(row.unit),
        meth,
        row.method,
    )


def compute_stats(
    samples: pd.DataFrame,
    baseline: str = "native",
    *,
    conf: float = 0.95,
    equivalence_pct: float = 5.0,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    drop_first_n: int = 0,
    higher_is_better: Mapping[str, bool] | None = None,
    outlier_threshold: float = DEFAULT_THRESHOLD,
    precision_target_pct: float | None = None,
    max_runs: int | None = None,
    strict: bool = False,
    mixed: bool = False,
) -> pd.DataFrame:
    """All statistics for tidy samples, as one tidy table (columns: `COLUMNS`).

    `higher_is_better` maps metric names to a direction, overriding the unit-based default.
    `precision_target_pct` adds rows saying whether the CI half-width of the mean and of the
    ratio to the baseline is below that many percent, and how many more runs are likely needed.
    `mixed` adds the linear mixed model's rows (vbench.stats.mixed) to blocked comparisons: a
    REML fit per metric, slow, and never the preferred row, so only where someone reads them.
    """
    if not 0 < conf < 1:
        raise VbenchError(f"confidence level must be between 0 and 1, got {conf}")
    if equivalence_pct <= 0:
        raise VbenchError(f"equivalence bound must be positive, got {equivalence_pct} %")
    settings = Settings(
        baseline=baseline,
        conf=conf,
        equivalence_pct=equivalence_pct,
        n_resamples=n_resamples,
        seed=seed,
        overrides=higher_is_better,
        outlier_threshold=outlier_threshold,
        precision_target_pct=precision_target_pct,
        max_runs=max_runs,
        mixed=mixed,
    )
    df = validate_samples(samples, source=samples.attrs.get("source", "samples"))
    kept, excluded, rule = apply_exclusions(df, drop_first_n)
    out = Collector()

    # Groups come from all rows, so a group whose every run was excluded still gets a row.
    kept_labels = set(kept.index)  # looked up per group (a group's rows in `kept`), hashed once

    def in_kept(grp: pd.DataFrame) -> np.ndarray:
        return np.fromiter((i in kept_labels for i in grp.index), dtype=bool, count=len(grp))

    for key, grp_all in df.groupby(SAMPLE_KEY, sort=False):
        experiment, platform, benchmark, metric, unit, size = key
        in_group = in_kept(grp_all)
        g = Group(experiment, benchmark, metric, size, unit, platform)
        describe_group(out, settings, g, grp_all[in_group], grp_all[~in_group], rule)

    for key, grp_all in df.groupby(COMPARISON_KEY, sort=False):
        compare_group(out, settings, key, grp_all, grp_all[in_kept(grp_all)])

    for key, grp in kept.groupby(["experiment", "benchmark", "metric"], sort=False):
        interaction_rows(out, settings, key, grp)

    if strict and out.problems:
        more = f" (and {len(out.problems) - 1} more)" if len(out.problems) > 1 else ""
        raise VbenchError(f"{out.problems[0]}{more}")
    rows = sorted(holm_across(out.rows, equivalence_pct), key=lambda r: _sort_key(r, baseline))
    table = pd.DataFrame([r.__dict__ for r in rows], columns=COLUMNS)
    for col in ("n", "n_baseline", "n_pairs"):
        table[col] = table[col].astype("Int64")
    for col in ("estimate", "ci_low", "ci_high", "conf_level", "p_value", "p_adjusted"):
        table[col] = table[col].astype(float)
    table["preferred"] = table["preferred"].astype("boolean")
    table.attrs["exclusion_rule"] = rule.describe()
    table.attrs["problems"] = list(out.problems)
    return table


def annotate_samples(
    samples: pd.DataFrame, drop_first_n: int = 0, outlier_threshold: float = DEFAULT_THRESHOLD
) -> pd.DataFrame:
    """The samples with `excluded_by` (the rule that dropped the row, or empty) and `outlier` columns."""
    df = validate_samples(samples, source=samples.attrs.get("source", "samples"))
    kept, excluded, _ = apply_exclusions(df, drop_first_n)
    df["excluded_by"] = ""
    df.loc[excluded.index, "excluded_by"] = excluded["exclusion_reason"]
    df["outlier"] = False
    df["modified_z"] = np.nan
    for _, grp in kept.groupby(SAMPLE_KEY, sort=False):
        flags = mad_outliers(grp["value"].to_numpy(dtype=float), outlier_threshold)
        df.loc[grp.index, "outlier"] = flags.flags
        df.loc[grp.index, "modified_z"] = flags.modified_z
    return df

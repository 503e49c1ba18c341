"""What a summary reads from the statistics stage's table and from the samples. Pure.

Which comparisons: the headline metrics of DVC's metrics file (`vbench.stats.headlines`, the rows
`vbench.stats.dvc_views.headline_metrics` writes: the table's preferred ratio to the baseline); a
campaign that measured none of them (a `vbench bench run` of one micro-benchmark) gets every metric
the statistics compare, and a campaign of one level its means. Each comparison carries what its
verdict needs from the table: the preferred TOST row's p-value after Holm, and Holm's over the
paired tests of ratio = 1 (`vbench.report.summary.verdict` says how they are read).
"""

from __future__ import annotations

import time
from typing import Collection

import pandas as pd

from vbench.report.summary import KIND_STAGE, AACheck, Mean, Ratio, StageTime
from vbench.stats.keys import natural_key
from vbench.stats.paired import PAIRED_METHODS
from vbench.stats.table.cells import (
    COMPARISON_ROW_KEY,
    cell_count,
    cell_number,
    cell_text,
    key_as_text,
    preferred_row,
    preferred_rows,
)
from vbench.stats.table.rows import ALPHA


def _select(table: pd.DataFrame, headlines: Collection[tuple[str, str]] | None) -> pd.DataFrame:
    if headlines is None or table.empty:
        return table
    keep = [(b, m) in headlines for b, m in zip(table["benchmark"], table["metric"])]
    return table[keep]


def cell_ratio_fields(r: pd.Series) -> dict[str, object]:
    """The `CellRatio` part of a comparison's table row, read one way wherever a comparison is
    shown: the summary's headlines and A/A checks, and the explore notebook's ratios."""
    return dict(
        benchmark=cell_text(r["benchmark"]),
        cell=cell_text(r["size"]),
        metric=cell_text(r["metric"]),
        level=cell_text(r["platform"]),
        baseline=cell_text(r["baseline"]),
        ratio=cell_number(r["estimate"]),
        low=cell_number(r["ci_low"]),
        high=cell_number(r["ci_high"]),
        method=cell_text(r["method"]),
        n=cell_count(r["n"]),
    )


def ratios(
    table: pd.DataFrame,
    headlines: Collection[tuple[str, str]] | None,
    equivalence_pct: float,
    compare: tuple[str, ...] = ("platform",),
) -> tuple[Ratio, ...]:
    """Every comparison of `headlines` (None: every compared metric) in the table's own order, A/A
    copies included (`split_aa` sets them apart)."""
    t = key_as_text(_select(table, headlines))
    if t.empty:
        return ()
    chosen = preferred_rows(t[t["statistic"] == "ratio_to_baseline"])
    equivalence = preferred_rows(t[t["statistic"] == "equivalence"])
    eq_rows = {key: i for i, key in enumerate(zip(*(equivalence[c] for c in COMPARISON_ROW_KEY)))}
    out = []
    for i, key in enumerate(zip(*(chosen[c] for c in COMPARISON_ROW_KEY))):
        r = chosen.iloc[i]
        equivalent = False
        if key in eq_rows:
            e = equivalence.iloc[eq_rows[key]]
            p = cell_number(e["p_adjusted"])
            p = cell_number(e["p_value"]) if p is None else p
            equivalent = p is not None and p < ALPHA
        p_holm = cell_number(r["p_adjusted"]) if str(r["method"]) in PAIRED_METHODS else None
        out.append(
            Ratio(
                **cell_ratio_fields(r),
                experiment=r["experiment"],
                unit=cell_text(r["unit"]),
                n_baseline=cell_count(r["n_baseline"]),
                n_pairs=cell_count(r["n_pairs"]) if str(r["method"]) in PAIRED_METHODS else None,
                equivalent=equivalent,
                holm_differs=None if p_holm is None else p_holm < ALPHA,
                equivalence_pct=equivalence_pct,
                note=cell_text(r["note"]),
                compare=compare,
            )
        )
    return tuple(out)


def aa_checks(table: pd.DataFrame, headlines: Collection[tuple[str, str]] | None) -> tuple[AACheck, ...]:
    """The table's `aa_check` rows of `headlines` (None: every compared metric)."""
    t = key_as_text(_select(table, headlines))
    if t.empty:
        return ()
    return tuple(AACheck(**cell_ratio_fields(r)) for _, r in t[t["statistic"] == "aa_check"].iterrows())


def means(table: pd.DataFrame, headlines: Collection[tuple[str, str]] | None) -> tuple[Mean, ...]:
    """Each platform's preferred mean of `headlines` (None: every compared metric)."""
    t = key_as_text(_select(table, headlines))
    if t.empty:
        return ()
    rows = t[t["statistic"] == "mean"]
    out = []
    for (_, benchmark, size, metric, platform), g in rows.groupby(COMPARISON_ROW_KEY[:5], sort=False):
        r = preferred_row(g)
        out.append(
            Mean(
                benchmark,
                size,
                metric,
                cell_text(r["unit"]),
                platform,
                cell_number(r["estimate"]),
                cell_number(r["ci_low"]),
                cell_number(r["ci_high"]),
                cell_text(r["method"]),
                cell_count(r["n"]),
            )
        )
    return tuple(out)


def headlines_in(table: pd.DataFrame, headlines: Collection[tuple[str, str]]) -> bool:
    """Whether the table compares any of `headlines` (else the summary shows every metric)."""
    if table.empty:
        return False
    pairs = set(zip(table["benchmark"], table["metric"]))
    return bool(pairs & set(headlines))


def measured_on(samples: pd.DataFrame) -> str:
    """The UTC day(s) of the samples' timestamps: `2026-11-24` or `2026-11-24 to 2026-11-25`."""
    if samples.empty or "timestamp" not in samples.columns:
        return ""
    stamps = pd.to_numeric(samples["timestamp"], errors="coerce").dropna()
    if stamps.empty:
        return ""
    first, last = (time.strftime("%Y-%m-%d", time.gmtime(float(t))) for t in (stamps.min(), stamps.max()))
    return first if first == last else f"{first} to {last}"


def times_from_samples(samples: pd.DataFrame) -> tuple[StageTime, ...]:
    """Per kind of benchmark, the first to the last sample's timestamp: a lower bound of the
    stage's time (its first run's own length and the last teardown are not in it)."""
    if samples.empty or "timestamp" not in samples.columns:
        return ()
    kinds = samples["benchmark_kind"] if "benchmark_kind" in samples.columns else pd.Series("", index=samples.index)
    out = []
    for kind, g in samples.groupby(kinds.fillna("").astype(str), sort=False):
        stamps = pd.to_numeric(g["timestamp"], errors="coerce").dropna()
        if len(stamps) > 1:
            name = KIND_STAGE.get(kind, kind or "measurement")
            out.append(StageTime(name, float(stamps.max() - stamps.min()), "first to last sample"))
    return tuple(sorted(out, key=lambda s: natural_key(s.stage)))

"""The statistics table's rows about every platform of a comparison group at once (platform
`all`): Welch's ANOVA and Kruskal-Wallis over the platforms, pairwise Welch tests with Holm's
correction, and, from the mixed model, where the variance of the log metric lives.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vbench.stats.hypothesis import kruskal_wallis, pairwise_welch, welch_anova
from vbench.stats.mixed import MIXED, MixedFit, NoFit
from vbench.stats.records import Interval
from vbench.stats.table.rows import ALL_PLATFORMS, ALPHA, Collector, Group, Settings, joined, stat_row


def across_platforms(
    out: Collector,
    s: Settings,
    key: tuple,
    values: dict[str, np.ndarray],
    all_units: list[str],
    mixed: MixedFit | NoFit | None,
) -> None:
    """The rows of platform `all` for the comparison group `key` (experiment, benchmark, metric,
    size), whose kept runs are `values` (platform -> values, two platforms or more)."""
    experiment, benchmark, metric, size = key
    g = Group(
        experiment, benchmark, metric, size, all_units[0] if len(all_units) == 1 else ",".join(all_units), ALL_PLATFORMS
    )
    if isinstance(mixed, MixedFit):
        mixed_variance_rows(out, g, mixed, s.baseline, s.direction(metric, all_units[0]))
    direction = s.direction(metric, all_units[0]) if len(all_units) == 1 else "unknown"
    total = int(sum(v.size for v in values.values()))
    if len(all_units) > 1:
        note = f"units differ across platforms ({', '.join(all_units)}): no test"
        for method in ("welch_anova", "kruskal_wallis"):
            out.add(stat_row(g, "platform_effect", method, Interval(None), total, direction=direction, note=note))
        return
    for method, res in (("welch_anova", welch_anova(values)), ("kruskal_wallis", kruskal_wallis(values))):
        verdict = (
            ""
            if res.p_value is None
            else (f"platforms differ (p < {ALPHA:g})" if res.p_value < ALPHA else "no evidence platforms differ")
        )
        dfs = "df=" + ", ".join(f"{d:.4g}" for d in res.df) if res.df else ""
        out.add(
            stat_row(
                g,
                "platform_effect",
                method,
                Interval(res.statistic),
                total,
                p_value=res.p_value,
                verdict=verdict,
                direction=direction,
                note=res.note or dfs,
            )
        )
    for pr in pairwise_welch(values, s.conf):
        pg = replace(g, platform=pr.first)
        verdict = (
            ""
            if pr.p_adjusted is None
            else ("differ (Holm)" if pr.p_adjusted < ALPHA else "no evidence of a difference")
        )
        out.add(
            stat_row(
                pg,
                "mean_difference",
                "welch_t",
                pr.difference,
                int(values[pr.first].size),
                baseline=pr.second,
                n_baseline=int(values[pr.second].size),
                conf_level=s.conf,
                p_value=pr.p_value,
                p_adjusted=pr.p_adjusted,
                verdict=verdict,
                direction=direction,
                note=pr.note,
            )
        )


def mixed_variance_rows(out: Collector, g: Group, fit: MixedFit, baseline: str, direction: str) -> None:
    """The variance of the log metric at each level of the design, from the mixed model."""
    v, share = fit.variance, fit.variance.shares()
    residual = (
        "between rounds of one cluster instance"
        if v.instance is not None
        else "between runs of one platform in one block (cluster instance and run together: no rounds)"
    )
    levels = [("variance_block", v.block, "block", "shared by every platform of a block (cancels in the ratio)")]
    if v.instance is not None:
        levels.append(
            (
                "variance_cluster_instance",
                v.instance,
                "instance",
                "a platform's cluster in one block, beyond the block's shared part",
            )
        )
    levels.append(("variance_residual", v.residual, "residual", residual))
    for stat, value, part, what in levels:
        out.add(
            stat_row(
                g,
                stat,
                MIXED,
                Interval(value),
                fit.n_units,
                baseline=baseline,
                direction=direction,
                note=joined(f"variance of the log metric {what}; {100 * share[part]:.0f} % of the total", fit.note),
            )
        )

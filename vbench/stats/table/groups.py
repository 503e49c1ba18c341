"""The per-group pass of the statistics table: for one group (experiment, platform, benchmark,
metric, unit, size), the runs the warm-up rule excluded and the quiet gate flagged, the mean
(t and BCa), the median, the spread, normality, MAD outliers and, with a precision target,
whether the mean's interval is narrow enough.
"""

from __future__ import annotations

from dataclasses import astuple

import numpy as np
import pandas as pd

from vbench.stats.adaptive import assess_mean
from vbench.stats.describe import describe, t_interval
from vbench.stats.keys import natural_key
from vbench.stats.outliers import mad_outliers
from vbench.stats.quiet import quiet_counts
from vbench.stats.records import Interval
from vbench.stats.table.rows import Collector, Group, Settings, joined, seeded_rng, stat_row
from vbench.stats.table.verdicts import precision_row
from vbench.stats.warmup import ExclusionRule
from vbench.wording import noun


#: The method of a group's mean whose interval is Student-t over its blocks' means: where a block
#: holds several runs (several hosts' runs, repeats, rounds), they share the block's cluster
#: instance and are not independent samples; the block is the design's unit.
BLOCK_MEANS = "t_block_means"


def block_means(kept: pd.DataFrame) -> np.ndarray | None:
    """The means of a group's blocks, in block order, when every run carries its block and there
    are at least two (with one run per block they are the runs themselves). None otherwise: no
    blocks recorded, or one block, whose runs are all the table has."""
    if "block" not in kept.columns or kept.empty:
        return None
    block = kept["block"]
    if block.isna().any():
        return None
    names = np.array([str(b) for b in block.tolist()], dtype=object)
    if len(set(names)) < 2:
        return None
    return kept["value"].groupby(names, sort=True).mean().to_numpy(dtype=float)


def describe_group(
    out: Collector, s: Settings, g: Group, kept: pd.DataFrame, excluded: pd.DataFrame, rule: ExclusionRule
) -> None:
    """The rows of group `g` from its `kept` runs (`excluded`: those `rule` excluded)."""
    x = kept["value"].to_numpy(dtype=float)
    n = int(x.size)
    conf = s.conf
    common = dict(direction=s.direction(g.metric, g.unit))
    if rule.active:
        reps = ", ".join(str(r) for r in sorted(excluded["repetition"].unique(), key=natural_key)) or "none"
        out.add(
            stat_row(
                g,
                "excluded_runs",
                "rule",
                Interval(float(len(excluded))),
                n,
                **common,
                note=f"{rule.describe()}; excluded repetitions: {reps}",
            )
        )
    q = quiet_counts(kept)
    if q is not None:
        out.add(stat_row(g, "flagged_runs", "quiet_gate", Interval(float(q.flagged)), n, **common, note=q.text()))
    if n == 0:
        out.add(stat_row(g, "mean", "t", Interval(None), 0, **common, note="n=0: every run was excluded by the rule"))
        out.problem(g, "n=0 after exclusions")
        return
    if n < 2:
        out.problem(g, f"n={n}: no CI")
    d = describe(x, conf=conf, n_resamples=s.n_resamples, rng=seeded_rng(s.seed, "mean", *astuple(g)))
    summary = d.summary
    pref_t = d.preferred_mean_method == "t"
    ci = dict(conf_level=conf, **common)
    out.add(stat_row(g, "mean", "t", d.t, n, preferred=pref_t, note=joined(d.t.note, d.preference_note), **ci))
    out.add(stat_row(g, "mean", "bca_bootstrap", d.bca, n, preferred=not pref_t, **ci))
    blocks = block_means(kept)
    if blocks is not None:
        out.add(
            stat_row(
                g,
                "mean",
                BLOCK_MEANS,
                t_interval(blocks, conf),
                int(blocks.size),
                note=(
                    f"t over the means of {blocks.size} blocks ({n} runs: hosts, repeats and rounds of a block"
                    " share its cluster instance, so the block is the independent unit)"
                    if n > blocks.size
                    else f"t over {blocks.size} blocks, one run each"
                ),
                **ci,
            )
        )
    out.add(stat_row(g, "median", "order_statistic", d.median, n, **ci))
    out.add(
        stat_row(
            g,
            "std",
            "sample",
            Interval(summary.std),
            n,
            **common,
            note="" if summary.std is not None else f"n={n}: no standard deviation",
        )
    )
    cv_note = (
        ""
        if summary.cv is not None
        else (f"n={n}: no standard deviation" if summary.std is None else "mean is zero: cv undefined")
    )
    out.add(stat_row(g, "cv", "sample", Interval(summary.cv), n, **common, note=cv_note))
    out.add(stat_row(g, "min", "sample", Interval(summary.min), n, **common))
    out.add(stat_row(g, "max", "sample", Interval(summary.max), n, **common))
    nm = d.normality
    verdict = "" if nm.p_value is None else ("normality doubtful" if nm.doubtful else "no evidence against normality")
    out.add(
        stat_row(
            g,
            "normality",
            "shapiro_wilk",
            Interval(nm.w),
            n,
            p_value=nm.p_value,
            verdict=verdict,
            **common,
            note=nm.note,
        )
    )
    flags = mad_outliers(x, s.outlier_threshold)
    flagged_reps = sorted(kept["repetition"].to_numpy()[flags.flags], key=natural_key)
    flagged = ", ".join(str(r) for r in flagged_reps)
    onote = (
        f"{noun(len(flagged_reps), 'repetition')} {flagged} flagged "
        f"(|modified z| > {s.outlier_threshold:g}); kept in all statistics"
        if flagged
        else ""
    )
    out.add(stat_row(g, "outliers", "mad", Interval(float(flags.count)), n, **common, note=joined(flags.note, onote)))
    if s.precision_target_pct is not None:
        a = assess_mean(x, s.precision_target_pct, conf=conf, max_runs=s.max_runs)
        out.add(precision_row(g, "mean_ci_halfwidth_pct", "t", a, n, **common))

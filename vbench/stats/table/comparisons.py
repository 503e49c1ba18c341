"""The platform-vs-baseline pass of the statistics table: for every platform of a comparison
group (experiment, benchmark, metric, size) but the baseline, its ratio to the baseline and its
overhead (paired by block where the design pairs runs, Fieller and BCa beside it, the mixed
model's where asked), the A/A self-check, the ratio's variance between and within blocks,
equivalence (TOST) and, with a precision target, whether the ratio's interval is narrow enough;
then the rows about every platform at once (`across`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from vbench.samples import aa_label
from vbench.stats.adaptive import assess_ratio
from vbench.stats.bootstrap import bca_ratio_interval
from vbench.stats.describe import MIN_N_FOR_BOOTSTRAP, shapiro_wilk
from vbench.stats.hypothesis import tost_ratio
from vbench.stats.keys import natural_key
from vbench.stats.mixed import MIXED, MixedFit, NoFit, fit_mixed
from vbench.stats.paired import (
    BLOCK,
    PairedRatio,
    Pairs,
    hierarchical_ratio,
    pair_runs,
    paired_ratio,
    paired_tost,
    preferred_ratio,
    rounds_ratio,
)
from vbench.stats.ratio import fieller_interval, overhead_pct
from vbench.stats.records import Interval
from vbench.stats.table.across import across_platforms
from vbench.stats.table.rows import ALPHA, Collector, Group, Settings, joined, seeded_rng, stat_row
from vbench.stats.table.verdicts import aa_row, equivalence_verdict, precision_row
from vbench.wording import count


def compare_group(out: Collector, s: Settings, key: tuple, grp_all: pd.DataFrame, kept: pd.DataFrame) -> None:
    """The comparison rows of group `key` (experiment, benchmark, metric, size): `grp_all` its
    runs, `kept` those the warm-up rule kept."""
    experiment, benchmark, metric, size = key
    baseline = s.baseline
    platforms = sorted(grp_all["platform"].unique(), key=natural_key)
    # Each platform's units and kept values by numpy masks, not a pandas selection per platform.
    all_platform, all_unit = grp_all["platform"].to_numpy(dtype=object), grp_all["unit"].to_numpy(dtype=object)
    units = {p: sorted(set(all_unit[all_platform == p].tolist())) for p in platforms}
    kept_platform, kept_value = kept["platform"].to_numpy(dtype=object), kept["value"].to_numpy(dtype=float)
    values = {p: kept_value[kept_platform == p] for p in platforms}
    all_units = sorted({u for us in units.values() for u in us})
    base_units = units.get(baseline, [])
    # The mixed model describes the whole metric (every platform, blocks random); its rows sit
    # beside the paired and Fieller ones, never preferred, so they change no other row. Its
    # REML fit costs about 0.1 s per metric, most of compute_stats on a blocked campaign, and
    # the paired t over block means already gives its interval for the ratio: fitted only when
    # asked (the statistics stage, `vbench stats`), not when the stopping rule reads the table
    # after every round.
    blocked = BLOCK in kept.columns and bool(kept[BLOCK].notna().any())
    mixed = (
        fit_mixed(kept, baseline, conf=s.conf)
        if s.mixed and blocked and baseline in values and len(all_units) == 1 and len(platforms) > 1
        else None
    )

    for p in platforms:
        if p == baseline:
            continue
        unit = units[p][0]
        g = Group(experiment, benchmark, metric, size, unit, p)
        direction = s.direction(metric, unit)
        x = values[p]
        n = int(x.size)
        if baseline not in values:
            _bad_comparison_rows(out, s, g, n, None, direction, f"no baseline '{baseline}' for this group")
            continue
        y = values[baseline]
        if len(units[p]) > 1 or base_units != [unit]:
            why = f"units differ across platforms ({', '.join(all_units)}): ratio meaningless"
        elif y.size == 0 or n == 0:
            why = f"n={n} (platform), n={y.size} (baseline) after exclusions: no ratio"
        elif float(y.mean()) == 0.0:
            why = "baseline mean is zero: ratio undefined"
        else:
            why = ""
        if why:
            _bad_comparison_rows(out, s, g, n, int(y.size), direction, why)
            continue
        _compare_platform(out, s, g, kept, x, y, mixed)

    if len(platforms) < 2:
        return
    across_platforms(out, s, key, values, all_units, mixed)


def _bad_comparison_rows(
    out: Collector, s: Settings, g: Group, n: int, n_base: int | None, direction: str, note: str
) -> None:
    """The comparison rows of `g`, empty, with `note` saying why there is no ratio."""
    kw = dict(baseline=s.baseline, n_baseline=n_base, direction=direction, note=note)
    for stat in ("ratio_to_baseline", "overhead_pct"):
        for method in ("fieller", "bca_bootstrap"):
            out.add(stat_row(g, stat, method, Interval(None), n, conf_level=s.conf, **kw))
    out.add(
        stat_row(
            g,
            "equivalence",
            "tost_welch",
            Interval(None),
            n,
            conf_level=1 - 2 * ALPHA,
            verdict=f"not shown within +/-{s.equivalence_pct:g} % (no test)",
            **kw,
        )
    )
    out.problem(g, note)


def _compare_platform(
    out: Collector,
    s: Settings,
    g: Group,
    kept: pd.DataFrame,
    x: np.ndarray,
    y: np.ndarray,
    mixed: MixedFit | NoFit | None,
) -> None:
    """The rows of platform `g.platform` against the baseline: `x` its kept values, `y` the
    baseline's (same unit, both non-empty, the baseline's mean not zero)."""
    baseline, conf, metric, unit, p = s.baseline, s.conf, g.metric, g.unit, g.platform
    hib = s.higher_is_better(metric, unit)
    n = int(x.size)
    if n < 2 or y.size < 2:
        out.problem(g, f"n={n} (platform), n={y.size} (baseline): no CI for the ratio")
    if hib is None:
        out.problem(g, f"direction unknown for unit '{unit}': say whether higher is better for metric '{metric}'")

    where = (g.experiment, g.benchmark, metric, g.size, unit, p, baseline)
    fieller = fieller_interval(x, y, conf)
    boot = bca_ratio_interval(x, y, conf=conf, n_resamples=s.n_resamples, rng=seeded_rng(s.seed, "ratio", *where))
    # The design pairs runs by block (and round): then the within-block log ratios give the
    # interval (stats/paired.py) and Fieller's, which counts block effects as noise, is kept
    # beside it for comparison. Fewer than two pairs leave the comparison to Fieller.
    pairs = pair_runs(kept[kept["platform"] == p], kept[kept["platform"] == baseline])
    # The row read: the t over block means, or for designs of the lean shape the t over every
    # round, which the planted-effect test adopted there (stats/paired.py, `preferred_ratio`).
    paired = preferred_ratio(pairs, conf=conf)
    # With several rounds per block the hierarchical bootstrap is reported beside it, never
    # preferred: it covers less than it claims with few blocks; and the other t of the two.
    hier = hierarchical_ratio(pairs, conf=conf, n_resamples=s.n_resamples, rng=seeded_rng(s.seed, "paired", *where))
    paired_ts = (paired_ratio(pairs, conf=conf), rounds_ratio(pairs, conf=conf))
    why_unpaired = "" if paired else f"not paired: {pairs.note or count(pairs.n_pairs, 'pair') + ', needs 2'}"
    # Fieller assumes normal means; prefer the bootstrap only when normality is doubtful
    # and both samples are large enough for BCa to be trusted.
    doubtful = shapiro_wilk(x).doubtful or shapiro_wilk(y).doubtful
    big = min(n, y.size) >= MIN_N_FOR_BOOTSTRAP
    pref_fieller = not (doubtful and big) and paired is None
    pref_boot = doubtful and big and paired is None
    kw = dict(
        baseline=baseline,
        n_baseline=int(y.size),
        direction=s.direction(metric, unit),
        conf_level=conf,
        n_pairs=pairs.n_pairs,
    )
    for stat, conv in (("ratio_to_baseline", lambda iv: iv), ("overhead_pct", lambda iv: overhead_pct(iv, hib))):
        # The preferred paired row is the one read; the other t and the hierarchical bootstrap stand beside it.
        for res in (*paired_ts, hier):
            if res is not None:
                out.add(
                    stat_row(
                        g,
                        stat,
                        res.method,
                        conv(res.ratio),
                        n,
                        preferred=paired is not None and res.method == paired.method,
                        p_value=res.p_value if stat == "ratio_to_baseline" else None,
                        note=conv(res.ratio).note,
                        **kw,
                    )
                )
        out.add(
            stat_row(
                g,
                stat,
                "fieller",
                conv(fieller),
                n,
                preferred=pref_fieller,
                note=joined(conv(fieller).note, why_unpaired),
                **kw,
            )
        )
        out.add(stat_row(g, stat, "bca_bootstrap", conv(boot), n, preferred=pref_boot, **kw))
        if mixed is not None:
            _mixed_ratio_row(out, g, stat, conv, mixed, n, kw)
    if p == aa_label(baseline):
        chosen = paired.ratio if paired is not None else (boot if pref_boot else fieller)
        method = paired.method if paired is not None else ("bca_bootstrap" if pref_boot else "fieller")
        out.add(aa_row(g, chosen, method, n, kw))
    base_kw = {k: v for k, v in kw.items() if k != "conf_level"}
    if paired is not None and paired.variance is not None:
        vc = paired.variance
        for stat, value, what in (
            ("variance_between_blocks", vc.between_blocks, "between blocks (cluster instances)"),
            ("variance_within_block", vc.within_block, "between rounds of one block"),
        ):
            out.add(
                stat_row(
                    g,
                    stat,
                    "anova",
                    Interval(value),
                    n,
                    note=joined(f"variance of the log ratio {what}", vc.note),
                    **base_kw,
                )
            )

    _equivalence_rows(out, s, g, x, y, pairs, paired, why_unpaired, kw)
    if s.precision_target_pct is not None:
        target = s.precision_target_pct
        if paired is not None:
            hw = paired.ratio.relative_half_width()
            hw_pct = None if hw is None else 100 * hw
            reached = hw_pct is not None and hw_pct <= target
            out.add(
                stat_row(
                    g,
                    "ratio_ci_halfwidth_pct",
                    paired.method,
                    Interval(hw_pct),
                    n,
                    verdict="stop_reached" if reached else "continue",
                    note=f"target +/-{target:g} %: {'reached' if reached else 'not reached'}; "
                    "add blocks (or rounds, where the within-block variance dominates)",
                    **base_kw,
                )
            )
        a = assess_ratio(x, y, target, conf=conf, max_runs=s.max_runs)
        out.add(precision_row(g, "ratio_ci_halfwidth_pct", "fieller", a, n, **base_kw))


def _equivalence_rows(
    out: Collector,
    s: Settings,
    g: Group,
    x: np.ndarray,
    y: np.ndarray,
    pairs: Pairs,
    paired: PairedRatio | None,
    why_unpaired: str,
    kw: dict,
) -> None:
    """TOST of the ratio within +/- the equivalence bound: on the paired log ratio where the runs
    are paired (the row read), Welch's on the two samples beside it."""
    pct, baseline = s.equivalence_pct, s.baseline
    n = int(x.size)
    t = tost_ratio(x, y, pct, ALPHA)
    tnote = t.note or (
        f"H0 ratio outside [{1 - pct / 100:g}, {1 + pct / 100:g}]; "
        f"p_lower={t.p_lower:.4g}, p_upper={t.p_upper:.4g}; CI is the dual {1 - 2 * ALPHA:.0%} Fieller interval"
    )
    if t.ratio.note:
        tnote = f"{tnote}; {t.ratio.note}"
    eq_kw = {**kw, "conf_level": 1 - 2 * ALPHA}
    if paired is not None:
        pt = paired_tost(pairs, pct, ALPHA)
        pnote = pt.note or (
            f"H0 ratio outside [{1 - pct / 100:g}, {1 + pct / 100:g}] on the "
            f"paired log ratio; p_lower={pt.p_lower:.4g}, p_upper={pt.p_upper:.4g}; "
            f"CI is the dual {1 - 2 * ALPHA:.0%} {paired.method} interval"
        )
        out.add(
            stat_row(
                g,
                "equivalence",
                paired.method,
                pt.ratio,
                n,
                p_value=pt.p_value,
                preferred=True,
                verdict=equivalence_verdict(baseline, pct, pt.equivalent),
                note=pnote,
                **eq_kw,
            )
        )
    out.add(
        stat_row(
            g,
            "equivalence",
            "tost_welch",
            t.ratio,
            n,
            p_value=t.p_value,
            preferred=False if paired is not None else None,
            verdict=equivalence_verdict(baseline, pct, t.equivalent),
            note=joined(tnote, why_unpaired),
            **eq_kw,
        )
    )


def _mixed_ratio_row(out: Collector, g: Group, stat: str, conv, mixed: MixedFit | NoFit, n: int, kw: dict) -> None:
    """The mixed model's ratio (or overhead) of `g.platform`, or an empty row saying why there is none."""
    if isinstance(mixed, NoFit) or g.platform not in mixed.ratios:
        why = mixed.reason if isinstance(mixed, NoFit) else mixed.left_out.get(g.platform, "not in the mixed model")
        out.add(stat_row(g, stat, MIXED, Interval(None), n, preferred=False, note=why, **kw))
        return
    mr = mixed.ratios[g.platform]
    iv = conv(mr.ratio)
    out.add(
        stat_row(
            g,
            stat,
            MIXED,
            iv,
            n,
            preferred=False,
            p_value=mr.p_value if stat == "ratio_to_baseline" else None,
            note=joined(iv.note, _mixed_note(mixed, mr.n_blocks)),
            **kw,
        )
    )


def _mixed_note(fit: MixedFit, n_blocks: int) -> str:
    levels = "block and cluster instance random" if fit.variance.instance is not None else "block random"
    return joined(
        f"log metric, platform fixed, {levels}; {fit.n_units} observations in {fit.n_blocks} blocks; "
        f"Wald interval with t on {n_blocks - 1} df",
        fit.note,
    )

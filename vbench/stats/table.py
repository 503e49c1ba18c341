"""The tidy statistics table and its entry point `compute_stats`.

One row per group, statistic and method (see `StatRow` for the columns). Every row that
should carry a number but cannot (too few runs, no baseline, a zero baseline, an unknown
direction) still appears, with the number left empty and the reason in `note`; with
`strict=True` such problems raise instead. Bootstrap seeds are derived from `seed` and the
group's own key, so a group's numbers do not change when other groups are added or removed,
and the CSV is byte-identical across runs.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import astuple, dataclass, replace
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from vbench.errors import VbenchError
from vbench.samples import QUIET_CPU_PROBE, QUIET_MACHINE_PROBE, QUIET_VERDICT, aa_label
from vbench.stats.adaptive import assess_mean, assess_ratio
from vbench.stats.bootstrap import DEFAULT_RESAMPLES, bca_ratio_interval
from vbench.stats.describe import MIN_N_FOR_BOOTSTRAP, describe, shapiro_wilk
from vbench.stats.direction import direction_label
from vbench.stats.direction import higher_is_better as resolve_direction
from vbench.stats.hypothesis import holm, kruskal_wallis, pairwise_welch, tost_ratio, welch_anova
from vbench.stats.interaction import INTERACTION, interaction_ratio, level_pairs
from vbench.stats.io import validate_samples
from vbench.stats.keys import COMPARISON_KEY, SAMPLE_KEY, natural_key
from vbench.stats.mixed import MIXED, MixedFit, NoFit, fit_mixed
from vbench.stats.outliers import DEFAULT_THRESHOLD, mad_outliers
from vbench.stats.paired import (
    BLOCK,
    HIERARCHICAL,
    PAIRED_METHODS,
    PAIRED_T,
    hierarchical_ratio,
    pair_runs,
    paired_ratio,
    paired_tost,
)
from vbench.stats.ratio import fieller_interval, overhead_pct
from vbench.stats.records import Interval, StatRow
from vbench.stats.warmup import ExclusionRule, apply_exclusions
from vbench.wording import count, noun

#: Default seed (the year of the studies vbench revisits, plus one digit).
DEFAULT_SEED = 20141
#: Significance level of the tests and of TOST (whose dual interval is 1 - 2 * alpha).
ALPHA = 0.05
ALL_PLATFORMS = "all"

COLUMNS = StatRow.columns()
# Methods that give point values by design; their empty CI needs no note.
POINT_METHODS = frozenset(
    {"sample", "shapiro_wilk", "mad", "rule", "welch_anova", "kruskal_wallis", "anova", "quiet_gate"}
)
#: The quiet-machine gate's verdicts (vbench.campaign.quiet) that mean the machine was checked.
QUIET_CHECKED = ("ok", "waited", "flagged")

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


@dataclass(frozen=True)
class _Group:
    experiment: str
    benchmark: str
    metric: str
    size: str
    unit: str
    platform: str = ""

    def label(self) -> str:
        size = f" size={self.size}" if self.size else ""
        plat = f" platform={self.platform}" if self.platform else ""
        return f"{self.experiment}/{self.benchmark}/{self.metric}{size}{plat}"


def _rng(seed: int, *parts: str) -> np.random.Generator:
    # crc32, unlike hash(), is the same in every Python process.
    return np.random.default_rng([seed, zlib.crc32("\x1f".join(parts).encode("utf-8"))])


def _row(g: _Group, statistic: str, method: str, iv: Interval, n: int | None, **kw) -> StatRow:
    return StatRow(
        experiment=g.experiment,
        platform=kw.pop("platform", g.platform),
        benchmark=g.benchmark,
        metric=g.metric,
        unit=g.unit,
        size=g.size,
        statistic=statistic,
        method=method,
        estimate=iv.estimate,
        ci_low=iv.low,
        ci_high=iv.high,
        n=n,
        note=kw.pop("note", iv.note),
        **kw,
    )


class _Collector:
    """Rows plus the problems that `strict` turns into an error."""

    def __init__(self) -> None:
        self.rows: list[StatRow] = []
        self.problems: list[str] = []

    def add(self, row: StatRow) -> None:
        self.rows.append(row)

    def problem(self, g: _Group, message: str) -> None:
        self.problems.append(f"{g.label()}: {message}")


def _describe_group(
    out: _Collector,
    g: _Group,
    kept: pd.DataFrame,
    excluded: pd.DataFrame,
    rule: ExclusionRule,
    direction: str,
    conf: float,
    n_resamples: int,
    seed: int,
    outlier_threshold: float,
    precision_target_pct: float | None,
    max_runs: int | None,
) -> None:
    x = kept["value"].to_numpy(dtype=float)
    n = int(x.size)
    common = dict(direction=direction)
    if rule.active:
        reps = ", ".join(str(r) for r in sorted(excluded["repetition"].unique(), key=natural_key)) or "none"
        out.add(
            _row(
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
        out.add(_row(g, "flagged_runs", "quiet_gate", Interval(float(q.flagged)), n, **common, note=q.text()))
    if n == 0:
        out.add(_row(g, "mean", "t", Interval(None), 0, **common, note="n=0: every run was excluded by the rule"))
        out.problem(g, "n=0 after exclusions")
        return
    if n < 2:
        out.problem(g, f"n={n}: no CI")
    d = describe(x, conf=conf, n_resamples=n_resamples, rng=_rng(seed, "mean", *astuple(g)))
    s = d.summary
    pref_t = d.preferred_mean_method == "t"
    ci = dict(conf_level=conf, **common)
    out.add(
        _row(
            g, "mean", "t", d.t, n, preferred=pref_t, note="; ".join(filter(None, [d.t.note, d.preference_note])), **ci
        )
    )
    out.add(_row(g, "mean", "bca_bootstrap", d.bca, n, preferred=not pref_t, **ci))
    out.add(_row(g, "median", "order_statistic", d.median, n, **ci))
    out.add(
        _row(
            g,
            "std",
            "sample",
            Interval(s.std),
            n,
            **common,
            note="" if s.std is not None else f"n={n}: no standard deviation",
        )
    )
    cv_note = (
        "" if s.cv is not None else (f"n={n}: no standard deviation" if s.std is None else "mean is zero: cv undefined")
    )
    out.add(_row(g, "cv", "sample", Interval(s.cv), n, **common, note=cv_note))
    out.add(_row(g, "min", "sample", Interval(s.min), n, **common))
    out.add(_row(g, "max", "sample", Interval(s.max), n, **common))
    nm = d.normality
    verdict = "" if nm.p_value is None else ("normality doubtful" if nm.doubtful else "no evidence against normality")
    out.add(
        _row(
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
    flags = mad_outliers(x, outlier_threshold)
    flagged_reps = sorted(kept["repetition"].to_numpy()[flags.flags], key=natural_key)
    flagged = ", ".join(str(r) for r in flagged_reps)
    onote = (
        f"{noun(len(flagged_reps), 'repetition')} {flagged} flagged "
        f"(|modified z| > {outlier_threshold:g}); kept in all statistics"
        if flagged
        else ""
    )
    out.add(
        _row(
            g,
            "outliers",
            "mad",
            Interval(float(flags.count)),
            n,
            **common,
            note="; ".join(filter(None, [flags.note, onote])),
        )
    )
    if precision_target_pct is not None:
        a = assess_mean(x, precision_target_pct, conf=conf, max_runs=max_runs)
        out.add(
            _row(
                g,
                "mean_ci_halfwidth_pct",
                "t",
                Interval(a.half_width_pct),
                n,
                verdict=a.decision,
                **common,
                note=_precision_note(a),
            )
        )


@dataclass(frozen=True)
class QuietCounts:
    """How many runs the quiet-machine gate saw on a flagged machine (vbench.campaign.quiet)."""

    runs: int
    flagged: int
    waited: int
    unchecked: int  # no verdict (a campaign from before the gate, an inventory's hosts) or gate off
    #: The median over the runs of the gate's CPU probe / this machine's reference
    #: (vbench.campaign.machine_ref; None: no run carries both): a slow day, said beside the counts.
    probe_vs_machine: float | None = None
    #: How many runs carry both (a table over several campaigns: only those measured with a reference).
    probe_runs: int = 0

    def text(self) -> str:
        parts = [
            f"{self.flagged} of {count(self.runs, 'run')} measured while the quiet-machine gate flagged the machine"
        ]
        if self.waited:
            parts.append(f"{self.waited} after waiting for it to be quiet")
        if self.unchecked:
            parts.append(f"{self.unchecked} not checked")
        if self.probe_vs_machine is not None:
            parts.append(
                f"CPU probe x{self.probe_vs_machine:.2f} this machine's reference "
                f"(median over the {count(self.probe_runs, 'run')} measured with one)"
            )
        return "; ".join(parts)


def quiet_counts(samples: pd.DataFrame) -> QuietCounts | None:
    """The gate's verdicts over the runs of `samples` (a run's rows counted once, by `run_id`
    where the samples carry it), or None when no row carries a verdict."""
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


def _precision_note(a) -> str:
    head = f"target +/-{a.target_pct:g} %"
    tail = (
        "reached"
        if a.reached
        else (
            f"about {a.more_runs} more {noun(a.more_runs, 'run')} per platform"
            if a.more_runs is not None
            else "not reachable"
        )
    )
    return "; ".join(filter(None, [f"{head}: {tail}", a.note]))


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def equivalence_verdict(baseline: str, equivalence_pct: float, equivalent: bool) -> str:
    who = "near-native" if baseline == "native" else f"equivalent to '{baseline}'"
    return (
        f"{who} (TOST, {equivalence_pct:g} % bound)"
        if equivalent
        else f"not shown within +/-{equivalence_pct:g} % (TOST)"
    )


def _holm_across(rows: list[StatRow], equivalence_pct: float) -> list[StatRow]:
    """Holm over the campaign's comparisons, one family per kind of claim.

    A campaign makes many claims at once ("near-native on TeraSort, on DFSIO, ..."); without a
    correction some are false by chance. Families: the equivalence claims (the preferred TOST of
    each comparison; its verdict follows the adjusted p-value) and the paired tests of ratio = 1.
    Rows that are not the comparison's preferred method keep their raw p-value only."""

    def family(r: StatRow) -> str | None:
        if r.p_value is None or r.preferred is False:
            return None
        if r.statistic == "equivalence":
            return "equivalence"
        if r.statistic == "ratio_to_baseline" and r.method in PAIRED_METHODS:
            return "ratio"
        if r.statistic == INTERACTION:
            return INTERACTION
        return None

    tests = {"equivalence": "equivalence tests", "ratio": "paired ratio tests", INTERACTION: "interaction tests"}
    out = list(rows)
    for fam in tests:
        idx = [i for i, r in enumerate(out) if family(r) == fam]
        if not idx:
            continue
        adjusted = holm([out[i].p_value for i in idx])
        for i, adj in zip(idx, adjusted):
            r = out[i]
            holm_note = f"Holm over the {len(idx)} {tests[fam]}"
            if fam == "equivalence":
                verdict = equivalence_verdict(r.baseline, equivalence_pct, bool(adj < ALPHA))
            elif fam == INTERACTION:
                verdict = (
                    "the factor changes the ratio (Holm)" if adj < ALPHA else "no evidence the factor changes it (Holm)"
                )
            else:
                verdict = "differs from the baseline (Holm)" if adj < ALPHA else "no evidence of a difference (Holm)"
            out[i] = replace(r, p_adjusted=float(adj), verdict=verdict, note=_joined(r.note, holm_note))
    return out


def _bad_comparison_rows(
    out: _Collector,
    g: _Group,
    baseline: str,
    n: int,
    n_base: int | None,
    direction: str,
    note: str,
    equivalence_pct: float,
    conf: float,
) -> None:
    kw = dict(baseline=baseline, n_baseline=n_base, direction=direction, note=note)
    for stat in ("ratio_to_baseline", "overhead_pct"):
        for method in ("fieller", "bca_bootstrap"):
            out.add(_row(g, stat, method, Interval(None), n, conf_level=conf, **kw))
    out.add(
        _row(
            g,
            "equivalence",
            "tost_welch",
            Interval(None),
            n,
            conf_level=1 - 2 * ALPHA,
            verdict=f"not shown within +/-{equivalence_pct:g} % (no test)",
            **kw,
        )
    )
    out.problem(g, note)


def _compare_group(
    out: _Collector,
    key: tuple,
    grp_all: pd.DataFrame,
    kept: pd.DataFrame,
    baseline: str,
    overrides: Mapping[str, bool] | None,
    conf: float,
    equivalence_pct: float,
    n_resamples: int,
    seed: int,
    precision_target_pct: float | None,
    max_runs: int | None,
    with_mixed: bool,
) -> None:
    experiment, benchmark, metric, size = key
    platforms = sorted(grp_all["platform"].unique(), key=natural_key)
    units = {p: sorted(grp_all.loc[grp_all["platform"] == p, "unit"].unique()) for p in platforms}
    values = {p: kept.loc[kept["platform"] == p, "value"].to_numpy(dtype=float) for p in platforms}
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
        fit_mixed(kept, baseline, conf=conf)
        if with_mixed and blocked and baseline in values and len(all_units) == 1 and len(platforms) > 1
        else None
    )

    for p in platforms:
        if p == baseline:
            continue
        unit = units[p][0]
        g = _Group(experiment, benchmark, metric, size, unit, p)
        hib = resolve_direction(metric, unit, overrides)
        direction = direction_label(hib)
        x = values[p]
        n = int(x.size)
        if baseline not in values:
            _bad_comparison_rows(
                out, g, baseline, n, None, direction, f"no baseline '{baseline}' for this group", equivalence_pct, conf
            )
            continue
        y = values[baseline]
        if len(units[p]) > 1 or base_units != [unit]:
            _bad_comparison_rows(
                out,
                g,
                baseline,
                n,
                int(y.size),
                direction,
                f"units differ across platforms ({', '.join(all_units)}): ratio meaningless",
                equivalence_pct,
                conf,
            )
            continue
        if y.size == 0 or n == 0:
            _bad_comparison_rows(
                out,
                g,
                baseline,
                n,
                int(y.size),
                direction,
                f"n={n} (platform), n={y.size} (baseline) after exclusions: no ratio",
                equivalence_pct,
                conf,
            )
            continue
        if float(y.mean()) == 0.0:
            _bad_comparison_rows(
                out,
                g,
                baseline,
                n,
                int(y.size),
                direction,
                "baseline mean is zero: ratio undefined",
                equivalence_pct,
                conf,
            )
            continue
        if n < 2 or y.size < 2:
            out.problem(g, f"n={n} (platform), n={y.size} (baseline): no CI for the ratio")
        if hib is None:
            out.problem(g, f"direction unknown for unit '{unit}': say whether higher is better for metric '{metric}'")

        fieller = fieller_interval(x, y, conf)
        boot = bca_ratio_interval(
            x,
            y,
            conf=conf,
            n_resamples=n_resamples,
            rng=_rng(seed, "ratio", experiment, benchmark, metric, size, unit, p, baseline),
        )
        # The design pairs runs by block (and round): then the within-block log ratios give the
        # interval (stats/paired.py) and Fieller's, which counts block effects as noise, is kept
        # beside it for comparison. Fewer than two pairs leave the comparison to Fieller.
        pairs = pair_runs(kept[kept["platform"] == p], kept[kept["platform"] == baseline])
        paired = paired_ratio(pairs, conf=conf)
        # With several rounds per block the hierarchical bootstrap is reported beside the paired
        # t over block means, never preferred: it covers less than it claims with few blocks.
        hier = hierarchical_ratio(
            pairs,
            conf=conf,
            n_resamples=n_resamples,
            rng=_rng(seed, "paired", experiment, benchmark, metric, size, unit, p, baseline),
        )
        why_unpaired = "" if paired else f"not paired: {pairs.note or count(pairs.n_pairs, 'pair') + ', needs 2'}"
        # Fieller assumes normal means; prefer the bootstrap only when normality is doubtful
        # and both samples are large enough for BCa to be trusted.
        doubtful = shapiro_wilk(x).doubtful or shapiro_wilk(y).doubtful
        big = min(n, y.size) >= MIN_N_FOR_BOOTSTRAP
        pref_fieller = not (doubtful and big) and paired is None
        pref_boot = doubtful and big and paired is None
        kw = dict(
            baseline=baseline, n_baseline=int(y.size), direction=direction, conf_level=conf, n_pairs=pairs.n_pairs
        )
        for stat, conv in (("ratio_to_baseline", lambda iv: iv), ("overhead_pct", lambda iv: overhead_pct(iv, hib))):
            # The paired row is the one read; the hierarchical bootstrap stands beside it.
            for res, preferred in ((paired, True), (hier, False)):
                if res is not None:
                    out.add(
                        _row(
                            g,
                            stat,
                            res.method,
                            conv(res.ratio),
                            n,
                            preferred=preferred,
                            p_value=res.p_value if stat == "ratio_to_baseline" else None,
                            note=conv(res.ratio).note,
                            **kw,
                        )
                    )
            out.add(
                _row(
                    g,
                    stat,
                    "fieller",
                    conv(fieller),
                    n,
                    preferred=pref_fieller,
                    note=_joined(conv(fieller).note, why_unpaired),
                    **kw,
                )
            )
            out.add(_row(g, stat, "bca_bootstrap", conv(boot), n, preferred=pref_boot, **kw))
            if mixed is not None:
                _mixed_ratio_row(out, g, stat, conv, mixed, n, kw)
        if p == aa_label(baseline):
            chosen = paired.ratio if paired is not None else (boot if pref_boot else fieller)
            method = paired.method if paired is not None else ("bca_bootstrap" if pref_boot else "fieller")
            out.add(_aa_row(g, chosen, method, n, kw))
        if paired is not None and paired.variance is not None:
            vc = paired.variance
            base_kw = {k: v for k, v in kw.items() if k != "conf_level"}
            out.add(
                _row(
                    g,
                    "variance_between_blocks",
                    "anova",
                    Interval(vc.between_blocks),
                    n,
                    note=_joined("variance of the log ratio between blocks (cluster instances)", vc.note),
                    **base_kw,
                )
            )
            out.add(
                _row(
                    g,
                    "variance_within_block",
                    "anova",
                    Interval(vc.within_block),
                    n,
                    note=_joined("variance of the log ratio between rounds of one block", vc.note),
                    **base_kw,
                )
            )

        t = tost_ratio(x, y, equivalence_pct, ALPHA)
        tnote = t.note or (
            f"H0 ratio outside [{1 - equivalence_pct / 100:g}, {1 + equivalence_pct / 100:g}]; "
            f"p_lower={t.p_lower:.4g}, p_upper={t.p_upper:.4g}; CI is the dual {1 - 2 * ALPHA:.0%} Fieller interval"
        )
        if t.ratio.note:
            tnote = f"{tnote}; {t.ratio.note}"
        eq_kw = {**kw, "conf_level": 1 - 2 * ALPHA}
        if paired is not None:
            pt = paired_tost(pairs, equivalence_pct, ALPHA)
            pnote = pt.note or (
                f"H0 ratio outside [{1 - equivalence_pct / 100:g}, {1 + equivalence_pct / 100:g}] on the "
                f"paired log ratio; p_lower={pt.p_lower:.4g}, p_upper={pt.p_upper:.4g}; "
                f"CI is the dual {1 - 2 * ALPHA:.0%} {paired.method} interval"
            )
            out.add(
                _row(
                    g,
                    "equivalence",
                    paired.method,
                    pt.ratio,
                    n,
                    p_value=pt.p_value,
                    preferred=True,
                    verdict=equivalence_verdict(baseline, equivalence_pct, pt.equivalent),
                    note=pnote,
                    **eq_kw,
                )
            )
        out.add(
            _row(
                g,
                "equivalence",
                "tost_welch",
                t.ratio,
                n,
                p_value=t.p_value,
                preferred=False if paired is not None else None,
                verdict=equivalence_verdict(baseline, equivalence_pct, t.equivalent),
                note=_joined(tnote, why_unpaired),
                **eq_kw,
            )
        )
        if precision_target_pct is not None:
            base_kw = {k: v for k, v in kw.items() if k != "conf_level"}
            if paired is not None:
                hw = paired.ratio.relative_half_width()
                hw_pct = None if hw is None else 100 * hw
                reached = hw_pct is not None and hw_pct <= precision_target_pct
                out.add(
                    _row(
                        g,
                        "ratio_ci_halfwidth_pct",
                        paired.method,
                        Interval(hw_pct),
                        n,
                        verdict="stop_reached" if reached else "continue",
                        note=f"target +/-{precision_target_pct:g} %: {'reached' if reached else 'not reached'}; "
                        "add blocks (or rounds, where the within-block variance dominates)",
                        **base_kw,
                    )
                )
            a = assess_ratio(x, y, precision_target_pct, conf=conf, max_runs=max_runs)
            out.add(
                _row(
                    g,
                    "ratio_ci_halfwidth_pct",
                    "fieller",
                    Interval(a.half_width_pct),
                    n,
                    verdict=a.decision,
                    note=_precision_note(a),
                    **base_kw,
                )
            )

    if len(platforms) < 2:
        return
    g = _Group(
        experiment, benchmark, metric, size, all_units[0] if len(all_units) == 1 else ",".join(all_units), ALL_PLATFORMS
    )
    if isinstance(mixed, MixedFit):
        _mixed_variance_rows(
            out, g, mixed, baseline, direction_label(resolve_direction(metric, all_units[0], overrides))
        )
    direction = (
        direction_label(resolve_direction(metric, all_units[0], overrides)) if len(all_units) == 1 else "unknown"
    )
    total = int(sum(v.size for v in values.values()))
    if len(all_units) > 1:
        note = f"units differ across platforms ({', '.join(all_units)}): no test"
        for method in ("welch_anova", "kruskal_wallis"):
            out.add(_row(g, "platform_effect", method, Interval(None), total, direction=direction, note=note))
        return
    for method, res in (("welch_anova", welch_anova(values)), ("kruskal_wallis", kruskal_wallis(values))):
        verdict = (
            ""
            if res.p_value is None
            else (f"platforms differ (p < {ALPHA:g})" if res.p_value < ALPHA else "no evidence platforms differ")
        )
        dfs = "df=" + ", ".join(f"{d:.4g}" for d in res.df) if res.df else ""
        out.add(
            _row(
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
    for pr in pairwise_welch(values, conf):
        pg = replace(g, platform=pr.first)
        verdict = (
            ""
            if pr.p_adjusted is None
            else ("differ (Holm)" if pr.p_adjusted < ALPHA else "no evidence of a difference")
        )
        out.add(
            _row(
                pg,
                "mean_difference",
                "welch_t",
                pr.difference,
                int(values[pr.first].size),
                baseline=pr.second,
                n_baseline=int(values[pr.second].size),
                conf_level=conf,
                p_value=pr.p_value,
                p_adjusted=pr.p_adjusted,
                verdict=verdict,
                direction=direction,
                note=pr.note,
            )
        )


def _interaction_rows(
    out: _Collector,
    key: tuple,
    kept: pd.DataFrame,
    baseline: str,
    overrides: Mapping[str, bool] | None,
    conf: float,
) -> None:
    """For every two cells that differ in one factor's level and every platform run at both beside
    the baseline: the ratio of its paired ratios to the baseline (vbench.stats.interaction), in
    the row of the other cell. Nothing for designs without blocks or factors."""
    experiment, benchmark, metric = key
    if BLOCK not in kept.columns or not kept[BLOCK].notna().any():
        return
    for lp in level_pairs(kept["size"].astype(str).unique()):
        ref, oth = kept[kept["size"] == lp.reference], kept[kept["size"] == lp.other]
        both = set(ref["platform"]) & set(oth["platform"])
        if baseline not in both:
            continue
        runs = pd.concat([ref, oth])
        for p in sorted(both - {baseline}, key=natural_key):
            units = set(runs.loc[runs["platform"].isin([p, baseline]), "unit"])
            if len(units) != 1:
                continue
            unit = units.pop()
            g = _Group(experiment, benchmark, metric, lp.other, unit, p)
            what = (
                f"ratio to {baseline} at {lp.other} over the ratio at {lp.reference} "
                f"({lp.factor} x platform), paired on block"
            )
            res = interaction_ratio(
                pair_runs(ref[ref["platform"] == p], ref[ref["platform"] == baseline]),
                pair_runs(oth[oth["platform"] == p], oth[oth["platform"] == baseline]),
                conf=conf,
            )
            kw = dict(
                baseline=baseline,
                conf_level=conf,
                direction=direction_label(resolve_direction(metric, unit, overrides)),
            )
            if isinstance(res, str):
                out.add(_row(g, INTERACTION, PAIRED_T, Interval(None), None, note=f"{what}: {res}", **kw))
                continue
            out.add(
                _row(
                    g,
                    INTERACTION,
                    PAIRED_T,
                    res.ratio,
                    res.n_blocks,
                    n_pairs=res.n_blocks,
                    p_value=res.p_value,
                    preferred=True,
                    note=f"{what}: t on {res.n_blocks} blocks' differences of mean log ratios",
                    **kw,
                )
            )


def _aa_row(g: _Group, ratio: Interval, method: str, n: int, kw: dict) -> StatRow:
    """The A/A self-check: the baseline measured twice, as two configurations, must not differ
    from itself; a ratio whose interval misses 1 says the campaign finds differences that are not
    there (a false positive at the 5 % level, or a machine that drifted)."""
    if not ratio.bounded:
        verdict, note = "A/A: no interval", ratio.note or "no interval for the A/A ratio"
    elif ratio.low <= 1.0 <= ratio.high:
        verdict, note = "A/A passes: 1 is inside the interval", ""
    else:
        verdict, note = (
            "A/A FAILS: the baseline differs from itself",
            ("the campaign's own false-positive check: read every comparison with care"),
        )
    return _row(
        g,
        "aa_check",
        method,
        ratio,
        n,
        verdict=verdict,
        note=_joined(f"the baseline run twice, as two configurations; {method} interval", note),
        **kw,
    )


def _mixed_ratio_row(out: _Collector, g: _Group, stat: str, conv, mixed: MixedFit | NoFit, n: int, kw: dict) -> None:
    """The mixed model's ratio (or overhead) of `g.platform`, or an empty row saying why there is none."""
    if isinstance(mixed, NoFit) or g.platform not in mixed.ratios:
        why = mixed.reason if isinstance(mixed, NoFit) else mixed.left_out.get(g.platform, "not in the mixed model")
        out.add(_row(g, stat, MIXED, Interval(None), n, preferred=False, note=why, **kw))
        return
    mr = mixed.ratios[g.platform]
    iv = conv(mr.ratio)
    out.add(
        _row(
            g,
            stat,
            MIXED,
            iv,
            n,
            preferred=False,
            p_value=mr.p_value if stat == "ratio_to_baseline" else None,
            note=_joined(iv.note, _mixed_note(mixed, mr.n_blocks)),
            **kw,
        )
    )


def _mixed_note(fit: MixedFit, n_blocks: int) -> str:
    levels = "block and cluster instance random" if fit.variance.instance is not None else "block random"
    return _joined(
        f"log metric, platform fixed, {levels}; {fit.n_units} observations in {fit.n_blocks} blocks; "
        f"Wald interval with t on {n_blocks - 1} df",
        fit.note,
    )


def _mixed_variance_rows(out: _Collector, g: _Group, fit: MixedFit, baseline: str, direction: str) -> None:
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
            _row(
                g,
                stat,
                MIXED,
                Interval(value),
                fit.n_units,
                baseline=baseline,
                direction=direction,
                note=_joined(f"variance of the log metric {what}; {100 * share[part]:.0f} % of the total", fit.note),
            )
        )


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
    df = validate_samples(samples, source=samples.attrs.get("source", "samples"))
    kept, excluded, rule = apply_exclusions(df, drop_first_n)
    out = _Collector()

    # Groups come from all rows, so a group whose every run was excluded still gets a row.
    for key, grp_all in df.groupby(SAMPLE_KEY, sort=False):
        experiment, platform, benchmark, metric, unit, size = key
        g = _Group(experiment, benchmark, metric, size, unit, platform)
        in_kept = grp_all.index.isin(kept.index)
        _describe_group(
            out,
            g,
            grp_all[in_kept],
            grp_all[~in_kept],
            rule,
            direction_label(resolve_direction(metric, unit, higher_is_better)),
            conf,
            n_resamples,
            seed,
            outlier_threshold,
            precision_target_pct,
            max_runs,
        )

    for key, grp_all in df.groupby(COMPARISON_KEY, sort=False):
        _compare_group(
            out,
            key,
            grp_all,
            grp_all[grp_all.index.isin(kept.index)],
            baseline,
            higher_is_better,
            conf,
            equivalence_pct,
            n_resamples,
            seed,
            precision_target_pct,
            max_runs,
            mixed,
        )

    for key, grp in kept.groupby(["experiment", "benchmark", "metric"], sort=False):
        _interaction_rows(out, key, grp, baseline, higher_is_better, conf)

    if strict and out.problems:
        more = f" (and {len(out.problems) - 1} more)" if len(out.problems) > 1 else ""
        raise VbenchError(f"{out.problems[0]}{more}")
    rows = sorted(_holm_across(out.rows, equivalence_pct), key=lambda r: _sort_key(r, baseline))
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


FLOAT_FORMAT = "%.10g"


def format_table(table: pd.DataFrame) -> str:
    """CSV text with a fixed float format, so equal tables give equal bytes."""
    buf = io.StringIO()
    table.to_csv(buf, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    return buf.getvalue()


def write_table(table: pd.DataFrame, path: str | Path) -> None:
    Path(path).write_text(format_table(table), encoding="utf-8")

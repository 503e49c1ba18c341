"""The statistics table's verdict columns: equivalence (TOST), Holm's correction across a
campaign's claims, the A/A self-check, and whether an interval reached its precision target.

Above `rows`; the passes that make comparison rows (`groups`, `comparisons`) and
`compute_stats` (Holm, once every row is made) read them.
"""

from __future__ import annotations

from dataclasses import replace

from vbench.stats.adaptive import PrecisionAssessment
from vbench.stats.hypothesis import holm
from vbench.stats.interaction import INTERACTION
from vbench.stats.paired import PAIRED_METHODS
from vbench.stats.records import Interval, StatRow
from vbench.stats.table.rows import ALPHA, Group, joined, stat_row
from vbench.wording import noun


def equivalence_verdict(baseline: str, equivalence_pct: float, equivalent: bool) -> str:
    who = "near-native" if baseline == "native" else f"equivalent to '{baseline}'"
    return (
        f"{who} (TOST, {equivalence_pct:g} % bound)"
        if equivalent
        else f"not shown within +/-{equivalence_pct:g} % (TOST)"
    )


#: How `holm_across` opens the part of a row's note that names its Holm family and its size.
HOLM_NOTE = "Holm over the "


def holm_across(rows: list[StatRow], equivalence_pct: float) -> list[StatRow]:
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
            holm_note = f"{HOLM_NOTE}{len(idx)} {tests[fam]}"
            if fam == "equivalence":
                verdict = equivalence_verdict(r.baseline, equivalence_pct, bool(adj < ALPHA))
            elif fam == INTERACTION:
                verdict = (
                    "the factor changes the ratio (Holm)" if adj < ALPHA else "no evidence the factor changes it (Holm)"
                )
            else:
                verdict = "differs from the baseline (Holm)" if adj < ALPHA else "no evidence of a difference (Holm)"
            out[i] = replace(r, p_adjusted=float(adj), verdict=verdict, note=joined(r.note, holm_note))
    return out


def aa_row(g: Group, ratio: Interval, method: str, n: int, kw: dict) -> StatRow:
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
    return stat_row(
        g,
        "aa_check",
        method,
        ratio,
        n,
        verdict=verdict,
        note=joined(f"the baseline run twice, as two configurations; {method} interval", note),
        **kw,
    )


def precision_note(a: PrecisionAssessment) -> str:
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
    return joined(f"{head}: {tail}", a.note)


def precision_row(g: Group, statistic: str, method: str, a: PrecisionAssessment, n: int, **kw) -> StatRow:
    """Whether an interval's half-width reached the precision target (vbench.stats.adaptive), and
    about how many more runs it needs if not: the `mean_ci_halfwidth_pct` row of a group, the
    `ratio_ci_halfwidth_pct` row of a comparison."""
    return stat_row(
        g, statistic, method, Interval(a.half_width_pct), n, verdict=a.decision, note=precision_note(a), **kw
    )

"""The discussion's numbers (issue #54 item 1): what the campaigns say together, not one table at a time.

A reader of the results sections sees one comparison after another; the discussion says what they
add up to, and every count it states is computed here from the statistics table, never typed:

* how the containers' comparisons with native hosts came out under the table's own verdicts (Holm's
  correction over each campaign's paired tests, and the equivalence test within the stated margin):
  differed, shown near native, or neither (`container_tally`);
* how often the baseline differed from itself in the A/A checks, beside what chance lets through at
  the intervals' level (`aa_sentence`);
* how far apart the campaigns that measured the same comparison landed (`spread_sentence`);
* what Holm's correction made of one quoted interval (`holm_clause`), for a surprise the text names;
* the hypervisor under the machine every host runs on (`hypervisor_text`), for the threats to validity.

The verdicts are the statistics table's (`vbench.report.rows`, as `vbench report` reads them), so the
paper and the terminal cannot disagree. Pure functions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pandas as pd

from vbench.report.rows import aa_checks, ratios
from vbench.stats.paired import PAIRED_METHODS
from vbench.stats.table.rows import ALPHA

from vbench.paper import abstract as A
from vbench.paper.fmt import and_list, sig_digits, tex_escape
from vbench.paper.results import StatisticsLookup
from vbench.wording import was


@dataclass(frozen=True)
class Tally:
    """The paired comparisons of some platforms with the baseline, by the table's verdicts."""

    platforms: tuple[str, ...]  # those that were compared, in the order given
    compared: int
    differ: int  # Holm over the campaign's paired tests rejects ratio = 1
    equivalent: int  # the equivalence test (after Holm) puts the ratio within the margin
    neither: int
    differ_by_benchmark: tuple[tuple[str, int], ...]  # where the differences fell, most first


def container_tally(stats: StatisticsLookup, baseline: str, equivalence_pct: float, platforms=A.CONTAINERS) -> Tally:
    """Every paired comparison of `platforms` with `baseline` in the (merged) statistics table, every
    metric and cell: a comparison without a paired test (Fieller's, unpaired runs) has no Holm
    verdict and is not counted."""
    found = [
        r
        for r in ratios(stats.table, None, equivalence_pct)
        if r.level in platforms and r.baseline == baseline and r.holm_differs is not None
    ]
    differ = [r for r in found if r.holm_differs]
    where = Counter(r.benchmark for r in differ)
    return Tally(
        platforms=tuple(p for p in platforms if any(r.level == p for r in found)),
        compared=len(found),
        differ=len(differ),
        equivalent=sum(r.equivalent for r in found),
        neither=sum(not r.holm_differs and not r.equivalent for r in found),
        differ_by_benchmark=tuple(sorted(where.items(), key=lambda kv: (-kv[1], A.benchmark_name(kv[0])))),
    )


def tally_sentence(t: Tally, baseline: str, equivalence_pct: str) -> str:
    """ "Across the campaigns, LXC and OCI were compared with native hosts, paired by block, on 422
    metrics and cells: 8 differed after Holm's correction (4 in TestDFSIO, 2 in Pi and 2 in
    WordCount), 7 were shown within ±5 % of native hosts, and the other 407 were neither." Empty when
    nothing was compared."""
    if not t.compared:
        return ""
    who = and_list([A.reader_name(p) for p in t.platforms])
    where = (
        " (" + and_list([f"{n} in {A.benchmark_name(b)}" for b, n in t.differ_by_benchmark]) + ")" if t.differ else ""
    )
    return (
        f"Across the campaigns, {who} {was(len(t.platforms))} compared with {A.reader_name(baseline)}, paired "
        f"by block, on {t.compared} metrics and cells: {t.differ} differed after Holm's correction{where}, "
        rf"{t.equivalent} {was(t.equivalent)} shown within $\pm${equivalence_pct}\,\% of "
        f"{A.reader_name(baseline)}, and the other {t.neither} {was(t.neither)} neither."
    )


def expected_by_chance(checks: int, conf: float) -> str:
    """How many of `checks` intervals at level `conf` miss the truth by chance, as the text says it:
    a whole number from one on ("2" for 39 at 95 %), one digit below ("0.6")."""
    x = checks * (1.0 - conf)
    return f"{x:.0f}" if x >= 0.95 else sig_digits(x, 1)


def aa_sentence(stats: StatisticsLookup, baseline: str, conf: float) -> str:
    """ "Native hosts measured again as a configuration of their own differed from themselves (an
    interval excluding 1) on 2 of 39 metrics, about the 2 that 95 % intervals let through by chance."
    Only A/A checks with an interval count; empty when the campaigns ran none."""
    checks = [a for a in aa_checks(stats.table, None) if a.passes is not None]
    if not checks:
        return ""
    failed = sum(not a.passes for a in checks)
    return (
        f"{A.reader_name(baseline)[0].upper()}{A.reader_name(baseline)[1:]} measured again as a configuration "
        f"of their own differed from themselves (an interval excluding 1) on {failed} of {len(checks)} "
        "metrics, about the "
        rf"{expected_by_chance(len(checks), conf)} that {sig_digits(conf * 100, 2)}\,\% intervals let through "
        "by chance."
    )


def _paired(row: pd.Series) -> bool:
    return str(row.get("method")) in PAIRED_METHODS


def _holm_differs(row: pd.Series) -> bool | None:
    """Holm's verdict on a paired comparison (None: no paired test, no adjusted p-value)."""
    p = pd.to_numeric(pd.Series([row.get("p_adjusted")]), errors="coerce").iloc[0]
    return None if not _paired(row) or pd.isna(p) else bool(p < ALPHA)


def spread_sentence(
    stats: StatisticsLookup,
    platform: str,
    baseline: str,
    benchmark: str = A.QUOTED[0],
    metric: str = A.QUOTED[1],
    name: str = A.QUOTED[2],
) -> str:
    """ "The 7 campaigns that compared LXC with native hosts on TeraSort gave ratios from 0.857 to
    1.01; 1 of their 7 intervals excluded 1, and none differed after Holm's correction." The
    comparisons are those the abstract chose its quote among (`abstract.compared_in`). Empty with
    fewer than two."""
    found = A.compared_in(stats, platform, baseline, benchmark, metric)
    if len(found) < 2:
        return ""
    ests = sorted(float(c.row["estimate"]) for c in found)
    excluding = sum(not (float(c.row["ci_low"]) <= 1.0 <= float(c.row["ci_high"])) for c in found)
    holm = [_holm_differs(c.row) for c in found]
    tested = [h for h in holm if h is not None]
    campaigns = len({c.campaign for c in found})
    intervals = f"{excluding} of their {len(found)} intervals excluded 1"
    if tested:
        differed = sum(tested)
        after = "none" if not differed else f"{differed} of {len(tested)}"
        intervals += f", and {after} differed after Holm's correction"
    low, high = (sig_digits(e, 3) for e in (ests[0], ests[-1]))
    return (
        f"The {campaigns} campaigns that compared {A.reader_name(platform)} with {A.reader_name(baseline)} on "
        rf"{name} gave ratios from \num{{{low}}} to \num{{{high}}}; {intervals}."
    )


def holm_clause(row: pd.Series | None) -> str:
    """What the table's verdicts make of one quoted ratio, as a clause: its interval holds 1; it
    excludes 1 but Holm's correction over its campaign's comparisons does not confirm it; or it
    excludes 1 and Holm confirms it. "" without a bounded ratio."""
    if row is None or any(pd.isna(row.get(k)) for k in ("estimate", "ci_low", "ci_high")):
        return ""
    if float(row["ci_low"]) <= 1.0 <= float(row["ci_high"]):
        return "its interval holds 1"
    holm = _holm_differs(row)
    if holm is None:
        return "its interval excludes 1 (the runs were not paired, so no correction applies)"
    if holm:
        return "its interval excludes 1, and so does Holm's correction over its campaign's comparisons"
    return "its interval excludes 1, but not after Holm's correction over its campaign's comparisons"


def hypervisor_text(recorded: list[str]) -> str:
    """The hypervisor the hosts saw beneath the machine's kernel (their facts' `virt_vm`, as
    recorded), as a reader writes it ("KVM"); "" when none was. Hosts on one machine report one."""
    names = {"kvm": "KVM", "xen": "Xen", "vmware": "VMware", "microsoft": "Hyper-V", "qemu": "QEMU"}
    seen = sorted({v.strip().lower() for v in recorded if v.strip() and v.strip().lower() != "none"})
    return and_list([names.get(v, tex_escape(v)) for v in seen]) if seen else ""

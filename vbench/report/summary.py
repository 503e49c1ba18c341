"""A campaign's summary as records, and what each says in words. Pure.

The records are read from the statistics stage's table by `vbench.report.rows`. The verdict of a
comparison follows the table's own rule, never a second one:

* equivalent: the preferred TOST row rejects both one-sided hypotheses after Holm (the paper's
  "near-native" rule, `vbench.stats.table.verdicts.holm_across`);
* differs: the preferred 95 % interval excludes 1 (the paper's rule for a direction, `vbench.paper.
  delta`); where Holm over every paired test of the campaign (hundreds, counters aside) does not
  confirm it, the verdict says so: with three blocks no p-value survives that many tests, and a
  3x ratio whose interval is [3.0, 3.6] is still a difference;
* not distinguishable: the interval holds 1.

The A/A line reads the table's `aa_check` row: the baseline against its own copy; the half-width
of that interval is the smallest difference this campaign could have told apart today.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from vbench.samples import RATE_UNITS, TIME_UNITS, is_aa
from vbench.stats.duet import DuetSummary
from vbench.stats.dvc_views import benchmark_key
from vbench.stats.headlines import HEADLINES
from vbench.stats.quiet import QuietCounts
from vbench.wording import count

#: From this factor on, a ratio reads as "3.1x slower" rather than "210 % slower".
FACTOR_FROM = 2.0
#: How platforms are written in a sentence (the paper's names; anything else as recorded).
DISPLAY = {"native": "native", "lxc": "LXC", "oci": "OCI", "qemu": "QEMU", "gvisor": "gVisor"}
#: The runner's `benchmark_kind` -> the pipeline stage that measures it.
KIND_STAGE = {"micro": "calibrate (micro-benchmarks)", "hadoop": "hadoop-suite (Hadoop jobs)"}

EQUIVALENT, DIFFERS, UNCLEAR, NO_INTERVAL = "equivalent", "differs", "not distinguishable", "no interval"


def display(level: str, compare: tuple[str, ...] = ("platform",)) -> str:
    """`LXC`, `native (A/A copy)`, or `network.mode=nat` for a factor study's level."""
    if compare != ("platform",):
        return f"{'/'.join(compare)}={level}"
    if is_aa(level):
        return f"{display(level[: -len('~aa')])} (A/A copy)"
    return DISPLAY.get(level, level)


@dataclass(frozen=True)
class Verdict:
    kind: str  # EQUIVALENT, DIFFERS, UNCLEAR or NO_INTERVAL
    text: str


@dataclass(frozen=True)
class CellRatio:
    """A level's ratio to the baseline in one cell with the table's interval and method: what a
    headline comparison, an A/A check and the explore notebook's comparison (`vbench.explore.
    compare.Ratio`) are all read as, by `vbench.report.rows.cell_ratio_fields`."""

    benchmark: str
    cell: str
    metric: str
    level: str
    baseline: str
    ratio: float | None
    low: float | None
    high: float | None
    method: str
    n: int | None

    @property
    def label(self) -> str:
        """`terasort[128MB] terasort_time lxc/native`, as `dvc metrics show` names it."""
        return f"{benchmark_key(self.benchmark, self.cell)} {self.metric} {self.level}/{self.baseline}"

    @property
    def bounded(self) -> bool:
        return self.ratio is not None and self.low is not None and self.high is not None


@dataclass(frozen=True)
class Ratio(CellRatio):
    """One headline comparison: a level against the baseline in one cell, as the table says it."""

    experiment: str
    unit: str
    n_baseline: int | None
    n_pairs: int | None
    #: The preferred TOST row's verdict after Holm says equivalent within the bound.
    equivalent: bool
    #: Holm over the campaign's paired tests of ratio = 1 (None: not in that family, e.g. Fieller).
    holm_differs: bool | None
    equivalence_pct: float
    note: str = ""
    compare: tuple[str, ...] = ("platform",)

    @property
    def covers_one(self) -> bool:
        return self.bounded and self.low <= 1.0 <= self.high

    def counts(self) -> str:
        """`n 4/4, 4 pairs`: the runs on each side and the pairs behind a paired interval."""
        n = f"n {_count(self.n)}/{_count(self.n_baseline)}"
        return n + (f", {self.n_pairs} pairs" if self.n_pairs is not None else "")


@dataclass(frozen=True)
class AACheck(CellRatio):
    """The baseline against its own copy in one cell (the table's `aa_check` row)."""

    @property
    def passes(self) -> bool | None:
        """The check passes when its interval holds 1 (None: no interval)."""
        if self.low is None or self.high is None:
            return None
        return self.low <= 1.0 <= self.high

    @property
    def half_width_pct(self) -> float | None:
        """(high - low) / 2 / ratio in %: below this, a difference is inside the campaign's noise."""
        if not self.bounded or not self.ratio:
            return None
        return 100 * (self.high - self.low) / 2 / self.ratio


@dataclass(frozen=True)
class Mean:
    """A metric's mean with its interval, for a campaign that compares nothing (one platform)."""

    benchmark: str
    cell: str
    metric: str
    unit: str
    level: str
    mean: float | None
    low: float | None
    high: float | None
    method: str
    n: int | None


@dataclass(frozen=True)
class Probe:
    """The quiet gate's CPU probe against this machine's reference (vbench.campaign.machine_ref)."""

    vs_reference: float | None  # median probe / reference; None: not known
    text: str


@dataclass(frozen=True)
class StageTime:
    stage: str
    seconds: float
    source: str  # where the time was read: the executed notebook, suite.json, the samples' timestamps


@dataclass(frozen=True)
class Settings:
    """The statistics' settings the summary's numbers were computed with, and where they came from."""

    baseline: str
    equivalence_pct: float
    n_resamples: int
    seed: int
    source: str  # e.g. "data/processed/reference/stats.parquet" or "computed now"


@dataclass(frozen=True)
class CampaignSummary:
    campaign: str
    path: str
    compare: tuple[str, ...]
    settings: Settings
    ratios: tuple[Ratio, ...]
    aa: tuple[AACheck, ...]
    #: Only for a campaign without comparisons: each platform's means.
    means: tuple[Mean, ...] = ()
    #: False when the campaign measured none of the headline metrics and every compared metric is shown.
    headline_only: bool = True
    runs: int = 0
    failures: int = 0
    #: When the samples were measured: `2026-11-24`, or `2026-11-24 to 2026-11-25` (UTC).
    measured: str = ""
    quiet: QuietCounts | None = None
    probe: Probe | None = None
    #: How together a duet campaign's sides ran (vbench.stats.duet); None: no duet runs.
    duet: DuetSummary | None = None
    times: tuple[StageTime, ...] = ()
    #: (what, where) pointers, in the order to read them.
    next_steps: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def baseline(self) -> str:
        return self.settings.baseline


# --- verdicts --------------------------------------------------------------------------------


def _words(unit: str) -> tuple[str, str]:
    """(word for a ratio above 1, word below 1): a time up is slower, a rate up is faster."""
    if unit in TIME_UNITS:
        return "slower", "faster"
    if unit in RATE_UNITS:
        return "faster", "slower"
    return "higher", "lower"


def change_text(r: Ratio) -> str:
    """`LXC is 4.7 % slower [-2.2, +12.0]`, `gVisor is 3.1x slower [2.8x, 3.4x]`: the ratio in
    the direction of its estimate, the interval in the same sense (a negative bound: the other way)."""
    who = display(r.level, r.compare)
    if r.ratio is None:
        return f"{who}: no ratio"
    up, down = _words(r.unit)
    above = r.ratio >= 1.0
    word = up if above else down
    factor = r.ratio if above else 1 / r.ratio if r.ratio > 0 else math.inf
    if factor >= FACTOR_FROM and r.ratio > 0:
        if not r.bounded:
            return f"{who} is {factor:.1f}x {word}"
        lo, hi = (r.low, r.high) if above else (1 / r.high, 1 / r.low if r.low > 0 else math.inf)
        return f"{who} is {factor:.1f}x {word} [{lo:.1f}x, {hi:.1f}x]"
    amount = 100 * (r.ratio - 1) if above else 100 * (1 - r.ratio)
    if not r.bounded:
        return f"{who} is {amount:.1f} % {word}"
    lo, hi = (100 * (r.low - 1), 100 * (r.high - 1)) if above else (100 * (1 - r.high), 100 * (1 - r.low))
    return f"{who} is {amount:.1f} % {word} [{lo:+.1f}, {hi:+.1f}]"


def verdict(r: Ratio) -> Verdict:
    """The plain verdict of one comparison, by the statistics' own rule (see the module doc)."""
    base = display(r.baseline, r.compare)
    if not r.bounded:
        return Verdict(NO_INTERVAL, f"no interval{': ' + r.note if r.note else ''}")
    if r.equivalent:
        return Verdict(EQUIVALENT, f"equivalent to {base} within +/-{r.equivalence_pct:g} % (TOST)")
    if r.covers_one:
        return Verdict(UNCLEAR, f"not distinguishable from {base} at this precision")
    up, down = _words(r.unit)
    caveat = " (by its interval; Holm over all the campaign's paired tests does not confirm it)"
    return Verdict(
        DIFFERS, f"measurably {up if r.ratio > 1 else down} than {base}{caveat if r.holm_differs is False else ''}"
    )


def sentence(r: Ratio) -> str:
    """`LXC is 4.7 % slower [-2.2, +12.0]: not distinguishable from native at this precision`."""
    return f"{change_text(r)}: {verdict(r).text}"


def aa_text(a: AACheck) -> str:
    """What the A/A row says: passes or fails, and the smallest difference told apart today."""
    if a.passes is None:
        return "no interval for the A/A ratio"
    hw = a.half_width_pct
    noise = f"; differences under about {about(hw)} % cannot be told apart" if hw is not None else ""
    if a.passes:
        return f"passes (1 is inside){noise}"
    return f"FAILS: {a.baseline} differs from itself; read every comparison with care{noise}"


def noise_text(aa: tuple[AACheck, ...], measured: str = "") -> str:
    """The campaign's A/A sentence: this machine's noise on the days it measured, from the A/A
    intervals' half-widths."""
    widths = sorted(hw for a in aa if (hw := a.half_width_pct) is not None)
    if not aa:
        return "no A/A copy in this design: its own noise was not measured (a design's `aa: true` adds one)"
    if not widths:
        return "the A/A checks have no interval: this campaign's own noise is not known"
    span = f"about {about(widths[0])} %" if len(widths) == 1 else f"about {about(statistics.median(widths))} %"
    failed = sum(a.passes is False for a in aa)
    tail = (
        f" (median of {len(widths)} metrics' A/A half-widths, {about(widths[0])}-{about(widths[-1])} %)"
        if len(widths) > 1
        else ""
    )
    checks = f"A/A passes on {len(aa) - failed} of {len(aa)} metrics" + (
        f", FAILS on {failed}: read every comparison with care" if failed else ""
    )
    when = f"on {measured}" if measured else "in this campaign"
    return f"{checks}; this machine's noise {when}: differences under {span} cannot be told apart{tail}"


def step_label(step: str) -> str:
    """A job step as the paper names it (`terasort` -> `TeraSort`, by its headline), else as recorded."""
    return next((stem for _, metric, stem, _ in HEADLINES if metric == f"{step}_time"), step)


def duet_text(d: DuetSummary) -> str:
    """`12 groups of 3 sides; TeraSort jobs started within 0.8 s (median, max 2.1 s), ran together
    93 % of the longest (median, min 80 %)`, with the barrier's release skew when recorded and the
    duets a failed side left out."""
    text = (
        f"{count(d.groups, 'group')} of {count(d.sides, 'side')}; {step_label(d.step)} jobs started within "
        f"{d.median_skew_s:.1f} s (median, max {d.max_skew_s:.1f} s), ran together "
        f"{100 * d.median_overlap:.0f} % of the longest (median, min {100 * d.min_overlap:.0f} %)"
    )
    if d.median_release_skew_s is not None:
        text += f"; barrier released the sides within {d.median_release_skew_s:.2f} s (median)"
    if d.incomplete:
        text += f"; {count(d.incomplete, 'group')} with a side that measured nothing left out"
    return text


def about(pct: float) -> str:
    """A percentage as said with "about": one decimal below 10, whole above."""
    return f"{pct:.1f}" if pct < 10 else f"{pct:.0f}"


def _count(v) -> str:
    return "?" if v is None else str(v)


def split_aa(rs: tuple[Ratio, ...]) -> tuple[Ratio, ...]:
    """The comparisons a reader came for: every level but the A/A copies (their line is the A/A's)."""
    return tuple(r for r in rs if not is_aa(r.level))


def duration_text(seconds: float) -> str:
    """`31.2 min`, `45 s`, `1.5 h`."""
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 90:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.0f} s"

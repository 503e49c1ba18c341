"""The reproduction delta: each published finding beside what this campaign measured.

Findings are data (`params/published.yaml`, validated by `vbench.paper.published`, read by
`load_published`). For each, `evaluate` selects the samples of the study's own platforms (a
campaign on an inventory labelled kvm, openvz...) or else of the two local stand-ins, by the
platform of the machine measured (`machine_platform`: a mixed cluster's node, a comparison view's
host platform) and the side's `where` levels (metadata, `factor.*` or a compared `level.*`),
compares them at one cell (same campaign and experiment, same data size and other factors), and computes the ratio of means with its
Fieller interval (`vbench.stats.ratio.fieller_interval`, the interval the statistics table
uses), or, where the two sides ran in the same blocks, the paired ratio of `vbench.stats.paired`
(the table marks those rows). The verdict rule (`verdict_of`, then `apply_holm`), stated in
the paper once by `rule_tex` (issue #54 item 2):

* magnitude claims (the study gives a figure): reproduced when the CI lies inside the band (the
  study's range, else r +/- t % of r with t narrowed so that the band never reaches past 1),
  contradicted when it lies entirely outside, inconclusive when it straddles an edge (interval
  inclusion, the confidence-interval form of an equivalence test);
* equivalence claims ("near native", "the same", "does not slow", margin m %, the paper's unless
  the study's claim is wider): reproduced when the CI lies inside [1 - m/100, 1 + m/100],
  contradicted when it lies entirely outside, inconclusive when it straddles an edge;
* direction claims (only where the study gives no figure; expect less/greater): reproduced when
  the CI of mean(A)/mean(B) excludes 1 on the published side, contradicted when it excludes 1 on
  the other side, inconclusive when it contains 1 or is unbounded;
* Holm: each verdict's p-value (`verdict_p_value`) is Holm-adjusted over the findings with an
  interval; a verdict whose adjusted p exceeds 1 - conf becomes inconclusive;
* not measured: a side has no samples or no local stand-in, or both sides are the same local
  platform with the same selection, so there is nothing to compare;
* a campaign measured in part: where the comparison is made in a finding's own campaign (the one
  its `test.design` writes) and that design's cells are not all done (a campaign run in parts,
  `budget_minutes`), the finding is inconclusive whatever its interval, with no p-value (outside
  Holm's family): a verdict read from a part would be optional stopping
  (`design_progress_by_campaign`, `measured_in_part`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np
import pandas as pd

from vbench.stats.compare import LEVEL
from vbench.stats.hypothesis import holm
from vbench.stats.keys import natural_key
from vbench.stats.tidy import FACTOR_COLUMNS, is_size_factor, size_key, split_size_key, stamp_mapping, value_text
from vbench.stats.paired import (
    FIELLER,
    MAX_BLOCKS_TO_CLEAR,
    PAIRED_T_ROUNDS,
    blocks_to_clear,
    pair_runs,
    preferred_ratio,
)
from vbench.stats.ratio import fieller_interval
from vbench.wording import configuration_name, metric_name

from vbench.paper.fmt import (
    NOT_MEASURED,
    and_list,
    digits_display,
    interval_text,
    plain_number,
    size_display,
    tex_escape,
)
from vbench.paper.published import (
    NEED_TEXT,
    FindingSpec,
    PublishedSpec,
    SideSpec,
    check_commands,
    magnitude_band,
    margin_problems,
    paper_margin_pct,
    read_published,
    validate_published,
)

if TYPE_CHECKING:
    from vbench.campaign.completeness import DesignProgress

REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_MEASURED_VERDICT = (
    "reproduced",
    "contradicted",
    "inconclusive",
    "not measured",
)
VERDICTS = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_MEASURED_VERDICT)


@dataclass(frozen=True)
class Side:
    published: str
    local: str | None
    where: dict[str, Any] = field(default_factory=dict)
    #: The inventory label of the study's own platform (kvm, openvz...): samples so labelled are
    #: a test of the finding, not of a stand-in.
    label: str | None = None

    def describe(self, platform: str | None = None) -> str:
        """The side as recorded ("lxc (stress=memory)"): the delta's CSV, which scripts read."""
        w = ", ".join(f"{k}={v}" for k, v in sorted(self.where.items()))
        return f"{platform or self.local or 'none'}" + (f" ({w})" if w else "")

    def reader_text(self, platform: str | None = None) -> str:
        """The side as the paper prints it ("LXC (stress: memory)")."""
        return configuration_name(platform or self.local or "none", dict(sorted(self.where.items())))


@dataclass(frozen=True)
class Test:
    """What testing a finding needs (vbench.paper.published.NEEDS) and the command that does."""

    __test__ = False  # not a pytest class

    needs: tuple[str, ...] = ("here",)
    command: str = ""
    #: Where to run the command when it names no inventory (e.g. a machine with working KVM).
    machine: str = ""
    #: The campaign the command writes (`vbench campaign run` names it after the design): a
    #: finding is judged on its own study's campaign before any other that measured the same cell.
    campaign: str = ""
    #: The design file the command runs (relative to the repository), the inventory it runs on
    #: and its `--only` ("" for none): what tells whether the campaign is whole.
    design: str = ""
    inventory: str = ""
    only: str = ""

    @property
    def here(self) -> bool:
        return self.needs == ("here",)

    def needs_text(self) -> str:
        return ", ".join(NEED_TEXT[n] for n in self.needs)


@dataclass(frozen=True)
class Finding:
    id: str
    study: str
    source: str
    claim: str
    benchmark: str
    metric: str
    kind: str
    a: Side
    b: Side
    expect: str | None = None
    published_ratio: float | None = None
    tolerance_pct: float | None = None
    published_values: tuple[float, float] | None = None
    published_unit: str = ""
    size: str | None = None
    experiments: tuple[str, ...] = ()
    note: str = ""
    margin_pct: float | None = None
    #: (benchmark, metric) pairs tried after the first when it has no samples on both sides.
    fallback: tuple[tuple[str, str], ...] = ()
    test: Test = Test()
    #: A magnitude claim's own range in the study (the band itself), instead of a tolerance.
    published_range: tuple[float, float] | None = None
    #: Where the figure and the band (tolerance or margin) come from.
    basis: str = ""

    def workloads(self) -> tuple[tuple[str, str], ...]:
        return ((self.benchmark, self.metric), *self.fallback)

    def band(self) -> tuple[float, float] | None:
        """The ratios a magnitude or equivalence claim's interval must lie within; None for a direction."""
        if self.kind == "equivalence":
            return band(1.0, self.margin_pct)
        if self.kind == "magnitude":
            return magnitude_band(self.published_ratio, self.tolerance_pct, self.published_range)
        return None


@dataclass(frozen=True)
class Published:
    platform_map: dict[str, str | None]
    studies: dict[str, dict]
    findings: list[Finding]
    labels: dict[str, str] = field(default_factory=dict)


def default_published_path() -> Path:
    return Path(__file__).resolve().parents[2] / "params" / "published.yaml"


def published_root(path: str | Path | None = None) -> Path:
    """The repository holding a published.yaml (default: this one's): what its designs and
    inventories are relative to."""
    return (Path(path) if path else default_published_path()).resolve().parents[1]


def load_published(path: str | Path | None = None, check: bool | None = None) -> Published:
    """Read and validate published.yaml (vbench.paper.published); errors name the file and the
    field. `check` (default: for the repository's own file) also loads every finding's design and
    inventory (`check_commands`), relative to the repository holding the file."""
    path = Path(path) if path else default_published_path()
    spec = read_published(path)
    root = published_root(path)
    if check if check is not None else path.resolve() == default_published_path():
        check_commands(spec, root, str(path))
        margin_problems(spec, paper_margin_pct(root), str(path))
    return published_from(spec)


def parse_published(doc: Any, source: str = "published.yaml") -> Published:
    return published_from(validate_published(doc, source))


def published_from(spec: PublishedSpec) -> Published:
    """The validated document as the records evaluation uses."""
    findings = [_finding(f, spec) for f in spec.findings]
    studies = {k: {"bibkey": s.bibkey, "short": s.short} for k, s in spec.studies.items()}
    return Published(dict(spec.platform_map), studies, findings, dict(spec.labels))


def _finding(f: FindingSpec, spec: PublishedSpec) -> Finding:
    a, b = (_side(s, spec) for s in f.compare)
    exps = f.experiment or ()
    return Finding(
        id=f.id,
        study=f.study,
        source=f.source,
        claim=f.claim,
        benchmark=f.benchmark,
        metric=f.metric,
        kind=f.kind,
        a=a,
        b=b,
        expect=f.expect,
        published_ratio=f.published_ratio,
        tolerance_pct=f.tolerance_pct,
        published_values=(f.published.A, f.published.B) if f.published else None,
        published_unit=f.published_unit,
        size=f.size,
        experiments=(exps,) if isinstance(exps, str) else tuple(exps),
        note=f.note,
        margin_pct=f.margin_pct,
        fallback=tuple((w.benchmark, w.metric) for w in f.fallback),
        test=Test(
            tuple(f.test.needs),
            f.test.command(),
            f.test.machine,
            f.test.campaign(),
            f.test.design,
            f.test.inventory or "",
            f.test.only or "",
        ),
        published_range=tuple(f.published_range) if f.published_range else None,
        basis=f.basis,
    )


def _side(s: SideSpec, spec: PublishedSpec) -> Side:
    local = s.local if "local" in s.model_fields_set else spec.platform_map[s.published]
    return Side(s.published, local, dict(s.where), spec.labels.get(s.published))


# --- verdicts ---------------------------------------------------------------------------------------


def verdict_direction(low: float | None, high: float | None, expect: str) -> str:
    """Rule for "A less/greater than B" on the CI [low, high] of mean(A)/mean(B)."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return INCONCLUSIVE
    below, above = high < 1.0, low > 1.0
    if not (below or above):
        return INCONCLUSIVE
    agrees = below if expect == "less" else above
    return REPRODUCED if agrees else CONTRADICTED


def band(ratio: float, width_pct: float) -> tuple[float, float]:
    """The band of a magnitude or equivalence claim: ratio within +/- width_pct percent of itself
    (around 1, an equivalence margin: 1 +/- width_pct/100)."""
    return magnitude_band(ratio, width_pct)


def verdict_band(low: float | None, high: float | None, lo_band: float, hi_band: float) -> str:
    """CI inside [lo_band, hi_band] (reproduced), entirely outside (contradicted), or straddling an edge."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return INCONCLUSIVE
    if lo_band <= low and high <= hi_band:
        return REPRODUCED
    if high < lo_band or low > hi_band:
        return CONTRADICTED
    return INCONCLUSIVE


def verdict_magnitude(low: float | None, high: float | None, published_ratio: float, tolerance_pct: float) -> str:
    """Rule for "ratio about r (+/- t % of r)": CI inside the band, outside it, or straddling an edge."""
    return verdict_band(low, high, *band(published_ratio, tolerance_pct))


def decision_edges(f: "Finding") -> tuple[float, ...]:
    """The ratios a finding's interval must clear for a verdict: 1 for a direction claim, the edges
    of the band of a magnitude or equivalence claim (inside: reproduced; outside: contradicted)."""
    b = f.band()
    return (1.0,) if b is None else b


def verdict_of(f: "Finding", low: float | None, high: float | None) -> str:
    """The rule (`RULE`) applied to one finding's interval [low, high] of mean(A)/mean(B)."""
    if f.kind == "direction":
        return verdict_direction(low, high, f.expect or "less")
    return verdict_band(low, high, *f.band())


def verdict_p_value(f: "Finding", interval_at) -> float | None:
    """The p-value of a finding's verdict: the smallest alpha at which the (1 - alpha) interval
    (`interval_at(conf) -> (low, high)`, the same method as the verdict's) gives a verdict other
    than inconclusive. The rule's verdict at level `conf` holds exactly when this is <= 1 - conf,
    so Holm's adjusted p-values (vbench.stats.hypothesis.holm) say which verdicts survive the
    correction. None when no interval can be computed."""

    def decisive(alpha: float) -> bool:
        try:
            low, high = interval_at(1.0 - alpha)
        except OverflowError:  # an interval too wide to represent: no verdict at this level
            return False
        return verdict_of(f, low, high) != INCONCLUSIVE

    try:
        lo_a, hi_a = 1e-12, 1.0 - 1e-9
        if decisive(lo_a):
            return lo_a
        if not decisive(hi_a):
            return 1.0
        for _ in range(60):  # bisection in log alpha: intervals shrink as alpha grows
            mid = math.sqrt(lo_a * hi_a)
            lo_a, hi_a = (lo_a, mid) if decisive(mid) else (mid, hi_a)
        return hi_a
    except (ValueError, ZeroDivisionError, FloatingPointError):
        return None


def verdict_equivalence(low: float | None, high: float | None, margin_pct: float) -> str:
    """Rule for "near native", "the same", "does not slow": the CI inside 1 +/- margin (equivalent
    within the margin: reproduced), entirely outside it (different: contradicted), or straddling."""
    return verdict_band(low, high, *band(1.0, margin_pct))


# --- evaluation -------------------------------------------------------------------------------------

#: Columns `prepare` adds: the platform of the machine a sample measured, and the comparison unit
#: (campaign/experiment: two campaigns' "platforms" experiments are never pooled).
MACHINE, UNIT = "_machine", "_unit"
#: A side's `where` key may name a metadata column, a design factor (`factor.<key>`, as the
#: runner records it) or the compared factor of a comparison view (`level.<key>`,
#: vbench.stats.compare), in that order.
PREFIXES = ("", "factor.", LEVEL)


@dataclass(frozen=True)
class DeltaRow:
    finding: Finding
    verdict: str
    ratio: float | None = None
    low: float | None = None
    high: float | None = None
    n_a: int = 0
    n_b: int = 0
    experiment: str = ""
    cell: str = ""
    reason: str = ""
    method: str = ""  # what gave the interval: paired by block where the two sides were paired, else Fieller
    n_pairs: int = 0
    #: The platforms compared (stand-ins, or the study's own labels) and the workload measured.
    platforms: tuple[str, str] = ("", "")
    benchmark: str = ""
    metric: str = ""
    #: True when the samples were labelled with the study's own platforms (a test, not a stand-in).
    on_study_platforms: bool = False
    campaign: str = ""
    #: An inconclusive paired row: the blocks in all that would settle it if the spread stayed as
    #: measured (`vbench.stats.paired.blocks_to_clear`); None: beyond its limit, or not paired.
    blocks_to_settle: int | None = None
    n_blocks: int = 0
    #: The p-value of the verdict (`verdict_p_value`), Holm's adjustment of it over the delta's
    #: findings with an interval (`apply_holm`), and the verdict of the interval alone when Holm
    #: made it inconclusive ("" when Holm left it as it was).
    p_value: float | None = None
    p_holm: float | None = None
    unadjusted: str = ""
    #: How far a comparison got before it had to stop (not part of the result): which "not
    #: measured" reason says most.
    progress: int = field(default=0, compare=False, repr=False)
    #: How much of its campaign's design was measured, where that is known (`design_progress_by_campaign`);
    #: what it changes (a design measured in part: `measured_in_part`) is in the verdict and reason.
    design_progress: DesignProgress | None = field(default=None, compare=False, repr=False)

    @property
    def in_part(self) -> bool:
        """Compared in a campaign whose design is measured only in part (no verdict until it is whole)."""
        return self.design_progress is not None and not self.design_progress.complete

    @property
    def tested(self) -> bool:
        """Measured on what the finding needs: this machine's findings here, others on their labels."""
        return self.verdict != NOT_MEASURED_VERDICT and (self.finding.test.here or self.on_study_platforms)


def machine_platform(samples: pd.DataFrame) -> pd.Series:
    """The platform of the machine each sample measured. `platform` as recorded, except:

    * in a comparison view (vbench.stats.compare) `platform` is the compared level (bridge, nat...)
      and the platform is `host_platform`;
    * in a mixed cluster (the run's `host_platforms` stamp names several platforms) a sample of
      one node (a task attempt's `node`, a micro-benchmark's `host`) is that node's platform, and
      a sample of the whole cluster is "mixed:<platforms>", which no single platform matches.
    """
    out = samples["platform"].astype(str).copy()
    levels = [c for c in samples.columns if c.startswith(LEVEL)]
    if levels and "host_platform" in samples.columns:
        compared = samples[levels].notna().any(axis=1) & samples["host_platform"].notna()
        out[compared] = samples.loc[compared, "host_platform"].astype(str)
    if "host_platforms" not in samples.columns:
        return out
    who = pd.Series(None, index=samples.index, dtype=object)
    for col in ("host", "node"):  # a node's attempt names its node; a micro-benchmark its host
        if col in samples.columns:
            who = samples[col].where(samples[col].notna(), who)
    for idx, stamp in samples["host_platforms"].items():
        if not isinstance(stamp, (str, dict)):
            continue
        mapping = stamp_mapping(stamp)
        kinds = sorted(set(map(str, mapping.values())))
        if len(kinds) < 2:
            continue  # a homogeneous cluster: its label (native~aa too) is right as recorded
        node = who[idx]
        out[idx] = str(mapping[node]) if isinstance(node, str) and node in mapping else "mixed:" + "+".join(kinds)
    return out


def attribute(samples: pd.DataFrame, key: str) -> pd.Series | None:
    """The values of `key` (see PREFIXES) as text, "" where a sample lacks it; None when no column has it."""
    cols = [p + key for p in PREFIXES if p + key in samples.columns]
    if not cols:
        return None
    values = pd.Series(None, index=samples.index, dtype=object)
    for c in cols:
        values = values.where(values.notna(), samples[c])
    return values.map(value_text)


def _split_unit(unit) -> tuple[str, str]:
    """A comparison unit (`prepare`: "campaign/experiment", or the experiment alone) as (campaign, experiment)."""
    campaign, _, experiment = str(unit).rpartition("/")
    return campaign, experiment


def prepare(samples: pd.DataFrame) -> pd.DataFrame:
    """The samples with the machine's platform and the comparison unit (idempotent)."""
    if samples is None or samples.empty or MACHINE in samples.columns:
        return samples if samples is not None else pd.DataFrame()
    campaign = samples["campaign"].map(value_text) if "campaign" in samples.columns else ""
    unit = samples["experiment"].astype(str)
    if "campaign" in samples.columns:
        unit = pd.Series(
            [f"{c}/{e}" if c else e for c, e in zip(campaign, samples["experiment"].astype(str))],
            index=samples.index,
        )
    return samples.assign(**{MACHINE: machine_platform(samples), UNIT: unit})


def _side_rows(
    samples: pd.DataFrame, benchmark: str, metric: str, platform: str, side: Side, own: bool = False
) -> pd.DataFrame:
    """A side's samples. On the study's own platforms (`own`) a `where` key the samples do not
    record is the label's to say (vmware-4vm is 4 VMs per host: hosts on an inventory are given,
    not varied); for a stand-in it must be recorded."""
    if samples is None or samples.empty:
        return pd.DataFrame()
    m = (samples[MACHINE] == platform) & (samples["benchmark"] == benchmark) & (samples["metric"] == metric)
    for k, v in side.where.items():
        values = attribute(samples[m], k)
        if values is None or (own and not values.astype(bool).any()):
            if own:
                continue
            return samples.iloc[0:0]
        m &= (values == value_text(v)).reindex(samples.index, fill_value=False)
    return samples[m]


def _factor_columns(df: pd.DataFrame) -> list[str]:
    """Every column that can make a cell: the named factors, the runner's `factor.*` and a
    comparison view's `level.*`, but not the data size's factor: vbench.stats.tidy.add_cells keys
    the statistics the same way, the size once, as the size label."""
    named = [c for c in FACTOR_COLUMNS if c in df.columns]
    return named + [
        c for c in df.columns if c.startswith(("factor.", "level.")) and c not in named and not is_size_factor(c)
    ]


def _comparison_key(a: pd.DataFrame, b: pd.DataFrame, ignore: set[str]) -> tuple[pd.Series, pd.Series]:
    """The cell both sides must share: the size label plus every design factor that varies among
    the two sides' samples, except the factors a side selects on (`where`) and factors that take
    one value on each side but different ones (those are part of the contrast, e.g. output
    replication changing with replication)."""
    cols = []
    for c in _factor_columns(a):
        if c in ignore or c not in b.columns:
            continue
        va, vb = set(a[c].map(value_text)), set(b[c].map(value_text))
        if len(va | vb) <= 1 or (len(va) == 1 and len(vb) == 1):
            continue
        cols.append(c)

    def key(df: pd.DataFrame) -> pd.Series:
        if df.empty:
            return pd.Series(dtype=str)
        return df.apply(
            lambda row: size_key(
                str(row["size_label"]) if row.get("size_label") else "",
                [
                    f"{c.split('.', 1)[1] if c.startswith(('factor.', 'level.')) else c}={value_text(row[c])}"
                    for c in cols
                    if value_text(row[c])
                ],
            ),
            axis=1,
        )

    return key(a), key(b)


#: Experiments a comparison prefers when the finding names none.
DEFAULT_EXPERIMENTS = ("platforms",)


def evaluate(
    f: Finding,
    samples: pd.DataFrame,
    conf: float = 0.95,
    design_progress: Mapping[str, DesignProgress] | None = None,
) -> DeltaRow:
    """The verdict of one finding on a campaign's tidy samples (see the module docstring).

    Samples labelled with the study's own platforms (`labels` of published.yaml: a campaign run
    on them) are preferred to the local stand-ins; the study's workload to its fallbacks. The
    comparison is made in one campaign's experiment (those of the finding's own study campaign
    first, then the finding's preferred experiments, else "platforms", else the one with the most
    runs on both sides) at one cell (the finding's `size`, else the largest cell both sides share).
    `design_progress`: campaign -> how much of its design is measured (`design_progress_by_campaign`);
    a comparison made in a campaign measured in part gives no verdict (`measured_in_part`)."""
    samples = prepare(samples)
    candidates: list[tuple[str, str, bool]] = []
    a_label, b_label = f.a.label or f.a.local, f.b.label or f.b.local
    if (a_label, b_label) != (f.a.local, f.b.local) and a_label and b_label:
        candidates.append((a_label, b_label, True))
    for side in (f.a, f.b):
        if side.local is None and not candidates:
            return DeltaRow(f, NOT_MEASURED_VERDICT, reason=f"no local stand-in for {side.published}")
    if f.a.local is not None and f.b.local is not None:
        if f.a.local == f.b.local and f.a.where == f.b.where:
            if not candidates:
                return DeltaRow(f, NOT_MEASURED_VERDICT, reason=f"both sides are {f.a.local} here")
        else:
            candidates.append((f.a.local, f.b.local, False))
    missed: list[DeltaRow] = []
    for pa, pb, own in candidates:
        for benchmark, metric in f.workloads():
            row = _compare(f, samples, pa, pb, own, benchmark, metric, conf, design_progress or {})
            if row.verdict != NOT_MEASURED_VERDICT:
                return row
            missed.append(row)
    # Nothing measured: say why for the stand-ins' own workload (what this machine could run).
    return max(missed, key=lambda r: (not r.on_study_platforms, r.progress))


def _compare(
    f: Finding,
    samples: pd.DataFrame,
    pa: str,
    pb: str,
    own: bool,
    benchmark: str,
    metric: str,
    conf: float,
    design_progress: Mapping[str, DesignProgress],
) -> DeltaRow:
    base = dict(platforms=(pa, pb), benchmark=benchmark, metric=metric, on_study_platforms=own)
    a = _side_rows(samples, benchmark, metric, pa, f.a, own)
    b = _side_rows(samples, benchmark, metric, pb, f.b, own)
    if a.empty or b.empty:
        who = and_list([s.reader_text(p) for s, p, d in ((f.a, pa, a), (f.b, pb, b)) if d.empty])
        progress = int(not a.empty) + int(not b.empty)
        reason = f"no samples of {metric_name(metric)} for {who}"
        return DeltaRow(f, NOT_MEASURED_VERDICT, reason=reason, progress=progress, **base)
    ignore = {p + k for k in (*f.a.where, *f.b.where) for p in PREFIXES}
    common = sorted(set(a[UNIT]) & set(b[UNIT]), key=natural_key)
    if not common:
        return DeltaRow(
            f,
            NOT_MEASURED_VERDICT,
            reason="the two sides were never measured in the same experiment",
            progress=3,
            **base,
        )
    experiment_of = dict(zip(a[UNIT], a["experiment"].astype(str)))
    wanted = f.experiments or DEFAULT_EXPERIMENTS
    own = [u for u in common if f.test.campaign and _split_unit(u)[0] == f.test.campaign]
    preferred = own + [u for e in wanted for u in common if experiment_of.get(u) == e and u not in own]
    rest = sorted(
        (u for u in common if u not in preferred),
        key=lambda u: (-min(int((a[UNIT] == u).sum()), int((b[UNIT] == u).sum())), natural_key(u)),
    )
    unit = key = None
    for u in preferred + rest:
        au, bu = a[a[UNIT] == u], b[b[UNIT] == u]
        ka, kb = _comparison_key(au, bu, ignore)
        keys = set(ka) & set(kb)
        if f.size:
            keys = {k for k in keys if split_size_key(k)[0] == f.size}
        if keys:
            unit, key = u, sorted(keys, key=natural_key)[-1]
            a, b = au.assign(_key=ka.to_numpy()), bu.assign(_key=kb.to_numpy())
            break
    if unit is None:
        return DeltaRow(
            f, NOT_MEASURED_VERDICT, reason="the two sides were never measured in the same cell", progress=4, **base
        )
    a_rows = a[a["_key"] == key]
    b_rows = b[b["_key"] == key]
    x, y = a_rows["value"].to_numpy(dtype=float), b_rows["value"].to_numpy(dtype=float)
    # Two sides run in the same blocks are compared block by block, as the statistics table does
    # (vbench.stats.paired); otherwise, or with fewer than two pairs, by Fieller's interval.
    pairs = pair_runs(a_rows, b_rows)
    # The table's preferred paired row: t over the blocks (their mean log ratios with rounds), or
    # over every round where the design is of the lean shape (vbench.stats.paired.preferred_ratio).
    paired = preferred_ratio(pairs, conf=conf)
    iv = paired.ratio if paired is not None else fieller_interval(x, y, conf)
    method = paired.method if paired is not None else FIELLER
    low, high = iv.low, iv.high
    verdict = verdict_of(f, low, high)

    def interval_at(level: float) -> tuple[float | None, float | None]:
        other = preferred_ratio(pairs, conf=level) if paired is not None else None
        at = other.ratio if other is not None else fieller_interval(x, y, level)
        return at.low, at.high

    p_value = verdict_p_value(f, interval_at) if low is not None and high is not None else None
    campaign, experiment = _split_unit(unit)
    part = design_progress.get(campaign)
    settle = None
    if verdict == INCONCLUSIVE and paired is not None:
        # Where every round is a unit, a block added is its rounds added (the design's rounds a block).
        per_block = round(paired.n_pairs / paired.n_blocks) if paired.method == PAIRED_T_ROUNDS else 1
        settle = blocks_to_clear(low, high, paired.n_blocks, decision_edges(f), conf, per_block)
    row = DeltaRow(
        f,
        verdict,
        iv.estimate,
        low,
        high,
        int(x.size),
        int(y.size),
        experiment,
        key,
        iv.note or ("" if paired is not None else pairs.note),
        method,
        pairs.n_pairs if paired is not None else 0,
        campaign=campaign,
        blocks_to_settle=settle,
        n_blocks=paired.n_blocks if paired is not None else 0,
        p_value=p_value,
        design_progress=part,
        **base,
    )
    return measured_in_part(row, part) if part is not None and not part.complete else row


def measured_in_part(row: DeltaRow, part: DesignProgress) -> DeltaRow:
    """A row compared in a campaign whose design is measured only in part (a campaign run in
    parts): inconclusive whatever its interval, which is still shown. Reading a verdict from a part
    would be optional stopping (the next part could undo it), so the row has no p-value either:
    Holm's correction does not count it, and no "blocks that would settle it" (the design says
    how many blocks it has)."""
    why = (
        f"its design measured in part: {part.done} of {part.total} cells (a campaign run in parts); "
        "no verdict until it is whole"
    )
    return replace(
        row,
        verdict=INCONCLUSIVE,
        p_value=None,
        p_holm=None,
        unadjusted="",
        blocks_to_settle=None,
        reason="; ".join(r for r in (why, row.reason) if r),
        design_progress=part,
    )


def design_progress_by_campaign(
    findings: Iterable[Finding], campaign_dirs: Iterable[Path], root: Path
) -> dict[str, DesignProgress]:
    """Campaign -> how much of its design is measured, for each finding's own campaign
    (`Test.campaign`) among `campaign_dirs`, in the design the finding names (`Test.design`, with
    its inventory's labels, relative to the repository `root`), where that can be told
    (vbench.campaign.completeness.campaign_progress: a campaign without a ledger, or of another
    design, is left out and judged as before). The kinds of cells counted are those the finding's
    command runs (`--only`); a campaign several findings name is whole only when every cell any of
    their commands runs is done."""
    from vbench.campaign.completeness import campaign_progress, kinds_of_only
    from vbench.campaign.design import load_experiment
    from vbench.inventory.model import load_inventory

    dirs = {Path(d).name: Path(d) for d in campaign_dirs}
    # (campaign, design, inventory) -> the cell kinds its findings' commands run (None: every kind).
    kinds: dict[tuple[str, str, str], frozenset[str] | None] = {}
    for f in findings:
        t = f.test
        if not (t.campaign and t.design and t.campaign in dirs):
            continue
        key, wanted = (t.campaign, t.design, t.inventory), kinds_of_only(t.only)
        kinds[key] = _union_kinds(kinds[key], wanted) if key in kinds else wanted
    out: dict[str, DesignProgress] = {}
    for (campaign, design, inventory), wanted in kinds.items():
        labels = load_inventory(root / inventory).platforms() if inventory else ()
        p = campaign_progress(load_experiment(root / design, labels), dirs[campaign], wanted)
        # Of two designs that both match one campaign, the one that finds it in part decides.
        if p is not None and (campaign not in out or out[campaign].complete):
            out[campaign] = p
    return out


def _union_kinds(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The cell kinds two commands run between them (None: every kind)."""
    return None if a is None or b is None else a | b


def reproduction_delta(
    published: Published,
    samples: pd.DataFrame,
    conf: float = 0.95,
    design_progress: Mapping[str, DesignProgress] | None = None,
) -> list[DeltaRow]:
    """Every finding's verdict, Holm-adjusted over the findings with an interval (`apply_holm`);
    `design_progress` as for `evaluate` (no row compared in a campaign measured in part has a verdict)."""
    samples = prepare(samples)
    return apply_holm([evaluate(f, samples, conf, design_progress) for f in published.findings], conf)


def apply_holm(rows: list[DeltaRow], conf: float = 0.95) -> list[DeltaRow]:
    """Holm's correction (vbench.stats.hypothesis.holm, the statistics table's) over the verdicts
    of every finding with an interval: a reproduced or contradicted verdict stands when its adjusted
    p-value is at most 1 - conf, else the finding is inconclusive (and `unadjusted` keeps what the
    interval alone said). Idempotent: rows already adjusted are adjusted again from `p_value`."""
    idx = [i for i, r in enumerate(rows) if r.p_value is not None]
    if not idx:
        return list(rows)
    adjusted = holm([rows[i].p_value for i in idx])
    out = list(rows)
    alpha = 1.0 - conf
    for i, adj in zip(idx, adjusted):
        r = out[i]
        own = r.unadjusted or r.verdict
        verdict, unadjusted = own, ""
        if own in (REPRODUCED, CONTRADICTED) and adj > alpha + 1e-12:
            verdict, unadjusted = INCONCLUSIVE, own
        out[i] = replace(r, verdict=verdict, p_holm=float(adj), unadjusted=unadjusted)
    return out


def holm_family_size(rows: list[DeltaRow]) -> int:
    """How many findings Holm's correction runs over (those with an interval)."""
    return sum(1 for r in rows if r.p_value is not None)


#: The count of findings with a verdict on local stand-ins only (a verdict, but no test of the claim).
STAND_INS = "stand-ins only"


def counts(rows: list[DeltaRow], alone: bool = False) -> dict[str, int]:
    """Findings per verdict, counting a verdict only where the finding was tested on what it needs;
    a verdict reached on stand-ins alone (an emulated VM for KVM) is counted under STAND_INS.
    `alone`: the verdicts of the intervals alone, before Holm's correction."""

    def verdict(r: DeltaRow) -> str:
        return (r.unadjusted or r.verdict) if alone else r.verdict

    out = {v: sum(1 for r in rows if verdict(r) == v and (r.tested or v == NOT_MEASURED_VERDICT)) for v in VERDICTS}
    out[STAND_INS] = sum(1 for r in rows if r.verdict != NOT_MEASURED_VERDICT and not r.tested)
    return out


# --- LaTeX ------------------------------------------------------------------------------------------


def margins(published: Published) -> list[float]:
    """The equivalence margins the findings use (percent), in ascending order."""
    return sorted({float(f.margin_pct) for f in published.findings if f.kind == "equivalence"})


def rule_tex(published: Published, rows: list[DeltaRow], conf: float, paper_margin_pct: float) -> str:
    """The verdict rule as the paper states it, once (`\\vbVerdictRule`): the same rule
    `verdict_of` and `apply_holm` apply, with the numbers they use."""
    conf_pct = plain_number(conf * 100)
    alpha = plain_number(round((1 - conf) * 100, 6))
    ms = margins(published)
    margin = (
        rf"$\pm${plain_number(ms[0])}\,\%" if len(ms) == 1 else ", ".join(rf"$\pm${plain_number(m)}\,\%" for m in ms)
    )
    wider = [f.id for f in published.findings if f.kind == "equivalence" and f.margin_pct > paper_margin_pct + 1e-9]
    margin_text = (
        rf"the paper's margin, {margin}, the one of Section~\ref{{sec:stats}}"
        if ms == [float(paper_margin_pct)]
        else rf"{margin} (never wider than the paper's {plain_number(paper_margin_pct)}\,\% unless the study's own"
        rf" claim is wider{': ' + ', '.join(wider) if wider else ''})"
    )
    n = holm_family_size(rows)
    # Stated only where it acts, so that a delta of whole campaigns reads as before.
    in_part = (
        [
            r"\item a finding compared in a campaign whose design is measured only in part (a campaign run"
            r" in parts) is inconclusive, whatever its interval, until the design is whole, and is left out"
            r" of Holm's correction."
        ]
        if any(r.in_part for r in rows)
        else []
    )
    return "\n".join(
        [
            r"\begin{itemize}",
            r"\item a claim with a figure (a ratio, an overhead, a range) is a \emph{magnitude} claim: it is"
            r" \textbf{reproduced} when the whole interval lies within the study's range, or within the"
            rf" published ratio plus or minus {plain_number(paper_margin_pct)}\,\% of itself where the study gives one"
            r" figure, narrowed where needed so that the band never reaches past 1 (a tolerance wider"
            r" than the claimed effect would let no effect reproduce it); \textbf{contradicted} when the"
            r" interval lies entirely outside the band; \emph{inconclusive} when it straddles an edge;",
            r"\item a claim of no difference (``near native'', ``the same'', ``does not slow'') is an"
            rf" \emph{{equivalence}} claim with {margin_text}: reproduced when the whole interval lies within 1"
            r" plus or minus the margin, contradicted when it lies entirely outside, inconclusive otherwise;",
            r"\item only a claim the study makes without a figure is a \emph{direction} claim (``A is"
            r" faster than B''): reproduced when the interval excludes 1 on the published side,"
            r" contradicted when it excludes 1 on the other side, inconclusive when it contains 1;",
            r"\item a finding is \emph{not measured} when a side has no samples or no local stand-in, or"
            r" both sides are the same local platform.",
            *in_part,
            r"\end{itemize}",
            rf"Every band and margin is in the data file with where it comes from, fixed before the data."
            rf" The interval is the comparison's {conf_pct}\,\% interval (paired by block where the design"
            r" paired the runs, else Fieller's), so an interval inside a band is a two one-sided test at"
            rf" {plain_number(round((1 - conf) * 50, 6))}\,\% each. Each verdict's $p$-value is the smallest level at which"
            r" the interval gives it, and Holm's correction~\citep{holm1979} runs over the"
            rf" {n} verdicts with an interval: a verdict stands when its adjusted $p$ is at most {alpha}\,\%,"
            r" and is otherwise inconclusive (the table says what the interval alone gave).",
        ]
    )


def _published_text(f: Finding) -> str:
    parts = []
    if f.published_values:
        a, b = f.published_values
        unit = f" {tex_escape(f.published_unit)}" if f.published_unit else ""
        parts.append(rf"{plain_number(a)} vs {plain_number(b)}{unit}")
    if f.kind == "magnitude":
        lo, hi = f.band()
        if f.published_range is not None:
            parts.append(rf"A/B {plain_number(lo)}--{plain_number(hi)} (the study's range)")
        else:
            parts.append(
                rf"A/B {plain_number(f.published_ratio)} $\pm$ {plain_number(f.tolerance_pct)}\,\%"
                rf" ({plain_number(round(lo, 3))}--{plain_number(round(hi, 3))})"
            )
    elif f.kind == "equivalence":
        parts.append(rf"A/B within 1 $\pm$ {plain_number(f.margin_pct)}\,\%")
    else:
        parts.append("A/B " + ("$<$ 1" if f.expect == "less" else "$>$ 1"))
    if f.note:
        parts.append(tex_escape(f.note))
    return "; ".join(parts)


def _here_text(r: DeltaRow) -> str:
    f = r.finding
    pa, pb = r.platforms if r.platforms != ("", "") else (None, None)
    text = rf"{tex_escape(f.a.reader_text(pa))} / {tex_escape(f.b.reader_text(pb))}"
    if r.benchmark and r.benchmark != f.benchmark:
        text += rf"; {tex_escape(r.benchmark)} standing in for {tex_escape(f.benchmark)}"
    if r.cell:
        parts = [p.strip() for p in r.cell.split(",")]
        if f.benchmark == "pi_digits" and parts[0].isdigit():
            parts[0] = f"{digits_display(parts[0])} digits"
        else:
            parts[0] = size_display(parts[0])
        text += rf"; {tex_escape(', '.join(parts))}"
    if r.n_a or r.n_b:
        text += rf"; $n={r.n_a}/{r.n_b}$"
    return breakable(text)


def breakable(tex: str) -> str:
    """Escaped text whose dotted, underscored and `key=value` names may break after their `.`, `_`
    and `=` (a metric's or parameter's name is wider than the delta table's narrow columns)."""
    return re.sub(r"(?<=[A-Za-z])(\.|\\_|=)(?=[A-Za-z])", lambda m: m[1] + r"\allowbreak{}", tex)


#: A verdict as both delta tables print it (`delta_table_tex`, `vbench.paper.delta_summary`).
VERDICT_TEX = {
    REPRODUCED: r"\textbf{reproduced}",
    CONTRADICTED: r"\textbf{contradicted}",
    INCONCLUSIVE: "inconclusive",
    NOT_MEASURED_VERDICT: r"\emph{not measured}",
}


def ratio_cell(r: DeltaRow) -> str:
    """A row's ratio A/B with its interval as both delta tables print it (the long one and the
    summary, `vbench.paper.delta_summary`): $^{p}$ marks an interval paired by block."""
    if r.ratio is None:
        return NOT_MEASURED
    text = interval_text(r.ratio, r.low, r.high)
    if r.method and r.method != FIELLER:
        text += r"$^{p}$"
    return text


def verdict_cell(r: DeltaRow, stand_ins: str = "(stand-ins only)") -> str:
    """A row's verdict as both delta tables print it, with `stand_ins` under a verdict reached on
    the local stand-ins alone (not a test of the claim)."""
    text = VERDICT_TEX[r.verdict]
    if r.verdict != NOT_MEASURED_VERDICT and not r.tested:
        text += rf" \newline {{\scriptsize {stand_ins}}}"
    return text


def delta_table_tex(rows: list[DeltaRow], published: Published, conf: float = 0.95) -> str:
    """The reproduction-delta table (longtable, so it may span pages)."""
    widths = (0.035, 0.12, 0.19, 0.14, 0.16, 0.11, 0.13)
    cols = "".join(rf">{{\raggedright\arraybackslash}}p{{{w}\linewidth}}" for w in widths)
    head = r"ID & Study, source & Published finding & Published value & Here: A / B, cell & Ratio A/B [CI] & Verdict \\"
    conf_pct = plain_number(conf * 100)
    lines = [
        r"\begingroup\footnotesize",
        r"\setlength{\tabcolsep}{3pt}",
        rf"\begin{{longtable}}{{{cols}}}",
        rf"\caption{{Reproduction delta: each published finding beside this campaign's measurement of the local "
        rf"stand-ins (ratio with its {conf_pct}\,\% interval: $^{{p}}$~paired by block, from the within-block "
        rf"log ratios; otherwise Fieller's interval of the ratio of means) and the verdict of the rule in "
        rf"Section~\ref{{sec:delta}}.}}\label{{tab:delta}}\\",
        r"\toprule",
        head,
        r"\midrule",
        r"\endfirsthead",
        r"\toprule",
        head,
        r"\midrule",
        r"\endhead",
        r"\bottomrule",
        r"\endfoot",
    ]
    # One command tests every untested finding of its design: printed once, under the last of them,
    # naming them all (it stood under each of the ten Vasconcelos rows, a page of one line).
    untested: dict[tuple[str, str], list[DeltaRow]] = {}
    for r in rows:
        if not r.tested:
            untested.setdefault(_command_key(r.finding.test), []).append(r)
    for r in rows:
        f = r.finding
        study = published.studies[f.study]
        ratio = ratio_cell(r)
        verdict = verdict_cell(r)
        if r.reason:
            verdict += rf" \newline {{\scriptsize {breakable(tex_escape(r.reason))}}}"
        if r.unadjusted:
            verdict += rf" \newline {{\scriptsize {r.unadjusted} by the interval alone; not after Holm}}"
        elif r.verdict == INCONCLUSIVE and r.n_blocks and not r.in_part:
            verdict += rf" \newline {{\scriptsize {settle_text(r)}}}"
        if r.p_holm is not None:
            verdict += rf" \newline {{\scriptsize $p_{{\mathrm{{Holm}}}}{p_text(r.p_holm)}$}}"
        lines.append(
            " & ".join(
                [
                    tex_escape(f.id),
                    rf"{tex_escape(study['short'])} \citep{{{study['bibkey']}}}, {tex_escape(f.source)}"
                    rf" \newline {{\scriptsize needs: {tex_escape(f.test.needs_text())}}}",
                    tex_escape(f.claim),
                    _published_text(f),
                    _here_text(r),
                    ratio,
                    verdict,
                ]
            )
            + r" \\"
        )
        if not r.tested and (group := untested[_command_key(f.test)])[-1] is r:
            lines.append(_command_row(f.test, len(widths), [g.finding.id for g in group]))
    lines += [r"\end{longtable}", r"\endgroup"]
    return "\n".join(lines) + "\n"


def p_text(p: float) -> str:
    """A p-value as the table prints it, with its relation: "=0.034", or "<0.001" below that."""
    return "<0.001" if p < 0.001 else f"={p:.2g}"


def settle_text(r: DeltaRow) -> str:
    """What more runs would do for an inconclusive paired row."""
    if r.blocks_to_settle is None:
        return (
            f"more blocks would not settle it: the estimate sits at an edge (over {r.n_blocks} blocks; "
            f"none of up to {MAX_BLOCKS_TO_CLEAR} would clear it)"
        )
    more = r.blocks_to_settle - r.n_blocks
    return (
        f"about {r.blocks_to_settle} blocks in all ({more} more than its {r.n_blocks}) would settle it, "
        "if the spread stayed as measured"
    )


def _command_key(test: Test) -> tuple[str, str]:
    return test.command, test.machine or ""


def id_ranges(ids: list[str]) -> str:
    """Finding ids as a reader takes them in: runs of one study's consecutive numbers as ranges
    ("V1--V3, V5"), in the order given. Pure."""
    runs: list[list[str]] = []  # each run: its ids, consecutive numbers of one prefix
    for i in ids:
        m = re.fullmatch(r"([A-Za-z]+)(\d+)", i)
        prev = re.fullmatch(r"([A-Za-z]+)(\d+)", runs[-1][-1]) if runs else None
        if m and prev and prev[1] == m[1] and int(prev[2]) + 1 == int(m[2]):
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}--{run[-1]}" for run in runs)


def _command_row(test: Test, ncols: int, ids: list[str]) -> str:
    """The command that tests untested findings, as a full-width line under the last of them."""
    where = rf" (on {tex_escape(test.machine)})" if test.machine else ""
    command = tex_escape(test.command).replace("/", r"/\allowbreak{}")  # long paths may break at a slash
    return (
        rf"\multicolumn{{{ncols}}}{{>{{\raggedright\arraybackslash}}p{{0.97\linewidth}}}}{{\scriptsize "
        rf"To test {tex_escape(id_ranges(ids))}{where}: \texttt{{{command}}}}} \\"
    )


def delta_frame(rows: list[DeltaRow]) -> pd.DataFrame:
    """The delta as data (for notebooks and tests)."""
    return pd.DataFrame(
        [
            {
                "id": r.finding.id,
                "study": r.finding.study,
                "source": r.finding.source,
                "claim": r.finding.claim,
                "kind": r.finding.kind,
                "a": r.finding.a.describe(r.platforms[0] or None),
                "b": r.finding.b.describe(r.platforms[1] or None),
                "benchmark": r.benchmark or r.finding.benchmark,
                "metric": r.metric or r.finding.metric,
                "campaign": r.campaign,
                "experiment": r.experiment,
                "cell": r.cell,
                "n_a": r.n_a,
                "n_b": r.n_b,
                "ratio": np.nan if r.ratio is None else r.ratio,
                "ci_low": np.nan if r.low is None else r.low,
                "ci_high": np.nan if r.high is None else r.high,
                "verdict": r.verdict,
                "verdict_interval_alone": r.unadjusted or r.verdict,
                "p_value": np.nan if r.p_value is None else r.p_value,
                "p_holm": np.nan if r.p_holm is None else r.p_holm,
                "reason": r.reason,
                "method": r.method,
                "n_pairs": r.n_pairs,
                "n_blocks": r.n_blocks,
                "blocks_to_settle": r.blocks_to_settle,
                "needs": " ".join(r.finding.test.needs),
                "tested": r.tested,
                "on_study_platforms": r.on_study_platforms,
                "command": r.finding.test.command,
            }
            for r in rows
        ]
    )

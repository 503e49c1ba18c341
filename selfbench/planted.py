"""The planted-effect test (issue #51 item 2): the instrument's known-answer test.

A protocol that cannot find an effect someone put there on purpose is not trusted with effects
nobody knows the size of. This plants CPU quotas of a few sizes on native testbeds
(`testbed.slowdown.cpu_fraction`, docs/planted-effects.md) and checks that each protocol
recovers what they cost TeraSort's job time. Through the campaign runner `vbench campaign run`
uses, into a directory (--out, default under /tmp), it runs

  1. the truth: each planted level against 1.0 at length, one design per protocol's job
     (params/experiments/planted-truth-default.yaml, planted-truth-lean.yaml: 8 blocks of 5
     rounds on clusters that stay up); the setting is not the effect, so the truth is measured;
  2. each protocol under test, with the same levels planted, R = 10 times, each time a campaign
     of its own with the next seed (planted-default.yaml: the default design's shape, fresh
     clusters per block; planted-lean.yaml: the lean design's shape, concurrent rounds), the two
     protocols' campaigns in turn so that a slow day falls on both;

then reports per protocol and planted level (TeraSort job time, JobHistory):

  truth           the truth design's preferred ratio to 1.0 with its 95 % interval
  estimate        geometric mean over the repetitions of each one's preferred ratio (the
                  statistics table's, vbench.stats.compute_stats, as every report reads it)
  bias            estimate / truth - 1, with a 95 % interval: t over the repetitions' log
                  estimates, the truth's own standard error added
  coverage        the share of repetitions whose 95 % interval holds the truth's estimate, with
                  its exact (Clopper-Pearson) 95 % interval; the target is >= 90 %
  half-width      mean over the repetitions of the interval's half-width, % of the ratio
  verdict         "not for verdicts" when coverage is below 90 % or the bias interval excludes 0
                  (the rule the protocol designs state before they run)

as a Markdown table, and the same as JSON in <out>/planted-report.json. Below it, every other
ratio method the statistics table writes beside the preferred row (the t over every round as
independent, the hierarchical bootstrap, the mixed model, Fieller, BCa) gets the same columns and
the same rule against the same truth: the candidates. A candidate narrower than the preferred
row is a gain only where it passes at every planted level; none replaces it otherwise.

It refuses to measure on a loaded machine: a 1-minute load average >= 1.0 before it starts is
refused (exit 2) unless --allow-loaded, which marks the report LOADED in its first line. A design
this machine cannot hold (the runner's own check: each cluster, a block's clusters together) is
refused before anything starts, the plan included: one line per design naming it, its file and
the field (exit 2). During
the run a thread reads the load average every 30 s (kept in <out>/planted-run.json). Run again
with the same --out, it resumes: each campaign skips the cells it has.

    python3 selfbench/planted.py [--out DIR] [--allow-loaded]   # run (~14 h here), then report
    python3 selfbench/planted.py --plan                          # every design's plan and time estimate
    python3 selfbench/planted.py --protocol default --out DIR    # one protocol's truth and repetitions
    python3 selfbench/planted.py --campaign DIR                  # report on a directory already run
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from selfbench.precision import (  # noqa: E402
    DEFAULT_COSTS,
    LOAD_LIMIT,
    Costs,
    LoadRecord,
    LoadSampler,
    estimate,
    measurement_main,
    measurement_parser,
    plan_text,
    read_load1,
    refused_designs,
    refused_loaded,
    write_run_record,
)
from vbench.campaign.progress import clock_text  # noqa: E402
from vbench.stats import DEFAULT_SEED, compute_stats  # noqa: E402
from vbench.stats.bootstrap import DEFAULT_RESAMPLES  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
#: The unplanted level every planted one is compared with (levels are compared as text).
BASELINE = "1.0"
#: The metric the test is about: TeraSort's job time, as the JobHistory server gives it.
METRIC = ("terasort", "terasort_job_time")
CONF = 0.95
#: The decision rule the protocol designs state: below this coverage, not for verdicts.
COVERAGE_TARGET = 0.90
#: Campaigns of each protocol design. With 10, one miss in 10 still meets the 90 % target and two do
#: not: a protocol whose intervals truly cover 95 % of the time is flagged on a level with
#: probability 1 - 0.95^10 - 10 x 0.05 x 0.95^9 = 8.6 %.
REPETITIONS = 10
REPORT_FILE = "planted-report.json"
RUN_FILE = "planted-run.json"
#: A lean run sorts data already in HDFS and checks its output's sizes over WebHDFS: TeraSort's
#: 15-25 s (lean.yaml) and a client JVM, not yet timed as a whole here; its warm-up runs also
#: generate the input, which this figure does not count, so the estimate is on the short side.
LEAN_COSTS = Costs({"terasort": 30.0}, DEFAULT_COSTS.bringup_s, DEFAULT_COSTS.gate_s)


@dataclass(frozen=True)
class Protocol:
    """A protocol under test: its design, the truth design that measures the same job, and what
    the estimate costs its runs."""

    name: str
    design: str  # params/experiments/<design>.yaml
    truth: str
    costs: Costs = DEFAULT_COSTS


PROTOCOLS = (
    Protocol("default", "planted-default", "planted-truth-default", DEFAULT_COSTS),
    Protocol("lean", "planted-lean", "planted-truth-lean", LEAN_COSTS),
)


# --- the analysis: a pure function of the samples tables -----------------------------------------


@dataclass(frozen=True)
class Interval:
    """One planted level's preferred ratio to the baseline, as the statistics table gives it."""

    level: str
    ratio: float | None
    ci_low: float | None
    ci_high: float | None
    method: str
    n_pairs: int | None

    @property
    def bounded(self) -> bool:
        return None not in (self.ratio, self.ci_low, self.ci_high) and self.ratio > 0 and self.ci_low > 0

    @property
    def half_width_pct(self) -> float | None:
        return 100 * (self.ci_high - self.ci_low) / 2 / self.ratio if self.bounded else None

    def covers(self, value: float) -> bool | None:
        return self.ci_low <= value <= self.ci_high if self.bounded else None

    @property
    def log_se(self) -> float | None:
        """The standard error of log(ratio) the interval implies, taking its half-width in logs as
        1.96 standard errors: the row does not say its degrees of freedom, and the normal
        quantile, smaller than any t, overstates the error rather than understating it."""
        if not self.bounded:
            return None
        return (math.log(self.ci_high) - math.log(self.ci_low)) / 2 / sps.norm.ppf(0.5 + CONF / 2)


def _opt(v) -> float | None:
    return None if v is None or pd.isna(v) else float(v)


@dataclass(frozen=True)
class CampaignIntervals:
    """One campaign's ratio rows for METRIC, by planted level: the preferred row (the one every
    report reads) and the other methods the statistics table writes beside it."""

    preferred: dict[str, Interval]  # level -> its preferred ratio row
    candidates: dict[str, dict[str, Interval]]  # method -> level -> that method's (not preferred) row


def campaign_intervals(
    samples: pd.DataFrame,
    baseline: str = BASELINE,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> CampaignIntervals:
    """Every ratio row for METRIC of one campaign's tidy samples (the comparison view: `platform`
    holds the level), the mixed model's included, from one statistics pass. Pure."""
    benchmark, metric = METRIC
    sub = samples[(samples["benchmark"] == benchmark) & (samples["metric"] == metric)].reset_index(drop=True)
    if sub.empty or baseline not in set(sub["platform"].astype(str)):
        return CampaignIntervals({}, {})
    table = compute_stats(sub, baseline=baseline, conf=CONF, n_resamples=n_resamples, seed=seed, mixed=True)
    preferred: dict[str, Interval] = {}
    candidates: dict[str, dict[str, Interval]] = {}
    rows = table[table["statistic"] == "ratio_to_baseline"]
    for r in rows.itertuples(index=False):
        iv = Interval(
            str(r.platform),
            _opt(r.estimate),
            _opt(r.ci_low),
            _opt(r.ci_high),
            str(r.method),
            None if pd.isna(r.n_pairs) else int(r.n_pairs),
        )
        if not pd.isna(r.preferred) and bool(r.preferred):
            preferred[iv.level] = iv
        else:
            candidates.setdefault(iv.method, {})[iv.level] = iv
    return CampaignIntervals(preferred, candidates)


@dataclass(frozen=True)
class Bias:
    """estimate / truth - 1 and its interval, from the repetitions' log estimates."""

    estimate: float  # geometric mean of the repetitions' ratios
    bias: float
    low: float | None
    high: float | None

    @property
    def excludes_zero(self) -> bool:
        return self.low is not None and (self.low > 0 or self.high < 0)


def bias_of(ratios: Sequence[float], truth: Interval, conf: float = CONF) -> Bias | None:
    """The bias of `ratios` (one per repetition) against the truth. Its interval is t on R - 1
    degrees of freedom around the mean log ratio minus log(truth), with the standard error
    sqrt(s^2 / R + se_truth^2): the repetitions' spread and the truth's own uncertainty, which a
    truth measured at finite length carries into every comparison with it. Pure."""
    if not ratios or truth.ratio is None or truth.ratio <= 0:
        return None
    logs = np.log(np.asarray(ratios, dtype=float)) - math.log(truth.ratio)
    mean = float(logs.mean())
    est = math.exp(mean + math.log(truth.ratio))
    if len(logs) < 2 or truth.log_se is None:
        return Bias(est, math.exp(mean) - 1, None, None)
    se = math.sqrt(float(logs.var(ddof=1)) / len(logs) + truth.log_se**2)
    q = sps.t.ppf(0.5 + conf / 2, len(logs) - 1)
    return Bias(est, math.exp(mean) - 1, math.exp(mean - q * se) - 1, math.exp(mean + q * se) - 1)


def coverage_interval(covered: int, n: int, conf: float = CONF) -> tuple[float, float] | None:
    """The exact (Clopper-Pearson) interval of a coverage of `covered` in `n`: with 10 repetitions
    a coverage of 90 % is anywhere from 55 % to 100 %, which the reader should see."""
    if n == 0:
        return None
    ci = sps.binomtest(covered, n).proportion_ci(confidence_level=conf, method="exact")
    return float(ci.low), float(ci.high)


@dataclass(frozen=True)
class PlantedRow:
    protocol: str
    level: str
    truth: Interval
    #: Each repetition's interval, None where it gave none (no samples, no baseline).
    estimates: tuple[Interval | None, ...]
    planned: int  # repetitions the design asks for
    bias: Bias | None
    covered: int
    with_interval: int  # repetitions with a bounded interval: coverage's denominator
    coverage: float | None
    coverage_ci: tuple[float, float] | None
    mean_half_width_pct: float | None
    verdict: str
    for_verdicts: bool | None  # None: too few repetitions to say
    method: str = ""  # the repetitions' interval method
    preferred: bool = True  # the row every report reads; else a candidate beside it

    @property
    def truth_effect_pct(self) -> float | None:
        return None if self.truth.ratio is None else 100 * (self.truth.ratio - 1)


def judge(
    coverage: float | None, bias: Bias | None, with_interval: int, coverage_target: float = COVERAGE_TARGET
) -> tuple[bool | None, str]:
    """The decision rule fixed in the protocol designs: (for verdicts?, why). Pure."""
    if coverage is None or with_interval < 2:
        return None, "no verdict: fewer than 2 repetitions with an interval"
    if bias is None or bias.low is None:
        return None, "no verdict: the truth has no interval"
    why = []
    if coverage < coverage_target:
        why.append(f"coverage {100 * coverage:.0f} % < {100 * coverage_target:.0f} %")
    if bias.excludes_zero:
        why.append(f"bias interval [{100 * bias.low:+.1f}, {100 * bias.high:+.1f}] % excludes 0")
    return (False, "not for verdicts: " + "; ".join(why)) if why else (True, "for verdicts")


def planted_row(
    protocol: str,
    truth: Interval,
    estimates: Sequence[Interval | None],
    planned: int = REPETITIONS,
    coverage_target: float = COVERAGE_TARGET,
    *,
    preferred: bool = True,
    method: str | None = None,
) -> PlantedRow:
    """One protocol at one planted level: its repetitions' intervals (of one method) against the
    truth. Pure."""
    bounded = [e for e in estimates if e is not None and e.bounded]
    covered = sum(bool(e.covers(truth.ratio)) for e in bounded) if truth.ratio is not None else 0
    n = len(bounded) if truth.ratio is not None else 0
    coverage = covered / n if n else None
    bias = bias_of([e.ratio for e in bounded], truth)
    ok, verdict = judge(coverage, bias, n, coverage_target)
    widths = [e.half_width_pct for e in bounded]
    return PlantedRow(
        protocol=protocol,
        level=truth.level,
        truth=truth,
        estimates=tuple(estimates),
        planned=planned,
        bias=bias,
        covered=covered,
        with_interval=n,
        coverage=coverage,
        coverage_ci=coverage_interval(covered, n),
        mean_half_width_pct=float(np.mean(widths)) if widths else None,
        verdict=verdict,
        for_verdicts=ok,
        method=method or next((e.method for e in estimates if e is not None), ""),
        preferred=preferred,
    )


@dataclass(frozen=True)
class ProtocolSamples:
    """What one protocol's test ran: its truth campaign's tidy samples and each repetition's."""

    name: str
    truth: pd.DataFrame
    repetitions: tuple[pd.DataFrame, ...]
    planned: int = REPETITIONS


@dataclass(frozen=True)
class ProtocolVerdict:
    protocol: str
    for_verdicts: bool | None
    reasons: tuple[str, ...]
    method: str = ""  # a candidate method's verdict; "" for the protocol's preferred rows

    def line(self) -> str:
        who = f"{self.protocol}, candidate {self.method}" if self.method else self.protocol
        if self.for_verdicts is None:
            return f"{who}: no verdict yet ({'; '.join(self.reasons)})"
        if self.for_verdicts:
            return f"{who}: for verdicts (every planted level recovered)"
        return f"{who}: NOT FOR VERDICTS ({'; '.join(self.reasons)})"


@dataclass(frozen=True)
class PlantedReport:
    rows: tuple[PlantedRow, ...]  # the preferred rows: the protocols' verdicts
    protocols: tuple[ProtocolVerdict, ...]
    baseline: str
    coverage_target: float
    #: The statistics table's other methods, judged by the same rule against the same truth: a
    #: method narrower than the preferred one is a gain only where it passes.
    candidate_rows: tuple[PlantedRow, ...] = ()
    candidates: tuple[ProtocolVerdict, ...] = ()


def protocol_verdict(name: str, rows: Sequence[PlantedRow], method: str = "") -> ProtocolVerdict:
    """Not for verdicts if any planted level fails the rule; no verdict while any level lacks one."""
    failed = tuple(
        f"level {r.level}: {r.verdict.removeprefix('not for verdicts: ')}" for r in rows if r.for_verdicts is False
    )
    if failed:
        return ProtocolVerdict(name, False, failed, method)
    open_ = tuple(f"level {r.level}: {r.verdict}" for r in rows if r.for_verdicts is None)
    if open_ or not rows:
        return ProtocolVerdict(name, None, open_ or ("no planted level measured",), method)
    return ProtocolVerdict(name, True, (), method)


def _level_key(level: str) -> tuple[float, str]:
    try:
        return (-float(level), level)  # the mildest quota (the smallest effect) first
    except ValueError:
        return (0.0, level)


def analyse(
    protocols: Sequence[ProtocolSamples],
    baseline: str = BASELINE,
    *,
    coverage_target: float = COVERAGE_TARGET,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PlantedReport:
    """The planted-effect report of each protocol's truth and repetitions: the preferred rows, and
    every other ratio method of the statistics table as a candidate against the same truth (the
    truth design's preferred row). Pure: one statistics pass per campaign (`campaign_intervals`),
    everything else arithmetic on its rows."""
    rows: list[PlantedRow] = []
    candidate_rows: list[PlantedRow] = []
    verdicts, candidates = [], []
    for p in protocols:
        truths = campaign_intervals(p.truth, baseline, n_resamples=n_resamples, seed=seed).preferred
        reps = [campaign_intervals(df, baseline, n_resamples=n_resamples, seed=seed) for df in p.repetitions]
        levels = sorted(truths, key=_level_key)
        mine = [
            planted_row(p.name, truths[level], [r.preferred.get(level) for r in reps], p.planned, coverage_target)
            for level in levels
        ]
        rows += mine
        verdicts.append(protocol_verdict(p.name, mine))
        for method in sorted({m for r in reps for m in r.candidates}):
            theirs = [
                planted_row(
                    p.name,
                    truths[level],
                    [r.candidates.get(method, {}).get(level) for r in reps],
                    p.planned,
                    coverage_target,
                    preferred=False,
                    method=method,
                )
                for level in levels
            ]
            candidate_rows += theirs
            candidates.append(protocol_verdict(p.name, theirs, method))
    return PlantedReport(
        tuple(rows), tuple(verdicts), baseline, coverage_target, tuple(candidate_rows), tuple(candidates)
    )


# --- output ------------------------------------------------------------------------------------


def _pct(v: float | None, signed: bool = True) -> str:
    if v is None or math.isnan(v):
        return "-"
    return f"{100 * v:+.1f} %" if signed else f"{100 * v:.0f} %"


def _interval(i: Interval | None) -> str:
    if i is None or i.ratio is None:
        return "-"
    return f"{i.ratio:.3f} [{i.ci_low:.3f}, {i.ci_high:.3f}]" if i.bounded else f"{i.ratio:.3f} (no interval)"


def first_line(load: LoadRecord) -> str:
    head = "vbench planted-effect test (the known-answer test)"
    if load.loaded:
        return f"# LOADED machine (load average {load.before:.2f} before the run, limit {load.limit:.1f}): {head}"
    return f"# {head}"


_HEAD = "| protocol | cpu_fraction | truth (95 %) | estimate | bias [95 %] | coverage [95 %] | mean +/- | repetitions | verdict |"


def _table_line(r: PlantedRow, first: str) -> str:
    b = r.bias
    bias = "-" if b is None else _pct(b.bias) + ("" if b.low is None else f" [{_pct(b.low)}, {_pct(b.high)}]")
    cov = "-" if r.coverage is None else f"{r.covered}/{r.with_interval} = {_pct(r.coverage, False)}"
    if r.coverage_ci is not None:
        cov += f" [{_pct(r.coverage_ci[0], False)}, {_pct(r.coverage_ci[1], False)}]"
    hw = "-" if r.mean_half_width_pct is None else f"{r.mean_half_width_pct:.1f} %"
    est = "-" if b is None else f"{b.estimate:.3f}"
    return (
        f"| {first} | {r.level} | {_interval(r.truth)} | {est} | {bias} | {cov} | {hw} "
        f"| {r.with_interval} of {r.planned} | {r.verdict} |"
    )


def markdown(report: PlantedReport, load: LoadRecord) -> str:
    lines = [
        first_line(load),
        "",
        f"- {load.line()}",
        f"- metric: {METRIC[0]} {METRIC[1]}; each planted level's ratio to cpu_fraction {report.baseline}",
        f"- rule: not for verdicts if coverage < {100 * report.coverage_target:.0f} % or the bias interval excludes 0",
        *(f"- {v.line()}" for v in report.protocols),
        "",
        _HEAD,
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_table_line(r, r.protocol) for r in report.rows]
    if not report.rows:
        lines.append("| - | no planted level with a truth in these samples | | | | | | | |")
    if report.candidate_rows:
        lines += [
            "",
            "Candidates: the statistics table's other ratio methods, by the same rule against the same truth",
            "(a method may replace the preferred row only where it passes at every planted level):",
            "",
            *(f"- {v.line()}" for v in report.candidates),
            "",
            _HEAD.replace("| protocol |", "| protocol, method |", 1),
            "|---|---|---|---|---|---|---|---|---|",
            *(_table_line(r, f"{r.protocol}, {r.method}") for r in report.candidate_rows),
        ]
    return "\n".join(lines) + "\n"


def _row_json(r: PlantedRow) -> dict:
    doc = asdict(r)
    doc["truth"]["half_width_pct"] = r.truth.half_width_pct
    doc["truth_effect_pct"] = r.truth_effect_pct
    return doc


def report_json(report: PlantedReport, load: LoadRecord) -> dict:
    return {
        "first_line": first_line(load),
        "loaded": load.loaded,
        "load": asdict(load),
        "metric": list(METRIC),
        "baseline": report.baseline,
        "coverage_target": report.coverage_target,
        "protocols": [asdict(v) for v in report.protocols],
        "rows": [_row_json(r) for r in report.rows],
        "candidates": [asdict(v) for v in report.candidates],
        "candidate_rows": [_row_json(r) for r in report.candidate_rows],
    }


# --- the plan and its time ----------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedCampaign:
    """One campaign the test runs: its design, the directory under --out, the seed it runs with."""

    design: str
    directory: str  # relative to --out
    seed_offset: int  # added to the design's seed
    costs: Costs


def campaigns(protocols: Sequence[Protocol] = PROTOCOLS, repetitions: int = REPETITIONS) -> list[PlannedCampaign]:
    """Every campaign in run order: the truths, then the protocols' repetitions in turn (a slow
    spell of the machine then falls on every protocol, not on one). Pure."""
    out = [PlannedCampaign(p.truth, p.truth, 0, p.costs) for p in dict((p.truth, p) for p in protocols).values()]
    for r in range(repetitions):
        out += [PlannedCampaign(p.design, f"{p.design}/rep{r + 1:02d}", r, p.costs) for p in protocols]
    return out


def with_seed(exp, offset: int):
    """The design with its seed moved by `offset`: repetition r is a campaign of its own."""
    return exp if offset == 0 else exp.model_copy(update={"seed": exp.seed + offset})


def plan_lines(studies: dict, protocols: Sequence[Protocol] = PROTOCOLS, repetitions: int = REPETITIONS) -> str:
    """Each design's plan once, how many times it runs, and the total (precision.estimate)."""
    lines, total = [], 0.0
    counts: dict[str, int] = {}
    for c in campaigns(protocols, repetitions):
        counts[c.design] = counts.get(c.design, 0) + 1
    costs = {c.design: c.costs for c in campaigns(protocols, repetitions)}
    for design, n in counts.items():
        exp = studies[design].experiment
        est = estimate(exp, costs[design])
        total += n * est.seconds
        lines += [plan_text(exp, est), f"runs {n} time(s): {clock_text(n * est.seconds)}", ""]
    lines.append(f"estimated total: {clock_text(total)} ({sum(counts.values())} campaigns)")
    return "\n".join(lines)


# --- running ----------------------------------------------------------------------------------


def load_studies(params_dir: Path, protocols: Sequence[Protocol] = PROTOCOLS) -> dict:
    from vbench.campaign.study import load_study

    names = dict.fromkeys(n for p in protocols for n in (p.truth, p.design))
    return {n: load_study(params_dir, n) for n in names}


def read_samples(raw: Path) -> pd.DataFrame | None:
    """A campaign directory's tidy samples (the comparison view its design declares), or None."""
    from vbench.pipeline import headline, tidy

    if not (raw / "samples.jsonl").is_file():
        return None
    samples, _ = tidy(raw)
    return None if samples.empty else headline(samples)


def protocol_samples(out: Path, protocols: Sequence[Protocol] = PROTOCOLS) -> list[ProtocolSamples]:
    """What has been run under `out`, per protocol; a protocol without its truth is left out."""
    found = []
    for p in protocols:
        truth = read_samples(out / p.truth)
        if truth is None:
            continue
        reps = sorted((out / p.design).glob("rep[0-9][0-9]")) if (out / p.design).is_dir() else []
        frames = tuple(df for df in (read_samples(d) for d in reps) if df is not None)
        found.append(ProtocolSamples(p.name, truth, frames))
    return found


def write_outputs(out: Path, report: PlantedReport, load: LoadRecord) -> str:
    (out / REPORT_FILE).write_text(
        json.dumps(report_json(report, load), indent=1, sort_keys=True, allow_nan=False) + "\n"
    )
    return markdown(report, load)


def from_directory(out: Path) -> int:
    run_doc = json.loads((out / RUN_FILE).read_text()) if (out / RUN_FILE).is_file() else {}
    load = LoadRecord.of(run_doc["load"]) if "load" in run_doc else LoadRecord(LOAD_LIMIT, None)
    found = protocol_samples(out)
    if not found:
        raise SystemExit(f"{out}: no truth campaign with samples ({', '.join(p.truth for p in PROTOCOLS)})")
    print(write_outputs(out, analyse(found), load), end="")
    print(f"(written to {out / REPORT_FILE})")
    return 0


def run(args) -> int:
    before = read_load1()
    if refused_loaded(before, args.allow_loaded, "a truth or a protocol"):
        return 2
    from vbench.campaign.progress import ProgressReport
    from vbench.campaign.runner import run_campaign

    protocols = chosen(args.protocol)
    studies = load_studies(args.params_dir, protocols)
    if refused_designs(studies.values()):  # every design, before the first campaign starts
        return 2
    print(plan_lines(studies, protocols), flush=True)
    print(f"load average before: {before:.2f}; directory: {args.out}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    sampler = LoadSampler(args.load_interval).start()
    t0, started = time.monotonic(), time.time()
    results, failures = {}, 0
    try:
        for c in campaigns(protocols):
            study = studies[c.design]
            raw = args.out / c.directory
            raw.mkdir(parents=True, exist_ok=True)
            print(f"\n== {c.directory} ({c.design}, seed {study.experiment.seed + c.seed_offset})", flush=True)
            progress = ProgressReport()
            result = run_campaign(
                with_seed(study.experiment, c.seed_offset),
                study.testbed,
                study.hadoop,
                raw,
                log=progress.note,
                progress=progress,
            )
            results[c.directory] = {**asdict(result), "ran": len(result.ran)}
            failures += result.failures
    finally:  # the load readings are kept also when the run is cut short
        load = LoadRecord(LOAD_LIMIT, before, tuple(sampler.stop()), args.load_interval, args.allow_loaded)
        write_run_record(args.out / RUN_FILE, load, time.monotonic() - t0, started, campaigns=results)
    print()
    print(write_outputs(args.out, analyse(protocol_samples(args.out)), load), end="")
    print(f"(written to {args.out / REPORT_FILE}; the run's load readings in {args.out / RUN_FILE})")
    return 1 if failures else 0


def chosen(names: Sequence[str] | None) -> tuple[Protocol, ...]:
    """The protocols named (--protocol, whose choices are PROTOCOLS' names), in PROTOCOLS' order;
    all when none is: the test of one protocol (its truth, then its repetitions) can run alone, in
    sessions of its own, and resume. Pure."""
    return tuple(p for p in PROTOCOLS if not names or p.name in names)


def main(argv=None) -> int:
    parser = measurement_parser(
        __doc__,
        "directory to run into, or to resume (default: /tmp/vbench-planted-<time>)",
        "report on this directory (a previous --out); run nothing",
        "print every design's plan and estimated time; run nothing",
    )
    parser.add_argument(
        "--protocol",
        action="append",
        choices=[p.name for p in PROTOCOLS],
        help="test this protocol only (its truth and its repetitions); repeatable; default: every one",
    )
    args = parser.parse_args(argv)
    plan = lambda params_dir: _plan(params_dir, chosen(args.protocol))  # noqa: E731
    return measurement_main(args, report=from_directory, plan=plan, run=run, out_name="planted")


def _plan(params_dir: Path, protocols: Sequence[Protocol] = PROTOCOLS) -> tuple[str, list]:
    studies = load_studies(params_dir, protocols)
    return plan_lines(studies, protocols), list(studies.values())


if __name__ == "__main__":
    sys.exit(main())

"""The precision benchmark (issue #19 item 3): how precisely vbench measures on this machine.

Runs the `precision` design (params/experiments/precision.yaml: native and LXC with the A/A
self-check `native~aa`, 2 blocks of 3 interleaved rounds, the clusters of a block up together;
sysbench cpu, TeraSort 32 MB and Pi) through the campaign runner `vbench campaign run` uses, into
a campaign directory (--out, default under /tmp), then prints per comparison with native (each
platform, the A/A copy included; each Hadoop job-time metric, from the JobHistory server, and
sysbench's events/s):

  ratio           the statistics table's preferred ratio to native (vbench.stats.compute_stats,
                  read as the adaptive stopping rule reads it: vbench.stats.stopping)
  +/-95 %         that interval's half-width, % of the ratio; and the method that produced it
  CV within block the mean over blocks of SD/mean of the platform's measured (not warm-up) runs
                  in the block (and native's): the run-to-run noise the rounds pair against
  runs            measured runs of the platform / of native, and the pairs behind the interval
  flagged         runs of the comparison taken while the quiet-machine gate flagged the machine
  A/A             the A/A check's verdict (native~aa rows)

then where the variance lives (vbench.stats.variance, as the statistics stage's stats.json has
it): each configuration's log metric and each comparison's log ratio split into drift (the quiet
gate's CPU probe as a covariate), cluster instance (block), round and run, with the share of each;

then the protocols at equal machine time (issue #51 item 5), from the same runs: per comparison and
Hadoop step with a wall time beside its job time (TeraGen, TeraSort, TeraValidate),
  (a) the peers' reading (HiBench, PKB): the wall clock around the step's `hadoop jar`, ratio of
      the two configurations' means, Fieller's interval for independent means (blocks ignored);
  (b) the default design's reading: the JobHistory job time, the paired row above;
  (c) a candidate protocol's (CANDIDATE_DESIGNS): its own paired row, when the campaign is one;
      else "no protocol adopted yet";
and the ratio of the widths, (a) over the paired one;

with the campaign's minutes, the load average before and during the run, the runs taken on a
flagged machine, as a Markdown table, and the same as JSON in <campaign>/precision-report.json.

It refuses to measure on a loaded machine: a 1-minute load average >= 1.0 before it starts is
refused (exit 2) unless --allow-loaded, which marks the report LOADED in its first line. During
the run a thread reads the load average every 30 s (kept in <campaign>/precision-run.json).

    python3 selfbench/precision.py [--out DIR] [--allow-loaded]   # run (~42 min here), then report
    python3 selfbench/precision.py --plan                          # the runner's plan and time estimate
    python3 selfbench/precision.py --campaign DIR                  # report on a campaign already run
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vbench.campaign.design import Experiment, expand, sessions  # noqa: E402
from vbench.campaign.progress import clock_text, eta_seconds  # noqa: E402
from vbench.errors import ParamsError  # noqa: E402
from vbench.samples import QUIET_VERDICT, is_aa  # noqa: E402
from vbench.stats import DEFAULT_SEED, compute_stats  # noqa: E402
from vbench.stats.bootstrap import DEFAULT_RESAMPLES  # noqa: E402
from vbench.stats.paired import PAIRED_T  # noqa: E402
from vbench.stats.quiet import quiet_counts  # noqa: E402
from vbench.stats.ratio import fieller_interval  # noqa: E402
from vbench.stats.stopping import preferred_ratio_rows, width_of, workload_label  # noqa: E402
from vbench.stats.variance import VarianceRow, campaign_variance  # noqa: E402
from vbench.stats.variance import markdown as variance_markdown  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DESIGN = "precision"
BASELINE = "native"
#: A 1-minute load average at or above this before the run: the machine is busy; refused.
LOAD_LIMIT = 1.0
LOAD_INTERVAL_S = 30.0
#: What the report quotes: every Hadoop job time as the JobHistory server gives it, and the CPU figure.
JOB_TIME_SUFFIX = "_job_time"
CPU_METRIC = ("cpu", "events_per_s")
#: `precision.json` is the adaptive stopping rule's record (vbench.pipeline.PRECISION_RECORD).
REPORT_FILE = "precision-report.json"
RUN_FILE = "precision-run.json"
#: Issue #51's candidate protocols (params/experiments/lean*.yaml): a campaign of one of these
#: designs reads as protocol (c); any other as the default design's kind, (b).
CANDIDATE_DESIGNS = frozenset({"lean", "lean-freeze", "lean-2maps", "lean-duet", "lean-duet-groups", "lean-split-aa"})
NO_PROTOCOL = "no protocol adopted yet"


# --- the analysis: a pure function of the samples table ---------------------------------------


@dataclass(frozen=True)
class ComparisonRow:
    benchmark: str
    size: str
    metric: str
    platform: str
    baseline: str
    ratio: float | None
    ci_low: float | None
    ci_high: float | None
    half_width_pct: float | None
    method: str
    cv_within_block_pct: float | None  # the platform's
    cv_within_block_baseline_pct: float | None
    n: int
    n_baseline: int
    n_pairs: int | None
    flagged: int  # measured runs of the platform and of the baseline taken on a flagged machine
    aa_verdict: str  # the A/A check's, on the A/A copy's rows; else empty

    @property
    def label(self) -> str:
        return workload_label(self.benchmark, self.size, self.metric)


@dataclass(frozen=True)
class ProtocolRow:
    """One comparison and Hadoop step read two ways from the same runs: (a) as HiBench and PKB read
    it (wall time around the step's `hadoop jar`, ratio of means, Fieller, blocks ignored) and as
    vbench does (JobHistory job time, the report's paired row): (b) in a campaign of the default
    design's kind, (c) in one of a candidate protocol (`protocol` says which)."""

    benchmark: str
    size: str
    step: str  # "terasort": the wall metric is terasort_time, the job metric terasort_job_time
    platform: str
    baseline: str
    peers_ratio: float | None
    peers_half_width_pct: float | None
    peers_n: int
    peers_n_baseline: int
    ratio: float | None  # the paired reading's (the report's row of the job time)
    half_width_pct: float | None
    method: str
    n_pairs: int | None
    protocol: str  # "b" (the default design's kind) or "c" (a candidate protocol's design)

    @property
    def width_ratio(self) -> float | None:
        """(a)'s half-width over the paired one's: how much wider the peers' reading is."""
        a, p = self.peers_half_width_pct, self.half_width_pct
        return None if a is None or not p else a / p


def half_width_pct(low: float | None, high: float | None, estimate: float | None) -> float | None:
    """(high - low) / 2 / |estimate| in %, as the stopping rule's `width_of`; None when unbounded."""
    if low is None or high is None or not estimate:
        return None
    return 100 * (high - low) / 2 / abs(estimate)


def protocol_rows(samples: pd.DataFrame, rows, protocol: str = "b") -> tuple[ProtocolRow, ...]:
    """The protocols' readings of each `rows` job-time comparison (ComparisonRows) whose step has a
    wall time in `samples` (tidy, with `size`): (a) Fieller over the measured runs' wall times of
    the platform and the baseline, every run independent; beside it the row's own paired reading,
    labelled `protocol`. The same runs, so the same machine time. Pure."""
    measured = _measured(samples)
    out = []
    for r in rows:
        if not r.metric.endswith(JOB_TIME_SUFFIX):
            continue
        step = r.metric[: -len(JOB_TIME_SUFFIX)]
        cell = measured[
            (measured["benchmark"] == r.benchmark)
            & (measured["size"] == r.size)
            & (measured["metric"] == f"{step}_time")
        ]
        x = cell.loc[cell["platform"] == r.platform, "value"].to_numpy(dtype=float)
        y = cell.loc[cell["platform"] == r.baseline, "value"].to_numpy(dtype=float)
        if x.size == 0 or y.size == 0:
            continue
        a = fieller_interval(x, y)
        out.append(
            ProtocolRow(
                r.benchmark,
                r.size,
                step,
                r.platform,
                r.baseline,
                a.estimate,
                half_width_pct(a.low, a.high, a.estimate),
                int(x.size),
                int(y.size),
                r.ratio,
                r.half_width_pct,
                r.method,
                r.n_pairs,
                protocol,
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class PrecisionReport:
    campaign: str
    rows: tuple[ComparisonRow, ...]
    #: Minutes the campaign took, and where the figure comes from ("runner", "samples' timestamps").
    minutes: float | None
    minutes_source: str
    runs: int  # every run with a verdict-bearing row, warm-ups included
    flagged_runs: int
    measured_runs: int  # not warm-up
    flagged_measured_runs: int
    unchecked_runs: int  # no gate verdict (gate off, or a campaign from before it)
    aa: tuple[tuple[str, str], ...]  # (comparison, verdict)
    exclusion_rule: str
    #: Where the variance lives: each reported metric per configuration and per comparison.
    variance: tuple[VarianceRow, ...] = ()
    #: The protocols at equal machine time, from the same runs (issue #51 item 5).
    protocols: tuple[ProtocolRow, ...] = ()
    design: str = ""  # the campaign's design, which says whether its paired rows are (b) or (c)


def is_reported(benchmark: str, metric: str) -> bool:
    return metric.endswith(JOB_TIME_SUFFIX) or (benchmark, metric) == CPU_METRIC


def _measured(df: pd.DataFrame) -> pd.DataFrame:
    if "warmup" not in df.columns:
        return df
    return df[~df["warmup"].fillna(False).astype(bool)]


def cv_within_block(runs: pd.DataFrame) -> float | None:
    """Mean over blocks of SD/mean (ddof 1) of the measured runs' values in each block, in %; blocks
    with fewer than 2 measured runs give no SD and are left out. None when no block has 2."""
    runs = _measured(runs)
    by_block = runs.groupby("block", sort=True)["value"] if "block" in runs.columns else [(0, runs["value"])]
    cvs = []
    for _, values in by_block:
        x = values.to_numpy(dtype=float)
        if x.size >= 2 and x.mean() != 0:
            cvs.append(float(x.std(ddof=1) / x.mean()))
    return 100 * float(np.mean(cvs)) if cvs else None


def _runs(df: pd.DataFrame) -> pd.DataFrame:
    """One row per run (a run's metrics share its run_id and verdict)."""
    if "run_id" not in df.columns:
        return df
    ids = df["run_id"]
    return df[ids.isna() | (ids.astype(str) == "") | ~ids.duplicated()]


def _flagged(df: pd.DataFrame) -> int:
    if QUIET_VERDICT not in df.columns:
        return 0
    return int((_runs(df)[QUIET_VERDICT].fillna("").astype(str) == "flagged").sum())


def _minutes(samples: pd.DataFrame, seconds: float | None) -> tuple[float | None, str]:
    if seconds is not None:
        return seconds / 60, "runner"
    if "timestamp" in samples.columns and samples["timestamp"].notna().sum() >= 2:
        ts = samples["timestamp"].astype(float)
        # A sample is stamped when its run ends: the span misses the first run and the first bring-up.
        return (ts.max() - ts.min()) / 60, "samples' timestamps, first to last run's end"
    return None, "unknown"


def _opt(v) -> float | None:
    return None if v is None or pd.isna(v) else float(v)


def analyse(
    samples: pd.DataFrame,
    baseline: str = BASELINE,
    *,
    campaign: str = "",
    design: str = "",
    seconds: float | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PrecisionReport:
    """The precision report of a campaign's tidy samples (vbench.pipeline.tidy + headline). Pure.

    Ratios, intervals and methods are the statistics table's preferred ratio rows (warm-up runs
    excluded by its rule); CVs and flagged counts are over the measured runs. `seconds`: how long
    the campaign took, when the caller knows (the runner's result); else the samples' time span.
    `design`: the campaign's design name (CANDIDATE_DESIGNS: its paired rows read as protocol (c))."""
    keep = [is_reported(b, m) for b, m in zip(samples["benchmark"], samples["metric"])]
    sub = samples[keep].reset_index(drop=True)
    variance = campaign_variance(sub, {}, is_reported, default_baseline=baseline) if not sub.empty else ()
    table = compute_stats(sub, baseline=baseline, n_resamples=n_resamples, seed=seed) if not sub.empty else None
    rows: list[ComparisonRow] = []
    aa: list[tuple[str, str]] = []
    if table is not None:
        size = sub["size"].fillna("").astype(str) if "size" in sub.columns else pd.Series("", index=sub.index)
        sub = sub.assign(size=size)
        verdicts = {
            (r.benchmark, r.size or "", r.metric, r.platform): r.verdict
            for r in table[table["statistic"] == "aa_check"].itertuples(index=False)
        }
        for r in preferred_ratio_rows(table).itertuples(index=False):
            w = width_of(r)
            cell = sub[
                (sub["benchmark"] == r.benchmark) & (sub["metric"] == r.metric) & (sub["size"] == (r.size or ""))
            ]
            mine, base = cell[cell["platform"] == r.platform], cell[cell["platform"] == baseline]
            verdict = verdicts.get((r.benchmark, r.size or "", r.metric, r.platform), "")
            row = ComparisonRow(
                benchmark=r.benchmark,
                size=r.size or "",
                metric=r.metric,
                platform=r.platform,
                baseline=baseline,
                ratio=w.ratio,
                ci_low=_opt(r.ci_low),
                ci_high=_opt(r.ci_high),
                half_width_pct=w.half_width_pct,
                method=w.method,
                cv_within_block_pct=cv_within_block(mine),
                cv_within_block_baseline_pct=cv_within_block(base),
                n=len(_measured(mine)),
                n_baseline=len(_measured(base)),
                n_pairs=None if pd.isna(r.n_pairs) else int(r.n_pairs),
                flagged=_flagged(_measured(mine)) + _flagged(_measured(base)),
                aa_verdict=verdict,
            )
            rows.append(row)
            if is_aa(r.platform):
                aa.append((row.label, verdict or "A/A: no verdict"))
    everything = quiet_counts(samples)
    measured = quiet_counts(_measured(samples))
    minutes, source = _minutes(samples, seconds)
    rows.sort(key=lambda x: (x.benchmark, x.size, x.metric, not is_aa(x.platform), x.platform))
    sized = samples.assign(size=samples["size"].fillna("").astype(str) if "size" in samples.columns else "")
    return PrecisionReport(
        campaign=campaign,
        design=design,
        protocols=protocol_rows(sized, rows, "c" if design in CANDIDATE_DESIGNS else "b"),
        rows=tuple(rows),
        minutes=minutes,
        minutes_source=source,
        runs=everything.runs if everything else len(_runs(samples)),
        flagged_runs=everything.flagged if everything else 0,
        measured_runs=measured.runs if measured else len(_runs(_measured(samples))),
        flagged_measured_runs=measured.flagged if measured else 0,
        unchecked_runs=everything.unchecked if everything else len(_runs(samples)),
        aa=tuple(aa),
        exclusion_rule=table.attrs.get("exclusion_rule", "") if table is not None else "",
        variance=variance,
    )


# --- the load average --------------------------------------------------------------------------


@dataclass(frozen=True)
class LoadRecord:
    """The 1-minute load average before the run and during it (every `interval_s`)."""

    limit: float
    before: float | None
    during: tuple[float, ...] = ()
    interval_s: float = LOAD_INTERVAL_S
    allowed_loaded: bool = False

    @property
    def loaded(self) -> bool:
        return self.before is not None and self.before >= self.limit

    def line(self) -> str:
        if self.before is None:
            return "load average (1 min): not recorded (a campaign not run by this script)"
        out = f"load average (1 min): {self.before:.2f} before the run (limit {self.limit:.1f})"
        if self.during:
            d = self.during
            out += (
                f"; during: min {min(d):.2f}, mean {sum(d) / len(d):.2f}, max {max(d):.2f} "
                f"({len(d)} readings, every {self.interval_s:g} s)"
            )
        return out

    @classmethod
    def of(cls, doc: Mapping) -> "LoadRecord":
        return cls(
            doc["limit"], doc["before"], tuple(doc.get("during", ())), doc.get("interval_s", 30), doc["allowed_loaded"]
        )


def read_load1(path: Path = Path("/proc/loadavg")) -> float:
    from vbench.inventory.checks import parse_loadavg

    return parse_loadavg(path.read_text())


class LoadSampler:
    """A daemon thread that reads the 1-minute load average every `interval_s` until stopped."""

    def __init__(self, interval_s: float = LOAD_INTERVAL_S, read: Callable[[], float] | None = None):
        self.interval_s, self.read = interval_s, read or (lambda: read_load1())
        self.readings: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="load-sampler", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.readings.append(self.read())

    def start(self) -> "LoadSampler":
        self._thread.start()
        return self

    def stop(self) -> list[float]:
        self._stop.set()
        self._thread.join(timeout=5)
        return list(self.readings)


# --- output ------------------------------------------------------------------------------------


def _pct(v: float | None, sign: str = "") -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{sign}{v:.1f} %"


def first_line(report: PrecisionReport, load: LoadRecord) -> str:
    head = f"vbench precision benchmark, campaign {report.campaign or '?'}"
    if load.loaded:
        return f"# LOADED machine (load average {load.before:.2f} before the run, limit {load.limit:.1f}): {head}"
    return f"# {head}"


def markdown(report: PrecisionReport, load: LoadRecord, failures: int = 0) -> str:
    minutes = "unknown" if report.minutes is None else f"{report.minutes:.1f} min ({report.minutes_source})"
    lines = [
        first_line(report, load),
        "",
        f"- {load.line()}",
        f"- quiet-machine gate: {report.flagged_runs} of {report.runs} runs taken on a flagged machine "
        f"({report.flagged_measured_runs} of the {report.measured_runs} measured, not warm-up, runs)"
        + (f"; {report.unchecked_runs} runs without a verdict" if report.unchecked_runs else ""),
        f"- campaign: {minutes}" + (f"; {failures} failed runs" if failures else ""),
        f"- warm-up runs: {report.exclusion_rule or 'no exclusion rule'}",
    ]
    lines += [f"- A/A {label}: {verdict}" for label, verdict in report.aa] or ["- A/A: no A/A comparison"]
    lines += [
        "",
        "| comparison | metric | ratio | +/-95 % | method | CV within block | runs (pairs) | flagged | A/A |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report.rows:
        ratio = "-" if r.ratio is None else f"{r.ratio:.3f}"
        cv = f"{_pct(r.cv_within_block_pct)} ({r.baseline} {_pct(r.cv_within_block_baseline_pct)})"
        pairs = "" if r.n_pairs is None else f" ({r.n_pairs})"
        lines.append(
            f"| {r.platform} / {r.baseline} | {r.label} | {ratio} | {_pct(r.half_width_pct, '+/-')} | {r.method} "
            f"| {cv} | {r.n} / {r.n_baseline}{pairs} | {r.flagged} | {r.aa_verdict.split(':')[0]} |"
        )
    if not report.rows:
        lines.append("| - | no comparison with the baseline in these samples | | | | | | | |")
    if report.variance:
        lines += [
            "",
            "Where the variance lives: each level's share of the variance of a configuration's log metric, and of "
            "a comparison's log ratio (what the paired interval's width depends on); drift is the part the quiet "
            "gate's CPU probe explains, with its slope (% per % of probe time).",
            "",
            variance_markdown([v.record() for v in report.variance]).rstrip("\n"),
        ]
    return "\n".join(lines + protocols_markdown(report)) + "\n"


def _reading(ratio: float | None, half_width: float | None, method: str = PAIRED_T) -> str:
    text = "-" if ratio is None else f"{ratio:.3f} {_pct(half_width, '+/-')}"
    return text if method == PAIRED_T else f"{text} ({method})"


def protocols_markdown(report: PrecisionReport) -> list[str]:
    """The protocols section: (a), (b), (c) side by side, from the same runs."""
    if not report.protocols:
        return []
    minutes = "unknown" if report.minutes is None else f"{report.minutes:.1f} min"
    kind = f"design {report.design or '?'}: " + (
        "a candidate protocol, so its paired rows are (c)" if report.design in CANDIDATE_DESIGNS else "(b)'s kind"
    )
    lines = [
        "",
        f"Protocols at equal machine time ({minutes}, {kind}): the same runs read as (a) HiBench and PKB do (the "
        "wall clock around the step's `hadoop jar`, ratio of the configurations' means, Fieller's interval, "
        "blocks ignored) and as vbench does (the JobHistory job time, paired t over blocks: (b) the default "
        "design's kind, (c) a candidate protocol's). Same runs, so this compares what is timed and how it is "
        "analysed, not scheduling; a HiBench user would also not randomise the order nor run an A/A copy.",
        "",
        "| comparison | step | (a) peers: wall, unpaired | (b) default: job time, paired | (c) new protocol "
        "| runs (pairs) | width (a) / paired |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in report.protocols:
        a = _reading(p.peers_ratio, p.peers_half_width_pct)
        mine = _reading(p.ratio, p.half_width_pct, p.method)
        b, c = (mine, NO_PROTOCOL) if p.protocol == "b" else ("- (another design)", mine)
        pairs = "" if p.n_pairs is None else f" ({p.n_pairs})"
        w = "-" if p.width_ratio is None else f"{p.width_ratio:.2f}"
        step = f"{p.benchmark}[{p.size}] {p.step}" if p.size else f"{p.benchmark} {p.step}"
        lines.append(
            f"| {p.platform} / {p.baseline} | {step} | {a} | {b} | {c} | {p.peers_n} / {p.peers_n_baseline}{pairs} "
            f"| {w} |"
        )
    return lines


def report_json(report: PrecisionReport, load: LoadRecord, failures: int = 0) -> dict:
    doc = asdict(report)
    doc["aa"] = [{"comparison": c, "verdict": v} for c, v in report.aa]
    doc["rows"] = [{**asdict(r), "comparison": f"{r.platform}/{r.baseline}", "label": r.label} for r in report.rows]
    doc["variance"] = [v.record() for v in report.variance]  # as the statistics stage's stats.json has them
    doc["protocols"] = [
        {**asdict(p), "comparison": f"{p.platform}/{p.baseline}", "width_ratio": p.width_ratio}
        for p in report.protocols
    ]
    return {
        "first_line": first_line(report, load),
        "loaded": load.loaded,
        "load": asdict(load),
        "failures": failures,
        **doc,
    }


# --- the plan and its time, by the runner's own plan and ETA arithmetic -------------------------


@dataclass(frozen=True)
class Costs:
    """Seconds per run (by benchmark, with what the runner does between runs), per cluster
    bring-up and teardown (by platform), and per quiet-gate check; measured here (sources in
    DEFAULT_COSTS)."""

    per_run_s: Mapping[str, float]
    bringup_s: Mapping[str, float]
    gate_s: float


#: terasort: 32 MB, 100 ms client polling: 48.8-50.6 s of TeraGen + TeraSort + TeraValidate wall
#: time (data/raw/poll-interval), plus removing the run's HDFS output (a client JVM, ~3 s).
#: pi: ~12 s of job start-up (the 2026-11-22 reference campaign, native) + ~9 s of map work (10^9 samples at
#: ~9 ns, QuasiMonteCarlo's loop timed on this machine) + client JVM and output removal (~7 s).
#: cpu: time_s 5 + sysbench start and SSH (~1 s). Bring-up: testbed + Hadoop 34-37 s native
#: (docs/results.md), LXC ~60 s (the integration smoke, 99-134 s with a 64 MB TeraSort), plus
#: ~11 s of teardown. Gate: its 2 s window and reading /proc.
DEFAULT_COSTS = Costs({"terasort": 55.0, "pi": 28.0, "cpu": 6.0}, {"native": 47.0, "lxc": 71.0}, 2.5)


@dataclass(frozen=True)
class PlanEstimate:
    runs: Mapping[str, int]  # "benchmark" or "benchmark (warm-up)" -> runs
    sessions: int
    bringups: int
    gate_checks: int
    seconds: float
    parts: Mapping[str, float] = field(default_factory=dict)


def estimate(exp: Experiment, costs: Costs = DEFAULT_COSTS) -> PlanEstimate:
    """The time the runner will take for `exp`: its plan (vbench.campaign.design.sessions, warm-up
    runs included), each run costed by the progress bar's ETA rule (vbench.campaign.progress.
    eta_seconds: the mean time of its kind), plus one bring-up per configuration and session
    and one quiet-gate check per round, as the runner cuts rounds (consecutive runs of one
    block and round). Pure."""
    plan = sessions(exp, expand(exp))
    runs = [c for s in plan for c in s.runs]
    prior = [(b, s) for b, s in costs.per_run_s.items()]
    run_s = eta_seconds(prior, [c.variant.benchmark for c in runs]) or 0.0
    up = [c.platform for s in plan for c in s.configs]
    up_s = sum(costs.bringup_s.get(p, max(costs.bringup_s.values())) for p in up)
    gates = len([k for k, _ in groupby(runs, key=lambda c: (c.block, c.round or 0))])
    counts: dict[str, int] = {}
    for c in runs:
        key = c.variant.benchmark + (" (warm-up)" if c.warms_up else "")
        counts[key] = counts.get(key, 0) + 1
    gate_s = gates * costs.gate_s if exp.quiet.mode != "off" else 0.0
    return PlanEstimate(
        counts,
        len(plan),
        len(up),
        gates,
        run_s + up_s + gate_s,
        {"runs": run_s, "bring-up and teardown": up_s, "quiet gate": gate_s},
    )


def plan_text(exp: Experiment, est: PlanEstimate) -> str:
    runs = ", ".join(f"{n} {k}" for k, n in sorted(est.runs.items()))
    parts = ", ".join(f"{k} {clock_text(v)}" for k, v in est.parts.items())
    return (
        f"design {exp.name}: {', '.join(c.key for c in exp.configurations())}; {exp.repetitions} blocks x "
        f"{exp.rounds} rounds ({exp.interleave}); {len(expand(exp))} cells\n"
        f"plan: {est.sessions} sessions, {est.bringups} cluster bring-ups, {est.gate_checks} quiet-gate checks; "
        f"runs: {runs}\n"
        f"estimated time: {clock_text(est.seconds)} ({parts})"
    )


# --- running ----------------------------------------------------------------------------------


def load_design(params_dir: Path):
    from vbench.campaign.study import load_study

    return load_study(params_dir, DESIGN)


def analyse_campaign(raw: Path, seconds: float | None = None) -> tuple[PrecisionReport, int]:
    from vbench.pipeline import headline, tidy
    from vbench.stats.compare import comparison_of

    samples, failures = tidy(raw)
    if samples.empty:
        raise SystemExit(f"{raw}: no samples")
    baseline = comparison_of(raw).baseline_or(BASELINE)
    meta = raw / "campaign.json"
    design = json.loads(meta.read_text()).get("experiment", {}).get("name", "") if meta.is_file() else ""
    report = analyse(headline(samples), baseline, campaign=raw.name, design=design, seconds=seconds)
    return report, len(failures)


def write_outputs(raw: Path, report: PrecisionReport, load: LoadRecord, failures: int) -> str:
    text = markdown(report, load, failures)
    doc = report_json(report, load, failures)
    (raw / REPORT_FILE).write_text(json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n")
    return text


def from_campaign(raw: Path) -> int:
    run_doc = json.loads((raw / RUN_FILE).read_text()) if (raw / RUN_FILE).is_file() else {}
    load = LoadRecord.of(run_doc["load"]) if "load" in run_doc else LoadRecord(LOAD_LIMIT, None)
    report, failures = analyse_campaign(raw, run_doc.get("seconds"))
    print(write_outputs(raw, report, load, failures), end="")
    print(f"(written to {raw / REPORT_FILE})")
    return 0


def refused_loaded(load1: float, allow_loaded: bool, what: str) -> bool:
    """Whether to refuse to measure (said on stderr): the 1-minute load average `load1` is at
    LOAD_LIMIT or above and a loaded machine is not allowed; `what` would measure that work."""
    if load1 < LOAD_LIMIT or allow_loaded:
        return False
    print(
        f"refused: the 1-minute load average is {load1:.2f} (limit {LOAD_LIMIT:g}); this machine is busy, and "
        f"{what} measured now would measure that work. Wait, or pass --allow-loaded (the report is then marked "
        "LOADED).",
        file=sys.stderr,
    )
    return True


def write_run_record(path: Path, load: LoadRecord, seconds: float | None, started: float, **more) -> None:
    """The run's record beside its report: its load readings, how long it took, when, and `more`."""
    doc = {"load": asdict(load), "seconds": seconds, "started": started, "ended": time.time(), **more}
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def run(args) -> int:
    before = read_load1()
    if refused_loaded(before, args.allow_loaded, "a precision figure"):
        return 2
    from vbench.campaign.progress import ProgressReport
    from vbench.campaign.runner import run_campaign
    from vbench.pipeline import precision_hook

    study = load_design(args.params_dir)
    if refused_designs([study]):
        return 2
    exp = study.experiment
    raw = args.out
    print(plan_text(exp, estimate(exp)), flush=True)
    print(f"load average before: {before:.2f}; campaign directory: {raw}", flush=True)
    raw.mkdir(parents=True, exist_ok=True)
    report_ = ProgressReport()
    sampler = LoadSampler(args.load_interval).start()
    t0, started = time.monotonic(), time.time()
    result = None
    try:
        result = run_campaign(
            exp,
            study.testbed,
            study.hadoop,
            raw,
            log=report_.note,
            progress=report_,
            round_hooks=precision_hook(exp, raw, report_.note),
        )
    finally:  # the load readings are kept also when the run is cut short
        during = sampler.stop()
        # A resumed campaign's runner time is the resumed part's: then the samples' span says more.
        seconds = time.monotonic() - t0 if result is None else None if result.already_done else result.seconds
        load = LoadRecord(LOAD_LIMIT, before, tuple(during), args.load_interval, args.allow_loaded)
        result_doc = None if result is None else {**asdict(result), "ran": len(result.ran)}
        write_run_record(raw / RUN_FILE, load, seconds, started, result=result_doc)
    if result.stopped:
        print(f"campaign stopped: {result.stopped}")
    report, failures = analyse_campaign(raw, seconds)
    print()
    print(write_outputs(raw, report, load, failures), end="")
    print(f"(written to {raw / REPORT_FILE}; the run's load readings in {raw / RUN_FILE})")
    return 1 if result.failures else 0


def default_out(name: str = "precision") -> Path:
    return Path(tempfile.gettempdir()) / f"vbench-{name}-{time.strftime('%Y%m%d-%H%M%S')}"


def measurement_parser(doc: str, out_help: str, campaign_help: str, plan_help: str) -> argparse.ArgumentParser:
    """The options of a self-benchmark that runs campaigns on this machine (this one, planted.py):
    where to run, a directory to report on instead, the plan only, a loaded machine allowed."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--out", type=Path, help=out_help)
    p.add_argument("--campaign", type=Path, help=campaign_help)
    p.add_argument("--plan", action="store_true", help=plan_help)
    p.add_argument("--allow-loaded", action="store_true", help="run on a loaded machine; the report says LOADED")
    p.add_argument("--params-dir", type=Path, default=REPO / "params")
    p.add_argument("--load-interval", type=float, default=LOAD_INTERVAL_S, help=argparse.SUPPRESS)
    return p


def block_refusal(study, machine=None) -> str | None:
    """The runner's own refusal of a design whose configurations this machine cannot hold (each
    cluster, and a block's clusters together), as the one line a user reads: the design, its file
    and the field; None when it holds them. `machine`: MachineFacts, by default read from /proc."""
    from vbench.campaign.hosts_source import TestbedSource
    from vbench.campaign.runner import configuration_params

    exp = study.experiment
    try:
        configuration_params(exp, study.testbed, study.hadoop, TestbedSource(), frozenset({"micro", "hadoop"}), machine)
    except ParamsError as exc:
        return f"refused: design {exp.name} ({_shown(study.experiment_path)}): {exc}"
    return None


def _shown(path: Path) -> str:
    """A design's file as the repository names it, else as given."""
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def refused_params(exc: ParamsError) -> int:
    """A params or design file refused as it loaded (the error names the file and field): said in
    one line on stderr, as `vbench` says it, never as a traceback; the exit status."""
    print(f"refused: {exc}", file=sys.stderr)
    return 2


def refused_designs(studies, machine=None) -> bool:
    """Whether any of `studies` is refused (each refusal a line on stderr), before anything starts."""
    refusals = [r for r in (block_refusal(s, machine) for s in studies) if r is not None]
    for line in refusals:
        print(line, file=sys.stderr)
    return bool(refusals)


def measurement_main(args: argparse.Namespace, *, report, plan, run, out_name: str = "precision") -> int:
    """A self-benchmark's main once `measurement_parser` has read its options (this one,
    planted.py): report on a directory already run (--campaign: `report(directory)`), print the
    plan (--plan: `plan(params_dir)` gives its text and the studies, each refused on stderr when
    this machine cannot hold it), or run into --out (`run(args)`). A params or design file refused
    as it loads is one line on stderr, and so is an interrupt (exit 130; every testbed is down by
    the time it arrives here). The exit status."""
    try:
        if args.campaign is not None:
            return report(args.campaign)
        if args.plan:
            text, studies = plan(args.params_dir)
            print(text)
            if refused_designs(studies):
                return 2
            print(f"the machine holds every configuration of a block together; load average now {read_load1():.2f}")
            return 0
        args.out = args.out or default_out(out_name)
        return run(args)
    except ParamsError as exc:
        return refused_params(exc)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (vbench.lifecycle.Terminated): torn down by then
        print(f"{out_name}: interrupted ({exc or 'SIGINT'}); the same --out resumes it", file=sys.stderr)
        return 130


def _plan(params_dir: Path) -> tuple[str, list]:
    study = load_design(params_dir)
    return plan_text(study.experiment, estimate(study.experiment)), [study]


def main(argv=None) -> int:
    args = measurement_parser(
        __doc__,
        "campaign directory to run into (default: /tmp/vbench-precision-<time>)",
        "report on this campaign directory; run nothing",
        "print the design's plan and estimated time; run nothing",
    ).parse_args(argv)
    return measurement_main(args, report=from_campaign, plan=_plan, run=run)


if __name__ == "__main__":
    sys.exit(main())

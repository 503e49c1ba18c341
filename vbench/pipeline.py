"""The pipeline's stages as functions: what each notebook (a DVC stage) calls.

provision -> calibrate -> suite (measurement: append to data/raw/<campaign>/)
tidy -> statistics -> paper (analysis: data/processed/<campaign>/, paper/); the paper reads the
statistics stage's table (`processed_of` says where it lies for a campaign directory). The
statistics stage also writes the cost model's predicted-vs-measured rows of the campaign
(`predictions`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable

import pandas as pd

from vbench import durable
from vbench.campaign.completeness import PRECISION_RECORD, stopped_by_precision
from vbench.campaign.design import Configuration, Experiment
from vbench.campaign.progress import ProgressReport
from vbench.campaign.hosts_source import TestbedSource
from vbench.campaign.runner import ALL_KINDS, CampaignResult, configuration_params, params_for, run_campaign
from vbench.campaign.study import Study, load_study
from vbench.params import HadoopParams, TestbedParams
from vbench.stats import DEFAULT_SEED
from vbench.stats.bootstrap import DEFAULT_RESAMPLES
from vbench.stats.campaign import load_campaign
from vbench.stats.campaign_stats import StatsConfig, campaign_stats, write_campaign_stats
from vbench.stats.compare import Comparison, comparison_of, comparison_view
from vbench.stats.dvc_views import headline_metrics, run_plot_rows, write_metrics, write_plot_rows
from vbench.stats.headlines import quoted_headlines
from vbench.stats.predicted_rows import (
    PREDICTIONS_CSV,
    PREDICTIONS_JSON,
    predicted_beside,
    predictions_frame,
    predictions_json,
)
from vbench.stats.stopping import precision_decision
from vbench.stats.table.writer import write_table
from vbench.stats.tidy import add_cells, read_campaign
from vbench.store import CampaignStore
from vbench.testbed import Testbed

Log = Callable[[str], None]

#: Per-attempt timings and counters: kept in the tidy data, left out of what the measurement
#: notebooks show (the statistics table chooses its metrics by `vbench.stats.campaign_stats.wanted_metric`).
DETAIL_METRIC_PREFIXES = ("map_attempt_", "reduce_attempt_", "reducer_", "counter.")
#: What a measurement stage aimed at a committed campaign is told to do instead (no --append here:
#: a pipeline run that rewrites the committed reference is a slip, never the intent).
COMMITTED_HINT = "set pipeline.campaign in params/pipeline.yaml to a new campaign name"


@dataclass(frozen=True)
class Stage:
    """Where a stage reads and writes, all derived from the params directory and the campaign."""

    params_dir: Path
    data_dir: Path
    experiment_name: str
    campaign: str

    @cached_property
    def study(self) -> Study:
        """The design and its params files, all checked (every configuration too) on first use,
        so that a stage refuses a bad params file before it starts anything."""
        return load_study(self.params_dir, self.params_dir / "experiments" / f"{self.experiment_name}.yaml")

    @property
    def experiment(self) -> Experiment:
        return self.study.experiment

    @property
    def raw(self) -> Path:
        return self.data_dir / "raw" / self.campaign

    @property
    def processed(self) -> Path:
        return self.data_dir / "processed" / self.campaign

    def testbed(self) -> TestbedParams:
        return self.study.testbed

    def hadoop(self) -> HadoopParams:
        return self.study.hadoop

    def check_runnable(self) -> None:
        """Every check the suite stage makes before it starts anything (each cluster fits this
        machine, its replication its workers; configurations up together fit side by side), made
        by each measuring stage: a design the suite would refuse is refused before provision and
        calibration have spent their minutes on it."""
        configuration_params(self.experiment, self.testbed(), self.hadoop(), TestbedSource(), ALL_KINDS)


def provision(stage: Stage, log: Log = print) -> pd.DataFrame:
    """Bring each distinct testbed of the design up once, record every host's facts, tear it down.

    Checks that every platform and testbed factor level of the design works before hours of
    measurement, and gives the paper its testbed table (facts.json beside the samples)."""
    exp = stage.experiment
    CampaignStore(stage.raw).check_appendable(COMMITTED_HINT)  # facts.json there is committed too
    stage.check_runnable()
    testbeds: dict[str, tuple[Configuration, TestbedParams]] = {}
    for config in exp.configurations():  # configurations differing only in Hadoop params share a testbed
        tb, _ = params_for(exp, config, stage.testbed(), stage.hadoop())
        testbeds.setdefault(tb.model_dump_json(), (config, tb))
    rows = []
    report = ProgressReport(title="provision", unit="testbeds")
    report.begin([config.key for config, _ in testbeds.values()])
    try:
        for config, tb in testbeds.values():
            report.cell_started(config.key)
            Testbed(tb, log=log).down()
            with Testbed(tb, log=log) as bed:
                for h in bed.hosts:
                    rows.append(
                        {
                            "platform": config.platform,
                            "config": config.key,
                            "host": h.name,
                            "role": h.role,
                            "address": h.address,
                            "physical_host": h.physical_host,
                            "rack": h.rack,
                            "testbed_up_s": round(bed.bringup_seconds or 0.0, 2),
                            **dict(h.facts),
                        }
                    )
            report.cell_finished(config.key, None)
    finally:
        report.end()
    stage.raw.mkdir(parents=True, exist_ok=True)
    (stage.raw / "facts.json").write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    return pd.DataFrame(rows)


def measure(stage: Stage, kind: str, log: Log = print) -> CampaignResult:
    """Run (or resume) the design's calibration ("micro") or Hadoop suite ("hadoop") cells; the
    progress goes to stderr, which `vbench stage` copies to the terminal of `dvc repro`."""
    exp = stage.experiment  # a broken params file is reported before a committed campaign is
    CampaignStore(stage.raw).check_appendable(COMMITTED_HINT)
    stopped = stopped_by_precision(stage.raw)
    if stopped is not None and kind == "hadoop":
        log(f"campaign {stage.raw.name} was stopped by its precision rule: {stopped}")
        return CampaignResult(stopped=stopped)
    if kind != "hadoop":  # the suite's own cells: run_campaign makes these checks itself
        stage.check_runnable()
    report = ProgressReport()
    return run_campaign(
        exp,
        stage.testbed(),
        stage.hadoop(),
        stage.raw,
        log=log,
        kinds=frozenset({kind}),
        progress=report,
        # its decisions are said in the terminal, as the gate's are
        round_hooks=precision_hook(exp, stage.raw, report.note),
    )


def primary_comparisons(exp: Experiment) -> tuple[tuple[str, str], ...]:
    """The (benchmark, metric) pairs a design's precision target is about: its own list, else the
    paper's headline metrics of the design's benchmarks."""
    assert exp.precision is not None
    benchmarks = {spec.benchmark for spec in (*exp.calibrate, *exp.suite)}
    return exp.precision.primary() or tuple(sorted(p for p in quoted_headlines() if p[0] in benchmarks))


class PrecisionHook:
    """The runner's RoundHooks for adaptive stopping: after each round that ran a primary
    comparison's benchmark, the campaign's samples so far go through the statistics
    (vbench.stats.stopping.precision_decision); the decision is said on the terminal and kept in
    <campaign>/precision.json, and a stop ends the campaign there."""

    def __init__(self, exp: Experiment, raw: Path, log: Log = print, clock: Callable[[], float] = time.monotonic):
        assert exp.precision is not None
        self.exp, self.raw, self.log, self.clock = exp, raw, log, clock
        self.primary = primary_comparisons(exp)
        self.t0 = clock()
        path = raw / PRECISION_RECORD
        self.record = (
            json.loads(path.read_text())
            if path.is_file()
            else {
                "target_pct": exp.precision.target_pct,
                "primary": [f"{b}:{m}" for b, m in self.primary],
                "decisions": [],
                "stopped": None,
            }
        )
        last = self.record["decisions"][-1] if self.record["decisions"] else {}
        self.reached_at = last.get("reached_at")

    def before_round(self, info) -> dict:
        return {}

    def after_round(self, info) -> str | None:
        benchmarks = {b for b, _ in self.primary}
        if not any(any(f"/{b}" in cid for b in benchmarks) for cid in info.cell_ids):
            return None
        p = self.exp.precision
        samples, _ = tidy(self.raw)
        samples = headline(samples) if not samples.empty else samples
        decision = precision_decision(
            samples,
            comparison_of(self.raw).baseline_or("native"),
            self.primary,
            rounds_done=rounds_done(samples, self.primary),
            target_pct=p.target_pct,
            min_rounds=self.exp.precision_min_rounds,
            max_rounds=p.max_rounds or self.exp.repetitions * self.exp.rounds,
            extra_rounds=self.exp.precision_extra_rounds,
            rounds_per_block=self.exp.rounds,
            reached_at=self.reached_at,
            over_budget=bool(self.exp.budget_minutes) and self.clock() - self.t0 >= 60 * self.exp.budget_minutes,
        )
        self.reached_at = decision.reached_at
        self.log(decision.line())
        self.record["decisions"].append({"block": info.block, "round": info.round, **decision.record()})
        if decision.stop:
            self.record["stopped"] = {
                "verdict": decision.verdict,
                "reason": decision.reason,
                "rounds_done": decision.rounds_done,
            }
        self.raw.mkdir(parents=True, exist_ok=True)
        durable.write_text(self.raw / PRECISION_RECORD, json.dumps(self.record, indent=1, sort_keys=True) + "\n")
        return f"precision rule: {decision.verdict}: {decision.reason}" if decision.stop else None


def rounds_done(samples: pd.DataFrame, primary) -> int:
    """How many (block, round) units hold a measured (not warm-up) run of a primary comparison."""
    if samples.empty:
        return 0
    keep = pd.Series(
        [(b, m) in set(primary) for b, m in zip(samples["benchmark"], samples["metric"])], index=samples.index
    )
    if "warmup" in samples:
        keep &= ~samples["warmup"].fillna(False).astype(bool)
    cols = [c for c in ("block", "round") if c in samples.columns]
    return int(samples.loc[keep, cols].drop_duplicates().shape[0]) if cols else 0


def precision_hook(exp: Experiment, raw: Path, log: Log = print) -> PrecisionHook | None:
    """The adaptive stopping rule for the runner, when the design states a precision target."""
    return PrecisionHook(exp, raw, log) if exp.precision is not None else None


def tidy(raw: Path, comparison: Comparison | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(samples, failures) of a campaign as flat tables: one row per record, metadata as columns;
    `comparison` (default: the campaign's design) says what `platform` holds."""
    campaign = read_campaign(raw)
    df, failures = campaign.samples, campaign.failures
    if "size_mb" in df:
        df["size"] = df["size_mb"].map(lambda v: "" if pd.isna(v) else f"{int(v)}MB")
    comparison = comparison or comparison_of(raw)
    if not df.empty and (not comparison.is_platforms or any(c.startswith("factor.") for c in df.columns)):
        # The compared factor becomes `platform`; the other factors that vary make separate cells.
        df = comparison_view(df, comparison.compare)
        size = df["size"].fillna("") if "size" in df else ""
        df = add_cells(df.assign(size_label=size)).drop(columns="size_label")
    return df, failures


def write_tidy(raw: Path, out: Path) -> Path:
    c = comparison_of(raw)
    samples, failures = tidy(raw, c)
    out.mkdir(parents=True, exist_ok=True)
    # Parquet needs one type per column; metadata values of mixed types become text.
    for frame in (samples, failures):
        for col in frame.columns:
            if frame[col].dtype == object:
                frame[col] = frame[col].map(lambda v: v if v is None or isinstance(v, str) else json.dumps(v))
    samples.to_parquet(out / "samples.parquet", index=False)
    failures.to_parquet(out / "failures.parquet", index=False)
    (out / "comparison.json").write_text(json.dumps({"compare": list(c.compare), "baseline": c.baseline}) + "\n")
    return out / "samples.parquet"


def headline(samples: pd.DataFrame) -> pd.DataFrame:
    """The tidy samples worth a look after a measurement: no per-attempt timings or counters."""
    keep = ~samples["metric"].str.startswith(DETAIL_METRIC_PREFIXES)
    if "warmup" in samples:
        samples = samples.assign(warmup=samples["warmup"].fillna(False).astype(bool))
    return samples[keep].reset_index(drop=True)


def processed_of(raw: Path) -> Path | None:
    """data/processed/<campaign> for data/raw/<campaign> (`Stage.processed`): where the statistics
    stage writes; None for a campaign directory that is not in a data/raw/ directory."""
    raw = Path(raw)
    return raw.parent.parent / "processed" / raw.name if raw.parent.name == "raw" else None


def statistics(
    raw: Path,
    out: Path,
    baseline: str = "native",
    equivalence_pct: float = 5.0,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """The campaign's statistics table (`vbench.stats.campaign_stats`: each experiment against its
    baseline, which a factor study's design names itself, e.g. bridge), written into `out`
    (stats.parquet, stats.csv, stats.json): the table the paper reads."""
    cfg = StatsConfig(baseline=baseline, n_resamples=n_resamples, seed=seed, equivalence_pct=equivalence_pct)
    table = campaign_stats(load_campaign(raw), cfg)
    write_campaign_stats(table, cfg, raw, out)
    return table


def predictions(raw: Path, out: Path, fit_campaign: str | None, log: Log = print) -> pd.DataFrame:
    """The cost model's predicted-vs-measured rows of the campaign in `raw`
    (`vbench.stats.predicted_rows.predicted_beside`: each job it timed on each of its platforms,
    predicted from its own calibration by shares fitted on data/raw/<fit_campaign>, as `vbench
    predict <campaign> --fit <fit_campaign>` predicts it), written into `out` (predictions.csv,
    predictions.json); returns the CSV's table. Without a fit campaign (None or empty), or where
    the campaign cannot be predicted (no native calibrated, a fitted resource not calibrated, no job
    timed: the engine's refusal, naming the samples file), both files say why and so does `log`:
    the stage goes on; so does a fit campaign named but not in `raw`'s data directory. A fit
    campaign there that cannot be fitted is refused, naming its samples file."""
    raw = Path(raw)
    result = predicted_beside(raw, fit_campaign)
    frame = predictions_frame(result)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_table(frame, out / PREDICTIONS_CSV)
    (out / PREDICTIONS_JSON).write_text(json.dumps(predictions_json(result), indent=1) + "\n", encoding="utf-8")
    if result.skipped:
        log(f"predictions of {raw.name}: none ({result.skipped})")
    return frame


def dvc_views(raw: Path, table: pd.DataFrame, metrics_path: Path, plots_path: Path) -> tuple[Path, Path]:
    """What `dvc metrics show|diff` and `dvc plots show` read: the headline comparisons of `table`
    (ratio, 95 % interval, method, n) and every run of the same metrics. Both files lie outside
    data/processed/<campaign>, which DVC owns whole as one output of the statistics stage."""
    pairs = quoted_headlines()
    samples = load_campaign(raw).samples
    samples.attrs["source"] = str(Path(raw) / "samples.jsonl")
    return (
        write_metrics(headline_metrics(table, pairs), metrics_path),
        write_plot_rows(run_plot_rows(samples, pairs), plots_path),
    )

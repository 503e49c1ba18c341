"""The pipeline's stages as functions: what each notebook (a DVC stage) calls.

provision -> calibrate -> suite (measurement: append to data/raw/<campaign>/)
tidy -> statistics -> paper (analysis: data/processed/<campaign>/, paper/)
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable

import pandas as pd

from vbench.campaign.design import Configuration, Experiment
from vbench.campaign.compare import Comparison, comparison_of, comparison_view
from vbench.campaign.progress import ProgressReport
from vbench.campaign.runner import CampaignResult, params_for, run_campaign
from vbench.campaign.study import Study, load_study
from vbench.paper.macros import HEADLINES
from vbench.params import HadoopParams, TestbedParams
from vbench.stats import compute_stats, write_table
from vbench.stats.dvc_views import headline_metrics, run_plot_rows, write_metrics, write_plot_rows
from vbench.stats.tidy import add_cells, read_campaign
from vbench.store import CampaignStore
from vbench.testbed import Testbed

Log = Callable[[str], None]

#: Per-attempt timings and most counters are kept in the tidy data but left out of the
#: statistics table, whose groups are the paper's comparisons.
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


def provision(stage: Stage, log: Log = print) -> pd.DataFrame:
    """Bring each distinct testbed of the design up once, record every host's facts, tear it down.

    Checks that every platform and testbed factor level of the design works before hours of
    measurement, and gives the paper its testbed table (facts.json beside the samples)."""
    exp = stage.experiment
    CampaignStore(stage.raw).check_appendable(COMMITTED_HINT)  # facts.json there is committed too
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
                    rows.append({"platform": config.platform, "config": config.key, "host": h.name, "role": h.role,
                                 "address": h.address, "physical_host": h.physical_host, "rack": h.rack,
                                 "testbed_up_s": round(bed.bringup_seconds or 0.0, 2), **dict(h.facts)})
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
    return run_campaign(exp, stage.testbed(), stage.hadoop(), stage.raw, log=log,
                        kinds=frozenset({kind}), progress=ProgressReport())


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
    """The samples the statistics table compares: no per-attempt timings or counters."""
    keep = ~samples["metric"].str.startswith(DETAIL_METRIC_PREFIXES)
    if "warmup" in samples:
        samples = samples.assign(warmup=samples["warmup"].fillna(False).astype(bool))
    return samples[keep].reset_index(drop=True)


def headline_samples(tidy_path: Path) -> pd.DataFrame:
    """The tidy samples the statistics compare, tagged with the file they came from."""
    samples = headline(pd.read_parquet(tidy_path))
    samples.attrs["source"] = str(tidy_path)
    return samples


def statistics(tidy_path: Path, out: Path, baseline: str = "native", equivalence_pct: float = 5.0) -> pd.DataFrame:
    declared = tidy_path.parent / "comparison.json"
    if declared.is_file():  # a design comparing factor levels names its own baseline (e.g. bridge)
        baseline = json.loads(declared.read_text()).get("baseline") or baseline
    samples = headline_samples(tidy_path)
    table = compute_stats(samples, baseline=baseline, equivalence_pct=equivalence_pct)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_table(table, out)
    return table


def quoted_headlines() -> frozenset[tuple[str, str]]:
    """The (benchmark, metric) pairs the paper's text quotes: the study's headline numbers."""
    return frozenset((benchmark, metric) for benchmark, metric, *_ in HEADLINES)


def dvc_views(tidy_path: Path, table: pd.DataFrame, metrics_path: Path, plots_path: Path) -> tuple[Path, Path]:
    """What `dvc metrics show|diff` and `dvc plots show` read: the headline comparisons of `table`
    (ratio, 95 % interval, method, n) and every run of the same metrics. Both files lie outside
    data/processed/<campaign>, which DVC owns whole as one output of the statistics stage."""
    pairs = quoted_headlines()
    samples = headline_samples(tidy_path)
    return (write_metrics(headline_metrics(table, pairs), metrics_path),
            write_plot_rows(run_plot_rows(samples, pairs), plots_path))

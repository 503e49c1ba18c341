"""One execution in depth: what run `run_id` measured, its Hadoop counters beside the same
benchmark's other runs, its monitoring time series when it was monitored and, for a failure, the
reason and an excerpt of the log kept with it (data/raw/<campaign>/raw/<run id>/). Pure but for
reading those files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from vbench.explore.data import CampaignData, sort_naturally
from vbench.explore.design import run_table
from vbench.monitor.monitor import load_timeseries_file
from vbench.stats.campaign_stats import wanted_metric
from vbench.stats.keys import natural_key
from vbench.stats.tidy import value_text
from vbench.store import CampaignStore

COUNTER_PREFIX = "counter."
#: Lines of a log that say what went wrong (Java's and Hadoop's wording, a shell's exit).
PROBLEM = re.compile(r"\b(ERROR|FATAL|Exception|Error:|Caused by|exited|Killed|failed)\b")
#: Lines kept around each problem line, and at most this many lines in all.
CONTEXT_LINES = 2
EXCERPT_LINES = 40


@dataclass(frozen=True)
class RunFailure:
    reason: str
    step: str
    stderr_tail: str


@dataclass(frozen=True, eq=False)
class RunDetail:
    run_id: str
    benchmark: str
    level: str
    cell: str
    block: str
    round: str
    #: The run's position among the campaign's runs, 1 = first (0 for a failed run without samples).
    order: int
    #: benchmark, metric, value, unit: what the run gave of the metrics the statistics compare
    #: (per-attempt times are in the timeline).
    values: pd.DataFrame
    failure: RunFailure | None = None
    #: The log lines that say what went wrong (or the log's end), from the raw directory.
    log_excerpt: str = ""
    log_file: str = ""
    #: name -> size in bytes of the files kept for the run.
    files: dict[str, int] = field(default_factory=dict)
    #: vbench.monitor's tidy rows of the run, when it was monitored; and the file they came from.
    timeseries: pd.DataFrame | None = None
    timeseries_file: str = ""

    @property
    def monitored(self) -> bool:
        return self.timeseries is not None and not self.timeseries.empty


def run_choices(data: CampaignData, benchmark: str) -> list[tuple[str, str]]:
    """(label, run_id) of every run of `benchmark`, failed ones too, in run order."""
    runs = run_table(data.samples)
    runs = runs.assign(order=range(1, len(runs) + 1))
    s = data.samples
    runs = runs[runs["run_id"].isin(set(s.loc[s["benchmark"] == benchmark, "run_id"]))]
    out = [
        (
            float(r.start),
            f"#{r.order} {r.level}{' ' + r.cell if r.cell else ''} block {r.block or '-'}"
            f"{' round ' + r.round if r.round else ''}: {r.run_id}",
            r.run_id,
        )
        for r in runs.itertuples()
    ]
    f = data.failures
    if len(f) and "run_id" in f.columns:
        for r in f[f["benchmark"] == benchmark].itertuples():
            if r.run_id not in set(runs["run_id"]):
                block = value_text(getattr(r, "block", ""))
                out.append(
                    (
                        float(r.timestamp),
                        f"FAILED {value_text(getattr(r, 'platform', ''))} block {block or '-'}: {r.run_id}",
                        r.run_id,
                    )
                )
    return [(label, run_id) for _, label, run_id in sorted(out, key=lambda x: x[0])]


def log_excerpt(text: str) -> str:
    """The lines of a log that say what went wrong, with a little context; its end when none does."""
    lines = text.splitlines()
    hits = [i for i, line in enumerate(lines) if PROBLEM.search(line)]
    if not hits:
        return "\n".join(lines[-EXCERPT_LINES // 2 :])
    keep: list[int] = []
    for i in hits:
        keep += [j for j in range(max(0, i - CONTEXT_LINES), min(len(lines), i + CONTEXT_LINES + 1)) if j not in keep]
    out, last = [], None
    for j in sorted(keep)[:EXCERPT_LINES]:
        if last is not None and j != last + 1:
            out.append("...")
        out.append(lines[j])
        last = j
    return "\n".join(out)


def _failure_of(data: CampaignData, run_id: str) -> tuple[RunFailure | None, pd.Series | None]:
    f = data.failures
    if f.empty or "run_id" not in f.columns:
        return None, None
    rows = f[f["run_id"] == run_id]
    if rows.empty:
        return None, None
    r = rows.iloc[-1]
    return RunFailure(str(r["reason"]), value_text(r.get("step")), str(r.get("stderr_tail") or "")), r


def run_detail(data: CampaignData, run_id: str) -> RunDetail:
    s = data.samples
    mine = s[s["run_id"] == run_id] if len(s) else s
    failure, failed_row = _failure_of(data, run_id)
    runs = run_table(s)
    order = {r: i + 1 for i, r in enumerate(runs["run_id"])}
    if len(mine):
        first = mine.iloc[0]
        head = mine[mine["metric"].map(lambda m: wanted_metric(m) and ".attempt." not in m)]
        values = (
            head[["benchmark", "metric", "value", "unit"]]
            .sort_values(["benchmark", "metric"], key=lambda c: c.map(natural_key))
            .reset_index(drop=True)
        )
        cell = value_text(head["size"].iloc[0]) if "size" in head.columns and len(head) else ""
    else:
        first = failed_row if failed_row is not None else pd.Series(dtype=object)
        values = pd.DataFrame(columns=["benchmark", "metric", "value", "unit"])
        cell = ""
    raw_dir = CampaignStore(data.raw).raw_dir(run_id)
    files = {p.name: p.stat().st_size for p in sorted(raw_dir.iterdir())} if raw_dir.is_dir() else {}
    excerpt, log_file = "", ""
    if failure is not None:
        step_log = raw_dir / f"{failure.step}.stderr"
        log = step_log if step_log.is_file() else next((raw_dir / n for n in files if n.endswith(".stderr")), None)
        if log is not None and log.is_file():
            excerpt, log_file = log_excerpt(log.read_text(errors="replace")), log.name
        else:
            excerpt = log_excerpt(failure.stderr_tail)
    ts, ts_file = None, ""
    if "timeseries" in mine.columns and mine["timeseries"].notna().any():
        ts_file = str(mine["timeseries"].dropna().iloc[0])
        ts = load_timeseries_file(Path(data.raw) / ts_file)
    return RunDetail(
        run_id=run_id,
        benchmark=value_text(first.get("benchmark")),
        level=value_text(first.get("platform")),
        cell=cell,
        block=value_text(first.get("block")),
        round=value_text(first.get("round")),
        order=order.get(run_id, 0),
        values=values,
        failure=failure,
        log_excerpt=excerpt,
        log_file=log_file,
        files=files,
        timeseries=ts,
        timeseries_file=ts_file,
    )


def counters_beside(data: CampaignData, run_id: str) -> pd.DataFrame:
    """Hadoop counters (`counter.<step>.<name>`) of run `run_id` beside every other run of its
    benchmark: one row per counter, one column per run (this run first, then run order, each
    labelled `level block`), and `this / median of others`."""
    s = data.samples
    mine = s[s["run_id"] == run_id] if len(s) else s
    if mine.empty:
        return pd.DataFrame()
    benchmark = mine["benchmark"].iloc[0]
    c = s[(s["benchmark"] == benchmark) & s["metric"].astype(str).str.startswith(COUNTER_PREFIX)]
    if c.empty:
        return pd.DataFrame()
    runs = run_table(s)
    runs = runs[runs["run_id"].isin(set(c["run_id"]))]
    ordered = [run_id] + [r for r in runs["run_id"] if r != run_id]
    names = {r.run_id: f"{r.level} b{r.block or '-'}{' r' + r.round if r.round else ''}" for r in runs.itertuples()}
    wide = c.pivot_table(index="metric", columns="run_id", values="value", aggfunc="first")
    wide = wide[[r for r in ordered if r in wide.columns]]
    others = wide.drop(columns=[run_id], errors="ignore")
    median = others.median(axis=1) if len(others.columns) else pd.Series(float("nan"), index=wide.index)
    ratio = wide[run_id] / median.where(median != 0) if run_id in wide.columns else float("nan")
    labels = {r: ("this run: " if r == run_id else "") + names.get(r, r) for r in wide.columns}
    # Two runs of one level and block (e.g. per host) would share a label: the run id tells them apart.
    if len(set(labels.values())) < len(labels):
        labels = {r: f"{label} ({r})" for r, label in labels.items()}
    out = wide.rename(columns=labels)
    out.insert(1 if run_id in wide.columns else 0, "this / median of others", ratio)
    out.index = out.index.str.removeprefix(COUNTER_PREFIX)
    out.index.name = "counter"
    out.columns.name = None
    return sort_naturally(out)

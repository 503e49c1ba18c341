"""What the paper takes from a monitored campaign: one TeraSort run's time series, the windows of
its jobs, and its data-volume checks in one sentence. Absent data gives empty values, so the
paper still builds (the figure becomes a "not measured" box)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from vbench.monitor.monitor import load_timeseries_file
from vbench.stats.volume import samples_frame, terasort_checks


@dataclass
class MonitoredRun:
    timeseries: pd.DataFrame | None = None
    #: (job name, start, finish), epoch seconds, in start order.
    jobs: list[tuple[str, float, float]] = field(default_factory=list)
    checks: pd.DataFrame | None = None
    checks_sentence: str = ""


def job_windows(run: pd.DataFrame) -> list[tuple[str, float, float]]:
    """The jobs of one run from its `<step>_job_time` samples' start and finish times. Pure."""
    if "job_start_ms" not in run.columns:
        return []
    j = run[run["metric"].astype(str).str.endswith("_job_time") & run["job_start_ms"].notna()]
    out = [(str(r["step"]), r["job_start_ms"] / 1000, r["job_finish_ms"] / 1000) for _, r in j.iterrows()]
    return sorted(out, key=lambda x: x[1])


def checks_sentence(checks: pd.DataFrame) -> str:
    """One sentence for the caption: how many checks passed, and what the disk saw. Pure."""
    if checks is None or checks.empty:
        return ""
    decided = checks[checks["ok"].notna()]
    passed = int((decided["ok"] == True).sum())  # noqa: E712
    text = f"Data-volume checks of this run: {passed} of {len(decided)} pass"
    bad = decided[decided["ok"] == False]  # noqa: E712
    if len(bad):
        text += " (failed: " + ", ".join(bad["check"].astype(str)) + ")"
    disk = checks[checks["check"] == "teragen_disk_written"]
    if len(disk) and pd.notna(disk["ratio"].iloc[0]):
        text += f"; bytes written to disk during TeraGen = {disk['ratio'].iloc[0]:.2f} x replication x dataset"
    return text + "."


def monitored_run(campaign_dir: Path) -> MonitoredRun:
    """The first monitored TeraSort run of `campaign_dir`, if any."""
    if not (Path(campaign_dir) / "samples.jsonl").is_file():
        return MonitoredRun()
    s = samples_frame(campaign_dir)
    if s.empty or "timeseries" not in s.columns:
        return MonitoredRun()
    runs = s[(s["benchmark"] == "terasort") & s["timeseries"].notna()]
    if runs.empty:
        return MonitoredRun()
    run_id = sorted(runs["run_id"].unique())[0]
    run = s[s["run_id"] == run_id]
    ts = load_timeseries_file(Path(campaign_dir) / str(run["timeseries"].dropna().iloc[0]))
    checks = pd.DataFrame([c.__dict__ for c in terasort_checks(run, ts)])
    return MonitoredRun(ts, job_windows(run), checks, checks_sentence(checks))

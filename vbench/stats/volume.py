"""Data-volume checks, as VMware does: do the bytes a TeraSort run moved add up? Pure.

From the job counters (exact, logical bytes):
  teragen_hdfs_written   TeraGen's HDFS_BYTES_WRITTEN = the dataset (rows x 100 B)
  terasort_hdfs_read     TeraSort read the dataset once
  terasort_hdfs_written  TeraSort wrote the dataset once (HDFS counts logical bytes, not replicas)
  terasort_spills        SPILLED_RECORDS / MAP_OUTPUT_RECORDS <= 2: each record spilled once by
                         its map and at most once by its reducer's merge; more means the sort
                         buffer or the merge went to disk again (unexpected spills)
From the disk-write time series (physical bytes):
  teragen_disk_written   bytes written to disk from TeraGen's start until `flush_s` after its end
                         >= replication x dataset;
  reduce_merge_disk_written  likewise from the end of TeraSort's shuffle (VMware's reduce-merge
                         phase) >= output replication x dataset. The kernel writes dirty pages back some 30 s
                         after they were written (vm.dirty_expire_centisecs), hence the flush
                         allowance. A machine-wide counter also sees other work on the machine,
                         so only a shortfall is a failure; a large excess is reported, not failed.

A check that lacks its inputs says so (`ok` None) instead of passing.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from vbench.hadoop.jobs import TERA_ROW_BYTES, teragen_rows
from vbench.stats.tidy import read_campaign

#: How far a counter may be from its expected value (rounding of rows into maps, headers).
COUNTER_TOLERANCE = 0.01
MAX_SPILL_RATIO = 2.0
#: Default write-back allowance: vm.dirty_expire_centisecs (30 s) + vm.dirty_writeback_centisecs (5 s).
FLUSH_S = 35.0


@dataclass(frozen=True)
class VolumeCheck:
    run_id: str
    check: str
    expected: float | None
    measured: float | None
    ratio: float | None
    ok: bool | None
    reason: str


def samples_frame(campaign_dir: Path) -> pd.DataFrame:
    """A campaign's samples as one flat frame with the metric names as recorded (not the
    statistics' step-qualified ones), read by the one reader; lists and mappings as JSON text."""
    samples = read_campaign(campaign_dir).samples
    return samples.apply(
        lambda col: col.map(lambda v: json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v)
    )


def _counter(run: pd.DataFrame, step: str, name: str) -> float | None:
    v = run.loc[run["metric"] == f"counter.{step}.{name}", "value"]
    return float(v.iloc[0]) if len(v) else None


def _meta(run: pd.DataFrame, key: str) -> object | None:
    if key not in run.columns:
        return None
    v = run[key].dropna()
    return v.iloc[0] if len(v) else None


def _equal(run_id: str, check: str, expected: float, measured: float | None, what: str) -> VolumeCheck:
    if measured is None:
        return VolumeCheck(run_id, check, expected, None, None, None, f"no {what} counter recorded")
    ratio = measured / expected
    ok = abs(ratio - 1) <= COUNTER_TOLERANCE
    why = f"{what} {measured:.0f} B = {ratio:.3f}x the dataset" + (
        "" if ok else f" (beyond +/-{COUNTER_TOLERANCE:.0%})"
    )
    return VolumeCheck(run_id, check, expected, measured, ratio, ok, why)


def disk_written(ts: pd.DataFrame, t0: float, t1: float) -> tuple[float | None, str]:
    """Bytes written to disk in (t0, t1] from a run's tidy time series, and how they were counted.

    Machine-scope series (native hosts, containers) all show the same machine counter, so one
    host's is taken, and it already includes every container's and VM's I/O on this machine;
    only without any machine-scope series are host-scope ones (VM guests) summed."""
    w = ts[(ts["metric"] == "disk_write_Bps") & ts["value"].notna()]
    if w.empty:
        return None, "no disk-write series"
    machine = w[w["scope"] == "machine"]
    if not machine.empty:
        chosen = machine[machine["host"] == sorted(machine["host"].unique())[0]]
        how = f"machine-wide counter (via {chosen['host'].iloc[0]}; includes other work on the machine)"
    else:
        chosen = w[w["side"] == "guest"]
        how = "sum of the hosts' own counters"
    total = 0.0
    for _, g in chosen.groupby(["host", "side"]):
        g = g.sort_values("time")
        if "span_s" in g.columns and g["span_s"].notna().all():
            dt = g["span_s"]
        else:
            # Series recorded before rows carried their span: a rate row covers the interval
            # since the row before it; the first row's baseline snapshot is not a row, so its
            # interval is the series' usual one (only an estimate of that first burst).
            dt = g["time"].diff()
            if len(g) > 1:
                dt.iloc[0] = dt.iloc[1:].median()
        inside = (g["time"] > t0) & (g["time"] <= t1) & dt.notna()
        total += float((g.loc[inside, "value"] * dt[inside]).sum())
    return total, how


def terasort_checks(run: pd.DataFrame, ts: pd.DataFrame | None = None, flush_s: float = FLUSH_S) -> list[VolumeCheck]:
    """Every check of one TeraSort run (its samples, and its time series if monitored)."""
    run_id = str(_meta(run, "run_id") or "")
    size_mb = _meta(run, "size_mb")
    if size_mb is None:
        return [VolumeCheck(run_id, "dataset", None, None, None, None, "the run records no size_mb")]
    dataset = teragen_rows(int(size_mb) * 1024**2) * TERA_ROW_BYTES
    replication = int(_meta(run, "replication") or 1)
    out = [
        _equal(
            run_id,
            "teragen_hdfs_written",
            dataset,
            _counter(run, "teragen", "FileSystemCounter.HDFS_BYTES_WRITTEN"),
            "TeraGen HDFS_BYTES_WRITTEN",
        ),
        _equal(
            run_id,
            "terasort_hdfs_read",
            dataset,
            _counter(run, "terasort", "FileSystemCounter.HDFS_BYTES_READ"),
            "TeraSort HDFS_BYTES_READ",
        ),
        _equal(
            run_id,
            "terasort_hdfs_written",
            dataset,
            _counter(run, "terasort", "FileSystemCounter.HDFS_BYTES_WRITTEN"),
            "TeraSort HDFS_BYTES_WRITTEN",
        ),
    ]
    spilled = _counter(run, "terasort", "TaskCounter.SPILLED_RECORDS")
    records = _counter(run, "terasort", "TaskCounter.MAP_OUTPUT_RECORDS") or float(dataset // TERA_ROW_BYTES)
    if spilled is None:
        out.append(
            VolumeCheck(run_id, "terasort_spills", MAX_SPILL_RATIO, None, None, None, "no SPILLED_RECORDS counter")
        )
    else:
        ratio = spilled / records
        ok = ratio <= MAX_SPILL_RATIO + 1e-9
        out.append(
            VolumeCheck(
                run_id,
                "terasort_spills",
                MAX_SPILL_RATIO,
                ratio,
                ratio,
                ok,
                f"each record spilled {ratio:.2f} times"
                + ("" if ok else " (unexpected spills: sort buffer or reduce merge went to disk again)"),
            )
        )
    out.append(_teragen_disk(run, run_id, dataset, replication, ts, flush_s))
    out.append(_reduce_merge_disk(run, run_id, dataset, int(_meta(run, "output_replication") or 1), ts, flush_s))
    return out


def _teragen_disk(
    run: pd.DataFrame, run_id: str, dataset: int, replication: int, ts: pd.DataFrame | None, flush_s: float
) -> VolumeCheck:
    job = run[(run["metric"] == "teragen_job_time")]
    window = None
    if not job.empty and "job_start_ms" in job.columns and pd.notna(job["job_start_ms"].iloc[0]):
        window = (job["job_start_ms"].iloc[0] / 1000, job["job_finish_ms"].iloc[0] / 1000)
    return _disk_check(
        run_id,
        "teragen_disk_written",
        "TeraGen",
        float(replication * dataset),
        f"replication ({replication}) x dataset",
        window,
        ts,
        flush_s,
    )


def _reduce_merge_disk(
    run: pd.DataFrame, run_id: str, dataset: int, out_replication: int, ts: pd.DataFrame | None, flush_s: float
) -> VolumeCheck:
    """VMware's reduce-merge phase (after the last reducer finished shuffling) writes the sorted
    output: output replication x dataset."""
    window = None
    job = run[run["metric"] == "terasort_job_time"]
    red = run[(run["metric"] == "reduce_attempt_time") & (run.get("step", pd.Series(dtype=str)) == "terasort")]
    if (
        not job.empty
        and "job_finish_ms" in job.columns
        and "shuffle_finish_ms" in red.columns
        and red["shuffle_finish_ms"].notna().any()
    ):
        window = (red["shuffle_finish_ms"].max() / 1000, job["job_finish_ms"].iloc[0] / 1000)
    return _disk_check(
        run_id,
        "reduce_merge_disk_written",
        "reduce-merge",
        float(out_replication * dataset),
        f"output replication ({out_replication}) x dataset",
        window,
        ts,
        flush_s,
    )


def _disk_check(
    run_id: str,
    check: str,
    phase: str,
    expected: float,
    expected_text: str,
    window: tuple[float, float] | None,
    ts: pd.DataFrame | None,
    flush_s: float,
) -> VolumeCheck:
    if ts is None or ts.empty:
        return VolumeCheck(run_id, check, expected, None, None, None, "run not monitored: no time series")
    if window is None:
        return VolumeCheck(run_id, check, expected, None, None, None, f"{phase} start and end not recorded")
    t0, t1 = window[0], window[1] + flush_s
    cut = ""
    if ts["time"].max() < t1:
        t1, cut = float(ts["time"].max()), " (series ends before the flush allowance)"
    measured, how = disk_written(ts, t0, t1)
    if measured is None:
        return VolumeCheck(run_id, check, expected, None, None, None, how)
    ratio = measured / expected
    ok = ratio >= 1 - 0.1
    reason = f"{measured / 2**20:.1f} MiB written in {phase} + {flush_s:g} s{cut} = {ratio:.2f}x {expected_text}; {how}"
    if not ok:
        reason += "; short: replicas not all written, or still in the page cache"
    elif ratio > 2:
        reason += "; well above: other writes in the window (spills, other work on the machine)"
    return VolumeCheck(run_id, check, expected, measured, ratio, ok, reason)


def campaign_checks(campaign_dir: Path, flush_s: float = FLUSH_S) -> pd.DataFrame:
    """Checks of every TeraSort run of a campaign, with its time series where it was monitored."""
    from vbench.monitor.monitor import load_timeseries_file  # a file per run; import here to keep this module pure

    campaign_dir = Path(campaign_dir)
    s = samples_frame(campaign_dir)
    rows: list[VolumeCheck] = []
    if not s.empty:
        for run_id, run in s[s["benchmark"] == "terasort"].groupby("run_id"):
            rel = _meta(run, "timeseries")
            ts = load_timeseries_file(campaign_dir / str(rel)) if rel else None
            rows += terasort_checks(run, ts, flush_s)
    return pd.DataFrame([asdict(r) for r in rows], columns=list(VolumeCheck.__dataclass_fields__))

"""One run's task attempts per node, from the JobHistory samples vbench records with every Hadoop
run (vbench.hadoop.history.job_samples): the frames behind the notebook's Gantt chart. Pure.

Successful attempts carry their node, start and finish (epoch ms) and, for reducers, the end of
the shuffle; `reducer_merge_time` gives the end of the merge. Failed and killed attempts carry the
node, their state and JobHistory's diagnostics but no times: an attempt whose container never
started has none, so the chart lists them beside the timeline instead of inventing a bar. Runs
recorded before attempts carried times (before commit a06a173, e.g. the committed reference and
netmodes campaigns) give durations only: `Timeline.timed` is False.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from vbench.stats.pernode import ATTEMPT_METRICS, SPECULATION_LOST, UNSUCCESSFUL_METRICS, platforms_from_samples
from vbench.stats.keys import natural_key

ATTEMPT_COLUMNS = [
    "step",
    "task_type",
    "node",
    "platform",
    "attempt_id",
    "task_id",
    "attempt",
    "state",
    "start_s",
    "finish_s",
    "elapsed_s",
    "shuffle_end_s",
    "merge_end_s",
    "speculation",
    "diagnostics",
]
JOB_COLUMNS = ["step", "job_id", "start_s", "finish_s", "elapsed_s"]
_ATTEMPT_ID = re.compile(r"^attempt_(.+)_(\d+)$")


@dataclass(frozen=True, eq=False)
class Timeline:
    run_id: str
    #: One row per attempt (ATTEMPT_COLUMNS); times in seconds since `t0`, empty when not recorded.
    attempts: pd.DataFrame
    #: One row per job of the run (JOB_COLUMNS), in start order.
    jobs: pd.DataFrame
    #: Epoch seconds the times count from (the run's first job start); None when none was recorded.
    t0: float | None

    @property
    def timed(self) -> bool:
        return self.t0 is not None and bool(self.attempts["start_s"].notna().any())

    def nodes(self) -> list[str]:
        return sorted(self.attempts["node"].astype(str).unique(), key=natural_key)

    def unsuccessful(self) -> pd.DataFrame:
        return self.attempts[self.attempts["state"] != "SUCCEEDED"]


def _source_metric(samples: pd.DataFrame) -> pd.Series:
    """The metric as JobHistory's samples name it (`raw_metric`: the statistics rename them)."""
    col = "raw_metric" if "raw_metric" in samples.columns else "metric"
    return samples[col].astype(str) if len(samples) else pd.Series([], dtype=str)


def timed_runs(samples: pd.DataFrame) -> set[str]:
    """The runs whose successful attempts carry start times: those with a real timeline."""
    if "start_ms" not in samples.columns or "run_id" not in samples.columns:
        return set()
    timed = _source_metric(samples).isin(list(ATTEMPT_METRICS)) & samples["start_ms"].notna()
    return set(samples.loc[timed, "run_id"].astype(str))


def task_of(attempt_id: str) -> tuple[str, int]:
    """attempt_<job>_m_000002_1 -> (task_<job>_m_000002, 1)."""
    m = _ATTEMPT_ID.match(attempt_id)
    return (f"task_{m.group(1)}", int(m.group(2))) if m else (attempt_id, 0)


def _col(frame: pd.DataFrame, name: str) -> pd.Series:
    return frame[name] if name in frame.columns else pd.Series([None] * len(frame), index=frame.index, dtype=object)


def _seconds(ms, t0: float | None) -> float | None:
    if t0 is None or ms is None or pd.isna(ms):
        return None
    return float(ms) / 1000 - t0


def _attempt_row(a, state: str, diagnostics: str = "", **times) -> dict:
    """One attempt sample as a row: who ran it and its state; `times` (seconds from t0) where
    JobHistory recorded them, None where not (an attempt that did not succeed has none)."""
    task, number = task_of(str(a["attempt_id"]))
    return {
        "step": str(a.get("step", "")),
        "task_type": str(a["task_type"]),
        "node": str(a["node"]),
        "attempt_id": str(a["attempt_id"]),
        "task_id": task,
        "attempt": number,
        "state": state,
        "start_s": None,
        "finish_s": None,
        "elapsed_s": None,
        "shuffle_end_s": None,
        "merge_end_s": None,
        **times,
        "diagnostics": diagnostics,
    }


def timeline(samples: pd.DataFrame, run_id: str) -> Timeline:
    """The attempts and jobs of run `run_id` among tidy `samples`."""
    run = samples[samples["run_id"] == run_id] if "run_id" in samples.columns else samples.iloc[0:0]
    metric = _source_metric(run)
    jobs_rows = run[metric.str.endswith("_job_time")]
    start_ms = pd.to_numeric(_col(jobs_rows, "job_start_ms"), errors="coerce")
    ok = run[metric.isin(list(ATTEMPT_METRICS))]
    bad = run[metric.isin(list(UNSUCCESSFUL_METRICS))]
    attempt_start = pd.to_numeric(_col(ok, "start_ms"), errors="coerce")
    firsts = [x for x in (start_ms.min(), attempt_start.min()) if pd.notna(x)]
    t0 = float(min(firsts)) / 1000 if firsts else None

    merge = run[metric == "reducer_merge_time"]
    merge_s = dict(zip(_col(merge, "attempt_id").astype(str), merge["value"].astype(float))) if len(merge) else {}
    platforms = platforms_from_samples(run)
    rows = []
    for _, a in ok.iterrows():
        aid = str(a["attempt_id"])
        shuffle_end = _seconds(a.get("shuffle_finish_ms"), t0)
        rows.append(
            _attempt_row(
                a,
                "SUCCEEDED",
                start_s=_seconds(a.get("start_ms"), t0),
                finish_s=_seconds(a.get("finish_ms"), t0),
                elapsed_s=float(a["value"]),
                shuffle_end_s=shuffle_end,
                merge_end_s=shuffle_end + merge_s[aid] if shuffle_end is not None and aid in merge_s else None,
            )
        )
    for _, a in bad.iterrows():
        rows.append(_attempt_row(a, str(a.get("attempt_state", "FAILED")), diagnostics=str(a.get("diagnostics") or "")))
    attempts = pd.DataFrame(rows, columns=[c for c in ATTEMPT_COLUMNS if c not in ("platform", "speculation")])
    raced = {r["task_id"] for r in rows if r["state"] == "KILLED" and r["diagnostics"].startswith(SPECULATION_LOST)}
    attempts["speculation"] = attempts["task_id"].isin(raced)
    attempts["platform"] = attempts["node"].map(lambda n: platforms.get(n, ""))
    for c in ("start_s", "finish_s", "elapsed_s", "shuffle_end_s", "merge_end_s"):
        attempts[c] = attempts[c].astype(float)
    attempts = (
        attempts[ATTEMPT_COLUMNS]
        .sort_values(
            ["start_s", "step", "task_type", "attempt_id"],
            key=lambda s: s if s.dtype == float else s.map(natural_key),
            na_position="last",
            kind="stable",
        )
        .reset_index(drop=True)
    )

    jobs = pd.DataFrame(
        [
            {
                "step": str(j.get("step", "")),
                "job_id": str(j.get("job_id", "")),
                "start_s": _seconds(j.get("job_start_ms"), t0),
                "finish_s": _seconds(j.get("job_finish_ms"), t0),
                "elapsed_s": float(j["value"]),
            }
            for _, j in jobs_rows.iterrows()
        ],
        columns=JOB_COLUMNS,
    )
    jobs = (
        jobs.astype({"start_s": float, "finish_s": float}).sort_values("start_s", kind="stable").reset_index(drop=True)
    )
    return Timeline(str(run_id), attempts, jobs, t0)

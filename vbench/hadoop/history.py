"""Per-job detail from Hadoop's own records: the JobHistory server's REST API. Pure parsers.

Counters (bytes read/written, spills, shuffle bytes, data-local maps) and every task attempt
with the node it ran on and, for reducers, its shuffle, merge/sort and reduce phases (Liu et
al. Tables 1-2); TeraSort's map-shuffle vs reduce-merge split (VMware Table 2) follows from them.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from vbench.errors import JobFailed
from vbench.hadoop.config import JHS_HTTP_PORT
from vbench.samples import Sample

T = TypeVar("T")

#: Task types and attempt states of the REST API (MapReduce's TaskType and TaskAttemptState):
#: anything else is not JobHistory's record, and would name a metric or count an attempt wrongly.
TASK_TYPES = frozenset({"MAP", "REDUCE"})
ATTEMPT_STATES = frozenset({"NEW", "STARTING", "RUNNING", "COMMIT_PENDING", "SUCCEEDED", "FAILED", "KILLED"})


def _record(what: str) -> Callable[[Callable[[str], T]], Callable[[str], T]]:
    """A parser of one JobHistory resource whose every failure to read it (a body cut short or
    garbled on the way: not JSON, a field missing or of the wrong type) is the job's failure."""

    def wrap(parse: Callable[[str], T]) -> Callable[[str], T]:
        @functools.wraps(parse)
        def checked(text: str) -> T:
            try:
                return parse(text)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                why = f"{type(exc).__name__}: {exc}"
                raise JobFailed(f"JobHistory's {what} is not readable ({why!r:.200})") from None

        return checked

    return wrap


def _one_of(value: Any, known: frozenset[str], what: str) -> str:
    if value not in known:
        raise ValueError(f"{what} {value!r} is none of {sorted(known)}")
    return value


def _span_s(start_ms: int, end_ms: int) -> float:
    """Seconds from `start_ms` to `end_ms`: JobHistory gives every time in epoch milliseconds."""
    return (end_ms - start_ms) / 1000


def job_url(master: str, job_id: str, suffix: str = "") -> str:
    return f"http://{master}:{JHS_HTTP_PORT}/ws/v1/history/mapreduce/jobs/{job_id}{suffix}"


@dataclass(frozen=True)
class JobInfo:
    job_id: str
    name: str
    state: str
    start_ms: int
    finish_ms: int
    maps: int
    reduces: int

    @property
    def elapsed_s(self) -> float:
        return _span_s(self.start_ms, self.finish_ms)


@dataclass(frozen=True)
class Attempt:
    attempt_id: str
    task_type: str  # MAP or REDUCE
    node: str
    state: str
    start_ms: int
    finish_ms: int
    shuffle_finish_ms: int | None = None
    merge_finish_ms: int | None = None
    #: Why an attempt failed or was killed, as JobHistory says (empty for a success).
    diagnostics: str = ""

    @property
    def elapsed_s(self) -> float:
        return _span_s(self.start_ms, self.finish_ms)

    @property
    def phases_s(self) -> dict[str, float]:
        """A reducer's shuffle, merge (sort) and reduce phases, in seconds."""
        if self.task_type != "REDUCE" or self.shuffle_finish_ms is None or self.merge_finish_ms is None:
            return {}
        return {
            "shuffle": _span_s(self.start_ms, self.shuffle_finish_ms),
            "merge": _span_s(self.shuffle_finish_ms, self.merge_finish_ms),
            "reduce": _span_s(self.merge_finish_ms, self.finish_ms),
        }


@_record("job record")
def parse_job(text: str) -> JobInfo:
    j = json.loads(text)["job"]
    return JobInfo(
        job_id=j["id"],
        name=j.get("name", ""),
        state=j["state"],
        start_ms=int(j["startTime"]),
        finish_ms=int(j["finishTime"]),
        maps=int(j.get("mapsTotal", 0)),
        reduces=int(j.get("reducesTotal", 0)),
    )


@_record("counters")
def parse_counters(text: str) -> dict[str, int]:
    """'GROUP_SHORT_NAME.COUNTER' -> total value, e.g. 'FileSystemCounter.HDFS_BYTES_WRITTEN'."""
    groups = json.loads(text)["jobCounters"].get("counterGroup") or []
    out = {}
    for g in groups:
        short = g["counterGroupName"].rsplit(".", 1)[-1].split("$")[-1]
        for c in g.get("counter") or []:
            out[f"{short}.{c['name']}"] = int(c["totalCounterValue"])
    return out


@_record("task list")
def parse_task_ids(text: str) -> list[str]:
    return [t["id"] for t in (json.loads(text)["tasks"] or {}).get("task") or []]


@_record("task attempts")
def parse_attempts(text: str) -> list[Attempt]:
    out = []
    for a in (json.loads(text)["taskAttempts"] or {}).get("taskAttempt") or []:
        out.append(
            Attempt(
                attempt_id=a["id"],
                task_type=_one_of(a["type"], TASK_TYPES, "task type"),
                node=a.get("nodeHttpAddress", "").split(":")[0],
                state=_one_of(a["state"], ATTEMPT_STATES, "attempt state"),
                start_ms=int(a["startTime"]),
                finish_ms=int(a["finishTime"]),
                shuffle_finish_ms=int(a["shuffleFinishTime"]) if "shuffleFinishTime" in a else None,
                merge_finish_ms=int(a["mergeFinishTime"]) if "mergeFinishTime" in a else None,
                diagnostics=a.get("diagnostics") or "",
            )
        )
    return out


def phase_split(job: JobInfo, attempts: list[Attempt]) -> dict[str, float]:
    """VMware's TeraSort phases: map-shuffle ends when the last reducer finishes shuffling;
    reduce-merge is the rest of the job. Empty for map-only jobs."""
    shuffles = [
        a.shuffle_finish_ms
        for a in attempts
        if a.task_type == "REDUCE" and a.state == "SUCCEEDED" and a.shuffle_finish_ms is not None
    ]
    if not shuffles:
        return {}
    end = max(shuffles)
    return {"map_shuffle": _span_s(job.start_ms, end), "reduce_merge": _span_s(end, job.finish_ms)}


#: Counters kept as samples, with their units.
COUNTERS = {
    "FileSystemCounter.HDFS_BYTES_READ": "B",
    "FileSystemCounter.HDFS_BYTES_WRITTEN": "B",
    "FileSystemCounter.FILE_BYTES_READ": "B",
    "FileSystemCounter.FILE_BYTES_WRITTEN": "B",
    "TaskCounter.SPILLED_RECORDS": "count",
    "TaskCounter.MAP_OUTPUT_RECORDS": "count",
    "TaskCounter.REDUCE_INPUT_RECORDS": "count",
    "TaskCounter.REDUCE_SHUFFLE_BYTES": "B",
    "TaskCounter.MAP_OUTPUT_BYTES": "B",
    "TaskCounter.GC_TIME_MILLIS": "ms",
    "TaskCounter.CPU_MILLISECONDS": "ms",
    "JobCounter.DATA_LOCAL_MAPS": "count",
    "JobCounter.RACK_LOCAL_MAPS": "count",
    "JobCounter.OTHER_LOCAL_MAPS": "count",
    "JobCounter.TOTAL_LAUNCHED_MAPS": "count",
    "JobCounter.TOTAL_LAUNCHED_REDUCES": "count",
}


def job_samples(
    benchmark: str, step: str, job: JobInfo, counters: dict[str, int], attempts: list[Attempt], meta: dict
) -> list[Sample]:
    """Samples describing one job: its time, phases, counters and every attempt's timings.

    Job-level metrics are named after the step that submitted the job (`terasort_job_time`,
    `terasort_map_shuffle_phase_time`), so that jobs of one benchmark are never pooled."""
    # Start and finish times let a job be placed on a monitoring time series (data-volume checks).
    base = {**meta, "step": step, "job_id": job.job_id, "job_start_ms": job.start_ms, "job_finish_ms": job.finish_ms}
    out = [Sample(benchmark, f"{step}_job_time", job.elapsed_s, "s", base)]
    out += [
        Sample(benchmark, f"{step}_{name}_phase_time", v, "s", base) for name, v in phase_split(job, attempts).items()
    ]
    out += [
        Sample(benchmark, f"counter.{step}.{name}", counters[name], unit, base)
        for name, unit in COUNTERS.items()
        if name in counters
    ]
    for a in attempts:
        if a.state != "SUCCEEDED":
            out.append(unsuccessful_attempt_sample(benchmark, a, base))
            continue
        am = {
            **base,
            "node": a.node,
            "attempt_id": a.attempt_id,
            "task_type": a.task_type,
            "start_ms": a.start_ms,
            "finish_ms": a.finish_ms,
            **({"shuffle_finish_ms": a.shuffle_finish_ms} if a.shuffle_finish_ms is not None else {}),
        }
        out.append(Sample(benchmark, f"{a.task_type.lower()}_attempt_time", a.elapsed_s, "s", am))
        out += [Sample(benchmark, f"reducer_{p}_time", v, "s", am) for p, v in a.phases_s.items()]
    return out


#: Characters of an unsuccessful attempt's diagnostics kept in its sample (the first line says why).
DIAGNOSTICS_CHARS = 300


def unsuccessful_attempt_sample(benchmark: str, a: Attempt, base: dict) -> Sample:
    """One failed or killed attempt, counted against the node it was sent to.

    A node too slow to launch a container (a software-emulated VM) has its attempts fail and
    re-run elsewhere: it then finishes no task, and only these samples show it was tried. The
    value is a count (1), not a time: an attempt whose container never started has no start."""
    meta = {
        **base,
        "node": a.node,
        "attempt_id": a.attempt_id,
        "task_type": a.task_type,
        "attempt_state": a.state,
        "diagnostics": a.diagnostics[:DIAGNOSTICS_CHARS],
    }
    return Sample(benchmark, f"{a.task_type.lower()}_attempt_unsuccessful", 1, "count", meta)

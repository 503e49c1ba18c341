"""NNBench: NameNode metadata performance, create/write then open/read (Xavier et al. Table I,
Vasconcelos & Freitas: 1000 files, 6 maps, 2 reduces).

Maps wait at a barrier (-startTime, epoch seconds) so they hammer the NameNode together; the
barrier must lie after the maps have started, which takes ~20 s on a small machine.

A map that starts after the barrier does not wait: its operations begin late, and the job time
then holds that lateness rather than a sleep. NNBench's own count of such maps ("# maps that
missed the barrier", "Late maps") stayed 0 on maps that began tens of seconds late in Hadoop 3
as observed here (costs-gvisor-network, gVisor, 2026-12-01), so vbench reads the lateness from
the client's log itself, into each op's samples' metadata (`BARRIER_KEY`, `ops_start_after_barrier`).
"""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.parsing import labelled_values, number_of, whole_lines
from vbench.benchmarks.hadoop.steps import START_TIME, JavaStep, Outputs, Step
from vbench.errors import JobFailed
from vbench.samples import Sample

NAME = "nnbench"
MAIN_CLASS = "org.apache.hadoop.hdfs.NNBench"
_REPORT = {
    "create_write": {
        "TPS: Create/Write/Close": ("create_write_tps", "tps"),
        "Avg exec time (ms): Create/Write/Close": ("create_write_avg_exec_time", "ms"),
        "Avg Lat (ms): Create/Write": ("create_write_avg_latency", "ms"),
        "Avg Lat (ms): Close": ("close_avg_latency", "ms"),
    },
    "open_read": {
        "TPS: Open/Read": ("open_read_tps", "tps"),
        "Avg Exec time (ms): Open/Read": ("open_read_avg_exec_time", "ms"),
        "Avg Lat (ms): Open": ("open_avg_latency", "ms"),
    },
}
OPS = tuple(_REPORT)
METRICS = {metric: unit for labels in _REPORT.values() for metric, unit in labels.values()}
#: The step (operation) whose report gives each metric: one step's samples share its metadata.
OP_OF_METRIC = {metric: op for op, labels in _REPORT.items() for metric, _ in labels.values()}
#: The metadata key of an op's samples saying how long after the barrier its last map began its
#: operations (`ops_start_after_barrier`). Metadata, as NNBench's own late-map count is: a signed
#: lateness near 0 is no time whose ratio to native's means anything.
BARRIER_KEY = "ops_start_after_barrier_s"
#: The config field of the barrier (`Config.barrier_s`), as the runner stamps it into each sample's
#: metadata and a design's variant factor names it (`factor.barrier_s`).
BARRIER_S = "barrier_s"

# The times below are read strictly (ASCII digits, every field, whole lines): a damaged log is to
# give no number rather than another one.
# The client's progress line once every map is done, as a whole log4j line: log4j always prints
# three millisecond digits ("13:05:36,710"), and a line that has swallowed the one before it would
# carry that one's time. Only "reduce 0%": a damaged first line is no reason to read a later one.
_MAPS_DONE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) \w+ [\w.$]+: +map 100% reduce 0%$", re.ASCII)
# NNBench prints its barrier with Java's SimpleDateFormat "S": the milliseconds unpadded, so ",0"
# is 0 ms and ",5" is 5 ms, not 500.
_BARRIER = re.compile(r"Start time: (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{1,3})$", re.ASCII)
# A Java double of milliseconds ("6687.0", "1.2345E7"): its fraction is always printed, so a
# number cut short by a damaged line is not read as another one.
_LONGEST_MAP = re.compile(r"RAW DATA: Longest Map Time \(ms\): (\d+\.\d+(?:E\d+)?)$", re.ASCII)


class Config(BenchConfig):
    files: int = Field(100, ge=1)
    maps: int = Field(2, ge=1)
    reduces: int = Field(1, ge=1)
    #: Must respect the NameNode's minimum block size (1 MB); NNBench's default of 1 byte does not.
    block_size: int = Field(1024 * 1024, ge=1024 * 1024)
    barrier_s: int = Field(30, ge=5)


PRESETS = {
    "vasconcelos": Config(files=1000, maps=6, reduces=2),
    # Table I: "operations on 1000 files"; maps and reduces are not stated, so NNBench's defaults here.
    "xavier2014": Config(files=1000),
}


def steps(cfg: Config, run_dir: str) -> list[Step]:
    common = (
        "-maps",
        str(cfg.maps),
        "-reduces",
        str(cfg.reduces),
        "-numberOfFiles",
        str(cfg.files),
        "-blockSize",
        str(cfg.block_size),
        "-baseDir",
        f"{run_dir}/nnbench",
        "-startTime",
        START_TIME,
    )
    return [
        JavaStep(
            "create_write",
            MAIN_CLASS,
            ("-operation", "create_write", "-bytesToWrite", "0", *common),
            barrier_s=cfg.barrier_s,
        ),
        JavaStep(
            "open_read",
            MAIN_CLASS,
            ("-operation", "open_read", "-readFileAfterOpen", "true", *common),
            barrier_s=cfg.barrier_s,
        ),
    ]


def _local_time(date_time: str, millis: str) -> datetime | None:
    """A master-local time of day from its text; None for a date no calendar has (a damaged line)."""
    try:
        return datetime.strptime(date_time, "%Y-%m-%d %H:%M:%S").replace(microsecond=int(millis) * 1000)
    except ValueError:
        return None


def _first(pattern: re.Pattern[str], lines: list[str]) -> tuple[str, ...] | None:
    """The groups of `pattern`'s first match among `lines`; None where no line matches."""
    return next((m.groups() for m in map(pattern.search, lines) if m), None)


def barrier_time(lines: list[str]) -> datetime | None:
    """NNBench's barrier as it printed it (twice: with its inputs and in its report; the first
    readable one)."""
    found = _first(_BARRIER, lines)
    return _local_time(*found) if found else None


def maps_done_time(lines: list[str]) -> datetime | None:
    """When the client first saw every map done: the log time of its first "map 100% reduce 0%"."""
    found = _first(_MAPS_DONE, lines)
    return _local_time(*found) if found else None


def longest_map_s(lines: list[str]) -> float | None:
    """The longest map's span of operations, barrier wait excluded (NNBench's "Longest Map Time")."""
    found = _first(_LONGEST_MAP, lines)
    return float(found[0]) / 1000 if found else None


def ops_start_after_barrier(*streams: str) -> float | None:
    """Seconds from the barrier to the start of the operations of the last map to finish, from a
    step's captured client output (its streams, each on its own); None when a line is missing
    (another Hadoop's NNBench, a failed or cut-off run), never an error: it is a reading beside
    NNBench's report, not part of it.

    maps done - longest map - barrier. The last map to finish ran no longer than the longest, so it
    began its operations at least that long after the barrier, less what lies between a map's last
    operation and the client seeing it (the task's commit, the client's ~1 s polling): about 0 when
    the maps waited at the barrier, tens of seconds when one began late, whatever NNBench counted.
    The barrier and the log are the master's local times, one clock and zone, so they subtract."""
    lines = [line for text in streams for line in whole_lines(text)]
    barrier, done, longest = barrier_time(lines), maps_done_time(lines), longest_map_s(lines)
    if barrier is None or done is None or longest is None:
        return None
    # Milliseconds in, milliseconds out: no float noise passed off as precision.
    return round((done - barrier).total_seconds() - longest, 3)


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    out = []
    for op, labels in _REPORT.items():
        # Each stream on its own, as TestDFSIO's (vbench.benchmarks.hadoop.dfsio).
        values = {**labelled_values(outputs[op].stdout), **labelled_values(outputs[op].stderr)}
        exceptions = number_of(values, "# exceptions", f"NNBench {op}")
        ok_ops = number_of(values, "Successful file operations", f"NNBench {op}")
        if exceptions or not ok_ops:
            raise JobFailed(f"NNBench {op}: {int(exceptions)} exceptions, {int(ok_ops)} successful operations")
        meta = {
            "successful_operations": int(ok_ops),
            "maps_missed_barrier": int(number_of(values, "# maps that missed the barrier", f"NNBench {op}")),
        }
        late = ops_start_after_barrier(outputs[op].stdout, outputs[op].stderr)
        if late is not None:
            meta[BARRIER_KEY] = late
        for label, (metric, unit) in labels.items():
            out.append(Sample(NAME, metric, number_of(values, label, f"NNBench {op}"), unit, meta))
    return out

"""The unit of measurement: an immutable, validated `Sample`, and failure records.

Benchmarks return samples carrying only what they measured (benchmark, metric, value,
unit, benchmark parameters); the runner stamps identity and provenance (platform, hosts,
repetition, campaign, versions, config hash) into `metadata` centrally via `with_metadata`.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Iterator, Mapping

from vbench.errors import VbenchError
from vbench.ledger import read_ledger

#: Units of time: a larger value is slower (vbench.stats.direction reads lower is better).
TIME_UNITS = frozenset({"s", "ms", "us", "ns"})
#: Units of a rate: a larger value is faster (vbench.stats.direction reads higher is better).
RATE_UNITS = frozenset(
    {
        "B/s",
        "KiB/s",
        "MiB/s",
        "GiB/s",
        "MB/s",
        "GB/s",
        "bit/s",
        "Mbit/s",
        "Gbit/s",
        "ops/s",
        "IOPS",
        "events/s",
        "files/s",
        "tps",
    }
)
#: Units a sample may carry. Keeping the list closed catches "MB/s" vs "MiB/s" slips.
UNITS = TIME_UNITS | RATE_UNITS | frozenset({"B", "KiB", "MiB", "GiB", "%", "count", "ratio"})

#: The A/A self-check (issue #18) runs the baseline platform twice, as two configurations; the
#: second copy's samples and statistics say `<platform>~aa` where the platform goes.
AA_SUFFIX = "~aa"
#: Sample fields the quiet-machine gate stamps (vbench.campaign.quiet.stamp) that others read: its
#: verdict, its CPU probe, and this machine's reference for the probe (vbench.campaign.machine_ref).
QUIET_VERDICT = "quiet.verdict"
QUIET_CPU_PROBE = "quiet.cpu_probe_ms"
QUIET_MACHINE_PROBE = "quiet.cpu_probe_machine_ms"
#: Sample fields of the machine's CPU over a micro-benchmark run or a Hadoop step (on the local
#: testbed; vbench.monitor.machine_cpu stamps them, vbench.stats.cost_model and
#: vbench.stats.profile read them): the machine's busy CPU-seconds and wall seconds over it.
MACHINE_CPU_FIELD = "machine_cpu_s"
MACHINE_WALL_FIELD = "machine_wall_s"
#: Of those, the CPU-seconds the local testbed's gVisor Sentries spent (their own processes: the
#: system calls and faults they serve, not the guest's code); stamped only where a gVisor host ran.
SENTRY_CPU_FIELD = "sentry_cpu_s"
#: Of the machine's busy CPU-seconds, those its kernel spent (system, irq and softirq time): on
#: native hosts, the part of a job's work a platform that serves calls and faults its own way
#: (gVisor's Sentry, a VM's hypervisor) prices apart from the user code the JVMs run.
MACHINE_KERNEL_FIELD = "machine_kernel_cpu_s"
#: The machine's kernel entries over the same span, counts (vbench.monitor.kernel_entries): page
#: faults and context switches always, system calls where the design counts them
#: (`count_syscalls`). What a platform that serves each entry itself (gVisor's Sentry) is priced by.
MACHINE_FAULTS_FIELD = "machine_faults"
MACHINE_SWITCHES_FIELD = "machine_switches"
MACHINE_SYSCALLS_FIELD = "machine_syscalls"


def aa_label(platform: str) -> str:
    return platform + AA_SUFFIX


def is_aa(label: object) -> bool:
    """Whether a platform label is the A/A self-check's copy of a platform."""
    return isinstance(label, str) and label.endswith(AA_SUFFIX)


#: How one metadata field holds the distinct values several hosts reported (e.g. `cpu_model` of a
#: cell whose hosts ran on two machines): sorted, joined by this separator.
VALUES_SEPARATOR = "; "


def join_values(values: Iterable[object]) -> str:
    """The distinct non-empty values as one metadata field (sorted, joined); "" for none. Pure."""
    return VALUES_SEPARATOR.join(sorted({str(v).strip() for v in values if str(v or "").strip()}))


def split_values(field: object) -> list[str]:
    """The distinct values a field written by `join_values` holds (a missing field holds none). Pure."""
    if field is None or (isinstance(field, float) and field != field):  # None or NaN: not recorded
        return []
    return sorted({p.strip() for p in str(field).split(VALUES_SEPARATOR.strip()) if p.strip()})


#: What gVisor's Sentry reports as the CPU's model name (/proc/cpuinfo inside a sandbox): its own
#: placeholder, not a machine's. Campaigns before 2026-12-01 stamped it on gVisor's samples beside
#: the machine's model the other platforms' samples name (vbench.testbed.gvisor stamps the machine's).
SANDBOX_CPU_MODEL = "unknown"
#: How QEMU's emulated CPU models begin (`qemu64`, `qemu32` under TCG: "QEMU Virtual CPU version
#: 2.5+"), which a QEMU guest's /proc/cpuinfo names: the emulator's, not the machine's it runs on.
#: The QEMU provisioner stamps the machine's model since 2026-12-07 (vbench.testbed.qemu); the
#: campaigns before it stamped the guest's, so the readers still drop it.
EMULATED_CPU_MODEL_PREFIX = "QEMU Virtual CPU"


def cpu_models(field: object) -> list[str]:
    """The machines' CPU models a `cpu_model` field (or a host's fact) names: `split_values` without
    the sandbox's placeholder or an emulated CPU's name (a guest under TCG runs on this machine, but
    its cpuinfo names QEMU's model). Pure."""
    return [m for m in split_values(field) if m != SANDBOX_CPU_MODEL and not m.startswith(EMULATED_CPU_MODEL_PREFIX)]


def _freeze(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Sample:
    """One measured value with its unit and everything needed to interpret it."""

    benchmark: str
    metric: str
    value: float
    unit: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    timestamp: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if not self.benchmark:
            raise ValueError("Sample.benchmark must not be empty")
        if not self.metric:
            raise ValueError("Sample.metric must not be empty")
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
            raise ValueError(f"Sample.value must be a number, got {self.value!r}")
        if not math.isfinite(self.value):
            raise ValueError(f"Sample.value must be finite, got {self.value!r} for {self.metric}")
        if self.unit not in UNITS:
            raise ValueError(f"Sample.unit {self.unit!r} is not one of {sorted(UNITS)}")
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "metadata", _freeze(self.metadata))

    def with_metadata(self, **extra: Any) -> "Sample":
        """A copy with `extra` merged into metadata (the runner's provenance stamp)."""
        return replace(self, metadata={**self.metadata, **extra})

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "sample",
            "benchmark": self.benchmark,
            "metric": self.metric,
            "value": self.value,
            "unit": self.unit,
            "metadata": dict(self.metadata),
            "timestamp": self.timestamp,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Sample":
        return cls(
            benchmark=d["benchmark"],
            metric=d["metric"],
            value=d["value"],
            unit=d["unit"],
            metadata=d.get("metadata", {}),
            timestamp=d["timestamp"],
        )


@dataclass(frozen=True)
class Failure:
    """A run that did not produce valid samples. Never dropped: stored beside samples."""

    benchmark: str
    reason: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    stderr_tail: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    timestamp: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", _freeze(self.parameters))
        object.__setattr__(self, "metadata", _freeze(self.metadata))

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "failure",
            "benchmark": self.benchmark,
            "reason": self.reason,
            "parameters": dict(self.parameters),
            "stderr_tail": self.stderr_tail,
            "metadata": dict(self.metadata),
            "timestamp": self.timestamp,
        }


def append_records(path: Path, records: Iterable[Sample | Failure]) -> None:
    """Append records as JSON lines and fsync, so a crash right after loses nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(r.to_dict(), sort_keys=True) + "\n" for r in records)
    with open(path, "a+", encoding="utf-8") as fh:
        # A crash may have left a torn last line; start on a fresh one so that it alone is lost.
        if fh.tell() > 0:
            fh.seek(fh.tell() - 1)
            if fh.read(1) != "\n":
                lines = "\n" + lines
        fh.write(lines)
        fh.flush()
        os.fsync(fh.fileno())


def read_records(path: Path) -> Iterator[Sample | Failure]:
    """Read back the samples and failures of a samples file: what `append_records` wrote (a torn
    line, from a crash mid-write, is skipped) or a campaign ledger (`vbench.ledger`: only whole
    appends count; its marker and closing records are not records). A line that counts but is no
    sample or failure (damage the ledger cannot see in a file without digests) is refused,
    naming it."""
    view = read_ledger(path)
    for n, d in zip(view.record_lines, view.records):
        yield checked_record(d, path, n)


def checked_record(d: Mapping[str, Any], path: Path | str, line: int) -> Sample | Failure:
    """`record_from_dict`, with a record that is none refused as vbench's one-line error."""
    try:
        return record_from_dict(d)
    except (KeyError, TypeError, ValueError) as exc:
        why = f"{type(exc).__name__}: {exc}"
        raise VbenchError(f"{path}: line {line} is not a whole sample or failure record ({why!r:.200})") from None


def record_from_dict(d: Mapping[str, Any]) -> Sample | Failure:
    if d.get("kind") == "failure":
        return Failure(
            benchmark=d["benchmark"],
            reason=d["reason"],
            parameters=d.get("parameters", {}),
            stderr_tail=d.get("stderr_tail", ""),
            metadata=d.get("metadata", {}),
            timestamp=d["timestamp"],
        )
    return Sample.from_dict(d)

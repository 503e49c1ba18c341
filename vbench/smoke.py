"""`vbench cluster smoke`: bring a cluster up, TeraGen -> TeraSort -> TeraValidate, tear down.

Users run it to check that a platform works before a campaign; it is also the foundation's
integration check (replication crossed the links: blocks on every worker).
"""
from __future__ import annotations

import platform as _platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from vbench.benchmarks.hadoop.execute import new_run_id
from vbench.errors import JobFailed
from vbench.hadoop import jobs
from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.lifecycle import interrupts_unwind
from vbench.provenance import vbench_commit
from vbench.machine_fit import MachineFacts, check_cluster_fits
from vbench.params import HadoopParams, TestbedParams
from vbench.samples import Sample, append_records
from vbench.testbed import Testbed
from vbench.units import format_size

Log = Callable[[str], None]


@dataclass(frozen=True)
class SmokeResult:
    platform: str
    workers: int
    size_bytes: int
    replication: int
    testbed_seconds: float
    bringup_seconds: float
    teragen_seconds: float
    terasort_seconds: float
    teravalidate_seconds: float
    valid: bool
    verdict: str
    #: DataNode address -> block replicas it holds under the TeraSort output.
    replicas_per_node: dict[str, int] = field(default_factory=dict)
    worker_addresses: tuple[str, ...] = ()
    config_hash: str = ""
    #: The sorted output's replicas checked against hadoop.topology's policy (fsck).
    placement: str = ""
    placement_ok: bool = True
    blocks_sharing_a_physical_host: int = 0
    #: What every other sample carries too: the run it belongs to and the code that measured it.
    run_id: str = ""
    vbench_commit: str = ""

    @property
    def blocks_on_every_worker(self) -> bool:
        return all(self.replicas_per_node.get(a, 0) > 0 for a in self.worker_addresses)

    @property
    def ok(self) -> bool:
        return self.valid and self.blocks_on_every_worker and self.placement_ok

    def summary(self) -> str:
        return (
            f"smoke {'PASS' if self.ok else 'FAIL'}: platform={self.platform} workers={self.workers} "
            f"size={format_size(self.size_bytes)} bringup={self.bringup_seconds:.1f}s "
            f"terasort={self.terasort_seconds:.1f}s validation={'valid' if self.valid else 'INVALID'} "
            f"blocks_on_all_workers={'yes' if self.blocks_on_every_worker else 'NO'}"
            + (f"\nplacement: {self.placement}" if self.placement else "")
        )

    def samples(self) -> list[Sample]:
        meta = {
            "platform": self.platform, "workers": self.workers, "size_bytes": self.size_bytes,
            "replication": self.replication, "config_hash": self.config_hash, "valid": self.valid,
            "controller": _platform.node(), "run_id": self.run_id, "vbench_commit": self.vbench_commit,
        }
        return [
            Sample("smoke", "bringup_time", self.bringup_seconds, "s", meta),
            Sample("smoke", "teragen_time", self.teragen_seconds, "s", meta),
            Sample("smoke", "terasort_time", self.terasort_seconds, "s", meta),
            Sample("smoke", "teravalidate_time", self.teravalidate_seconds, "s", meta),
            Sample("smoke", "blocks_sharing_a_physical_host", self.blocks_sharing_a_physical_host, "count",
                   {**meta, "placement": self.placement, "placement_ok": self.placement_ok}),
        ]


def _timed_job(cluster: HadoopCluster, args: list[str], what: str, timeout_s: float) -> float:
    r = cluster.java(jobs.EXAMPLES_DRIVER, args, timeout=timeout_s)
    if not r.ok:
        tail = "\n".join(r.stderr.strip().splitlines()[-12:])
        raise JobFailed(f"{what} failed (exit {r.exit_code}):\n{tail}")
    return r.seconds


def run_smoke(
    testbed: TestbedParams,
    hadoop: HadoopParams,
    size_bytes: int,
    machine: MachineFacts | None = None,
    log: Log = print,
    job_timeout_s: float = 900,
) -> SmokeResult:
    """The whole smoke run; everything it started is torn down whatever happens."""
    check_cluster_fits(testbed, hadoop, machine or MachineFacts.local())
    rows = jobs.teragen_rows(size_bytes)
    dist = fetch(hadoop.version, hadoop.examples_version, log=log)
    with interrupts_unwind():
        tb = Testbed(testbed, log=log)
        t0 = time.monotonic()
        with tb:
            cluster = HadoopCluster(tb.hosts, hadoop, dist, log=log)
            with cluster:
                bringup = time.monotonic() - t0
                n = len(cluster.workers)
                log(f"TeraGen {format_size(size_bytes)} ({rows} rows) ...")
                tg = _timed_job(cluster, jobs.teragen_args(rows, "/smoke/gen", maps=n), "TeraGen", job_timeout_s)
                log(f"TeraGen took {tg:.1f} s; TeraSort ...")
                ts = _timed_job(cluster, jobs.terasort_args("/smoke/gen", "/smoke/sorted", reduces=n), "TeraSort", job_timeout_s)
                log(f"TeraSort took {ts:.1f} s; TeraValidate ...")
                tv = _timed_job(cluster, jobs.teravalidate_args("/smoke/sorted", "/smoke/validate"), "TeraValidate", job_timeout_s)
                report = cluster.fs("-cat", "/smoke/validate/part-r-*")
                valid, verdict = jobs.teravalidate_verdict(report.stdout if report.ok else "")
                fsck = cluster.fsck("/smoke/sorted")
                placement = jobs.replicas_per_node(jobs.block_locations(fsck.stdout))
                checked = cluster.placement("/smoke/sorted")
                log(f"placement: {checked.summary()}")
    return SmokeResult(
        # A mixed cluster is named by its platforms in host order, e.g. "native+qemu".
        platform="+".join(dict.fromkeys(str(h.platform) for h in testbed.resolved_hosts())), workers=n, size_bytes=size_bytes, replication=hadoop.replication,
        testbed_seconds=tb.bringup_seconds or 0.0, bringup_seconds=bringup,
        teragen_seconds=tg, terasort_seconds=ts, teravalidate_seconds=tv,
        valid=valid, verdict=verdict, replicas_per_node=placement,
        worker_addresses=tuple(h.address for h in cluster.workers), config_hash=cluster.config_hash,
        placement=checked.summary(), placement_ok=checked.ok,
        blocks_sharing_a_physical_host=checked.blocks_sharing_a_physical_host,
        run_id=new_run_id("smoke"), vbench_commit=vbench_commit(),
    )


def save_smoke(result: SmokeResult, out_dir: Path) -> Path:
    """Append the smoke's timings as samples (bring-up time is saved, not only printed)."""
    path = out_dir / "samples.jsonl"
    append_records(path, result.samples())
    return path


def result_dict(result: SmokeResult) -> dict:
    d = asdict(result)
    d["ok"] = result.ok
    return d

"""`vbench cluster smoke`: a design built in code that the campaign runner runs, one TeraSort (the
registry's: TeraGen -> TeraSort -> TeraValidate) on a fresh cluster of the testbed params, and
where the sorted output's block replicas went (fsck, read by the runner's hook before the run's
HDFS directory is removed), checked against the topology's policy.

Users run it to check that a platform works before a campaign; it is also the foundation's
integration check (replication crossed the links: blocks on every worker). Each smoke is a
campaign of its own under the output directory, stamped like every campaign's samples.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from vbench.benchmarks.hadoop import terasort
from vbench.campaign.design import Cell, Experiment, make_experiment
from vbench.campaign.hooks import RunHook
from vbench.campaign.progress import CampaignProgress
from vbench.campaign.runner import run_campaign
from vbench.errors import JobFailed, ParamsError
from vbench.hadoop import jobs
from vbench.hadoop.cluster import HadoopCluster
from vbench.hadoop.topology import check_placement
from vbench.host import Host
from vbench.params import HadoopParams, TestbedParams
from vbench.samples import Failure, Sample, read_records
from vbench.units import format_size

Log = Callable[[str], None]
EXPERIMENT = "smoke"
#: The benchmark of the samples that say where the sorted output's replicas are.
PLACEMENT = "placement"
MIB = 1024**2
TIMINGS = ("teragen_time", "terasort_time", "teravalidate_time")


def smoke_size_mb(size_bytes: int) -> int:
    """The smoke's data size in MiB (TeraSort's unit), refused naming --size unless whole. Pure."""
    if size_bytes < MIB or size_bytes % MIB:
        raise ParamsError("--size", f"a whole number of MiB is needed (e.g. 64MB), got {size_bytes} bytes")
    return size_bytes // MIB


def platform_label(testbed: TestbedParams) -> str:
    """A mixed cluster is named by its platforms in host order, e.g. "native+qemu". Pure."""
    return "+".join(dict.fromkeys(str(h.platform) for h in testbed.resolved_hosts()))


def smoke_experiment(
    testbed: TestbedParams, hadoop: HadoopParams, size_mb: int, job_timeout_s: float = 900
) -> Experiment:
    """One block, one configuration (the testbed params' platform and hosts), one TeraSort with
    one map and one reduce per worker, replicated as the cluster is."""
    workers = sum(h.role == "worker" for h in testbed.resolved_hosts())
    config = {"size_mb": size_mb, "maps": workers, "reduces": workers, "replication": hadoop.replication}
    hosts = {"hosts": [h.model_dump(mode="json", exclude_none=True) for h in testbed.hosts]} if testbed.hosts else {}
    return make_experiment(
        {
            "name": "smoke",
            "experiment": EXPERIMENT,
            "platforms": [testbed.platform],
            "repetitions": 1,
            "workers": testbed.workers,
            "testbed": hosts,
            "suite": [{"benchmark": "terasort", "config": config}],
            "job_timeout_s": job_timeout_s,
        },
        "smoke",
    )


def placement_samples(fsck_output: str, hosts: Sequence[Host], topology: str) -> list[Sample]:
    """Replicas per worker (zero included: a worker without any is the finding) and the
    topology's verdict, from fsck of the sorted output. Pure."""
    blocks = jobs.block_locations(fsck_output)
    per_node = jobs.replicas_per_node(blocks)
    report = check_placement(blocks, hosts, topology)
    out = [
        Sample(PLACEMENT, "replicas", per_node.get(h.address, 0), "count", {"datanode": h.address, "node": h.name})
        for h in hosts
        if h.role == "worker"
    ]
    out.append(
        Sample(
            PLACEMENT,
            "blocks_sharing_a_physical_host",
            report.blocks_sharing_a_physical_host,
            "count",
            {"placement": report.summary(), "placement_ok": report.ok, "topology": topology},
        )
    )
    return out


class PlacementCheck(RunHook):
    """The smoke's hook: fsck of the sorted output before the run's directory is removed."""

    def inspect(self, cell: Cell, cluster: HadoopCluster, run_dir: str) -> list[Sample]:
        path = terasort.output_dir(run_dir)
        r = cluster.fsck(path)
        if not r.ok:
            raise JobFailed(f"fsck {path} failed (exit {r.exit_code}): {r.stderr.strip()[-300:]}")
        return placement_samples(r.stdout, cluster.hosts, cluster.params.topology)


@dataclass(frozen=True)
class SmokeResult:
    """The smoke's verdict, read back from what the runner stored."""

    platform: str
    size_bytes: int
    workers: int = 0
    replication: int = 0
    bringup_seconds: float | None = None
    teragen_seconds: float | None = None
    terasort_seconds: float | None = None
    teravalidate_seconds: float | None = None
    #: TeraValidate passed (TeraSort's samples exist only then).
    valid: bool = False
    verdict: str = ""
    #: DataNode address -> block replicas it holds under the TeraSort output (every worker).
    replicas_per_node: dict[str, int] = field(default_factory=dict)
    placement: str = ""
    placement_ok: bool = False
    blocks_sharing_a_physical_host: int = 0
    config_hash: str = ""
    run_id: str = ""
    vbench_commit: str = ""
    #: Why the run, or its configuration (testbed, cluster), failed; None when it ran.
    failure: str | None = None

    @property
    def blocks_on_every_worker(self) -> bool:
        return bool(self.replicas_per_node) and all(n > 0 for n in self.replicas_per_node.values())

    @property
    def ok(self) -> bool:
        return self.failure is None and self.valid and self.blocks_on_every_worker and self.placement_ok

    def summary(self) -> str:
        def secs(v: float | None) -> str:
            return f"{v:.1f}s" if v is not None else "-"

        return (
            f"smoke {'PASS' if self.ok else 'FAIL'}: platform={self.platform} workers={self.workers} "
            f"size={format_size(self.size_bytes)} bringup={secs(self.bringup_seconds)} "
            f"terasort={secs(self.terasort_seconds)} validation={'valid' if self.valid else 'INVALID'} "
            f"blocks_on_all_workers={'yes' if self.blocks_on_every_worker else 'NO'}"
            + (f"\nplacement: {self.placement}" if self.placement else "")
            + (f"\nfailed: {self.failure}" if self.failure else "")
        )


def smoke_result(records: Iterable[Sample | Failure], platform: str, size_mb: int) -> SmokeResult:
    """The verdict from a smoke campaign's records. Pure."""
    records = list(records)
    failure = next((r for r in records if isinstance(r, Failure)), None)
    samples = [r for r in records if isinstance(r, Sample)]
    # TeraSort's own timings; JobHistory's per-job samples carry the step they came from.
    timed = [s for s in samples if s.benchmark == "terasort" and s.metric in TIMINGS and "step" not in s.metadata]
    times = {s.metric: s.value for s in timed}
    replicas = {
        str(s.metadata["datanode"]): int(s.value)
        for s in samples
        if s.benchmark == PLACEMENT and s.metric == "replicas"
    }
    check = next(
        (s for s in samples if s.benchmark == PLACEMENT and s.metric == "blocks_sharing_a_physical_host"), None
    )
    first = next(iter(timed), None) or (samples[0] if samples else failure)
    meta = first.metadata if first is not None else {}
    return SmokeResult(
        platform=platform,
        size_bytes=size_mb * MIB,
        workers=int(meta.get("workers", 0)),
        replication=int(meta.get("replication", 0)),
        bringup_seconds=meta.get("bringup_s"),
        teragen_seconds=times.get("teragen_time"),
        terasort_seconds=times.get("terasort_time"),
        teravalidate_seconds=times.get("teravalidate_time"),
        valid="terasort_time" in times,
        verdict=str(meta.get("verdict", "")),
        replicas_per_node=replicas,
        placement=str(check.metadata["placement"]) if check else "",
        placement_ok=bool(check.metadata["placement_ok"]) if check else False,
        blocks_sharing_a_physical_host=int(check.value) if check else 0,
        config_hash=str(meta.get("hadoop_config_hash", "")),
        run_id=str(meta.get("run_id", "")),
        vbench_commit=str(meta.get("vbench_commit", "")),
        failure=failure.reason if failure else None,
    )


def smoke_campaign_dir(out_dir: Path, testbed: TestbedParams, now: float | None = None) -> Path:
    """A new campaign directory under `out_dir` for each smoke: <date>-<time>-<platforms>-<random>."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return Path(out_dir) / f"{stamp}-{platform_label(testbed).replace('+', '-')}-{uuid.uuid4().hex[:4]}"


def run_smoke(
    testbed: TestbedParams,
    hadoop: HadoopParams,
    size_mb: int,
    out_dir: Path,
    *,
    log: Log = print,
    progress: CampaignProgress | None = None,
    job_timeout_s: float = 900,
) -> tuple[SmokeResult, Path]:
    """The smoke as a campaign under `out_dir`; everything it started is torn down whatever
    happens. Returns the verdict and the campaign directory."""
    exp = smoke_experiment(testbed, hadoop, size_mb, job_timeout_s)
    camp = smoke_campaign_dir(out_dir, testbed)
    run_campaign(exp, testbed, hadoop, camp, log=log, progress=progress, hook=PlacementCheck())
    records = read_records(camp / "samples.jsonl") if (camp / "samples.jsonl").exists() else []
    return smoke_result(records, platform_label(testbed), size_mb), camp


def result_dict(result: SmokeResult) -> dict:
    d = asdict(result)
    d["ok"] = result.ok
    return d

"""The isolation experiment end to end: tenant A's Hadoop cluster up once, TeraGen once, then for
each repetition and each condition (shuffled): tenant B up with its limits read back, pids.max
verified before a fork bomb, the stress started, TeraSort in A watched, tenant B destroyed.

Tenant B lives only as long as one condition: destroying its container (lxc-stop -k / crun
delete, then the cgroup emptied) is what stops every stress, a fork bomb included, also after
a failure, Ctrl-C or SIGTERM (`Testbed` is an UpDown; signals unwind through `finally`).
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable

from vbench.benchmarks.hadoop.execute import BenchRun, execute, run_step
from vbench.errors import VbenchError
from vbench.hadoop.cluster import HadoopCluster
from vbench.host import Host, connect
from vbench.isolation import stress as S
from vbench.isolation import workload
from vbench.isolation.params import IsolationParams
from vbench.isolation.pids import PidsCgroup, require_pids_limit
from vbench.isolation.watch import Watch, WatchSummary
from vbench.params import HadoopParams, TestbedParams
from vbench.provenance import cluster_provenance
from vbench.samples import Failure, Sample
from vbench.store import CampaignStore
from vbench.testbed import Testbed
from vbench.testbed.platforms import provisioner_for

Log = Callable[[str], None]
EXPERIMENT = "isolation"
WATCH_BENCHMARK = "isolation_watch"


@dataclass(frozen=True)
class Condition:
    repetition: int
    stress: str
    #: Position within its repetition (after shuffling).
    order: int


def plan(iso: IsolationParams) -> list[Condition]:
    """Every stress once per repetition, in a seeded random order per repetition. Pure."""
    rng = random.Random(iso.seed)
    out = []
    for rep in range(1, iso.repetitions + 1):
        levels = list(iso.stresses)
        rng.shuffle(levels)
        out += [Condition(rep, s, i) for i, s in enumerate(levels, start=1)]
    return out


def workload_config(iso: IsolationParams, hadoop: HadoopParams) -> workload.Config:
    return workload.Config(size_mb=iso.size_mb, maps=iso.maps, reduces=iso.reduces, replication=hadoop.replication)


def watch_samples(w: WatchSummary, stress_tasks: int, responsive_within_s: float) -> list[Sample]:
    """The watch as samples (benchmark isolation_watch), so the safety evidence is data. Pure."""
    out = [
        Sample(WATCH_BENCHMARK, "pids_peak", w.pids_peak, "count"),
        Sample(WATCH_BENCHMARK, "refused_forks", w.refused_forks, "count"),
        Sample(WATCH_BENCHMARK, "stress_tasks", stress_tasks, "count"),
        Sample(WATCH_BENCHMARK, "probe_failures", w.probe_failures, "count"),
        Sample(WATCH_BENCHMARK, "probes", len(w.probe_latencies_s), "count"),
        Sample(WATCH_BENCHMARK, "responsive", 1.0 if w.responsive(responsive_within_s) else 0.0, "ratio",
               {"responsive_within_s": responsive_within_s}),
    ]
    if w.pids_max is not None:
        out.append(Sample(WATCH_BENCHMARK, "pids_max", w.pids_max, "count"))
    if w.probe_max_s is not None:
        out += [Sample(WATCH_BENCHMARK, "probe_max_time", w.probe_max_s, "s"),
                Sample(WATCH_BENCHMARK, "probe_median_time", w.probe_median_s, "s")]
    return out


@dataclass
class ConditionResult:
    condition: Condition
    run: BenchRun
    watch: WatchSummary
    stress_tasks: int
    stress_log: str = ""


def start_stress(neighbour: Host, kind: str, load: S.StressLoad) -> str:
    """Start the stress in tenant B; returns the detached pid (tenant-side) as text."""
    cmd = S.command(kind, load)
    if cmd is None:
        return ""
    with connect(neighbour) as c:
        r = c.run(S.launch_line(cmd), hide=True, in_stream=False, warn=True, timeout=30)
    if r.exited != 0:
        raise VbenchError(f"starting the {kind} stress in {neighbour.name} failed: {r.stderr.strip()}")
    return r.stdout.strip()


def stress_log(neighbour: Host) -> str:
    try:
        with connect(neighbour, connect_timeout=5) as c:
            return c.run("tail -n 5 /var/tmp/vbench-stress.log", hide=True, in_stream=False, warn=True, timeout=10).stdout
    except Exception as exc:  # the neighbour may be saturated (fork bomb): the log is a nicety
        return f"(log unreadable: {type(exc).__name__})"


def run_condition(cond: Condition, cluster: HadoopCluster, tb_b: TestbedParams, iso: IsolationParams,
                  cfg: workload.Config, log: Log) -> ConditionResult:
    """One TeraSort in tenant A beside a fresh tenant B running `cond.stress`."""
    with Testbed(tb_b, log=log) as b:
        neighbour = b.hosts[0]
        spec = tb_b.resolved_hosts()[0]
        cg = PidsCgroup.of_pid(provisioner_for(spec.platform).init_pid(spec, b.ctx))
        if cond.stress == "forkbomb":
            # Read back from the cgroup itself, right before the bomb: refuse without a limit.
            limit = require_pids_limit(cg, iso.pids_max)
            log(f"pids.max of {neighbour.name} is {limit} ({cg.path}); starting the fork bomb")
        resident = cg.current()
        lim = iso.tenant_b.limits
        load = S.load_for(len(lim.cpuset_cpus) or lim.cpus or 1, lim.memory_mb, iso.stress_timeout_s)
        start_stress(neighbour, cond.stress, load)
        if cond.stress != "none":
            time.sleep(iso.warmup_s)
        stress_tasks = max(0, cg.current() - resident)
        if cond.stress != "none" and stress_tasks == 0:
            raise VbenchError(f"the {cond.stress} stress is not running in {neighbour.name}: {stress_log(neighbour)}")
        watch = Watch(cg, cluster.master).start()
        try:
            run = execute(cluster, workload, cfg, job_details=False, log=log)
        finally:
            summary = watch.stop()
        tail = stress_log(neighbour) if cond.stress in ("cpu", "memory", "io") else ""
    return ConditionResult(cond, run, summary, stress_tasks, tail)


def records_of(res: ConditionResult, iso: IsolationParams) -> list[Sample | Failure]:
    r = res.run
    recs: list[Sample | Failure] = list(r.samples) if r.ok else [r.failure]
    recs += [s.with_metadata(run_id=r.run_id) for s in watch_samples(res.watch, res.stress_tasks, iso.responsive_within_s)]
    return recs


def condition_stamp(cond: Condition, iso: IsolationParams, platform: str) -> dict:
    """Identity of a condition's samples: what the paper's isolation table groups by. Pure."""
    return {"experiment": EXPERIMENT, "platform": platform, "repetition": cond.repetition, "block": cond.repetition,
            "stress": cond.stress, "order": cond.order, "size": f"{iso.size_mb}MB",
            "tenant_a_limits": _limits_text(iso.tenant_a.limits), "tenant_b_limits": _limits_text(iso.tenant_b.limits)}


def _limits_text(lim) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(lim.as_dict().items()))


def run_isolation(iso: IsolationParams, tb_a: TestbedParams, tb_b: TestbedParams, hadoop: HadoopParams, dist,
                  store: CampaignStore, stamp: dict, log: Log = print,
                  progress: Callable[[str], None] = lambda _l: None) -> list[ConditionResult]:
    """Run every condition of `plan(iso)`; each condition's samples are appended as it ends."""
    results: list[ConditionResult] = []
    cfg = workload_config(iso, hadoop)
    with Testbed(tb_a, log=log) as a:
        cluster = HadoopCluster(a.hosts, hadoop, dist, log=log)
        try:
            # Tenant A's daemons share one CPU (and a busy machine): give them longer than the
            # default 120 s to come up.
            cluster.up(timeout_s=iso.ready_timeout_s)
            _run_conditions(iso, cluster, tb_a, tb_b, cfg, store, stamp, log, progress, results)
        finally:
            cluster.down()
    return results


def _run_conditions(iso, cluster, tb_a, tb_b, cfg, store, stamp, log, progress, results) -> None:
    prov = {**cluster_provenance(cluster), "bringup_s": round(cluster.bringup_seconds or 0, 2)}
    log(f"isolation: TeraGen {iso.size_mb} MB once into {cfg.input_dir}")
    run_step(cluster, workload.generate_step(cfg), log)
    for cond in plan(iso):
        res = run_condition(cond, cluster, tb_b, iso, cfg, log)
        results.append(res)
        raw = {**res.run.outputs, **({"stress_log": res.stress_log} if res.stress_log else {})}
        store.save_runs([(res.run.run_id, records_of(res, iso), raw)],
                        {**stamp, **prov, **condition_stamp(cond, iso, tb_a.platform)})
        t = next((s.value for s in res.run.samples if s.metric == "terasort_time"), None)
        w = res.watch
        progress(f"rep {cond.repetition} {cond.stress}: terasort "
                 + (f"{t:.1f}s" if t is not None else f"FAILED ({res.run.failure.reason})")
                 + f", B tasks peak {w.pids_peak}/{w.pids_max or '-'}, probe max "
                 + (f"{w.probe_max_s:.2f}s" if w.probe_max_s is not None else "-"))

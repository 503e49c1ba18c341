"""The two calls a campaign makes: `calibrate` (micro-benchmarks on every host) and `suite`
(the Hadoop suite on a cluster). Both stamp provenance and store every run as it finishes."""
from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Iterable, Mapping

from vbench.benchmarks.base import replace
from vbench.benchmarks.hadoop.execute import BenchRun, execute, new_run_id
from vbench.benchmarks.micro import iperf3
from vbench.benchmarks.micro._common import params as config_params, tail
from vbench.errors import JobFailed
from vbench.hadoop.cluster import HadoopCluster
from vbench.host import Host, connect
from vbench.monitor.monitor import TIMESERIES_DIR, MonitorSpec, monitored_run, timeseries_name
from vbench.samples import Failure
from vbench.store import CampaignStore

Log = Callable[[str], None]
Progress = Callable[[str], None]  # called after each finished run with its label


@dataclass(frozen=True)
class Planned:
    """One benchmark with its config, to run in a calibrate or suite call."""

    benchmark: str
    config: Any
    module: ModuleType = field(compare=False, repr=False)


def drop_caches_line() -> str:
    # On hosts sharing the kernel (namespaces, containers) this drops the machine's page cache;
    # a container without write access to /proc/sys says so instead of failing the run.
    return "sync && (echo 3 > /proc/sys/vm/drop_caches) 2>/dev/null && echo dropped || echo not-permitted"


def suite(cluster: HadoopCluster, plan: Iterable[Planned], store: CampaignStore, stamp: Mapping[str, Any],
          log: Log = print, progress: Progress | None = None, drop_caches: bool = False,
          job_details: bool = True, monitor: MonitorSpec | None = None) -> list[BenchRun]:
    """Run the plan; with `monitor`, every host is sampled during each run and the time series
    is stored as <campaign>/timeseries/<run id>.csv, named in the run's records."""
    runs = []
    for item in plan:
        # Which platform each node is (a mixed cluster has several): the per-node table needs it.
        extra: dict[str, Any] = {"host_platforms": {h.name: h.platform for h in cluster.hosts}}
        if drop_caches:
            states = [cluster.sh(h, drop_caches_line()).stdout.strip() for h in cluster.hosts]
            extra["page_cache_dropped"] = all(s == "dropped" for s in states)
        run_id = new_run_id(item.module.NAME)
        go = lambda: execute(cluster, item.module, item.config, job_details=job_details, log=log, run_id=run_id)
        if monitor is not None:
            rel = f"{TIMESERIES_DIR}/{timeseries_name(run_id)}"
            run = monitored_run(cluster.hosts, monitor.testbed, monitor.interval_s, store.root / rel, go, log)
            extra.update(timeseries=rel, monitor_interval_s=monitor.interval_s)
        else:
            run = go()
        store.save_runs([records_of(run)], {**stamp, **extra, "benchmark_kind": "hadoop"})
        log(f"{item.benchmark}: {'ok' if run.ok else 'FAILED: ' + run.failure.reason}")
        runs.append(run)
        if progress:
            progress(item.benchmark)
    return runs


def failure_reason(exc: Exception) -> str:
    """One line saying why: the tool's last words rather than the command line that failed."""
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    if not lines:
        return type(exc).__name__
    head = lines[0].split(": command exited")[0]
    if len(lines) > 1 and "command exited" in lines[0]:
        code = lines[0].split("command exited", 1)[1].split(":")[0].strip()
        return f"{head}: exit {code}: {lines[-1][:300]}"
    return lines[0][:300]


def default_iperf_pairs(hosts: list[Host]) -> list[tuple[Host, Host]]:
    """Each host sends to the next one (a ring): every host is measured once as client and server."""
    if len(hosts) < 2:
        return []
    return [(hosts[i], hosts[(i + 1) % len(hosts)]) for i in range(len(hosts))] if len(hosts) > 2 else [(hosts[0], hosts[1])]


def _run_micro(host: Host, item: Planned, log: Log) -> BenchRun:
    run = BenchRun(item.benchmark, new_run_id(f"{item.benchmark}-{host.name}"), config_params(item.config))
    workdir = f"{host.work_dir}/micro"
    with connect(host) as c:
        c.run(f"mkdir -p {shlex.quote(workdir)}", hide=True, in_stream=False)
        try:
            samples, raw = item.module.run(c, item.config, workdir)
            run.outputs["output"] = raw
            run.samples = [s.with_metadata(host=host.name, host_platform=host.platform) for s in samples]
        except JobFailed as exc:
            run.failure = Failure(item.benchmark, failure_reason(exc), run.parameters, tail(str(exc)),
                                  {"host": host.name})
    return run


def _run_iperf(client: Host, server: Host, cfg: Any, log: Log) -> BenchRun:
    cfg = replace(cfg, server=server.address)
    run = BenchRun("iperf3", new_run_id(f"iperf3-{client.name}-{server.name}"), config_params(cfg))
    with connect(server) as s, connect(client) as c:
        # A one-off server (-1) that also dies by itself if the client never comes.
        limit = int(cfg.duration_s + iperf3.SERVER_START_TIMEOUT_S) + 30
        s.run(f"nohup timeout {limit} {iperf3.server_command(cfg)} > /dev/null 2>&1 < /dev/null &",
              hide=True, in_stream=False)
        try:
            iperf3.wait_until_listening(s, cfg.port, f"{server.name} ({server.address})")
            samples, raw = iperf3.run(c, cfg, "")
            run.outputs["output"] = raw
            run.samples = [x.with_metadata(host=client.name, client=client.name, server=server.name,
                                           host_platform=client.platform) for x in samples]
        except JobFailed as exc:
            run.failure = Failure("iperf3", failure_reason(exc), run.parameters, tail(str(exc)),
                                  {"client": client.name, "server": server.name})
    return run


def measure_micro(hosts: list[Host], item: Planned, log: Log = print,
                  iperf_pairs: list[tuple[Host, Host]] | None = None) -> list[BenchRun]:
    """One micro-benchmark on every host (iperf3: between pairs of hosts); nothing is stored."""
    if item.benchmark == "iperf3":
        jobs = [(lambda c=c, s=s: _run_iperf(c, s, item.config, log), f"{c.name}->{s.name}")
                for c, s in (iperf_pairs if iperf_pairs is not None else default_iperf_pairs(hosts))]
    else:
        jobs = [(lambda h=h: _run_micro(h, item, log), h.name) for h in hosts]
    runs = []
    for job, where in jobs:
        log(f"{item.benchmark} on {where} ...")
        run = job()
        if not run.ok:
            log(f"{item.benchmark} on {where}: FAILED: {run.failure.reason}")
        runs.append(run)
    return runs


def records_of(run: BenchRun) -> tuple[str, list, dict]:
    return run.run_id, (run.samples if run.ok else [run.failure]), run.outputs


def calibrate(hosts: list[Host], plan: Iterable[Planned], store: CampaignStore, stamp: Mapping[str, Any],
              log: Log = print, progress: Progress | None = None,
              iperf_pairs: list[tuple[Host, Host]] | None = None) -> list[BenchRun]:
    """Every micro-benchmark of `plan` on every host, each stored as soon as it has run everywhere."""
    runs = []
    for item in plan:
        done = measure_micro(hosts, item, log, iperf_pairs)
        store.save_runs([records_of(r) for r in done], {**stamp, "benchmark_kind": "micro"})
        runs += done
        if progress:
            progress(item.benchmark)
    return runs


def plan_of(names_and_configs: Iterable[tuple[str, Any]], table: Mapping[str, ModuleType]) -> list[Planned]:
    return [Planned(n, c, table[n]) for n, c in names_and_configs]


def default_calibration() -> list[Planned]:
    """Micro-benchmarks at sizes this 2-core machine runs in about a minute per host."""
    from vbench.benchmarks.micro import bonnie, cpu, dd, fio, membw, pi_digits

    return [
        Planned("cpu", cpu.Config(), cpu),
        Planned("membw", membw.Config(), membw),
        Planned("pi_digits", pi_digits.Config(), pi_digits),
        Planned("dd", dd.Config(), dd),
        Planned("fio", fio.Config(), fio),
        Planned("bonnie", bonnie.Config(), bonnie),
        Planned("iperf3", iperf3.Config(duration_s=5), iperf3),
    ]


def default_suite() -> list[Planned]:
    """The Hadoop suite at sizes this machine runs in about ten minutes."""
    from vbench.benchmarks.hadoop import HADOOP_BENCHMARKS as H

    return [Planned(name, H[name].Config(), H[name]) for name in ("terasort", "dfsio", "nnbench", "mrbench",
                                                                  "wordcount", "pi", "sort")]


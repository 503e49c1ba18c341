"""What the runner does to measure one cell: a micro-benchmark on every host (iperf3 and latency
between pairs of hosts; with the design's `hosts: N`, the first N of them), or a Hadoop
benchmark on the cluster, with the page cache dropped first when the design says so and the
design's hook around it. Nothing is stored here: the runner stores all of
a cell's runs in one append.
"""

from __future__ import annotations

import itertools
import shlex
from contextlib import ExitStack
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Sequence, TypeVar

from vbench.benchmarks.base import replace
from vbench.benchmarks.hadoop import HADOOP_BENCHMARKS
from vbench.benchmarks import netmatrix, netmatrix_measure
from vbench.benchmarks.hadoop.execute import BenchRun, execute, new_run_id
from vbench.benchmarks.micro import iperf3, latency
from vbench.benchmarks.micro._common import params as config_params, tail, wait_until_listening
from vbench.campaign.design import BenchmarkSpec, Cell
from vbench.campaign.hooks import RunHook
from vbench.campaign.pagecache import drop_page_cache, kept
from vbench.errors import JobFailed, ParamsError, VbenchError
from vbench.hadoop.cluster import HadoopCluster
from vbench.host import Host, connect
from vbench.monitor.machine_cpu import Marker, busy_between
from vbench.samples import Failure
from vbench.store import Run
from vbench.testbed.physnet import NetLayout

Log = Callable[[str], None]
T = TypeVar("T")


@dataclass(frozen=True)
class Planned:
    """One micro-benchmark with its config, to measure on every host (`hosts`: the first N)."""

    benchmark: str
    config: Any
    module: ModuleType = field(compare=False, repr=False)
    #: The design's `hosts` (BenchmarkSpec): the first N hosts, or pairs; None: all of them.
    hosts: int | None = None


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


def default_iperf_pairs(hosts: Sequence[T]) -> list[tuple[T, T]]:
    """Each host sends to the next one (a ring): every host is measured once as client and server."""
    if len(hosts) < 2:
        return []
    return (
        [(hosts[i], hosts[(i + 1) % len(hosts)]) for i in range(len(hosts))]
        if len(hosts) > 2
        else [(hosts[0], hosts[1])]
    )


def latency_pairs(hosts: Sequence[T]) -> list[tuple[T, T]]:
    """Every pair of hosts once, as (client, server): the host listed first is the client."""
    return list(itertools.combinations(hosts, 2))


def measured_on(benchmark: str, hosts: Sequence[T]) -> list[Any]:
    """What a micro-benchmark (not netmatrix) measures on `hosts`, in their order, one run each:
    each host, or pairs of them (iperf3: a ring; latency: every pair). Pure."""
    if benchmark == "iperf3":
        return default_iperf_pairs(hosts)
    if benchmark == latency.NAME:
        return latency_pairs(hosts)
    return list(hosts)


def first_of(units: Sequence[T], n: int | None) -> list[T]:
    """The first `n` of the hosts or pairs a micro-benchmark would measure; all when None. Pure.
    More than there are is refused before anything starts (`check_calibrate_hosts`): a guard."""
    if n is None:
        return list(units)
    if n > len(units):
        raise VbenchError(f"hosts: {n} asked, and there are {len(units)} to measure")
    return list(units[:n])


def check_calibrate_hosts(calibrate: Sequence[BenchmarkSpec], host_count: int) -> None:
    """Refuse (ParamsError naming the entry's field) a calibrate entry whose `hosts` asks for more
    hosts, or pairs, than a testbed of `host_count` hosts gives it. Pure."""
    for i, spec in enumerate(calibrate):
        if spec.hosts is None or spec.benchmark == netmatrix.NAME:  # netmatrix: refused by the design
            continue
        there = len(measured_on(spec.benchmark, range(host_count)))
        if spec.hosts > there:
            paired = spec.benchmark in ("iperf3", latency.NAME)  # N counts its pairs
            what = f"{there} pairs of hosts for {spec.benchmark} among its {host_count}" if paired else f"{there} hosts"
            raise ParamsError(f"experiment.calibrate[{i}].hosts", f"{spec.hosts} asked, and the testbed has {what}")


def _failure(run: BenchRun, exc: Exception, **where: str) -> Failure:
    """A micro run's failure record: why (the tool's last words), its parameters, where it ran."""
    return Failure(run.benchmark, failure_reason(exc), run.parameters, tail(str(exc)), where)


def _run_micro(host: Host, item: Planned, log: Log, machine: Marker | None = None) -> BenchRun:
    run = BenchRun(item.benchmark, new_run_id(f"{item.benchmark}-{host.name}"), config_params(item.config))
    workdir = f"{host.work_dir}/micro"
    with connect(host) as c:
        c.run(f"mkdir -p {shlex.quote(workdir)}", hide=True, in_stream=False)
        try:
            before = machine() if machine is not None else None
            samples, raw = item.module.run(c, item.config, workdir)
            spent = busy_between(before, machine()) if before is not None else {}
            run.outputs["output"] = raw
            run.samples = [s.with_metadata(host=host.name, host_platform=host.platform, **spent) for s in samples]
        except JobFailed as exc:
            run.failure = _failure(run, exc, host=host.name)
    return run


def _run_iperf(client: Host, server: Host, cfg: Any, log: Log) -> BenchRun:
    cfg = replace(cfg, server=server.address)
    run = BenchRun("iperf3", new_run_id(f"iperf3-{client.name}-{server.name}"), config_params(cfg))
    with connect(server) as s, connect(client) as c:
        # A one-off server (-1) that also dies by itself if the client never comes.
        limit = int(cfg.duration_s + iperf3.SERVER_START_TIMEOUT_S) + 30
        s.run(
            f"nohup timeout {limit} {iperf3.server_command(cfg)} > /dev/null 2>&1 < /dev/null &",
            hide=True,
            in_stream=False,
        )
        try:
            iperf3.wait_until_listening(s, cfg.port, f"{server.name} ({server.address})")
            samples, raw = iperf3.run(c, cfg, "")
            run.outputs["output"] = raw
            run.samples = [
                x.with_metadata(host=client.name, client=client.name, server=server.name, host_platform=client.platform)
                for x in samples
            ]
        except JobFailed as exc:
            run.failure = _failure(run, exc, client=client.name, server=server.name)
    return run


def _run_latency(client: Host, server: Host, cfg: Any, log: Log) -> BenchRun:
    cfg = replace(cfg, server=server.address)
    run = BenchRun(latency.NAME, new_run_id(f"latency-{client.name}-{server.name}"), config_params(cfg))
    with connect(server) as s, connect(client) as c:
        started = s.run(latency.server_start_line(cfg), hide=True, warn=True, in_stream=False).stdout.strip()
        try:
            if not started.isdigit():
                raise JobFailed(f"latency: the server on {server.name} did not start: {started[-200:]!r}")
            wait_until_listening(
                s,
                cfg.port,
                f"{server.name} ({server.address})",
                latency.NAME,
                latency.SERVER_START_TIMEOUT_S,
                latency.SERVER_POLL_S,
            )
            samples, raw = latency.run(c, cfg, "")
            run.outputs["output"] = raw
            run.samples = [
                x.with_metadata(
                    host=client.name,
                    client=client.name,
                    server=server.name,
                    host_platform=client.platform,
                    server_platform=server.platform,
                )
                for x in samples
            ]
        except JobFailed as exc:
            run.failure = _failure(run, exc, client=client.name, server=server.name)
        finally:
            if started.isdigit():  # it serves one client and exits; this stops one that did not
                s.run(latency.server_stop_line(int(started), cfg), hide=True, warn=True, in_stream=False)
    return run


def _run_netmatrix_pair(pair: netmatrix.Pair, lay: NetLayout, by_name: dict[str, Host], cfg: Any) -> BenchRun:
    run = BenchRun(netmatrix.NAME, new_run_id(f"netmatrix-{pair.client}-{pair.kind}"), config_params(cfg))
    client = by_name[pair.client]
    try:
        text = netmatrix_measure.measure_pair(pair, lay, by_name, cfg)
        run.outputs["output"] = text
        run.samples = [
            s.with_metadata(host=client.name, host_platform=client.platform)
            for s in netmatrix.pair_samples(text, pair, lay, cfg)
        ]
    except JobFailed as exc:
        run.failure = _failure(run, exc, client=pair.client, server=pair.server, pair=pair.kind)
    return run


def measure_micro(
    hosts: list[Host],
    item: Planned,
    log: Log = print,
    iperf_pairs: list[tuple[Host, Host]] | None = None,
    layout: NetLayout | None = None,
    machine: Marker | None = None,
) -> list[BenchRun]:
    """One micro-benchmark on every host (iperf3: between pairs of hosts, a ring by default;
    latency: between every pair; the iperf3 matrix: between the pairs of the testbed's network
    `layout`, each a run), or, with `item.hosts` N, on the first N hosts or pairs of those;
    nothing is stored. With `machine` (the reader of the machine the hosts share: the local
    testbed's), a one-host run's samples carry the machine's CPU spent over the run
    (vbench.monitor.machine_cpu); runs between hosts do not."""
    if item.benchmark == netmatrix.NAME:
        if layout is None:  # refused before anything starts (runner.configuration_params); a guard
            raise VbenchError("netmatrix needs the testbed's emulated physical hosts (a network layout)")
        if item.hosts is not None:  # refused when the design is loaded; a guard
            raise VbenchError("netmatrix measures every pair of its layout: it takes no `hosts`")
        by_name = {h.name: h for h in hosts}
        jobs = [
            (lambda p=p: _run_netmatrix_pair(p, layout, by_name, item.config), f"{p.client}->{p.server} ({p.kind})")
            for p in netmatrix.pairs(layout)
        ]
    elif item.benchmark == "iperf3":
        jobs = [
            (lambda c=c, s=s: _run_iperf(c, s, item.config, log), f"{c.name}->{s.name}")
            for c, s in first_of(iperf_pairs if iperf_pairs is not None else default_iperf_pairs(hosts), item.hosts)
        ]
    elif item.benchmark == latency.NAME:
        jobs = [
            (lambda c=c, s=s: _run_latency(c, s, item.config, log), f"{c.name}->{s.name}")
            for c, s in first_of(latency_pairs(hosts), item.hosts)
        ]
    else:
        jobs = [(lambda h=h: _run_micro(h, item, log, machine), h.name) for h in first_of(hosts, item.hosts)]
    runs = []
    for job, where in jobs:
        log(f"{item.benchmark} on {where} ...")
        run = job()
        if not run.ok:
            log(f"{item.benchmark} on {where}: FAILED: {run.failure.reason}")
        runs.append(run)
    return runs


def measure_hadoop(
    cluster: HadoopCluster,
    cell: Cell,
    *,
    drop_caches: bool,
    hook: RunHook | None = None,
    log: Log = print,
    timeout_s: float | None = None,
    before_first_step: Callable[[], None] | None = None,
    machine: Marker | None = None,
) -> tuple[BenchRun, dict[str, Any]]:
    """One Hadoop cell's run, nothing stored: the hook's set-up (if the design has one), the page
    cache dropped on every host right before the benchmark when `drop_caches`, the benchmark, the
    hook's tear-down (`before_first_step` and `machine`: vbench.benchmarks.hadoop.execute.execute's). Returns the run (the hook's samples in `beside`, kept when the run failed)
    and what its records are stamped with: what was done about the page cache, and the hook's.

    A hook that cannot set up (VbenchError: the neighbour did not come up, the fork bomb was
    refused) fails this run, not the configuration: the other cells still run."""
    v = cell.variant
    module = HADOOP_BENCHMARKS[v.benchmark]
    inspect = (lambda c, run_dir: hook.inspect(cell, c, run_dir)) if hook is not None else None
    with ExitStack() as stack:
        beside = None
        if hook is not None:
            try:
                beside = stack.enter_context(hook.around(cell, cluster, log))
            except VbenchError as exc:
                reason = f"set-up beside the run failed: {failure_reason(exc)}"
                log(f"{v.benchmark}: {reason}")
                run = BenchRun(module.NAME, new_run_id(module.NAME), config_params(v.config))
                run.failure = Failure(module.NAME, reason, run.parameters, tail(str(exc)), {"step": "set-up"})
                return run, kept()
        page_cache = drop_page_cache(cluster.hosts, cluster.sh) if drop_caches else kept()
        run = execute(
            cluster,
            module,
            v.config,
            log=log,
            timeout_s=timeout_s,
            inspect=inspect,
            before_first_step=before_first_step,
            machine=machine,
        )
    stamp = dict(page_cache)
    if beside is not None:  # filled in as the hook tore down
        run.beside += beside.samples
        run.outputs.update(beside.raw)
        stamp.update(beside.stamp)
    return run, stamp


def records_of(run: BenchRun) -> Run:
    """A run as the store takes it: its samples (or its failure) and what ran beside it."""
    return run.run_id, [*(run.samples if run.ok else [run.failure]), *run.beside], run.outputs

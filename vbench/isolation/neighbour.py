"""Tenant B, the neighbour: the runner's hook (vbench.campaign.hooks) around each TeraSort of the
isolation experiment. Before the run: tenant B up with its limits read back, pids.max verified
before a fork bomb, the stress started and given time to reach full intensity, the watch begun.
After it (also when it failed): the watch's findings as samples stored with the run, the
stress's log kept with its raw output, tenant B destroyed.

Tenant B lives only as long as one run: destroying its container (lxc-stop -k / crun delete,
then the cgroup emptied) is what stops every stress, a fork bomb included, also after a
failure, Ctrl-C or SIGTERM (`Testbed` is an UpDown; signals unwind through `finally`).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator

from vbench.campaign.design import Cell
from vbench.campaign.hooks import Beside, RunHook, condition_level
from vbench.errors import VbenchError
from vbench.hadoop.cluster import HadoopCluster
from vbench.host import Host, connect
from vbench.isolation import stress as S
from vbench.isolation.params import IsolationParams
from vbench.isolation.pids import PidsCgroup, require_pids_limit
from vbench.isolation.watch import Watch, WatchSummary
from vbench.params import LimitsParams, TestbedParams
from vbench.samples import Sample
from vbench.testbed import Testbed
from vbench.testbed.platforms import provisioner_for

Log = Callable[[str], None]
#: The design's condition: the neighbour's stress, one cell per level.
CONDITION = "stress"
WATCH_BENCHMARK = "isolation_watch"
#: Stresses whose stress-ng log is worth keeping with the run.
LOGGED = ("cpu", "memory", "io")


def watch_samples(w: WatchSummary, stress_tasks: int, responsive_within_s: float) -> list[Sample]:
    """The watch as samples (benchmark isolation_watch), so the safety evidence is data. Pure."""
    out = [
        Sample(WATCH_BENCHMARK, "pids_peak", w.pids_peak, "count"),
        Sample(WATCH_BENCHMARK, "pids_samples", w.pids_samples, "count"),
        Sample(WATCH_BENCHMARK, "refused_forks", w.refused_forks, "count"),
        Sample(WATCH_BENCHMARK, "stress_tasks", stress_tasks, "count"),
        Sample(WATCH_BENCHMARK, "probe_failures", w.probe_failures, "count"),
        Sample(WATCH_BENCHMARK, "probes", len(w.probe_latencies_s), "count"),
        Sample(
            WATCH_BENCHMARK,
            "responsive",
            1.0 if w.responsive(responsive_within_s) else 0.0,
            "ratio",
            {"responsive_within_s": responsive_within_s},
        ),
    ]
    if w.pids_max is not None:
        out.append(Sample(WATCH_BENCHMARK, "pids_max", w.pids_max, "count"))
    if w.probe_max_s is not None:
        out += [
            Sample(WATCH_BENCHMARK, "probe_max_time", w.probe_max_s, "s"),
            Sample(WATCH_BENCHMARK, "probe_median_time", w.probe_median_s, "s"),
        ]
    return out


def limits_text(lim: LimitsParams) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(lim.as_dict().items()))


def neighbour_stamp(stress: str, iso: IsolationParams) -> dict[str, str]:
    """What every record of a run beside `stress` carries: what the paper's isolation table
    groups by (`stress`) and both tenants' limits. Pure."""
    return {
        "stress": stress,
        "tenant_a_limits": limits_text(iso.tenant_a.limits),
        "tenant_b_limits": limits_text(iso.tenant_b.limits),
    }


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
            return c.run(
                "tail -n 5 /var/tmp/vbench-stress.log", hide=True, in_stream=False, warn=True, timeout=10
            ).stdout
    except Exception as exc:  # the neighbour may be saturated (fork bomb): the log is a nicety
        return f"(log unreadable: {type(exc).__name__})"


def pids_cgroup(tenant_b: TestbedParams, bed: Testbed) -> PidsCgroup:
    """Tenant B's pids cgroup (its container's init process's)."""
    spec = tenant_b.resolved_hosts()[0]
    return PidsCgroup.of_pid(provisioner_for(spec.platform).init_pid(spec, bed.ctx))


class Neighbour(RunHook):
    """A fresh tenant B running the cell's stress beside each of tenant A's runs."""

    condition = CONDITION

    def __init__(self, iso: IsolationParams, tenant_b: TestbedParams):
        self.iso, self.tenant_b = iso, tenant_b

    @contextmanager
    def around(self, cell: Cell, cluster: HadoopCluster, log: Log) -> Iterator[Beside]:
        iso, stress = self.iso, condition_level(cell, CONDITION)
        beside = Beside(stamp=neighbour_stamp(stress, iso))
        # What a killed run left is cleared; a neighbour kept up by hand or in use is refused.
        Testbed(self.tenant_b, log=log).down()
        with Testbed(self.tenant_b, log=log) as bed:
            neighbour = bed.hosts[0]
            cg = pids_cgroup(self.tenant_b, bed)
            if stress == "forkbomb":
                # Read back from the cgroup itself, right before the bomb: refuse without a limit.
                limit = require_pids_limit(cg, iso.pids_max)
                log(f"pids.max of {neighbour.name} is {limit} ({cg.path}); starting the fork bomb")
            resident = cg.current()
            lim = iso.tenant_b.limits
            start_stress(
                neighbour,
                stress,
                S.load_for(len(lim.cpuset_cpus) or lim.cpus or 1, lim.memory_mb, iso.stress_timeout_s),
            )
            if stress != "none":
                time.sleep(iso.warmup_s)
            stress_tasks = max(0, cg.current() - resident)
            if stress != "none" and stress_tasks == 0:
                raise VbenchError(f"the {stress} stress is not running in {neighbour.name}: {stress_log(neighbour)}")
            watch = Watch(cg, cluster.master).start()
            try:
                yield beside
            finally:
                w = watch.stop()
                beside.samples += watch_samples(w, stress_tasks, iso.responsive_within_s)
                if stress in LOGGED:
                    beside.raw["stress_log"] = stress_log(neighbour)
                log(
                    f"beside {stress}: B tasks peak {w.pids_peak}/{w.pids_max or '-'}, refused forks "
                    f"{w.refused_forks}, probe max " + (f"{w.probe_max_s:.2f}s" if w.probe_max_s is not None else "-")
                )

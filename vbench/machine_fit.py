"""Does a testbed fit the machine it is made on? Checks run before anything is started.

Kept apart from `vbench.params`, which validates params files on their own: these checks also
need what the machine offers (`MachineFacts`, read from /proc/meminfo and the CPU affinity by
`MachineFacts.local()`, or passed in by tests), and the Hadoop memory each host will use.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from vbench.errors import ParamsError
from vbench.params import VM_DEFAULT_MEMORY_MB, VM_OS_OVERHEAD_MB, HadoopParams, HostParams, TestbedParams


@dataclass(frozen=True)
class MachineFacts:
    """What the controller machine offers; passed in so validation stays testable."""

    mem_total_mb: int
    cpus: int
    #: CPU ids a cpuset may name; None means 0..cpus-1.
    cpu_ids: tuple[int, ...] | None = None

    @classmethod
    def local(cls) -> "MachineFacts":
        with open("/proc/meminfo") as fh:
            kb = next(int(line.split()[1]) for line in fh if line.startswith("MemTotal:"))
        ids = tuple(sorted(os.sched_getaffinity(0)))
        return cls(mem_total_mb=kb // 1024, cpus=os.cpu_count() or 1, cpu_ids=ids)


def check_cluster_fits(testbed: TestbedParams, hadoop: HadoopParams, machine: MachineFacts) -> None:
    """Refuse a cluster this machine cannot hold, before anything is started."""
    workers = [h for h in testbed.resolved_hosts() if h.role == "worker"]
    if hadoop.replication > len(workers):
        raise ParamsError(
            "hadoop.replication",
            f"{hadoop.replication} replicas need at least as many workers, the testbed has {len(workers)}",
        )
    heaps = hadoop.heaps
    need = (
        heaps.namenode
        + heaps.resourcemanager
        + heaps.historyserver
        + heaps.client
        + len(workers) * (heaps.datanode + heaps.nodemanager + hadoop.nodemanager_memory_mb)
    )
    if need > machine.mem_total_mb:
        raise ParamsError(
            "hadoop.nodemanager_memory_mb",
            f"the cluster needs {need} MiB ({len(workers)} workers x (nodemanager_memory_mb="
            f"{hadoop.nodemanager_memory_mb} + daemon heaps) + master daemons) but this machine has "
            f"{machine.mem_total_mb} MiB",
        )
    check_limits_fit(testbed, machine, hadoop)


def _limits_field(testbed: TestbedParams, index: int, name: str) -> str:
    """Where a host's limit `name` was set: on the host itself, else the testbed-wide default."""
    own = testbed.hosts[index].limits if testbed.hosts is not None else None
    if own is not None and getattr(own, name) is not None:
        return f"testbed.hosts[{index}].limits.{name}"
    return f"testbed.limits.{name}"


def host_memory_mb(spec: HostParams) -> int | None:
    """Memory a host is limited to (a VM always is: its default when unset)."""
    mem = spec.limits.memory_mb if spec.limits else None
    if spec.platform == "qemu" and mem is None:
        return VM_DEFAULT_MEMORY_MB
    return mem


def hadoop_memory_mb(role: str, hadoop: HadoopParams) -> int:
    """What Hadoop may use on a host of `role`: daemon heaps (+ YARN containers on workers)."""
    h = hadoop.heaps
    if role == "master":
        return h.namenode + h.resourcemanager + h.historyserver + h.client
    return h.datanode + h.nodemanager + hadoop.nodemanager_memory_mb


def check_limits_fit(testbed: TestbedParams, machine: MachineFacts, hadoop: HadoopParams | None = None) -> None:
    """Refuse limits this machine cannot give (or Hadoop would not fit in), before anything starts."""
    cpu_ids = set(machine.cpu_ids if machine.cpu_ids is not None else range(machine.cpus))
    vm_memory = 0
    for i, spec in enumerate(testbed.resolved_hosts()):
        lim = spec.limits
        if lim is not None and lim.cpus is not None and lim.cpus > machine.cpus:
            raise ParamsError(
                _limits_field(testbed, i, "cpus"),
                f"{lim.cpus} vCPUs asked for {spec.name}, but this machine has {machine.cpus} CPUs",
            )
        share = testbed.slowdown.cpu_fraction * len(cpu_ids)
        if lim is not None and lim.cpus is not None and testbed.slowdown.cpu and lim.cpus > share:
            raise ParamsError(
                _limits_field(testbed, i, "cpus"),
                f"{lim.cpus} vCPUs of {spec.name} exceed the planted slowdown's share of the machine "
                f"(testbed.slowdown.cpu_fraction {testbed.slowdown.cpu_fraction:g} x {len(cpu_ids)} CPUs = "
                f"{share:g}): cgroup v1 refuses a container a larger CPU quota than the testbed's cgroup "
                "above it; lower the limit or the slowdown",
            )
        if lim is not None and lim.cpuset is not None and not set(lim.cpuset_cpus) <= cpu_ids:
            raise ParamsError(
                _limits_field(testbed, i, "cpuset"),
                f"cpuset {lim.cpuset!r} of {spec.name} names CPUs this machine does not have "
                f"(online: {_cpu_list(cpu_ids)})",
            )
        if lim is not None and lim.cpus is not None and lim.cpuset is not None and lim.cpus > len(lim.cpuset_cpus):
            raise ParamsError(
                _limits_field(testbed, i, "cpus"),
                f"{lim.cpus} vCPUs of {spec.name} do not fit in its cpuset {lim.cpuset!r}",
            )
        if spec.platform == "qemu" and lim is not None and lim.pids_max is not None:
            raise ParamsError(
                _limits_field(testbed, i, "pids_max"),
                f"{spec.name} is a VM: its processes are counted by the guest kernel, not a cgroup "
                "of this machine; pids_max applies to lxc and oci hosts",
            )
        if spec.platform == "gvisor" and lim is not None and lim.pids_max is not None:
            raise ParamsError(
                _limits_field(testbed, i, "pids_max"),
                f"{spec.name} is a gVisor sandbox: its guest's processes live in the Sentry, and the "
                "sandbox's cgroup counts the Sentry's threads, ptrace stubs and gofer instead, so "
                "pids.max would not cap the guest's processes one for one; pids_max applies to lxc "
                "and oci hosts",
            )
        mem = host_memory_mb(spec)
        if mem is not None and mem > machine.mem_total_mb:
            raise ParamsError(
                _limits_field(testbed, i, "memory_mb"),
                f"{mem} MiB asked for {spec.name}, but this machine has {machine.mem_total_mb} MiB",
            )
        if spec.platform == "qemu":
            vm_memory += mem or 0
        if hadoop is not None and mem is not None:
            need = hadoop_memory_mb(spec.role, hadoop) + (VM_OS_OVERHEAD_MB if spec.platform == "qemu" else 0)
            if need > mem:
                raise ParamsError(
                    _limits_field(testbed, i, "memory_mb"),
                    f"{spec.name} ({spec.role}, {spec.platform}) is limited to {mem} MiB, but its Hadoop "
                    f"daemons{' and YARN containers' if spec.role == 'worker' else ''} may use {need} MiB "
                    f"(hadoop.heaps{', hadoop.nodemanager_memory_mb' if spec.role == 'worker' else ''}"
                    f"{', guest OS' if spec.platform == 'qemu' else ''}); raise the limit or lower Hadoop's",
                )
    if vm_memory > machine.mem_total_mb:
        raise ParamsError(
            "testbed.hosts", f"the VMs need {vm_memory} MiB together, this machine has {machine.mem_total_mb} MiB"
        )
    check_physical_hosts_fit(testbed, hadoop)


def testbed_memory_mb(testbed: TestbedParams, hadoop: HadoopParams | None) -> int:
    """What a testbed takes from this machine, with its Hadoop cluster when `hadoop` is given:
    each VM its whole memory, every other host what its Hadoop daemons (and YARN containers on
    a worker) may use (a container's memory limit caps, it does not reserve)."""
    return sum(
        (host_memory_mb(s) or 0) if s.platform == "qemu" else (hadoop_memory_mb(s.role, hadoop) if hadoop else 0)
        for s in testbed.resolved_hosts()
    )


def check_clusters_fit_together(
    clusters: list[tuple[str, TestbedParams, HadoopParams | None]], machine: MachineFacts
) -> None:
    """Refuse testbeds (with their clusters, where Hadoop params are given) that are to be up at
    the same time, labelled by configuration, when together they need more memory than this
    machine has: the design's concurrent rounds (issue #18), before anything starts."""
    need = {key: testbed_memory_mb(tb, hp) for key, tb, hp in clusters}
    total = sum(need.values())
    if total > machine.mem_total_mb:
        each = ", ".join(f"{key} {mb} MiB" for key, mb in need.items())
        raise ParamsError(
            "experiment.interleave",
            f"the {len(need)} configurations of a block are up at the same time (interleave: concurrent) "
            f"and need {total} MiB together ({each}), but this machine has {machine.mem_total_mb} MiB; "
            "set interleave: alternating to run one configuration at a time, or give each less memory "
            "(workers, hadoop.nodemanager_memory_mb, hadoop.heaps, VM memory_mb)",
        )


def guest_memory_mb(spec: HostParams, hadoop: HadoopParams | None) -> int:
    """What a guest takes from its physical host: its memory limit, else (unconfined hosts)
    what its Hadoop daemons may use, else nothing known (0)."""
    mem = host_memory_mb(spec)
    if mem is not None:
        return mem
    return hadoop_memory_mb(spec.role, hadoop) if hadoop is not None else 0


def check_physical_hosts_fit(testbed: TestbedParams, hadoop: HadoopParams | None = None) -> None:
    """Refuse more guests on an emulated physical host than its memory (testbed.physical_host_memory_mb) holds."""
    cap = testbed.physical_host_memory_mb
    if cap is None:
        return
    placement = testbed.physical_hosts()
    per: dict[str, list[HostParams]] = {}
    for spec in testbed.resolved_hosts():
        per.setdefault(placement[spec.name], []).append(spec)
    for phys, specs in per.items():
        need = sum(guest_memory_mb(s, hadoop) for s in specs)
        if need > cap:
            raise ParamsError(
                "testbed.physical_host_memory_mb",
                f"physical host {phys} holds {len(specs)} guests ({', '.join(s.name for s in specs)}) "
                f"needing {need} MiB, but has {cap} MiB; lower testbed.vms_per_host or the guests' memory",
            )


def _cpu_list(ids: set[int]) -> str:
    return ",".join(str(i) for i in sorted(ids))

"""Words a reader takes in: counts that agree with them ("1 run", "3 runs"), for the notes the
statistics write, and the names of configurations, factors and levels as a reader knows them
("LXC", "native (A/A copy)", "VMs per host: 2"), for the paper's tables, figures and macros.

Those notes reach the paper's tables, where "run(s)" left the reader to do what the generator
knew: how many there were (issue #54). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping

from vbench.samples import AA_SUFFIX, is_aa


def noun(n: int | float, singular: str, plural: str | None = None) -> str:
    """`singular` for a count of exactly one, else `plural` (default: singular + "s")."""
    return singular if n == 1 else (plural or singular + "s")


def count(n: int | float, singular: str, plural: str | None = None) -> str:
    """ "1 run", "0 runs", "3 runs": the count and its noun."""
    return f"{n} {noun(n, singular, plural)}"


def was(n: int | float) -> str:
    """The verb that agrees with a count: "1 was", "2 were", "0 were" (never "1 were")."""
    return noun(n, "was", "were")


# --- names as a reader knows them (issue #54 item 3) ----------------------------------------------
# vbench's names are identifiers (`lxc`, `vms_per_host`, `native~aa`); the paper prints the names
# below instead, and this is the one place they live: vbench.paper.style labels figures with them,
# vbench.paper.fmt.configuration_tex prints configurations in tables and macros with them (the
# same names: "LXC" in a table as in the figure beside it).

#: Platforms in legends and tick labels (the prose's names, vbench.paper.abstract.READER_NAMES,
#: without "hosts").
PLATFORM_LABELS = {"native": "native", "lxc": "LXC", "oci": "OCI", "qemu": "QEMU", "gvisor": "gVisor"}
#: Compared factors (a design's `compare:`, a figure's grouping column) as a reader knows them.
FACTOR_NAMES = {
    "platform": "platform",
    "vms_per_host": "VMs per host",
    "network.mode": "network",
    "topology": "Hadoop topology",
    "replication": "HDFS replication",
    "output_replication": "output replication",
    "client_poll_ms": "client poll interval (ms)",
    "am_heartbeat_ms": "AM heartbeat (ms)",
    "nodemanager_heartbeat_ms": "NodeManager heartbeat (ms)",
    "gvisor.network": "gVisor network",
    "slowdown.cpu_fraction": "planted CPU share",
    "slowdown.delay_ms": "planted delay (ms)",
    "slowdown.rate_mbit": "planted rate limit (Mbit/s)",
    "slowdown.disk_write_bps": "planted disk write limit (B/s)",
}
#: Levels whose identifier is not what a reader calls them, by factor.
LEVEL_NAMES = {
    "network.mode": {"bridge": "bridge", "nat": "NAT", "bridge+nat": "bridge + NAT", "sriov": "SR-IOV"},
    "topology": {"flat": "one rack", "rack": "a rack per physical host", "nodegroup": "node groups"},
}


def _aa_copy(config: str, name_of) -> str | None:
    """The A/A self-check's copy of the baseline (`native~aa`) as "<the baseline's name> (A/A copy)",
    else None: it is a check measured as a configuration of its own, not a platform."""
    return f"{name_of(config[: -len(AA_SUFFIX)])} (A/A copy)" if is_aa(config) else None


def platform_label(config: str) -> str:
    """A configuration as the paper names it, in a legend, a tick label, a table or a macro: "LXC",
    "native (A/A copy)" (the A/A copy's recorded name `native~aa` is an internal key)."""
    return _aa_copy(config, platform_label) or PLATFORM_LABELS.get(config, config)


def factor_name(factor: str) -> str:
    """A compared factor as a reader knows it ("VMs per host" for `vms_per_host`); else its name."""
    return FACTOR_NAMES.get(factor, factor)


def level_name(factor: str, level: object) -> str:
    """One level of a factor as a reader knows it ("bridge + NAT" for network.mode's `bridge+nat`);
    else as recorded."""
    return LEVEL_NAMES.get(factor, {}).get(str(level), str(level))


def level_label(levels: Mapping[str, object]) -> str:
    """Factor levels named with their factors: "VMs per host: 2", "network: bridge + NAT"; several
    joined by "; "."""
    return "; ".join(f"{factor_name(f)}: {level_name(f, v)}" for f, v in levels.items())


#: The cost model's resources (vbench.stats.cost_model.RESOURCES) as a reader knows them: what a
#: platform's cost vector holds, in the paper's cost-model section.
RESOURCE_NAMES = {
    "cpu": "CPU",
    "membw": "memory bandwidth",
    "disk_seq_read": "sequential disk reads",
    "disk_seq_write": "sequential disk writes",
    "disk_random_read": "random disk reads",
    "net_throughput": "TCP throughput",
    "round_trip": "network round trips",
    "syscall": "system calls",
    "spawn": "process creation",
    "jvmstart": "JVM start",
    "fileopen": "file opens",
    "rpc": "loopback RPCs",
    "jvmcpu": "Java computing",
    "pagefault": "page faults",
}
#: The cost model's jobs (vbench.stats.cost_model.JOBS) as a reader knows them.
JOB_NAMES = {
    "terasort": "TeraSort",
    "wordcount": "WordCount",
    "nnbench_create_write": "NNBench create/write",
    "nnbench_open_read": "NNBench open/read",
    "dfsio_write": "TestDFSIO write",
}


def resource_name(resource: str) -> str:
    """A cost-model resource as a reader knows it ("TCP throughput" for `net_throughput`); else its name."""
    return RESOURCE_NAMES.get(resource, resource)


def job_name(job: str) -> str:
    """A cost-model job as a reader knows it ("NNBench create/write" for `nnbench_create_write`); else its name."""
    return JOB_NAMES.get(job, job)


#: The metrics the published findings compare (params/published.yaml) as a reader knows them;
#: a step's attempt metric (`terasort.attempt.reduce_merge_time`) is named by its last part.
METRIC_NAMES = {
    "avg_job_time": "mean job time",
    "buffered_read_bw": "buffered read bandwidth",
    "create_write_avg_latency": "create/write latency",
    "job_wall_time": "job time",
    "read_throughput": "read throughput",
    "write_throughput": "write throughput",
    "seq_delete": "sequential delete rate",
    "seq_read_bw": "sequential read bandwidth",
    "seq_write_bw": "sequential write bandwidth",
    "seq_write_cpu": "CPU share of sequential writes",
    "reduce_merge_time": "reduce merge time",
    "teragen_time": "TeraGen time",
    "terasort_time": "TeraSort time",
    "throughput_mean": "mean throughput",
    "time": "time",
    "write_bw": "write bandwidth",
}


def metric_name(metric: str) -> str:
    """A metric as a reader knows it ("read throughput" for `read_throughput`, "reduce merge time"
    for `terasort.attempt.reduce_merge_time`); else its name."""
    return METRIC_NAMES.get(metric) or METRIC_NAMES.get(metric.rsplit(".", 1)[-1], metric)


def configuration_name(platform: str, levels: Mapping[str, object]) -> str:
    """A platform at factor levels as a reader knows it: "LXC (stress: memory)", "QEMU (VMs per
    host: 4)"; the platform alone without levels."""
    return platform_label(platform) + (f" ({level_label(levels)})" if levels else "")

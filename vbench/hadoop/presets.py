"""Hadoop params presets: a study's tuned configuration, as overrides of params/hadoop.yaml.

A design names one with `hadoop: {preset: NAME}`; the preset's values come after the params file
and before the design's own `hadoop:` keys and its factor levels (vbench.campaign.runner.hadoop_for),
so a design keeps the study's settings and scales only what this machine cannot hold, each
override beside the study's value in a comment.

VMware's Appendix A (2015) tuned Hadoop 1 (CDH 5.3.0, MapReduce 1). Every parameter that Hadoop
3.4 still reads is here under its Hadoop 3 name (`CARRIED`, checked against the *-default.xml
files and classes of the 3.4.2 jars); those with no Hadoop 3 counterpart are in `NOT_CARRIED`
with the reason, and docs/benchmarks.md prints both lists (a unit test keeps them in step).
Pure data: nothing here touches a host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from vbench.errors import ParamsError

SiteFile = Literal["core-site", "hdfs-site", "yarn-site", "mapred-site"]


@dataclass(frozen=True)
class Carried:
    """One study setting and where it goes in Hadoop 3: a site-file property, or (file None) a
    HadoopParams field that vbench renders itself (`hadoop3` names the field)."""

    study: str  # the name as the study writes it
    value: str  # the study's value, as written
    hadoop3: str
    file: SiteFile | None
    #: The value as vbench takes it, when it is not `value` (a field in other units, a renamed class).
    as_param: Any = None


@dataclass(frozen=True)
class NotCarried:
    """A study setting with no Hadoop 3 equivalent, and why."""

    study: str
    value: str
    why: str


@dataclass(frozen=True)
class HadoopPreset:
    name: str
    source: str
    carried: tuple[Carried, ...]
    not_carried: tuple[NotCarried, ...]
    #: HadoopParams fields Hadoop 3 needs that the study had no setting for (YARN container sizes).
    added: tuple[tuple[str, Any, str], ...] = ()

    def params(self) -> dict[str, Any]:
        """The overrides of params/hadoop.yaml this preset stands for."""
        doc: dict[str, Any] = {}
        for c in self.carried:
            value = c.value if c.as_param is None else c.as_param
            if c.file is None:
                doc[c.hadoop3] = value
            else:
                doc.setdefault("extra", {}).setdefault(c.file, {})[c.hadoop3] = value
        for field, value, _why in self.added:
            doc[field] = value
        return doc


_MIB = 1024 * 1024

#: "Appendix A: Configuration", "Non-default parameters" (hadoop-env.sh, core-site.xml,
#: hdfs-site.xml, mapred-site.xml), in the appendix's order.
VMWARE2015 = HadoopPreset(
    name="vmware2015",
    source="VMware, Virtualized Hadoop Performance with VMware vSphere 6 (2015), Appendix A",
    carried=(
        # hadoop-env.sh: Hadoop 1 gave every daemon (and the client) the same heap (Hadoop 3's
        # HADOOP_HEAPSIZE_MAX); vbench starts each daemon's JVM with its own -Xmx from `heaps`.
        Carried(
            "HADOOP_HEAPSIZE",
            "1300",
            "heaps",
            None,
            {d: 1300 for d in ("namenode", "datanode", "resourcemanager", "nodemanager", "historyserver", "client")},
        ),
        Carried("io.file.buffer.size", "131072", "io.file.buffer.size", "core-site"),
        # TeraSort reads its own keys from the job's configuration; Hadoop 3's name
        # (TeraSortConfigKeys.SAMPLE_SIZE).
        Carried("terasort.partitions.sample", "2000000", "mapreduce.terasort.partitions.sample", "mapred-site"),
        Carried("dfs.datanode.max.transfer.threads", "4096", "dfs.datanode.max.transfer.threads", "hdfs-site"),
        Carried("dfs.replication", "3", "replication", None, 3),
        Carried("dfs.blocksize", "268435456", "block_size", None, 256 * _MIB),
        Carried("dfs.datanode.readahead.bytes", "4194304", "dfs.datanode.readahead.bytes", "hdfs-site"),
        Carried("dfs.datanode.drop.cache.behind.writes", "true", "dfs.datanode.drop.cache.behind.writes", "hdfs-site"),
        Carried("dfs.datanode.sync.behind.writes", "true", "dfs.datanode.sync.behind.writes", "hdfs-site"),
        Carried("dfs.datanode.drop.cache.behind.reads", "true", "dfs.datanode.drop.cache.behind.reads", "hdfs-site"),
        Carried("dfs.permissions.enabled", "false", "dfs.permissions.enabled", "hdfs-site"),
        Carried("dfs.namenode.handler.count", "1", "dfs.namenode.handler.count", "hdfs-site"),
        Carried("dfs.heartbeat.interval", "1", "dfs.heartbeat.interval", "hdfs-site"),
        # Renamed in Hadoop 3 ("replication" became "redundancy"); same meaning, seconds.
        Carried("dfs.namenode.replication.interval", "1", "dfs.namenode.redundancy.interval.seconds", "hdfs-site"),
        Carried("dfs.blockreport.intervalMsec", "21600000", "dfs.blockreport.intervalMsec", "hdfs-site"),
        Carried("mapred.map.child.java.opts", "-Xmx800m -Xms800m -Xmn256m", "mapreduce.map.java.opts", "mapred-site"),
        Carried("mapred.reduce.child.java.opts", "-Xmx1200m -Xmn256m", "mapreduce.reduce.java.opts", "mapred-site"),
        # MR1's FairScheduler lives on as YARN's (its own class; no allocation file: one queue).
        Carried(
            "mapred.jobtracker.taskScheduler",
            "org.apache.hadoop.mapred.FairScheduler",
            "yarn.resourcemanager.scheduler.class",
            "yarn-site",
            "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler",
        ),
        # Both through the one switch a design also has (`hadoop.speculative`), which writes Hadoop 3's
        # mapreduce.{map,reduce}.speculative; the same bytes as the two properties (site files are sorted).
        Carried("mapred.map.tasks.speculative.execution", "false", "speculative", None, False),
        Carried("mapred.reduce.tasks.speculative.execution", "false", "speculative", None, False),
        # 20 VMs per host: 5 (a design's override).
        Carried("mapred.reduce.parallel.copies", "20", "mapreduce.reduce.shuffle.parallelcopies", "mapred-site"),
        Carried(
            "mapred.reduce.slowstart.completed.maps", "0", "mapreduce.job.reduce.slowstart.completedmaps", "mapred-site"
        ),
        Carried("io.sort.factor", "64", "mapreduce.task.io.sort.factor", "mapred-site"),
        Carried("io.sort.mb", "400", "mapreduce.task.io.sort.mb", "mapred-site"),
        Carried("mapred.task.timeout", "300000", "task_timeout_s", None, 300),
        # The TaskTracker's fadvise of map output; in Hadoop 3 the ShuffleHandler's.
        Carried("mapred.tasktracker.shuffle.fadvise", "true", "mapreduce.shuffle.manage.os.cache", "mapred-site"),
        Carried("mapreduce.ifile.readahead.bytes", "16777216", "mapreduce.ifile.readahead.bytes", "mapred-site"),
        # The TaskTracker's HTTP threads served the shuffle; in Hadoop 3 the ShuffleHandler's threads.
        Carried("tasktracker.http.threads", "120", "mapreduce.shuffle.max.threads", "mapred-site"),
        Carried("mapred.inmem.merge.threshold", "0", "mapreduce.reduce.merge.inmem.threshold", "mapred-site"),
        Carried("mapred.job.shuffle.merge.percent", "0.95", "mapreduce.reduce.shuffle.merge.percent", "mapred-site"),
        Carried(
            "mapred.job.shuffle.input.buffer.percent",
            "0.75",
            "mapreduce.reduce.shuffle.input.buffer.percent",
            "mapred-site",
        ),
        Carried(
            "mapred.job.reduce.input.buffer.percent", "0.7", "mapreduce.reduce.input.buffer.percent", "mapred-site"
        ),
        Carried("mapred.compress.map.output", "true", "mapreduce.map.output.compress", "mapred-site"),
        # Hadoop >= 3.3.1 runs SnappyCodec on snappy-java, which is among the cluster's jars.
        Carried(
            "mapred.map.output.compression.codec",
            "org.apache.hadoop.io.compress.SnappyCodec",
            "mapreduce.map.output.compress.codec",
            "mapred-site",
        ),
    ),
    not_carried=(
        NotCarried(
            "topology.script.file.name",
            "<path>/topology.sh",
            "not a value to copy: the script is the study's host naming. Its two layouts (node groups of two "
            "hosts per rack for several VMs per host, flat for native and 1 VM per host) are the design's "
            "`hadoop.topology` (nodegroup / flat), which writes Hadoop 3's net.topology.* settings",
        ),
        NotCarried(
            "dfs.replication final = true",
            "",
            "the value (3) is carried; `final` is not: the benchmarks set replication per job "
            "(-Ddfs.replication, as the study's own single-replica runs of Table 3 had to)",
        ),
        NotCarried("mapreduce.framework.name", "classic", "MapReduce 1 (JobTracker/TaskTracker) is gone; YARN is"),
        NotCarried(
            "mapred.local.dir",
            "<list of directories>",
            "the study's 20 data disks; YARN's task directories are yarn.nodemanager.local-dirs, which vbench "
            "sets to each host's work directory",
        ),
        NotCarried("mapred.system.dir", "/system/mapred", "a JobTracker directory; YARN has none"),
        NotCarried(
            "mapred.{map,reduce}.tasks",
            "Table 1",
            "per platform, not a constant: the benchmarks' own `maps` and `reduces` (e.g. terasort's) say it",
        ),
        NotCarried(
            "mapred.tasktracker.{map,reduce}.tasks.maximum",
            "Table 1",
            "TaskTracker slots; YARN runs as many containers as fit the NodeManager's memory and vcores "
            "(nodemanager_memory_mb, map_memory_mb, reduce_memory_mb)",
        ),
        NotCarried(
            "mapred.child.ulimit", "4000000", "MR1 wrapped task JVMs in a ulimit; YARN enforces container memory"
        ),
        NotCarried(
            "mapred.fairscheduler.locality.delay",
            "100",
            "MR1's delay in ms; YARN's Fair Scheduler counts node-locality delay in skipped scheduling "
            "opportunities (a fraction of the cluster), or in ms only with continuous scheduling, which is "
            "deprecated: no setting means the same",
        ),
        NotCarried(
            "mapred.job.reuse.jvm.num.tasks", "-1", "JVM reuse was removed with MR1; every YARN task has its own JVM"
        ),
        NotCarried("mapred.job.tracker.handler.count", "10", "the JobTracker's RPC handlers; YARN has no JobTracker"),
        NotCarried(
            "io.sort.record.percent",
            "0.15",
            "removed in Hadoop 0.21 (MAPREDUCE-64): the map output buffer now sizes its record index itself",
        ),
        NotCarried(
            "mapreduce.tasktracker.outofband.heartbeat",
            "true",
            "a TaskTracker heartbeat; YARN's NodeManager heartbeat interval is vbench's nodemanager_heartbeat_ms",
        ),
        NotCarried(
            "mapred.task.cache.levels",
            "3 (native and 1 VM per host: 2)",
            "the JobTracker's locality levels (node, node group, rack); YARN schedules node- and rack-local only",
        ),
        NotCarried(
            "mapred.jobtracker.completeuserjobs.maximum",
            "1",
            "jobs the JobTracker kept in memory; YARN has no JobTracker",
        ),
    ),
    added=(
        (
            "map_memory_mb",
            1024,
            "a YARN container for the study's 800 MB map heap (MR1 had no container limit)",
        ),
        (
            "reduce_memory_mb",
            1536,
            "a YARN container for the study's 1200 MB reduce heap (MR1 had no container limit)",
        ),
    ),
)

PRESETS: dict[str, HadoopPreset] = {p.name: p for p in (VMWARE2015,)}


def preset_params(name: str) -> dict[str, Any]:
    """The overrides of the Hadoop preset `name`; an unknown name is refused naming `hadoop.preset`."""
    if name not in PRESETS:
        raise ParamsError("hadoop.preset", f"no Hadoop preset {name!r}; presets: {', '.join(sorted(PRESETS))}")
    return PRESETS[name].params()

"""Hadoop's configuration files, rendered from params. Pure: text in, text out.

Every host gets the same files except for paths under its own work directory; the hash of
the rendered files goes into each sample's provenance.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from xml.sax.saxutils import escape

from vbench.hadoop.topology import TABLE_FILE, topology_properties
from vbench.params import HadoopParams
from vbench.path_below import PathBelow

NAMENODE_RPC_PORT = 8020
NAMENODE_HTTP_PORT = 9870
RM_HTTP_PORT = 8088
JHS_RPC_PORT = 10020
JHS_HTTP_PORT = 19888


#: Environment variables every Hadoop JVM is started with (daemons.java_line) and NodeManagers
#: pass on to task containers (yarn.nodemanager.env-whitelist): this host's conf and jar dirs.
CONF_DIR_ENV = "HADOOP_CONF_DIR"
LIB_DIR_ENV = "VBENCH_HADOOP_LIB"


@dataclass(frozen=True)
class HostLayout:
    """Directories of one host; all derived from its work dir and the Hadoop lib dir."""

    work_dir: str
    lib_dir: str

    conf = PathBelow[str]("work_dir", "conf")
    logs = PathBelow[str]("work_dir", "logs")
    run = PathBelow[str]("work_dir", "run")
    data = PathBelow[str]("work_dir", "data")

    @property
    def classpath(self) -> str:
        return f"{self.conf}:{self.lib_dir}/*"

    def pid_file(self, daemon: str) -> str:
        return f"{self.run}/{daemon}.pid"

    def log_file(self, daemon: str) -> str:
        return f"{self.logs}/{daemon}.log"


def site_xml(props: dict[str, str]) -> str:
    """A Hadoop *-site.xml; properties sorted so that the same params give the same bytes."""
    body = "".join(
        f"  <property><name>{escape(k)}</name><value>{escape(str(v))}</value></property>\n"
        for k, v in sorted(props.items())
    )
    return f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n'


def task_opts(memory_mb: int, fraction: float, flags: tuple[str, ...] = ()) -> str:
    return " ".join((f"-Xmx{int(memory_mb * fraction)}m", *flags))


def network_mode_properties(mode: str) -> dict[str, str]:
    """hdfs-site properties a testbed network mode needs (Jeong et al. Sec. 3.6).

    Behind NAT (nat, bridge+nat) an address means different hosts on different physical hosts:
    a DataNode must be reached by *name*, which each host's /etc/hosts resolves to the right
    address (a neighbour's private one, or another physical host's guest's public one), never
    by the IP the NameNode saw. The paper sets exactly these two to true."""
    if mode in ("nat", "bridge+nat"):
        return {"dfs.client.use.datanode.hostname": "true", "dfs.datanode.use.datanode.hostname": "true"}
    return {}


def site_properties(
    hp: HadoopParams, master: str, layout: HostLayout, network_mode: str = "bridge"
) -> dict[str, dict[str, str]]:
    """Properties of each *-site file for a cluster whose master host is `master`."""
    d = layout.data
    # Task classpaths are written by the submitting client but expanded by the launch script on
    # the node that runs the task: hosts keep Hadoop in different places (a container's own root,
    # a VM's disk), so they name each NodeManager's own directories through its environment.
    app_cp = f"${CONF_DIR_ENV},${LIB_DIR_ENV}/*"
    core = {
        "fs.defaultFS": f"hdfs://{master}:{NAMENODE_RPC_PORT}",
        "hadoop.tmp.dir": f"{d}/tmp",
    }
    if hp.topology_script is not None:
        core["net.topology.script.file.name"] = str(hp.topology_script)
    hdfs = {
        "dfs.replication": str(hp.replication),
        "dfs.blocksize": str(hp.block_size),
        "dfs.bytes-per-checksum": str(hp.bytes_per_checksum),
        "dfs.namenode.name.dir": f"{d}/dfs/name",
        "dfs.datanode.data.dir": f"{d}/dfs/data",
        "dfs.namenode.rpc-address": f"{master}:{NAMENODE_RPC_PORT}",
        "dfs.namenode.http-address": f"{master}:{NAMENODE_HTTP_PORT}",
        "dfs.permissions.enabled": "false",
        # Leave safe mode as soon as the (empty or small) namespace is reported.
        "dfs.namenode.safemode.extension": "0",
        "dfs.heartbeat.interval": "1",
        **network_mode_properties(network_mode),
    }
    yarn = {
        "yarn.resourcemanager.hostname": master,
        "yarn.nodemanager.aux-services": "mapreduce_shuffle",
        "yarn.nodemanager.aux-services.mapreduce_shuffle.class": "org.apache.hadoop.mapred.ShuffleHandler",
        "yarn.nodemanager.resource.memory-mb": str(hp.nodemanager_memory_mb),
        "yarn.nodemanager.resource.cpu-vcores": str(hp.nodemanager_vcores),
        "yarn.scheduler.minimum-allocation-mb": str(hp.scheduler_min_memory_mb),
        "yarn.scheduler.maximum-allocation-mb": str(hp.nodemanager_memory_mb),
        "yarn.scheduler.maximum-allocation-vcores": str(hp.nodemanager_vcores),
        "yarn.nodemanager.local-dirs": f"{d}/yarn/local",
        "yarn.nodemanager.log-dirs": f"{layout.logs}/userlogs",
        # The ResourceManager's node-attribute store defaults to /tmp/hadoop-yarn-<user>, shared by
        # every cluster on the machine and left behind by each.
        "yarn.node-attribute.fs-store.root-dir": f"file://{d}/yarn/node-attribute",
        "yarn.application.classpath": app_cp,
        "yarn.nodemanager.env-whitelist": "JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_CONF_DIR,"
        "CLASSPATH_PREPEND_DISTCACHE,HADOOP_YARN_HOME,HADOOP_HOME,PATH,LANG,TZ,HADOOP_MAPRED_HOME,"
        f"{LIB_DIR_ENV}",
        # Emulated hosts share one kernel, whose virtual memory accounting says nothing here.
        "yarn.nodemanager.vmem-check-enabled": "false",
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage": "99",
        "yarn.timeline-service.enabled": "false",
        "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": str(hp.nodemanager_heartbeat_ms),
    }
    mapred = {
        "mapreduce.framework.name": "yarn",
        "mapreduce.application.classpath": app_cp,
        "yarn.app.mapreduce.am.resource.mb": str(hp.am_memory_mb),
        "yarn.app.mapreduce.am.command-opts": task_opts(
            hp.am_memory_mb, hp.task_heap_fraction, (*hp.am_version_flags, *hp.job_jvm_flags)
        ),
        "mapreduce.map.memory.mb": str(hp.map_memory_mb),
        "mapreduce.map.java.opts": task_opts(hp.map_memory_mb, hp.task_heap_fraction, hp.job_jvm_flags),
        "mapreduce.reduce.memory.mb": str(hp.reduce_memory_mb),
        "mapreduce.reduce.java.opts": task_opts(hp.reduce_memory_mb, hp.task_heap_fraction, hp.job_jvm_flags),
        "mapreduce.task.timeout": str(hp.task_timeout_s * 1000),
        "mapreduce.client.completion.pollinterval": str(hp.client_poll_ms),
        "mapreduce.client.progressmonitor.pollinterval": str(hp.client_poll_ms),
        "yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms": str(hp.am_heartbeat_ms),
        "mapreduce.jobhistory.address": f"{master}:{JHS_RPC_PORT}",
        "mapreduce.jobhistory.webapp.address": f"{master}:{JHS_HTTP_PORT}",
        "yarn.app.mapreduce.am.staging-dir": "/tmp/hadoop-yarn/staging",
    }
    if not hp.speculative:
        # Written only when off: Hadoop's own default (on) leaves the files, and so the
        # configuration hash of every cluster before this field, as they were.
        mapred |= {"mapreduce.map.speculative": "false", "mapreduce.reduce.speculative": "false"}
    files = {"core-site": core, "hdfs-site": hdfs, "yarn-site": yarn, "mapred-site": mapred}
    for name, props in topology_properties(hp.topology, layout.conf).items():
        files[name] = {**files[name], **props}
    for name, extra in hp.extra.items():
        files[name] = {**files[name], **extra}
    if files["yarn-site"].get("yarn.resourcemanager.scheduler.class", "").endswith(".FairScheduler"):
        # The Fair Scheduler queues each job under its user's name by default; vbench's jobs run
        # as root, and "root" is the Fair Scheduler's parent queue, so every submission was refused
        # ("root is not a leaf queue"). One queue, root.default, as the Capacity Scheduler's below.
        files["yarn-site"] = {**FAIR_SCHEDULER, **files["yarn-site"]}
    return files


FAIR_SCHEDULER = {"yarn.scheduler.fair.user-as-default-queue": "false"}


CAPACITY_SCHEDULER = {
    "yarn.scheduler.capacity.root.queues": "default",
    "yarn.scheduler.capacity.root.default.capacity": "100",
    "yarn.scheduler.capacity.root.default.maximum-capacity": "100",
    # The default 0.1 leaves too little for even one ApplicationMaster on a small cluster.
    "yarn.scheduler.capacity.maximum-am-resource-percent": "0.5",
}

LOG4J = """\
log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
log4j.logger.org.apache.hadoop.util.NativeCodeLoader=ERROR
"""


def render_conf(
    hp: HadoopParams, master: str, layout: HostLayout, topology: str = "", network_mode: str = "bridge"
) -> dict[str, str]:
    """file name -> text of everything in a host's conf/ directory; `topology` is the text of
    the topology table (vbench.hadoop.topology), needed unless hadoop.topology is flat."""
    files = {
        f"{name}.xml": site_xml(props) for name, props in site_properties(hp, master, layout, network_mode).items()
    }
    if hp.topology != "flat":
        files[TABLE_FILE] = topology
    files["capacity-scheduler.xml"] = site_xml(CAPACITY_SCHEDULER)
    files["log4j.properties"] = LOG4J
    return files


def config_hash(files: dict[str, str]) -> str:
    """A short hash of a rendered configuration, for provenance."""
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + files[name].encode() + b"\0")
    return h.hexdigest()[:16]

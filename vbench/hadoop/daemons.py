"""Hadoop's daemons and the shell lines that start, stop and probe them. Pure."""
from __future__ import annotations

import shlex
from dataclasses import dataclass

from vbench.hadoop.config import CONF_DIR_ENV, LIB_DIR_ENV, HostLayout

# Guice in the YARN daemons (and the history server web app) reflects into java.lang; Java 17 forbids that unless opened.
_YARN_OPENS = ("--add-opens=java.base/java.lang=ALL-UNNAMED",)


@dataclass(frozen=True)
class Daemon:
    name: str
    main_class: str
    role: str  # which hosts run it: "master" or "worker"
    jvm_flags: tuple[str, ...] = ()


NAMENODE = Daemon("namenode", "org.apache.hadoop.hdfs.server.namenode.NameNode", "master")
RESOURCEMANAGER = Daemon(
    "resourcemanager", "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager", "master", _YARN_OPENS
)
HISTORYSERVER = Daemon(
    "historyserver", "org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer", "master", _YARN_OPENS
)
DATANODE = Daemon("datanode", "org.apache.hadoop.hdfs.server.datanode.DataNode", "worker")
NODEMANAGER = Daemon("nodemanager", "org.apache.hadoop.yarn.server.nodemanager.NodeManager", "worker", _YARN_OPENS)

DAEMONS = (NAMENODE, RESOURCEMANAGER, HISTORYSERVER, DATANODE, NODEMANAGER)


def java_line(java_home: str, layout: HostLayout, heap_mb: int, main_class: str, args: list[str] = (),
              jvm_flags: tuple[str, ...] = (), log_name: str = "client") -> str:
    """The foreground `java` command line for `main_class` on a host with `layout`."""
    parts = [
        "env", f"JAVA_HOME={java_home}", f"{CONF_DIR_ENV}={layout.conf}", f"{LIB_DIR_ENV}={layout.lib_dir}",
        f"{java_home}/bin/java", f"-Xmx{heap_mb}m", *jvm_flags,
        f"-Dhadoop.log.dir={layout.logs}", f"-Dhadoop.log.file={log_name}.log",
        "-cp", layout.classpath, main_class, *args,
    ]
    return " ".join(shlex.quote(p) for p in parts)


def start_line(daemon: Daemon, java_home: str, layout: HostLayout, heap_mb: int, extra_flags: tuple[str, ...] = ()) -> str:
    """Start `daemon` in the background unless its pid file names a live process."""
    pid = shlex.quote(layout.pid_file(daemon.name))
    log = shlex.quote(layout.log_file(daemon.name))
    java = java_line(java_home, layout, heap_mb, daemon.main_class, jvm_flags=(*daemon.jvm_flags, *extra_flags), log_name=daemon.name)
    return (
        f"mkdir -p {shlex.quote(layout.logs)} {shlex.quote(layout.run)} && "
        f"if [ -f {pid} ] && kill -0 $(cat {pid}) 2>/dev/null; then echo running; else "
        # Only the simple command is backgrounded, so $! is the JVM itself and no subshell
        # keeps the SSH channel's stdout open.
        f"cd {shlex.quote(layout.work_dir)}; nohup {java} >> {log} 2>&1 < /dev/null & "
        f"echo $! > {pid}; fi"
    )


def stop_line(daemon: Daemon, layout: HostLayout, grace_s: int = 10) -> str:
    """TERM the daemon's pid, KILL it after `grace_s`, remove the pid file. Harmless if not running."""
    pid = shlex.quote(layout.pid_file(daemon.name))
    return (
        f"if [ -f {pid} ]; then p=$(cat {pid}); kill $p 2>/dev/null; "
        f"for i in $(seq {grace_s * 5}); do kill -0 $p 2>/dev/null || break; sleep 0.2; done; "
        f"kill -9 $p 2>/dev/null; rm -f {pid}; fi; true"
    )


def alive_line(daemons: list[Daemon], layout: HostLayout) -> str:
    """Prints 'name up' or 'name down' per daemon."""
    checks = [
        f"if [ -f {shlex.quote(layout.pid_file(d.name))} ] && kill -0 $(cat {shlex.quote(layout.pid_file(d.name))}) "
        f"2>/dev/null; then echo {d.name} up; else echo {d.name} down; fi"
        for d in daemons
    ]
    return "; ".join(checks)


def parse_alive(text: str) -> dict[str, bool]:
    """Reads what `alive_line` printed; other lines (e.g. a login banner) are ignored."""
    states = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1] in ("up", "down"):
            states[parts[0]] = parts[1] == "up"
    return states

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
HISTORYSERVER = Daemon("historyserver", "org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer", "master", _YARN_OPENS)
DATANODE = Daemon("datanode", "org.apache.hadoop.hdfs.server.datanode.DataNode", "worker")
NODEMANAGER = Daemon("nodemanager", "org.apache.hadoop.yarn.server.nodemanager.NodeManager", "worker", _YARN_OPENS)

DAEMONS = (NAMENODE, RESOURCEMANAGER, HISTORYSERVER, DATANODE, NODEMANAGER)


def java_line(
    java_home: str,
    layout: HostLayout,
    heap_mb: int,
    main_class: str,
    args: list[str] = (),
    jvm_flags: tuple[str, ...] = (),
    log_name: str = "client",
) -> str:
    """The foreground `java` command line for `main_class` on a host with `layout`."""
    parts = [
        "env",
        f"JAVA_HOME={java_home}",
        f"{CONF_DIR_ENV}={layout.conf}",
        f"{LIB_DIR_ENV}={layout.lib_dir}",
        f"{java_home}/bin/java",
        f"-Xmx{heap_mb}m",
        *jvm_flags,
        f"-Dhadoop.log.dir={layout.logs}",
        f"-Dhadoop.log.file={log_name}.log",
        "-cp",
        layout.classpath,
        main_class,
        *args,
    ]
    return " ".join(shlex.quote(p) for p in parts)


def jvm_tmp_dir(layout: HostLayout) -> str:
    """The daemons' java.io.tmpdir: their web servers unpack webapps there (jetty-*), which in
    /tmp outlived every cluster; under the data directory they go with the cluster's wipe."""
    return f"{layout.data}/jvm-tmp"


def start_line(
    daemon: Daemon, java_home: str, layout: HostLayout, heap_mb: int, extra_flags: tuple[str, ...] = ()
) -> str:
    """Start `daemon` in the background unless its pid file names the JVM vbench started for it."""
    pid = shlex.quote(layout.pid_file(daemon.name))
    log = shlex.quote(layout.log_file(daemon.name))
    tmp = jvm_tmp_dir(layout)
    flags = (*daemon.jvm_flags, f"-Djava.io.tmpdir={tmp}", *extra_flags)
    java = java_line(java_home, layout, heap_mb, daemon.main_class, jvm_flags=flags, log_name=daemon.name)
    return (
        f"mkdir -p {shlex.quote(layout.logs)} {shlex.quote(layout.run)} {shlex.quote(tmp)} && "
        f"{_read_pid(daemon, layout)}; if {_is_ours(daemon, layout)}; then echo running; else "
        # Only the simple command is backgrounded, so $! is the JVM itself and no subshell
        # keeps the SSH channel's stdout open.
        f"cd {shlex.quote(layout.work_dir)}; nohup {java} >> {log} 2>&1 < /dev/null & "
        f"echo $! > {pid}; fi"
    )


def identity(daemon: Daemon, layout: HostLayout) -> str:
    """What the command line of the JVM vbench started for `daemon` in `layout` contains, and no
    other process's does: its own log directory and file (java_line puts them side by side)."""
    return f"-Dhadoop.log.dir={layout.logs} -Dhadoop.log.file={daemon.name}.log"


def _read_pid(daemon: Daemon, layout: HostLayout) -> str:
    """Sets $p to the pid in the daemon's pid file ('' when there is none)."""
    return f"p=$(cat {shlex.quote(layout.pid_file(daemon.name))} 2>/dev/null)"


def _is_ours(daemon: Daemon, layout: HostLayout) -> str:
    """A shell test: is pid $p still the JVM vbench started? A pid file outlives its process (a
    crash, a reboot), and the pid may since belong to someone else's process, which vbench, often
    root, must never signal."""
    return (
        f"[ \"$p\" -gt 0 ] 2>/dev/null && tr '\\0' ' ' < /proc/$p/cmdline 2>/dev/null | grep -qF -- "
        f"{shlex.quote(identity(daemon, layout))}"
    )


def stop_line(daemons: list[Daemon], layout: HostLayout, grace_s: int = 10) -> str:
    """TERM every one of `daemons` at once (each only if its pid file names the JVM vbench
    started), KILL what is left after `grace_s`, remove the pid files. Harmless if none runs.

    All at once: each Hadoop daemon takes about 2 s to run its shutdown hooks, and one after the
    other they made every teardown wait 10-18 s."""
    parts = ["pids=''"]
    for d in daemons:
        parts.append(
            f'{_read_pid(d, layout)}; if {_is_ours(d, layout)}; then kill $p 2>/dev/null; pids="$pids $p:{d.name}"; fi'
        )
    parts.append(
        f"for i in $(seq {grace_s * 10}); do left=''; for e in $pids; do "
        # A process that has exited but is not yet reaped keeps its pid with an empty command line.
        f'[ -n "$(tr -d \'\\0\' < /proc/${{e%%:*}}/cmdline 2>/dev/null)" ] && left="$left $e"; done; pids=$left; [ -z "$pids" ] && break; sleep 0.1; done'
    )
    for d in daemons:
        # Still running after the grace period: KILL it, after checking again that it is ours.
        parts.append(
            f'for e in $pids; do p=${{e%%:*}}; [ "${{e#*:}}" = {d.name} ] && {_is_ours(d, layout)} && '
            f"kill -9 $p 2>/dev/null; done"
        )
    parts.append("rm -f " + " ".join(shlex.quote(layout.pid_file(d.name)) for d in daemons) + "; true")
    return "; ".join(parts)


def alive_line(daemons: list[Daemon], layout: HostLayout) -> str:
    """Prints 'name up' or 'name down' per daemon: up only if its pid file names the JVM vbench started."""
    checks = [
        f"{_read_pid(d, layout)}; if {_is_ours(d, layout)}; then echo {d.name} up; else echo {d.name} down; fi"
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

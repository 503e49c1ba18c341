"""A Hadoop cluster on a list of hosts: configure, format, start, wait until healthy, stop, wipe.

The hosts may come from any provisioner; this module only runs shell lines over SSH.
"""

from __future__ import annotations

import io
import shlex
import time
from dataclasses import dataclass
from typing import Callable

import fabric

from vbench.each_host import on_each
from vbench.errors import ClusterNotReady, VbenchError
from vbench.hadoop import daemons as dm
from vbench.hadoop import health, webhdfs
from vbench.hadoop.artifacts import HadoopDist
from vbench.hadoop.config import HostLayout, config_hash, render_conf
from vbench.hadoop.jobs import block_locations
from vbench.hadoop.topology import PlacementReport, check_placement, network_locations, topology_table
from vbench.lifecycle import UpDown, shielded
from vbench.host import Host, connect
from vbench.params import HadoopParams

Log = Callable[[str], None]
#: Each daemon's web endpoint is asked with this: failing on HTTP errors, never hanging a poll.
_CURL = "curl -sf --max-time 3"


@dataclass(frozen=True)
class CommandResult:
    command: str
    exit_code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def daemons_timeout_s(hosts: list[Host]) -> float:
    """How long the daemons may take to come up. JVMs in a software-emulated (TCG) VM start
    several times slower than anywhere else, and under gVisor's ptrace platform every system call
    of a starting JVM is a round trip through the Sentry (a JVM's start-up ~3x slower here)."""
    if any(h.facts.get("accelerator") == "tcg" for h in hosts):
        return 900
    if any(h.facts.get("gvisor_platform") == "ptrace" for h in hosts):
        return 600
    return 120


class HadoopCluster(UpDown):
    """One master (NameNode, ResourceManager, JobHistoryServer) and N workers (DataNode, NodeManager)."""

    def __init__(self, hosts: list[Host], params: HadoopParams, dist: HadoopDist, log: Log = print):
        masters = [h for h in hosts if h.role == "master"]
        if len(masters) != 1:
            raise VbenchError(f"a cluster needs exactly one master host, got {[h.name for h in masters]}")
        self.hosts = list(hosts)
        self.master = masters[0]
        self.workers = [h for h in hosts if h.role == "worker"]
        self.params = params
        self.dist = dist
        self.log = log
        self._conns: dict[str, fabric.Connection] = {}
        self.bringup_seconds: float | None = None
        # The testbed says how its hosts are networked (vbench.testbed.physnet); remote
        # inventories without the fact are bridged.
        self.network_mode = self.master.facts.get("network_mode", "bridge")
        self.locations = network_locations(self.hosts, params.topology)
        self.topology_table = topology_table(self.hosts, self.locations)
        self.config_hash = config_hash(
            render_conf(
                params,
                self.master.name,
                HostLayout("$WORK", "$LIB"),
                topology=self.topology_table,
                network_mode=self.network_mode,
            )
        )

    # -- plumbing ------------------------------------------------------------------------
    def layout(self, host: Host) -> HostLayout:
        # Hosts with their own filesystem (containers with their own root, VMs, remote
        # machines) get the jars pushed into their work dir by `install`.
        lib = str(self.dist.lib) if host.shares_controller_fs else f"{host.work_dir}/hadoop-{self.dist.home.name}/lib"
        return HostLayout(work_dir=host.work_dir, lib_dir=lib)

    def conn(self, host: Host) -> fabric.Connection:
        if host.name not in self._conns:
            self._conns[host.name] = connect(host)
        return self._conns[host.name]

    def sh(self, host: Host, line: str, timeout: float | None = None) -> CommandResult:
        t0 = time.monotonic()
        r = self.conn(host).run(line, hide=True, warn=True, timeout=timeout, in_stream=False)
        return CommandResult(line, r.exited, r.stdout, r.stderr, time.monotonic() - t0)

    def _each(self, hosts: list[Host], fn: Callable[[Host], object]) -> list:
        return on_each(fn, hosts)

    def daemons_of(self, host: Host) -> list[dm.Daemon]:
        return [d for d in dm.DAEMONS if d.role == host.role]

    def log_files(self, host: Host) -> list[str]:
        """The logs this cluster's daemons write on `host` (each daemon's output and log4j's, in
        its own log directory), as vbench laid them out: what is kept of a failed cluster."""
        return [self.layout(host).log_file(d.name) for d in self.daemons_of(host)]

    def _heap(self, daemon: dm.Daemon) -> int:
        return getattr(self.params.heaps, daemon.name)

    # -- lifecycle -----------------------------------------------------------------------
    def install(self) -> None:
        """Write each host's conf/, and push Hadoop's jars to hosts that do not share our filesystem."""

        def one(host: Host) -> None:
            lay = self.layout(host)
            self.sh(host, f"mkdir -p {shlex.quote(lay.conf)} {shlex.quote(lay.logs)} {shlex.quote(lay.run)}")
            if not host.shares_controller_fs:
                self._push_jars(host, lay)
            for name, text in render_conf(
                self.params, self.master.name, lay, topology=self.topology_table, network_mode=self.network_mode
            ).items():
                self.conn(host).put(io.BytesIO(text.encode()), f"{lay.conf}/{name}")

        self._each(self.hosts, one)

    def _push_jars(self, host: Host, lay: HostLayout) -> None:
        """Copy the jars once (a marker names the assembled distribution), so hosts need no internet."""
        home = lay.lib_dir.rsplit("/", 1)[0]
        marker = f"{home}/COMPLETE"
        if self.sh(host, f"test -f {shlex.quote(marker)}").ok:
            return
        tarball = self.dist.tarball()
        remote = f"{host.work_dir}/.{tarball.name}"
        self.conn(host).put(str(tarball), remote)
        r = self.sh(
            host,
            f"mkdir -p {shlex.quote(home)} && tar -xf {shlex.quote(remote)} -C {shlex.quote(home)} && "
            f"rm -f {shlex.quote(remote)} && touch {shlex.quote(marker)}",
            timeout=600,
        )
        if not r.ok:
            raise VbenchError(f"installing Hadoop's jars on {host.name} failed: {_tail(r.stderr)}")

    def format(self) -> None:
        lay = self.layout(self.master)
        line = dm.java_line(
            str(self.params.java_home),
            lay,
            self.params.heaps.namenode,
            dm.NAMENODE.main_class,
            ["-format", "-force", "-nonInteractive", "-clusterid", "vbench"],
            log_name="format",
        )
        r = self.sh(self.master, f"rm -rf {shlex.quote(lay.data)}/dfs/name && {line}", timeout=120)
        if not r.ok:
            raise ClusterNotReady(f"NameNode format failed on {self.master.name}:\n{_tail(r.stderr)}")

    def start(self, timeout_s: float = 120, since: float | None = None) -> None:
        """Start every daemon, the JobHistoryServer once HDFS is out of safe mode, within
        `timeout_s` of `since` (a time.monotonic(); default now). Started beside the NameNode, it
        found no file system and looked again only 10 s later (HistoryFileManager's fixed
        interval, "Waiting for FileSystem ... to be available"): the last 6-8 s of every bring-up
        here."""
        since = time.monotonic() if since is None else since
        first = tuple(d for d in dm.DAEMONS if d is not dm.HISTORYSERVER)
        self._start(first)

        def in_safe_mode() -> list[str]:
            return ["HDFS out of safe mode"] if self.hdfs_health().safemode else []

        self._wait_until(first, in_safe_mode, timeout_s, since)
        self._start((dm.HISTORYSERVER,))

    def _start(self, daemons: tuple[dm.Daemon, ...]) -> None:
        jh = str(self.params.java_home)

        def one(host: Host) -> None:
            lay = self.layout(host)
            lines = [
                dm.start_line(d, jh, lay, self._heap(d), self.params.daemon_jvm_flags)
                for d in self.daemons_of(host)
                if d in daemons
            ]
            if not lines:
                return
            r = self.sh(host, " ; ".join(lines))
            if not r.ok:
                raise ClusterNotReady(f"starting daemons on {host.name} failed: {_tail(r.stderr)}")

        self._each(self.hosts, one)

    def daemon_states(self, daemons: tuple[dm.Daemon, ...] = dm.DAEMONS) -> dict[tuple[str, str], bool]:
        """(host, daemon) -> alive, from the pid files, for each of `daemons` a host runs."""

        def one(host: Host) -> dict[tuple[str, str], bool]:
            mine = [d for d in self.daemons_of(host) if d in daemons]
            r = self.sh(host, dm.alive_line(mine, self.layout(host)))
            return {(host.name, d): up for d, up in dm.parse_alive(r.stdout).items()}

        states: dict[tuple[str, str], bool] = {}
        for part in self._each(self.hosts, one):
            states.update(part)
        return states

    def health(self) -> tuple[health.HdfsHealth, tuple[str, ...], bool]:
        m = self.master.name
        r = self.sh(
            self.master,
            f"{_CURL} '{health.namenode_url(m)}'; echo; echo ===; {_CURL} '{health.rm_nodes_url(m)}'; echo; echo ===; "
            f"{_CURL} '{health.jhs_url(m)}'; echo",
        )
        parts = [p.strip() for p in r.stdout.split("===")]
        parts += [""] * (3 - len(parts))
        hdfs = _namenode_health(parts[0])
        nms = _or(lambda: health.parse_rm_nodes(parts[1]), ())
        jhs = _or(lambda: health.parse_jhs_info(parts[2]), False)
        return hdfs, nms, jhs

    def hdfs_health(self) -> health.HdfsHealth:
        """The NameNode's part of `health` alone, for the wait before the history server starts:
        one curl instead of three in each poll of a machine busy starting JVMs."""
        r = self.sh(self.master, f"{_CURL} '{health.namenode_url(self.master.name)}'")
        return _namenode_health(r.stdout)

    def wait_ready(self, timeout_s: float = 120, since: float | None = None) -> None:
        """Every DataNode live, HDFS out of safe mode, every NodeManager RUNNING, history server up,
        within `timeout_s` of `since` (a time.monotonic(); default now)."""
        want = tuple(sorted(h.name for h in self.workers))

        def missing() -> list[str]:
            hdfs, nms, jhs = self.health()
            out = [f"DataNode on {w}" for w in want if w not in hdfs.live_datanodes]
            out += [f"NodeManager on {w}" for w in want if w not in nms]
            if hdfs.safemode:
                out.append("HDFS out of safe mode")
            if not jhs:
                out.append(f"JobHistoryServer on {self.master.name}")
            return out

        self._wait_until(dm.DAEMONS, missing, timeout_s, time.monotonic() if since is None else since)

    def _wait_until(
        self,
        started: tuple[dm.Daemon, ...],
        missing: Callable[[], list[str]],
        timeout_s: float,
        since: float,
    ) -> None:
        """Poll each second until `missing()` (what is not up yet, said) is empty; a daemon of
        `started` read dead at two looks in a row, or `timeout_s` after `since`, raises
        ClusterNotReady. One look is not enough: a starting daemon's pid execs nohup, env, then java,
        and while the kernel swaps its image /proc/<pid>/cmdline reads empty, so a live JVM one SSH
        round trip old can read dead (a CI run refused a cluster so, every daemon's log still empty).
        A daemon read dead is looked at again a second later, even past the deadline or with
        nothing missing."""
        deadline = since + timeout_s
        last: list[str] = []
        suspect: set[tuple[str, str]] = set()
        while True:  # at least one look, however little time is left
            down = [k for k, up in self.daemon_states(started).items() if not up]
            dead = [k for k in down if k in suspect]
            if dead:
                host, daemon = dead[0]
                raise ClusterNotReady(self._died_message(host, daemon))
            suspect = set(down)
            left = missing()
            if not left and not suspect:
                return
            if time.monotonic() >= deadline and not suspect:
                break
            if left and left != last:
                self.log(f"  waiting for: {', '.join(left)}")
                last = left
            time.sleep(1)
        logs = "; ".join(self._log_hint(m) for m in left)
        raise ClusterNotReady(f"not ready after {timeout_s:.0f} s: {', '.join(left)} (logs: {logs})")

    def _log_hint(self, missing: str) -> str:
        name = {"DataNode": "datanode", "NodeManager": "nodemanager", "JobHistoryServer": "historyserver"}.get(
            missing.split()[0], "namenode"
        )
        host = next((h for h in self.hosts if missing.endswith(f"on {h.name}")), self.master)
        return f"{host.name}:{self.layout(host).log_file(name)}"

    def _died_message(self, host_name: str, daemon: str) -> str:
        host = next(h for h in self.hosts if h.name == host_name)
        log = self.layout(host).log_file(daemon)
        tail = self.sh(host, f"tail -n 8 {shlex.quote(log)}").stdout
        return f"{daemon} on {host_name} exited during start-up; log {host_name}:{log} ends with:\n{tail}"

    def up(self, timeout_s: float | None = None) -> None:
        timeout_s = timeout_s or daemons_timeout_s(self.hosts)
        t0 = time.monotonic()
        self.install()
        self.format()
        self.start(timeout_s, since=t0)
        self.wait_ready(timeout_s, since=t0)
        self.bringup_seconds = time.monotonic() - t0
        self.log(
            f"hadoop {self.params.version}: {len(self.workers)} DataNodes live, {len(self.workers)} NodeManagers "
            f"running in {self.bringup_seconds:.1f} s"
        )

    def stop(self) -> None:
        """Stop every daemon vbench started: the workers' all at once, then the master's. Harmless
        when nothing runs. Workers first: a NodeManager stopping unregisters from the
        ResourceManager, and with the ResourceManager gone it retries for the whole grace period."""

        def one(host: Host) -> None:
            self.sh(host, dm.stop_line(self.daemons_of(host), self.layout(host)))

        self._each(self.workers, one)
        one(self.master)

    def wipe(self) -> None:
        self._each(self.hosts, lambda h: self.sh(h, f"rm -rf {shlex.quote(self.layout(h).data)}"))

    def close(self) -> None:
        for c in self._conns.values():
            c.close()
        self._conns.clear()

    def down(self, wipe: bool = True) -> None:
        with shielded():
            try:
                self.stop()
                if wipe:
                    self.wipe()
            finally:
                self.close()

    # -- clients -------------------------------------------------------------------------
    def java(self, main_class: str, args: list[str], timeout: float | None = None, extra_cp: str = "") -> CommandResult:
        """Run a Hadoop client class on the master host (where a user would submit jobs)."""
        lay = self.layout(self.master)
        line = dm.java_line(
            str(self.params.java_home),
            lay,
            self.params.heaps.client,
            main_class,
            list(args),
            jvm_flags=self.params.job_jvm_flags,
        )
        if extra_cp:
            line = line.replace(shlex.quote(lay.classpath), shlex.quote(f"{lay.classpath}:{extra_cp}"), 1)
        return self.sh(self.master, line, timeout=timeout)

    def fs(self, *args: str) -> CommandResult:
        return self.java("org.apache.hadoop.fs.FsShell", list(args), timeout=120)

    def webhdfs(self, method: str, path: str, op: str, **params: str) -> tuple[str, int]:
        """One WebHDFS call made on the master, as the user the daemons run as: (body, HTTP
        status, 0 when nothing answered). Milliseconds where `fs` starts a JVM."""
        target = webhdfs.url(self.master.name, path, op, self.master.ssh.user, **params)
        r = self.sh(self.master, webhdfs.curl_line(method, target), timeout=webhdfs.MAX_TIME_S + 10)
        return webhdfs.split_status(r.stdout)

    def exists(self, path: str) -> bool:
        """Whether `path` is in HDFS; an error when the NameNode does not say either way."""
        body, status = self.webhdfs("GET", path, "GETFILESTATUS")
        if status not in (200, 404):
            raise VbenchError(f"HDFS did not say whether {path} exists (WebHDFS HTTP {status}): {_tail(body, 3)}")
        return status == 200

    def listing(self, path: str) -> list[webhdfs.FileEntry]:
        """The entries of the HDFS directory `path`."""
        body, status = self.webhdfs("GET", path, "LISTSTATUS")
        if status != 200:
            raise VbenchError(f"listing {path} in HDFS failed (WebHDFS HTTP {status}): {_tail(body, 3)}")
        return webhdfs.parse_listing(body)

    def remove(self, path: str) -> bool:
        """Remove `path` from HDFS, recursively, skipping the trash; whether it is gone (an
        absent path is gone)."""
        body, status = self.webhdfs("DELETE", path, "DELETE", recursive="true")
        try:
            return status == 200 and (webhdfs.parse_boolean(body) or not self.exists(path))
        except (ValueError, VbenchError):
            return False

    def placement(self, path: str) -> PlacementReport:
        """Where the replicas of `path`'s blocks are, checked against the topology's policy."""
        r = self.fsck(path)
        if not r.ok:
            raise VbenchError(f"fsck {path} failed: {_tail(r.stderr)}")
        return check_placement(block_locations(r.stdout), self.hosts, self.params.topology)

    def fsck(self, path: str) -> CommandResult:
        return self.java("org.apache.hadoop.hdfs.tools.DFSck", [path, "-files", "-blocks", "-locations"], timeout=120)


def _tail(text: str, n: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-n:])


def _namenode_health(text: str) -> health.HdfsHealth:
    """The NameNode JMX answer read, or "not up" while it is not JSON yet (a refused connection)."""
    return _or(lambda: health.parse_namenode_info(text), health.HDFS_NOT_UP)


def _or(fn, default):
    try:
        return fn()
    except (ValueError, KeyError, TypeError):
        return default

"""The end of each Hadoop daemon's log, copied off a failed configuration's hosts before teardown
removes them (issue #52).

A failure's message names the daemons' logs on the hosts (`ClusterNotReady`: "logs: master:
/.../logs/namenode.log"), and teardown then deletes those hosts' work directories: the paths
named no longer exist (trial 15 of the soak's seed 52 could not be diagnosed so). So when a
configuration fails (bring-up, a cell that gives it up, a daemon found dead) or a Hadoop run
fails, the runner copies the last `TAIL_BYTES` of each log vbench's cluster wrote on each of its
hosts into the campaign directory, `failed-logs/<run or configuration>/<host>/<file>`, and the
failure records name that directory (`failed_logs`, relative to the campaign directory).

Bounded and harmless: only the files the cluster names itself (`HadoopCluster.log_files`: its
own log directory, as vbench laid it out, never a path read from a host), at most
`MAX_FILES_PER_HOST` of them, their tails only, one command per host over the cluster's own SSH
connection; a host that does not answer within `HOST_TIMEOUT_S` is skipped with one line. Nothing
here raises an error into the failure it documents; an interrupt (Ctrl-C, SIGTERM) is not held
up (`on_each`) and goes on.
"""

from __future__ import annotations

import re
import shlex
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Protocol

from vbench import durable
from vbench.each_host import on_each
from vbench.host import Host

Log = Callable[[str], None]

#: The directory of the copies, in the campaign directory.
DIR = "failed-logs"
#: What is kept of each log: its last 256 KiB. A daemon's log grows to tens of MB over a campaign
#: while what explains a failure is its last minutes (the NameNode's safe-mode and block-placement
#: lines, a DataNode's disk errors, the exception a daemon died of): at the INFO rates of these
#: clusters 256 KiB holds several minutes, and a five-host cluster's copy stays near 1.3 MB, so a
#: campaign that fails often does not grow by gigabytes.
TAIL_BYTES = 256 * 1024
#: At most this many files per host (a master runs three daemons, a worker two).
MAX_FILES_PER_HOST = 8
#: How long one host may take to answer; a dead container's host is skipped after it, so a
#: failure's teardown is held up by a few seconds at most (hosts are asked all at once).
HOST_TIMEOUT_S = 8.0


class LoggedCluster(Protocol):
    """What is asked of a cluster (vbench.hadoop.cluster.HadoopCluster): its hosts, the logs it
    writes on each, and a shell line run on one with a timeout."""

    hosts: list[Host]

    def log_files(self, host: Host) -> list[str]: ...

    def sh(self, host: Host, line: str, timeout: float | None = None): ...


@dataclass(frozen=True)
class HostAnswer:
    """What one host gave when asked for its logs' tails: the tails it printed (path -> text), or
    `why_not`, one line saying why it gave none (its command failed, or it did not answer in
    time), which is what is logged for it."""

    tails: Mapping[str, str] = field(default_factory=dict)
    why_not: str | None = None


def safe_name(text: str) -> str:
    """`text` as one path component: anything but letters, digits, '.', '_', '=', '-' becomes
    '-', and never '', '.' or '..'. Pure."""
    name = re.sub(r"[^A-Za-z0-9._=-]+", "-", text).strip("-")
    return name if name.strip(".") else "_"


def run_dir(run_id: str) -> str:
    """Where a failed run's copies go, relative to the campaign directory. Pure."""
    return f"{DIR}/{safe_name(run_id)}"


def configuration_dir(block: int, key: str, when: float) -> str:
    """Where a failed configuration's copies go, relative to the campaign directory: its block,
    its key and the time (a resumed campaign may lose the same configuration again). Pure."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(when))
    return f"{DIR}/b{block}-{safe_name(key)}-{stamp}"


def tail_command(paths: list[str], marker: str, nbytes: int = TAIL_BYTES) -> str:
    """One shell line printing, for each of `paths` that is a regular file (a symlink is not
    followed), a line '<marker> <index>' and then its last `nbytes`; then '<marker> end'. Each
    marker line starts with a newline of its own, so a file's bytes are exactly what lies
    between two markers. Exits 0 whatever it found. Pure."""
    m = shlex.quote(marker)
    parts = [
        f"if [ -f {q} ] && [ ! -L {q} ]; then printf '\\n%s %s\\n' {m} {i}; tail -c {int(nbytes)} -- {q}; fi"
        for i, q in enumerate(shlex.quote(p) for p in paths)
    ]
    return "; ".join([*parts, f"printf '\\n%s end\\n' {m}", "exit 0"])


def parse_tails(stdout: str, marker: str, paths: list[str]) -> dict[str, str]:
    """`tail_command`'s output read back: path -> its tail, for the files it printed. What comes
    before the first marker (a login shell's noise) is not a file's. Pure."""
    out: dict[str, str] = {}
    pieces = stdout.split(f"\n{marker} ")
    for piece in pieces[1:]:
        head, nl, body = piece.partition("\n")
        if not nl or not head.isdigit() or int(head) >= len(paths):
            continue  # 'end', or a torn answer
        out[paths[int(head)]] = body
    return out


def destination(root: Path, rel: str, host: str, path: str) -> Path:
    """Where the tail of `path` on `host` is kept: `<root>/<rel>/<host>/<file name>`. Pure."""
    return root / rel / safe_name(host) / safe_name(PurePosixPath(path).name)


def _one_line(exc: object) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


def keep(cluster: LoggedCluster, root: Path, rel: str, log: Log, timeout_s: float = HOST_TIMEOUT_S) -> str | None:
    """Copy the tail of each log `cluster` wrote on each of its hosts into `root/rel/<host>/`;
    `rel` if anything was kept (the caller says so), else None. A host that fails or does not answer within
    `timeout_s` is skipped with one line. Never raises an Exception (one line says what went
    wrong); an interrupt is raised at once (on_each waits at most its grace for the hosts)."""
    try:
        files = {h.name: list(cluster.log_files(h))[:MAX_FILES_PER_HOST] for h in cluster.hosts}
        hosts = [h for h in cluster.hosts if files[h.name]]
        if not hosts:
            return None

        def ask(host: Host) -> HostAnswer:
            paths = files[host.name]
            marker = f"vbench-tail-{uuid.uuid4().hex}"

            try:
                r = cluster.sh(host, tail_command(paths, marker), timeout=timeout_s)
            except Exception as exc:  # noqa: BLE001 - said below, one line per host
                return HostAnswer(why_not=_one_line(exc))
            if not r.ok:
                return HostAnswer(why_not=_one_line(f"exit {r.exit_code}: {_one_line(r.stderr)}"))
            return HostAnswer(tails=parse_tails(r.stdout, marker, paths))

        def late(host: Host) -> HostAnswer:
            return HostAnswer(why_not=f"no answer in {timeout_s:g} s")

        kept = 0
        for host, answer in zip(hosts, on_each(ask, hosts, within_s=timeout_s + 1.0, late=late)):
            if answer.why_not is not None:
                log(f"  logs of {host.name} not kept: {answer.why_not}")
                continue
            for path, text in answer.tails.items():
                to = destination(root, rel, host.name, path)
                durable.make_dirs(to.parent)
                durable.write_text(to, text)
                kept += 1
            if answer.tails:
                durable.fsync_dir(root / rel / safe_name(host.name))
        return rel if kept else None
    except Exception as exc:  # noqa: BLE001 - evidence, never a second failure
        log(f"  daemon logs not kept: {_one_line(exc)}")
        return None

"""Preparing real hosts: idempotent, in parallel, with a progress display.

Per host: the work directory (owned by the SSH user; Hadoop keeps everything there, HDFS
blocks included, so nothing else is created or chowned), the Debian packages that are missing
(the JDK and the benchmark tools; nothing is installed when all are there), and Hadoop's jars
pushed from the controller's cache (vbench.hadoop.cluster pushes a tarball once, marked
COMPLETE), so hosts need no internet for Hadoop. A second run changes nothing.
"""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass
from typing import Callable

from vbench.each_host import INVENTORY_WORKERS, on_each
from vbench.errors import VbenchError
from vbench.hadoop.artifacts import HadoopDist
from vbench.hadoop.cluster import HadoopCluster
from vbench.host import Host, connect
from vbench.inventory.model import Inventory, InventoryHost, to_host, work_dir
from vbench.params import HadoopParams

Step = Callable[[str, str], None]  # (host, what is being done)


def sudo_prefix(h: InventoryHost) -> str:
    return "sudo -n " if h.sudo else ""


def workdir_line(h: InventoryHost, path: str) -> str:
    """Create the work directory owned by the SSH user. Idempotent. Pure.

    Only the work directory: `hdfs_dirs` are not Hadoop's (its data is under the work dir),
    and `sudo chown` of a path from params (`/var/lib`) would hand a system tree to the user."""
    d = shlex.quote(path)
    s = sudo_prefix(h)
    line = f"{s}mkdir -p {d}"
    if h.user != "root":
        line += f" && {s}chown {shlex.quote(h.user)} {d}"
    return line


def packages_line(h: InventoryHost, packages: tuple[str, ...]) -> str:
    """Install only the missing packages; prints `missing: ...` (empty when nothing was to do).
    Refuses hosts without apt (not Debian/Ubuntu) unless there is nothing to install. Pure."""
    if not packages:
        return "echo missing:"
    s = sudo_prefix(h)
    pk = " ".join(shlex.quote(p) for p in packages)
    return (
        "command -v dpkg-query >/dev/null && command -v apt-get >/dev/null || "
        "{ echo 'not a Debian/Ubuntu host (no apt-get)' >&2; exit 3; }; "
        f"missing=''; for p in {pk}; do dpkg-query -W -f='${{Status}}' \"$p\" 2>/dev/null | "
        "grep -q 'install ok installed' || missing=\"$missing $p\"; done; "
        'echo "missing:$missing"; '
        f'if [ -n "$missing" ]; then {s}env DEBIAN_FRONTEND=noninteractive apt-get install -y '
        "--no-install-recommends $missing >/tmp/vbench-apt.log 2>&1 || "
        "{ tail -n 5 /tmp/vbench-apt.log >&2; exit 4; }; fi"
    )


def parse_missing(stdout: str) -> tuple[str, ...]:
    for line in stdout.splitlines():
        if line.startswith("missing:"):
            return tuple(line.split(":", 1)[1].split())
    return ()


@dataclass(frozen=True)
class Prepared:
    host: str
    installed: tuple[str, ...]
    jars_pushed: bool


def prepare_host(
    inv: Inventory,
    h: InventoryHost,
    hadoop: HadoopParams | None,
    dist: HadoopDist | None,
    step: Step = lambda _h, _w: None,
) -> Prepared:
    host = to_host(inv, h)
    with connect(host) as c:
        step(h.name, "work directory")
        r = c.run(workdir_line(h, work_dir(inv, h)), hide=True, warn=True, in_stream=False)
        if r.exited:
            raise VbenchError(f"{h.name}: creating {work_dir(inv, h)} failed: {r.stderr.strip()[-300:]}")
        step(h.name, "packages")
        r = c.run(packages_line(h, inv.packages), hide=True, warn=True, in_stream=False, timeout=1800)
        if r.exited:
            raise VbenchError(f"{h.name}: installing packages failed (exit {r.exited}): {r.stderr.strip()[-400:]}")
        installed = parse_missing(r.stdout)
    pushed = False
    if dist is not None and hadoop is not None:
        step(h.name, "Hadoop jars")
        pushed = push_hadoop(host, hadoop, dist)
    step(h.name, "done")
    return Prepared(h.name, installed, pushed)


def push_hadoop(host: Host, hadoop: HadoopParams, dist: HadoopDist) -> bool:
    """Hadoop's jars into the host's work dir, once (the cluster code's own push, reused).
    Returns whether anything was copied."""
    # HadoopCluster wants one master; for copying jars to one host any host can play it.
    role_fix = dataclasses.replace(host, role="master")
    cluster = HadoopCluster([role_fix], hadoop, dist, log=lambda _m: None)
    try:
        lay = cluster.layout(role_fix)
        marker = f"{lay.lib_dir.rsplit('/', 1)[0]}/COMPLETE"
        already = cluster.sh(role_fix, f"test -f {shlex.quote(marker)}").ok
        if not already:
            cluster._push_jars(role_fix, lay)
        return not already
    finally:
        cluster.close()


def prepare(
    inv: Inventory, hadoop: HadoopParams | None, dist: HadoopDist | None, step: Step = lambda _h, _w: None
) -> list[Prepared]:
    """Every host in parallel (one thread per host, as a fabric ThreadingGroup would)."""
    return on_each(lambda h: prepare_host(inv, h, hadoop, dist, step), inv.hosts, workers=INVENTORY_WORKERS)

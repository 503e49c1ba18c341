"""Running the iperf3 matrix (vbench.benchmarks.netmatrix) on a testbed that is up: an iperf3
server on a guest over SSH, or on an emulated physical host with `ip netns exec` (a process
started here, by pid, stopped here), and, once it listens, its client on a guest over SSH, one
pair at a time so that pairs do not share the machine's two cores.
"""

from __future__ import annotations

import contextlib
import subprocess
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from vbench.benchmarks.micro import iperf3
from vbench.benchmarks.micro._common import Runner
from vbench.benchmarks.netmatrix import MatrixRow, NetmatrixConfig, Pair, pairs, parse_row
from vbench.errors import JobFailed
from vbench.host import Host, connect
from vbench.testbed import sysops
from vbench.testbed.physnet import NetLayout

Log = Callable[[str], None]


def measure_pair(pair: Pair, lay: NetLayout, by_name: dict[str, Host], cfg: NetmatrixConfig) -> str:
    """Run one pair: its server, then its client once the server listens; the client's JSON."""
    icfg = cfg.iperf3(server=pair.target)
    with _iperf3_server(pair, lay, by_name, icfg) as server:
        iperf3.wait_until_listening(server, cfg.port, f"{pair.server} ({pair.target})")
        with connect(by_name[pair.client]) as c:
            res = c.run(iperf3.command(icfg), hide=True, warn=True, in_stream=False)
    if not res.stdout.strip():
        raise JobFailed(f"iperf3 {pair.client} -> {pair.server} ({pair.target}): no output: {res.stderr[-300:]}")
    return res.stdout


def measure(
    hosts: list[Host],
    lay: NetLayout,
    vms_per_host: int,
    duration_s: int = 5,
    omit_s: int = 1,
    port: int = 5211,
    log: Log = print,
) -> list[MatrixRow]:
    """Run every pair of `pairs(lay)`; a failed pair raises (the matrix is a check, not a survey)."""
    by_name = {h.name: h for h in hosts}
    cfg = NetmatrixConfig(duration_s=duration_s, omit_s=omit_s, port=port)
    rows = []
    for pair in pairs(lay):
        row = parse_row(measure_pair(pair, lay, by_name, cfg), pair, lay, vms_per_host, cfg)
        log(f"{row.mode:10s} {row.kind:22s} {row.client}->{row.server} {row.target}: {row.throughput_mbit:.1f} Mbit/s")
        rows.append(row)
    return rows


@contextlib.contextmanager
def _iperf3_server(pair: Pair, lay: NetLayout, by_name: dict[str, Host], icfg: iperf3.Iperf3Config) -> Iterator[Runner]:
    """A one-off iperf3 server on the pair's server; yields a Runner of commands on that side.

    A physical host's server runs here in its network namespace (started here, stopped here by
    pid); a guest's over SSH, where it exits after its one test or its time limit."""
    if pair.server.startswith("host:"):
        netns = lay.physical(pair.server.split(":", 1)[1]).netns
        proc = subprocess.Popen(
            ["ip", "netns", "exec", netns, *iperf3.server_argv(icfg)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            yield InNetns(netns)
        finally:
            sysops.kill_pids([proc.pid], grace_s=2)
            proc.wait()
        return
    with connect(by_name[pair.server]) as s:
        limit = icfg.duration_s + int(iperf3.SERVER_START_TIMEOUT_S) + 30
        s.run(
            f"nohup timeout {limit} {iperf3.server_command(icfg)} > /dev/null 2>&1 < /dev/null &",
            hide=True,
            in_stream=False,
        )
        yield s


@dataclass(frozen=True)
class InNetns:
    """A Runner (as `c.run` of a Connection) for commands in one of this machine's network namespaces."""

    netns: str

    def run(self, command: str, **_: Any) -> subprocess.CompletedProcess:
        return sysops.run(["ip", "netns", "exec", self.netns, "sh", "-c", command], check=False)

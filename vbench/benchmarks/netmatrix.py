"""The iperf3 matrix of a testbed's network (Jeong et al. Figs 4-5): two guests of one physical
host, two guests on different physical hosts, a guest and its own physical host.

`pairs` (which pairs, which address each client uses) and `parse_row` are pure; `measure`
runs iperf3 servers on guests over SSH and on physical hosts with `ip netns exec` (processes
started here, by pid, stopped here), and, once a server listens, its client on a guest over
SSH, one pair at a time so that pairs do not share the machine's two cores.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shlex
import subprocess
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from vbench.benchmarks.micro import iperf3
from vbench.benchmarks.micro._common import Runner
from vbench.errors import JobFailed
from vbench.host import Host, connect
from vbench.testbed import sysops
from vbench.testbed.physnet import NetLayout, hosts_view

Log = Callable[[str], None]

SAME = "same-physical-host"
CROSS = "across-physical-hosts"
GUEST_HOST = "guest-to-its-host"
OTHER_HOST = "guest-to-other-host"  # Jeong's VM11-PM: a physical machine that hosts no guest of the pair
KINDS = (SAME, CROSS, GUEST_HOST, OTHER_HOST)


@dataclass(frozen=True)
class Pair:
    kind: str
    client: str  # a guest
    server: str  # a guest, or a physical host ("host:p1")
    target: str  # the address the client connects to (what its /etc/hosts says, or its host's)
    #: Whether the path crosses an uplink, so it must be shaped to the configured rate.
    shaped: bool


@dataclass(frozen=True)
class MatrixRow:
    mode: str
    vms_per_host: int
    kind: str
    client: str
    server: str
    target: str
    source: str  # the client's address on the connection (its NIC for this path)
    throughput_mbit: float  # the receiver's mean over the test
    rtt_ms: float | None  # the sender's mean TCP RTT (iperf3), None if not reported
    retransmits: int | None
    configured_mbit: float | None  # the uplink's rate when the path is shaped, else None

    @property
    def deviation(self) -> float | None:
        """Relative deviation from the configured rate (shaped paths only)."""
        if self.configured_mbit is None:
            return None
        return self.throughput_mbit / self.configured_mbit - 1


def pairs(lay: NetLayout) -> list[Pair]:
    """One pair of each kind the layout has. Workers are preferred (they carry Hadoop's traffic);
    the same-host pair comes from the first physical host holding two guests."""
    by_phys: dict[str, list[str]] = {}
    for g in lay.guests:
        by_phys.setdefault(g.physical_host, []).append(g.name)
    workers_first = sorted(lay.guests, key=lambda g: g.physical_host == "pm")
    out: list[Pair] = []
    same = next((names for names in by_phys.values() if len(names) >= 2), None)
    if same:
        a, b = same[0], same[1]
        view = dict(hosts_view(lay, a))
        out.append(Pair(SAME, a, b, view[b], shaped=False))
    if len(by_phys) >= 2:
        a = workers_first[0]
        b = next(g for g in workers_first if g.physical_host != a.physical_host)
        view = dict(hosts_view(lay, a.name))
        out.append(Pair(CROSS, a.name, b.name, view[b.name], shaped=lay.rate_mbit is not None))
    g = workers_first[0]
    out.append(Pair(GUEST_HOST, g.name, f"host:{g.physical_host}", lay.host_address(g.name), shaped=False))
    other = next((p for p in lay.physical_hosts if p.name != g.physical_host), None)
    if other is not None:
        out.append(Pair(OTHER_HOST, g.name, f"host:{other.name}", other.address, shaped=lay.rate_mbit is not None))
    return out


def parse_row(text: str, pair: Pair, lay: NetLayout, vms_per_host: int) -> MatrixRow:
    """A row from the client's `iperf3 -J` output (throughput via iperf3.parse)."""
    cfg = iperf3.Iperf3Config(server=pair.target)
    mean = next(s.value for s in iperf3.parse_stdout(text, cfg) if s.metric == "throughput_mean")
    doc = iperf3._load(text)
    connected = (doc.get("start", {}).get("connected") or [{}])[0]
    streams = doc.get("end", {}).get("streams") or []
    rtts = [s["sender"]["mean_rtt"] for s in streams if "mean_rtt" in s.get("sender", {})]
    retr = doc.get("end", {}).get("sum_sent", {}).get("retransmits")
    return MatrixRow(
        mode=lay.mode,
        vms_per_host=vms_per_host,
        kind=pair.kind,
        client=pair.client,
        server=pair.server,
        target=pair.target,
        source=str(connected.get("local_host", "?")),
        throughput_mbit=round(mean, 1),
        rtt_ms=round(sum(rtts) / len(rtts) / 1000, 3) if rtts else None,  # iperf3 reports microseconds
        retransmits=retr,
        configured_mbit=lay.rate_mbit if pair.shaped else None,
    )


def table(rows: list[MatrixRow]) -> str:
    """A Markdown table of the rows."""
    head = (
        "| mode | VMs/host | pair | client -> server | target (source) | Mbit/s | configured | dev. | RTT ms |\n"
        "|---|---|---|---|---|---:|---:|---:|---:|\n"
    )
    lines = []
    for r in rows:
        dev = f"{r.deviation:+.1%}" if r.deviation is not None else "-"
        conf = f"{r.configured_mbit:g}" if r.configured_mbit else "unshaped"
        rtt = f"{r.rtt_ms:.3f}" if r.rtt_ms is not None else "-"
        lines.append(
            f"| {r.mode} | {r.vms_per_host} | {r.kind} | {r.client} -> {r.server} | {r.target} ({r.source}) "
            f"| {r.throughput_mbit:.1f} | {conf} | {dev} | {rtt} |"
        )
    return head + "\n".join(lines) + "\n"


def server_argv(port: int) -> list[str]:
    return ["iperf3", "-s", "-1", "-p", str(port)]


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
    rows = []
    for pair in pairs(lay):
        cfg = iperf3.Iperf3Config(server=pair.target, port=port, duration_s=duration_s, omit_s=omit_s)
        with _iperf3_server(pair, lay, by_name, port, duration_s) as server:
            iperf3.wait_until_listening(server, port, f"{pair.server} ({pair.target})")
            with connect(by_name[pair.client]) as c:
                res = c.run(iperf3.command(cfg), hide=True, warn=True, in_stream=False)
        if not res.stdout.strip():
            raise JobFailed(f"iperf3 {pair.client} -> {pair.server} ({pair.target}): no output: {res.stderr[-300:]}")
        row = parse_row(res.stdout, pair, lay, vms_per_host)
        log(f"{row.mode:10s} {row.kind:22s} {row.client}->{row.server} {row.target}: {row.throughput_mbit:.1f} Mbit/s")
        rows.append(row)
    return rows


@contextlib.contextmanager
def _iperf3_server(
    pair: Pair, lay: NetLayout, by_name: dict[str, Host], port: int, duration_s: int
) -> Iterator[Runner]:
    """A one-off iperf3 server on the pair's server; yields a Runner of commands on that side.

    A physical host's server runs here in its network namespace (started here, stopped here by
    pid); a guest's over SSH, where it exits after its one test or its time limit."""
    if pair.server.startswith("host:"):
        netns = lay.physical(pair.server.split(":", 1)[1]).netns
        proc = subprocess.Popen(
            ["ip", "netns", "exec", netns, *server_argv(port)],
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
        limit = duration_s + int(iperf3.SERVER_START_TIMEOUT_S) + 30
        s.run(
            f"nohup timeout {limit} {shlex.join(server_argv(port))} > /dev/null 2>&1 < /dev/null &",
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


def as_dicts(rows: list[MatrixRow]) -> list[dict]:
    return [dataclasses.asdict(r) | {"deviation": r.deviation} for r in rows]

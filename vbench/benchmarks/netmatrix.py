"""The iperf3 matrix of a testbed's network (Jeong et al. Figs 4-5): two guests of one physical
host, two guests on different physical hosts, a guest and its own physical host, a guest and a
physical host that holds none of the pair.

A benchmark of the contract (vbench.benchmarks.base; calibration, kind micro) whose pairs come
from the testbed's network layout, not from a host list: the campaign runner hands it the
layout (vbench.campaign.measure), and `vbench testbed netmatrix` prints it as a table. Each pair is
one run; its samples say which pair (`pair`, Jeong's notation in `jeong_label`) and which way the
data went (`direction`: the guest sends, or receives with `reverse`), and carry `size`, the pair
and direction, so the statistics never pool two pairs.

Everything here is pure: `pairs` (which pairs, which address each client uses), the parsers and
the table. vbench.benchmarks.netmatrix_measure runs the pairs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import Field, model_validator

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.micro import iperf3
from vbench.benchmarks.micro._common import one_step, sample
from vbench.errors import ParamsError
from vbench.samples import Sample

if TYPE_CHECKING:  # the registry, and with it the statistics, import this module: not the testbed
    from vbench.testbed.physnet import NetLayout

NAME = "netmatrix"
METRICS = {
    "throughput_mean": "Mbit/s",  # the receiver's mean over the test (after the omitted seconds)
    "rtt_mean": "ms",  # the sender's mean TCP round-trip time
    "retransmits": "count",
}

SAME = "same-physical-host"
CROSS = "across-physical-hosts"
GUEST_HOST = "guest-to-its-host"
OTHER_HOST = "guest-to-other-host"  # Jeong's VM11-PM: a physical machine that hosts no guest of the pair
KINDS = (SAME, CROSS, GUEST_HOST, OTHER_HOST)
#: Jeong et al.'s names for the pairs (Fig. 4's x-axis).
JEONG_LABELS = {SAME: "VM11-VM12", GUEST_HOST: "VM11-HM1", OTHER_HOST: "VM11-PM", CROSS: "VM11-VM21"}
SEND, RECEIVE = "send", "receive"


class NetmatrixConfig(BenchConfig):
    duration_s: int = Field(5, ge=1, le=3600)
    omit_s: int = Field(1, ge=0)  # -O: leading seconds left out of the mean (TCP slow start)
    port: int = Field(5211, ge=1, le=65535)
    #: Jeong et al.'s "receive": the pair's server sends, the guest receives (iperf3 -R).
    reverse: bool = False

    @model_validator(mode="after")
    def _omit_within_the_run(self) -> "NetmatrixConfig":
        if self.omit_s >= self.duration_s:
            raise ParamsError("omit_s", f"must be below duration_s = {self.duration_s}, got {self.omit_s}")
        return self

    def iperf3(self, server: str = "127.0.0.1") -> iperf3.Iperf3Config:
        """The one iperf3 test of a pair, its client connecting to `server`."""
        return iperf3.Iperf3Config(
            server=server, port=self.port, duration_s=self.duration_s, omit_s=self.omit_s, reverse=self.reverse
        )


Config = NetmatrixConfig
PRESETS = {
    # Jeong et al. ran iperf at its defaults (10 s), 5 times; the blocks of a design repeat it.
    "jeong2017": NetmatrixConfig(duration_s=10, omit_s=1),
}


def direction(cfg: NetmatrixConfig) -> str:
    return RECEIVE if cfg.reverse else SEND


def cell_label(kind: str, way: str) -> str:
    """The statistics' cell (`size`) of a pair's samples: the pair and the direction (no ", ":
    the statistics append the cell's varied parameters after one, vbench.stats.tidy.size_key)."""
    return f"{kind}/{way}"


@dataclass(frozen=True)
class _Reading:
    throughput_mbit: float
    rtt_ms: float | None
    retransmits: int | None
    source: str


def _read(text: str, cfg: NetmatrixConfig) -> _Reading:
    """What one pair's `iperf3 -J` printed: the receiver's mean (iperf3.parse_stdout), the
    sender's mean RTT and retransmits where the client sent, and the client's address on the
    connection."""
    mean = next(s.value for s in iperf3.parse_stdout(text, cfg.iperf3()) if s.metric == "throughput_mean")
    doc = iperf3._load(text)
    connected = (doc.get("start", {}).get("connected") or [{}])[0]
    streams = doc.get("end", {}).get("streams") or []
    rtts = [s["sender"]["mean_rtt"] for s in streams if "mean_rtt" in s.get("sender", {})]
    retr = doc.get("end", {}).get("sum_sent", {}).get("retransmits")
    if cfg.reverse:
        # The sender is the server: the client's JSON carries zeros for its RTT and retransmits,
        # not its values. Unknown, so not reported.
        rtts, retr = [], None
    return _Reading(
        throughput_mbit=mean,
        rtt_ms=sum(rtts) / len(rtts) / 1000 if rtts else None,  # iperf3 reports microseconds
        retransmits=retr,
        source=str(connected.get("local_host", "?")),
    )


def parse_stdout(text: str, cfg: NetmatrixConfig) -> list[Sample]:
    """One pair's samples from its client's `iperf3 -J` output (the pair is stamped by the caller)."""
    r = _read(text, cfg)
    meta = {"direction": direction(cfg)}
    out = [sample(NAME, "throughput_mean", r.throughput_mbit, "Mbit/s", cfg, **meta)]
    if r.rtt_ms is not None:
        out.append(sample(NAME, "rtt_mean", r.rtt_ms, "ms", cfg, **meta))
    if r.retransmits is not None:
        out.append(sample(NAME, "retransmits", r.retransmits, "count", cfg, **meta))
    return out


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


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
    from vbench.testbed.physnet import hosts_view  # the testbed package brings SSH (see the imports)

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


def parse_row(
    text: str, pair: Pair, lay: NetLayout, vms_per_host: int, cfg: NetmatrixConfig | None = None
) -> MatrixRow:
    """A row of `vbench testbed netmatrix`'s table from the client's `iperf3 -J` output."""
    r = _read(text, cfg or NetmatrixConfig())
    return MatrixRow(
        mode=lay.mode,
        vms_per_host=vms_per_host,
        kind=pair.kind,
        client=pair.client,
        server=pair.server,
        target=pair.target,
        source=r.source,
        throughput_mbit=round(r.throughput_mbit, 1),
        rtt_ms=round(r.rtt_ms, 3) if r.rtt_ms is not None else None,
        retransmits=r.retransmits,
        configured_mbit=lay.rate_mbit if pair.shaped else None,
    )


def pair_samples(text: str, pair: Pair, lay: NetLayout, cfg: NetmatrixConfig) -> list[Sample]:
    """One pair's samples as a campaign stores them: which pair, its ends, its cell, the shaped
    rate it crosses (None where the path is not shaped)."""
    meta = {
        "pair": pair.kind,
        "jeong_label": JEONG_LABELS[pair.kind],
        "client": pair.client,
        "server": pair.server,
        "target": pair.target,
        "size": cell_label(pair.kind, direction(cfg)),
        "configured_mbit": lay.rate_mbit if pair.shaped else None,
    }
    return [s.with_metadata(**meta) for s in parse_stdout(text, cfg)]


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


def as_dicts(rows: list[MatrixRow]) -> list[dict]:
    return [dataclasses.asdict(r) | {"deviation": r.deviation} for r in rows]

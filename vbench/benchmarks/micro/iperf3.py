"""iperf3: TCP throughput per second between two hosts (Vasconcelos Table 4, Jeong Figs 4-5).

Vasconcelos & Freitas report a 10 s run second by second; Jeong et al. measure the
VM-VM / VM-host / VM-other-host matrix, sending and receiving (`reverse`).

`command` is the client side; the caller starts `server_command` on the other host first
(one-off, `-1`, so it exits by itself after one test), and `wait_until_listening` there
before it starts the client.
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Callable

from vbench.errors import JobFailed
from vbench.samples import Sample

from ._common import RUN_KWARGS, Runner, execute, require_bool, require_host, require_int, sample

NAME = "iperf3"
#: How long a server may take to listen once started: a software-emulated VM takes seconds to
#: start a process, and each check is an SSH round trip.
SERVER_START_TIMEOUT_S = 30.0
#: Seconds between two checks.
SERVER_POLL_S = 0.2
METRICS = {
    "throughput": "Mbit/s",  # one per reporting interval, metadata interval = 1, 2, ...
    "throughput_mean": "Mbit/s",  # the receiver's total over the whole test
    "retransmits": "count",
    "cpu_host": "%",
    "cpu_remote": "%",
}


@dataclass(frozen=True)
class Iperf3Config:
    server: str = "127.0.0.1"  # address the client connects to
    port: int = 5201
    duration_s: int = 10  # Vasconcelos & Freitas: a 10 s run, reported per second
    interval_s: int = 1
    parallel: int = 1  # -P streams
    reverse: bool = False  # -R: server sends, client receives (Jeong et al.'s "receive")
    omit_s: int = 0  # -O: leading seconds left out of the mean (TCP slow start)
    server_bind: str | None = None  # -B on the server; None: all addresses
    connect_timeout_ms: int = 5000  # a missing server fails fast instead of hanging a campaign

    def __post_init__(self) -> None:
        require_host("server", self.server)
        require_int("port", self.port, maximum=65535)
        require_int("duration_s", self.duration_s, maximum=86400)
        require_int("interval_s", self.interval_s, maximum=self.duration_s)
        require_int("parallel", self.parallel, maximum=128)
        require_bool("reverse", self.reverse)
        require_int("omit_s", self.omit_s, minimum=0, maximum=self.duration_s)
        if self.server_bind is not None:
            require_host("server_bind", self.server_bind)
        require_int("connect_timeout_ms", self.connect_timeout_ms)

    @classmethod
    def vasconcelos(cls, server: str) -> "Iperf3Config":
        """Table 4: one 10 s TCP run, bandwidth each second."""
        return cls(server=server, duration_s=10, interval_s=1)


#: The registry and `vbench bench list` find every module's config under this name.
Config = Iperf3Config


def server_command(cfg: Iperf3Config) -> str:
    bind = f" -B {cfg.server_bind}" if cfg.server_bind else ""
    return f"iperf3 -s -1 -p {cfg.port}{bind}"


def listening_command(port: int) -> str:
    """Lists the TCP sockets listening on `port` on the host it runs on; nothing while none is."""
    return f"ss -Hltn 'sport = :{port}'"


def is_listening(ss_output: str, port: int) -> bool:
    """Whether `listening_command(port)`'s output shows a listening socket on `port`."""
    for line in ss_output.splitlines():
        fields = line.split()  # state, recv-q, send-q, local address:port, peer address:port
        if len(fields) >= 4 and fields[0] == "LISTEN" and fields[3].endswith(f":{port}"):
            return True
    return False


def wait_until_listening(c: Runner, port: int, where: str, timeout_s: float | None = None,
                         poll_s: float | None = None, *, clock: Callable[[], float] = time.monotonic,
                         sleep: Callable[[float], None] = time.sleep) -> float:
    """Check on the server's host `c` until something listens on TCP `port`; the seconds it took.

    Asked of the server's host, not tried by connecting: a one-off server (-s -1) would take a
    test connection for its one client and exit. `where` names the host in the error."""
    timeout_s = SERVER_START_TIMEOUT_S if timeout_s is None else timeout_s
    poll_s = SERVER_POLL_S if poll_s is None else poll_s
    start = clock()
    while True:
        probe = c.run(listening_command(port), **RUN_KWARGS)
        if is_listening(probe.stdout or "", port):
            return clock() - start
        if clock() - start >= timeout_s:
            raise JobFailed(f"iperf3: the server on {where} is not listening on TCP port {port} after {timeout_s:g} s"
                            + _probe_complaint(probe))
        sleep(poll_s)


def _probe_complaint(probe) -> str:
    """Why the check itself failed (ss missing, say), as a suffix for the error; "" if it ran."""
    said = (probe.stderr or "").strip()
    return f" (ss: {said.splitlines()[-1][:200]})" if said else ""


def command(cfg: Iperf3Config, workdir: str = "") -> str:
    # workdir is unused (nothing is written), kept so every module has the same signature.
    args = [
        f"iperf3 -c {cfg.server} -p {cfg.port} -t {cfg.duration_s} -i {cfg.interval_s} -J",
        f"--connect-timeout {cfg.connect_timeout_ms}",
    ]
    if cfg.parallel > 1:
        args.append(f"-P {cfg.parallel}")
    if cfg.reverse:
        args.append("-R")
    if cfg.omit_s:
        args.append(f"-O {cfg.omit_s}")
    return " ".join(args)


def _load(text: str) -> dict:
    m = re.search(r"^\{", text or "", re.M)
    if not m:
        raise JobFailed("iperf3: no JSON document in output")
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[m.start():])
    except json.JSONDecodeError as exc:
        raise JobFailed(f"iperf3: invalid JSON output: {exc}") from None
    if not isinstance(doc, dict):
        raise JobFailed("iperf3: JSON output is not an object")
    if doc.get("error"):
        raise JobFailed(f"iperf3: {doc['error']}")
    return doc


def parse(text: str, cfg: Iperf3Config) -> list[Sample]:
    doc = _load(text)
    try:
        intervals = [i["sum"] for i in doc["intervals"] if not i["sum"].get("omitted")]
        end = doc["end"]
        received = end["sum_received"]
    except (KeyError, TypeError) as exc:
        raise JobFailed(f"iperf3: unexpected JSON layout: missing {exc}") from None
    # iperf3 sometimes closes with a sliver of an interval (10.00-10.04 s); its rate is
    # noise, so only intervals at least half the requested length count.
    kept = [s for s in intervals if s["seconds"] >= cfg.interval_s / 2]
    if not kept:
        raise JobFailed("iperf3: no complete reporting interval in output")
    samples = [
        sample(
            NAME, "throughput", s["bits_per_second"] / 1e6, "Mbit/s", cfg,
            interval=k, start=s["start"], end=s["end"], sender=s.get("sender", not cfg.reverse),
        )
        for k, s in enumerate(kept, start=1)
    ]
    meta = {"intervals": len(kept), "intervals_dropped": len(intervals) - len(kept)}
    samples.append(sample(NAME, "throughput_mean", received["bits_per_second"] / 1e6, "Mbit/s", cfg, **meta))
    if "retransmits" in end.get("sum_sent", {}):
        samples.append(sample(NAME, "retransmits", end["sum_sent"]["retransmits"], "count", cfg))
    cpu = end.get("cpu_utilization_percent", {})
    for key, metric in (("host_total", "cpu_host"), ("remote_total", "cpu_remote")):
        if key in cpu:
            samples.append(sample(NAME, metric, cpu[key], "%", cfg))
    return samples


def run(c: Runner, cfg: Iperf3Config, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)

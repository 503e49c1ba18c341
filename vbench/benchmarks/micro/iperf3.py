"""iperf3: TCP throughput per second between two hosts (Vasconcelos Table 4, Jeong Figs 4-5).

Vasconcelos & Freitas report a 10 s run second by second; Jeong et al. measure the
VM-VM / VM-host / VM-other-host matrix, sending and receiving (`reverse`).

`command` (`argv`) is the client side; the caller starts `server_command` on the other host first
(one-off, `-1`, so it exits by itself after one test), and `wait_until_listening` there
before it starts the client.
"""

from __future__ import annotations

import shlex
import time
from typing import Callable

from pydantic import Field, field_validator, model_validator

from vbench.benchmarks.base import BenchConfig, host_name
from vbench.errors import JobFailed, ParamsError
from vbench.samples import Sample

from ._common import Runner, execute, json_document, one_step, sample
from ._common import wait_until_listening as _wait

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


class Iperf3Config(BenchConfig):
    server: str = "127.0.0.1"  # address the client connects to
    port: int = Field(5201, ge=1, le=65535)
    duration_s: int = Field(10, ge=1, le=86400)  # Vasconcelos & Freitas: a 10 s run, reported per second
    interval_s: int = Field(1, ge=1)
    parallel: int = Field(1, ge=1, le=128)  # -P streams
    reverse: bool = False  # -R: server sends, client receives (Jeong et al.'s "receive")
    omit_s: int = Field(0, ge=0)  # -O: leading seconds left out of the mean (TCP slow start)
    server_bind: str | None = None  # -B on the server; None: all addresses
    connect_timeout_ms: int = Field(5000, ge=1)  # a missing server fails fast instead of hanging a campaign

    @field_validator("server", "server_bind")
    @classmethod
    def _host(cls, v: str | None) -> str | None:
        return v if v is None else host_name(v)

    @model_validator(mode="after")
    def _within_the_run(self) -> "Iperf3Config":
        # Bounds that depend on another field: pydantic's Field cannot say them.
        for name in ("interval_s", "omit_s"):
            if getattr(self, name) > self.duration_s:
                raise ParamsError(name, f"must be at most duration_s = {self.duration_s}, got {getattr(self, name)}")
        return self


#: The registry and `vbench bench list` find every module's config under this name.
Config = Iperf3Config
PRESETS = {
    # Table 4: one 10 s TCP run, bandwidth each second (the runner names the server).
    "vasconcelos": Iperf3Config(duration_s=10, interval_s=1),
}


def server_argv(cfg: Iperf3Config) -> list[str]:
    bind = ["-B", cfg.server_bind] if cfg.server_bind else []
    return ["iperf3", "-s", "-1", "-p", str(cfg.port), *bind]


def server_command(cfg: Iperf3Config) -> str:
    return shlex.join(server_argv(cfg))


def wait_until_listening(
    c: Runner,
    port: int,
    where: str,
    timeout_s: float | None = None,
    poll_s: float | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> float:
    """The iperf3 server's wait (vbench.benchmarks.micro._common.wait_until_listening), with this
    module's timeout and poll interval. A one-off server (-s -1) would take a test connection
    for its one client and exit, which is why the server's host is asked instead."""
    return _wait(
        c,
        port,
        where,
        NAME,
        SERVER_START_TIMEOUT_S if timeout_s is None else timeout_s,
        SERVER_POLL_S if poll_s is None else poll_s,
        clock=clock,
        sleep=sleep,
    )


def argv(cfg: Iperf3Config, workdir: str = "") -> list[str]:
    # workdir is unused (nothing is written), kept so every module has the same signature.
    args = ["iperf3", "-c", cfg.server, "-p", str(cfg.port), "-t", str(cfg.duration_s), "-i", str(cfg.interval_s)]
    args += ["-J", "--connect-timeout", str(cfg.connect_timeout_ms)]
    if cfg.parallel > 1:
        args += ["-P", str(cfg.parallel)]
    if cfg.reverse:
        args.append("-R")
    if cfg.omit_s:
        args += ["-O", str(cfg.omit_s)]
    return args


def command(cfg: Iperf3Config, workdir: str = "") -> str:
    return shlex.join(argv(cfg, workdir))


def _load(text: str) -> dict:
    doc = json_document("iperf3", text)
    if not isinstance(doc, dict):
        raise JobFailed("iperf3: JSON output is not an object")
    if doc.get("error"):
        raise JobFailed(f"iperf3: {doc['error']}")
    return doc


def parse_stdout(text: str, cfg: Iperf3Config) -> list[Sample]:
    try:
        return _samples(_load(text), cfg)
    except (KeyError, TypeError) as exc:  # a key garbled anywhere in the report (found by fuzzing)
        raise JobFailed(f"iperf3: unexpected JSON layout: missing {exc}") from None


def _samples(doc: dict, cfg: Iperf3Config) -> list[Sample]:
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
            NAME,
            "throughput",
            s["bits_per_second"] / 1e6,
            "Mbit/s",
            cfg,
            interval=k,
            start=s["start"],
            end=s["end"],
            sender=s.get("sender", not cfg.reverse),
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


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: Iperf3Config, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)

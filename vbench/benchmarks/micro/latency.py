"""latency: TCP request/response round trips between two hosts (mean, median, 99th percentile).

Hadoop's RPC-bound phases (job start-up, heartbeats, NNBench's metadata operations) wait on
round trips, and that is where a virtualisation layer's network path costs most (Felter et al.,
IBM 2015: KVM adds ~30 us per round trip); iperf3 measures bulk throughput, not this. A client
sends `message_bytes` and waits for the server to send them back, over one TCP connection
(Nagle off), for `duration_s` after `warmup_s`; every round trip is timed.

The tool is fio's `net` engine in ping-pong mode (Debian's fio, already on every host and in the
guest image), whose total latency of a write is the round trip; `--lat_percentiles` gives its
percentiles (fio's histogram: within ~1.6 % of the exact value). sockperf (Debian's 3.7) was
tried first and gives the same figures between native hosts (here 5.7 vs 5.9 us mean), but its
TCP server answers with sendto() to an address recvfrom() never filled, which Linux ignores and
gVisor's network stack refuses (EAFNOSUPPORT), so no pair with a gVisor server could be
measured; qperf serves under gVisor but reports only the mean.

`command` (`argv`) is the client side; the caller starts `server_command` on the other host
first (it serves one client and exits), waits until it listens (`_common.wait_until_listening`),
and stops it with `server_stop_line` if it is still there afterwards.
"""

from __future__ import annotations

import os
import shlex

from pydantic import Field, field_validator

from vbench.benchmarks.base import BenchConfig, host_name
from vbench.errors import JobFailed
from vbench.samples import Sample

from ._common import RUN_KWARGS, Runner, check, one_step, sample
from .fio import load_json

NAME = "latency"
METRICS = {
    "rtt_mean": "us",
    "rtt_p50": "us",
    "rtt_p99": "us",
    "round_trips": "count",  # how many round trips the figures are from
}
#: fio's job names: the client's is what the parser reads; the server's is how its process is known.
CLIENT_JOB = "latency"
SERVER_JOB = "vbench-latency-server"
#: How long a server may take to listen once started (a JVM-free fio starts in well under a
#: second, but a software-emulated VM or a loaded gVisor sandbox is slower), and how often to look.
SERVER_START_TIMEOUT_S = 30.0
SERVER_POLL_S = 0.2
#: Request size: the message fio's net engine reads in one go is at most this large.
MAX_MESSAGE_BYTES = 65536


class LatencyConfig(BenchConfig):
    server: str = "127.0.0.1"  # address the client connects to (the runner sets the pair's server)
    port: int = Field(8765, ge=1, le=65535)
    message_bytes: int = Field(64, ge=1, le=MAX_MESSAGE_BYTES)  # request and response size
    duration_s: int = Field(5, ge=1, le=86400)  # round trips counted for this long
    warmup_s: int = Field(1, ge=0, le=3600)  # round trips before the count (fio's ramp_time)

    @field_validator("server")
    @classmethod
    def _host(cls, v: str) -> str:
        return host_name(v)


#: The registry and `vbench bench list` find every module's config under this name.
Config = LatencyConfig
PRESETS = {
    # Longer, for the tail: a 99th percentile from ~10^5 round trips rather than ~10^4.
    "tail": LatencyConfig(duration_s=30, warmup_s=2),
}


def _endpoint(cfg: LatencyConfig, job: str) -> list[str]:
    """The options that tell one side's fio apart from any other (server_stop_line looks for them)."""
    return [f"--name={job}", "--ioengine=net", "--protocol=tcp", f"--port={cfg.port}"]


def _job(cfg: LatencyConfig, job: str, *side: str) -> list[str]:
    """fio's options for one side of the ping-pong (size: the data a job may move; the client's
    time_based loops over it until its time is up)."""
    return [*_endpoint(cfg, job), f"--bs={cfg.message_bytes}", "--size=1G", "--pingpong=1", *side]


def server_argv(cfg: LatencyConfig) -> list[str]:
    """The server: reads each request and sends it back, for one client, then exits."""
    return ["fio", *_job(cfg, SERVER_JOB, "--listen", "--rw=read")]


def server_command(cfg: LatencyConfig) -> str:
    return shlex.join(server_argv(cfg))


def server_start_line(cfg: LatencyConfig) -> str:
    """Starts the server in the background, bounded in time even if no client ever comes, and
    prints its pid (that of `timeout`, which passes a TERM on to fio)."""
    limit = int(cfg.warmup_s + cfg.duration_s + SERVER_START_TIMEOUT_S) + 30
    return f"nohup timeout {limit} {server_command(cfg)} > /dev/null 2>&1 < /dev/null & echo $!"


def server_stop_line(pid: int, cfg: LatencyConfig) -> str:
    """Stops the server started by `server_start_line` if it has not exited yet, and only if pid
    `pid` is still that server (a pid is reused once its process has gone)."""
    mine = shlex.quote(" ".join(_endpoint(cfg, SERVER_JOB)))
    return (
        f"tr '\\0' ' ' < /proc/{int(pid)}/cmdline 2>/dev/null | grep -qF -- {mine} && kill {int(pid)} 2>/dev/null; true"
    )


def argv(cfg: LatencyConfig, workdir: str = "") -> list[str]:
    """The client's fio (the server's: `server_argv`)."""
    # workdir is unused (nothing is written), kept so every module has the same signature.
    client = _job(cfg, CLIENT_JOB, f"--hostname={cfg.server}", "--rw=write")
    timing = ["--time_based", f"--runtime={cfg.duration_s}", f"--ramp_time={cfg.warmup_s}"]
    return ["fio", "--output-format=json", *client, *timing, "--lat_percentiles=1", "--percentile_list=50:99"]


def command(cfg: LatencyConfig, workdir: str = "") -> str:
    """The client's fio bounded in time (`timeout`, then KILL 5 s later; see CLIENT_GRACE_S)."""
    return f"timeout -k 5 {client_limit_s(cfg)} {shlex.join(argv(cfg, workdir))}"


def _client_job(doc: dict) -> dict:
    job = next((j for j in doc["jobs"] if j.get("jobname") == CLIENT_JOB), None)
    if job is None:
        raise JobFailed(f"fio: job {CLIENT_JOB!r} missing from output")
    return job


def client_error(text: str, cfg: LatencyConfig) -> str | None:
    """Why the client failed, as fio's JSON says (error 111: nobody listening), or None."""
    try:
        err = int(_client_job(load_json(text)).get("error") or 0)
    except (JobFailed, TypeError, ValueError):
        return None
    if not err:
        return None
    return f"latency: the client failed with error {err} ({os.strerror(err)}) talking to {cfg.server}:{cfg.port}"


def parse_stdout(text: str, cfg: LatencyConfig) -> list[Sample]:
    doc = load_json(text)
    job = _client_job(doc)
    failed = client_error(text, cfg)
    if failed:
        raise JobFailed(failed)
    try:
        lat = job["write"]["lat_ns"]
        n, mean = int(lat["N"]), float(lat["mean"])
        pct = lat["percentile"]
        p50, p99 = float(pct["50.000000"]), float(pct["99.000000"])
    except (KeyError, TypeError, ValueError) as exc:
        raise JobFailed(f"latency: unexpected fio JSON layout: missing {exc}") from None
    if n == 0:
        raise JobFailed(f"latency: no round trip completed with {cfg.server}:{cfg.port}")
    meta = {
        "fio_version": doc.get("fio version", ""),
        "round_trip_min_us": lat.get("min", 0) / 1000,
        "round_trip_max_us": lat.get("max", 0) / 1000,
        "measured_ms": job.get("job_runtime"),
    }
    return [
        sample(NAME, "rtt_mean", mean / 1000, "us", cfg, **meta),
        sample(NAME, "rtt_p50", p50 / 1000, "us", cfg, **meta),
        sample(NAME, "rtt_p99", p99 / 1000, "us", cfg, **meta),
        sample(NAME, "round_trips", n, "count", cfg, **meta),
    ]


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


#: How long past its warm-up and count a client may run before it is stopped: a connection the
#: stack never completes (gVisor's host network, 2026-11-24) must fail the pair, not hang the campaign.
CLIENT_GRACE_S = 30
#: `timeout`'s exit code when it stopped the command.
TIMED_OUT = 124


def client_limit_s(cfg: LatencyConfig) -> int:
    """How long the client may run in all."""
    return cfg.warmup_s + cfg.duration_s + CLIENT_GRACE_S


def run(c: Runner, cfg: LatencyConfig, workdir: str = "") -> tuple[list[Sample], str]:
    """The client side, against a server already listening on `cfg.server`."""
    cmd = command(cfg, workdir)
    result = c.run(cmd, **RUN_KWARGS)
    if result.exited == TIMED_OUT:
        raise JobFailed(
            f"latency: the client talking to {cfg.server}:{cfg.port} did not finish within {client_limit_s(cfg)} s"
        )
    failed = client_error(result.stdout or "", cfg) if result.exited != 0 else None
    if failed:
        # fio exits 1 when it cannot connect and says why in its JSON (error 111), not in its
        # last line, which is the JSON's closing brace.
        raise JobFailed(f"{failed} (fio exited {result.exited})")
    return check(NAME, cmd, result, parse, cfg)

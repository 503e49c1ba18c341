"""Shared plumbing for the micro-benchmark modules: the run wrapper and sample stamping.

Configs validate themselves (vbench.benchmarks.base.BenchConfig: pydantic field constraints).

Every module keeps `command` (and `argv`, where it has one) and `parse` pure; only `run` touches
a host, and it does so through `c.run(cmd, hide=True, warn=True, in_stream=False)`, so a fabric
`Connection` and a local `invoke.Context` are interchangeable.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, Callable, Protocol

from vbench.benchmarks.base import Outputs, Parse, StepOutput, fields_of
from vbench.errors import JobFailed
from vbench.samples import Sample

#: How much of a failing tool's output goes into the error (and so into the Failure record).
TAIL_LINES = 20

#: How every module calls `c.run`. in_stream=False: a benchmark reads nothing, and invoke
#: would otherwise forward our stdin, which fails under pytest/CI with no usable stdin.
RUN_KWARGS = {"hide": True, "warn": True, "in_stream": False}


class Runner(Protocol):
    """The slice of invoke's `Context`/fabric's `Connection` the modules rely on."""

    def run(self, command: str, **kwargs: Any) -> Any: ...


def following_java_home(cfg: Any, java_home: str) -> Any:
    """A JVM micro-benchmark's config that runs the cluster's java (`java_home`: the configuration's
    `hadoop.java_home`, the image's JDK on native hosts under `hadoop.jdk: image`), unless the
    design named a java_home of its own (one other than the default). Other configs as they are. Pure."""
    own = getattr(cfg, "java_home", None)
    if own is None or own == java_home or own != type(cfg).model_fields["java_home"].default:
        return cfg
    return cfg.model_copy(update={"java_home": java_home})


def params(cfg: Any) -> dict[str, Any]:
    """The config as plain data, stamped into every sample so a value explains itself."""
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in fields_of(cfg).items()}


def one_step(name: str, parse_stdout: Callable[[str, Any], list[Sample]]) -> Parse:
    """The contract's `parse(outputs, cfg)` of a micro benchmark (vbench.benchmarks.base): one step,
    named after the benchmark, whose stdout `parse_stdout` reads."""

    def parse(outputs: Outputs, cfg: Any) -> list[Sample]:
        return parse_stdout(outputs[name].stdout, cfg)

    return parse


def tail(text: str, lines: int = TAIL_LINES) -> str:
    return "\n".join((text or "").strip().splitlines()[-lines:])


def sample(benchmark: str, metric: str, value: float, unit: str, cfg: Any, **meta: Any) -> Sample:
    return Sample(benchmark, metric, value, unit, metadata={**params(cfg), **meta})


def number(name: str, text: str) -> float:
    """float(text), but a parse failure is a JobFailed naming what was being read."""
    try:
        return float(text)
    except (TypeError, ValueError):
        raise JobFailed(f"{name}: expected a number, got {text!r}") from None


def json_document(tool: str, text: str) -> dict:
    """The JSON object in `tool`'s output, read from the first line that opens one: a tool may
    print notes before it (fio does). JobFailed, naming `tool`, when there is none or it is not
    valid JSON; what the object must hold is the caller's to check."""
    m = re.search(r"^\{", text or "", re.M)
    if not m:
        raise JobFailed(f"{tool}: no JSON document in output")
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[m.start() :])
    except json.JSONDecodeError as exc:
        raise JobFailed(f"{tool}: invalid JSON output: {exc}") from None
    return doc


def execute(c: Runner, benchmark: str, cmd: str, parse: Parse, cfg: Any) -> tuple[list[Sample], str]:
    """Run `cmd`, parse its output; a non-zero exit or unparseable output becomes JobFailed."""
    return check(benchmark, cmd, c.run(cmd, **RUN_KWARGS), parse, cfg)


def check(benchmark: str, cmd: str, result: Any, parse: Parse, cfg: Any) -> tuple[list[Sample], str]:
    """Judge a finished run (anything with invoke's Result fields) and parse its output: one step,
    named after the benchmark (the contract's one parse signature, vbench.benchmarks.base)."""
    stdout, stderr = result.stdout or "", result.stderr or ""
    if result.exited != 0:
        # Some tools (iperf3 -J) report their error on stdout; show whichever has something.
        raise JobFailed(f"{benchmark}: command exited {result.exited}: {cmd}\n{tail(stderr) or tail(stdout)}")
    try:
        samples = parse({benchmark: StepOutput(stdout, stderr, 0.0)}, cfg)
    except JobFailed as exc:
        raise JobFailed(f"{exc}\n{tail(stderr)}".rstrip()) from None
    return samples, stdout


# -- a server on another host (iperf3, latency): is it listening yet? -----------------------------
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


def wait_until_listening(
    c: Runner,
    port: int,
    where: str,
    tool: str,
    timeout_s: float,
    poll_s: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> float:
    """Check on the server's host `c` until something listens on TCP `port`; the seconds it took.

    Asked of the server's host, not tried by connecting: a server made for one client would
    take the test connection for it. `where` names the host, `tool` the benchmark, in the error."""
    start = clock()
    while True:
        probe = c.run(listening_command(port), **RUN_KWARGS)
        if is_listening(probe.stdout or "", port):
            return clock() - start
        if clock() - start >= timeout_s:
            raise JobFailed(
                f"{tool}: the server on {where} is not listening on TCP port {port} after {timeout_s:g} s"
                + _probe_complaint(probe)
            )
        sleep(poll_s)


def _probe_complaint(probe) -> str:
    """Why the check itself failed (ss missing, say), as a suffix for the error; "" if it ran."""
    said = (probe.stderr or "").strip()
    return f" (ss: {said.splitlines()[-1][:200]})" if said else ""

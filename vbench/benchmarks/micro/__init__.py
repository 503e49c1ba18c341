"""Micro-benchmarks: one module per tool, all of one shape.

Each module keeps the benchmark contract (vbench.benchmarks.base): `NAME`, `METRICS` (metric ->
unit), a `Config` (a frozen pydantic model whose fields carry their constraints), `PRESETS` (the
studies' settings by name), and three functions: `command(cfg, workdir) -> str` and
`parse(outputs, cfg) -> list[Sample]` (the contract's signature: one output, named after the
benchmark; `parse_stdout(text, cfg)` reads its stdout), both pure, and `run(c, cfg, workdir) -> (samples, raw_output)`, which executes through anything
with invoke's `Context.run` (a fabric `Connection`, or `invoke.Context()` locally) and
raises `vbench.errors.JobFailed` on a non-zero exit or unparseable output. `workdir` must
exist; the modules that write leave nothing behind in it. Where the tool is one process (cpu,
membw, iperf3, latency, bonnie, fio), a pure `argv(cfg, workdir) -> list[str]` is its argument
vector and `command` is built from it (vbench.benchmarks.base says why the others are scripts).
"""

from __future__ import annotations

from types import ModuleType

from . import (
    bonnie,
    cpu,
    dd,
    fileopen,
    fio,
    hdparm,
    iperf3,
    jvmcpu,
    jvmstart,
    latency,
    membw,
    pagefault,
    pi_digits,
    rpc,
    spawn,
    syscall,
)

MICRO_BENCHMARKS: dict[str, ModuleType] = {
    m.NAME: m
    for m in (
        fio,
        dd,
        hdparm,
        bonnie,
        iperf3,
        latency,
        cpu,
        pi_digits,
        membw,
        syscall,
        spawn,
        jvmstart,
        fileopen,
        pagefault,
        rpc,
        jvmcpu,
    )
}

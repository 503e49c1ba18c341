"""Micro-benchmarks: one module per tool, all of one shape.

Each module has `NAME`, `METRICS` (metric -> unit), a frozen validated config dataclass
(also bound to `Config`, with classmethod presets for the studies' scale) and three
functions: `command(cfg, workdir) -> str` and `parse(text, cfg) -> list[Sample]`, both
pure, and `run(c, cfg, workdir) -> (samples, raw_output)`, which executes through anything
with invoke's `Context.run` (a fabric `Connection`, or `invoke.Context()` locally) and
raises `vbench.errors.JobFailed` on a non-zero exit or unparseable output. `workdir` must
exist; the modules that write leave nothing behind in it.
"""
from __future__ import annotations

import dataclasses
from types import ModuleType
from typing import Any

from . import bonnie, cpu, dd, fio, hdparm, iperf3, membw, pi_digits

MICRO_BENCHMARKS: dict[str, ModuleType] = {
    m.NAME: m for m in (fio, dd, hdparm, bonnie, iperf3, cpu, pi_digits, membw)
}


def describe() -> list[dict[str, Any]]:
    """Name, summary, config fields with defaults, and metrics with units, per benchmark."""
    out = []
    for name, module in MICRO_BENCHMARKS.items():
        config = module.Config
        defaults = config()
        out.append(
            {
                "name": name,
                "summary": (module.__doc__ or "").strip().splitlines()[0],
                "config": config.__name__,
                "fields": [
                    {"name": f.name, "type": str(f.type), "default": getattr(defaults, f.name)}
                    for f in dataclasses.fields(config)
                ],
                "metrics": [{"metric": m, "unit": u} for m, u in module.METRICS.items()],
                "presets": sorted(
                    k for k, v in vars(config).items() if isinstance(v, classmethod)
                ),
            }
        )
    return out

"""The benchmark contract: what every module of vbench.benchmarks.micro and .hadoop provides.

After BenchExec's `BaseTool2`: a benchmark is a module, not a class hierarchy, and the registry
(vbench.benchmarks.registry) checks each module against `Benchmark` when it is loaded, so a
module that breaks the contract fails at import, not hours into a campaign.

* `NAME`: unique across micro and Hadoop benchmarks (the registry refuses a second one).
* `METRICS`: metric -> unit, each unit one of vbench.samples.UNITS.
* `Config`: a `BenchConfig`, a frozen pydantic model whose fields carry their constraints
  (`Field(ge=1)`), so an out-of-range value is refused with the field named in plain English
  (`ParamsError("threads", "must be at least 1, got 0")`) and there are no range checks by hand.
* `PRESETS`: preset name -> Config, the studies' settings (`--preset`, `preset:` in a design).
* `parse(outputs, cfg) -> list[Sample]`: pure, from what the tool printed (`Outputs`: step name ->
  `StepOutput`) to samples. A Hadoop benchmark has several steps (TeraGen, TeraSort,
  TeraValidate); a micro benchmark one, named after it (its module's `parse_stdout(text, cfg)`
  reads that step's stdout).
* `argv(cfg, workdir) -> list[str]`, optional: where a micro benchmark's tool is one process, its
  argument vector, pure, so a test asserts on the options rather than grepping a shell string;
  `command(cfg, workdir)` is then `shlex.join(argv)` plus the environment prefix and clean-up it
  needs. cpu and membw (sysbench), iperf3, latency (fio's client), bonnie (bonnie++) and fio
  have one. The other micro benchmarks' commands are shell scripts by nature:
  - dd: a loop of `dd` runs removing the test file after each, so every repeat writes fresh blocks.
  - hdparm: finds the block device under the work dir (findmnt, then df) before its `hdparm -t` runs.
  - pi_digits: a loop over the sizes that takes the time around each `pi` run and counts its digits.
  - syscall: a loop of `dd bs=1` runs under LC_ALL=C, one summary line each.
  - spawn, jvmstart: a loop of `/bin/true` (a JVM's `-version`) between two `date +%s%N` stamps
    of the same shell; jvmstart first finds the host's java.
  - fileopen: one `cat` of many copies of a file's name, and one of it once, between stamps.
  - pagefault: spawn's timed windows of a dd with a big buffer and of one with a page, alternately.
  - rpc, jvmcpu: find the host's java, write their Java program to the work dir and run it (the
    program times itself), removing it on the way out.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError

from vbench.params import describe_validation_error
from vbench.samples import UNITS, Sample


@dataclass(frozen=True)
class StepOutput:
    """What one step of a benchmark printed, and how long it took."""

    stdout: str
    stderr: str
    seconds: float
    #: What an UploadStep's generator reported (e.g. word count of a corpus).
    info: Mapping[str, object] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.stdout + self.stderr


#: Every step's output by step name: what `parse` reads.
Outputs = Mapping[str, StepOutput]
#: The contract's parser: `parse(outputs, cfg) -> list[Sample]`.
Parse = Callable[[Outputs, Any], list[Sample]]


class BenchConfig(BaseModel):
    """A benchmark's parameters: frozen, no unknown fields, no silent coercion.

    Strict: the old hand-written checks refused True for an integer and "2" for a number, and a
    design's text values are typed by the registry (registry.parse_value) before they get here. No
    infinity or NaN: a float field with no upper bound (pi's max_abs_error) took "1e400" as inf."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            # Callers (design, `vbench bench`, tests) expect the one error type that names the field.
            raise describe_validation_error(exc, model=type(self)) from None


#: Host names and addresses end up inside shell command lines; refusing anything but the
#: characters they can contain is simpler and safer than quoting them everywhere.
_HOST = re.compile(r"[A-Za-z0-9._:%-]+")


def host_name(value: str) -> str:
    """A Config field validator: a host name or IP address, nothing a shell would read otherwise."""
    if not _HOST.fullmatch(value):
        raise ValueError(f"must be a host name or IP address, got {value!r}")
    return value


def replace(cfg: BenchConfig, **changes: Any) -> BenchConfig:
    """A copy of `cfg` with `changes`, validated again (pydantic's model_copy would not)."""
    return type(cfg)(**{**fields_of(cfg), **changes})


def fields_of(cfg: BenchConfig) -> dict[str, Any]:
    """The field values as given (tuples stay tuples), in declaration order."""
    return {name: getattr(cfg, name) for name in type(cfg).model_fields}


@runtime_checkable
class Benchmark(Protocol):
    """What the registry checks a benchmark module against (see the module docstring)."""

    NAME: str
    METRICS: Mapping[str, str]
    Config: type[BenchConfig]
    PRESETS: Mapping[str, BenchConfig]
    parse: Parse


class ContractError(TypeError):
    """A benchmark module that does not keep the contract: a programming error, found at import."""


def check_module(module: ModuleType) -> list[str]:
    """What `module` lacks or gets wrong against the contract (empty: it keeps it)."""
    name = getattr(module, "__name__", repr(module))
    missing = [a for a in ("NAME", "METRICS", "Config", "PRESETS", "parse") if not hasattr(module, a)]
    if missing:
        return [f"{name}: lacks {', '.join(missing)}"]
    problems = []
    if not isinstance(module.NAME, str) or not module.NAME:
        problems.append(f"{name}: NAME must be a non-empty string")
    bad_units = {m: u for m, u in module.METRICS.items() if u not in UNITS}
    if not module.METRICS or bad_units:
        problems.append(f"{name}: METRICS must map metrics to units of vbench.samples.UNITS (bad: {bad_units})")
    config = module.Config
    if not (isinstance(config, type) and issubclass(config, BenchConfig)):
        problems.append(f"{name}: Config must be a vbench.benchmarks.base.BenchConfig")
    else:
        problems += [
            f"{name}: preset {p!r} is not a {config.__name__}"
            for p, c in module.PRESETS.items()
            if type(c) is not config
        ]
    if not callable(module.parse) or list(inspect.signature(module.parse).parameters) != ["outputs", "cfg"]:
        problems.append(f"{name}: parse must be a function parse(outputs, cfg)")
    argv = getattr(module, "argv", None)
    if argv is not None and (not callable(argv) or list(inspect.signature(argv).parameters) != ["cfg", "workdir"]):
        problems.append(f"{name}: argv, where there is one, must be a function argv(cfg, workdir)")
    return problems


def require_contract(modules: list[ModuleType]) -> dict[str, ModuleType]:
    """name -> module for benchmark modules that all keep the contract and whose names are unique."""
    table: dict[str, ModuleType] = {}
    for module in modules:
        problems = check_module(module)
        if problems:
            raise ContractError("; ".join(problems))
        if module.NAME in table:
            raise ContractError(
                f"benchmark name {module.NAME!r} is taken twice: {table[module.NAME].__name__} and {module.__name__}"
            )
        table[module.NAME] = module
    return table

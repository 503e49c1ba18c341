"""An experiment design as data (params/experiments/<name>.yaml) and its expansion into cells.

Factors: the platform, and any benchmark parameter given as a list of levels (e.g. a TeraSort
size sweep). Repetitions form blocks: each block runs every platform once, in a seeded random
order, with the benchmarks in a seeded random order inside each platform, so that slow drift
of the machine spreads over all platforms instead of masquerading as a platform effect
(as ReBench and asv randomise against drift).
"""
from __future__ import annotations

import hashlib
import itertools
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from vbench.benchmarks import registry
from vbench.errors import ParamsError
from vbench.params import PLATFORMS


class BenchmarkSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    benchmark: str
    #: Parameter -> value, or -> list of levels (a factor).
    config: dict[str, Any] = {}
    preset: str | None = None

    @field_validator("benchmark")
    @classmethod
    def _known(cls, v: str) -> str:
        try:
            registry.find(v)
        except ParamsError as exc:  # as ValueError, pydantic adds where in the file it was
            raise ValueError(str(exc).split(": ", 1)[-1]) from None
        return v


class Experiment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    #: Recorded with every sample; a statistics group key.
    experiment: str = "platforms"
    platforms: tuple[str, ...] = ("native",)
    repetitions: int = Field(3, ge=1, le=1000)
    #: Leading blocks marked warm-up: run and stored, excluded by the statistics' rule.
    warmup_blocks: int = Field(0, ge=0)
    seed: int = 20141
    workers: int = Field(2, ge=1, le=64)
    #: Overrides of params/testbed.yaml and params/hadoop.yaml for this experiment.
    testbed: dict[str, Any] = {}
    hadoop: dict[str, Any] = {}
    calibrate: tuple[BenchmarkSpec, ...] = ()
    suite: tuple[BenchmarkSpec, ...] = ()
    #: Stop starting new cells after this many minutes; what is skipped is recorded.
    budget_minutes: float | None = Field(None, gt=0)
    drop_caches: bool = False
    #: Sample CPU, disk and network on every host at this interval (s) during each cell; None: off.
    #: Time series go to <campaign>/timeseries/<cell>.csv (vbench.monitor).
    monitor_interval_s: float | None = Field(None, gt=0)

    @field_validator("platforms")
    @classmethod
    def _platforms(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise ValueError("at least one platform")
        unknown = [p for p in v if p not in PLATFORMS]
        if unknown:
            raise ValueError(f"unknown platform(s) {unknown}; known: {', '.join(PLATFORMS)}")
        return v


@dataclass(frozen=True)
class Variant:
    """One benchmark with every factor fixed to a level."""

    kind: str  # "micro" or "hadoop"
    benchmark: str
    config: Any
    levels: tuple[tuple[str, Any], ...]  # the factor levels that distinguish it

    @property
    def key(self) -> str:
        lv = ",".join(f"{k}={v}" for k, v in self.levels)
        return f"{self.benchmark}[{lv}]" if lv else self.benchmark


@dataclass(frozen=True)
class Cell:
    """The unit of work and of resumption: one variant on one platform in one block."""

    block: int
    platform: str
    variant: Variant
    warmup: bool

    @property
    def cell_id(self) -> str:
        return f"b{self.block}/{self.platform}/{self.variant.key}"


def variants(specs: tuple[BenchmarkSpec, ...]) -> list[Variant]:
    out = []
    for spec in specs:
        kind, module = registry.find(spec.benchmark)
        factors = {k: v for k, v in spec.config.items() if isinstance(v, list)}
        fixed = {k: v for k, v in spec.config.items() if not isinstance(v, list)}
        names = sorted(factors)
        for combo in itertools.product(*(factors[n] for n in names)) if names else [()]:
            values = {**fixed, **dict(zip(names, combo))}
            cfg = registry.make_config(module, {k: _text(v) for k, v in values.items()}, spec.preset)
            out.append(Variant(kind, spec.benchmark, cfg, tuple(zip(names, combo))))
    return out


def _text(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v).lower() if isinstance(v, bool) else str(v)


def expand(exp: Experiment) -> list[Cell]:
    """Every cell of the design in run order: blocks in sequence, platforms and variants shuffled
    within each block by a generator seeded from the experiment's seed and the block number."""
    micro = variants(exp.calibrate)
    hadoop = variants(exp.suite)
    cells = []
    for block in range(exp.repetitions):
        rng = random.Random(f"{exp.seed}:{block}")
        platforms = list(exp.platforms)
        rng.shuffle(platforms)
        for platform in platforms:
            # Calibration first within a platform: it measures the hosts before Hadoop loads them.
            for group in (micro, hadoop):
                order = list(group)
                rng.shuffle(order)
                cells += [Cell(block, platform, v, block < exp.warmup_blocks) for v in order]
    return cells


def design_hash(exp: Experiment) -> str:
    doc = exp.model_dump(mode="json")
    if doc.get("monitor_interval_s") is None:  # designs from before monitoring existed keep their hash
        doc.pop("monitor_interval_s", None)
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:12]


def load_experiment(path: Path) -> Experiment:
    """Validate a preset file; errors name the file and the field."""
    try:
        doc = yaml.safe_load(path.read_text()) or {}
    except FileNotFoundError:
        raise ParamsError(str(path), "no such experiment file") from None
    except yaml.YAMLError as exc:
        raise ParamsError(str(path), f"is not valid YAML: {exc}") from None
    data = doc.get("experiment") if isinstance(doc, dict) else None
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: experiment", "must be a mapping")
    try:
        exp = Experiment.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
        raise ParamsError(f"{path}: experiment.{loc}", err["msg"].removeprefix("Value error, ")) from None
    except ParamsError as exc:
        raise ParamsError(f"{path}: experiment.{exc.field}", str(exc).split(": ", 1)[-1]) from None
    try:
        expand(exp)  # benchmark parameters are checked by building every variant now
    except ParamsError as exc:
        raise ParamsError(f"{path}: experiment.{exc.field}", str(exc).split(": ", 1)[-1]) from None
    return exp

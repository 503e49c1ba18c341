"""An experiment design as data (params/experiments/<name>.yaml) and its expansion into cells.

Factors: the platform; environment factors, i.e. testbed or Hadoop params given as lists of
levels under `factors` (`testbed.network.mode: [bridge, nat]`, `testbed.vms_per_host: [1, 2]`,
`hadoop.replication: [1, 2, 3]`, `hadoop.topology: [flat, rack]`...), each combination with a
platform being a *configuration* with its own testbed and cluster; and any benchmark parameter
given as a list of levels (e.g. a TeraSort size sweep). Repetitions form blocks: each block
runs every configuration once, in a seeded random order, with the benchmarks in a seeded
random order inside each configuration, so that slow drift of the machine spreads over all
configurations instead of masquerading as an effect (as ReBench and asv randomise against drift).

Rounds (issue #18, randomised multiple interleaved trials: Abedi & Brecht, ICPE 2017): with
`rounds: N` > 1 a block holds N rounds, and each round runs every (configuration, benchmark)
cell once in a fresh seeded random order, so that the configurations compared are measured
side by side, minutes apart, on the same cluster instances. With `interleave: concurrent` (the
default) the clusters of every configuration are up together for the whole block (one
*session*); with `interleave: alternating` one configuration is up at a time, a fresh testbed
and cluster per round, in an order that is reversed every other round. Each session's first run
of every benchmark is a warm-up run (JIT, page cache, HDFS placement on a fresh cluster): run
before the session's first cell of that benchmark, recorded with `warmup: true`, excluded by
the statistics' rule; warm-up runs belong to a cluster instance, not to the design, so a
resumed session warms its fresh clusters again. `rounds: 1` is the design as it was: one
configuration at a time, no warm-up runs, the same cell ids, order and design hash.

`warmup_runs` sets the warm-up runs apart from the rounds: `first` opens each session of each
configuration with one run of its first cell's variant, which takes the first job on a fresh
cluster (daemons' JIT, the job jar's first localisation) out of the compared cells in a design
of one round too, where that job is ~10-20 % slower than the next here (docs/results.md, W4);
`each` warms every variant up, `none` none.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from vbench.benchmarks import netmatrix, registry
from vbench.campaign.quiet import QuietParams
from vbench.errors import ParamsError
from vbench.params import (
    PLATFORMS,
    STUDY_FILE_SECTIONS,
    HadoopParams,
    TestbedParams,
    describe_validation_error,
    load_yaml_section,
    prefixed,
)
from vbench.samples import AA_SUFFIX
from vbench.validate import PlainName

#: Where an environment factor's path may point, and the params model it is checked against.
FACTOR_ROOTS = {"testbed": TestbedParams, "hadoop": HadoopParams}
#: Testbed params that identify a testbed rather than describe it: not factors.
NOT_FACTORS = frozenset(
    {
        "testbed.name",
        "testbed.platform",
        "testbed.hosts",
        "testbed.work_root",
        "testbed.network.bridge",
        "testbed.network.subnet",
        "testbed.workers",
    }
)


def scoped_platform(path: str) -> str | None:
    """The platform whose hosts alone an environment factor changes (`testbed.<platform>.*`, such
    as `testbed.gvisor.network`), else None: such a factor is crossed with that platform only."""
    root, _, rest = path.partition(".")
    head = rest.split(".", 1)[0]
    return head if root == "testbed" and head in PLATFORMS else None


def factor_label(path: str) -> str:
    """The name a factor has in samples and tables: its path without the params file."""
    return path.split(".", 1)[1]


def compared_label(platform: str, levels: Mapping[str, Any], compare: Sequence[str]) -> str:
    """What the statistics call a configuration (its `platform` and factor levels, path -> level)
    where they compare `compare`: its compared levels joined by "/" ("native/False", "1000/200"),
    a factor it lacks (one scoped to another platform) left out, as
    `vbench.stats.compare.comparison_view` labels its samples. Pure."""
    by_label = {factor_label(path): level for path, level in levels.items()}
    parts = [platform if c == "platform" else by_label.get(c) for c in compare]
    return "/".join(str(p) for p in parts if p is not None)


def compared_baseline(
    platforms: Sequence[str], factors: Mapping[str, Sequence[Any]], compare: Sequence[str], baseline: str | None
) -> str | None:
    """The compared level the statistics normalise to: `baseline` where the design names one; where
    it compares factor levels without naming one, native's configuration (else the first
    platform's) at each factor's first level ("native/False" for [platform, cpu_group],
    "1000/1000" for two heartbeats); None for a platform comparison, whose baseline is the
    statistics' own (native unless told). Pure."""
    if baseline is not None or tuple(compare) == ("platform",) or not platforms:
        return baseline
    platform = "native" if "native" in platforms else platforms[0]
    firsts = {
        path: levels[0] for path, levels in factors.items() if levels and scoped_platform(path) in (None, platform)
    }
    return compared_label(platform, firsts, compare)


def nested(path: str, value: Any) -> dict[str, Any]:
    """ "network.mode", "nat" -> {"network": {"mode": "nat"}}."""
    out: Any = value
    for part in reversed(path.split(".")):
        out = {part: out}
    return out


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for k, v in over.items():
        merged[k] = deep_merge(merged[k], v) if isinstance(v, dict) and isinstance(merged.get(k), dict) else v
    return merged


def _check_factor(path: str, levels: Any) -> None:
    root, _, rest = path.partition(".")
    if root not in FACTOR_ROOTS or not rest:
        raise ValueError(
            f"factor {path!r}: name a testbed or Hadoop param, e.g. testbed.network.mode, "
            "testbed.vms_per_host, hadoop.replication, hadoop.topology, hadoop.block_size"
        )
    if path in NOT_FACTORS:
        raise ValueError(
            f"factor {path!r}: {'use `platforms`' if path == 'testbed.platform' else 'use `workers`' if path == 'testbed.workers' else 'identifies the testbed'}, not a factor"
        )
    model: Any = FACTOR_ROOTS[root]
    for part in rest.split("."):
        fields = getattr(model, "model_fields", None)
        if fields is None or part not in fields:
            raise ValueError(f"factor {path!r}: {root} params have no field {rest!r}")
        model = fields[part].annotation
    if not isinstance(levels, list) or not levels:
        raise ValueError(f"factor {path!r}: give a non-empty list of levels")
    for i, level in enumerate(levels):
        try:
            FACTOR_ROOTS[root].model_validate(nested(rest, level))
        except ValidationError as exc:
            raise ValueError(
                f"factor {path!r} level {i} ({level!r}): {describe_validation_error(exc).message}"
            ) from None
        except ParamsError as exc:
            raise ValueError(f"factor {path!r} level {i} ({level!r}): {exc.message}") from None


class BenchmarkSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    benchmark: str
    #: Parameter -> value, or -> list of levels (a factor).
    config: dict[str, Any] = {}
    preset: str | None = None
    #: A micro-benchmark of `calibrate` measured on the testbed's first N hosts only (iperf3 and
    #: latency: the first N of their pairs); None: on every host. A testbed's hosts are identical
    #: replicas, so one of them tells what the others would, and calibrating every host of every
    #: configuration of every block took 15 of the default design's 39 minutes (issue #51).
    #: Strict: a YAML `yes` is no count.
    hosts: int | None = Field(None, ge=1, strict=True)

    @field_validator("benchmark")
    @classmethod
    def _known(cls, v: str) -> str:
        try:
            registry.find(v)
        except ParamsError as exc:  # as ValueError, pydantic adds where in the file it was
            raise ValueError(exc.message) from None
        return v


class Condition(BaseModel):
    """Something a hook given to the runner in code sets up around each Hadoop run (the isolation
    experiment's stressed neighbour, vbench.campaign.hooks): each level is a cell of its own,
    recorded as `factor.<name>` like a benchmark parameter factor."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: PlainName
    levels: tuple[PlainName, ...] = Field(min_length=1)
    #: What the hook needs besides the level (e.g. the neighbour's limits): part of the design,
    #: so of its hash, so that a campaign is never resumed under other settings.
    settings: dict[str, Any] = {}

    @field_validator("levels")
    @classmethod
    def _once(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(v)) != len(v):
            raise ValueError("each level once")
        return v


#: The stopping rule's defaults, chosen by simulation (selfbench/adaptive_repetitions.py --rule):
#: the target counts from 10 blocks' worth of rounds on, and 8 more blocks' worth of rounds run
#: once it is reached, ending at the end of a block. Both count in blocks because only independent
#: blocks dilute the optional-stopping bias: more rounds of the same cluster instances do not.
#: Stopping at the first narrow interval after 3 blocks, the final 95 % interval covers the true
#: ratio about 90 % of the time; these defaults keep it at 94 % or more (docs/campaigns.md).
PRECISION_MIN_BLOCKS = 10
PRECISION_EXTRA_BLOCKS = 8


class PrecisionParams(BaseModel):
    """`precision:` in an experiment: stop adding rounds once the primary comparisons are precise
    enough (vbench.stats.stopping; the rule and its coverage: docs/campaigns.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: Half-width of every primary comparison's 95 % interval of the ratio, % of the ratio.
    target_pct: float = Field(gt=0, le=100)
    #: Rounds before the target counts (None: 10 blocks' worth, PRECISION_MIN_BLOCKS x rounds).
    #: Fewer make the final interval cover the true ratio less often than it claims.
    min_rounds: int | None = Field(None, ge=2)
    #: At most this many rounds (None: every round of the design).
    max_rounds: int | None = Field(None, ge=2)
    #: Rounds run after the target is first reached, before stopping; the stop then waits for the
    #: end of the block (None: 8 blocks' worth, PRECISION_EXTRA_BLOCKS x rounds; docs/campaigns.md).
    extra_rounds: int | None = Field(None, ge=0)
    #: The primary comparisons, as "benchmark:metric" (e.g. "terasort:terasort.job_time");
    #: none: the paper's headline metrics of the design's benchmarks.
    metrics: tuple[str, ...] = ()

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for m in v:
            bench, sep, metric = m.partition(":")
            if not sep or not bench or not metric:
                raise ValueError(f"{m!r}: write benchmark:metric, e.g. terasort:terasort.job_time")
        return v

    @model_validator(mode="after")
    def _order(self) -> "PrecisionParams":
        if self.max_rounds is not None and self.min_rounds is not None and self.max_rounds < self.min_rounds:
            raise ValueError(f"max_rounds: {self.max_rounds} is below min_rounds ({self.min_rounds})")
        return self

    def primary(self) -> tuple[tuple[str, str], ...]:
        return tuple(tuple(m.split(":", 1)) for m in self.metrics)  # type: ignore[misc]


class DuetParams(BaseModel):
    """How the sides of a duet share the machine. `shared`: every side's hosts on all CPUs (the
    kernel spreads them). `split`: each side's hosts on CPUs of their own (a cpuset per testbed,
    testbed.cpuset: the machine's CPUs cut into as many equal parts as there are sides), the
    parts rotated between the sides from one block to the next so that no side keeps the faster
    core (Bulej et al., ICPE 2020, rotate the assignment between pairs; here the testbeds live
    for a block, so the assignment changes with the block)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cpus: Literal["shared", "split"] = "shared"


def duet_cpusets(cpus: Sequence[int], sides: int) -> tuple[str, ...]:
    """`cpus` cut into `sides` equal parts of consecutive CPUs, as cpuset lists ("0", "1"; "0-1",
    "2-3"); CPUs an uneven cut leaves over go to no side, so that every side has as many. Pure."""
    ordered = sorted(cpus)
    per = len(ordered) // sides if sides > 0 else 0
    if per < 1:
        raise ValueError(f"{sides} sides cannot have CPUs of their own among {len(ordered)}")
    return tuple(",".join(str(c) for c in ordered[i * per : (i + 1) * per]) for i in range(sides))


def side_cpuset(parts: Sequence[str], slot: int, block: int) -> str:
    """The part of the CPUs the configuration in `slot` runs on in `block`: rotated by one part
    per block, so that over any run of len(parts) blocks each side has had every part once. Pure."""
    return parts[(slot + block) % len(parts)]


def _duet_refusal(exp: "Experiment") -> str | None:
    """Why the design cannot run duets, else None. Pure."""
    if exp.rounds == 1 or exp.interleave != "concurrent":
        return "needs rounds > 1 and interleave: concurrent (the sides run on clusters that are up together)"
    if len(exp.configurations()) < 2:
        return "needs at least two configurations to run together (platforms, factor levels or aa: true)"
    if exp.idle == "freeze":
        return "idle: freeze stops the clusters that are not running; in a duet every cluster runs"
    if exp.retries:
        return "retries would run a failed side again alone; set retries: 0 (a failed side fails its pair)"
    if not exp.suite:
        return "duets run the Hadoop suite together; this design has no suite"
    if exp.drop_caches:
        return "drop_caches empties the page cache every side reads from, in the middle of its partners' jobs"
    return None


class Experiment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    #: The default campaign directory under data/raw/: a plain name, never a path.
    name: PlainName
    description: str = ""
    #: Recorded with every sample; a statistics group key.
    experiment: str = "platforms"
    platforms: tuple[str, ...] = ("native",)
    #: Blocks: each a fresh testbed and cluster per configuration (cluster-level variation sampled).
    repetitions: int = Field(3, ge=1, le=1000)
    #: Rounds per block (see the module doc); 1: configurations one after the other, as before.
    rounds: int = Field(1, ge=1, le=1000)
    #: With rounds: the clusters of a block up together, or one at a time in alternating order.
    interleave: Literal["concurrent", "alternating"] = "concurrent"
    #: With concurrent rounds: what the clusters not running a job do meanwhile. `run`: they stay
    #: up and running (heartbeats, polls, GC on the same cores); `freeze`: their testbeds are
    #: frozen (cgroup freezer, vbench.testbed.freezer) from before each run of another
    #: configuration to its end, so that every job has the machine as if its cluster were alone.
    idle: Literal["run", "freeze"] = "run"
    #: Duet runs (issue #51): with concurrent rounds, every configuration of a round runs its
    #: Hadoop job at the same moment (started together by a barrier), so that whatever slows the
    #: machine slows every side; None: one after the other, as before.
    duet: DuetParams | None = None
    #: Leading blocks marked warm-up: run and stored, excluded by the statistics' rule.
    warmup_blocks: int = Field(0, ge=0)
    #: The warm-up runs opening each session (see the module doc): `each` (variant the session
    #: runs, per configuration), `first` (one per configuration: its first cell's variant, run
    #: once more before it) or `none`. Unset: `each` with rounds, `none` without (as before).
    warmup_runs: Literal["none", "first", "each"] | None = None
    seed: int = 20141
    workers: int = Field(2, ge=1, le=64)
    #: Overrides of params/testbed.yaml and params/hadoop.yaml for this experiment.
    testbed: dict[str, Any] = {}
    hadoop: dict[str, Any] = {}
    calibrate: tuple[BenchmarkSpec, ...] = ()
    suite: tuple[BenchmarkSpec, ...] = ()
    #: A time budget per `campaign run`, spent in whole blocks (vbench.campaign.runner); what is
    #: skipped is recorded and runs on the next `campaign run`.
    budget_minutes: float | None = Field(None, gt=0)
    drop_caches: bool = False
    #: Fault handling (issue #10): how often a failed cell is run again (each attempt is stored),
    #: whether a configuration that cannot come up stops the campaign or is recorded and skipped,
    #: and a wall-clock limit per Hadoop job step (the job is killed in YARN when it is exceeded).
    retries: int = Field(0, ge=0, le=10)
    on_failure: Literal["continue", "stop"] = "continue"
    job_timeout_s: float | None = Field(None, gt=0)
    #: Environment factors: "testbed.<param>" or "hadoop.<param>" -> levels (see module doc).
    factors: dict[str, list[Any]] = {}
    #: What the statistics compare ("platform" and/or factor labels such as "network.mode");
    #: every other factor makes separate cells. `baseline` is the compared level to normalise to.
    compare: tuple[str, ...] = ("platform",)
    baseline: str | None = None
    #: Set only in code, by a command that gives the runner the hook applying it (`vbench
    #: isolation run`); a design file cannot name one (`load_experiment` refuses it).
    condition: Condition | None = None
    #: The quiet-machine gate before every round (vbench.campaign.quiet).
    quiet: QuietParams = QuietParams()
    #: Adaptive stopping to a precision target (vbench.stats.stopping); None: every round runs.
    precision: PrecisionParams | None = None
    #: The A/A self-check: the baseline platform runs twice, as two configurations, the second
    #: labelled <platform>~aa, which the statistics compare with the baseline like any platform.
    aa: bool = False

    @field_validator("factors")
    @classmethod
    def _factors(cls, v: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for path, levels in v.items():
            _check_factor(path, levels)
        return v

    @model_validator(mode="after")
    def _interleaved(self) -> "Experiment":
        if self.interleave != "concurrent" and self.rounds == 1:
            raise ValueError(
                "interleave: alternating needs rounds > 1 (with one round per block, "
                "configurations already run one at a time)"
            )
        if self.duet is not None:
            why = _duet_refusal(self)
            if why:
                raise ValueError(f"duet: {why}")
        if self.idle == "freeze" and (self.rounds == 1 or self.interleave != "concurrent"):
            raise ValueError(
                "idle: freeze needs rounds > 1 and interleave: concurrent (only then are other "
                "configurations' clusters up while one runs)"
            )
        return self

    @model_validator(mode="after")
    def _compared(self) -> "Experiment":
        known = ["platform", *(factor_label(p) for p in self.factors)]
        unknown = [c for c in self.compare if c not in known]
        if unknown or not self.compare:
            raise ValueError(f"compare: {unknown or 'nothing'} is not among the design's factors {known}")
        return self

    @model_validator(mode="after")
    def _baseline_compared(self) -> "Experiment":
        # A baseline no configuration is called by gives a campaign with no ratio at all: the
        # statistics pair every level with it (outside-load and heartbeats once ran so).
        baseline = compared_baseline(self.platforms, self.factors, self.compare, self.baseline)
        labels = self.compared_levels()
        if baseline is not None and baseline not in labels:
            raise ValueError(f"baseline: {baseline!r} is not a compared level of this design; its levels: {labels}")
        return self

    @model_validator(mode="after")
    def _scoped(self) -> "Experiment":
        for path, levels in self.factors.items():
            platform = scoped_platform(path)
            if platform is None:
                continue
            if platform not in self.platforms:
                raise ValueError(
                    f"factor {path!r} changes {platform} hosts only, and {platform} is not among the "
                    f"platforms {list(self.platforms)}"
                )
            # Its levels exist on one platform only: left out of a platform comparison, they would
            # make cells of their own with no baseline to pair with.
            if (
                len(levels) > 1
                and len(self.platforms) > 1
                and "platform" in self.compare
                and factor_label(path) not in self.compare
            ):
                raise ValueError(
                    f"factor {path!r} changes {platform} hosts only: compare it with the platforms "
                    f"(compare: [platform, {factor_label(path)}]), so that each of its levels is set "
                    "beside the baseline platform"
                )
        return self

    @model_validator(mode="after")
    def _precision(self) -> "Experiment":
        p = self.precision
        if p is None:
            return self
        total = self.repetitions * self.rounds
        if self.precision_min_rounds > total:
            raise ValueError(
                f"precision.min_rounds: {self.precision_min_rounds} rounds"
                + ("" if p.min_rounds else f" ({PRECISION_MIN_BLOCKS} blocks' worth, the default)")
                + f", but the design has {total} (repetitions {self.repetitions} x rounds {self.rounds})"
            )
        if p.max_rounds is not None and p.max_rounds > total:
            raise ValueError(
                f"precision.max_rounds: {p.max_rounds} rounds, but the design has {total} "
                f"(repetitions {self.repetitions} x rounds {self.rounds}); raise repetitions"
            )
        benchmarks = {s.benchmark for s in (*self.calibrate, *self.suite)}
        unknown = sorted({b for b, _ in p.primary()} - benchmarks)
        if unknown:
            raise ValueError(f"precision.metrics: {unknown} not among the design's benchmarks {sorted(benchmarks)}")
        return self

    @model_validator(mode="after")
    def _aa(self) -> "Experiment":
        if not self.aa:
            return self
        if self.compare != ("platform",):
            raise ValueError("aa: the A/A self-check repeats the baseline platform; it needs compare: [platform]")
        if self.aa_platform not in self.platforms:
            raise ValueError(
                f"aa: the baseline platform {self.aa_platform!r} is not among the platforms {list(self.platforms)}"
            )
        return self

    @property
    def precision_min_rounds(self) -> int:
        """Rounds before the precision target counts: the design's, or 10 blocks' worth."""
        given = self.precision.min_rounds if self.precision is not None else None
        return given if given is not None else PRECISION_MIN_BLOCKS * self.rounds

    @property
    def precision_extra_rounds(self) -> int:
        """Rounds run once the precision target is reached: the design's, or 8 blocks' worth."""
        given = self.precision.extra_rounds if self.precision is not None else None
        return given if given is not None else PRECISION_EXTRA_BLOCKS * self.rounds

    @property
    def warmups(self) -> str:
        """The warm-up runs the sessions open with: `warmup_runs`, or its default by rounds."""
        return self.warmup_runs or ("each" if self.rounds > 1 else "none")

    @property
    def aa_platform(self) -> str:
        """The platform the A/A self-check runs twice: the baseline."""
        return self.baseline or "native"

    def compared_levels(self) -> list[str]:
        """What the statistics call each configuration where they compare `compare` (sorted)."""
        return sorted({compared_label(c.platform, dict(c.levels), self.compare) for c in self.configurations()})

    def configurations(self) -> list["Configuration"]:
        """Every platform x environment-factor combination, in a fixed order (the A/A copy of the
        baseline last). A factor scoped to one platform (`scoped_platform`) is crossed with that
        platform only: native hosts have no gVisor network to vary."""

        def combos(platform: str) -> list[tuple[tuple[str, Any], ...]]:
            paths = [p for p in sorted(self.factors) if scoped_platform(p) in (None, platform)]
            return [tuple(zip(paths, combo)) for combo in itertools.product(*(self.factors[p] for p in paths))]

        out = [Configuration(p, levels) for p in self.platforms for levels in combos(p)]
        if self.aa:
            out += [
                Configuration(self.aa_platform, levels, replica=AA_SUFFIX[1:]) for levels in combos(self.aa_platform)
            ]
        return out

    #: Sample CPU, disk and network on every host at this interval (s) during each cell; None: off.
    #: Time series go to <campaign>/timeseries/<cell>.csv (vbench.monitor).
    monitor_interval_s: float | None = Field(None, gt=0)
    #: Count the machine's system calls over every run and step (vbench.monitor.kernel_entries):
    #: an enabled tracepoint slows every call on the machine a little (~30 ns here, a third of
    #: dd's cheapest call), so only where a campaign asks; the local testbed only.
    count_syscalls: bool = False

    @field_validator("platforms")
    @classmethod
    def _platforms(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        if not v:
            raise ValueError("at least one platform")
        # Run from an inventory, a platform is a label of its hosts (kvm, xen, vmware...).
        known = tuple(dict.fromkeys((*PLATFORMS, *((info.context or {}).get("platform_labels") or ()))))
        unknown = [p for p in v if p not in known]
        if unknown:
            raise ValueError(f"unknown platform(s) {unknown}; known: {', '.join(known)}")
        return v


@dataclass(frozen=True)
class Variant:
    """One benchmark with every factor fixed to a level."""

    kind: str  # "micro" or "hadoop"
    benchmark: str
    config: Any
    levels: tuple[tuple[str, Any], ...]  # the factor levels that distinguish it
    #: A micro-benchmark's `hosts` (BenchmarkSpec): measured on the first N hosts; None: on all.
    hosts: int | None = None

    @property
    def key(self) -> str:
        lv = ",".join(f"{k}={v}" for k, v in self.levels)
        return f"{self.benchmark}[{lv}]" if lv else self.benchmark


@dataclass(frozen=True)
class Configuration:
    """A platform with every environment factor fixed: one testbed and cluster."""

    platform: str
    levels: tuple[tuple[str, Any], ...] = ()  # (factor path, level)
    #: A second configuration of the same platform (the A/A self-check: "aa"); its hosts are
    #: `platform`'s, its samples say `label`.
    replica: str = ""

    @property
    def label(self) -> str:
        """What the samples say the platform is: `platform`, or `platform~replica`."""
        return f"{self.platform}~{self.replica}" if self.replica else self.platform

    @property
    def key(self) -> str:
        lv = ",".join(f"{factor_label(k)}={_text(v)}" for k, v in self.levels)
        return f"{self.label}[{lv}]" if lv else self.label

    def overrides(self, root: str) -> dict[str, Any]:
        """The nested params overrides of this configuration for "testbed" or "hadoop"."""
        out: dict[str, Any] = {}
        for path, level in self.levels:
            r, _, rest = path.partition(".")
            if r == root:
                out = deep_merge(out, nested(rest, level))
        return out

    def stamp(self) -> dict[str, Any]:
        """What every sample of this configuration records (factor.<label> per factor)."""
        return {"platform": self.label, **{f"factor.{factor_label(k)}": v for k, v in self.levels}}


@dataclass(frozen=True)
class Cell:
    """The unit of work and of resumption: one variant in one configuration in one block (and
    round, when the design has rounds). A warm-up run (`warms_up`) is a Cell too, but not one of
    the design's: it opens a session and is run again whenever its session is."""

    block: int
    config: Configuration
    variant: Variant
    #: Excluded by the statistics' warm-up rule (a warm-up block, or a warm-up run).
    warmup: bool
    #: None in a design without rounds: its cell ids keep their old form.
    round: int | None = None
    warms_up: bool = False

    @property
    def platform(self) -> str:
        return self.config.platform

    @property
    def cell_id(self) -> str:
        r = "" if self.round is None else f"r{self.round}/"
        return f"b{self.block}/{r}{self.config.key}/{self.variant.key}" + ("/warmup" if self.warms_up else "")

    def repetition(self, rounds: int) -> int:
        """The run's number among its variant's runs in one configuration, in run order (the
        statistics' `repetition`): the block, or block x rounds + round."""
        return self.block if self.round is None else self.block * rounds + self.round


@dataclass(frozen=True)
class Session:
    """Configurations up at the same time, each on a fresh testbed and cluster of its own, and
    the runs made on them in order: a design's cells with a warm-up run before the session's
    first cell of each benchmark (designs with rounds)."""

    block: int
    configs: tuple[Configuration, ...]
    runs: tuple[Cell, ...]

    @property
    def cells(self) -> list[Cell]:
        """The design's cells among the runs (not the warm-up runs)."""
        return [r for r in self.runs if not r.warms_up]


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
            out.append(Variant(kind, spec.benchmark, cfg, tuple(zip(names, combo)), spec.hosts))
    return out


def _text(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v).lower() if isinstance(v, bool) else str(v)


def expand(exp: Experiment) -> list[Cell]:
    """Every cell of the design in run order: blocks in sequence, configurations and variants
    shuffled within each block by a generator seeded from the experiment's seed and the block
    (designs with rounds: `_expand_rounds`)."""
    micro = variants(exp.calibrate)
    hadoop = variants(exp.suite)
    labels = {factor_label(p) for p in exp.factors}
    clash = sorted(labels & {k for v in (*micro, *hadoop) for k, _ in v.levels})
    if clash:
        raise ParamsError("factors", f"{clash} is both an environment factor and a benchmark parameter factor")
    hadoop = with_condition(hadoop, exp.condition, labels)
    if exp.rounds > 1:
        return _expand_rounds(exp, micro, hadoop)
    cells = []
    for block in range(exp.repetitions):
        rng = random.Random(f"{exp.seed}:{block}")
        configs = exp.configurations()
        rng.shuffle(configs)
        for config in configs:
            # Calibration first within a configuration: it measures the hosts before Hadoop loads them.
            for group in (micro, hadoop):
                order = list(group)
                rng.shuffle(order)
                cells += [Cell(block, config, v, block < exp.warmup_blocks) for v in order]
    return cells


def _expand_rounds(exp: Experiment, micro: list[Variant], hadoop: list[Variant]) -> list[Cell]:
    """Blocks in sequence, each of `exp.rounds` rounds in which every (configuration, variant)
    runs once, shuffled by a generator seeded from the seed, the block and the round.

    concurrent: within a block the calibration's rounds come first (on the testbeds, before any
    Hadoop daemon loads the machine), then the suite's; each round a permutation of every
    configuration's variants. alternating: round by round, one configuration at a time, in an
    order shuffled per block and reversed every other round (A B, B A, A B ...), calibration
    before the suite within each configuration as in a design without rounds."""
    cells: list[Cell] = []
    for block in range(exp.repetitions):
        warm = block < exp.warmup_blocks
        configs = exp.configurations()
        rngs = [random.Random(f"{exp.seed}:{block}:{r}") for r in range(exp.rounds)]

        def cell(config: Configuration, v: Variant, r: int) -> Cell:
            return Cell(block, config, v, warm, r)

        if exp.interleave == "concurrent":
            orders = [[[(c, v) for c in configs for v in group] for group in (micro, hadoop)] for _ in rngs]
            for rng, per_round in zip(rngs, orders):
                for order in per_round:
                    rng.shuffle(order)
            for g in range(2):
                for r in range(exp.rounds):
                    cells += [cell(c, v, r) for c, v in orders[r][g]]
        else:
            random.Random(f"{exp.seed}:{block}").shuffle(configs)
            for r, rng in enumerate(rngs):
                for config in configs if r % 2 == 0 else configs[::-1]:
                    for group in (micro, hadoop):
                        order = list(group)
                        rng.shuffle(order)
                        cells += [cell(config, v, r) for v in order]
    return cells


def sessions(exp: Experiment, cells: list[Cell]) -> list[Session]:
    """`cells` (in expand's order; a resumed campaign's unfinished ones) grouped into sessions,
    with their warm-up runs. Without rounds: one session per block and configuration. With
    rounds: one session per block holding every configuration (concurrent), or one per round and
    configuration (alternating). Before the session's first cell of each kind (calibration,
    suite), the warm-up runs `exp.warmups` asks for (by default: none without rounds, as before;
    a run of each (configuration, variant) of that kind with rounds), in a seeded random order."""

    def key(c: Cell) -> tuple:
        if exp.rounds == 1:
            return (c.block, c.config.key)
        return (c.block,) if exp.interleave == "concurrent" else (c.block, c.round, c.config.key)

    out = []
    for k, group in itertools.groupby(cells, key=key):
        group = list(group)
        runs: list[Cell] = []
        for _kind, phase in itertools.groupby(group, key=lambda c: c.variant.kind):
            phase = list(phase)
            if exp.warmups != "none":
                runs += _warmup_runs(exp, phase, per_variant=exp.warmups == "each")
            runs += phase
        configs = {c.config.key: c.config for c in group}  # in order of first run; levels may be unhashable
        out.append(Session(k[0], tuple(configs.values()), tuple(runs)))
    return out


def _warmup_runs(exp: Experiment, phase: list[Cell], per_variant: bool = True) -> list[Cell]:
    """One warm-up run of each (configuration, variant) of `phase` (or, not `per_variant`, of
    each configuration's first cell there), stamped with the round of its first cell there,
    shuffled by a generator seeded from the seed, the block and that round."""
    first: dict[tuple[str, str], Cell] = {}
    for c in phase:
        first.setdefault((c.config.key, c.variant.key if per_variant else ""), c)
    runs = [replace(c, warmup=True, warms_up=True) for c in first.values()]
    random.Random(f"{exp.seed}:{phase[0].block}:{phase[0].round}:warmup:{phase[0].variant.kind}").shuffle(runs)
    return runs


def with_condition(hadoop: list[Variant], condition: Condition | None, labels: set[str]) -> list[Variant]:
    """Every Hadoop variant once per level of the design's condition."""
    if condition is None:
        return hadoop
    taken = sorted(labels | {k for v in hadoop for k, _ in v.levels})
    if condition.name in taken:
        raise ParamsError("condition", f"{condition.name!r} is a factor of the design already ({', '.join(taken)})")
    return [replace(v, levels=(*v.levels, (condition.name, level))) for v in hadoop for level in condition.levels]


#: Fields of `quiet` added later still: left out at their defaults before `quiet` is compared.
_LATE_QUIET_FIELDS = {"every": "round", "max_cpu_slowdown": None, "max_dirty_mb": None, "max_machine_slowdown": None}


#: Fields added after campaigns were recorded: left out of the hash at their defaults, so that
#: existing campaign directories still resume.
_LATE_FIELDS = {
    "retries": 0,
    "on_failure": "continue",
    "job_timeout_s": None,
    "factors": {},
    "compare": ["platform"],
    "baseline": None,
    "monitor_interval_s": None,
    "count_syscalls": False,
    "rounds": 1,
    "interleave": "concurrent",
    "condition": None,
    "quiet": {k: v for k, v in QuietParams().model_dump(mode="json").items() if k not in _LATE_QUIET_FIELDS},
    "precision": None,
    "aa": False,
    "warmup_runs": None,
    "idle": "run",
    "duet": None,
}

#: Fields of a benchmark entry (calibrate, suite) added after campaigns were recorded: left out
#: of the hash at their defaults, as _LATE_FIELDS are.
_LATE_SPEC_FIELDS = {"hosts": None}


def design_hash(exp: Experiment) -> str:
    d = exp.model_dump(mode="json")
    quiet = d.get("quiet") or {}
    for k, default in _LATE_QUIET_FIELDS.items():
        if quiet.get(k, default) == default:
            quiet.pop(k, None)
    for k, default in _LATE_FIELDS.items():
        if d.get(k) == default:
            d.pop(k, None)
    for spec in (*d.get("calibrate", ()), *d.get("suite", ())):
        for k, default in _LATE_SPEC_FIELDS.items():
            if spec.get(k, default) == default:
                spec.pop(k, None)
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:12]


def load_experiment(path: Path, platform_labels: tuple[str, ...] = ()) -> Experiment:
    """Validate a preset file; errors name the file and the field. `platform_labels`: an
    inventory's labels, accepted as platforms besides the local testbed's."""
    if not path.exists():
        raise ParamsError(str(path), "no such experiment file")
    where = f"{path}: experiment"
    data = load_yaml_section(path, "experiment", required=True, sections=STUDY_FILE_SECTIONS)
    if isinstance(data, dict) and "condition" in data:
        raise ParamsError(
            f"{where}.condition",
            "is set in code by the command that applies it (vbench isolation run), never in a design file",
        )
    return make_experiment(data, where, platform_labels)


def make_experiment(data: Any, where: str = "experiment", platform_labels: tuple[str, ...] = ()) -> Experiment:
    """A design from its fields (a file's section, or a command's preset built in code), checked
    whole; errors name `where` and the field."""
    try:
        exp = Experiment.model_validate(data, context={"platform_labels": platform_labels})
    except ValidationError as exc:
        raise describe_validation_error(exc, where, Experiment) from None
    except ParamsError as exc:
        raise prefixed(exc, where, ".") from None
    check_benchmarks(exp, where)
    try:
        expand(exp)  # what only the whole design can tell (factor name clashes)
    except ParamsError as exc:
        raise prefixed(exc, where, ".") from None
    return exp


def check_benchmarks(exp: Experiment, where: str = "experiment") -> None:
    """Build every variant of every benchmark of the design, so that a bad benchmark parameter is
    refused now, named where it is written (experiment.suite[0].config.maps)."""
    for section in ("calibrate", "suite"):
        first: dict[str, int] = {}
        for i, spec in enumerate(getattr(exp, section)):
            why = _hosts_refusal(section, spec)
            if why:
                raise ParamsError(f"{where}.{section}[{i}].hosts", why)
            try:
                built = variants((spec,))
            except ParamsError as exc:
                raise ParamsError(f"{where}.{section}[{i}].{_spec_field(spec, exc.field)}", exc.message) from None
            # A cell is named by its variant's key; two entries with one key would be one cell to
            # the ledger, and a resumed campaign would take the second for done.
            for v in built:
                if v.key in first:
                    raise ParamsError(
                        f"{where}.{section}[{i}]",
                        f"{v.key!r} is already entry [{first[v.key]}]: give one entry a list of levels "
                        f"(config: {{size_mb: [32, 64]}}) instead of two entries of {spec.benchmark}",
                    )
                first[v.key] = i


def _hosts_refusal(section: str, spec: BenchmarkSpec) -> str | None:
    """Why a benchmark entry of `section` may not say `hosts`, else None. Pure."""
    if spec.hosts is None:
        return None
    if section != "calibrate":
        return "the suite's benchmarks run on the Hadoop cluster; `hosts` is for calibrate's micro-benchmarks"
    if registry.find(spec.benchmark)[0] != "micro":
        return f"{spec.benchmark} is a Hadoop benchmark: it runs on the cluster; `hosts` is for micro-benchmarks"
    if spec.benchmark == netmatrix.NAME:
        return (
            "netmatrix measures one pair per kind of path of the testbed's network (guests of one physical "
            "host, of two, a guest and a physical host): the first N of them would leave paths unmeasured"
        )
    return None


def _spec_field(spec: BenchmarkSpec, field: str) -> str:
    """Where in a benchmark entry the registry's field ("pi.maps", "--preset", "pi") is written."""
    if field == "--preset":
        return "preset"
    if field == spec.benchmark:
        return "config"
    return f"config.{field.removeprefix(spec.benchmark + '.')}"

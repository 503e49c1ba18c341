"""params/published.yaml as validated data: the five studies' findings, what each needs to be
tested, and the command that tests it (issue #20 item 1).

Validation is strict, as for every params file: unknown fields are refused, every cross-reference
(a study, a published platform, a local platform, a benchmark and its metric) is checked, and
errors name the file and the field (``params/published.yaml: findings[12].test.needs: ...``).
`check_commands` goes one step further for the repository's own file: each finding's command
names a design (and an inventory) that exist and load, and an inventory has a cluster for every
platform the design names, so the command printed in the paper would at least start.
"""

from __future__ import annotations

import math
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from vbench.errors import ParamsError
from vbench.params import PLATFORMS, _FieldError, describe_validation_error, prefixed, read_yaml
from vbench.validate import Name

#: What testing a finding needs, from least to most: this machine (native, LXC, OCI, gVisor,
#: emulated links and physical hosts, replication, topology); hardware virtualisation (KVM, Xen,
#: VMware: QEMU here runs under TCG, an emulator); a patched kernel (OpenVZ, Linux-VServer); a
#: real cluster of the study's scale (hosts, disks and data sizes no single machine has).
NEEDS = ("here", "hardware-virtualisation", "patched-kernel", "cluster-scale")
NEED_TEXT = {
    "here": "this machine",
    "hardware-virtualisation": "hardware virtualisation",
    "patched-kernel": "a patched kernel",
    "cluster-scale": "a cluster of the study's scale",
}
KINDS = ("direction", "magnitude", "equivalence")

Need = Literal["here", "hardware-virtualisation", "patched-kernel", "cluster-scale"]
Scalar = str | int | float | bool


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SideSpec(_Strict):
    """One side of a comparison: the platform as the study names it, optionally the local
    platform standing in for it (else platform_map's) and a selection of samples (`where`:
    metadata or design factor -> level, e.g. {replication: 1}, {network.mode: bridge+nat})."""

    published: str = Field(min_length=1)
    local: str | None = None
    where: dict[str, Scalar] = {}

    @field_validator("local")
    @classmethod
    def _local(cls, v: str | None) -> str | None:
        if v is not None and v not in PLATFORMS:
            raise ValueError(f"unknown local platform {v!r}; known: {', '.join(PLATFORMS)}")
        return v


class WorkloadSpec(_Strict):
    benchmark: str
    metric: str


class TestSpec(_Strict):
    """What testing the finding needs, and the command that tests it."""

    __test__ = False  # not a pytest class

    needs: tuple[Need, ...] = Field(min_length=1)
    #: `vbench campaign run <design>` or `vbench isolation run --preset <design>`.
    run: Literal["campaign", "isolation"] = "campaign"
    #: The design file, relative to the repository (params/experiments/...).
    design: str
    #: An SSH inventory (params/inventories/...) whose labels include every platform of the design.
    inventory: str | None = None
    only: Literal["calibrate", "suite"] | None = None
    #: Where to run it when not on an inventory, e.g. "a machine with working KVM".
    machine: str = ""

    @field_validator("needs")
    @classmethod
    def _needs(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(v)) != len(v):
            raise ValueError("lists a need twice")
        if "here" in v and len(v) > 1:
            raise ValueError("here means this machine suffices: it cannot be combined with other needs")
        return v

    @field_validator("design")
    @classmethod
    def _design(cls, v: str) -> str:
        if not (v.startswith("params/experiments/") and v.endswith(".yaml")):
            raise ValueError(f"must be a design file under params/experiments/, got {v!r}")
        return v

    @field_validator("inventory")
    @classmethod
    def _inventory(cls, v: str | None) -> str | None:
        if v is not None and not (v.startswith("params/inventories/") and v.endswith(".yaml")):
            raise ValueError(f"must be an inventory file under params/inventories/, got {v!r}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "TestSpec":
        if self.run == "isolation" and (self.inventory or self.only):
            raise _FieldError("run", "vbench isolation run takes neither --inventory nor --only")
        if self.needs != ("here",) and not (self.inventory or self.machine):
            raise _FieldError(
                "machine", "a finding this machine cannot test needs an inventory or says where to run it"
            )
        return self

    def campaign(self) -> str:
        """The campaign directory the command writes by default: the design's name (an
        isolation run writes its own, `vbench isolation run`'s)."""
        return PurePosixPath(self.design).stem if self.run == "campaign" else ""

    def command(self) -> str:
        if self.run == "isolation":
            return f"vbench isolation run --preset {self.design}"
        parts = ["vbench campaign run", self.design]
        if self.only:
            parts.append(f"--only {self.only}")
        if self.inventory:
            parts.append(f"--inventory {self.inventory}")
        return " ".join(parts)


class PublishedValues(_Strict):
    A: float
    B: float

    @field_validator("A", "B")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("must be a finite number")
        return v


class FindingSpec(_Strict):
    id: str = Field(min_length=1)
    study: str
    source: str = Field(min_length=1)
    claim: str = Field(min_length=1)
    benchmark: str
    metric: str
    #: Workloads standing in for the study's, tried in order when the first has no samples
    #: (Liu's reduce merge phase: Sort's, else TeraSort's sort step).
    fallback: tuple[WorkloadSpec, ...] = ()
    compare: tuple[SideSpec, SideSpec]
    kind: Literal["direction", "magnitude", "equivalence"]
    expect: Literal["less", "greater"] | None = None
    published_ratio: float | None = Field(None, gt=0)
    #: magnitude: how far, in percent of the published ratio, a re-measurement may fall; never
    #: so far that the band reaches past 1 (a tolerance wider than the claimed effect would let
    #: "no effect" reproduce it).
    tolerance_pct: float | None = Field(None, gt=0, le=100)
    #: magnitude: the study's own range for the ratio (e.g. "30 to 90 %"), the band itself;
    #: instead of a tolerance.
    published_range: tuple[float, float] | None = None
    #: equivalence ("near native", "does not slow", "the same"): the ratio's margin around 1, in
    #: percent; not wider than the paper's margin (params/pipeline.yaml equivalence_pct) unless
    #: `margin_wider` says why (the study's own claim is wider).
    margin_pct: float | None = Field(None, gt=0, le=100)
    margin_wider: str = ""
    #: magnitude and equivalence: where the figure, the range, the tolerance or the margin comes
    #: from (the study's words or table, or the paper's margin), fixed before the data.
    basis: str = ""
    published: PublishedValues | None = None
    published_unit: str = ""
    size: str | None = None
    experiment: str | tuple[str, ...] | None = None
    note: str = ""
    test: TestSpec

    @model_validator(mode="after")
    def _kind(self) -> "FindingSpec":
        need = {
            "direction": ("expect",),
            "magnitude": ("published_ratio", "tolerance_pct") if self.published_range is None else (),
            "equivalence": ("margin_pct",),
        }[self.kind]
        for key in need:
            if getattr(self, key) is None:
                raise _FieldError(key, f"a {self.kind} finding needs {key}")
        allowed = {"magnitude": ("published_range", "published_ratio", "tolerance_pct")}.get(self.kind, need)
        for key in ("expect", "tolerance_pct", "margin_pct", "published_range"):
            if getattr(self, key) is not None and key not in need and key not in allowed:
                raise _FieldError(key, f"is not used by a {self.kind} finding")
        if self.margin_wider and self.kind != "equivalence":
            raise _FieldError("margin_wider", f"is not used by a {self.kind} finding")
        if self.kind == "direction" and self.basis:
            raise _FieldError("basis", "is not used by a direction finding (it has no band)")
        if self.kind != "direction" and not self.basis.strip():
            raise _FieldError("basis", f"a {self.kind} finding says where its figure and band come from")
        if self.kind == "magnitude":
            if self.published_range is not None:
                if self.tolerance_pct is not None:
                    raise _FieldError("tolerance_pct", "the study's range is the band: give one or the other")
                lo, hi = self.published_range
                if not (0 < lo < hi):
                    raise _FieldError("published_range", f"must be two increasing positive ratios, got {lo}, {hi}")
            lo, hi = magnitude_band(self.published_ratio, self.tolerance_pct, self.published_range)
            if lo < 1.0 - 1e-9 and hi > 1.0 + 1e-9:
                raise _FieldError(
                    "tolerance_pct" if self.published_range is None else "published_range",
                    f"the band {lo:.4g}-{hi:.4g} contains 1: a tolerance wider than the claimed effect "
                    "lets no effect at all reproduce it",
                )
        return self


class StudySpec(_Strict):
    bibkey: str = Field(min_length=1)
    short: str = Field(min_length=1)


class PublishedSpec(_Strict):
    version: Literal[1]
    #: Published platform name -> the local platform standing in for it here (null: none).
    platform_map: dict[str, str | None] = Field(min_length=1)
    #: Published platform name -> the inventory label a campaign on the study's own platforms
    #: gives it (kvm, openvz, ...): such samples are a test, not a stand-in.
    labels: dict[str, Name] = {}
    studies: dict[str, StudySpec] = Field(min_length=1)
    findings: tuple[FindingSpec, ...] = Field(min_length=1)

    @field_validator("platform_map")
    @classmethod
    def _map(cls, v: dict[str, str | None]) -> dict[str, str | None]:
        for name, local in v.items():
            if local is not None and local not in PLATFORMS:
                raise _FieldError(name, f"unknown local platform {local!r}; known: {', '.join(PLATFORMS)}")
        return v

    @model_validator(mode="after")
    def _references(self) -> "PublishedSpec":
        for name in self.labels:
            if name not in self.platform_map:
                raise _FieldError(f"labels.{name}", "is not a platform of platform_map")
        seen: set[str] = set()
        for i, f in enumerate(self.findings):
            at = f"findings[{i}]"
            if f.id in seen:
                raise _FieldError(f"{at}.id", f"duplicate id {f.id!r}")
            seen.add(f.id)
            if f.study not in self.studies:
                raise _FieldError(f"{at}.study", f"{f.id}: unknown study {f.study!r}; known: {', '.join(self.studies)}")
            for j, w in enumerate((f, *f.fallback)):
                field = at if j == 0 else f"{at}.fallback[{j - 1}]"
                problem = benchmark_metric_problem(w.benchmark, w.metric)
                if problem:
                    raise _FieldError(f"{field}.{problem[0]}", f"{f.id}: {problem[1]}")
            for j, side in enumerate(f.compare):
                if "local" not in side.model_fields_set and side.published not in self.platform_map:
                    raise _FieldError(
                        f"{at}.compare[{j}].published",
                        f"{f.id}: {side.published!r} is not in platform_map; add it (or give `local:`)",
                    )
        return self


def magnitude_band(
    ratio: float | None, tolerance_pct: float | None, published_range: tuple[float, float] | None = None
) -> tuple[float, float]:
    """The band of a magnitude claim: the study's own range, else the published ratio within
    +/- tolerance_pct percent of itself."""
    if published_range is not None:
        return float(published_range[0]), float(published_range[1])
    assert ratio is not None and tolerance_pct is not None
    return ratio * (1 - tolerance_pct / 100.0), ratio * (1 + tolerance_pct / 100.0)


def margin_problems(spec: PublishedSpec, paper_margin_pct: float, source: str = "published.yaml") -> None:
    """Every equivalence margin is the paper's (`equivalence_pct`) or narrower, unless the finding's
    `margin_wider` says why the study's own claim is wider."""
    for i, f in enumerate(spec.findings):
        if f.kind == "equivalence" and f.margin_pct > paper_margin_pct + 1e-9 and not f.margin_wider.strip():
            raise ParamsError(
                f"{source}: findings[{i}].margin_pct",
                f"{f.id}: {f.margin_pct:g} % is wider than the paper's margin ({paper_margin_pct:g} %, "
                "params/pipeline.yaml equivalence_pct); say why in margin_wider (the study's own claim is wider)",
            )


def paper_margin_pct(root: Path) -> float:
    """The paper's equivalence margin, `pipeline.equivalence_pct` of the repository's params/pipeline.yaml."""
    doc = read_yaml(root / "params" / "pipeline.yaml") or {}
    return float((doc.get("pipeline") or {}).get("equivalence_pct", 5.0))


def benchmark_metric_problem(benchmark: str, metric: str) -> tuple[str, str] | None:
    """(field, message) when the benchmark is unknown or has no such metric; None when fine."""
    from vbench.benchmarks.registry import find

    try:
        _, module = find(benchmark)
    except ParamsError:
        return "benchmark", f"unknown benchmark {benchmark!r}"
    base = metric.split(".")[-1]
    if metric not in module.METRICS and not ("." in metric and base.endswith("_time")):
        return (
            "metric",
            f"{benchmark} has no metric {metric!r}; metrics: {', '.join(module.METRICS)}"
            " (or a step-qualified phase such as terasort.map_shuffle_time)",
        )
    return None


def validate_published(doc: Any, source: str = "published.yaml") -> PublishedSpec:
    """The document as a PublishedSpec; errors name `source` and the field."""
    if not isinstance(doc, dict):
        raise ParamsError(source, "expected a mapping with version, platform_map, studies and findings")
    try:
        return PublishedSpec.model_validate(doc)
    except ValidationError as exc:
        raise prefixed(describe_validation_error(exc, "", PublishedSpec), source) from None


def read_published(path: Path) -> PublishedSpec:
    return validate_published(read_yaml(path), str(path))


def check_commands(spec: PublishedSpec, root: Path, source: str = "published.yaml") -> None:
    """Every finding's command names files that exist and load: the design (checked as `vbench
    campaign run` checks it, with the inventory's labels as platforms) and the inventory, which
    must hold a cluster for every platform of the design."""
    from vbench.campaign.study import load_study
    from vbench.inventory.model import load_inventory
    from vbench.isolation.params import load_isolation

    for i, f in enumerate(spec.findings):
        at = f"{source}: findings[{i}].test"
        t = f.test
        design = root / t.design
        if not design.is_file():
            raise ParamsError(f"{at}.design", f"{f.id}: no such file {t.design}")
        labels: tuple[str, ...] = ()
        try:
            if t.inventory:
                inv_path = root / t.inventory
                if not inv_path.is_file():
                    raise ParamsError(f"{at}.inventory", f"{f.id}: no such file {t.inventory}")
                labels = load_inventory(inv_path).platforms()
            if t.run == "isolation":
                load_isolation(design)
                continue
            exp = load_study(root / "params", design, labels, local=not t.inventory).experiment
        except ParamsError as exc:
            if exc.field.startswith(at):
                raise
            raise prefixed(exc, f"{at} ({f.id})") from None
        missing = [p for p in exp.platforms if t.inventory and p not in labels]
        if missing:
            raise ParamsError(f"{at}.inventory", f"{f.id}: {t.inventory} has no hosts labelled {', '.join(missing)}")


__all__ = [
    "KINDS",
    "NEEDS",
    "NEED_TEXT",
    "FindingSpec",
    "PublishedSpec",
    "SideSpec",
    "TestSpec",
    "check_commands",
    "magnitude_band",
    "margin_problems",
    "paper_margin_pct",
    "read_published",
    "validate_published",
]

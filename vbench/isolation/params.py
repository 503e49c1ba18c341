"""Params of the isolation experiment (the `isolation:` section of a study preset) and the two
tenants' testbeds derived from them. Pure apart from reading the YAML file.

What "split by limits" means on a 2-CPU machine: Xavier et al. gave each container its own
cores; here tenant A (every Hadoop host: master and workers) is pinned to one CPU and tenant B
(the stress) to the other, with separate memory limits, blkio throttles on the shared disk and
a pids limit on B. The controller (vbench, SSH, probes) stays unconfined, as the host OS did
in the paper. Memory bandwidth, caches, the page cache, the disk and the kernel stay shared:
that is what the experiment measures.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vbench.errors import ParamsError
from vbench.isolation.stress import STRESSES
from vbench.params import (
    CONTAINER_PLATFORMS,
    STUDY_FILE_SECTIONS,
    HadoopParams,
    HostParams,
    LimitsParams,
    TestbedParams,
    _validate,
    load_yaml_section,
    prefixed,
)
from vbench.units import mib_or_size


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TenantParams(_Strict):
    limits: LimitsParams = LimitsParams()


class IsolationParams(_Strict):
    """Two tenants on one physical host; TeraSort in A alone and beside each stress in B."""

    platform: str = "lxc"
    workers: int = Field(1, ge=1, le=8)
    size_mb: int = Field(32, ge=1)
    maps: int = Field(2, ge=1)
    reduces: int = Field(1, ge=1)
    repetitions: int = Field(3, ge=1)
    stresses: tuple[str, ...] = STRESSES
    #: Order of the conditions within a repetition is shuffled with this seed (drift must not
    #: pose as a stress effect); the baseline is one of the shuffled conditions.
    seed: int = 2014
    #: Seconds the stress runs before TeraSort starts, so TeraSort meets it at full intensity.
    warmup_s: float = Field(5.0, ge=0)
    #: stress-ng's own timeout: a safety net should teardown never come.
    stress_timeout_s: int = Field(900, ge=10)
    #: How long tenant A's Hadoop daemons may take to come up (they share one CPU).
    ready_timeout_s: float = Field(600, ge=30)
    #: The machine counts as responsive when every SSH probe to tenant A completes within this.
    responsive_within_s: float = Field(10.0, gt=0)
    tenant_a: TenantParams = TenantParams(limits=LimitsParams(cpuset="0", memory_mb=3072))
    tenant_b: TenantParams = TenantParams(limits=LimitsParams(cpuset="1", memory_mb=1024, pids_max=256))

    @field_validator("size_mb", mode="before")
    @classmethod
    def _size(cls, v):
        return mib_or_size(v)  # 2048 is MiB; "1GB", "512MB" are converted

    @field_validator("platform")
    @classmethod
    def _container(cls, v: str) -> str:
        if v not in CONTAINER_PLATFORMS:
            raise ValueError(
                f"the isolation experiment needs container tenants ({', '.join(CONTAINER_PLATFORMS)}); got {v!r}"
            )
        return v

    @field_validator("stresses")
    @classmethod
    def _stresses(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [s for s in v if s not in STRESSES]
        if bad:
            raise ValueError(f"unknown stresses {bad}; known: {', '.join(STRESSES)}")
        if "none" not in v:
            raise ValueError("'none' (the idle neighbour) is the baseline and must be listed")
        if len(set(v)) != len(v):
            raise ValueError("each stress once")
        return v

    @model_validator(mode="after")
    def _bomb_needs_a_limit(self) -> "IsolationParams":
        if "forkbomb" in self.stresses and self.tenant_b.limits.pids_max is None:
            raise ValueError("tenant_b.limits.pids_max is required to run the fork bomb")
        return self

    @property
    def pids_max(self) -> int | None:
        return self.tenant_b.limits.pids_max


def isolation_params(data=None) -> IsolationParams:
    """Validated params; errors name the field (isolation.tenant_b.limits.pids_max: ...)."""
    return _validate(IsolationParams, data, "isolation")


def load_isolation(path: Path, **overrides) -> IsolationParams:
    data = {
        **load_yaml_section(path, "isolation", sections=STUDY_FILE_SECTIONS),
        **{k: v for k, v in overrides.items() if v is not None},
    }
    try:
        return isolation_params(data)
    except ParamsError as exc:
        raise prefixed(exc, str(path)) from None


def neighbour_name(testbed: str) -> str:
    """Tenant B's testbed name: tenant A's (at most 6 characters) with an 'n' in the last place."""
    return testbed[:5] + "n"


def neighbour_subnet(subnet: ipaddress.IPv4Network) -> ipaddress.IPv4Network:
    """Tenant B's bridge subnet: the upper half of tenant A's (A's hosts sit at the bottom)."""
    return list(subnet.subnets(prefixlen_diff=1))[1]


def tenant_a_testbed(base: TestbedParams, iso: IsolationParams) -> TestbedParams:
    """The Hadoop cluster's testbed: `iso.workers` workers on `iso.platform`, tenant A's limits on
    every host (master and workers share the same CPU: one tenant)."""
    data = base.model_dump(mode="json", exclude_none=True)
    data.update(platform=iso.platform, workers=iso.workers, limits=iso.tenant_a.limits.as_dict(), hosts=None)
    return _validate(TestbedParams, data, "testbed")


def tenant_b_testbed(base: TestbedParams, iso: IsolationParams) -> TestbedParams:
    """The neighbour: one host on its own bridge, in the upper half of tenant A's subnet (the
    testbed model needs one 'master': it only names the single host, no Hadoop runs there)."""
    name = neighbour_name(base.name)
    data = base.model_dump(mode="json", exclude_none=True)
    data.update(
        name=name,
        platform=iso.platform,
        workers=1,
        limits=None,
        network={"bridge": f"{name}br", "subnet": str(neighbour_subnet(base.network.subnet))},
        hosts=[
            HostParams(name="neighbour", role="master", limits=iso.tenant_b.limits).model_dump(
                mode="json", exclude_none=True
            )
        ],
    )
    return _validate(TestbedParams, data, "testbed")


def tenant_a_hadoop(hadoop: HadoopParams, iso: IsolationParams) -> HadoopParams:
    """Replication cannot exceed the workers of tenant A."""
    return hadoop.model_copy(update={"replication": min(hadoop.replication, iso.workers)})

"""Several campaigns' ratio of one job on one platform to native, pooled into the machine's
long-run ratio (issue #53: judging a prediction against more than one campaign).

A campaign measures a job's ratio in 2-6 blocks over an hour or two; another campaign of the same
jobs on the same machine reads a ratio 4-20 % away (sd of the log ratio between campaigns,
selfbench.between_campaigns), more than the campaigns' own intervals say. A model of costs
predicts the machine's ratio, not one hour's, so it is judged against the campaigns' pooled ratio.

Each campaign is one reading, weighted alike: the campaigns' log ratios' mean, its standard error
their standard deviation over sqrt(k), a t on k - 1 degrees of freedom. Not inverse-variance
weights: a campaign's own standard error comes from 2-6 blocks (1-5 degrees of freedom), so a
campaign whose few blocks happened to agree would outweigh the others by orders of magnitude
(costs-profile-gvisor's TeraSort: se 0.004 on 1 df, the others' 0.02-0.10), and what moves a ratio
between campaigns is the hour, which each campaign samples once. What the campaigns' own
intervals account for and what they do not is reported beside (`hour_sd`), not used to weight.
Pure.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

from vbench.errors import ParamsError
from vbench.stats.cost_model import JobRatio, LogRatio
from vbench.stats.keys import natural_key


@dataclass(frozen=True)
class CampaignRatio:
    """One campaign's measured ratio of a job on a platform."""

    campaign: str
    ratio: LogRatio


@dataclass(frozen=True)
class PooledRatio:
    """A job's ratio on a platform over the campaigns that measured it."""

    job: str
    platform: str
    readings: tuple[CampaignRatio, ...]
    #: The campaigns' mean log ratio, its standard error and k - 1 degrees of freedom.
    ratio: LogRatio
    #: The standard deviation of the campaigns' log ratios: how far one campaign's reading lies
    #: from another's.
    between_sd: float
    #: What of `between_sd` the campaigns' own standard errors do not explain (method of moments:
    #: between_sd^2 less the mean of their squared standard errors, floored at 0): the hour's part.
    hour_sd: float

    @property
    def campaigns(self) -> tuple[str, ...]:
        return tuple(r.campaign for r in self.readings)


def pooled_ratio(job: str, platform: str, readings: Sequence[CampaignRatio]) -> PooledRatio:
    """The campaigns' ratios of `job` on `platform` pooled, each campaign weighted alike; refused
    with fewer than two campaigns or one campaign read twice."""
    names = [r.campaign for r in readings]
    if len(names) < 2:
        raise ParamsError("campaigns", f"{job} on {platform}: pooling needs two campaigns or more, got {names}")
    if len(set(names)) != len(names):
        raise ParamsError("campaigns", f"{job} on {platform}: a campaign is read twice ({names})")
    logs = [r.ratio.log_estimate for r in readings]
    k = len(logs)
    sd = statistics.stdev(logs)
    own = statistics.fmean(r.ratio.log_se**2 for r in readings)
    return PooledRatio(
        job,
        platform,
        tuple(readings),
        LogRatio(statistics.fmean(logs), sd / math.sqrt(k), k - 1),
        sd,
        math.sqrt(max(0.0, sd**2 - own)),
    )


@dataclass(frozen=True)
class Pooled:
    """Several campaigns' job ratios pooled per (job, platform)."""

    #: The pooled ratios as `cost_model.job_ratios_of` gives one campaign's.
    ratios: tuple[JobRatio, ...]
    pooled: tuple[PooledRatio, ...]
    #: (job, platform, the one campaign that measured it): not pooled, left out.
    single: tuple[tuple[str, str, str], ...]


def pool_job_ratios(campaigns: Sequence[tuple[str, Sequence[JobRatio]]]) -> Pooled:
    """Each (job, platform) that two or more of `campaigns` (name, its job ratios) measured,
    pooled (`pooled_ratio`); one measured by a single campaign is left out and listed, since a
    single campaign's ratio beside pooled ones would read as the machine's."""
    names = [name for name, _ in campaigns]
    if len(set(names)) != len(names):
        raise ParamsError("campaigns", f"a campaign is named twice: {names}")
    by_cell: dict[tuple[str, str], list[CampaignRatio]] = {}
    for name, ratios in campaigns:
        for r in ratios:
            by_cell.setdefault((r.job, r.platform), []).append(CampaignRatio(name, r.ratio))
    pooled, single = [], []
    for (job, platform), readings in sorted(by_cell.items(), key=lambda kv: (natural_key(kv[0][1]), kv[0][0])):
        if len(readings) < 2:
            single.append((job, platform, readings[0].campaign))
        else:
            pooled.append(pooled_ratio(job, platform, readings))
    return Pooled(tuple(JobRatio(p.job, p.platform, p.ratio) for p in pooled), tuple(pooled), tuple(single))

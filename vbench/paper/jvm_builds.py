"""The JVM builds' difference measured apart (issue #53), which the threats to validity quote.

A native host runs the machine's JDK, a container or a sandbox the guest image's, and the two are
upgraded apart: most of the campaigns that compared platforms ran two builds (`vbench.stats.campaign.
jvm_note`). `paper.jvm_campaign` (costs-jvm-native-amd) ran native hosts under both (`hadoop.jdk` a
factor, host and image) and nothing else apart; its statistics table's preferred ratios image / host
of the cost model's jobs (`vbench.stats.cost_model.JOBS`) and of a JVM's start and loopback call are
the builds' share of any platform ratio measured with two builds. `jvm_reading` reads them once per
build; `vbench.paper.machines.jvm_sentence` says them, and `jvm_build_note` puts them in the build log.
"""

from __future__ import annotations

from dataclasses import dataclass

from vbench.errors import ParamsError
from vbench.stats.campaign import Campaign, jvm_builds, jvm_compared
from vbench.stats.campaign_stats import StatsConfig
from vbench.stats.cost_model import JOBS
from vbench.stats.stopping import preferred_ratio_rows
from vbench.stats.warmup import measured_samples
from vbench.wording import job_name

from vbench.paper import results as R
from vbench.paper.fmt import interval_text

#: The factor's levels: the machine's JDK (the baseline) and the guest image's.
HOST, IMAGE = "host", "image"
#: The JVM micro-benchmarks read beside the jobs: (benchmark, metric, what a reader calls it).
JVM_METRICS = (("jvmstart", "jvm_start_ms", "a JVM's start"), ("rpc", "rpc_us", "a JVM's loopback call"))
#: What a refusal names.
FIELD = "paper.jvm_campaign"


@dataclass(frozen=True)
class JvmRatio:
    """One job's or micro-benchmark's ratio image / host, with its interval."""

    label: str  # plain text, as a reader knows it
    estimate: float
    low: float
    high: float

    @property
    def holds_one(self) -> bool:
        return self.low <= 1.0 <= self.high

    @property
    def text(self) -> str:
        return interval_text(self.estimate, self.low, self.high)


@dataclass(frozen=True)
class JvmReading:
    """The campaign that varied the build: its name, blocks, the two builds and the ratios."""

    name: str
    blocks: int
    host_build: str  # "openjdk 17.0.15"; "" where the samples named none
    image_build: str
    ratios: tuple[JvmRatio, ...]

    @property
    def holding_one(self) -> int:
        return sum(r.holds_one for r in self.ratios)


def _build(builds: dict[str, tuple[str, ...]], level: str) -> str:
    return " and ".join(builds.get(level, ()))


def jvm_reading(campaign: Campaign, cfg: StatsConfig) -> JvmReading:
    """The ratios image / host of `campaign` (a design with `hadoop.jdk: [host, image]`), from its
    statistics table (`vbench.paper.results.campaign_statistics`: the statistics stage's, else
    computed with the build's settings). A campaign that did not vary the build is refused, naming
    the key; a job or metric it did not measure is left out."""
    samples = measured_samples(campaign.samples)
    if not jvm_compared(samples):
        raise ParamsError(
            FIELD, f"{campaign.name!r} did not vary the JVM build (no hadoop.jdk factor of host and image)"
        )
    table, _note = R.campaign_statistics(campaign, cfg)
    rows = preferred_ratio_rows(table)
    rows = rows[(rows["baseline"].astype(str) == HOST) & (rows["platform"].astype(str) == IMAGE)]
    wanted = [(j.benchmark, j.metric, job_name(j.name)) for j in JOBS] + list(JVM_METRICS)
    ratios = []
    for benchmark, metric, label in wanted:
        found = rows[(rows["benchmark"].astype(str) == benchmark) & (rows["metric"].astype(str) == metric)]
        found = found[found["estimate"].notna() & found["ci_low"].notna() & found["ci_high"].notna()]
        if len(found) == 1:
            r = found.iloc[0]
            ratios.append(JvmRatio(label, float(r["estimate"]), float(r["ci_low"]), float(r["ci_high"])))
    builds = jvm_builds(samples)  # the compared levels are the view's `platform`: host and image
    blocks = int(samples["block"].dropna().astype(str).nunique()) if "block" in samples.columns else 0
    return JvmReading(campaign.name, blocks, _build(builds, HOST), _build(builds, IMAGE), tuple(ratios))


def jvm_build_note(reading: JvmReading) -> str:
    """The build log's line: the campaign, the builds and every ratio."""
    said = "; ".join(f"{r.label} {r.estimate:.3f} [{r.low:.3f}, {r.high:.3f}]" for r in reading.ratios)
    return (
        f"JVM builds: {reading.name} ({reading.blocks} blocks), {reading.image_build or IMAGE} / "
        f"{reading.host_build or HOST} on native hosts: {said or 'no ratio measured'}"
    )

"""This machine's CPU-probe reference: how long the quiet gate's CPU probe (a fixed piece of work:
vbench.campaign.quiet.cpu_probe_ms) took in the campaigns recorded beside this one, on a machine
of the same CPU model.

The gate judges each probe against the median of the campaign run's own earlier quiet probes.
That catches a slow spell within a run, not a slow day: `speculation-confirm` (2026-11-27) ran
every block at a median of 57.8 ms against `speculation`'s 38.4 ms the day before, under the same
CPU name, every probe "ok" by its own run, and measured three times the spread. Against the
reference the gate says "x1.34 this machine's reference" before every round, every sample
carries the reference (`quiet.cpu_probe_machine_ms`), and a design can make a slower machine a
reason (`quiet.max_machine_slowdown`).

Only campaigns whose samples carry the `cpu_model` stamp (vbench.provenance.machine_stamp) count:
a campaign that did not record its CPU names no machine. Each campaign counts once (the median
of its own quiet probes), so a long campaign does not outvote a short one. Everything here is
pure but `reference_beside`, which reads files (the machine's own model: `vbench.testbed.facts.this_cpu_model`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple

from vbench.errors import VbenchError
from vbench.samples import QUIET_CPU_PROBE, QUIET_VERDICT, cpu_models, read_records
from vbench.wording import count

#: The verdicts of a gate reading taken on a quiet machine (vbench.campaign.quiet OK, WAITED).
QUIET_VERDICTS = ("ok", "waited")


@dataclass(frozen=True)
class ProbeReference:
    """The CPU probe's time on this machine, from the campaigns recorded beside a new one."""

    cpu_model: str
    median_ms: float
    #: (campaign, the median of its quiet probes), by name.
    campaigns: tuple[tuple[str, float], ...]

    def describe(self) -> str:
        each = ", ".join(f"{name} {ms:.1f}" for name, ms in self.campaigns)
        return f"{self.median_ms:.1f} ms, the median of {count(len(self.campaigns), 'campaign')} on {self.cpu_model} ({each} ms)"


def _index(v: object) -> object:
    """A block or round number as one key whether a record (int) or a DataFrame (float, NaN) holds it."""
    if isinstance(v, float):
        return None if v != v else int(v) if v.is_integer() else v
    return v


class _Reading(NamedTuple):
    models: list[str]  # the CPU models the sample names
    key: tuple  # (block, round, probe): one gate reading, whichever of its round's samples holds it
    probe_ms: float


def _reading(md: Mapping[str, object]) -> _Reading | None:
    """A sample's quiet gate reading, or None when it holds no probe taken on a quiet machine. A
    row of a DataFrame holds NaN for a field its sample did not have."""
    probe = md.get(QUIET_CPU_PROBE)
    if not isinstance(probe, (int, float)) or probe != probe or md.get(QUIET_VERDICT) not in QUIET_VERDICTS:
        return None
    key = (_index(md.get("block")), _index(md.get("round")), float(probe))
    return _Reading(cpu_models(md.get("cpu_model")), key, float(probe))


def quiet_probes(rows: Iterable[Mapping[str, object]]) -> dict[str, list[float]]:
    """Per CPU model, the CPU probe of every gate reading a campaign took on a quiet machine, from
    its samples' metadata (records' `metadata` or a DataFrame's rows). A gate stamps its reading
    on every sample of its round: each (block, round, probe) counts once. Samples of several CPU
    models (a cell across machines) name no one machine. Pure."""
    seen: dict[str, dict[tuple, float]] = {}
    for md in rows:
        reading = _reading(md)
        if reading is not None and len(reading.models) == 1:
            seen.setdefault(reading.models[0], {})[reading.key] = reading.probe_ms
    return {model: list(probes.values()) for model, probes in seen.items()}


def campaign_probe_ms(rows: Iterable[Mapping[str, object]]) -> float | None:
    """The median CPU probe of a campaign's quiet gate readings, whatever CPU they name (None:
    its gate took none): what the paper prints beside each campaign. Pure."""
    probes = {r.key: r.probe_ms for r in map(_reading, rows) if r is not None}
    return statistics.median(probes.values()) if probes else None


def samples_probe_ms(samples) -> float | None:
    """`campaign_probe_ms` of a campaign's samples as a DataFrame (the paper's and the explore
    notebook's view; None: no column holds a probe)."""
    cols = [k for k in (QUIET_CPU_PROBE, QUIET_VERDICT, "cpu_model", "block", "round") if k in samples.columns]
    if QUIET_CPU_PROBE not in cols:
        return None
    return campaign_probe_ms(samples[cols].to_dict("records"))


def reference_of(campaigns: dict[str, dict[str, list[float]]], cpu_model: str) -> ProbeReference | None:
    """The reference on `cpu_model` from each campaign's `quiet_probes`: the median of the
    campaigns' medians (None: no campaign recorded a quiet probe on that CPU). Pure."""
    medians = tuple(
        (name, statistics.median(by_model[cpu_model]))
        for name, by_model in sorted(campaigns.items())
        if by_model.get(cpu_model)
    )
    if not cpu_model or not medians:
        return None
    return ProbeReference(cpu_model, statistics.median(ms for _, ms in medians), medians)


def reference_beside(campaign_dir: Path, cpu_model: str) -> ProbeReference | None:
    """The reference from the campaigns in `campaign_dir`'s parent (data/raw/ holds a project's
    campaigns), this one left out: its own probes are the run's yardstick already. A campaign
    whose samples cannot be read is left out too: it is not this run's to judge."""
    campaign_dir = Path(campaign_dir)
    found: dict[str, dict[str, list[float]]] = {}
    if not cpu_model or not campaign_dir.parent.is_dir():
        return None
    for other in sorted(campaign_dir.parent.iterdir()):
        samples = other / "samples.jsonl"
        try:
            if other.resolve() == campaign_dir.resolve() or not samples.is_file():
                continue
            found[other.name] = quiet_probes(getattr(r, "metadata", None) or {} for r in read_records(samples))
        except (VbenchError, OSError, ValueError, KeyError, TypeError):
            continue
    return reference_of(found, cpu_model)


def reference_said(campaign_dir: Path, cpu_model: str) -> tuple[ProbeReference | None, str]:
    """`reference_beside`, and the sentence that says it before a campaign or a check starts."""
    ref = reference_beside(campaign_dir, cpu_model)
    if ref is not None:
        return ref, f"this machine's CPU probe reference: {ref.describe()}"
    return None, f"no campaign beside this one recorded a quiet CPU probe on {cpu_model or 'this CPU'}"

"""One level of the factors a campaign varied beside what the cost model compares.

The cost model reads one cell of each job and each micro-benchmark per platform and refuses several
(`cost_model._one_cell`). A campaign that ran every platform with and without a setting (e.g.
`testbed.cpu_group: [false, true]`, costs-containers-grouped-amd) holds two cells of each: `vbench
predict --where cpu_group=false` reads it in the configurations at that level only, as if it had
run them alone. The level is read as the design's YAML reads it (`false`, `1000`, `bridge+nat`),
so `false` finds a sample's False and `1000` a float column's 1000.0."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping

import pandas as pd
import yaml

from vbench.campaign.design import factor_label
from vbench.errors import ParamsError
from vbench.stats.tidy import add_cells, plain

FACTOR = "factor."


def parse_levels(text: str | None, option: str = "--where") -> dict[str, str]:
    """`factor=level[,factor=level]` as {factor: level as text}, each factor as typed (its label,
    `cpu_group`, or its full name, `testbed.cpu_group`: `resolved` reads either). Refused naming
    `option` when a part has no `=`, an empty side, or names a factor twice. Pure."""
    if text is None:
        return {}
    levels: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        factor, eq, level = (s.strip() for s in part.partition("="))
        if not eq or not factor or not level:
            raise ParamsError(option, f"{part!r} is not factor=level (e.g. cpu_group=false)")
        if factor in levels:
            raise ParamsError(option, f"{factor} named twice in {text!r}")
        levels[factor] = level
    return levels


def resolved(asked: str, labels: Iterable[str]) -> str | None:
    """The factor label `asked` names: itself, or a full name (`testbed.gvisor.network`) whose
    label (`gvisor.network`, `vbench.campaign.design.factor_label`) is among `labels`. Pure."""
    labels = set(labels)
    if asked in labels:
        return asked
    label = factor_label(asked) if "." in asked else None
    return label if label in labels else None


def level_text(level: str) -> str:
    """A level as the samples' values print (`tidy.plain`): read as the design's YAML reads it. Pure."""
    try:
        value = yaml.safe_load(level)
    except yaml.YAMLError:
        return level
    return plain(value) if isinstance(value, (bool, int, float)) else level


def varied_levels(samples: pd.DataFrame) -> dict[str, list[str]]:
    """Factor label -> its levels (as text, in the order first met) for each `factor.*` column of the
    samples holding two or more. Pure."""
    out: dict[str, list[str]] = {}
    for col in samples.columns:
        if not col.startswith(FACTOR):
            continue
        values = list(dict.fromkeys(plain(v) for v in samples[col].dropna()))
        if len(values) > 1:
            out[col.removeprefix(FACTOR)] = values
    return out


def samples_at(
    samples: pd.DataFrame, levels: Mapping[str, str], name: str, varied: Mapping[str, list[str]] | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """The samples of the configurations at `levels` (factor label -> level) of each factor they vary,
    and those without the factor (a configuration it is scoped away from), their cells recomputed; a factor they do not vary leaves them whole, noted (a campaign
    that ran one configuration of it). A level the samples' factor never took is refused naming the
    campaign (`name`) and the levels it ran. `varied` is `varied_levels(samples)` when the caller
    has it. Pure."""
    varied = varied_levels(samples) if varied is None else varied
    notes: list[str] = []
    keep = pd.Series(True, index=samples.index)
    for factor, level in levels.items():
        if factor not in varied:
            notes.append(f"{name} did not vary {factor}: read whole")
            continue
        want = level_text(level)
        if want not in varied[factor]:
            raise ParamsError("--where", f"{name} ran {factor} at {varied[factor]}, not {level!r}")
        col = samples[FACTOR + factor]
        # A row without the factor (native's, of a factor scoped to gVisor) is at no other level: kept.
        keep &= col.map(lambda v: pd.isna(v) or plain(v) == want)
        notes.append(f"{name}: read at {factor}={want} ({', '.join(v for v in varied[factor] if v != want)} left out)")
    if keep.all():
        return samples, notes
    return add_cells(samples[keep].reset_index(drop=True)), notes


def campaigns_at(campaigns, levels: Mapping[str, str]) -> tuple[list, list[str]]:
    """Each campaign (vbench.stats.campaign.Campaign) read at `levels` (samples_at, each factor as
    `resolved` names it), with the notes; a factor none of them varies is refused naming `--where`
    (a typo would otherwise read every cell, and the model refuse them with no word of the option)."""
    if not levels:
        return list(campaigns), []
    campaigns = list(campaigns)
    varied_by = [varied_levels(c.samples) for c in campaigns]
    varied = {f for v in varied_by for f in v}
    labelled = {asked: resolved(asked, varied) for asked in levels}
    unknown = sorted(a for a, label in labelled.items() if label is None)
    if unknown:
        raise ParamsError(
            "--where",
            f"{', '.join(unknown)}: no campaign read varies it (they vary {sorted(varied) or 'no factor'})",
        )
    twice = sorted({label for label in labelled.values() if list(labelled.values()).count(label) > 1})
    if twice:
        raise ParamsError("--where", f"{', '.join(twice)} named twice")
    at = {labelled[asked]: level for asked, level in levels.items()}
    out, notes = [], []
    for c, v in zip(campaigns, varied_by):
        samples, said = samples_at(c.samples, at, c.name, v)
        out.append(replace(c, samples=samples))
        notes += said
    # A campaign read as the calibration and as a measured one is one reading: said once.
    return out, list(dict.fromkeys(notes))

"""What a campaign is, before any number: its factors and levels, blocks and rounds, runs per
cell, failures and, where the samples carry them, the quiet-machine verdicts. Pure."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone

import pandas as pd

from vbench.campaign.design import factor_label
from vbench.campaign.machine_ref import samples_probe_ms
from vbench.explore.data import CampaignData, sort_naturally
from vbench.samples import QUIET_MACHINE_PROBE, QUIET_VERDICT, is_aa
from vbench.stats.keys import natural_key
from vbench.stats.tidy import FACTOR_COLUMNS, plain, value_text


@dataclass(frozen=True)
class Factor:
    name: str
    #: Levels the samples hold, in natural order.
    levels: tuple[str, ...]
    #: Levels the design asked for (empty when the campaign has no design file).
    designed: tuple[str, ...] = ()

    @property
    def missing(self) -> tuple[str, ...]:
        """Designed levels no sample has (every run of them failed or was never made)."""
        return tuple(x for x in self.designed if x not in self.levels)


@dataclass(frozen=True, eq=False)
class DesignSummary:
    campaign: str
    description: str
    compare: tuple[str, ...]
    baseline: str
    factors: tuple[Factor, ...]
    blocks: tuple[str, ...]
    rounds: tuple[str, ...]
    runs: int
    failures: int
    first_run: float | None
    last_run: float | None
    commits: tuple[str, ...]
    #: benchmark, cell, level, runs, blocks, rounds: one row per cell of the design and level.
    cells: pd.DataFrame
    #: level, verdict, runs: empty when no sample carries a verdict.
    quiet: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The A/A copies of the baseline the samples hold (e.g. native~aa): measured on the baseline's
    #: kind of hosts, so the platform factor does not show them.
    aa_levels: tuple[str, ...] = ()
    #: The median of the quiet gate's CPU probes, ms, and this machine's reference for it when the
    #: samples carry one (vbench.campaign.machine_ref): a slow day of the machine shows here.
    cpu_probe_ms: float | None = None
    machine_ref_ms: float | None = None

    def runs_per_cell(self) -> pd.DataFrame:
        """Runs per (benchmark, cell) and level, as a table to read."""
        if self.cells.empty:
            return self.cells
        t = self.cells.pivot_table(
            index=["benchmark", "cell"], columns="level", values="runs", aggfunc="sum", fill_value=0
        )
        t = t[sorted(t.columns, key=natural_key)]
        t.columns.name = " / ".join(self.compare)
        return sort_naturally(t)

    def lines(self) -> list[str]:
        """The summary as Markdown bullets."""
        out = [f"**{self.campaign}**" + (f": {self.description}" if self.description else "")]
        compared = " / ".join(self.compare)
        out.append(f"- compared: **{compared}**, baseline **{self.baseline}**")
        for f in self.factors:
            text = f"- {f.name}: {', '.join(f.levels) or 'none'}"
            if f.missing:
                text += f" (designed but without samples: {', '.join(f.missing)})"
            out.append(text)
        if self.aa_levels:
            out.append(
                f"- A/A self-check: {', '.join(self.aa_levels)} (the baseline measured again as its own"
                " configuration: its ratio to the baseline must hold 1)"
            )
        out.append(f"- blocks: {len(self.blocks)} ({', '.join(self.blocks) or 'none recorded'})")
        out.append(
            f"- rounds: {len(self.rounds)} ({', '.join(self.rounds)})"
            if self.rounds
            else "- rounds: none recorded (one run of each cell per block)"
        )
        when = ""
        if self.first_run is not None and self.last_run is not None:
            start = datetime.fromtimestamp(self.first_run, timezone.utc)
            hours = (self.last_run - self.first_run) / 3600
            when = f", from {start:%Y-%m-%d %H:%M} UTC over {hours:.1f} h"
        out.append(f"- runs: {self.runs} with samples, {self.failures} failed{when}")
        if self.commits:
            out.append(f"- vbench commit(s): {', '.join(self.commits)}")
        if self.quiet.empty:
            out.append("- quiet-machine verdicts: none recorded in these samples")
        else:
            counts = self.quiet.groupby("verdict")["runs"].sum()
            out.append("- quiet-machine verdicts: " + ", ".join(f"{v}: {int(n)} run(s)" for v, n in counts.items()))
        if self.cpu_probe_ms is not None:
            out.append(
                f"- CPU probe (the gate's, on a quiet machine): median {self.cpu_probe_ms:.1f} ms"
                + (
                    f", x{self.cpu_probe_ms / self.machine_ref_ms:.2f} this machine's reference"
                    f" ({self.machine_ref_ms:.1f} ms)"
                    if self.machine_ref_ms
                    else ""
                )
            )
        return out


def _sorted_text(values) -> tuple[str, ...]:
    return tuple(sorted({plain(v) for v in values if not _missing(v)}, key=natural_key))


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and pd.isna(v))


def _factors(data: CampaignData) -> tuple[Factor, ...]:
    """The platform and every factor of the design (its environment factors and benchmark
    parameters swept, `factor.*` in the samples); for a campaign run outside a design, the
    columns that make cells (vbench.stats.tidy.FACTOR_COLUMNS) where they vary."""
    design = data.design()
    s = data.samples
    platforms_col = "host_platform" if "host_platform" in s.columns else "platform"
    out = [
        Factor(
            "platform",
            _sorted_text(s[platforms_col]) if len(s) else (),
            tuple(str(p) for p in design.get("platforms", [])),
        )
    ]
    declared = {
        factor_label(path): tuple(plain(v) for v in levels) for path, levels in design.get("factors", {}).items()
    }
    names = list(declared)
    names += [
        c.removeprefix("factor.")
        for c in s.columns
        if c.startswith("factor.") and c != "factor.platform" and c.removeprefix("factor.") not in names
    ]
    if not design:
        names += [c for c in FACTOR_COLUMNS if c in s.columns and s[c].dropna().astype(str).nunique() > 1]
    for name in names:
        if (name,) == data.comparison.compare:
            col = "platform"
        elif f"factor.{name}" in s.columns:
            col = f"factor.{name}"
        else:
            col = name if name in s.columns else None
        levels = _sorted_text(s[col]) if col else ()
        out.append(Factor(name, levels, declared.get(name, ())))
    return tuple(out)


def run_table(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per run: run_id, benchmark (its first sample's: a run may also record a watcher's,
    e.g. isolation_watch), level, cell, block, round, start (its first sample's time), in run order."""
    if samples.empty:
        return pd.DataFrame(columns=["run_id", "benchmark", "level", "cell", "block", "round", "start"])
    s = samples.sort_values("timestamp", kind="stable").assign(
        level=samples["platform"].astype(str),
        cell=samples["size"].fillna("").astype(str) if "size" in samples.columns else "",
        block=samples["block"].map(value_text) if "block" in samples.columns else "",
        round=samples["round"].map(value_text) if "round" in samples.columns else "",
    )
    # The headline metrics' cell: per-attempt rows of the same run carry the same one.
    runs = s.groupby("run_id", sort=False).agg(
        benchmark=("benchmark", "first"),
        level=("level", "first"),
        cell=("cell", _most_common),
        block=("block", "first"),
        round=("round", "first"),
        start=("timestamp", "min"),
    )
    return runs.reset_index().sort_values("start", kind="stable").reset_index(drop=True)


def _most_common(values: pd.Series) -> str:
    counts = values[values != ""].value_counts()
    return str(counts.index[0]) if len(counts) else ""


def quiet_verdicts(samples: pd.DataFrame) -> pd.DataFrame:
    """level, verdict, runs: each run's quiet-machine verdict (the `quiet.verdict` metadata key,
    flat or inside a `quiet` record), counted per level. Empty when no sample carries one."""
    if QUIET_VERDICT in samples.columns:
        verdicts = samples[QUIET_VERDICT]
    elif "quiet" in samples.columns:
        verdicts = samples["quiet"].map(_verdict_of)
    else:
        return pd.DataFrame(columns=["level", "verdict", "runs"])
    s = samples.sort_values("timestamp", kind="stable").assign(verdict=verdicts)
    s = s[s["verdict"].map(lambda v: not _missing(v) and str(v) != "")]
    if s.empty:
        return pd.DataFrame(columns=["level", "verdict", "runs"])
    per_run = s.groupby("run_id").agg(level=("platform", "first"), verdict=("verdict", "first"))
    out = per_run.groupby(["level", "verdict"]).size().rename("runs").reset_index()
    return out.astype({"level": str, "verdict": str})


def _verdict_of(record) -> str | None:
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except ValueError:
            return None
    return record.get("verdict") if isinstance(record, dict) else None


def design_summary(data: CampaignData) -> DesignSummary:
    s = data.samples
    runs = run_table(s)
    cells = pd.DataFrame(columns=["benchmark", "cell", "level", "runs", "blocks", "rounds"])
    if len(runs):
        cells = (
            runs.groupby(["benchmark", "cell", "level"])
            .agg(runs=("run_id", "nunique"), blocks=("block", "nunique"), rounds=("round", "nunique"))
            .reset_index()
        )
    commits = _sorted_text(s["vbench_commit"]) if "vbench_commit" in s.columns else ()
    design = data.design()
    return DesignSummary(
        campaign=data.name,
        description=str(design.get("description", "")),
        compare=data.comparison.compare,
        baseline=data.baseline,
        factors=_factors(data),
        blocks=tuple(b for b in _sorted_text(runs["block"]) if b),
        rounds=tuple(r for r in _sorted_text(runs["round"]) if r),
        runs=len(runs),
        failures=len(data.failures),
        first_run=float(runs["start"].min()) if len(runs) else None,
        last_run=float(runs["start"].max()) if len(runs) else None,
        commits=commits,
        cells=cells,
        quiet=quiet_verdicts(s),
        aa_levels=tuple(x for x in _sorted_text(s["platform"]) if is_aa(x)) if "platform" in s else (),
        cpu_probe_ms=samples_probe_ms(s),
        machine_ref_ms=_median(s[QUIET_MACHINE_PROBE]) if QUIET_MACHINE_PROBE in s else None,
    )


def _median(values: pd.Series) -> float | None:
    v = pd.to_numeric(values, errors="coerce").dropna()
    return float(v.median()) if len(v) else None

"""How a campaign ran each micro-benchmark of the cost vector, and where two campaigns ran one
differently.

A cost ratio carried from a fit's calibration to a platform's (`vbench predict`) is the same
measure only if both ran the benchmark the same way. The benchmarks have changed under their
names: jvmstart's value became the median of windows of warm starts (issue #53, 2026-12-05), rpc's
calls can be priced with the host's other CPUs busy, and a design committed before a change, run
again, is that design at today's code. Every sample carries its benchmark's settings (its
config's fields, vbench.benchmarks.micro._common.params), so the two campaigns' samples say it. A
sample recorded before a setting existed was measured as its module's `SETTINGS_BEFORE_RECORDED`
says (rpc's calls idle, jvmstart's one window of cold starts); a setting without such an entry
reads NOT_RECORDED.

A job's ratio is read the same way: the fit's jobs and the measured jobs a prediction is compared
with must be the same jobs, in their own settings (TeraSort's size, NNBench's barrier) and in the
cluster's that every Hadoop sample records (CLUSTER_FIELDS: a fit timed with speculation off, in
the Hadoop configuration's hash, is not a prediction of jobs timed with it on).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import pandas as pd

from vbench.benchmarks.registry import find
from vbench.stats.tidy import value_text

#: Settings that say how much is timed, not what: a difference in them is not reported.
HOW_MUCH = frozenset({"repeats", "count", "seconds", "warmup_s"})
#: How a setting reads where a campaign's samples of the benchmark do not carry it and its module
#: does not say what they were measured with.
NOT_RECORDED = "not recorded"
#: What every Hadoop sample records of the cluster its job ran on, compared as a job's settings are.
CLUSTER_FIELDS = ("workers", "hadoop_version", "hadoop_config_hash")


def settings_fields(benchmark: str) -> tuple[str, ...]:
    """The fields of `benchmark`'s config that say what it measures (all but HOW_MUCH)."""
    _, module = find(benchmark)
    return tuple(f for f in module.Config.model_fields if f not in HOW_MUCH)


def settings_of(samples: pd.DataFrame, benchmark: str, also: Iterable[str] = ()) -> dict[str, frozenset[str]]:
    """Each of `benchmark`'s settings (settings_fields, then the columns `also` names) -> the
    values, as text, its samples in `samples` carry; a sample without one reads as its module's
    SETTINGS_BEFORE_RECORDED says it was measured, else NOT_RECORDED; {} where the campaign has
    none of its samples. Pure."""
    rows = samples[samples["benchmark"] == benchmark] if "benchmark" in samples.columns else samples.iloc[0:0]
    if rows.empty:
        return {}
    _, module = find(benchmark)
    before: dict[str, Any] = getattr(module, "SETTINGS_BEFORE_RECORDED", {})
    out = {}
    for f in (*settings_fields(benchmark), *also):
        unrecorded = value_text(before[f]) if f in before else NOT_RECORDED
        values = rows[f] if f in rows.columns else (None,)
        out[f] = frozenset(value_text(v) or unrecorded for v in values)  # "": not in that sample
    return out


def _said(values: Iterable[str]) -> str:
    return " and ".join(sorted(values))


def settings_differ(
    benchmarks: Mapping[str, str],
    ours: pd.DataFrame,
    theirs: pd.DataFrame,
    our_name: str,
    their_name: str,
    *,
    ratios: str = "cost ratios",
    also: Iterable[str] = (),
) -> list[str]:
    """A note for each of `benchmarks` (what is read, a resource or a job -> its benchmark) that
    both sets of samples hold and ran with a setting (or a column `also` names) of different values,
    naming each one's values in both; `ratios` says what the difference puts in doubt. Pure."""
    notes = []
    also = tuple(also)
    for resource, benchmark in benchmarks.items():
        a, b = settings_of(ours, benchmark, also), settings_of(theirs, benchmark, also)
        if not a or not b:
            continue
        differ = [f"{f} {_said(a[f])} against {_said(b[f])}" for f in a if a[f] != b[f]]
        if differ:
            notes.append(
                f"{resource}: {benchmark} ran with other settings in {our_name} than in {their_name} "
                f"({'; '.join(differ)}): its {ratios} may not measure the same thing in both "
                "(docs/benchmarks.md, a benchmark's settings)"
            )
    return notes


def cells_like(
    samples: pd.DataFrame,
    reference: pd.DataFrame,
    timed: Iterable[tuple[str, str]],
    name: str,
    also: Iterable[str] = (),
) -> tuple[pd.DataFrame, list[str]]:
    """`samples` with each benchmark of `timed` (benchmark, metric: what a job's ratio reads) that
    it timed in several cells (its `size` column: TeraSort at 16 and 64 MB, or with speculation on
    and off) cut to the one cell whose settings, and the columns `also` names, are `reference`'s
    (settings_of): a campaign that compared two settings of a job gives the ratio of the one it
    shares with the fit. Only cells holding a timed metric count (rows derived from a run's task
    attempts may carry a cell of their own). A note names the cell read and those left out (`name`:
    the campaign). A benchmark with no such cell, or more than one, is left as it is (the model
    refuses several cells, naming them). Pure."""
    also = tuple(also)
    notes: list[str] = []
    if "size" not in samples.columns:
        return samples, notes
    metrics: dict[str, set[str]] = {}
    for benchmark, metric in timed:
        metrics.setdefault(benchmark, set()).add(metric)
    for benchmark, names in metrics.items():
        rows = samples["benchmark"] == benchmark
        times = rows & samples["metric"].isin(names)
        cells = sorted(str(c) for c in samples.loc[times, "size"].dropna().unique())
        want = settings_of(reference, benchmark, also)
        if len(cells) < 2 or not want:
            continue
        cell_of = samples["size"].astype(str)
        like = [c for c in cells if settings_of(samples[times & (cell_of == c)], benchmark, also) == want]
        if len(like) != 1:
            continue
        samples = samples[~rows | (cell_of == like[0])]
        others = ", ".join(repr(c) for c in cells if c != like[0])
        notes.append(f"{benchmark} in {name}: cell {like[0]!r} read (its settings are the fit's), {others} left out")
    return samples, notes

"""How long after NNBench's barrier its maps began their operations, per run (issue #53): what
NNBench's own late-map count does not say in Hadoop 3 (it stayed 0 on gVisor's maps that began
tens of seconds late, costs-gvisor-network).

Reads, per campaign directory:

  raw/nnbench-*/<op>.{stdout,stderr}  each run's captured client output, through
             vbench.benchmarks.hadoop.nnbench.ops_start_after_barrier (the reader the benchmark's
             `parse` uses): maps done - longest map - barrier, about 0 when the maps waited at the
             barrier, tens of seconds when one began late
  samples.jsonl  each run's configuration (its platform, and the factor levels that differ among
             the campaign's NNBench runs, e.g. gvisor.network or slowdown.syscall_stops: printed
             first), its job time (`<op>_job_time`, `<op>.job_time`) and NNBench's average
             execution time per operation

Prints one row per run and op (campaign, configuration, run, op, job time s, avg exec time ms,
ops start after barrier s; "-" where a run has no such sample or its log lacks a line), then per
campaign, configuration and op the min/median/max of the start after the barrier.

    python3 selfbench/nnbench_barrier.py DATA/raw/CAMPAIGN [DATA/raw/CAMPAIGN ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vbench.benchmarks.hadoop import nnbench  # noqa: E402
from vbench.samples import Failure, Sample, read_records  # noqa: E402

FACTOR = "factor."


@dataclass(frozen=True)
class RunFacts:
    """What samples.jsonl says of one NNBench run."""

    platform: str
    levels: Mapping[str, Any]  # factor -> level, as the runner stamped them (`factor.<name>`)
    values: Mapping[str, float]  # metric -> value


@dataclass(frozen=True)
class Row:
    campaign: str
    configuration: str
    run_id: str
    op: str
    job_time_s: float | None
    avg_exec_ms: float | None
    start_after_barrier_s: float | None


def run_facts(records: Iterable[Sample | Failure]) -> dict[str, RunFacts]:
    """Each NNBench run's platform, factor levels and sample values, by run id. A failure record
    gives its run's configuration with no values. Pure."""
    meta: dict[str, Mapping[str, Any]] = {}
    values: dict[str, dict[str, float]] = {}
    for r in records:
        m = r.metadata
        if r.benchmark != nnbench.NAME or not m.get("run_id"):
            continue
        meta.setdefault(m["run_id"], m)
        if isinstance(r, Sample):
            values.setdefault(m["run_id"], {})[r.metric] = r.value
    return {
        run: RunFacts(
            str(m.get("platform", "?")),
            {k.removeprefix(FACTOR): v for k, v in m.items() if k.startswith(FACTOR)},
            values.get(run, {}),
        )
        for run, m in meta.items()
    }


def distinguishing_factors(facts: Mapping[str, RunFacts]) -> list[str]:
    """The factors whose level (or absence) differs among the runs: a level every run shares (the
    fit's cpu_fraction 1.0) names no configuration. Pure."""
    names = sorted({f for rf in facts.values() for f in rf.levels})
    return [f for f in names if len({repr(rf.levels.get(f)) for rf in facts.values()}) > 1]


def distinguishing(facts: Mapping[str, RunFacts]) -> list[str]:
    """What tells the campaign's configurations apart: the platform where it varies, then the
    distinguishing factors. Pure."""
    platform = ["platform"] if len({rf.platform for rf in facts.values()}) > 1 else []
    return platform + distinguishing_factors(facts)


def configuration(rf: RunFacts, factors: Iterable[str]) -> str:
    """`platform[factor=level,...]` over the distinguishing factors the run has. Pure."""
    levels = ",".join(f"{f}={rf.levels[f]}" for f in factors if f in rf.levels)
    return f"{rf.platform}[{levels}]" if levels else rf.platform


def _metric(values: Mapping[str, float], *names: str) -> float | None:
    return next((values[n] for n in names if n in values), None)


def rows(campaign: str, starts: Mapping[str, Mapping[str, float | None]], facts: Mapping[str, RunFacts]) -> list[Row]:
    """One row per run with captured output and op, in run order; a run samples.jsonl does not
    know is "(no samples)". Pure."""
    factors = distinguishing_factors(facts)
    out = []
    for run in sorted(starts):
        rf = facts.get(run)
        config = configuration(rf, factors) if rf else "(no samples)"
        values = rf.values if rf else {}
        for op in nnbench.OPS:
            out.append(
                Row(
                    campaign,
                    config,
                    run,
                    op,
                    _metric(values, f"{op}_job_time", f"{op}.job_time"),
                    _metric(values, f"{op}_avg_exec_time"),
                    starts[run].get(op),
                )
            )
    return out


def summary(table: Iterable[Row]) -> list[tuple[str, str, str, int, float, float, float]]:
    """(campaign, configuration, op, runs, min, median, max) of the start after the barrier, over
    the runs whose log gives it. Pure."""
    groups: dict[tuple[str, str, str], list[float]] = {}
    for r in table:
        if r.start_after_barrier_s is not None:
            groups.setdefault((r.campaign, r.configuration, r.op), []).append(r.start_after_barrier_s)
    return [(*key, len(v), min(v), statistics.median(v), max(v)) for key, v in groups.items()]


def _fmt(x: float | None, digits: int) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def format_rows(table: list[Row]) -> str:
    head = ("campaign", "configuration", "run", "op", "job_s", "avg_exec_ms", "start_after_barrier_s")
    body = [
        (
            r.campaign,
            r.configuration,
            r.run_id,
            r.op,
            _fmt(r.job_time_s, 1),
            _fmt(r.avg_exec_ms, 2),
            _fmt(r.start_after_barrier_s, 2),
        )
        for r in table
    ]
    return _columns([head, *body])


def format_summary(groups: list[tuple[str, str, str, int, float, float, float]]) -> str:
    head = ("campaign", "configuration", "op", "runs", "min_s", "median_s", "max_s")
    body = [(c, cfg, op, str(n), f"{lo:.2f}", f"{med:.2f}", f"{hi:.2f}") for c, cfg, op, n, lo, med, hi in groups]
    return _columns([head, *body])


def _columns(lines: list[tuple[str, ...]]) -> str:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines)


def read_starts(campaign: Path) -> dict[str, dict[str, float | None]]:
    """Each NNBench run's start after the barrier per op, from its captured client output."""
    out = {}
    for run in sorted(p for p in (campaign / "raw").glob("nnbench-*") if p.is_dir()):
        streams = {op: [run / f"{op}.{s}" for s in ("stdout", "stderr")] for op in nnbench.OPS}
        out[run.name] = {
            op: nnbench.ops_start_after_barrier(*(p.read_text(errors="replace") for p in paths if p.is_file()))
            for op, paths in streams.items()
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("campaigns", type=Path, nargs="+", help="campaign directories, e.g. data/raw/costs-gvisor-network")
    args = ap.parse_args(argv)
    table: list[Row] = []
    for campaign in args.campaigns:
        facts = run_facts(read_records(campaign / "samples.jsonl"))
        print(f"{campaign.name}: configurations differ by {', '.join(distinguishing(facts)) or 'nothing'}")
        table += rows(campaign.name, read_starts(campaign), facts)
    print()
    print(format_rows(table))
    print()
    print(format_summary(summary(table)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

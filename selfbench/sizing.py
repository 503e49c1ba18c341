"""Sizing sweep (issue #19 item 2): how a benchmark's run-to-run variation and its cost in
seconds change with its size, on this machine, so that the designs' sizes are chosen from a
measurement and not a guess.

One benchmark, one parameter (`--knob`), several levels: the levels are variants of one ad hoc
design on the testbed's platform (native by default), `--runs` blocks, each a fresh testbed, the
variants shuffled within a block by the runner, as any campaign. For each level and metric it
prints the mean, the CV over blocks (per host, then the mean over hosts: each host is its own
machine part) and the median seconds a run took (the runner's cell, set-up included).

    python3 selfbench/sizing.py fio runtime_s 3,10,30 --runs 5 [--set size_mb=256] [--out DIR]
    python3 selfbench/sizing.py --campaign DIR     # the table again from a finished sweep
    python3 selfbench/sizing.py --campaign data/raw/heartbeats --factors am_heartbeat_ms,nodemanager_heartbeat_ms
                                                   # the same table for a factor campaign's levels

It refuses to measure on a loaded machine (1-minute load average >= 1 before it starts) unless
--allow-loaded, which marks the table LOADED; the load during the sweep (the benchmark's own) is quoted. The table is printed as Markdown and written next to the samples
(sizing.md), to be copied into docs/ with the load average it quotes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402

from vbench.benchmarks import registry  # noqa: E402
from vbench.campaign.adhoc import adhoc_experiment  # noqa: E402
from vbench.campaign.design import BenchmarkSpec  # noqa: E402
from selfbench.precision import LoadSampler  # noqa: E402
from vbench.campaign.runner import run_campaign  # noqa: E402
from vbench.params import load_hadoop, load_testbed  # noqa: E402
from vbench.stats.tidy import read_campaign  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class SizingRow:
    level: str
    metric: str
    n: int
    mean: float
    cv_pct: float | None
    seconds_per_run: float | None


def _value(text: str) -> int | float | str:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def sizing_rows(samples: pd.DataFrame, knob: str, seconds: dict[str, float]) -> list[SizingRow]:
    """Per (level of `knob`, metric): runs, mean, CV over blocks (per host, mean over hosts) and
    the median seconds per run. `samples`: tidy rows with metric, value, block, host, cell_id and
    the knob's column; warm-up runs are left out. Pure."""
    d = samples[~samples.get("warmup", pd.Series(False, index=samples.index)).fillna(False).astype(bool)]
    d = d[~d["metric"].astype(str).str.startswith("counter.")]  # Hadoop's counters: not figures to size by
    # A Hadoop job's figures are the cluster's, not a host's.
    d = d.assign(host=d["host"].fillna("cluster") if "host" in d else "cluster")
    rows = []
    for (level, metric), g in d.groupby([knob, "metric"], sort=True):
        per_block = g.groupby(["host", "block"])["value"].mean()
        cvs = []
        for _, h in per_block.groupby(level=0):
            if len(h) >= 2 and h.mean() != 0:
                cvs.append(100 * h.std(ddof=1) / abs(h.mean()))
        took = [seconds[c] for c in g["cell_id"].unique() if c in seconds]
        rows.append(
            SizingRow(
                level=f"{level:g}" if isinstance(level, float) else str(level),  # 5.0 from a float column: 5
                metric=str(metric),
                n=int(g["block"].nunique()),
                mean=float(g["value"].mean()),
                cv_pct=float(statistics.fmean(cvs)) if cvs else None,
                seconds_per_run=float(statistics.median(took)) if took else None,
            )
        )
    return rows


def combined_level(samples: pd.DataFrame, factors: list[str]) -> pd.Series:
    """One level per row from several factors ("am_heartbeat_ms=1000, nodemanager_heartbeat_ms=200"),
    read from the samples' `factor.<name>` columns (or `<name>`). Pure."""
    parts = []
    for name in factors:
        col = next((c for c in (f"factor.{name}", name) if c in samples.columns), None)
        if col is None:
            raise SystemExit(f"sizing: the samples have no column factor.{name} or {name}")
        parts.append(name + "=" + samples[col].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v)))
    return pd.concat(parts, axis=1).agg(", ".join, axis=1)


def markdown(rows: list[SizingRow], knob: str, head: str) -> str:
    out = [head, "", f"| {knob} | metric | blocks | mean | CV % | s per run |", "|---|---|---|---|---|---|"]
    for r in rows:
        cv = f"{r.cv_pct:.1f}" if r.cv_pct is not None else "-"
        took = f"{r.seconds_per_run:.0f}" if r.seconds_per_run is not None else "-"
        out.append(f"| {r.level} | {r.metric} | {r.n} | {r.mean:.4g} | {cv} | {took} |")
    return "\n".join(out) + "\n"


class CellClock:
    """The runner's progress interface, keeping how long each cell took."""

    def __init__(self, say=print):
        self.say, self.t0, self.seconds = say, {}, {}

    def begin(self, cell_ids):
        self.say(f"sizing: {len(cell_ids)} runs")

    def cell_started(self, cell_id):
        self.t0[cell_id] = time.monotonic()

    def cell_finished(self, cell_id, failure):
        self.seconds[cell_id] = time.monotonic() - self.t0.pop(cell_id, time.monotonic())
        self.say(f"  {cell_id}: {failure or 'ok'} ({self.seconds[cell_id]:.0f} s)")

    def cell_skipped(self, cell_id, why):
        self.say(f"  {cell_id}: skipped ({why})")

    def end(self):
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("benchmark", nargs="?")
    ap.add_argument("knob", nargs="?", help="the benchmark parameter swept")
    ap.add_argument("levels", nargs="?", help="comma-separated values of the knob")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE for every level")
    ap.add_argument("--runs", type=int, default=5, help="blocks (fresh testbeds)")
    ap.add_argument("--platform", default="native")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--params-dir", type=Path, default=REPO / "params")
    ap.add_argument("--out", type=Path, help="campaign directory (default: a new one under /tmp)")
    ap.add_argument("--campaign", type=Path, help="only print the table of a finished sweep")
    ap.add_argument("--factors", help="with --campaign: the factor(s) whose levels make the rows (comma-separated)")
    ap.add_argument("--allow-loaded", action="store_true")
    a = ap.parse_args(argv)

    if a.campaign and a.factors:
        samples = read_campaign(a.campaign).samples
        samples = samples.assign(level=combined_level(samples, a.factors.split(",")))
        head = f"Campaign {a.campaign.name}: levels of {a.factors}"
        print(markdown(sizing_rows(samples, "level", {}), "level", head))
        return 0
    if a.campaign:
        meta = json.loads((a.campaign / "sizing.json").read_text())
        rows = sizing_rows(read_campaign(a.campaign).samples, meta["knob"], meta["seconds"])
        print(markdown(rows, meta["knob"], meta["head"]))
        return 0
    if not (a.benchmark and a.knob and a.levels):
        ap.error("give BENCHMARK KNOB LEVELS (or --campaign DIR)")
    load0 = os.getloadavg()[0]
    if load0 >= 1 and not a.allow_loaded:
        print(f"sizing: refused: 1-minute load average {load0:.2f} >= 1 (--allow-loaded to measure anyway)")
        return 2
    fixed = {k: _value(v) for k, v in (kv.split("=", 1) for kv in a.set)}
    kind, module = registry.find(a.benchmark)
    levels = [_value(v) for v in a.levels.split(",")]
    for level in levels:  # a bad level is refused before anything runs
        registry.make_config(module, {**fixed, a.knob: level}, None)
    # One entry with a list of levels: each level is its own variant and cell (cpu[time_s=2]).
    specs = [BenchmarkSpec(benchmark=a.benchmark, config={**fixed, a.knob: levels})]
    tbp = load_testbed(a.params_dir / "testbed.yaml", platform=a.platform, workers=a.workers)
    hp = load_hadoop(a.params_dir / "hadoop.yaml")
    out = a.out or Path(tempfile.mkdtemp(prefix=f"sizing-{a.benchmark}-"))
    micro, suite = (tuple(specs), ()) if kind == "micro" else ((), tuple(specs))
    exp = adhoc_experiment(f"sizing-{a.benchmark}", tbp, calibrate=micro, suite=suite, repetitions=a.runs)
    clock = CellClock()
    t0 = time.time()
    sampler = LoadSampler().start()
    try:
        result = run_campaign(exp, tbp, hp, out, log=print, progress=clock)
    finally:
        during = sampler.stop() or [os.getloadavg()[0]]
    # Only the load before counts: during the sweep the benchmark itself loads the machine.
    loaded = "LOADED " if load0 >= 1 else ""
    head = (
        f"{loaded}Sizing sweep of {a.benchmark} over {a.knob} on {a.platform} ({a.workers} worker(s), "
        f"{a.runs} blocks, {result.failures} failed runs) in {(time.time() - t0) / 60:.1f} min; "
        f"load average {load0:.2f} before, {min(during):.2f}-{max(during):.2f} during"
        + (f"; other settings: {fixed}" if fixed else "")
    )
    meta = {"knob": a.knob, "head": head, "seconds": clock.seconds}
    (out / "sizing.json").write_text(json.dumps(meta, indent=1) + "\n")
    text = markdown(sizing_rows(read_campaign(out).samples, a.knob, clock.seconds), a.knob, head)
    (out / "sizing.md").write_text(text)
    print(text)
    print(f"samples: {out / 'samples.jsonl'}")
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main())

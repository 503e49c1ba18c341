"""The campaign runner: runs a design's cells in order, one cluster per (block, platform), and
resumes an interrupted campaign (Ctrl-C, kill -9, a crash) where it stopped.

The ledger is samples.jsonl itself: every record carries its `cell_id`, and one cell's records
are appended in a single fsync'd write, so a cell is either fully recorded or (a torn last
line, skipped on read) not at all; resuming never loses or repeats a finished cell.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Callable

from vbench.benchmarks.hadoop import HADOOP_BENCHMARKS
from vbench.benchmarks.hadoop.execute import execute
from vbench.benchmarks.micro import MICRO_BENCHMARKS
from vbench.benchmarks.suite import Planned, drop_caches_line, measure_micro, records_of
from vbench.campaign.design import Cell, Experiment, design_hash, expand
from vbench.errors import VbenchError
from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.lifecycle import interrupts_unwind
from vbench.monitor.monitor import Monitor, finish_monitor
from vbench.params import HadoopParams, MachineFacts, TestbedParams, check_cluster_fits
from vbench.provenance import cluster_provenance, vbench_commit
from vbench.samples import read_records
from vbench.store import CampaignStore
from vbench.testbed import Testbed

Log = Callable[[str], None]


@dataclass
class CampaignResult:
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    already_done: int = 0
    failures: int = 0
    seconds: float = 0.0


def done_cells(store: CampaignStore) -> set[str]:
    if not store.samples_path.exists():
        return set()
    return {str(r.metadata["cell_id"]) for r in read_records(store.samples_path) if "cell_id" in r.metadata}


def _check_design(store: CampaignStore, exp: Experiment) -> None:
    """A campaign directory belongs to one design: resuming under a changed design would mix data."""
    meta = store.root / "campaign.json"
    h = design_hash(exp)
    if meta.exists():
        old = json.loads(meta.read_text())
        if old.get("design_hash") != h:
            raise VbenchError(
                f"{store.root} holds a campaign of another design (hash {old.get('design_hash')}, now {h}); "
                f"use another campaign name, or remove the directory to start over"
            )
        return
    store.root.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"design_hash": h, "experiment": exp.model_dump(mode="json")}, indent=1, sort_keys=True))


def params_for(exp: Experiment, platform: str, testbed: TestbedParams, hadoop: HadoopParams) -> tuple[TestbedParams, HadoopParams]:
    # An experiment may name its hosts (a mixed cluster: Liu et al.); else master + N workers.
    tb = testbed.model_validate({**testbed.model_dump(exclude_none=True), **exp.testbed, "platform": platform,
                                 "workers": exp.workers, "hosts": exp.testbed.get("hosts")})
    hp = hadoop.model_validate({**hadoop.model_dump(), **exp.hadoop})
    return tb, hp


def run_campaign(exp: Experiment, testbed: TestbedParams, hadoop: HadoopParams, campaign_dir: Path,
                 log: Log = print, progress: Callable[[int, str], None] | None = None,
                 kinds: frozenset[str] = frozenset({"micro", "hadoop"})) -> CampaignResult:
    """Run (or resume) the campaign's cells of `kinds` ("micro" = calibration, "hadoop" = suite);
    `progress(total, label)` is called before each cell."""
    t0 = time.monotonic()
    store = CampaignStore(campaign_dir)
    for platform in exp.platforms:  # refuse what cannot run before anything starts
        tb, hp = params_for(exp, platform, testbed, hadoop)
        if exp.suite and "hadoop" in kinds:
            check_cluster_fits(tb, hp, MachineFacts.local())
    _check_design(store, exp)
    cells = [c for c in expand(exp) if c.variant.kind in kinds]
    done = done_cells(store)
    todo = [c for c in cells if c.cell_id not in done]
    result = CampaignResult(already_done=len(cells) - len(todo))
    log(f"campaign {campaign_dir.name}: {len(cells)} cells, {result.already_done} already done, {len(todo)} to run")
    durations: dict[str, list[float]] = {}
    budget_s = exp.budget_minutes * 60 if exp.budget_minutes else None
    base = {"campaign": campaign_dir.name, "experiment": exp.experiment, "design_hash": design_hash(exp),
            "vbench_commit": vbench_commit()}
    dist = fetch(hadoop.version, hadoop.examples_version, log=log) if any(c.variant.kind == "hadoop" for c in todo) else None

    with interrupts_unwind():
        for (block, platform), group in groupby(todo, key=lambda c: (c.block, c.platform)):
            group = list(group)
            if budget_s is not None and _over_budget(t0, budget_s, group[0], durations):
                result.skipped += [c.cell_id for c in group]
                continue
            tb, hp = params_for(exp, platform, testbed, hadoop)
            Testbed(tb, log=log).down()  # a campaign owns its testbed name: clear what a kill -9 left
            with Testbed(tb, log=log) as bed:
                cluster = None
                try:
                    for cell in group:
                        if budget_s is not None and _over_budget(t0, budget_s, cell, durations):
                            result.skipped.append(cell.cell_id)
                            continue
                        if progress:
                            progress(len(todo), cell.cell_id)
                        if cell.variant.kind == "hadoop" and cluster is None:
                            cluster = HadoopCluster(bed.hosts, hp, dist, log=log)
                            cluster.up()
                            provenance = cluster_provenance(cluster)
                        stamp = {**base, "platform": platform, "block": block, "repetition": block,
                                 "warmup": cell.warmup, "cell_id": cell.cell_id,
                                 **{f"factor.{k}": v for k, v in cell.variant.levels}}
                        c0 = time.monotonic()
                        result.failures += _run_cell(cell, bed, cluster, exp, stamp,
                                                     provenance if cluster else {}, store, log)
                        durations.setdefault(cell.variant.key, []).append(time.monotonic() - c0)
                        result.ran.append(cell.cell_id)
                finally:
                    if cluster is not None:
                        cluster.down()
    if result.skipped:
        (store.root / "skipped.json").write_text(json.dumps(
            {"reason": f"time budget of {exp.budget_minutes} min", "cells": result.skipped}, indent=1))
        log(f"time budget reached: {len(result.skipped)} cells skipped (listed in {store.root / 'skipped.json'})")
    result.seconds = time.monotonic() - t0
    return result


def _over_budget(t0: float, budget_s: float, cell: Cell, durations: dict[str, list[float]]) -> bool:
    past = durations.get(cell.variant.key)
    estimate = sum(past) / len(past) if past else 0.0
    return time.monotonic() - t0 + estimate > budget_s


def _run_cell(cell: Cell, bed: Testbed, cluster: HadoopCluster | None, exp: Experiment, stamp: dict,
              provenance: dict, store: CampaignStore, log: Log) -> int:
    """Run one cell and store all its records in one append. Returns the number of failed runs."""
    v = cell.variant
    mon = Monitor(bed.hosts, bed.params.name, exp.monitor_interval_s, log).start() if exp.monitor_interval_s else None
    if v.kind == "micro":
        runs = measure_micro(bed.hosts, Planned(v.benchmark, v.config, MICRO_BENCHMARKS[v.benchmark]), log)
        kind_stamp = {"benchmark_kind": "micro"}
    else:
        assert cluster is not None
        if exp.drop_caches:
            for h in cluster.hosts:
                cluster.sh(h, drop_caches_line())
        runs = [execute(cluster, HADOOP_BENCHMARKS[v.benchmark], v.config, log=log)]
        kind_stamp = {"benchmark_kind": "hadoop", **provenance}
    kind_stamp.update(finish_monitor(mon, store.root, cell.cell_id),
                      host_platforms={h.name: h.platform for h in bed.hosts})
    store.save_runs([records_of(r) for r in runs], {**stamp, **kind_stamp})
    failed = sum(not r.ok for r in runs)
    log(f"{cell.cell_id}: {'ok' if not failed else f'{failed} failed'}")
    return failed

"""The campaign runner: runs a design's cells in order, one testbed and cluster per (block,
configuration) (a configuration: a platform with its environment factors' levels), and
resumes an interrupted campaign (Ctrl-C, kill -9, a crash) where it stopped.

The ledger is samples.jsonl itself (vbench.ledger): every record carries its `cell_id`, and one
cell's records (all its attempts) are appended in a single fsync'd write that ends with the
cell's closing record. A cell is done only when that record is there; on resume, an append that
did not finish is cut off (kept aside in samples.jsonl.torn-<time>) and its cell runs again, so
resuming never loses, fakes or repeats a finished cell.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Callable

from vbench import durable
from vbench.benchmarks.micro import MICRO_BENCHMARKS
from vbench.campaign.design import Cell, Configuration, Experiment, deep_merge, design_hash, expand
from vbench.campaign.hooks import RunHook, check_hook
from vbench.campaign.hosts_source import HostsSource, TestbedSource
from vbench.campaign.measure import Planned, failure_reason, measure_hadoop, measure_micro, records_of
from vbench.campaign.pagecache import kept
from vbench.campaign.progress import CampaignProgress, NoProgress
from vbench.errors import ParamsError, VbenchError
from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.lifecycle import interrupts_unwind
from vbench.monitor.monitor import Monitor, finish_monitor
from vbench.machine_fit import MachineFacts, check_cluster_fits
from vbench.params import HadoopParams, TestbedParams
from vbench.provenance import cluster_provenance, vbench_commit
from vbench.host import Host
from vbench.ledger import read_ledger
from vbench.samples import Failure
from vbench.store import CampaignStore

Log = Callable[[str], None]


@dataclass
class CampaignResult:
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    already_done: int = 0
    failures: int = 0
    seconds: float = 0.0
    #: Why the campaign stopped early (design `on_failure: stop`), else None.
    stopped: str | None = None


def done_cells(store: CampaignStore) -> set[str]:
    """Cells whose closing record is in the ledger (in a campaign begun by an older vbench: cells
    with any record). Cells whose configuration never came up are not done: they run again."""
    if not store.samples_path.exists():
        return set()
    return read_ledger(store.samples_path).done_cells


def _check_design(store: CampaignStore, exp: Experiment) -> None:
    """A campaign directory belongs to one design: resuming under a changed design would mix data.
    Samples without a campaign.json are of an unknown design: adopted only when asked (--append)."""
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
    if store.holds_samples() and not store.append:
        raise VbenchError(f"{store.root} holds samples but no campaign.json, so their design is unknown; use another "
                          f"campaign name, or pass --append to adopt them into this design")
    durable.make_dirs(store.root)
    durable.write_text(meta, json.dumps({"design_hash": h, "experiment": exp.model_dump(mode="json")}, indent=1,
                                        sort_keys=True))
    durable.fsync_dir(store.root)


def params_for(exp: Experiment, config: Configuration | str, testbed: TestbedParams,
               hadoop: HadoopParams) -> tuple[TestbedParams, HadoopParams]:
    """The testbed and Hadoop params of one configuration: the files', then the experiment's
    overrides, then the configuration's factor levels."""
    config = Configuration(config) if isinstance(config, str) else config
    tb_doc = deep_merge(deep_merge(testbed.model_dump(exclude_none=True), exp.testbed), config.overrides("testbed"))
    # An experiment may name its hosts (a mixed cluster: Liu et al.); else master + N workers.
    tb = testbed.model_validate({**tb_doc, "platform": config.platform, "workers": exp.workers,
                                 "hosts": exp.testbed.get("hosts")})
    return tb, hadoop_for(exp, config, hadoop)


def hadoop_for(exp: Experiment, config: Configuration, hadoop: HadoopParams,
               overrides: dict | None = None) -> HadoopParams:
    """The Hadoop params of one configuration: the file's, the experiment's overrides, the
    configuration's factor levels, then `overrides` (what a hosts source sets, e.g. java_home)."""
    doc = deep_merge(deep_merge(hadoop.model_dump(), exp.hadoop), config.overrides("hadoop"))
    return hadoop.model_validate(deep_merge(doc, overrides or {}))


def _params(exp: Experiment, config: Configuration, testbed: TestbedParams, hadoop: HadoopParams,
            source: HostsSource) -> tuple[TestbedParams, HadoopParams]:
    if source.local:
        return params_for(exp, config, testbed, hadoop)
    # Hosts from elsewhere: the testbed params do not apply; the source may set e.g. java_home.
    return testbed, hadoop_for(exp, config, hadoop, getattr(source, "hadoop_overrides", {}))


def run_campaign(exp: Experiment, testbed: TestbedParams, hadoop: HadoopParams, campaign_dir: Path,
                 log: Log = print, progress: CampaignProgress | None = None,
                 kinds: frozenset[str] = frozenset({"micro", "hadoop"}),
                 hosts_source: HostsSource | None = None, append: bool = False,
                 hook: RunHook | None = None) -> CampaignResult:
    """Run (or resume) the campaign's cells of `kinds` ("micro" = calibration, "hadoop" = suite);
    `progress` hears of every cell as it starts and ends. `hosts_source` gives each configuration's
    hosts: the local testbed (default) or an SSH inventory. `append`: the user said to add to a
    committed campaign, or to adopt samples without a campaign.json. `hook`: what the design
    adds around each Hadoop run (vbench.campaign.hooks), from the command that runs it."""
    t0 = time.monotonic()
    store = CampaignStore(campaign_dir, append=append)
    source = hosts_source or TestbedSource(log)
    if exp.rounds > 1:  # the design expands them; the runner's sessions come with the next change (#18)
        raise ParamsError("experiment.rounds", "designs with rounds > 1 are not run yet")
    check_hook(exp, hook)
    for config in exp.configurations():  # refuse what cannot run before anything starts
        try:
            if not source.local and config.overrides("testbed"):
                raise ParamsError("factors", "testbed factors (network mode, VMs per host...) describe the local "
                                  "testbed; an inventory's hosts are what they are: vary them in the inventory")
            tb, hp = _params(exp, config, testbed, hadoop, source)
            if exp.suite and "hadoop" in kinds and source.local:
                check_cluster_fits(tb, hp, MachineFacts.local())
        except ParamsError as exc:
            raise ParamsError(f"configuration {config.key}: {exc.field}", str(exc).split(": ", 1)[-1]) from None
    store.check_appendable()
    source.check(exp.platforms)
    _check_design(store, exp)
    aside = store.cut_torn_tail()
    if aside is not None:
        log(f"campaign {campaign_dir.name}: an append that did not finish was cut off the ledger (kept in {aside}); "
            "its cell runs again")
    cells = [c for c in expand(exp) if c.variant.kind in kinds]
    done = done_cells(store)
    todo = [c for c in cells if c.cell_id not in done]
    result = CampaignResult(already_done=len(cells) - len(todo))
    progress = progress or NoProgress()
    log(f"campaign {campaign_dir.name}: {len(cells)} cells, {result.already_done} already done, {len(todo)} to run")
    durations: dict[str, list[float]] = {}
    budget_s = exp.budget_minutes * 60 if exp.budget_minutes else None
    base = {"campaign": campaign_dir.name, "experiment": exp.experiment, "design_hash": design_hash(exp),
            "vbench_commit": vbench_commit()}
    dist = fetch(hadoop.version, hadoop.examples_version, log=log) if any(c.variant.kind == "hadoop" for c in todo) else None

    budget_note = f"time budget of {exp.budget_minutes} min"
    progress.begin([c.cell_id for c in todo])
    try:
        with interrupts_unwind():
            for (block, config), group in groupby(todo, key=lambda c: (c.block, c.config)):
                group = list(group)
                if budget_s is not None and _over_budget(t0, budget_s, group[0], durations):
                    result.skipped += [c.cell_id for c in group]
                    for c in group:
                        progress.cell_skipped(c.cell_id, budget_note)
                    continue
                tb, hp = _params(exp, config, testbed, hadoop, source)
                try:
                    with source.open(config.platform, tb) as hosts:
                        cluster = None
                        try:
                            for cell in group:
                                if budget_s is not None and _over_budget(t0, budget_s, cell, durations):
                                    result.skipped.append(cell.cell_id)
                                    progress.cell_skipped(cell.cell_id, budget_note)
                                    continue
                                progress.cell_started(cell.cell_id)
                                if cell.variant.kind == "hadoop" and cluster is None:
                                    cluster = HadoopCluster(hosts, hp, dist, log=log)
                                    cluster.up(timeout_s=getattr(source, "ready_timeout_s", None))
                                    provenance = cluster_provenance(cluster)
                                c0 = time.monotonic()
                                failed, why = _run_cell(cell, hosts, cluster, exp, _stamp(base, config, cell),
                                                        provenance if cluster else {}, store, log, tb.name, hook)
                                result.failures += failed
                                durations.setdefault(cell.variant.key, []).append(time.monotonic() - c0)
                                result.ran.append(cell.cell_id)
                                progress.cell_finished(cell.cell_id, why)
                        finally:
                            if cluster is not None:
                                cluster.down()
                except (KeyboardInterrupt, SystemExit):  # Ctrl-C and SIGTERM (Terminated) unwind
                    raise
                except Exception as exc:  # the configuration could not be brought up (or lost its hosts)
                    lost = [c for c in group if c.cell_id not in result.ran and c.cell_id not in result.skipped]
                    reason = failure_reason(exc)
                    _record_unrun(lost, config, base, reason, store)
                    result.failures += len(lost)
                    result.ran += [c.cell_id for c in lost]
                    for c in lost:  # the cell that was running when it broke, then the ones never started
                        progress.cell_finished(c.cell_id, f"configuration failed: {reason}")
                    log(f"configuration b{block}/{config.key} failed: {reason}; {len(lost)} cells recorded as failed")
                    if exp.on_failure == "stop":
                        log("design says on_failure: stop; the campaign stops here (resume with `campaign run` again)")
                        result.stopped = reason
                        break
    finally:  # the bar is closed and the tally printed on Ctrl-C too
        progress.end()
    if result.skipped:
        (store.root / "skipped.json").write_text(json.dumps(
            {"reason": budget_note, "cells": result.skipped}, indent=1))
        log(f"time budget reached: {len(result.skipped)} cells skipped (listed in {store.root / 'skipped.json'})")
    result.seconds = time.monotonic() - t0
    return result


def _over_budget(t0: float, budget_s: float, cell: Cell, durations: dict[str, list[float]]) -> bool:
    past = durations.get(cell.variant.key)
    estimate = sum(past) / len(past) if past else 0.0
    return time.monotonic() - t0 + estimate > budget_s


def _stamp(base: dict, config: Configuration, cell: Cell) -> dict:
    return {**base, **config.stamp(), "block": cell.block, "repetition": cell.block, "warmup": cell.warmup,
            "cell_id": cell.cell_id, **{f"factor.{k}": v for k, v in cell.variant.levels}}


def _record_unrun(cells: list[Cell], config: Configuration, base: dict, reason: str, store: CampaignStore) -> None:
    """Cells that could not run (their configuration failed) become failure records, so the
    campaign says what happened to every cell; a resumed run runs them again."""
    for cell in cells:
        f = Failure(cell.variant.benchmark, reason, {}, "", {"configuration_failed": True})
        store.save_runs([(f"unrun-{cell.cell_id.replace('/', '-')}", [f], {})],
                        {**_stamp(base, config, cell), "benchmark_kind": cell.variant.kind}, cell_done=False)


def _run_cell(cell: Cell, hosts: list[Host], cluster: HadoopCluster | None, exp: Experiment, stamp: dict,
              provenance: dict, store: CampaignStore, log: Log, testbed_name: str = "",
              hook: RunHook | None = None) -> tuple[int, str | None]:
    """Run one cell (again, up to `exp.retries` times, while it fails) and store all its attempts'
    records in one append, closed as the cell's, when it ends: a cell cut short between attempts
    is not done and runs again whole. Returns the number of failed runs of the last attempt and
    the first one's reason (None when all passed)."""
    attempts: list[tuple[list, dict]] = []
    try:
        for attempt in range(exp.retries + 1):
            runs, attempt_stamp = _attempt(cell, attempt, hosts, cluster, exp, stamp, provenance, store, log,
                                           testbed_name, hook)
            attempts.append(([records_of(r) for r in runs], attempt_stamp))
            failed = sum(not r.ok for r in runs)
            log(f"{cell.cell_id}: {'ok' if not failed else f'{failed} failed'}"
                + (f" (attempt {attempt + 1} of {exp.retries + 1})" if exp.retries else ""))
            if not failed:
                break
    except Exception:
        # The configuration broke during a retry: what the earlier attempts measured is kept,
        # but the cell is not done (the runner records it as failed; a resume runs it again).
        if attempts:
            store.save_attempts(attempts, cell.cell_id, cell_done=False)
        raise
    store.save_attempts(attempts, cell.cell_id)
    reason = next((r.failure.reason for r in runs if not r.ok), None)
    return failed, reason


def _attempt(cell: Cell, attempt: int, hosts: list[Host], cluster: HadoopCluster | None, exp: Experiment,
             stamp: dict, provenance: dict, store: CampaignStore, log: Log, testbed_name: str,
             hook: RunHook | None = None) -> tuple[list, dict]:
    """One attempt at a cell: its runs and the stamp of their records (nothing stored yet)."""
    v = cell.variant
    mon = Monitor(hosts, testbed_name, exp.monitor_interval_s, log).start() if exp.monitor_interval_s else None
    if v.kind == "micro":
        runs = measure_micro(hosts, Planned(v.benchmark, v.config, MICRO_BENCHMARKS[v.benchmark]), log)
        kind_stamp = {"benchmark_kind": "micro", **kept()}
    else:
        assert cluster is not None
        run, run_stamp = measure_hadoop(cluster, cell, drop_caches=exp.drop_caches, hook=hook, log=log,
                                        timeout_s=exp.job_timeout_s)
        runs = [run]
        kind_stamp = {"benchmark_kind": "hadoop", **provenance, **run_stamp}
    kind_stamp.update(finish_monitor(mon, store.root, cell.cell_id if not attempt else f"{cell.cell_id}#{attempt}"),
                      host_platforms={h.name: h.platform for h in hosts})
    extra = {"attempt": attempt} if exp.retries else {}
    return runs, {**stamp, **kind_stamp, **extra}

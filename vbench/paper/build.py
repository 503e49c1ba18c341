"""The paper stage: campaign data -> generated tables, figures, macros -> PDF.

`build_paper(campaign_dir, out_dir)` reads `<campaign_dir>/samples.jsonl` and the statistics
stage's table of the campaign (`data/processed/<campaign>/stats.parquet`; computed by the same
function where a campaign has none, see `vbench.paper.results.campaign_statistics`), writes
everything under `<out_dir>/generated/` (deleted and rewritten each time, never edited by hand)
and, with `pdf=True`, runs latexmk on `<out_dir>/main.tex` into `<out_dir>/build/paper.pdf`:

    generated/macros.tex        every number the text quotes (vbench.paper.macros)
    generated/testbed.tex       the testbed table
    generated/tables/*.tex      one file per table (vbench.paper.tables.TABLES)
    generated/figures/*.pdf|png one pair per figure with data (vbench.paper.figures.FIGURES)
    generated/figures/*.tex     the figure environment, or a "not measured" note
    generated/delta.tex         the reproduction delta (vbench.paper.delta), delta.csv as data
    generated/tables/findings_summary.tex  its summary in the introduction (vbench.paper.delta_summary)
    generated/tables/campaigns.tex  each campaign's machine, in the appendix (vbench.paper.machines)
    generated/stats.csv         the statistics table the paper drew from
    generated/costs.tex         the cost model's section (vbench.paper.costs): with a fit campaign,
                                its prose, tables/costs.tex, figures/costs.*, costs.csv and
                                costs_attribution.csv; without one, a comment alone; with the
                                system-call level's campaigns too, its subsection's prose,
                                tables/costs-syscalls.tex, costs-syscalls.csv and
                                costs-syscalls_attribution.csv; with the campaign of both
                                system-call levels, where its fit's rule 1 holds, a subsection
                                more and tables/costs-syscall-levels.tex with its two CSV files;
                                after it, one subsection per held-out campaign and
                                tables/costs-heldout-<campaign>.tex with its two CSV files; last,
                                with the fit of three system-call levels and its calibration
                                and measured campaigns, a subsection and, where its rule 1
                                holds, tables/costs-file-levels.tex with its two CSV files;
                                then, with the fit priced by a JVM's call and its calibration
                                and measured campaigns, a subsection and, where its rule 1
                                holds, tables/costs-rpc-levels.tex with its two CSV files;
                                after the memory level's, with the campaigns priced in the
                                machine's CPU, a subsection, tables/costs-cpu.tex and
                                costs-cpu.csv (vbench.paper.costs_cpu), with each further
                                replication of it a paragraph and a group of rows more;
                                after it, with tests against pooled ratios, a subsection,
                                tables/costs-pooled-<n>.tex per test and costs-pooled.csv
                                (vbench.paper.costs_pooled); after it, with tests of the
                                rest of native time priced, a subsection,
                                tables/costs-rest-<n>.tex per test and costs-rest.csv
                                (vbench.paper.costs_rest)

The LaTeX run is reproducible too: SOURCE_DATE_EPOCH is the campaign's last sample time.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pandas as pd

from vbench.errors import VbenchError
from vbench.stats import DEFAULT_SEED, format_table
from vbench.stats.bootstrap import DEFAULT_RESAMPLES
from vbench.stats.campaign import Campaign, distinct_experiments, load_campaign, merge_campaigns
from vbench.stats.campaign_stats import StatsConfig
from vbench.stats.tidy import text_as_objects
from vbench.stats.warmup import measured_samples

from vbench.paper import abstract as A
from vbench.paper import costs as C
from vbench.paper import costs_barrier as CB
from vbench.paper import costs_cpu as CC
from vbench.paper import costs_pooled as CP
from vbench.paper import costs_rest as CR
from vbench.paper import delta as D
from vbench.paper import delta_summary as S
from vbench.paper import figures as F
from vbench.paper import jvm_builds as J
from vbench.paper import machines as M
from vbench.paper.tables import TABLES
from vbench.paper.tables.grid import has_data
from vbench.paper.tables.jobs import isolation_stats
from vbench.paper.monitoring import monitored_run
from vbench.paper.fmt import tex_escape
from vbench.paper.inputs import (
    BARRIER_FIELDS,
    COST_FIT_FIELDS,
    CPU_FIELDS,
    FILE_LEVELS_INPUTS,
    HELDOUT_FIELDS,
    LEVELS_FIELDS,
    MEMORY_LEVELS_INPUTS,
    MEMORY_TESTS_FIELDS,
    RPC_LEVELS_INPUTS,
    SUPERSEDED_FIT_FIELDS,
    SYSCALL_FIT_FIELDS,
    CpuReplicationDirs,
    PooledFields,
    PooledTestDirs,
    ReplicationFields,
    RestFields,
    RestTestDirs,
    check_barrier,
    check_cost_fit,
    check_cpu_priced,
    check_cpu_replications,
    check_heldout,
    check_levels,
    check_memory_tests,
    check_pooled_tests,
    check_rest_tests,
    check_superseded_fit,
    check_syscall_fit,
)
from vbench.paper.macros import MacroContext, macros_tex
from vbench.paper.parallel import background, parallel_map
from vbench.paper.results import StatisticsLookup, lookup_of, paper_statistics, statistics_of
from vbench.paper.sandbox import SandboxStudy, blocks_of, degrees_sentence, sandbox_study

#: The manuscript sources (main.tex, references.bib) of the checkout.
SOURCES = Path(__file__).resolve().parents[2] / "paper"
SOURCE_FILES = ("main.tex", "references.bib")
LATEX_TIMEOUT_S = 600


@dataclass
class BuildResult:
    out_dir: Path
    generated: list[Path]
    tables_with_data: list[str]
    tables_absent: list[str]
    figures_with_data: list[str]
    figures_absent: list[str]
    delta_counts: dict[str, int]
    generate_seconds: float
    pdf: Path | None = None
    pages: int | None = None
    latex_seconds: float | None = None
    source_date_epoch: int | None = None
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = [
            f"tables {len(self.tables_with_data)}/{len(self.tables_with_data) + len(self.tables_absent)} with data",
            f"figures {len(self.figures_with_data)}/{len(self.figures_with_data) + len(self.figures_absent)} with data",
            "delta " + ", ".join(f"{k} {v}" for k, v in self.delta_counts.items()),
            f"generated in {self.generate_seconds:.1f}s",
        ]
        if self.pdf:
            parts.append(f"pdf {self.pdf} ({self.pages} pages, LaTeX {self.latex_seconds:.1f}s)")
        return "paper: " + "; ".join(parts)


def _write(path: Path, text: str, written: list[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    written.append(path)


def _figure_tex(name: str, label: str, caption: str, source: str, paths: list[Path], data_note: str) -> str:
    cap = rf"{caption} After {tex_escape(source)}.{data_note}"
    body = (
        rf"\includegraphics{{generated/figures/{name}.pdf}}"
        if paths
        else r"\fbox{\parbox{0.9\linewidth}{\centering\small\emph{Not measured in this campaign:} "
        r"the data this figure needs are absent.}}"
    )
    return (
        "\n".join(
            [
                r"\begin{figure}[htbp]",
                r"\centering",
                body,
                rf"\caption{{{cap}}}",
                rf"\label{{{label}}}",
                r"\end{figure}",
            ]
        )
        + "\n"
    )


def generate(
    campaign_dir: Path,
    out_dir: Path,
    *,
    baseline: str = "native",
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    equivalence_pct: float = StatsConfig.equivalence_pct,
    published_path: Path | None = None,
    isolation_dir: Path | None = None,
    extra_campaigns: Sequence[Path] = (),
    monitoring_dir: Path | None = None,
    pernode_dir: Path | None = None,
    sandbox_dir: Path | None = None,
    cost_fit_dir: Path | None = None,
    cost_fit_fields: tuple[str, str] = COST_FIT_FIELDS,
    syscall_fit_dir: Path | None = None,
    syscall_calibration_dir: Path | None = None,
    syscall_fit_fields: tuple[str, str, str] = SYSCALL_FIT_FIELDS,
    syscall_fit_superseded_dir: Path | None = None,
    syscall_fit_superseded_fields: tuple[str, str] = SUPERSEDED_FIT_FIELDS,
    syscall_levels_dir: Path | None = None,
    syscall_levels_fields: tuple[str, str] = LEVELS_FIELDS,
    syscall_levels_heldout_dirs: Sequence[Path] = (),
    syscall_levels_heldout_fields: tuple[str, str] = HELDOUT_FIELDS,
    file_levels_dir: Path | None = None,
    file_levels_calibration_dir: Path | None = None,
    file_levels_measured_dir: Path | None = None,
    file_levels_fields: tuple[str, str, str, str] = FILE_LEVELS_INPUTS.arguments,
    rpc_levels_dir: Path | None = None,
    rpc_levels_calibration_dir: Path | None = None,
    rpc_levels_measured_dir: Path | None = None,
    rpc_levels_fields: tuple[str, str, str, str] = RPC_LEVELS_INPUTS.arguments,
    memory_levels_dir: Path | None = None,
    memory_levels_calibration_dir: Path | None = None,
    memory_levels_measured_dir: Path | None = None,
    memory_levels_fields: tuple[str, str, str, str] = MEMORY_LEVELS_INPUTS.arguments,
    memory_levels_test_dirs: Sequence[Path] = (),
    memory_levels_tests_fields: tuple[str, str] = MEMORY_TESTS_FIELDS,
    cpu_fit_dir: Path | None = None,
    cpu_fit_costs_dir: Path | None = None,
    cpu_test_dirs: Sequence[Path] = (),
    cpu_fields: tuple[str, str, str, str] = CPU_FIELDS,
    cpu_replications: Sequence[CpuReplicationDirs] = (),
    cpu_replications_fields: ReplicationFields = ReplicationFields(),
    pooled_tests: Sequence[PooledTestDirs] = (),
    pooled_tests_fields: PooledFields = PooledFields(),
    rest_tests: Sequence[RestTestDirs] = (),
    rest_tests_fields: RestFields = RestFields(),
    barrier_dir: Path | None = None,
    barrier_fit_dir: Path | None = None,
    barrier_calibration_dir: Path | None = None,
    barrier_fields: tuple[str, str, str, str] = BARRIER_FIELDS,
    jvm_dir: Path | None = None,
) -> BuildResult:
    """Write `<out_dir>/generated/` from the campaign's data and its statistics table (no LaTeX
    run); `extra_campaigns` add the experiments of other studies (e.g. network modes x VMs per
    host). The time-series figure draws from `monitoring_dir` (a campaign with monitored runs;
    default: this one); the per-node table from `pernode_dir` (a heterogeneous cluster's campaign) alone;
    the sandboxed-kernel section from `sandbox_dir` (issue #21's study) alone, absent when it is None;
    the cost model's section from `cost_fit_dir` (native under planted slowdowns) and the sandbox
    campaign, whose platforms it predicts: omitted, with one note, when `cost_fit_dir` is None; its
    system-call level from `syscall_fit_dir` (native under system-call stops) and
    `syscall_calibration_dir` (the platforms' costs), compared with the sandbox campaign's jobs:
    omitted, with one note, when both are None; in it, one sentence on `syscall_fit_superseded_dir`,
    a first run of its fit's design that failed its rule 1, and one on `syscall_levels_dir`, a
    second campaign that stopped only the process and thread calls beside every call, where given;
    after that campaign's fit, where it is read, its predictions of the platforms of each of
    `syscall_levels_heldout_dirs` (campaigns that calibrated and timed them in runs of their own), a
    subsection each in their order; then a subsection on `file_levels_dir` (native with only the
    calls that name a file stopped, beside the process level and every call), its fit, where its
    rule 1 holds, predicting `file_levels_calibration_dir`'s platforms against
    `file_levels_measured_dir`'s jobs: omitted when all three are None; then a subsection on
    `rpc_levels_dir` (native with the process level fixed for threads and every call), its fit on a
    JVM's loopback RPC, where its rule 1 holds, predicting `rpc_levels_calibration_dir`'s platforms
    against `rpc_levels_measured_dir`'s jobs: omitted when all three are None; then a subsection on
    `memory_levels_dir` (native with the fixed process level, the calls that map memory alone and every
    call stopped), its fit on a JVM's call and its start, where its rule 1 holds, predicting
    `memory_levels_calibration_dir`'s platforms against `memory_levels_measured_dir`'s jobs: omitted
    when all three are None; in it, after its table and where that fit is read, its predictions of
    each of `memory_levels_test_dirs` (campaigns that calibrated and timed the platforms in the same
    blocks after the fit was read), later tests of it said in one paragraph, in their order; then a
    subsection priced in the machine's CPU (`vbench.paper.costs_cpu`): `cpu_fit_dir`'s shares, its
    configurations' costs read from `cpu_fit_costs_dir`, predicting each of `cpu_test_dirs` from its
    own costs against its own jobs, priced in CPU and in wall time, omitted when all three are None
    or empty; in it, after the first, each of `cpu_replications` (another fit, the campaign its
    configurations' costs are read from or None for its own, and its tests), a paragraph and a group
    of rows each, in their order; then a subsection judging predictions against each job's ratio
    pooled over several campaigns (`vbench.paper.costs_pooled`), a paragraph and a table per one of
    `pooled_tests` (a fit, its costs' campaign or None, a calibration, the measured campaigns, the
    resources, the seed and the pricing its design fixed), in both pricings, omitted when empty; then a
    subsection with the native time no fitted resource explains priced at a resource's cost
    (`vbench.paper.costs_rest`), a paragraph and a table per one of `rest_tests` (a fit, a calibration,
    one measured campaign, the resources, the seed, the rests and the pricing), omitted when empty; and
    after it, a subsection on
    NNBench's barrier (`vbench.paper.costs_barrier`): `barrier_dir`'s NNBench timed at two barriers
    beside the levels' fit's and `barrier_fit_dir`'s refit's predictions from
    `barrier_calibration_dir`'s costs, omitted when all three are None or the levels' fit is not read.
    The threats' JVM sentence quotes `jvm_dir`'s ratios (native hosts under two JVM builds,
    `vbench.paper.jvm_builds.jvm_reading`) where given.
    `cost_fit_fields`: what a refusal of the fit names, its field then the sandbox campaign's, as the
    caller was given them (`check_cost_fit`); `syscall_fit_fields`: the system-call level's two
    fields then the fit's (`check_syscall_fit`); `syscall_fit_superseded_fields`: the superseded
    fit's field then the level's fit's (`check_superseded_fit`); `syscall_levels_fields`: the
    second campaign's field then the level's fit's (`check_levels`); `syscall_levels_heldout_fields`:
    the held-out campaigns' field then the second campaign's (`check_heldout`); `file_levels_fields`:
    the three file-level fields then the fit's (`FILE_LEVELS_INPUTS.check`); `rpc_levels_fields`: the
    three fields of the fit priced by a JVM's call then the fit's (`RPC_LEVELS_INPUTS.check`);
    `memory_levels_fields`: the memory level's three fields then the fit's (`MEMORY_LEVELS_INPUTS.check`);
    `memory_levels_tests_fields`: the later tests' field then the memory level's fit's
    (`check_memory_tests`); `cpu_fields`: the fields of the fit, its costs and the tests priced in
    the machine's CPU, then the cost model's fit's (`check_cpu_priced`); `cpu_replications_fields`:
    the further replications' key and each one's fields (`check_cpu_replications`); `pooled_tests_fields`:
    the pooled tests' key, each one's fields and the cost model's fit's (`check_pooled_tests`); `rest_tests_fields`:
    the rest tests' key, each one's fields and the cost model's fit's (`check_rest_tests`, and
    `costs_rest.rest_tests`' refusal of a calibration without a rest's cost);
    `barrier_fields`: the
    barrier's three fields then the levels campaign's (`check_barrier`)."""
    t0 = time.perf_counter()
    check_cost_fit(cost_fit_dir, sandbox_dir, *cost_fit_fields)
    check_syscall_fit(syscall_fit_dir, syscall_calibration_dir, cost_fit_dir, *syscall_fit_fields)
    check_superseded_fit(syscall_fit_superseded_dir, syscall_fit_dir, *syscall_fit_superseded_fields)
    check_levels(syscall_levels_dir, syscall_fit_dir, *syscall_levels_fields)
    check_heldout(syscall_levels_heldout_dirs, syscall_levels_dir, *syscall_levels_heldout_fields)
    FILE_LEVELS_INPUTS.check(
        file_levels_dir, file_levels_calibration_dir, file_levels_measured_dir, cost_fit_dir, *file_levels_fields
    )
    RPC_LEVELS_INPUTS.check(
        rpc_levels_dir, rpc_levels_calibration_dir, rpc_levels_measured_dir, cost_fit_dir, *rpc_levels_fields
    )
    MEMORY_LEVELS_INPUTS.check(
        memory_levels_dir,
        memory_levels_calibration_dir,
        memory_levels_measured_dir,
        cost_fit_dir,
        *memory_levels_fields,
    )
    check_memory_tests(memory_levels_test_dirs, memory_levels_dir, *memory_levels_tests_fields)
    check_cpu_priced(cpu_fit_dir, cpu_fit_costs_dir, cpu_test_dirs, cost_fit_dir, *cpu_fields)
    check_cpu_replications(cpu_replications, cpu_fit_dir, cpu_fit_costs_dir, cpu_fields[:3], cpu_replications_fields)
    check_pooled_tests(pooled_tests, cost_fit_dir, pooled_tests_fields)
    check_rest_tests(rest_tests, cost_fit_dir, rest_tests_fields)
    check_barrier(barrier_dir, barrier_fit_dir, barrier_calibration_dir, syscall_levels_dir, *barrier_fields)
    # Every campaign is read, and every statistics table computed, on every core (vbench.paper.parallel).
    studies = [Path(campaign_dir), *(Path(c) for c in extra_campaigns)]
    own = _own_campaigns(
        isolation=isolation_dir,
        pernode=pernode_dir,
        sandbox=sandbox_dir,
        cost_fit=cost_fit_dir,
        syscall_fit=syscall_fit_dir,
        syscall_calibration=syscall_calibration_dir,
        syscall_fit_superseded=syscall_fit_superseded_dir,
        syscall_levels=syscall_levels_dir,
        file_levels=file_levels_dir,
        file_levels_calibration=file_levels_calibration_dir,
        file_levels_measured=file_levels_measured_dir,
        rpc_levels=rpc_levels_dir,
        rpc_levels_calibration=rpc_levels_calibration_dir,
        rpc_levels_measured=rpc_levels_measured_dir,
        memory_levels=memory_levels_dir,
        memory_levels_calibration=memory_levels_calibration_dir,
        memory_levels_measured=memory_levels_measured_dir,
        cpu_fit=cpu_fit_dir,
        cpu_fit_costs=cpu_fit_costs_dir,
        barrier=barrier_dir,
        barrier_fit=barrier_fit_dir,
        barrier_calibration=barrier_calibration_dir,
        jvm=jvm_dir,
    )
    # The held-out campaigns are a list, each a subsection: checked above, each has its samples.
    heldout_dirs = [Path(d) for d in syscall_levels_heldout_dirs]
    # The memory level's later tests are a list too, each a campaign its subsection says: checked
    # above, each has its samples.
    test_dirs = [Path(d) for d in memory_levels_test_dirs]
    # And the campaigns priced in the machine's CPU: checked above, each has its samples; then each
    # further replication's, its fit, its costs where another campaign's and its tests, in that order.
    cpu_dirs = [Path(d) for d in cpu_test_dirs]
    replicated_dirs = [Path(d) for r in cpu_replications for d in _replication_dirs(r)]
    # And each pooled test's: its fit, its costs where another campaign's, its calibration and its
    # measured campaigns, in that order (a campaign another part reads too is read once).
    pooled_dirs = [Path(d) for t in pooled_tests for d in _pooled_dirs(t)]
    # And each rest test's: its fit, its calibration and its measured campaign.
    rest_dirs = [Path(d) for t in rest_tests for d in (t.fit, t.calibration, t.measured)]
    groups = (studies, list(own.values()), heldout_dirs, test_dirs, cpu_dirs, replicated_dirs, pooled_dirs, rest_dirs)
    loaded = _read_once([d for g in groups for d in g])
    studies_read, own_read, heldout_read, tests_read, cpu_read, replicated_read, pooled_read, rest_read = _split(
        loaded, groups
    )
    rest_campaigns = [tuple(rest_read[3 * i : 3 * i + 3]) for i in range(len(rest_tests))]
    main, *extras = distinct_experiments(studies_read)
    read = dict(zip(own, own_read))
    campaign = merge_campaigns(main, extras)
    cfg = StatsConfig(baseline=baseline, n_resamples=n_resamples, seed=seed, equivalence_pct=equivalence_pct)
    # The sandbox study keeps its own statistics: its `platforms` experiment is not the main campaign's.
    parts = statistics_of([main, *extras, *([read["sandbox"]] if "sandbox" in read else [])], cfg)
    stats, sources = paper_statistics([main, *extras], cfg, parts[: 1 + len(extras)])
    sandbox = None
    if "sandbox" in read:
        sandbox, note = sandbox_study(read["sandbox"], parts[-1])
        sources.append(note)
    # The cost model is fitted and predicted before anything is written: a refusal (a fit that
    # cannot be fitted, a sandbox campaign without the jobs) leaves the last build's files as they were.
    costs = C.cost_study(read["cost_fit"], read["sandbox"]) if "cost_fit" in read else None
    # Its system-call level: the calibration's platforms predicted, the sandbox campaign's jobs compared.
    syscalls = (
        C.cost_study(read["syscall_fit"], read["syscall_calibration"], measured=read["sandbox"])
        if "syscall_fit" in read
        else None
    )
    # Of a first run of its fit's design that failed its rule 1, that rule alone.
    superseded = C.superseded_fit(read["syscall_fit_superseded"]) if "syscall_fit_superseded" in read else None
    # Of a second campaign that stopped only the process and thread calls, the part of each job's cost.
    # and, where its own fit's rule 1 holds, that fit's predictions of the calibration's platforms.
    levels = (
        C.level_parts(read["syscall_levels"], read["syscall_calibration"], read["sandbox"])
        if "syscall_levels" in read
        else None
    )
    # Days of their own: each one's platforms predicted by the levels' fit, where that fit is read
    # (`held_out` is None where it is not).
    heldouts: list[C.HeldOut] = []
    if levels is not None:
        found = (C.held_out(c, read["syscall_levels"], levels) for c in heldout_read)
        heldouts = [h for h in found if h is not None]
    # The calls that name a file: that fit's rule 1, and where it holds its predictions of its calibration.
    file_levels = (
        C.file_levels(read["file_levels"], read["file_levels_calibration"], read["file_levels_measured"])
        if "file_levels" in read
        else None
    )
    # Priced by a JVM's call: that fit's rule 1 on the RPC, and where it holds its predictions of its calibration.
    rpc_levels = (
        C.rpc_levels(read["rpc_levels"], read["rpc_levels_calibration"], read["rpc_levels_measured"])
        if "rpc_levels" in read
        else None
    )
    # A JVM's start apart from its calls: that fit's rule 1 on both, and where it holds its predictions,
    # of its calibration and of each later test (none where rule 1 fails).
    memory_levels = (
        C.memory_levels(
            read["memory_levels"],
            read["memory_levels_calibration"],
            read["memory_levels_measured"],
            tests=tuple(tests_read),
        )
        if "memory_levels" in read
        else None
    )
    # Priced in the machine's CPU: each test of each replication predicted in both pricings, before
    # anything is written.
    cpu = (
        [
            CC.cpu_priced(read["cpu_fit"], read["cpu_fit_costs"], cpu_read),
            *(CC.cpu_priced(*r) for r in _replications_read(cpu_replications, replicated_read)),
        ]
        if "cpu_fit" in read
        else None
    )
    # Against pooled ratios: each test predicted in both pricings, as `vbench predict --measured A,B,...`
    # reads it, before anything is written.
    pooled = [
        CP.pooled_test(
            fit,
            calibration,
            measured,
            t.resources,
            t.seed,
            fit_costs=fit_costs,
            fixed_pricing=t.fixed_pricing,
            nonnegative=t.nonnegative,
        )
        for t, (fit, fit_costs, calibration, measured) in zip(pooled_tests, _pooled_read(pooled_tests, pooled_read))
    ]
    # The rest of native time priced: each test read without a rest and with each, as `vbench predict
    # --rest` reads it, before anything is written (a rest not calibrated refused naming its record).
    rests = CR.rest_tests(rest_tests, rest_campaigns, rest_tests_fields)
    # NNBench's barrier: a test of the levels' fit, read where that fit is.
    barrier = (
        CB.barrier_reading(read["barrier"], read["syscall_levels"], read["barrier_fit"], read["barrier_calibration"])
        if "barrier" in read and levels is not None and levels.fit is not None
        else None
    )
    # The JVM builds' difference measured apart, which the threats quote.
    jvm = J.jvm_reading(read["jvm"], cfg) if "jvm" in read else None
    if jvm is not None:
        sources.append(J.jvm_build_note(jvm))
    sources.append(C.OMITTED_NOTE if costs is None else _cost_note(costs))
    if costs is not None:
        sources.append(C.SYSCALL_OMITTED_NOTE if syscalls is None else _cost_note(syscalls))
    if levels is not None and levels.fit is not None:
        sources.append(_cost_note(levels.fit))
    sources += [_cost_note(h.study) for h in heldouts]
    sources += [_levels_fit_note(f) for f in (file_levels, rpc_levels, memory_levels) if f is not None]
    if memory_levels is not None:
        sources += [_cost_note(t.study) for t in memory_levels.tests]
    if costs is not None:
        sources += CC.build_note(cpu) if cpu is not None else [CC.OMITTED_NOTE]
        sources += CP.build_note(pooled) if pooled else [CP.OMITTED_NOTE]
        sources += CR.build_note(rests) if rests else [CR.OMITTED_NOTE]
    if barrier is not None:
        sources.append(CB.build_note(barrier))
    # Warm-up runs are stored beside the cells they open; the paper reads the measured ones only.
    samples = measured_samples(campaign.samples)
    gen = out_dir / "generated"
    if gen.exists():
        shutil.rmtree(gen)
    written: list[Path] = []
    data_note = _data_note(samples)
    # The figures are drawn by a second process while this one writes the tables and the delta.
    fig_dir = gen / "figures"
    monitored = monitored_run(Path(monitoring_dir or campaign_dir))
    drawing = background(_draw_figures, stats, samples, fig_dir, monitored, sandbox)

    has_table: dict[str, bool] = {}
    # The isolation experiment (`vbench isolation run`) keeps its own campaign directory: its
    # samples feed only Table III and the reproduction delta, never the platform statistics.
    iso_samples = samples
    if "isolation" in read:
        iso_samples = joined(samples, measured_samples(read["isolation"].samples))
    iso = lookup_of(isolation_stats(iso_samples, cfg))
    # Per-node rows of every platform's cluster would swamp the table: only the mixed cluster's.
    pernode_samples = samples.iloc[0:0]
    if "pernode" in read:
        pernode_samples = measured_samples(read["pernode"].samples)
    for name, (fn, _label, _src) in TABLES.items():
        if name == "testbed":
            tex = fn(stats, samples, baseline, facts=campaign.facts)
            _write(gen / "testbed.tex", tex, written)
        else:
            if name == "isolation":
                tex = fn(stats, iso_samples, baseline, iso=iso)
            elif name == "sandbox":
                tex = fn(*_sandbox_inputs(sandbox, samples), baseline)
            elif name == "node_disks":
                # A mixed cluster's nodes are Liu et al.'s layout: its campaign's dd and hdparm too.
                tex = fn(stats, joined(samples, pernode_samples), baseline)
            else:
                tex = fn(stats, pernode_samples if name == "pernode" else samples, baseline)
            _write(gen / "tables" / f"{name}.tex", tex, written)
        has_table[name] = has_data(tex)

    published = D.load_published(published_path)
    # A finding's own campaign gives a verdict only once its design is whole (one run in parts
    # does not until its last part): how much of each is measured, from its ledger.
    progress = D.design_progress_by_campaign(
        published.findings,
        [d for g in groups for d in g],
        D.published_root(published_path),
    )
    # The delta reads every campaign given: a mixed cluster's per-node samples answer Liu et al.'s
    # findings (a node's platform is its own there, vbench.paper.delta.machine_platform).
    rows = D.reproduction_delta(published, joined(iso_samples, pernode_samples), cfg.conf, progress)
    _write(gen / "delta.tex", D.delta_table_tex(rows, published, cfg.conf), written)
    # The reproduction delta is a table of the paper too (tab:delta): counted where the text counts tables.
    has_table["delta"] = bool(rows)
    # Its summary in the introduction (tab:findings-summary), from the same rows: a table of its own.
    _write(gen / "tables" / f"{S.NAME}.tex", S.findings_summary_tex(rows, published, cfg.conf), written)
    has_table[S.NAME] = bool(rows)
    _write(
        gen / "delta.csv", D.delta_frame(rows).to_csv(index=False, float_format="%.10g", lineterminator="\n"), written
    )
    if not stats.empty:
        _write(gen / "stats.csv", format_table(stats.table), written)
    # The cost model's section: a comment alone without a fit campaign, so main.tex's \input of it
    # typesets nothing; its tables and figure are then neither written nor counted, nor is the
    # system-call level's table without its campaigns.
    section = C.section_tex(
        costs,
        syscalls,
        superseded,
        levels,
        heldouts,
        file_levels,
        rpc_levels,
        memory_levels,
        # Priced in the machine's CPU, against pooled ratios, with the rest priced, then NNBench's
        # barrier, the section's last: subsections other modules write.
        after=_subsections(
            CC.cpu_tex(cpu) if cpu else [],
            CP.pooled_tex(pooled) if pooled else [],
            CR.rest_tex(rests) if rests else [],
            CB.barrier_tex(barrier) if barrier else [],
        ),
    )
    _write(gen / f"{C.NAME}.tex", section, written)
    if cpu is not None:
        _write(gen / "tables" / f"{CC.NAME}.tex", CC.table_cpu(cpu), written)
        has_table[CC.NAME] = True
        frame = CC.cpu_frame(cpu)
        _write(gen / f"{CC.NAME}.csv", frame.to_csv(index=False, float_format="%.10g", lineterminator="\n"), written)
    for number, test in enumerate(pooled, start=1):
        _write(gen / "tables" / f"{CP.table_name(number)}.tex", CP.table_pooled(test, number), written)
        has_table[CP.table_name(number)] = True
    if pooled:
        frame = CP.pooled_frame(pooled)
        _write(gen / f"{CP.NAME}.csv", frame.to_csv(index=False, float_format="%.10g", lineterminator="\n"), written)
    for number, test in enumerate(rests, start=1):
        _write(gen / "tables" / f"{CR.table_name(number)}.tex", CR.table_rest(test, number), written)
        has_table[CR.table_name(number)] = True
    if rests:
        frame = CR.rest_frame(rests)
        _write(gen / f"{CR.NAME}.csv", frame.to_csv(index=False, float_format="%.10g", lineterminator="\n"), written)
    for study, part in (
        (costs, C.MAIN),
        (syscalls, C.SYSCALLS),
        (levels.fit if levels else None, C.LEVELS),
        *((h.study, C.heldout_part(h)) for h in heldouts),
        (file_levels.study if file_levels else None, C.FILE_LEVELS),
        (rpc_levels.study if rpc_levels else None, C.RPC_LEVELS),
        (memory_levels.study if memory_levels else None, C.MEMORY_LEVELS),
    ):
        if study is None:
            continue
        _write(gen / "tables" / f"{part.name}.tex", C.table_costs(study, part), written)
        has_table[part.name] = True
        for name, frame in ((part.name, C.cost_frame(study)), (f"{part.name}_attribution", C.attribution_frame(study))):
            _write(gen / f"{name}.csv", frame.to_csv(index=False, float_format="%.10g", lineterminator="\n"), written)

    has_figure: dict[str, bool] = {}
    for name, paths, caption in drawing.result():
        _fn, label, _caption, source = F.FIGURES[name]
        written += paths
        has_figure[name] = bool(paths)
        # The sandbox figure draws from its own campaign, measured or not whatever the main one is.
        note = _data_note(sandbox.samples) if name == "sandbox" and sandbox is not None else data_note
        _write(fig_dir / f"{name}.tex", _figure_tex(name, label, caption, source, paths, note), written)
    if costs is not None:
        paths = C.fig_costs(costs, fig_dir)
        written += paths
        has_figure[C.NAME] = bool(paths)
        note = _data_note(read["cost_fit"].samples) or _data_note(read["sandbox"].samples)
        tex = _figure_tex(C.NAME, C.FIGURE_LABEL, C.figure_caption(costs), C.FIGURE_SOURCE, paths, note)
        _write(fig_dir / f"{C.NAME}.tex", tex, written)

    # Which machine each campaign ran on (the appendix's tab:campaigns; the threats section counts them).
    read_campaigns = (
        main,
        *extras,
        *read.values(),
        *heldout_read,
        *tests_read,
        *cpu_read,
        *replicated_read,
        *pooled_read,
        *rest_read,
    )
    others = (Path(monitoring_dir).name,) if monitoring_dir and monitored.timeseries is not None else ()
    # The abstract's quotes, once: the table marks their campaigns, the macros quote them.
    quotes = A.container_quotes(stats, baseline)
    quoted = A.quoted_campaigns(quotes, main.name)
    _write(gen / "tables" / f"{M.NAME}.tex", M.campaigns_table_tex(list(read_campaigns), others, quoted), written)
    has_table[M.NAME] = True
    ctx = MacroContext(
        campaign=campaign,
        stats=stats,
        baseline=baseline,
        conf=cfg.conf,
        n_resamples=n_resamples,
        seed=seed,
        equivalence_pct=cfg.equivalence_pct,
        delta=rows,
        n_findings_studies=len({f.study for f in published.findings}),
        published=published,
        has_table=has_table,
        has_figure=has_figure,
        sandbox=sandbox,
        jvm=jvm,
        campaigns=read_campaigns,
        # The time-series figure's campaign is read as a monitored run, not a Campaign: counted apart.
        other_campaigns=others,
        quotes=quotes,
    )
    _write(gen / "macros.tex", macros_tex(ctx), written)
    return BuildResult(
        out_dir=out_dir,
        generated=sorted(written),
        tables_with_data=[n for n, v in has_table.items() if v],
        tables_absent=[n for n, v in has_table.items() if not v],
        figures_with_data=[n for n, v in has_figure.items() if v],
        figures_absent=[n for n, v in has_figure.items() if not v],
        delta_counts=D.counts(rows),
        generate_seconds=time.perf_counter() - t0,
        notes=[*campaign.notes, *sources],
        source_date_epoch=int(samples["timestamp"].max()) if not samples.empty else None,
    )


def joined(*frames: pd.DataFrame) -> pd.DataFrame:
    """The samples of several campaigns as one frame, its columns in few blocks (`text_as_objects`:
    a column one campaign lacks comes out of concat as a block of its own, and the tables and the
    delta select from the frame hundreds of times)."""
    return text_as_objects(pd.concat(frames, ignore_index=True))


def _subsections(*parts: list[str]) -> list[str]:
    """The lines of the subsections given (none empty), a blank line between two."""
    lines: list[str] = []
    for part in (p for p in parts if p):
        lines += ["", *part] if lines else part
    return lines


def _draw_figures(stats, samples, fig_dir: Path, monitored, sandbox) -> list[tuple[str, list[Path], str]]:
    """(name, files drawn, caption) of each figure of `vbench.paper.figures.FIGURES`, in order."""
    drawn = []
    for name, (fn, _label, caption, _source) in F.FIGURES.items():
        if name == "timeseries":
            paths = fn(stats, samples, fig_dir, timeseries=monitored.timeseries, jobs=monitored.jobs)
            if paths:
                caption = caption + " " + tex_escape(monitored.checks_sentence)
        elif name == "sandbox":
            paths = fn(*_sandbox_inputs(sandbox, samples), fig_dir)
            if paths:
                caption = caption + " " + degrees_sentence(blocks_of(sandbox.samples))
        else:
            paths = fn(stats, samples, fig_dir)
            caption = F.figure_caption(name, stats, caption)
        drawn.append((name, paths, caption))
    return drawn


def _split(loaded: list[Campaign], groups: Sequence[Sequence[Path]]) -> list[list[Campaign]]:
    """`loaded` (read from the groups' directories joined, in order) cut back into the groups."""
    out, start = [], 0
    for group in groups:
        out.append(loaded[start : start + len(group)])
        start += len(group)
    assert start == len(loaded), (start, len(loaded))
    return out


def _replication_dirs(replication: CpuReplicationDirs) -> list[Path]:
    """A further replication's directories in the order they are read: its fit, its costs where
    another campaign's, its tests."""
    costs = [replication.fit_costs] if replication.fit_costs is not None else []
    return [Path(replication.fit), *(Path(c) for c in costs), *(Path(t) for t in replication.tests)]


def _replications_read(
    replications: Sequence[CpuReplicationDirs], loaded: Sequence[Campaign]
) -> list[tuple[Campaign, Campaign | None, list[Campaign]]]:
    """(fit, its costs or None, tests) of each further replication, from its campaigns read in
    `_replication_dirs`' order."""
    out, at = [], 0
    for r in replications:
        n = len(_replication_dirs(r))
        fit, *rest = loaded[at : at + n]
        costs = rest.pop(0) if r.fit_costs is not None else None
        out.append((fit, costs, rest))
        at += n
    return out


def _pooled_dirs(test: PooledTestDirs) -> list[Path]:
    """A pooled test's directories in the order they are read: its fit, its costs where another
    campaign's, its calibration, its measured campaigns (checked: the calibration is given)."""
    costs = [test.fit_costs] if test.fit_costs is not None else []
    return [Path(test.fit), *(Path(c) for c in costs), Path(test.calibration), *(Path(m) for m in test.measured)]


def _pooled_read(
    tests: Sequence[PooledTestDirs], loaded: Sequence[Campaign]
) -> list[tuple[Campaign, Campaign | None, Campaign, list[Campaign]]]:
    """(fit, its costs or None, calibration, measured) of each pooled test, from its campaigns read
    in `_pooled_dirs`' order."""
    out, at = [], 0
    for t in tests:
        n = len(_pooled_dirs(t))
        fit, *rest = loaded[at : at + n]
        costs = rest.pop(0) if t.fit_costs is not None else None
        calibration, *measured = rest
        out.append((fit, costs, calibration, measured))
        at += n
    return out


def _own_campaigns(**given: Path | None) -> dict[str, Path]:
    """The campaigns read for one section each, by section (the keywords' names), where their
    directory holds samples."""
    return {k: Path(d) for k, d in given.items() if d is not None and (Path(d) / "samples.jsonl").exists()}


def _cost_note(costs: C.CostStudy) -> str:
    """The build log's line on the cost model: what was fitted on what (and what its rule 1 left
    out), with which seed."""
    s = costs.summary
    left_out = ", ".join(c.resource for c in costs.left_out)
    measured = f" against {costs.measured_name}'s jobs" if costs.measured_name != costs.calibration_name else ""
    return (
        f"cost model: fitted on {costs.fit_name} ({', '.join(costs.resources)}"
        f"{f'; left out by rule 1: {left_out}' if left_out else ''}), predicted for "
        f"{costs.calibration_name}'s platforms{measured}: {s.rows} rows, median |measured/predicted - 1| "
        f"{100 * s.median_abs_error:.0f} %, {s.covered} inside the prediction interval, {s.agrees} agreeing "
        f"({costs.n_draws} draws, seed {costs.seed})"
    )


def _levels_fit_note(levels: C.LevelsFit) -> str:
    """The build log's line on a fit of system-call levels (the file levels', the one priced by a
    JVM's call or the memory level's): `_cost_note`'s where its rule 1 holds, else that it failed and is not read."""
    if levels.study is not None:
        return _cost_note(levels.study)
    return (
        f"cost model: {levels.name}'s levels did not move {', '.join(levels.resources)} apart (rule 1; unresolved: "
        f"{', '.join(levels.apart.unresolved)}): its fit is not read, its subsection says so"
    )


def _read_once(campaign_dirs: list[Path]) -> list[Campaign]:
    """Each of `campaign_dirs` read (on every core), in their order, a campaign two parts read (a
    held-out campaign whose jobs the file levels' fit is compared with too) read once."""
    distinct = list(dict.fromkeys(campaign_dirs))
    read = dict(zip(distinct, parallel_map(load_campaign, distinct, cost=_samples_size)))
    return [read[d] for d in campaign_dirs]


def _samples_size(campaign_dir: Path) -> int:
    """What reading a campaign costs, about: the size of its samples file."""
    f = Path(campaign_dir) / "samples.jsonl"
    return f.stat().st_size if f.is_file() else 0


def _data_note(samples: pd.DataFrame) -> str:
    """What a figure's caption adds about its data: synthetic data say so."""
    synthetic = "synthetic" in samples.columns and samples["synthetic"].fillna(False).astype(bool).any()
    return r" \emph{Synthetic data, not a measurement.}" if synthetic else ""


def _sandbox_inputs(sandbox: SandboxStudy | None, samples: pd.DataFrame) -> tuple[StatisticsLookup, pd.DataFrame]:
    """(statistics, samples) of the sandbox section: empty without a sandbox campaign."""
    if sandbox is None:
        return lookup_of(pd.DataFrame()), samples.iloc[0:0]
    return sandbox.stats, sandbox.samples


def latex_available() -> bool:
    return all(shutil.which(t) for t in ("latexmk", "pdflatex", "bibtex"))


def run_latex(out_dir: Path, source_date_epoch: int | None = None, force: bool = False) -> tuple[Path, float]:
    """latexmk main.tex -> build/paper.pdf in `out_dir`; returns (pdf, seconds)."""
    if not latex_available():
        raise VbenchError(
            "latexmk/pdflatex/bibtex not found: install TeX (scripts/setup.sh installs "
            "texlive-latex-base, texlive-latex-recommended, texlive-fonts-recommended, texlive-science, latexmk)"
        )
    env = dict(os.environ)
    if source_date_epoch is not None:
        env.update(SOURCE_DATE_EPOCH=str(int(source_date_epoch)), FORCE_SOURCE_DATE="1")
    cmd = [
        "latexmk",
        "-pdf",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "-file-line-error",
        "-outdir=build",
        "-jobname=paper",
        "main.tex",
    ]
    if force:
        cmd.insert(1, "-g")
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, cwd=out_dir, env=env, capture_output=True, text=True, timeout=LATEX_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise VbenchError(f"latexmk did not finish within {LATEX_TIMEOUT_S}s in {out_dir}") from None
    seconds = time.perf_counter() - t0
    pdf = out_dir / "build" / "paper.pdf"
    if r.returncode != 0 or not pdf.is_file():
        log = out_dir / "build" / "paper.log"
        text = log.read_text(errors="replace") if log.is_file() else r.stdout + r.stderr
        errors = [ln for ln in text.splitlines() if ln.startswith("!") or re.match(r"^\S+\.tex:\d+:", ln)]
        raise VbenchError(f"LaTeX failed (see {log}): " + (" | ".join(errors[:5]) or (r.stdout + r.stderr)[-800:]))
    return pdf, seconds


def page_count(pdf: Path) -> int | None:
    """Pages of a PDF by pdfinfo (poppler-utils); None if pdfinfo is missing."""
    if not shutil.which("pdfinfo"):
        return None
    r = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, timeout=60)
    m = re.search(r"^Pages:\s+(\d+)", r.stdout, re.M)
    return int(m[1]) if m else None


def _ensure_sources(out_dir: Path, sources: Path) -> None:
    for name in SOURCE_FILES:
        dst = out_dir / name
        if not dst.exists():
            src = sources / name
            if not src.is_file():
                raise VbenchError(f"{dst} is missing and there is no {src} to copy it from")
            out_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)


def build_paper(
    campaign_dir: Path,
    out_dir: Path = Path("paper"),
    *,
    pdf: bool = True,
    sources: Path = SOURCES,
    force: bool = True,
    **inputs,
) -> BuildResult:
    """Generate the paper's artifacts from a campaign (`generate`, given `inputs`: its keywords,
    the baseline, bootstrap settings and the other campaigns) and (with `pdf`) build
    `<out_dir>/build/paper.pdf`.

    `out_dir` holds main.tex and references.bib (copied from `sources`, the checkout's paper/,
    when absent, so any directory can be a build directory)."""
    campaign_dir, out_dir = Path(campaign_dir), Path(out_dir)
    result = generate(campaign_dir, out_dir, **inputs)
    if pdf:
        _ensure_sources(out_dir, Path(sources))
        result.pdf, result.latex_seconds = run_latex(out_dir, result.source_date_epoch, force=force)
        result.pages = page_count(result.pdf)
    return result

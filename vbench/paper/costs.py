"""The cost model's section: what the model fitted on planted slowdowns predicts for the sandbox
study's platforms, beside what they measured (issue #53 item 5).

Two campaigns, read as `vbench predict CALIBRATION --fit FIT` reads them
(`vbench.stats.cost_prediction.prediction_inputs`, whose checks refuse what cannot be fitted or
predicted, naming the campaign's samples file):

* the fit (params/paper.yaml's `cost_fit_campaign`): native hosts under planted slowdowns
  (params/experiments/costs-fit-nodelay.yaml); each job's shares of native time per resource are
  fitted on its configurations alone;
* the calibration: the sandbox study's campaign (`sandbox_campaign`), native, LXC, OCI and gVisor
  with their micro-benchmarks and the suite's jobs on the same hosts in the same blocks. Each
  platform is predicted from its cost vector alone and compared with the job ratio it measured.

The table's rows are `cost_model.leave_one_platform_out`'s (`vbench.stats.predicted_rows`, whose
rows the statistics stage writes for the analysed campaign too): the shares fitted on the fit's
configurations only (`fit_on_other_platforms` False), so no platform's job times are in any fit,
and a job's one fit serves every platform held out. The attribution of gVisor's TeraSort and
NNBench is `cost_model.attribute` of that fit, which the rows carry: it splits the prediction the
table shows, and is what `vbench predict` (`cost_prediction.prediction_table`) gives, fitting the
same configurations with the same seed and draws. The seed is the fit campaign's design seed, as
`vbench predict` takes it, so the paper's numbers are the command's. Nothing here computes a
statistic of its own: the error column is the rows' `error` (measured / predicted - 1, what the
model leaves unexplained, as `vbench predict` prints it), and the attribution's parts are its log
overheads over the measured ratio's log.

The fitted resources are `prediction_inputs`' default: those whose planted slowdown moved their cost
(the fit design's rule 1, `cost_prediction.planted_checks`). A planted resource the rule left out
(costs-fit-nodelay's disk writes: the throttle moved nothing) is said so in the section and the
table's note, apart from the resources no slowdown was planted on.

A second part, "The system-call level" (`SYSCALLS`: tab:costs-syscalls, no figure), is built the
same way from a second study (`cost_study` again, the same sentences and `table_costs`), with three
campaigns instead of two: the fit params/paper.yaml's `syscall_fit_campaign` names
(params/experiments/costs-fit-syscalls.yaml: native unplanted and with every system call of every
host process stopped twice under ptrace; one level moves a system call's, a process creation's and a
JVM's start's costs together, so one share per job is fitted, on the JVM's start, its design's rule
3), the calibration `syscall_calibration_campaign` names (`costs`: the platforms' micro-benchmarks,
no job) and the measured jobs, `sandbox_campaign`'s (`cost_study(..., measured=...)`, as `vbench
predict costs --fit costs-fit-syscalls --measured sandbox` reads them). A first run of that fit's
design that failed its rule 1 (`syscall_fit_superseded`: costs-fit-syscalls, before
costs-fit-syscalls-confirm) is said in one sentence, its rule 1 computed as `prediction_inputs`
computes it (`superseded_fit`), and nothing else of it is read. A second campaign
(`syscall_levels_campaign`: costs-fit-process) that stopped only the process and thread calls
beside every call is said in one sentence more: of what stopping every call cost each job, the part
that level gave (`level_parts`, `cost_model.part_of_slowdown`), and whether its own fit failed its
rule 1. That fit has two shares per job, of a system call and of a process creation
(`LEVELS_FIT_RESOURCES`, as params/experiments/costs-fit-process-confirm.yaml named them before it
ran), and its rule 1 asks that the levels move the two apart (`cost_prediction.levels_apart`: the
process level moves a process creation above x1.5 and leaves a call under it, every call stopped
moves the call). Where it holds, the fit is read as a third part, "The system-call levels apart"
(`LEVELS`: tab:costs-syscall-levels, no figure), `cost_study` with those resources named, against
the system-call level's calibration and the sandbox campaign's jobs; the part of each job's cost
moves into its opening. After it, each campaign that calibrated the same costs and timed the same
jobs in runs of its own (`syscall_levels_heldout`, a list: costs-gvisor-network, costs-oneday) is a
part of its own (`heldout_part`: tab:costs-heldout-<campaign>, no figure), its platforms predicted
by that fit from its own costs against its own jobs (`held_out`). Then a fit of three levels of stops
(`file_levels_campaign`: costs-fit-file) that stopped only the calls that name a file beside the
process and thread calls alone and every call is a part of its own, "The calls that name a file"
(`FILE_LEVELS`: tab:costs-file-levels, no figure): three shares per job, of a system call, a process
creation and a file opened by name (`cost_prediction.levels_resources`, as its design named them),
read only where its rule 1 holds (`levels_apart`; else its subsection is one sentence saying so),
the platforms of a calibration of those three costs (`file_levels_calibration_campaign`:
costs-calibration-file) predicted against the jobs of another campaign
(`file_levels_measured_campaign`: costs-oneday-confirm), seeded by the fit's design (`file_levels`).
Last, a fit of the two levels with the process level fixed for threads (`rpc_levels_campaign`:
costs-fit-threads, whose partial level no longer stops a JVM's threads at every call) is a part of its
own, "Priced by a JVM's call" (`RPC_LEVELS`: tab:costs-rpc-levels, no figure): one share per job, of a
JVM's loopback RPC (`RPC_LEVELS_RESOURCES`), read only where a level moves that cost
(`levels_apart` on it alone; else its subsection is one sentence saying so), beside whether its
levels move a process creation apart from the RPC (`levels_apart` on both, `RPC_LEVELS_BESIDE`: said,
its share not fitted), the platforms of `rpc_levels_calibration_campaign` (costs-rpc-platforms)
predicted against the jobs of `rpc_levels_measured_campaign` (costs-oneday-confirm), seeded by the
fit's design (`rpc_levels`, as `vbench predict CALIBRATION --fit FIT --measured MEASURED --resources
rpc` reads them). After it, a fit of three levels on another machine (`memory_levels_campaign`:
costs-fit-memory, on the Intel Xeon: the fixed process level, only the calls that map memory, and every
call) is a part of its own, "A JVM's start apart from its calls" (`MEMORY_LEVELS`:
tab:costs-memory-levels, no figure): two shares per job, of a JVM's call and its start
(`MEMORY_LEVELS_RESOURCES`), read only where its levels move the two apart (else one sentence), its
machine named, the platforms and jobs of one campaign (`memory_levels_calibration_campaign` and
`memory_levels_measured_campaign`: costs-jvm-sameday) predicted and compared (`memory_levels`). The
fits of levels are one record (`LevelsFit`), read by one function. The subsections after it are other
modules': priced in the machine's CPU (`vbench.paper.costs_cpu`, whose tests are `levels_test`'s with
the fit's costs read from another campaign, `cost_study`'s `fit_costs`), judged against ratios pooled
over campaigns (`vbench.paper.costs_pooled`, `vbench predict --measured A,B,...`'s reading), with the
rest of native time priced at a resource's cost (`vbench.paper.costs_rest`, `vbench predict --rest`'s) and
NNBench's barrier (`vbench.paper.costs_barrier`).

Without a fit campaign (the key empty) `section_tex(None)` is a LaTeX comment: no section, table or
figure is built and nothing in the paper claims a result. Without the second study (its keys
empty) the section is the first part alone.

Pure but for `fig_costs`, which draws (and imports matplotlib only when called).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from vbench.errors import ParamsError
from vbench.stats import cost_model as cm
from vbench.stats.campaign import Campaign
from vbench.stats.cost_prediction import (
    FILE_LEVEL,
    MEMORY_LEVEL,
    MIN_PLANTED_COST,
    PLANTED_COST_CONF,
    PROCESS_LEVEL,
    SYSCALL_LEVELS_RESOURCES,
    SYSCALL_STOPS_COLUMN,
    ApartCheck,
    PlantedCheck,
    PredictionInputs,
    baseline_of,
    design_seed,
    fit_seed,
    fitted_jobs,
    levels_apart,
    levels_resources,
    planted_checks,
    planted_factors,
    prediction_inputs,
    samples_path,
)
from vbench.stats.predicted_rows import held_out_frame, held_out_predictions, job_fits
from vbench.stats.keys import natural_key
from vbench.stats.records import Interval
from vbench.wording import count, job_name, resource_name

from vbench.paper import machines as M
from vbench.paper import sandbox as S
from vbench.paper.abstract import reader_name
from vbench.paper.fmt import and_list, code_tex, configuration_tex, interval_text, sig_digits, tex_escape
from vbench.paper.tables.grid import Grid, render

#: The files this section writes under generated/: costs.tex (the section), tables/costs.tex,
#: figures/costs.{pdf,png,tex}, costs.csv and costs_attribution.csv (the rows, for tracing); the
#: system-call level, tables/costs-syscalls.tex and its two CSV files (`SYSCALLS`); each later part,
#: tables/<its name>.tex and its two CSV files (`LEVELS`, `heldout_part`, `FILE_LEVELS`, `RPC_LEVELS`,
#: `MEMORY_LEVELS`).
NAME = "costs"
SECTION_LABEL, TABLE_LABEL, FIGURE_LABEL = "sec:costs", "tab:costs", "fig:costs"
#: What the figure follows (its caption's "After ...").
FIGURE_SOURCE = "this paper's planted-slowdown fit and sandbox study"
#: The platform whose jobs the section attributes resource by resource, and the jobs: gVisor's,
#: the one platform whose costs are far from native's, on the sandbox section's two jobs.
ATTRIBUTED_PLATFORM = S.SANDBOX
ATTRIBUTED_JOBS = ("terasort", "nnbench_create_write")
#: Where a study compared gVisor's network stacks, the table names its labels so (the prose, as
#: `reader_name` does); any other platform as `configuration_tex` prints it.
TABLE_PLATFORM_NAMES = {"gvisor/sandbox": "gVisor", "gvisor/host": "gVisor, host stack"}
#: The figure's marker fill per job (the marker is the platform's): apart in greyscale.
JOB_FILLS = ("full", "none", "left", "bottom", "right", "top")
#: The figure's size in inches: narrower than the page's figures (style.WIDTH), so its legend has
#: the columns of its own width (`legend_columns`' characters scaled to it), not a page's: the
#: sandbox study's 3 platforms and 5 jobs in 4 columns were wider than the figure and cut at both
#: edges (its platforms' column lost). Taller for the legend's rows.
FIGURE_WIDTH, FIGURE_HEIGHT = 4.2, 3.8

#: What the generated section file holds when no fit campaign was given.
OMITTED_TEX = (
    "% The cost model's section is omitted: params/paper.yaml's paper.cost_fit_campaign is empty, so this\n"
    "% build was given no fit campaign (it names data/raw/<name>/ once `vbench campaign run\n"
    "% costs-fit-nodelay` has measured it). No table, figure or sentence of the model is built.\n"
)
#: The build log's one line on it.
OMITTED_NOTE = (
    "the cost model's section is omitted: params/paper.yaml's paper.cost_fit_campaign is empty "
    "(set it once `vbench campaign run costs-fit-nodelay` has measured the fit)"
)


@dataclass(frozen=True)
class Part:
    """One part of the section, as the same functions present either study: the files it writes
    under generated/ (tables/<name>.tex, <name>.csv and <name>_attribution.csv, figures/<name>.*
    where it has a figure) and the labels its sentences refer to."""

    name: str
    table_label: str
    #: None: the part has its table alone.
    figure_label: str | None
    #: What was planted on the native hosts, in the table's caption.
    planted: str
    #: The subsection it is and that subsection's label (None: the section's opening part).
    title: str | None = None
    label: str | None = None
    #: The resources its one planted level moves together, the fitted one among them: the fit cannot
    #: give their shares apart, so the others are not in the model for that reason, not for want of
    #: a planted slowdown.
    together: tuple[str, ...] = ()


#: The section's opening part: the fit campaign's planted slowdowns (`cost_fit_campaign`).
MAIN = Part(NAME, TABLE_LABEL, FIGURE_LABEL, "planted slowdowns")
#: The system-call level (`syscall_fit_campaign`, `syscall_calibration_campaign`): its table alone.
SYSCALLS = Part(
    "costs-syscalls",
    "tab:costs-syscalls",
    None,
    "system-call stops",
    "The system-call level",
    "sec:costs-syscalls",
    together=("syscall", "spawn", "jvmstart"),
)
#: The system-call levels apart (`syscall_levels_campaign` where its fit's rule 1 holds): the
#: process and thread calls stopped alone beside every call, two shares per job; its table alone.
LEVELS = Part(
    "costs-syscall-levels",
    "tab:costs-syscall-levels",
    None,
    "system-call stops at two levels",
    "The system-call levels apart",
    "sec:costs-syscall-levels",
    together=("jvmstart",),
)
#: The calls that name a file (`file_levels_campaign`, where its fit's rule 1 holds): only those calls
#: stopped beside the process and thread calls alone and every call, three shares per job; its table
#: alone. Where rule 1 fails, its subsection is one sentence, and it has no table.
FILE_LEVELS = Part(
    "costs-file-levels",
    "tab:costs-file-levels",
    None,
    "system-call stops at three levels",
    "The calls that name a file",
    "sec:costs-file-levels",
    together=("jvmstart",),
)
#: The fit of the two levels with the process level fixed for threads (`rpc_levels_campaign`, where a
#: level moves a JVM's call): one share per job, priced by that call; its table alone. Where no level
#: moves it, its subsection is one sentence, and it has no table. Its one planted level that moves the
#: RPC (every call stopped) moves a call and a process creation with it: the share stands for them.
RPC_LEVELS = Part(
    "costs-rpc-levels",
    "tab:costs-rpc-levels",
    None,
    "system-call stops at two levels",
    "Priced by a JVM's call",
    "sec:costs-rpc-levels",
    together=("rpc", "syscall", "spawn"),
)
#: A JVM's start apart from its calls (`memory_levels_campaign`, where its fit's rule 1 holds): only the
#: calls that map memory stopped beside the fixed process level and every call, on another machine, two
#: shares per job, of a JVM's call and its start; its table alone. Where rule 1 fails, its subsection is
#: one sentence, and it has no table. A process creation moves with a JVM's start at every level.
MEMORY_LEVELS = Part(
    "costs-memory-levels",
    "tab:costs-memory-levels",
    None,
    "system-call stops at three levels",
    "A JVM's start apart from its calls",
    "sec:costs-memory-levels",
    together=("syscall", "spawn"),
)


def strace_tex(calls: str) -> str:
    """How a partial level stops `calls` (strace's -e argument), as the paper prints it. Pure."""
    return code_tex(f"strace -f --seccomp-bpf -e {calls}")


#: How the level that stops only the calls naming a file (`FILE_LEVEL`, params/experiments/
#: costs-fit-file.yaml) stops them, as the paper prints it.
FILE_CALLS_TRACED = strace_tex("trace=%file")
#: What a host records it planted at the process level once that level was fixed for threads (its
#: `slowdown_applied`; vbench.testbed.syscall_stops.applied, with its FIRST_CALL, since 341e298): the
#: fit priced by a JVM's call is read only from such hosts, as its subsection says its threads ran
#: their ordinary calls unstopped. Not imported: the paper does not load the modules that drive hosts.
FIXED_PROCESS_PLANT = "trace=%process,set_robust_list"
APPLIED_COLUMN = "slowdown_applied"
#: How the fixed level stops them, as the paper prints it.
FIXED_CALLS_TRACED = strace_tex(FIXED_PROCESS_PLANT)
#: The one resource the fit priced by a JVM's call fits (`rpc`, vbench/benchmarks/micro/rpc.py: a
#: JVM's loopback RPC, a call as a JVM's threads make it, not dd's), and the one its hosts calibrated
#: beside it whose share it leaves out: whether its levels move a process creation apart from the
#: RPC is said (`levels_apart` on both), not fitted on.
RPC_LEVELS_RESOURCES = ("rpc",)
RPC_LEVELS_BESIDE = ("spawn",)
#: How the level that stops only the calls mapping memory (`MEMORY_LEVEL`, params/experiments/
#: costs-fit-memory.yaml) stops them, as the paper prints it.
MEMORY_CALLS_TRACED = strace_tex("trace=%memory,set_robust_list")
#: The two resources the fit of the memory level fits (as params/experiments/costs-fit-memory.yaml
#: named them before it ran), and the one its hosts calibrated beside them whose share it leaves out.
MEMORY_LEVELS_RESOURCES = ("rpc", "jvmstart")
MEMORY_LEVELS_BESIDE = ("spawn",)
#: Resource -> the one operation whose cost it is, as the file levels' sentences name its share.
COST_UNITS = {
    "syscall": "a one-byte system call",
    "spawn": "a process creation",
    "fileopen": "a file opened by name",
    "rpc": "a loopback RPC of a JVM",
    "jvmstart": "a JVM's start",
    "pagefault": "a 4 KiB page of fresh memory faulted in",
    # The resources a rest is priced at (vbench.paper.costs_rest), each one thread's computing.
    "cpu": "an event of sysbench's prime-number loop in one thread",
    "jvmcpu": "a one-thread Java sort and checksum of 100-byte records",
}
#: How jvmcpu's operation is said as its calibration ran it (`costs_rest.rest_units`): after a warm-up,
#: or cold, a fresh JVM's first (its interpreter and compiler counted, as a task's JVM pays them).
JVMCPU_WARM = "{}, warm"
JVMCPU_COLD = "{}, a fresh JVM's first, cold"

#: The levels' fit held out (`syscall_levels_heldout`, a list): each campaign there is a
#: part of its own (`heldout_part`), its files and labels this prefix and the campaign's name, so
#: that a campaign's table keeps its label wherever the list puts it.
HELDOUT_PREFIX = "costs-heldout"
#: A held-out part's subsection title where the campaign timed gVisor on both its network stacks
#: (costs-gvisor-network); any other names its platforms after `HELDOUT_TITLE`.
HELDOUT_STACKS_TITLE = "The levels' fit held out: gVisor on both network stacks"
HELDOUT_TITLE = "The levels' fit held out"
#: The held-out campaigns' places among the tests of the levels' fit: its own subsection's is the first.
HELDOUT_ORDINALS = ("second", "third", "fourth", "fifth", "sixth")
#: gVisor's two network stacks as a comparison view names them: the held-out part sets them side by side.
OWN_STACK, HOST_STACK = "gvisor/sandbox", "gvisor/host"
#: The build log's line when the section is built without its system-call level.
SYSCALL_OMITTED_NOTE = (
    "the cost model's system-call level is omitted: params/paper.yaml's paper.syscall_fit_campaign and "
    "paper.syscall_calibration_campaign are empty (set them once `vbench campaign run costs-fit-syscalls-confirm` "
    "has measured the fit)"
)
#: What the system-call level's fit planted (params/experiments/costs-fit-syscalls.yaml).
SYSCALL_PLANTED = (
    "every system call of every host process stopped twice under ptrace, as gVisor's ptrace platform stops each"
)


# --- records --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostSummary:
    """The table's summary line."""

    rows: int
    #: Rows whose prediction interval holds the measured ratio.
    covered: int
    #: Rows whose measurement agrees with the prediction (`PredictionRow.agrees`).
    agrees: int
    #: The median over the rows of |measured / predicted - 1|.
    median_abs_error: float

    @property
    def coverage(self) -> float:
        return self.covered / self.rows


@dataclass(frozen=True)
class ResourcePart:
    """A resource's part of a job's measured overhead: its log overhead (`ResourceTerm.log_overhead`)
    over log(measured ratio)."""

    resource: str
    share: float


@dataclass(frozen=True)
class AttributedJob:
    """One job on the attributed platform: `cost_model.attribute`'s attribution with its row's
    measured and predicted ratios."""

    job: str
    platform: str
    attribution: cm.Attribution
    measured: Interval
    predicted: Interval

    @property
    def resolved(self) -> bool:
        """The measured ratio's interval excludes 1: an overhead to split. Within noise of native's
        time, the parts of a log overhead near 0 would be noise over noise."""
        m = self.measured
        return m.bounded and not (m.low <= 1.0 <= m.high) and self.attribution.explained_log is not None

    def parts(self) -> tuple[ResourcePart, ...]:
        """Each resource's part of log(measured): with `rest` they add up to 1 (the attribution's log
        parts add up to log(predicted), its unexplained part is log(measured) - log(predicted)).
        Empty when the overhead is not `resolved` or the model predicts none."""
        total = self.attribution.measured_log
        if not self.resolved or total is None or any(t.log_overhead is None for t in self.attribution.terms):
            return ()
        return tuple(ResourcePart(t.resource, t.log_overhead / total) for t in self.attribution.terms)

    @property
    def rest(self) -> float | None:
        """The unexplained part of log(measured): what the fitted resources leave (negative: the
        model predicts more than was measured)."""
        a = self.attribution
        if not self.parts() or a.unexplained_log is None:
            return None
        return a.unexplained_log / a.measured_log


@dataclass(frozen=True, eq=False)
class CostStudy:
    """The section's content: the leave-one-platform-out rows and the attribution."""

    fit_name: str
    calibration_name: str
    #: The campaign whose timed jobs the rows' measured ratios are: the calibration's name where it
    #: timed them itself.
    measured_name: str
    #: The fitted resources, in the fit's order.
    resources: tuple[str, ...]
    #: Resources the calibration measured that the fit does not (no planted slowdown moved them on
    #: their own), less `left_out`'s: what a platform pays for them is in its error.
    unfitted: tuple[str, ...]
    #: job -> the fit's configurations its shares were fitted on.
    designs: tuple[tuple[str, tuple[str, ...]], ...]
    #: The fit campaign's blocks.
    blocks: int
    #: `leave_one_platform_out`'s rows, in the table's order.
    rows: tuple[cm.PredictionRow, ...]
    #: The platform whose jobs are attributed (as asked: `gvisor`, whatever its label in the rows).
    attributed_platform: str
    #: The jobs asked to be attributed there, whether measured or not.
    attributed_jobs: tuple[str, ...]
    attributions: tuple[AttributedJob, ...]
    #: The jobs whose additive form the lack-of-fit test rejects (Holm over the jobs).
    rejected: tuple[str, ...]
    conf: float
    n_draws: int
    seed: int
    notes: tuple[str, ...] = ()
    #: The planted resources the fit design's rule 1 left out: their planted slowdown did not move
    #: their cost (`PredictionInputs.left_out`), said apart from `unfitted`, where none was planted.
    left_out: tuple[PlantedCheck, ...] = ()

    @property
    def summary(self) -> CostSummary:
        return cost_summary(self.rows)

    @property
    def level(self) -> int:
        return round(100 * self.conf)


# --- computing ------------------------------------------------------------------------------------


def cost_study(
    fit: Campaign,
    calibration: Campaign,
    *,
    measured: Campaign | None = None,
    conf: float = cm.DEFAULT_CONF,
    n_draws: int = cm.DEFAULT_DRAWS,
    seed: int | None = None,
    platform: str = ATTRIBUTED_PLATFORM,
    jobs: Sequence[str] = ATTRIBUTED_JOBS,
    resources: Sequence[str] | None = None,
    fit_costs: Campaign | None = None,
) -> CostStudy:
    """Fit on `fit`, predict each platform of `calibration` and compare with its measured jobs
    (those `measured` timed, where given: `prediction_inputs`' `measured_in`, its platforms matched
    to the calibration's by name); attribute `platform`'s `jobs`. `seed`: by default the fit
    campaign's design seed, as `vbench predict` takes it. `resources`: the fitted ones as its design
    named them (`vbench predict --resources`); by default rule 1's. `fit_costs`: the campaign the
    fit's configurations' costs are read from instead of the fit's own (`vbench predict --fit-costs`).
    Refused, naming the samples file of the campaign whose jobs are compared, when it timed no job
    the fit fitted: a section without a measured ratio would show predictions no one can check."""
    inputs = prediction_inputs(
        fit,
        calibration,
        resources,
        conf=conf,
        measured_in=() if measured is None else (measured,),
        fit_costs_in=fit_costs,
    )
    timed = calibration if measured is None else measured
    seed = fit_seed(fit.path) if seed is None else seed
    # `vbench predict`'s refusal (prediction_table), which the rows' fit would otherwise skip.
    if n_draws < 2:
        raise ParamsError("--draws", f"at least 2 bootstrap draws, not {n_draws}")
    predictions = held_out_predictions(inputs, conf=conf, n_draws=n_draws, seed=seed)
    if not predictions:
        fitted = and_list([job_name(j) for j, _ in inputs.designs])
        raise ParamsError(
            samples_path(timed),
            f"timed none of the jobs the fit fitted ({fitted}) in two blocks or more beside "
            f"{inputs.calibration_baseline}: no measured ratio to compare a prediction with",
        )
    fits = job_fits(inputs, predictions, conf=conf, n_draws=n_draws, seed=seed)
    return CostStudy(
        fit_name=fit.name,
        calibration_name=calibration.name,
        measured_name=timed.name,
        resources=inputs.resources,
        unfitted=_unfitted(inputs),
        designs=inputs.designs,
        blocks=S.blocks_of(fit.samples),
        rows=predictions,
        attributed_platform=platform,
        attributed_jobs=tuple(jobs),
        attributions=attributed(inputs, predictions, platform, jobs),
        rejected=rejected_jobs(fits),
        conf=conf,
        n_draws=n_draws,
        seed=seed,
        notes=inputs.notes,
        left_out=inputs.left_out,
    )


@dataclass(frozen=True)
class FailedCost:
    """A planting configuration's cost ratio that rule 1 found short of MIN_PLANTED_COST."""

    resource: str
    configuration: str
    #: How many configurations plant the resource's level: the configuration is named among several.
    planting: int
    #: Its interval at PLANTED_COST_CONF, as rule 1 reads it; None: not measured there.
    ratio: Interval | None


@dataclass(frozen=True)
class SupersededFit:
    """A first run of the system-call level's fit design that failed its rule 1: by that design,
    all that is read of it (params/paper.yaml's `syscall_fit_superseded`)."""

    name: str
    failed: tuple[FailedCost, ...]


def superseded_fit(fit: Campaign) -> SupersededFit:
    """`fit`'s rule 1 as `prediction_inputs` judges it, each cost failing it with its interval.
    Refused, naming its samples file, when no cost fails it: the paper would say it failed."""
    failed = rule_one_failures(fit)
    if not failed:
        raise ParamsError(
            samples_path(fit),
            "no planted level of it failed rule 1: the paper would say a first run failed it",
        )
    return SupersededFit(fit.name, failed)


def rule_one_failures(fit: Campaign) -> tuple[FailedCost, ...]:
    """The costs failing `fit`'s rule 1 (`planted_checks` on its configurations' cost vectors
    against its baseline), each with its interval; none when it holds."""
    baseline = baseline_of(fit)
    if baseline not in fit.platforms:
        raise ParamsError(samples_path(fit), f"no baseline configuration {baseline!r}: no rule 1 to read")
    vectors = {v.platform: v for v in cm.cost_vectors_of(fit.samples, baseline=baseline)}
    checks = planted_checks(planted_factors(fit, baseline), tuple(vectors.values()))
    return tuple(
        FailedCost(
            c.resource, cost.configuration, len(c.costs), _planted_ratio(vectors.get(cost.configuration), c.resource)
        )
        for c in checks
        for cost in c.failed
    )


def _planted_ratio(vector: cm.CostVector | None, resource: str) -> Interval | None:
    """The interval whose lower bound rule 1 reads (`PlantedCost.low`); None where it has none."""
    if vector is None or resource not in vector.resources:
        return None
    return vector.ratio(resource).interval(PLANTED_COST_CONF)


#: The two planted levels of the system-call stops (SYSCALL_STOPS_COLUMN) a second campaign compares:
#: the process and thread calls alone (the part), every call (the whole).
PART_LEVEL, WHOLE_LEVEL = PROCESS_LEVEL, "True"


#: The resources a campaign of both system-call levels is fitted on (its design's; a JVM's start,
#: moved by both levels, is not apart from them: `LEVELS.together`).
LEVELS_FIT_RESOURCES = SYSCALL_LEVELS_RESOURCES


@dataclass(frozen=True)
class LevelParts:
    """A campaign that stopped only the process and thread calls beside every call (params/paper.yaml's
    `syscall_levels_campaign`): per job, of what every call stopped cost it, the part the lesser level
    gave (`cost_model.part_of_slowdown`); its own fit's rule 1 (do its levels move LEVELS_FIT_RESOURCES
    apart, `levels_apart`), and where it holds the fit's study: the platforms predicted from it."""

    name: str
    #: (job, its part at `conf`; no estimate where the every-call ratio's interval holds 1).
    parts: tuple[tuple[str, Interval], ...]
    conf: float
    apart: ApartCheck
    #: The two-share fit's study (`cost_study`), where rule 1 holds and it was asked for.
    fit: CostStudy | None = None


def _level_configuration(samples: pd.DataFrame, level: str, where: str) -> str:
    """The configuration (`platform`) whose system-call stops are at `level`; refused naming `where`."""
    if SYSCALL_STOPS_COLUMN not in samples.columns:
        raise ParamsError(where, f"no column {SYSCALL_STOPS_COLUMN!r}: no system-call stop levels to compare")
    found = sorted(set(samples.loc[samples[SYSCALL_STOPS_COLUMN].astype(str) == level, "platform"].astype(str)))
    if len(found) != 1:
        raise ParamsError(
            where, f"{len(found)} configurations with {SYSCALL_STOPS_COLUMN} {level!r} ({found}): one is compared"
        )
    return found[0]


def level_parts(
    campaign: Campaign,
    calibration: Campaign | None = None,
    measured: Campaign | None = None,
    n_draws: int = cm.DEFAULT_DRAWS,
    conf: float = 0.95,
) -> LevelParts:
    """Per job `campaign` timed at both levels, (r_process - 1) / (r_every - 1) against its baseline,
    with its interval of `n_draws` joint draws over the blocks seeded by its design's seed (else
    cost_model's default); and its fit's rule 1. Where rule 1 holds and a `calibration` is given,
    the study of its fit on LEVELS_FIT_RESOURCES predicting the calibration's platforms against
    `measured`'s jobs (`cost_study`, as `vbench predict CALIBRATION --fit CAMPAIGN --measured
    MEASURED --resources syscall,spawn` reads them). Refused, naming its samples file, without
    either level."""
    where = samples_path(campaign)
    baseline = baseline_of(campaign)
    part_at = _level_configuration(campaign.samples, PART_LEVEL, where)
    whole_at = _level_configuration(campaign.samples, WHOLE_LEVEL, where)
    seed = design_seed(campaign.path)
    rng = np.random.default_rng(cm.DEFAULT_SEED if seed is None else seed)
    ratios = cm.job_ratios_of(campaign.samples, baseline=baseline)
    parts = cm.parts_of_slowdown(ratios, part_at, whole_at, rng, n_draws, conf)
    if not parts:
        raise ParamsError(where, f"no job timed at both {part_at!r} and {whole_at!r}: no part to read")
    apart, fit = _fit_where_apart(campaign, LEVELS_FIT_RESOURCES, calibration, measured)
    return LevelParts(campaign.name, parts, conf, apart, fit)


def _fit_where_apart(
    fit: Campaign,
    resources: Sequence[str],
    calibration: Campaign | None,
    measured: Campaign | None,
    **study,
) -> tuple[ApartCheck, CostStudy | None]:
    """A fit of system-call levels' rule 1 on the `resources` its design names (`levels_apart`) and,
    where it holds and a `calibration` is given, its study on them (`cost_study` with `study`'s
    keywords): a fit whose levels do not move its resources apart is not read."""
    apart = _levels_apart_of(fit, resources)
    if not apart.passes or calibration is None:
        return apart, None
    return apart, cost_study(fit, calibration, measured=measured, resources=resources, **study)


def _levels_apart_of(fit: Campaign, resources: Sequence[str]) -> ApartCheck:
    """`levels_apart` on `resources`, from `fit`'s configurations' cost vectors against its baseline."""
    return levels_apart(resources, cm.cost_vectors_of(fit.samples, baseline=baseline_of(fit)))


@dataclass(frozen=True)
class HeldOut:
    """The levels' fit predicting a campaign that calibrated and timed its platforms on a day of its
    own (one of params/paper.yaml's `syscall_levels_heldout`): its study, and where it timed gVisor on both
    network stacks, each job's ratio of the host's stack to gVisor's own."""

    name: str
    blocks: int
    study: CostStudy
    #: (job, gvisor/host's time over gvisor/sandbox's, paired over the blocks at `study.conf`).
    stacks: tuple[tuple[str, Interval], ...] = ()


def held_out(campaign: Campaign, levels_campaign: Campaign, levels: LevelParts) -> HeldOut | None:
    """`levels_campaign`'s fit on LEVELS_FIT_RESOURCES predicting each platform `campaign` calibrated,
    against the jobs it timed (`cost_study`, as `vbench predict CAMPAIGN --fit LEVELS --resources
    syscall,spawn --seed <CAMPAIGN's design seed>`), its host-stack gVisor attributed where it has one;
    None where that fit is not read (its rule 1 failed): a held-out test of a fit not read is not read
    either."""
    if levels.fit is None:
        return None
    platforms = set(campaign.platforms)
    attributed_at = HOST_STACK if HOST_STACK in platforms else ATTRIBUTED_PLATFORM
    study = cost_study(
        levels_campaign,
        campaign,
        seed=design_seed(campaign.path),
        platform=attributed_at,
        resources=LEVELS_FIT_RESOURCES,
    )
    stacks: tuple[tuple[str, Interval], ...] = ()
    if {OWN_STACK, HOST_STACK} <= platforms:
        ratios = cm.job_ratios_of(campaign.samples, baseline=OWN_STACK, conf=study.conf)
        stacks = tuple((r.job, r.ratio.interval(study.conf)) for r in ratios if r.platform == HOST_STACK)
    return HeldOut(campaign.name, S.blocks_of(campaign.samples), study, stacks)


def heldout_part(heldout: HeldOut) -> Part:
    """The part `heldout` is in the section: its table alone, named after its campaign
    (costs-heldout-<name>: tables/<that>.tex, tab:<that>, sec:<that>), titled by what it timed."""
    name = f"{HELDOUT_PREFIX}-{heldout.name}"
    return Part(
        name,
        f"tab:{name}",
        None,
        "system-call stops at two levels",
        heldout_title(heldout),
        f"sec:{name}",
        together=("jvmstart",),
    )


def heldout_title(heldout: HeldOut) -> str:
    """Its subsection's title: gVisor's two network stacks where it timed both, else its campaign
    and platforms (one design run twice, as costs-oneday and its confirmation, is two subsections
    that its platforms alone would title alike)."""
    if heldout.stacks:
        return HELDOUT_STACKS_TITLE
    return rf"{HELDOUT_TITLE} on \texttt{{{tex_escape(heldout.name)}}}: {and_list(_heldout_platforms(heldout))}"


def _heldout_platforms(heldout: HeldOut) -> list[str]:
    """The platforms its rows predict (native's is the baseline, in none), as the table names them."""
    platforms = sorted({r.platform for r in heldout.study.rows}, key=natural_key)
    return [platform_cell(p) for p in platforms]


#: How far a gVisor job's prediction may miss its measured ratio, as issue #53 set the target before
#: any fit ran ("every gVisor job within +/-15 % of its measured ratio"): the later tests' sentence
#: counts the campaigns where every gVisor job met it.
GVISOR_TARGET = 0.15


@dataclass(frozen=True)
class LevelsTest:
    """A fit of levels predicting a campaign run after the fit was read, which calibrated the costs and
    timed the jobs in the same blocks (one of params/paper.yaml's `memory_levels_tests`): its study,
    and its machine where that is not the fit's."""

    name: str
    blocks: int
    study: CostStudy
    #: The campaign's CPU model where it differs from the fit's ("" where they agree, or where either
    #: recorded none): a fit carried to another machine, which its sentence says.
    other_machine: str = ""

    @property
    def gvisor_rows(self) -> tuple[cm.PredictionRow, ...]:
        """Its rows on gVisor, on whichever network stack (`gvisor`, `gvisor/sandbox`, `gvisor/host`)."""
        return tuple(r for r in self.study.rows if r.platform.split("/")[0] == ATTRIBUTED_PLATFORM)

    @property
    def other_rows(self) -> tuple[cm.PredictionRow, ...]:
        """Its rows on every other platform (LXC, OCI)."""
        return tuple(r for r in self.study.rows if r not in self.gvisor_rows)

    @property
    def gvisor_within_target(self) -> bool:
        """Every gVisor job's measured / predicted - 1 within `GVISOR_TARGET` (False without one)."""
        rows = self.gvisor_rows
        return bool(rows) and all(r.error.estimate is not None and abs(r.error.estimate) <= GVISOR_TARGET for r in rows)


def levels_test(
    fit: Campaign, campaign: Campaign, resources: Sequence[str], n_draws: int, fit_costs: Campaign | None = None
) -> LevelsTest:
    """`fit`'s shares on `resources` predicting each platform `campaign` calibrated, against the jobs
    it timed in the same blocks (`cost_study`, as `vbench predict CAMPAIGN --fit FIT --resources ...
    --seed <CAMPAIGN's design seed>` reads them, as a held-out campaign is read); its configurations'
    costs read from `fit_costs` where given (`--fit-costs`)."""
    seed = design_seed(campaign.path)
    study = cost_study(fit, campaign, resources=resources, n_draws=n_draws, seed=seed, fit_costs=fit_costs)
    fit_machine, machine = M.cpu_model(fit), M.cpu_model(campaign)
    other = machine if fit_machine and machine and machine != fit_machine else ""
    return LevelsTest(campaign.name, S.blocks_of(campaign.samples), study, other)


@dataclass(frozen=True)
class LevelsFit:
    """A fit of system-call levels read on the resources named for it: the file levels'
    (params/paper.yaml's `file_levels_campaign`: only the calls that name a file stopped beside the
    process and thread calls alone and every call, on the resources its design names), the fit priced
    by a JVM's call (`rpc_levels_campaign`: the process level fixed for threads and every call, on a
    JVM's loopback RPC alone) or the memory level's (`memory_levels_campaign`: only the calls that map
    memory stopped beside those two, on a JVM's call and its start). Its rule 1 (do its levels move
    those resources apart, `levels_apart`) and, where it holds, its study: the platforms of the
    calibration predicted against the measured campaign's jobs."""

    name: str
    calibration_name: str
    measured_name: str
    #: The resources fitted: a system call, a process creation, a file open (`levels_resources`); or
    #: a JVM's loopback RPC (`RPC_LEVELS_RESOURCES`).
    resources: tuple[str, ...]
    apart: ApartCheck
    #: The fit's study (`cost_study`); None where rule 1 fails (the fit is not read).
    study: CostStudy | None = None
    #: Rule 1 on `resources` with the ones calibrated beside them whose shares are not fitted
    #: (`RPC_LEVELS_BESIDE`): what the subsection says of them. None where none is (the file levels
    #: fit every resource their levels name).
    beside: ApartCheck | None = None
    #: The fit's CPU model, as its hosts recorded it ("" where they did not; `machines.cpu_model`).
    machine: str = ""
    #: Campaigns run after the fit was read, each predicted from its own costs against its own jobs
    #: (`levels_test`); none where rule 1 fails (a fit not read is not tested either).
    tests: tuple[LevelsTest, ...] = ()


def file_levels(fit: Campaign, calibration: Campaign, measured: Campaign, n_draws: int = cm.DEFAULT_DRAWS) -> LevelsFit:
    """`fit`'s rule 1 on the resources its levels name (`levels_resources`) and, where it holds, its
    study: `calibration`'s platforms predicted against `measured`'s jobs, seeded by the fit's design
    (`cost_study`, as `vbench predict CALIBRATION --fit FIT --measured MEASURED --resources
    syscall,spawn,fileopen --seed <its design's seed>` reads them). Refused, naming its samples file,
    without one of its three levels: the subsection says it stopped them."""
    levels = (PROCESS_LEVEL, FILE_LEVEL, WHOLE_LEVEL)
    return _levels_fit(fit, calibration, measured, levels, levels_resources(fit.samples), n_draws)


def rpc_levels(fit: Campaign, calibration: Campaign, measured: Campaign, n_draws: int = cm.DEFAULT_DRAWS) -> LevelsFit:
    """`fit`'s rule 1 on a JVM's loopback RPC alone (`RPC_LEVELS_RESOURCES`) and, where it holds, its
    study: `calibration`'s platforms predicted against `measured`'s jobs, seeded by the fit's design
    (`cost_study`, as `vbench predict CALIBRATION --fit FIT --measured MEASURED --resources rpc --seed
    <its design's seed>` reads them); and rule 1 on the RPC with a process creation
    (`RPC_LEVELS_BESIDE`), which the subsection says. Refused, naming its samples file, without its
    process level or every call stopped, or where its hosts did not plant the process level fixed for
    threads (`FIXED_PROCESS_PLANT`): the subsection says they did."""
    _check_fixed_process_level(fit)
    levels = (PROCESS_LEVEL, WHOLE_LEVEL)
    return _levels_fit(fit, calibration, measured, levels, RPC_LEVELS_RESOURCES, n_draws, RPC_LEVELS_BESIDE)


def memory_levels(
    fit: Campaign,
    calibration: Campaign,
    measured: Campaign,
    n_draws: int = cm.DEFAULT_DRAWS,
    tests: Sequence[Campaign] = (),
) -> LevelsFit:
    """`fit`'s rule 1 on a JVM's call and its start (`MEMORY_LEVELS_RESOURCES`) and, where it holds,
    its study: `calibration`'s platforms predicted against `measured`'s jobs, seeded by the fit's
    design (`cost_study`, as `vbench predict CALIBRATION --fit FIT --measured MEASURED --resources
    rpc,jvmstart --seed <its design's seed>` reads them); and rule 1 with a process creation beside
    them (`MEMORY_LEVELS_BESIDE`), which the subsection says. Refused, naming its samples file, without
    its process, memory or every-call level, or where its process level is not the plant fixed for
    threads. `tests`: campaigns run after the fit was read, each predicted from its own costs against
    its own jobs (`levels_test`), where rule 1 holds."""
    _check_fixed_process_level(fit)
    levels = (PROCESS_LEVEL, MEMORY_LEVEL, WHOLE_LEVEL)
    read = _levels_fit(fit, calibration, measured, levels, MEMORY_LEVELS_RESOURCES, n_draws, MEMORY_LEVELS_BESIDE)
    if read.study is None:
        return read
    return replace(read, tests=tuple(levels_test(fit, t, read.resources, n_draws) for t in tests))


def _levels_fit(
    fit: Campaign,
    calibration: Campaign,
    measured: Campaign,
    levels: Sequence[str],
    resources: Sequence[str],
    n_draws: int,
    beside: Sequence[str] = (),
) -> LevelsFit:
    """`fit`'s rule 1 on `resources` and, where it holds, its study on them seeded by its design
    (`_fit_where_apart`); given `beside`, rule 1 on `resources` with them too. Refused, naming its
    samples file, without one of `levels`: its subsection says it planted them."""
    where = samples_path(fit)
    for level in levels:
        _level_configuration(fit.samples, level, where)
    apart, study = _fit_where_apart(fit, resources, calibration, measured, n_draws=n_draws, seed=design_seed(fit.path))
    with_beside = _levels_apart_of(fit, (*resources, *beside)) if beside else None
    return LevelsFit(
        fit.name, calibration.name, measured.name, tuple(resources), apart, study, with_beside, M.cpu_model(fit)
    )


def _check_fixed_process_level(fit: Campaign) -> None:
    """Refuse, naming `fit`'s samples file, a process level whose hosts did not record the plant fixed
    for threads (`FIXED_PROCESS_PLANT` in every `slowdown_applied` they recorded there, and one at
    least): planted before the fix, a JVM's threads paid every call stopped at that level."""
    where = samples_path(fit)
    config = _level_configuration(fit.samples, PROCESS_LEVEL, where)
    samples = fit.samples
    applied = (
        set(samples.loc[samples["platform"].astype(str) == config, APPLIED_COLUMN].dropna().astype(str))
        if APPLIED_COLUMN in samples.columns
        else set()
    )
    if not applied or any(FIXED_PROCESS_PLANT not in text for text in applied):
        raise ParamsError(
            where,
            f"its process level ({config!r}) is not the plant fixed for threads: its hosts recorded "
            f"{APPLIED_COLUMN} {sorted(applied) or 'nothing'}, not {FIXED_PROCESS_PLANT!r} (a JVM's threads paid "
            "every call stopped there); the fit priced by a JVM's call reads a level fixed for them",
        )


def rejected_jobs(fits: Sequence[cm.JobFit]) -> tuple[str, ...]:
    """The jobs whose additive form the lack-of-fit test rejects, Holm over all of `fits`: the
    command's rule (`cost_prediction.fitted_jobs`)."""
    return tuple(fj.fit.job for fj in fitted_jobs(fits) if fj.rejected)


def cost_summary(rows: Sequence[cm.PredictionRow]) -> CostSummary:
    if not rows:
        raise ValueError("a summary of no rows")
    return CostSummary(
        rows=len(rows),
        covered=sum(r.inside_prediction for r in rows),
        agrees=sum(r.agrees for r in rows),
        median_abs_error=float(np.median([abs(r.error.estimate) for r in rows])),
    )


def _unfitted(inputs: PredictionInputs) -> tuple[str, ...]:
    measured = {r for v in inputs.costs for r in v.resources}
    planted = {c.resource for c in inputs.left_out}
    return tuple(
        r.name for r in cm.RESOURCES if r.name in measured and r.name not in inputs.resources and r.name not in planted
    )


def attributed_label(platform: str, present: Sequence[str] | set[str]) -> str | None:
    """The label `platform` has among `present`: itself, or its default level where the study
    compared its network stacks (`gvisor` -> `gvisor/sandbox`); None if neither."""
    for label in (platform, S.DEFAULT_LEVELS.get(platform)):
        if label is not None and label in present:
            return label
    return None


def attributed(
    inputs: PredictionInputs, rows: Sequence[cm.PredictionRow], platform: str, jobs: Sequence[str]
) -> tuple[AttributedJob, ...]:
    """`platform`'s `rows` of `jobs` (each has a measured ratio), in `jobs`' order, attributed by the
    shares their prediction came from: the split of what the table shows, without a second fit."""
    # The label among every platform calibrated, as the command's table has them, not only those
    # with a row: `gvisor` itself wherever it was calibrated, measured there or not.
    label = attributed_label(platform, {v.platform for v in inputs.costs})
    costs = {v.platform: v for v in inputs.costs}
    out = []
    for job in jobs:
        row = next((r for r in rows if r.job == job and r.platform == label), None)
        if row is not None:
            measured = next(m for m in inputs.measured if m.job == job and m.platform == label)
            attribution = cm.attribute(row.fit, costs[label], measured)
            out.append(AttributedJob(job, label, attribution, row.measured, row.predicted))
    return tuple(out)


# --- the rows as data -----------------------------------------------------------------------------


def cost_frame(study: CostStudy) -> pd.DataFrame:
    """The table's rows for generated/<part>.csv: `cost_model.prediction_frame`'s columns (its
    `error` the table's, measured / predicted - 1) and the campaigns they came from: the fit, the
    calibration and the one whose jobs were measured (the calibration, or `cost_study`'s `measured`)."""
    frame = held_out_frame(
        study.rows, fit_campaign=study.fit_name, calibration_campaign=study.calibration_name, seed=study.seed
    )
    return frame.assign(measured_campaign=study.measured_name)


def attribution_frame(study: CostStudy) -> pd.DataFrame:
    """The attribution for generated/costs_attribution.csv: a line per job and resource, then its
    unexplained rest (resource "unexplained")."""
    records = []
    for a in study.attributions:
        parts = {p.resource: p.share for p in a.parts()}
        for t in a.attribution.terms:
            records.append(
                {
                    "job": a.job,
                    "platform": a.platform,
                    "resource": t.resource,
                    "cost_ratio": t.cost_ratio,
                    "time_share": t.time_share,
                    "extra_time": t.extra_time,
                    "share_of_predicted": t.share,
                    "share_of_measured": parts.get(t.resource),
                }
            )
        records.append({"job": a.job, "platform": a.platform, "resource": "unexplained", "share_of_measured": a.rest})
    return pd.DataFrame(records)


# --- LaTeX: numbers and names ---------------------------------------------------------------------


def pct_text(x: float, *, signed: bool = False) -> str:
    """A fraction as a percentage with two significant digits, "\\num{12}\\,\\%" (signed:
    "\\num[retain-explicit-plus]{+12}": siunitx drops a plus it is not told to keep, and an error's
    sign is what a reader reads first)."""
    s = sig_digits(100 * x, 2)
    if signed and s != "0" and not s.startswith("-"):
        return rf"\num[retain-explicit-plus]{{+{s}}}\,\%"
    return rf"\num{{{s}}}\,\%"


def interval_cell(iv: Interval) -> str:
    """An interval as every cost table and sentence prints it: the estimate and its bounds."""
    return interval_text(iv.estimate, iv.low, iv.high)


def platform_cell(platform: str) -> str:
    """A platform or planted configuration as the cost tables name it."""
    return TABLE_PLATFORM_NAMES.get(platform) or configuration_tex(platform)


def resources_text(resources: Sequence[str]) -> str:
    """The fitted resources' names as a sentence lists them."""
    return and_list([tex_escape(resource_name(r)) for r in resources])


def configurations_text(study: CostStudy) -> str:
    """ "7 planted configurations", or "5 to 7 ..." where jobs were fitted on different numbers."""
    ns = sorted({len(rows) for _, rows in study.designs})
    if len(ns) == 1:
        return count(ns[0], "planted configuration")
    return f"{ns[0]} to {ns[-1]} planted configurations"


def _campaigns_text(study: CostStudy) -> str:
    """The table note's campaigns the platforms' costs and jobs came from: one that calibrated and
    timed them, or the calibration and the campaign of the measured jobs apart."""
    calibration = rf"\texttt{{{tex_escape(study.calibration_name)}}}"
    if study.measured_name == study.calibration_name:
        return rf"Measured and calibrated: campaign {calibration}, whose platforms are in no fit."
    return (
        rf"Calibrated: campaign {calibration}; measured: campaign \texttt{{{tex_escape(study.measured_name)}}}, "
        r"its platforms matched to the calibration's by name; no platform of either is in any fit."
    )


# --- the table --------------------------------------------------------------------------------------


def summary_text(study: CostStudy) -> str:
    """The summary line: the rows, the median absolute error, how many the prediction interval
    held and how many agree."""
    s = study.summary
    return (
        rf"{count(s.rows, 'row')}: median absolute error {pct_text(s.median_abs_error)}; the prediction interval "
        rf"holds the measured ratio in {s.covered} of {s.rows} ({pct_text(s.coverage)}); measurement and "
        rf"prediction agree, given both intervals, in {s.agrees} of {s.rows}."
    )


def table_costs(study: CostStudy, part: Part = MAIN) -> str:
    """Per job and platform: the measured ratio to native, the predicted one, the error and whether
    the prediction interval holds the measured ratio; a rule between jobs, the summary in the notes.
    `part`: the label and the caption's planted level, `MAIN`'s or a later part's (`SYSCALLS`, `LEVELS`,
    `heldout_part`, `FILE_LEVELS`, `RPC_LEVELS`, `MEMORY_LEVELS`)."""
    level = study.level
    body, rules = [], []
    for i, r in enumerate(study.rows):
        if i and r.job != study.rows[i - 1].job:
            rules.append(i - 1)
        body.append(
            [
                tex_escape(job_name(r.job)),
                platform_cell(r.platform),
                interval_cell(r.measured),
                interval_cell(r.pi),
                pct_text(r.error.estimate, signed=True).removesuffix(r"\,\%"),
                "yes" if r.inside_prediction else "no",
            ]
        )
    notes = [
        summary_text(study),
        r"Error: measured / predicted $-$ 1 (positive: the platform took more time than the model predicts). "
        rf"Predicted: the {level}\,\% prediction interval of a ratio measured in as many blocks, the job's "
        r"run-to-run noise on the fit's configurations added to the fit's and the calibrations' uncertainty "
        r"(the interval of the platform's ratio itself, without that noise, is the CSV's). In PI: it holds the "
        r"measured ratio. "
        rf"Agreeing: the {level}\,\% interval of measured / predicted, which carries the measurement's own "
        r"interval and the predicted ratio's, holds 1.",
        rf"Fitted per job on {configurations_text(study)} of native hosts in {count(study.blocks, 'block')} "
        rf"(campaign \texttt{{{tex_escape(study.fit_name)}}}): the shares of native time that scale with "
        rf"{resources_text(study.resources)}. {_campaigns_text(study)}",
        (
            rf"Planted but left out of the model (its planted slowdown did not move its cost ratio above "
            rf"\num{{{MIN_PLANTED_COST:g}}} in every configuration planting it, a rule fixed before the fit ran): "
            rf"{resources_text(_left_out_resources(study))}; what a platform pays for "
            + ("it" if len(study.left_out) == 1 else "them")
            + " shows in its error."
        )
        if study.left_out
        else "",
        _unfitted_note(study, part),
        (
            rf"The lack-of-fit test (Holm over the jobs) rejects the additive form for "
            rf"{and_list([tex_escape(job_name(j)) for j in study.rejected])}."
        )
        if study.rejected
        else "",
        r"gVisor, host stack: the host namespace's network stack reached through the Sentry."
        if any(r.platform == "gvisor/host" for r in study.rows)
        else "",
        rf"Intervals: {level}\,\% percentile intervals of {study.n_draws} seeded bootstrap draws (prediction) "
        r"and paired-$t$ over the blocks (measured).",
    ]
    caption = (
        r"Each platform's job time ratio to native (NNBench's: per operation), measured, and predicted from "
        r"its micro-benchmark costs "
        rf"alone by shares of native time fitted on native hosts under {part.planted}, with "
        rf"{level}\,\% intervals."
    )
    return render(
        Grid(
            ["Job", "Platform", rf"Measured [{level}\,\% CI]", rf"Predicted [{level}\,\% PI]", r"Error (\%)", "In PI"],
            body,
            "llcccc",
            caption,
            part.table_label,
            notes,
            size=r"\scriptsize",
            rules_after=tuple(rules),
        )
    )


# --- the figure ---------------------------------------------------------------------------------------


def _drawable(r: cm.PredictionRow) -> bool:
    """A point a log axis can show: a positive predicted ratio (the measured one always is)."""
    return r.predicted.estimate is not None and r.predicted.estimate > 0


def _span(iv: Interval) -> np.ndarray | None:
    if not iv.bounded:
        return None
    return np.array([[max(iv.estimate - iv.low, 0.0)], [max(iv.high - iv.estimate, 0.0)]])


def _style_key(platform: str) -> str:
    """The platform whose colour and marker a compared label takes: gVisor's default network level
    gVisor's own; another level (its host stack) one of its own."""
    return {level: p for p, level in S.DEFAULT_LEVELS.items()}.get(platform, platform)


def _minor_label(v: float, _pos=None) -> str:
    if v <= 0:
        return ""
    mantissa = round(v / 10 ** math.floor(math.log10(v)), 6)
    return f"{v:g}" if mantissa in (2.0, 3.0, 5.0) else ""


def figure_caption(study: CostStudy) -> str:
    left_out = sum(not _drawable(r) for r in study.rows)
    table = rf"Table~\ref{{{TABLE_LABEL}}}"
    return (
        r"Predicted against measured job time ratio to native, per job and platform, with "
        rf"{study.level}\,\% intervals both ways, on log scales; on the dashed line the prediction is exact. "
        r"Marker: the platform; marker fill: the job."
        + (f" Not drawn: {count(left_out, 'row')} whose predicted ratio is not positive ({table})." if left_out else "")
    )


def fig_costs(study: CostStudy, out_dir: Path) -> list[Path]:
    """Predicted against measured ratio per (job, platform) of the table, error bars both ways, log
    axes, the line y = x; marker and colour by platform (`vbench.paper.style`), fill by job, so the
    points read apart in greyscale. Writes costs.pdf and costs.png; [] with no point to draw."""
    import matplotlib.ticker
    from matplotlib.lines import Line2D

    from vbench.paper import style
    from vbench.paper.figures import LEGEND_CHARS, legend_columns

    points = [r for r in study.rows if _drawable(r)]
    if not points:
        return []
    platforms = list(dict.fromkeys(r.platform for r in points))
    jobs = list(dict.fromkeys(r.job for r in points))
    style.apply()
    fig, (ax,) = style.figure(1, height=FIGURE_HEIGHT, width=FIGURE_WIDTH)
    for r in points:
        i, key = platforms.index(r.platform), _style_key(r.platform)
        ax.errorbar(
            [r.measured.estimate],
            [r.predicted.estimate],
            xerr=_span(r.measured),
            yerr=_span(r.predicted),
            color=style.colour(key, i),
            marker=style.marker(key, i),
            fillstyle=JOB_FILLS[jobs.index(r.job) % len(JOB_FILLS)],
            markersize=5,
            linestyle="none",
        )
    ends = [v for r in points for iv in (r.measured, r.predicted) for v in (iv.estimate, iv.low, iv.high)]
    ends = [v for v in ends if v is not None and v > 0]
    lo, hi = min(ends) / 1.15, max(ends) * 1.15
    ax.plot([lo, hi], [lo, hi], color="black", linestyle="--", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    plain = matplotlib.ticker.FuncFormatter(lambda v, _pos: f"{v:g}")
    # Within about a decade the major ticks alone are one or two: 2, 3 and 5 between them are labelled too.
    minor = (
        matplotlib.ticker.FuncFormatter(_minor_label)
        if math.log10(hi / lo) < 1.5
        else matplotlib.ticker.NullFormatter()
    )
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(minor)
    ax.set_xlabel("measured ratio to native (log scale)")
    ax.set_ylabel("predicted ratio to native (log scale)")
    handles = [
        Line2D(
            [],
            [],
            color=style.colour(_style_key(p), i),
            marker=style.marker(_style_key(p), i),
            linestyle="none",
            label=TABLE_PLATFORM_NAMES.get(p) or style.label(p),
        )
        for i, p in enumerate(platforms)
    ]
    handles += [
        Line2D(
            [],
            [],
            color="0.3",
            marker="o",
            fillstyle=JOB_FILLS[j % len(JOB_FILLS)],
            linestyle="none",
            label=job_name(job),
        )
        for j, job in enumerate(jobs)
    ]
    handles.append(Line2D([], [], color="black", linestyle="--", linewidth=0.8, label="predicted = measured"))
    labels = [h.get_label() for h in handles]
    width_chars = round(LEGEND_CHARS * FIGURE_WIDTH / style.WIDTH)
    fig.legend(
        handles, labels, loc="outside lower center", ncol=legend_columns(labels, width_chars=width_chars), frameon=False
    )
    return style.save(fig, out_dir, NAME)


# --- the section's sentences ----------------------------------------------------------------------------


#: The model, said once, at the section's opening.
MODEL_SENTENCE = (
    r"A job's time on a platform is modelled as native's plus, for each resource, the share of native "
    r"time that scales with the resource's cost times the platform's extra cost of it. "
    r"NNBench's time is its own per operation (its maps' operations after its barrier, over their number), "
    r"not its job's: the maps sleep at a barrier set when the job is submitted, which on native absorbs "
    r"any slowdown of the job's start-up and on gVisor has passed before they start, so its job time is "
    r"proportional to no cost."
)


def fitted_sentence(study: CostStudy, predicted: str = "each platform of the sandbox study") -> str:
    """What was fitted, on what, and what was `predicted` from what: from which campaign's costs, where
    the calibration is not the campaign that timed the jobs."""
    calibrated = (
        ""
        if study.measured_name == study.calibration_name
        else rf", as campaign \texttt{{{tex_escape(study.calibration_name)}}} calibrated them"
    )
    return (
        rf"The shares of {resources_text(study.resources)} were fitted per job on native hosts under "
        rf"{configurations_text(study)} in {count(study.blocks, 'block')}, and {predicted} "
        rf"was then predicted from its micro-benchmark costs alone{calibrated}: none of its job times is in any fit."
    )


def syscall_sentence(study: CostStudy) -> str:
    """What the system-call level's fit planted, and why it fits the resource it fits, in its
    design's words (params/experiments/costs-fit-syscalls.yaml, rule 3, fixed before it ran)."""
    return (
        rf"Here the slowdown planted on native hosts was another: {SYSCALL_PLANTED}. That one level moves the "
        r"costs of a system call, a process creation and a JVM's start together, so one share per job can be "
        rf"fitted, on one of them: the fit's design chose {resources_text(study.resources)} before it ran (its "
        r"rule 3), Hadoop's tasks being JVMs started from nothing, whose start is the cost that should carry "
        r"over to them."
    )


def _failed_clause(cost: FailedCost) -> str:
    """ "the cost ratio of JVM start was 2.42 [1.44, 4.06], under 1.5 at its lower bound": three
    significant digits, so that a lower bound just under the rule's reads under it."""
    where = f" in configuration {tex_escape(cost.configuration)}" if cost.planting > 1 else ""
    name = tex_escape(resource_name(cost.resource))
    iv = cost.ratio
    if iv is None:
        return f"no cost ratio of {name} was measured{where}"
    est, low, high = (rf"\num{{{sig_digits(v, 3)}}}" for v in (iv.estimate, iv.low, iv.high))
    rule = rf"\num{{{MIN_PLANTED_COST:g}}}"
    return f"the cost ratio of {name} was {est} [{low}, {high}]{where}, under {rule} at its lower bound"


def superseded_sentence(first: SupersededFit) -> str:
    """The first run of the same design that failed its rule 1, the cost ratios that failed it, and
    that nothing else of it is read."""
    clauses = and_list([_failed_clause(c) for c in first.failed])
    return (
        rf"A first run of the same design, campaign \texttt{{{tex_escape(first.name)}}}, failed its rule 1 "
        rf"({clauses}; {round(100 * PLANTED_COST_CONF)}\,\% intervals), and by its design nothing else of it is "
        "read."
    )


def _part_clause(job: str, iv: Interval) -> str:
    """ "TeraSort \\num{35}\\,\\% [\\num{16}, \\num{68}]", or that the job has no part to read."""
    name = tex_escape(job_name(job))
    if iv.estimate is None:
        return f"{name} no part (its every-call ratio holds 1)"
    est, low, high = (rf"\num{{{round(100 * v)}}}" for v in (iv.estimate, iv.low, iv.high))
    return rf"{name} {est}\,\% [{low}, {high}]"


def _parts_text(levels: LevelParts, which: str = "that level") -> str:
    """ "of what stopping every call cost a job, that level gave TeraSort 35 % [16, 68], ... (95 %
    intervals over its blocks); the rest is paid at the jobs' ordinary calls" """
    return (
        f"of what stopping every call cost a job, {which} gave "
        f"{and_list([_part_clause(j, iv) for j, iv in levels.parts])} "
        rf"({round(100 * levels.conf)}\,\% intervals over its blocks); the rest is paid at the jobs' ordinary calls."
    )


def level_parts_sentence(levels: LevelParts) -> str:
    """The second campaign, where its fit is not read: of what stopping every call cost each job, the
    part stopping only the process and thread calls gave; and, where it failed, that its own fit
    failed its rule 1."""
    sentence = (
        rf"A second campaign, \texttt{{{tex_escape(levels.name)}}}, stopped only the process and thread calls "
        f"(their creation, exec, wait and exit) beside every call: {_parts_text(levels)}"
    )
    if not levels.apart.passes:
        sentence += (
            rf" Its own fit, on {resources_text(LEVELS_FIT_RESOURCES)}, failed its rule 1 (its levels did not move "
            "them apart) and is not read."
        )
    return sentence


#: What the partial levels did to threads, found after every committed levels' campaign ran
#: (vbench.testbed.syscall_stops, FIRST_CALL): said wherever a partial level's fit is read.
PARTIAL_LEVELS_THREADS = (
    r"With this machine's strace (6.1), as found after these campaigns ran, a partial level also stopped "
    "every call of each thread a process creates, and of a forked child until it execs: a JVM, whose work "
    "runs in threads it creates, paid every call stopped there, so the share a partial level gives its "
    "resource holds the JVMs' calls too. The plant now traces each new task's first call, which lets its "
    "ordinary calls run unstopped; these campaigns have not been measured again with it."
)


def levels_sentence(levels: LevelParts) -> str:
    """The second campaign whose fit is read: what its two levels planted, why its fit has two shares
    (params/experiments/costs-fit-process-confirm.yaml, fixed before it ran), and the part of each
    job's cost the lesser level gave."""
    ordinary, creation = (tex_escape(resource_name(r)) for r in LEVELS_FIT_RESOURCES)
    return (
        rf"A second campaign, \texttt{{{tex_escape(levels.name)}}}, stopped only the process and thread calls "
        r"(their creation, exec, wait and exit) beside every call. The first level moves the cost of "
        rf"{creation} and leaves that of other {ordinary}, the second moves both, so each job gets two shares, "
        rf"of {ordinary} and of {creation}, as the design named them before it ran; its rule 1, that the levels "
        rf"move them apart, holds. Without the model, {_parts_text(levels, 'the first level')}"
    )


def _stack_clause(job: str, iv: Interval) -> str:
    """ "TeraSort \\num{0.93} [\\num{0.81}, \\num{1.07}]" """
    return f"{tex_escape(job_name(job))} {interval_cell(iv)}"


def heldout_sentence(heldout: HeldOut, test: int = 0) -> str:
    """What the held-out campaign measured and why it is read here, and, where it timed gVisor on both
    network stacks, each job's ratio of the host's stack to gVisor's own. `test`: its place among the
    held-out campaigns (0: the first), which makes it the second test of the levels' fit, or a later."""
    if heldout.stacks:
        where = (
            r"native and on gVisor, on its own network stack (netstack, in the Sentry) and on the host's "
            f"({code_tex('runsc --network=host')})"
        )
    else:
        where = and_list(["native", *_heldout_platforms(heldout)])
    which = HELDOUT_ORDINALS[test] if test < len(HELDOUT_ORDINALS) else "another"
    sentence = (
        rf"Campaign \texttt{{{tex_escape(heldout.name)}}} calibrated the same costs and timed the same jobs on "
        rf"{where}, in runs of its own ({count(heldout.blocks, 'block')}), none of them in any fit: a {which} "
        "test of the levels' fit above."
    )
    if heldout.stacks:
        sentence += (
            " Per job, the host stack's time over gVisor's own was "
            + and_list([_stack_clause(j, iv) for j, iv in heldout.stacks])
            + rf" ({heldout.study.level}\,\% intervals, paired over the blocks)."
        )
    return sentence


def _file_levels_plan(levels: LevelsFit, would: bool = False) -> str:
    """What the fit of three levels planted, the shares it fits and the campaigns it predicts, in its
    design's words (params/experiments/costs-fit-file.yaml, fixed before it ran): "would" where its
    fit is not read."""
    gets, are = ("would get", "would be") if would else ("gets", "are")
    units = cost_units_text(levels.resources)
    return (
        rf"Campaign \texttt{{{tex_escape(levels.name)}}} stopped under ptrace only the calls that name a file "
        rf"({FILE_CALLS_TRACED}), beside only the process and thread calls and every call, so that each job "
        rf"{gets} three shares, of {units}, as its design named them before it ran, and "
        + _predicted_against(levels, are)
    )


def file_levels_sentence(levels: LevelsFit) -> str:
    """The fit of three levels whose fit is read: what it planted, its three shares, the campaigns
    predicted and compared, and that its rule 1 holds."""
    return f"{_file_levels_plan(levels)}; its rule 1, that the levels move the three apart, holds."


def file_levels_unread_sentence(levels: LevelsFit) -> str:
    """The fit of three levels whose rule 1 failed, in one sentence: what it planted and would have
    fitted, and that its fit is not read (as `level_parts_sentence` says of the two levels')."""
    return (
        f"{_file_levels_plan(levels, would=True)}; its fit, on {resources_text(levels.resources)}, failed its "
        "rule 1 (its levels did not move them apart) and is not read."
    )


def cost_units_text(resources: Sequence[str]) -> str:
    """ "a loopback RPC of a JVM and a process creation": each resource as the one operation it prices."""
    return and_list([COST_UNITS.get(r, tex_escape(resource_name(r))) for r in resources])


def _rpc_levels_plan(levels: LevelsFit, would: bool = False) -> str:
    """What the fit priced by a JVM's call planted, its one share and the campaigns it predicts:
    "would" where its fit is not read."""
    gets, are = ("would get", "would be") if would else ("gets", "are")
    return (
        rf"Campaign \texttt{{{tex_escape(levels.name)}}} timed the jobs on native hosts with no call stopped, with "
        rf"only the process and thread calls stopped under ptrace, the plant fixed for threads ({FIXED_CALLS_TRACED}: "
        r"each new task's first call is stopped too, so a JVM's threads run their ordinary calls unstopped), and with "
        rf"every call stopped, so that each job {gets} one share, of {cost_units_text(levels.resources)}, and "
        + _predicted_against(levels, are)
    )


def _unmoved_clause(check: ApartCheck) -> str:
    """Why `levels_apart` left `check.unresolved` unresolved, in its terms: no level moved the cost of
    one of them above MIN_PLANTED_COST (its interval's lower bound) while leaving the others under it
    (their upper bounds); a resource left alone needs only to be moved."""
    left = check.unresolved
    moved = rf"above \num{{{MIN_PLANTED_COST:g}}} at its {round(100 * PLANTED_COST_CONF)}\,\% lower bound"
    if len(left) == 1:
        return f"no level moved the cost of {cost_units_text(left)} {moved}"
    others = "the other under it at its" if len(left) == 2 else "the others under it at their"
    return f"no level moved the cost of one of {cost_units_text(left)} {moved} while leaving {others} upper bound"


def rpc_levels_sentence(levels: LevelsFit) -> str:
    """The fit priced by a JVM's call whose fit is read: what it planted, its one share, the campaigns
    predicted and compared, and that its rule 1 on that share holds."""
    return (
        f"{_rpc_levels_plan(levels)}; its rule 1 on that share, that a level moves its cost "
        rf"above \num{{{MIN_PLANTED_COST:g}}} at its {round(100 * PLANTED_COST_CONF)}\,\% lower bound, holds."
    )


def levels_beside_sentence(levels: LevelsFit) -> str:
    """Whether the fit's levels move the resources calibrated beside its share (a process creation)
    apart from it (`LevelsFit.beside`), and that their shares are not fitted: where they do not, which
    rule 1 left unresolved."""
    check = levels.beside
    if check is None:
        raise ValueError("no rule 1 on the resources beside the fitted ones to say")
    others = [r for r in (*(r for r, _ in check.order), *check.unresolved) if r not in levels.resources]
    which, fitted = cost_units_text(others), cost_units_text(levels.resources)
    share = f"the share of {which} is" if len(others) == 1 else f"the shares of {which} are"
    if check.passes:
        return f"Its levels move {which} apart from {fitted} too; {share} not fitted here."
    return f"Its levels do not move {which} apart from {fitted} ({_unmoved_clause(check)}), so {share} not fitted."


def _memory_levels_plan(levels: LevelsFit, would: bool = False) -> str:
    """What the memory level's fit planted, on which machine, its two shares and the campaigns it
    predicts, in its design's words (params/experiments/costs-fit-memory.yaml, fixed before it ran):
    "would" where its fit is not read."""
    gets, are = ("would get", "would be") if would else ("gets", "are")
    machine = (
        rf" on {tex_escape(levels.machine)} (Table~\ref{{{M.LABEL}}} names each campaign's machine)"
        if levels.machine
        else ""
    )
    return (
        rf"Campaign \texttt{{{tex_escape(levels.name)}}}{machine} timed the jobs on native hosts with no call stopped, "
        rf"with only the process and thread calls stopped ({FIXED_CALLS_TRACED}), with only the calls that map, unmap, "
        rf"protect and advise memory stopped ({MEMORY_CALLS_TRACED}: a JVM's start pays them in quantity, its calls "
        rf"not at all) and with every call stopped, so that each job {gets} two shares, of "
        rf"{cost_units_text(levels.resources)}, as its design named them before it ran, and "
        + _predicted_against(levels, are)
    )


def _predicted_against(levels: LevelsFit, are: str) -> str:
    """ "the platforms campaign X calibrated are predicted against the jobs campaign Y timed", or, where
    one campaign did both, against the jobs it timed in the same blocks."""
    calibration = rf"\texttt{{{tex_escape(levels.calibration_name)}}}"
    if levels.calibration_name == levels.measured_name:
        return (
            rf"the platforms campaign {calibration} calibrated {are} predicted against the jobs it timed"
            " in the same blocks"
        )
    return (
        rf"the platforms campaign {calibration} calibrated {are} predicted against the jobs campaign "
        rf"\texttt{{{tex_escape(levels.measured_name)}}} timed"
    )


def memory_levels_sentence(levels: LevelsFit) -> str:
    """The memory level's fit where it is read: what it planted, its two shares, the campaigns
    predicted and compared, and that its rule 1 holds."""
    return f"{_memory_levels_plan(levels)}; its rule 1, that the levels move the two apart, holds."


def memory_levels_unread_sentence(levels: LevelsFit) -> str:
    """The memory level's fit whose rule 1 failed, in one sentence: what it planted and would have
    fitted, and that its fit is not read."""
    return (
        f"{_memory_levels_plan(levels, would=True)}; its fit, on {resources_text(levels.resources)}, failed its "
        f"rule 1 ({_unmoved_clause(levels.apart)}) and is not read."
    )


def levels_tests_sentence(levels: LevelsFit) -> str:
    """The fit's later tests (`LevelsFit.tests`), in one paragraph: per campaign its gVisor jobs'
    measured and predicted ratios and errors, how many of its other platforms' predictions its measured
    intervals held, and its machine where it is not the fit's; then in how many every gVisor job came
    within `GVISOR_TARGET`. "" without tests."""
    tests = levels.tests
    if not tests:
        return ""
    later = "a later campaign" if len(tests) == 1 else f"{count(len(tests), 'later campaign')}"
    met = sum(t.gvisor_within_target for t in tests)
    return (
        rf"The same fit predicted {later}, each run after it was read, that calibrated the costs and timed the "
        rf"jobs in the same blocks: {'; '.join(_levels_test_clause(t) for t in tests)}. Every gVisor job came "
        rf"within {pct_text(GVISOR_TARGET)} of its measured ratio in {met} of {count(len(tests), 'test')}."
    )


def _levels_test_clause(test: LevelsTest) -> str:
    """ "on costs-x (3 blocks), gVisor's TeraSort measured 4.40 [...] against a predicted 3.36 (+31 %)
    ..., and the measured intervals held 4 of the 4 LXC and OCI predictions"."""
    machine = rf", on {tex_escape(test.other_machine)}, another machine than the fit's" if test.other_machine else ""
    gvisor = and_list(
        [
            rf"{tex_escape(job_name(r.job))} measured {interval_cell(r.measured)} against a predicted "
            rf"\num{{{sig_digits(r.predicted.estimate, 3)}}} ({pct_text(r.error.estimate, signed=True)})"
            for r in test.gvisor_rows
            if r.error.estimate is not None
        ]
    )
    said = rf"on \texttt{{{tex_escape(test.name)}}} ({count(test.blocks, 'block')}{machine})"
    if gvisor:
        said += f", gVisor's {gvisor}"
    others = test.other_rows
    if others:
        held = sum(measured_holds(r) for r in others)
        platforms = and_list(sorted({platform_cell(r.platform) for r in others}, key=natural_key))
        said += rf", and the measured intervals held {held} of the {len(others)} {platforms} predictions"
    return said


def measured_holds(row: cm.PredictionRow) -> bool:
    """The measured ratio's interval holds the predicted ratio's estimate."""
    m, p = row.measured, row.predicted.estimate
    return m.bounded and p is not None and m.low <= p <= m.high


def rpc_levels_unread_sentence(levels: LevelsFit) -> str:
    """The fit priced by a JVM's call whose rule 1 failed, in one sentence: what it planted and would
    have fitted, and that its fit is not read (as `file_levels_unread_sentence` says of the file levels')."""
    return (
        f"{_rpc_levels_plan(levels, would=True)}; its fit, on {resources_text(levels.resources)}, failed its "
        f"rule 1 ({_unmoved_clause(levels.apart)}) and is not read."
    )


def _left_out_resources(study: CostStudy) -> list[str]:
    return [c.resource for c in study.left_out]


def _left_out_clause(check: PlantedCheck) -> str:
    """ "the slowdown planted on sequential disk writes did not move the cost in any of the 4
    configurations planting it (...)": where and by how much it failed rule 1."""
    n, failed = len(check.costs), check.failed
    where = f"any of the {n}" if len(failed) == n else f"{len(failed)} of the {n}"
    lows = sorted(c.low for c in failed if c.low is not None)
    unmeasured = sum(c.low is None for c in failed)
    said = []
    if lows:
        bounds = rf"\num{{{sig_digits(lows[0], 2)}}}" + (
            rf" to \num{{{sig_digits(lows[-1], 2)}}}" if len(lows) > 1 else ""
        )
        said.append(rf"the lower bound of its cost ratio's {round(100 * PLANTED_COST_CONF)}\,\% interval was {bounds}")
    if unmeasured:
        said.append(f"{count(unmeasured, 'configuration')} did not measure it")
    return (
        rf"the slowdown planted on {tex_escape(resource_name(check.resource))} did not move the cost in {where} "
        rf"configurations planting it ({'; '.join(said)})"
    )


def left_out_sentence(study: CostStudy) -> str:
    """Which planted resources the fit design's rule 1 left out, and why; "" when none."""
    if not study.left_out:
        return ""
    which = "that resource is" if len(study.left_out) == 1 else "those resources are"
    return (
        rf"The fit's design required, before it ran, that each planted slowdown move its own resource's "
        rf"cost ratio above \num{{{MIN_PLANTED_COST:g}}} in every configuration planting it; "
        + and_list([_left_out_clause(c) for c in study.left_out])
        + f", so {which} left out of the model."
    )


def accuracy_sentence(study: CostStudy, part: Part = MAIN) -> str:
    """The summary line in words: median error, what the prediction interval held, what agreed, over
    the rows of `part`'s table (and figure, where it has one)."""
    s = study.summary
    figure = rf" and Figure~\ref{{{part.figure_label}}}" if part.figure_label else ""
    return (
        rf"Over the {count(s.rows, 'job and platform pair')} of Table~\ref{{{part.table_label}}}{figure}, "
        r"the median absolute error of the predicted ratio was "
        rf"{pct_text(s.median_abs_error)}; the {study.level}\,\% prediction interval of a measurement in as "
        rf"many blocks held the measured ratio in {s.covered} of {s.rows}, and given the measurement's own "
        rf"interval, prediction and measurement agreed in {s.agrees} of {s.rows}."
        + (
            rf" The additive form fails the lack-of-fit test for "
            rf"{and_list([tex_escape(job_name(j)) for j in study.rejected])}."
            if study.rejected
            else ""
        )
    )


def _attribution_clause(a: AttributedJob) -> str:
    name = tex_escape(job_name(a.job))
    said = rf"{name}'s measured ratio of {interval_cell(a.measured)} (predicted {interval_cell(a.predicted)})"
    parts = a.parts()
    if not parts:
        return said + " has no overhead resolved from native's to split"
    by_size = sorted(parts, key=lambda p: -abs(p.share))
    split = and_list([f"{pct_text(p.share)} to {tex_escape(resource_name(p.resource))}" for p in by_size])
    rest = a.rest
    tail = f", and {pct_text(rest)} is unexplained" if rest is not None else ""
    if rest is not None and rest < 0:
        tail += " (the model predicts more than was measured)"
    return said + f" splits, on a log scale, into {split}{tail}"


def _unfitted_note(study: CostStudy, part: Part) -> str:
    """The table's note on the calibrated resources outside the model: those no planted slowdown
    moved, and those `part`'s one level moved with the fitted one ("" when there are none)."""
    unplanted = [r for r in study.unfitted if r not in part.together]
    together = [r for r in study.unfitted if r in part.together]
    said = []
    if unplanted:
        said.append(
            rf"Calibrated but not in the model (no planted slowdown moved them on their own): "
            rf"{resources_text(unplanted)}; what a platform pays for them shows in its error."
        )
    if together and len(study.resources) == 1:
        said.append(
            rf"Calibrated, moved by the planted level together with {resources_text(study.resources)} and so "
            rf"not apart from it in the model: {resources_text(together)}; the fitted share stands for them all."
        )
    elif together:
        said.append(
            rf"Calibrated, moved by the planted levels with {resources_text(study.resources)} and so not apart "
            rf"from them in the model: {resources_text(together)}; the fitted shares stand for "
            + ("it." if len(together) == 1 else "them.")
        )
    return " ".join(said)


def attribution_sentence(study: CostStudy, part: Part = MAIN) -> str:
    """Where the attributed platform's TeraSort and NNBench overheads go, resource by resource, and
    the rest the fitted resources leave; says so when the study measured neither there. Resources
    `part`'s planted level moved together with the fitted one are said so, not as unexplained."""
    who = reader_name(study.attributed_platform)
    if not study.attributions:
        names = [tex_escape(job_name(j)) for j in study.attributed_jobs] or ["any job"]
        wanted = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        return f"The sandbox study measured no job ratio of {wanted} on {who}, so no attribution is given."
    clauses = [_attribution_clause(a) for a in study.attributions]
    text = f"On {who}, " + "; ".join(clauses) + "."
    missing = []
    unplanted = [r for r in study.unfitted if r not in part.together]
    if unplanted:
        missing.append(f"{resources_text(unplanted)}, which no planted slowdown moved on their own")
    if study.left_out:
        missing.append(
            f"{resources_text(_left_out_resources(study))}, left out because the slowdown planted on "
            + ("it" if len(study.left_out) == 1 else "them")
            + " did not move the cost"
        )
    if missing:
        text += f" The unexplained part includes what {who} pays for " + ", and for ".join(missing) + "."
    together = [r for r in study.unfitted if r in part.together]
    if together and len(study.resources) == 1:
        text += (
            f" The planted level moved {resources_text(part.together)} together, so the fit cannot give their "
            f"shares apart: the part it gives {resources_text(study.resources)} stands for them all."
        )
    elif together:
        one = len(together) == 1
        text += (
            f" The planted levels moved {resources_text(together)} with {resources_text(study.resources)}, so "
            f"the fit cannot give {'its share' if one else 'their shares'} apart: the parts it gives "
            f"{resources_text(study.resources)} stand for {'it' if one else 'them'} too."
        )
    return text


def _part_lines(study: CostStudy, part: Part, opening: str) -> list[str]:
    """A part's paragraph, its `opening` then the sentences every part has, and its table and
    figure."""
    return [
        # One paragraph: an empty sentence (no resource left out) is no line, which would end it.
        *(t for t in (opening, left_out_sentence(study)) if t),
        accuracy_sentence(study, part),
        attribution_sentence(study, part),
        "",
        rf"\input{{generated/tables/{part.name}.tex}}",
        *([rf"\input{{generated/figures/{part.name}.tex}}"] if part.figure_label else []),
    ]


def section_tex(
    study: CostStudy | None,
    syscalls: CostStudy | None = None,
    superseded: SupersededFit | None = None,
    levels: LevelParts | None = None,
    heldouts: Sequence[HeldOut] = (),
    file_levels: LevelsFit | None = None,
    rpc_levels: LevelsFit | None = None,
    memory_levels: LevelsFit | None = None,
    after: Sequence[str] = (),
) -> str:
    """generated/costs.tex: the section with its sentences, table and figure, then, given the
    system-call level's study, its subsection (`SYSCALLS`: the same sentences and its table, and
    the first run of its design it `superseded` and the second campaign's `levels`, where given), the
    levels' fit's subsection where it is read, and one subsection per `heldouts` campaign after it,
    in their order (`heldout_part`), then, given the fit of three levels, its subsection
    (`FILE_LEVELS`: its table where its rule 1 holds, else one sentence), and given the fit priced by
    a JVM's call, its subsection (`RPC_LEVELS`: alike), given the memory level's fit, its subsection
    (`MEMORY_LEVELS`: alike), then the lines `after` (subsections other
    modules write: `costs_cpu`'s, `costs_pooled`'s, `costs_rest`'s, then `costs_barrier`'s); with no fit
    campaign, `OMITTED_TEX` (comments alone: nothing is typeset)."""
    if superseded is not None and syscalls is None:
        raise ValueError("a superseded fit is said in the system-call level, which has no fit")
    if levels is not None and syscalls is None:
        raise ValueError("the process level's part is said in the system-call level, which has no fit")
    if heldouts and (levels is None or levels.fit is None):
        raise ValueError("a held-out campaign tests the levels' fit, which is not read")
    # The levels' fit, where read, has a subsection of its own, with the part of each job's cost.
    levels_fit = levels.fit if levels is not None else None
    if study is None:
        if any(p is not None for p in (syscalls, file_levels, rpc_levels, memory_levels)) or after:
            raise ValueError("the system-call levels are parts of the cost model's section, which has no fit")
        return OMITTED_TEX
    lines = [
        "% Generated by vbench.paper.costs from the fit and sandbox campaigns. Do not edit.",
        rf"\section{{Predicting a platform's cost from its micro-benchmarks}}\label{{{SECTION_LABEL}}}",
        *_part_lines(study, MAIN, f"{MODEL_SENTENCE} {fitted_sentence(study)}"),
    ]
    if syscalls is not None:
        lines += [
            "",
            rf"\subsection{{{SYSCALLS.title}}}\label{{{SYSCALLS.label}}}",
            *_part_lines(
                syscalls,
                SYSCALLS,
                " ".join(
                    [
                        syscall_sentence(syscalls),
                        *([superseded_sentence(superseded)] if superseded is not None else []),
                        *([level_parts_sentence(levels)] if levels is not None and levels_fit is None else []),
                        fitted_sentence(syscalls),
                    ]
                ),
            ),
        ]
    if levels_fit is not None:
        lines += [
            "",
            rf"\subsection{{{LEVELS.title}}}\label{{{LEVELS.label}}}",
            *_part_lines(
                levels_fit,
                LEVELS,
                " ".join([levels_sentence(levels), PARTIAL_LEVELS_THREADS, fitted_sentence(levels_fit)]),
            ),
        ]
    for test, heldout in enumerate(heldouts):
        lines += ["", *_heldout_lines(heldout, test)]
    if file_levels is not None:
        lines += ["", *_file_levels_lines(file_levels)]
    if rpc_levels is not None:
        lines += ["", *_rpc_levels_lines(rpc_levels)]
    if memory_levels is not None:
        lines += ["", *_memory_levels_lines(memory_levels)]
    if after:
        lines += ["", *after]
    return "\n".join(lines) + "\n"


def _heldout_lines(heldout: HeldOut, test: int) -> list[str]:
    """A held-out campaign's subsection (`heldout_part`), the `test`-th of them (0: the first)."""
    part = heldout_part(heldout)
    # Where it timed gVisor on both stacks, its platforms are gVisor's levels; else platforms of their own.
    which = "each gVisor level" if heldout.stacks else "each platform"
    predicted = rf"{which} of campaign \texttt{{{tex_escape(heldout.name)}}}"
    return [
        rf"\subsection{{{part.title}}}\label{{{part.label}}}",
        *_part_lines(
            heldout.study,
            part,
            " ".join([heldout_sentence(heldout, test), fitted_sentence(heldout.study, predicted)]),
        ),
    ]


def _file_levels_lines(levels: LevelsFit) -> list[str]:
    """The fit of three levels' subsection (`FILE_LEVELS`, `_levels_fit_lines`)."""
    return _levels_fit_lines(
        levels,
        FILE_LEVELS,
        file_levels_unread_sentence,
        lambda lv: [file_levels_sentence(lv), PARTIAL_LEVELS_THREADS],
    )


def _rpc_levels_lines(levels: LevelsFit) -> list[str]:
    """The subsection of the fit priced by a JVM's call (`RPC_LEVELS`, `_levels_fit_lines`): its
    partial level was fixed for threads, so `PARTIAL_LEVELS_THREADS` is not said of it."""
    return _levels_fit_lines(
        levels,
        RPC_LEVELS,
        rpc_levels_unread_sentence,
        lambda lv: [rpc_levels_sentence(lv), levels_beside_sentence(lv)],
    )


def _memory_levels_lines(levels: LevelsFit) -> list[str]:
    """The memory level's subsection (`MEMORY_LEVELS`, `_levels_fit_lines`): its partial levels were
    fixed for threads, so `PARTIAL_LEVELS_THREADS` is not said of it."""
    lines = _levels_fit_lines(
        levels,
        MEMORY_LEVELS,
        memory_levels_unread_sentence,
        lambda lv: [memory_levels_sentence(lv), levels_beside_sentence(lv)],
    )
    tests = levels_tests_sentence(levels)
    return [*lines, "", tests] if tests else lines


def _levels_fit_lines(
    levels: LevelsFit,
    part: Part,
    unread: Callable[[LevelsFit], str],
    opening: Callable[[LevelsFit], Sequence[str]],
) -> list[str]:
    """A fit of levels' subsection (`part`): where its rule 1 holds, the sentences `opening` says and
    what was fitted and predicted, then the sentences and table every part has; where it fails, the
    one sentence `unread` says, no table. Each is asked only where it applies (a sentence on a failed
    rule names what it left unresolved)."""
    head = rf"\subsection{{{part.title}}}\label{{{part.label}}}"
    study = levels.study
    if study is None:
        return [head, unread(levels)]
    return [head, *_part_lines(study, part, " ".join([*opening(levels), fitted_sentence(study, "each platform")]))]

"""The cost model's subsection priced in the machine's CPU (issue #53; sec:costs-cpu with
tab:costs-cpu, after the memory level's subsection and its later tests, before NNBench's barrier).

Three keys of params/paper.yaml, set all three or none: `cpu_fit_campaign` (costs-fit-memory-amd:
the fit whose jobs give each job's share of native time), `cpu_fit_costs_campaign`
(costs-cpu-levels-amd: that fit's planted configurations calibrated again, each micro-benchmark run
with the machine's CPU read around it) and `cpu_tests` (costs-cpu-sameday-amd: campaigns that
calibrated the platforms with that reading and timed the jobs in the same blocks). Each test is read
twice, as `vbench predict TEST --fit FIT --fit-costs FIT_COSTS --resources rpc --costs cpu|wall --seed
<TEST's design seed>` reads it (`vbench.commands.predict_cmd`): priced in the machine's CPU
(`cost_prediction.priced_in_cpu` of the test and of the fit's costs, before anything is fitted) and,
the control, in wall time. Both go through `costs.levels_test`, so a row here is a row of the
command's table; the CPUs each configuration's runs kept busy are `cost_model.busy_cpus_of`'s, the
numbers the command prints under its table. A campaign without the machine reading is refused by
`priced_in_cpu`, naming its samples file.

Pure: campaigns in, records and text out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pandas as pd

from vbench.stats import cost_model as cm
from vbench.stats.campaign import Campaign
from vbench.stats.cost_prediction import (
    FILE_LEVEL,
    MEMORY_LEVEL,
    PROCESS_LEVEL,
    SYSCALL_STOPS_COLUMN,
    priced_in_cpu,
)
from vbench.stats.keys import platform_order
from vbench.wording import count, job_name

from vbench.paper import costs as C
from vbench.paper.fmt import and_list, tex_escape
from vbench.paper.tables.grid import Grid, render

NAME = "costs-cpu"
LABEL, TABLE_LABEL = f"sec:{NAME}", f"tab:{NAME}"
TITLE = "Costs priced in the machine's CPU"
#: The one resource priced and fitted: a JVM's loopback RPC, as the designs of costs-cpu-levels-amd
#: and costs-cpu-sameday-amd named it before they ran (the memory level's jvmstart beside it fails
#: rule 1 on costs-fit-memory-amd in either pricing, docs/results.md).
CPU_PRICED_RESOURCES = ("rpc",)
#: A level of system-call stops (the fit's factor) as the busy CPUs' sentence names it; a
#: configuration with none of these is named by its own name in code font.
#: In this order: from no call stopped to every call.
STOP_LEVEL_WORDS = {
    "False": "with no call stopped",
    PROCESS_LEVEL: "with only the process and thread calls stopped",
    FILE_LEVEL: "with only the calls that name a file stopped",
    MEMORY_LEVEL: "with only the calls that map memory stopped",
    C.WHOLE_LEVEL: "with every call stopped",
}
#: The build log's line when the section is built without this subsection.
OMITTED_NOTE = (
    "the cost model's subsection priced in the machine's CPU is omitted: params/paper.yaml's "
    "paper.cpu_fit_campaign, paper.cpu_fit_costs_campaign and paper.cpu_tests are empty"
)


@dataclass(frozen=True)
class CpuTest:
    """One test campaign predicted in both pricings, and the CPUs its runs kept busy."""

    #: Priced in the machine's CPU, and in wall time (the control): the same fit, campaigns and seed.
    cpu: C.LevelsTest
    wall: C.LevelsTest
    #: Per platform, the CPUs its runs of each priced resource kept busy (`busy_cpus_of`).
    busy: tuple[cm.BusyCpus, ...]

    @property
    def name(self) -> str:
        return self.cpu.name

    def pairs(self) -> tuple[tuple[cm.PredictionRow, cm.PredictionRow], ...]:
        """(priced in CPU, priced in wall time) of each platform and job, platforms in vbench's order,
        then the jobs in the fit's order. Both pricings predict the same rows: the
        pricing changes the costs, not which platforms and jobs were timed."""
        wall = {(r.job, r.platform): r for r in self.wall.study.rows}
        jobs = [j for j, _ in self.cpu.study.designs]
        rows = sorted(self.cpu.study.rows, key=lambda r: (platform_order(r.platform), jobs.index(r.job)))
        return tuple((r, wall[r.job, r.platform]) for r in rows)


@dataclass(frozen=True)
class CpuPriced:
    """The subsection's content: the fit, the campaign its configurations' costs came from, the CPUs
    those configurations' runs kept busy, and each test in both pricings."""

    fit_name: str
    fit_costs_name: str
    resources: tuple[str, ...]
    #: Per configuration of the fit's costs, the CPUs its runs kept busy (`busy_cpus_of`).
    levels_busy: tuple[cm.BusyCpus, ...]
    #: (configuration, its level of system-call stops) of the fit's costs, where its samples record one.
    stop_levels: tuple[tuple[str, str], ...]
    tests: tuple[CpuTest, ...]


def cpu_priced(
    fit: Campaign,
    fit_costs: Campaign,
    tests: Sequence[Campaign],
    n_draws: int = cm.DEFAULT_DRAWS,
    resources: Sequence[str] = CPU_PRICED_RESOURCES,
) -> CpuPriced:
    """`fit`'s shares on `resources`, its configurations' costs read from `fit_costs`, predicting each
    of `tests` from its own costs against its own jobs, seeded by its design, priced in the machine's
    CPU and in wall time (`levels_test`, as `vbench predict` with `--costs cpu` and `--costs wall`).
    Refused, naming its samples file, where a campaign priced lacks the machine reading
    (`priced_in_cpu`)."""
    if not tests:
        raise ValueError("the subsection priced in the machine's CPU predicts a campaign at least")
    resources = tuple(resources)
    # Priced once, before anything is fitted, as the command prices them: the fit's jobs are not costs.
    costs_in_cpu = priced_in_cpu(fit_costs, resources)
    read = []
    for test in tests:
        in_cpu = C.levels_test(fit, priced_in_cpu(test, resources), resources, n_draws, fit_costs=costs_in_cpu)
        in_wall = C.levels_test(fit, test, resources, n_draws, fit_costs=fit_costs)
        read.append(CpuTest(in_cpu, in_wall, cm.busy_cpus_of(test.samples, resources)))
    return CpuPriced(
        fit.name,
        fit_costs.name,
        resources,
        cm.busy_cpus_of(fit_costs.samples, resources),
        _stop_levels(fit_costs),
        tuple(read),
    )


def _stop_levels(campaign: Campaign) -> tuple[tuple[str, str], ...]:
    """(configuration, its level of system-call stops) as its samples record them; none where they
    record no such factor."""
    samples = campaign.samples
    if SYSCALL_STOPS_COLUMN not in samples.columns:
        return ()
    pairs = samples[["platform", SYSCALL_STOPS_COLUMN]].dropna().astype(str).drop_duplicates()
    return tuple(sorted(zip(pairs["platform"], pairs[SYSCALL_STOPS_COLUMN])))


def cpu_frame(priced: CpuPriced) -> pd.DataFrame:
    """The table's rows for generated/costs-cpu.csv: `cost_frame`'s columns of each test in each
    pricing, with the pricing and the campaign the fit's configurations' costs came from."""
    frames = [
        C.cost_frame(study).assign(pricing=pricing, fit_costs_campaign=priced.fit_costs_name)
        for test in priced.tests
        for pricing, study in (("cpu", test.cpu.study), ("wall", test.wall.study))
    ]
    return pd.concat(frames, ignore_index=True)


# --- the text ---------------------------------------------------------------------------------------


def _busy_num(b: cm.BusyCpus) -> str:
    """A median of busy CPUs as `vbench predict` prints it (two decimals)."""
    return rf"\num{{{b.median:.2f}}}"


def _levels_busy(priced: CpuPriced) -> str:
    """ "\\num{0.74} with no call stopped, ..., \\num{0.76} with every call stopped", from no call
    stopped to every call; a configuration at no level it knows named as it is, last."""
    levels = dict(priced.stop_levels)
    order = list(STOP_LEVEL_WORDS)

    def rank(b: cm.BusyCpus) -> int:
        level = levels.get(b.configuration)
        return order.index(level) if level in order else len(order)

    said = []
    for b in sorted(priced.levels_busy, key=rank):
        words = STOP_LEVEL_WORDS.get(levels.get(b.configuration, ""))
        where = words or rf"at \texttt{{{tex_escape(b.configuration)}}}"
        said.append(f"{_busy_num(b)} {where}")
    return and_list(said)


def _platforms_busy(test: CpuTest) -> str:
    """ "\\num{0.74} on native, \\num{0.75} on LXC, ...", platforms in vbench's order."""
    busy = sorted(test.busy, key=lambda b: platform_order(b.configuration))
    return and_list([f"{_busy_num(b)} on {C.platform_cell(b.configuration)}" for b in busy])


def method_sentence(priced: CpuPriced) -> str:
    """How the costs are priced in the machine's CPU, and what is fitted on what and predicted."""
    study = priced.tests[0].cpu.study
    return (
        r"Each one-host micro-benchmark run on the local testbed reads the machine's busy CPU time from "
        r"\texttt{/proc/stat} before and after it, so each run also gives the CPUs it kept busy (busy CPU-seconds "
        r"over its wall seconds). Priced in the machine's CPU, a time per operation is multiplied by its run's "
        r"busy CPUs and a throughput divided by them, in each test campaign's calibration and in the fit's "
        rf"configurations' costs, before anything is fitted. Each job's share of native time that scales with "
        rf"{C.cost_units_text(priced.resources)} is fitted on the jobs campaign \texttt{{{tex_escape(priced.fit_name)}}} "
        rf"timed on native hosts in {C.configurations_text(study)}, the costs of those configurations read from campaign "
        rf"\texttt{{{tex_escape(priced.fit_costs_name)}}}, which calibrated them again with the machine's CPU read; "
        r"each test campaign's platforms are predicted from its own costs against the jobs it timed in the same "
        r"blocks, priced in the machine's CPU and, as a control, in wall time, with the same bootstrap seed."
    )


def busy_sentence(priced: CpuPriced) -> str:
    """The CPUs each configuration's and each platform's runs of the priced resource kept busy."""
    groups = [
        f"{_levels_busy(priced)} in campaign \\texttt{{{tex_escape(priced.fit_costs_name)}}}",
        *(f"{_platforms_busy(t)} in campaign \\texttt{{{tex_escape(t.name)}}}" for t in priced.tests if t.busy),
    ]
    said = groups[0] if len(groups) == 1 else "; ".join(groups[:-1]) + "; and " + groups[-1]
    return rf"Median over the runs, the CPUs the runs of {C.cost_units_text(priced.resources)} kept busy were {said}."


def prediction_sentence(test: CpuTest) -> str:
    """gVisor's jobs measured against their predictions priced in CPU, with the errors; the same
    predictions' errors priced in wall time; how many other predictions the measured intervals held in
    each pricing."""
    cpu, wall = test.cpu, test.wall
    said = rf"On campaign \texttt{{{tex_escape(test.name)}}} ({count(cpu.blocks, 'block')})"
    walls = {(r.job, r.platform): r for r in wall.gvisor_rows}
    gvisor = [r for r in cpu.gvisor_rows if r.error.estimate is not None]
    if gvisor:
        measured = and_list(
            [
                rf"{tex_escape(job_name(r.job))} measured {C.interval_cell(r.measured)} against a predicted "
                rf"\num{{{C.sig_digits(r.predicted.estimate, 3)}}} ({C.pct_text(r.error.estimate, signed=True)})"
                for r in gvisor
            ]
        )
        errors = and_list([C.pct_text(walls[r.job, r.platform].error.estimate, signed=True) for r in gvisor])
        which = "its error" if len(gvisor) == 1 else "their errors"
        said += f", priced in the machine's CPU gVisor's {measured}; priced in wall time, {which} were {errors}"
    else:
        said += ", no gVisor job was predicted"
    others = cpu.other_rows
    if others:
        platforms = and_list(sorted({C.platform_cell(r.platform) for r in others}, key=str))
        held_cpu = sum(C.measured_holds(r) for r in others)
        held_wall = sum(C.measured_holds(r) for r in wall.other_rows)
        said += (
            rf". The measured intervals held {held_cpu} of the {len(others)} {platforms} predictions priced in the "
            rf"machine's CPU and {held_wall} of {len(wall.other_rows)} priced in wall time"
        )
    return said + "."


def cpu_tex(priced: CpuPriced) -> list[str]:
    """The subsection's lines: the method and the busy CPUs, then each test, then its table."""
    return [
        rf"\subsection{{{TITLE}}}\label{{{LABEL}}}",
        " ".join([method_sentence(priced), busy_sentence(priced)]),
        "",
        rf"Table~\ref{{{TABLE_LABEL}}} gives each prediction. "
        + " ".join(prediction_sentence(t) for t in priced.tests),
        "",
        rf"\input{{generated/tables/{NAME}.tex}}",
    ]


def table_cpu(priced: CpuPriced) -> str:
    """Per test campaign, platform and job: the measured ratio, the prediction priced in the machine's
    CPU with its prediction interval and error, and the error of the prediction priced in wall time."""
    first = priced.tests[0].cpu.study
    level = first.level
    body: list[list[str]] = []
    rules: list[int] = []
    for test in priced.tests:
        if body:
            rules.append(len(body) - 1)
        head = rf"Campaign \texttt{{{tex_escape(test.name)}}} ({count(test.cpu.blocks, 'block')})"
        body.append([rf"\multicolumn{{6}}{{l}}{{{head}}}"])
        for cpu, wall in test.pairs():
            body.append(
                [
                    C.platform_cell(cpu.platform),
                    tex_escape(job_name(cpu.job)),
                    C.interval_cell(cpu.measured),
                    C.interval_cell(cpu.pi),
                    _error_cell(cpu),
                    _error_cell(wall),
                ]
            )
    notes = [
        r"Priced in the machine's CPU: each micro-benchmark's time per operation times the CPUs its run kept busy "
        r"(the machine's busy CPU-seconds over the run's wall seconds, read from \texttt{/proc/stat}), in the test's "
        r"calibration and in the fit's configurations' costs, before the fit; in wall time (the control): as "
        r"measured, the same campaigns, draws and seed.",
        r"Error: measured / predicted $-$ 1 (positive: the platform took more time than the model predicts). "
        rf"Predicted: the {level}\,\% prediction interval of a ratio measured in as many blocks.",
        rf"Fitted per job on {C.configurations_text(first)} of native hosts in {count(first.blocks, 'block')} "
        rf"(campaign \texttt{{{tex_escape(priced.fit_name)}}}): the shares of native time that scale with "
        rf"{C.resources_text(priced.resources)}; the configurations' costs from campaign "
        rf"\texttt{{{tex_escape(priced.fit_costs_name)}}}. Each campaign's platforms are calibrated and timed in the "
        r"same blocks; none is in any fit.",
        rf"Intervals: {level}\,\% percentile intervals of {first.n_draws} seeded bootstrap draws (prediction) "
        r"and paired-$t$ over the blocks (measured).",
    ]
    caption = (
        r"Each platform's job time ratio to native, measured, and predicted from its micro-benchmark costs priced "
        r"in the machine's CPU by shares of native time fitted on native hosts under system-call stops, with "
        rf"{level}\,\% intervals; beside it, the error of the same prediction priced in wall time."
    )
    header = [
        "Platform",
        "Job",
        rf"Measured [{level}\,\% CI]",
        rf"Predicted in CPU [{level}\,\% PI]",
        r"Error (\%)",
        r"Error in wall time (\%)",
    ]
    return render(
        Grid(header, body, "llcccc", caption, TABLE_LABEL, notes, size=r"\scriptsize", rules_after=tuple(rules))
    )


def _error_cell(row: cm.PredictionRow) -> str:
    """An error as `table_costs` prints it: signed, two significant digits, the unit in the header."""
    return C.pct_text(row.error.estimate, signed=True).removesuffix(r"\,\%")


def build_note(priced: CpuPriced) -> list[str]:
    """The build log's lines on it, one per test: gVisor's errors in both pricings, to a tenth of a
    per cent (as docs/results.md reads them), and what the measured intervals held."""
    lines = []
    for test in priced.tests:
        walls = {(r.job, r.platform): r for r in test.wall.study.rows}
        errors = "; ".join(
            f"{r.platform} {r.job} {100 * r.error.estimate:+.1f} % in CPU, "
            f"{100 * walls[r.job, r.platform].error.estimate:+.1f} % in wall time"
            for r in test.cpu.gvisor_rows
        )
        held = sum(C.measured_holds(r) for r in test.cpu.other_rows)
        lines.append(
            f"cost model priced in the machine's CPU: fitted on {priced.fit_name} with {priced.fit_costs_name}'s costs "
            f"({', '.join(priced.resources)}), predicted for {test.name}'s platforms (seed {test.cpu.study.seed}): "
            f"{errors or 'no gVisor job'}; the measured intervals held {held} of {len(test.cpu.other_rows)} other "
            "predictions in CPU"
        )
    return lines

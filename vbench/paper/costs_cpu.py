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

Further replications of the same model, each its own fit, the campaign its configurations' costs are
read from and its tests, come from params/paper.yaml's `cpu_replications` (records,
`vbench.paper.inputs.CpuReplication`): costs-nospec-fit-amd predicting costs-nospec-sameday-amd, read
as `vbench predict costs-nospec-sameday-amd --fit costs-nospec-fit-amd --resources rpc --costs cpu|wall
--seed 53041` reads them. A record without `fit_costs` reads the fit's configurations' costs from the
fit's own calibration, as the command does without `--fit-costs`. The subsection reads them after the
first (`CpuPriced` each, in order): a paragraph each after the first's, and a group of rows each in the
table, headed by its fit. The Hadoop settings each campaign's design set (campaign.json's
`experiment.hadoop`: costs-nospec-*'s `speculative: false`) are read from the designs and said with the
replication whose campaigns set them, against what the first's ran with.

Pure: campaigns in, records and text out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import pandas as pd

from vbench.params import HadoopParams
from vbench.stats import cost_model as cm
from vbench.stats.campaign import Campaign
from vbench.stats.compare import design_of
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
#: A Hadoop setting of a design (`experiment.hadoop`: key, value) as a sentence or a table's heading
#: says it in words; one not here is said as "Hadoop's <key> set to <value>".
SETTING_WORDS = {
    ("speculative", False): "Hadoop's speculative execution off",
    ("speculative", True): "Hadoop's speculative execution on",
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
class DesignSettings:
    """The Hadoop settings a campaign's design set (campaign.json's `experiment.hadoop`, nested keys
    joined by "."): what it changed of Hadoop's configuration; none where it left the defaults."""

    campaign: str
    hadoop: tuple[tuple[str, Any], ...] = ()

    def value(self, key: str) -> Any:
        """The setting `key` ran with: the design's, else vbench's default (`HadoopParams`; None where
        it has no such field)."""
        found = dict(self.hadoop)
        if key in found:
            return found[key]
        spec = HadoopParams.model_fields.get(key)
        return spec.default if spec is not None else None


def design_settings(campaign: Campaign) -> DesignSettings:
    """`campaign`'s Hadoop settings, as its design (campaign.json) recorded them."""
    hadoop = design_of(campaign.path).get("hadoop")
    return DesignSettings(campaign.name, tuple(sorted(_flattened(hadoop).items())) if isinstance(hadoop, dict) else ())


def _flattened(settings: dict, prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": 1}} -> {"a.b": 1}."""
    out: dict[str, Any] = {}
    for key, value in settings.items():
        if isinstance(value, dict) and value:
            out.update(_flattened(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@dataclass(frozen=True)
class CpuPriced:
    """One replication of the subsection: the fit, the campaign its configurations' costs came from
    (the fit itself where they are its own), the CPUs those configurations' runs kept busy, each test
    in both pricings, and the Hadoop settings each of their designs set."""

    fit_name: str
    fit_costs_name: str
    resources: tuple[str, ...]
    #: Per configuration of the fit's costs, the CPUs its runs kept busy (`busy_cpus_of`).
    levels_busy: tuple[cm.BusyCpus, ...]
    #: (configuration, its level of system-call stops) of the fit's costs, where its samples record one.
    stop_levels: tuple[tuple[str, str], ...]
    tests: tuple[CpuTest, ...]
    #: The fit's, its costs' (where another campaign's) and each test's design settings, in that order.
    designs: tuple[DesignSettings, ...] = ()

    @property
    def own_costs(self) -> bool:
        """Its configurations' costs are the fit's own calibration (`vbench predict` without `--fit-costs`)."""
        return self.fit_costs_name == self.fit_name

    @property
    def shared_settings(self) -> tuple[tuple[str, Any], ...]:
        """The Hadoop settings every one of its campaigns' designs set, to the same value: both sides."""
        if not self.designs:
            return ()
        first, *others = self.designs
        return tuple((k, v) for k, v in first.hadoop if all((k, v) in d.hadoop for d in others))

    @property
    def own_settings(self) -> tuple[tuple[str, str, Any], ...]:
        """(campaign, key, value) of each Hadoop setting a design set that not every other one did."""
        shared = set(self.shared_settings)
        return tuple((d.campaign, k, v) for d in self.designs for k, v in d.hadoop if (k, v) not in shared)


def cpu_priced(
    fit: Campaign,
    fit_costs: Campaign | None,
    tests: Sequence[Campaign],
    n_draws: int = cm.DEFAULT_DRAWS,
    resources: Sequence[str] = CPU_PRICED_RESOURCES,
) -> CpuPriced:
    """`fit`'s shares on `resources`, its configurations' costs read from `fit_costs` (None: from the
    fit's own calibration), predicting each of `tests` from its own costs against its own jobs, seeded
    by its design, priced in the machine's CPU and in wall time (`levels_test`, as `vbench predict` with
    `--costs cpu` and `--costs wall`, with `--fit-costs` where `fit_costs` is given). Refused, naming its
    samples file, where a campaign priced lacks the machine reading (`priced_in_cpu`)."""
    if not tests:
        raise ValueError("the subsection priced in the machine's CPU predicts a campaign at least")
    resources = tuple(resources)
    # Priced once, before anything is fitted, as the command prices them: the fit's jobs are not costs.
    # Without a campaign of its costs the command prices the fit itself and passes no --fit-costs: so
    # here, read as the command reads it.
    costs = fit_costs if fit_costs is not None else fit
    costs_in_cpu = priced_in_cpu(costs, resources)
    fit_in_cpu = fit if fit_costs is not None else costs_in_cpu
    read = []
    for test in tests:
        in_test = priced_in_cpu(test, resources)
        if fit_costs is not None:
            in_cpu = C.levels_test(fit, in_test, resources, n_draws, fit_costs=costs_in_cpu)
            in_wall = C.levels_test(fit, test, resources, n_draws, fit_costs=fit_costs)
        else:
            in_cpu = C.levels_test(fit_in_cpu, in_test, resources, n_draws)
            in_wall = C.levels_test(fit, test, resources, n_draws)
        read.append(CpuTest(in_cpu, in_wall, cm.busy_cpus_of(test.samples, resources)))
    sides = [fit, *([fit_costs] if fit_costs is not None else []), *tests]
    return CpuPriced(
        fit.name,
        costs.name,
        resources,
        cm.busy_cpus_of(costs.samples, resources),
        _stop_levels(costs),
        tuple(read),
        tuple(design_settings(c) for c in sides),
    )


def _stop_levels(campaign: Campaign) -> tuple[tuple[str, str], ...]:
    """(configuration, its level of system-call stops) as its samples record them; none where they
    record no such factor."""
    samples = campaign.samples
    if SYSCALL_STOPS_COLUMN not in samples.columns:
        return ()
    pairs = samples[["platform", SYSCALL_STOPS_COLUMN]].dropna().astype(str).drop_duplicates()
    return tuple(sorted(zip(pairs["platform"], pairs[SYSCALL_STOPS_COLUMN])))


def cpu_frame(replications: Sequence[CpuPriced]) -> pd.DataFrame:
    """The table's rows for generated/costs-cpu.csv: `cost_frame`'s columns (its `fit_campaign` names
    the replication) of each test of each replication in each pricing, with the pricing and the campaign
    the fit's configurations' costs came from (the fit's own name where they are its own)."""
    frames = [
        C.cost_frame(study).assign(pricing=pricing, fit_costs_campaign=priced.fit_costs_name)
        for priced in replications
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
    settings = settings_clause(priced)
    return (
        r"Each one-host micro-benchmark run on the local testbed reads the machine's busy CPU time from "
        r"\texttt{/proc/stat} before and after it, so each run also gives the CPUs it kept busy (busy CPU-seconds "
        r"over its wall seconds). Priced in the machine's CPU, a time per operation is multiplied by its run's "
        r"busy CPUs and a throughput divided by them, in each test campaign's calibration and in the fit's "
        rf"configurations' costs, before anything is fitted. Each job's share of native time that scales with "
        rf"{C.cost_units_text(priced.resources)} is fitted on the jobs campaign \texttt{{{tex_escape(priced.fit_name)}}} "
        rf"timed on native hosts in {C.configurations_text(study)}, {_costs_clause(priced)}"
        rf"{f' ({settings})' if settings else ''}; "
        r"each test campaign's platforms are predicted from its own costs against the jobs it timed in the same "
        r"blocks, priced in the machine's CPU and, as a control, in wall time, with the same bootstrap seed."
    )


def _costs_clause(priced: CpuPriced) -> str:
    """Where the fit's configurations' costs were read from: another campaign that calibrated them
    again, or the fit's own calibration."""
    if priced.own_costs:
        return "its configurations' costs read from its own calibration, each run with the machine's CPU read"
    return (
        rf"the costs of those configurations read from campaign \texttt{{{tex_escape(priced.fit_costs_name)}}}, "
        r"which calibrated them again with the machine's CPU read"
    )


def _setting_code(key: str, value: Any) -> str:
    """A design's Hadoop setting as its design writes it, in code font ("hadoop.speculative: false")."""
    return rf"\texttt{{{tex_escape(f'hadoop.{key}: {_yaml_value(value)}')}}}"


def setting_words(key: str, value: Any) -> str:
    """A design's Hadoop setting in words (`SETTING_WORDS`), no identifier a reader does not say."""
    said = SETTING_WORDS.get((key, value))
    return said or tex_escape(f"Hadoop's {key.replace('_', ' ').replace('.', ' ')} set to {_yaml_value(value)}")


def _yaml_value(value: Any) -> str:
    """A value as YAML writes it: false, true, null, 3."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def settings_clause(priced: CpuPriced, before: CpuPriced | None = None) -> str:
    """The Hadoop settings its campaigns' designs set, "" where none did: those every one set ("on both
    sides"), each with what `before` (the first replication) ran with where that differs, then those
    some set alone."""
    said = []
    for key, value in priced.shared_settings:
        contrast = ""
        if before is not None:
            theirs = {d.value(key) for d in before.designs}
            if len(theirs) == 1 and (was := theirs.pop()) != value:
                left = all(key not in dict(d.hadoop) for d in before.designs)
                contrast = f"; the first fit and its tests ran with {setting_words(key, was)}"
                contrast += ", the default" if left else ""
        said.append(
            rf"with {setting_words(key, value)} on both sides ({_setting_code(key, value)} in the design of the "
            f"fit and of each test{contrast})"
        )
    for campaign, key, value in priced.own_settings:
        said.append(rf"with {_setting_code(key, value)} in the design of \texttt{{{tex_escape(campaign)}}} alone")
    return "; ".join(said)


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


def replication_paragraph(priced: CpuPriced, first: CpuPriced) -> str:
    """A further replication after the first's paragraph: what was fitted on what and with which Hadoop
    settings against the first's, the CPUs its runs kept busy, and each of its tests in both pricings."""
    study = priced.tests[0].cpu.study
    settings = settings_clause(priced, first)
    return " ".join(
        [
            r"The same model was fitted and tested again on campaigns of their own"
            + (f", {settings}" if settings else "")
            + rf": each job's share of native time that scales with {C.cost_units_text(priced.resources)} fitted on "
            rf"the jobs campaign \texttt{{{tex_escape(priced.fit_name)}}} timed on native hosts in "
            rf"{C.configurations_text(study)}, {_costs_clause(priced)}, each test priced as above; its predictions "
            rf"are the rows under its fit in Table~\ref{{{TABLE_LABEL}}}.",
            busy_sentence(priced),
            *(prediction_sentence(t) for t in priced.tests),
        ]
    )


def cpu_tex(replications: Sequence[CpuPriced]) -> list[str]:
    """The subsection's lines: the first replication's method and busy CPUs, then each of its tests;
    then a paragraph per further replication; then the table."""
    first, *further = replications
    lines = [
        rf"\subsection{{{TITLE}}}\label{{{LABEL}}}",
        " ".join([method_sentence(first), busy_sentence(first)]),
        "",
        rf"Table~\ref{{{TABLE_LABEL}}} gives each prediction. " + " ".join(prediction_sentence(t) for t in first.tests),
    ]
    for priced in further:
        lines += ["", replication_paragraph(priced, first)]
    return [*lines, "", rf"\input{{generated/tables/{NAME}.tex}}"]


def _fit_heading(priced: CpuPriced, first: CpuPriced) -> str:
    """A replication's heading row in the table (where there are several): its fit, where its costs
    came from, and the Hadoop settings on both sides where they differ from the first's."""
    costs = "its own calibration" if priced.own_costs else rf"\texttt{{{tex_escape(priced.fit_costs_name)}}}"
    settings = [
        setting_words(k, v)
        for k, v in priced.shared_settings
        if priced is first or {d.value(k) for d in first.designs} != {v}
    ]
    said = rf"Fitted on \texttt{{{tex_escape(priced.fit_name)}}}, its configurations' costs from {costs}"
    if settings:
        said += f"; {and_list(settings)} on both sides"
    return rf"\multicolumn{{6}}{{l}}{{\emph{{{said}}}}}"


def _fit_note(replications: Sequence[CpuPriced]) -> str:
    """The table's note on what was fitted on what: one replication as the first says it; several, each
    fit with where its costs came from."""

    def on(priced: CpuPriced) -> str:
        study = priced.tests[0].cpu.study
        return (
            rf"on {C.configurations_text(study)} of native hosts in {count(study.blocks, 'block')} "
            rf"(campaign \texttt{{{tex_escape(priced.fit_name)}}})"
        )

    def costs(priced: CpuPriced) -> str:
        if priced.own_costs:
            return "the configurations' costs from its own calibration"
        return rf"the configurations' costs from campaign \texttt{{{tex_escape(priced.fit_costs_name)}}}"

    shares = rf"the shares of native time that scale with {C.resources_text(replications[0].resources)}"
    if len(replications) == 1:
        (priced,) = replications
        return f"Fitted per job {on(priced)}: {shares}; {costs(priced)}."
    fits = [f"{on(p)}, {costs(p)}" for p in replications]
    return f"Fitted per job, {shares}: {'; '.join(fits[:-1])}; and {fits[-1]}."


def table_cpu(replications: Sequence[CpuPriced]) -> str:
    """Per replication (headed by its fit where there are several), test campaign, platform and job:
    the measured ratio, the prediction priced in the machine's CPU with its prediction interval and
    error, and the error of the prediction priced in wall time."""
    first = replications[0]
    study = first.tests[0].cpu.study
    level = study.level
    body: list[list[str]] = []
    rules: list[int] = []
    for priced in replications:
        headed = False
        if len(replications) > 1:
            if body:
                rules.append(len(body) - 1)
            body.append([_fit_heading(priced, first)])
            headed = True
        for test in priced.tests:
            if body and not headed:
                rules.append(len(body) - 1)
            headed = False
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
        _fit_note(replications)
        + r" Each campaign's platforms are calibrated and timed in the same blocks; none is in any fit.",
        rf"Intervals: {level}\,\% percentile intervals of {study.n_draws} seeded bootstrap draws (prediction) "
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


def build_note(replications: Sequence[CpuPriced]) -> list[str]:
    """The build log's lines on it, one per test of each replication: gVisor's errors in both pricings,
    to a tenth of a per cent (as docs/results.md reads them), and what the measured intervals held."""
    lines = []
    for priced in replications:
        costs = "its own costs" if priced.own_costs else f"{priced.fit_costs_name}'s costs"
        settings = "".join(f", hadoop.{k}: {_yaml_value(v)} on both sides" for k, v in priced.shared_settings)
        for test in priced.tests:
            walls = {(r.job, r.platform): r for r in test.wall.study.rows}
            errors = "; ".join(
                f"{r.platform} {r.job} {100 * r.error.estimate:+.1f} % in CPU, "
                f"{100 * walls[r.job, r.platform].error.estimate:+.1f} % in wall time"
                for r in test.cpu.gvisor_rows
            )
            held = sum(C.measured_holds(r) for r in test.cpu.other_rows)
            lines.append(
                f"cost model priced in the machine's CPU: fitted on {priced.fit_name} with {costs} "
                f"({', '.join(priced.resources)}{settings}), predicted for {test.name}'s platforms (seed "
                f"{test.cpu.study.seed}): {errors or 'no gVisor job'}; the measured intervals held {held} of "
                f"{len(test.cpu.other_rows)} other predictions in CPU"
            )
    return lines

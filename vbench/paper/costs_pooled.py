"""The cost model judged against pooled ratios (issue #53; sec:costs-pooled with a table per test,
tab:costs-pooled-<n>, after the subsection priced in the machine's CPU, before NNBench's barrier).

One campaign reads a job's ratio to native over 2-6 blocks in an hour or two; another campaign of the
same jobs on the same machine reads one 4-20 % away (`vbench.stats.campaign_pool`). A model of costs
predicts the machine's long-run ratio, not one hour's, so each record of params/paper.yaml's
`pooled_tests` (`vbench.paper.inputs.PooledTest`) judges its predictions against each job's ratio
pooled over its `measured` campaigns, in both pricings of the costs, as

    vbench predict CALIBRATION --fit FIT [--fit-costs FIT_COSTS] --resources R --seed SEED
        --measured A,B,... --costs wall|cpu

reads it (`vbench.commands.predict_cmd`): the campaigns priced by `cost_prediction.priced_campaigns`
(the command's), then `prediction_inputs(..., measured_in=...)` and `prediction_table` with the
command's default draws, no `--blocks`. Nothing here computes a statistic of its own: a row's error is
`cost_prediction.row_error` (the command's "unexplained"), the median |error| and how many prediction
intervals hold the pooled ratio are `cost_prediction.accuracy`'s; the one count added is of the rows
within `costs.GVISOR_TARGET` (+/-15 %, issue #53's target) and of those under-predicted.

A record's `fixed_pricing` names the pricing its design fixed before it ran; the other is said to be
read after the rule, a lead, not a verdict; where none is fixed, both are read after; "both" where
its design fixed a rule for each. The sentences
give numbers, never a verdict: a design's rule is its own (params/experiments/, docs/results.md).

Pure: campaigns in, records and text out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import pandas as pd

from vbench.stats import cost_model as cm
from vbench.stats.bench_settings import settings_of
from vbench.stats.campaign import Campaign
from vbench.stats.cost_prediction import (
    PRICINGS,
    Accuracy,
    PredictedJob,
    PredictionTable,
    accuracy,
    prediction_inputs,
    prediction_table,
    priced_campaigns,
    row_error,
)
from vbench.stats.machine_kernel import KernelsRead, kernels_read
from vbench.stats.records import Interval
from vbench.wording import count, job_name

from vbench.paper import costs as C
from vbench.paper.fmt import and_list, interval_text, tex_escape
from vbench.paper.inputs import BOTH_PRICINGS
from vbench.paper.tables.grid import Grid, render

NAME = "costs-pooled"
LABEL = f"sec:{NAME}"
TITLE = "Against the machine's long-run ratios"
#: How a pricing is said: in a sentence ("priced in wall time") and a table's column group.
PRICING_WORDS = {"wall": "in wall time", "cpu": "in the machine's CPU"}
#: The build log's line when the section is built without this subsection.
OMITTED_NOTE = "the cost model against pooled ratios is omitted: params/paper.yaml's paper.pooled_tests is empty"


def table_name(number: int) -> str:
    """The `number`-th test's table (from 1): generated/tables/<this>.tex, labelled tab:<this>. By
    position, not by campaign: two tests may share a fit or a calibration."""
    return f"{NAME}-{number}"


def table_label(number: int) -> str:
    return f"tab:{table_name(number)}"


# --- records --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PooledReading:
    """A test read in one pricing: `vbench predict`'s table for it."""

    pricing: str
    table: PredictionTable

    @property
    def rows(self) -> tuple[PredictedJob, ...]:
        """Its rows judged against a pooled ratio, in the command's order (platform, then the fit's
        jobs): a job fewer than two of the campaigns timed on a platform has no measured ratio here."""
        return tuple(r for r in self.table.rows if r.campaigns is not None)

    @property
    def unpooled_platforms(self) -> tuple[str, ...]:
        """The platforms predicted that no job of is judged: fewer than two campaigns timed them."""
        judged = {r.platform for r in self.rows}
        return tuple(dict.fromkeys(r.platform for r in self.table.rows if r.platform not in judged))


@dataclass(frozen=True)
class PooledSummary:
    """A reading's numbers as its sentence says them."""

    rows: int
    #: `accuracy`'s median |measured / predicted - 1| and the rows whose prediction interval of a
    #: pooled ratio holds the pooled ratio.
    median_abs_error: float
    covered: int
    #: Rows with |error| within `costs.GVISOR_TARGET`; rows measured above their prediction.
    within_target: int
    under: int


def summary_of(reading: PooledReading) -> PooledSummary | None:
    """Its summary; None where no row has a pooled ratio to be judged against."""
    acc: Accuracy | None = accuracy(reading.rows)
    if acc is None:
        return None
    errors = [e for r in reading.rows if (e := row_error(r)) is not None]
    return PooledSummary(
        acc.rows,
        acc.median_abs_error,
        acc.covered,
        sum(abs(e) <= C.GVISOR_TARGET for e in errors),
        sum(e > 0 for e in errors),
    )


@dataclass(frozen=True)
class PooledTest:
    """A record of `pooled_tests` read: what was fitted on what, predicted for which calibration,
    judged against which campaigns, and its reading in each pricing (`PRICINGS`' order)."""

    fit_name: str
    #: The campaign the fit's configurations' costs came from: the fit's own name where they are its own.
    fit_costs_name: str
    calibration_name: str
    measured_names: tuple[str, ...]
    resources: tuple[str, ...]
    seed: int
    #: The pricing its design fixed before it ran ("": none).
    fixed_pricing: str
    readings: tuple[PooledReading, ...]
    #: The copies at once its calibration and its fit's costs timed the fitted resources' benchmarks
    #: with (1: each alone; vbench.benchmarks.micro.copies), where all ran with one number; 0 where not.
    copies: int = 1
    #: The machine kernels the campaigns it reads (fit, fit's costs, calibration, measured) ran on.
    kernels: KernelsRead = KernelsRead((), ())
    #: Its shares were fitted bounded at 0 (`vbench predict --shares nonnegative`).
    nonnegative: bool = False

    @property
    def own_costs(self) -> bool:
        return self.fit_costs_name == self.fit_name

    def fixed(self, pricing: str) -> bool:
        """Whether its design fixed a rule for `pricing` before it ran."""
        return self.fixed_pricing in (pricing, BOTH_PRICINGS)

    def reading(self, pricing: str) -> PooledReading:
        return next(r for r in self.readings if r.pricing == pricing)

    def pairs(self) -> tuple[tuple[PredictedJob, ...], ...]:
        """Per judged (platform, job), its row in each pricing (`readings`' order). Both pricings
        judge the same rows against the same pooled ratios: the pricing changes the costs, not which
        campaigns timed which jobs."""
        first, *others = self.readings
        by_pricing = [{(r.platform, r.job): r for r in o.rows} for o in others]
        return tuple((r, *(b[r.platform, r.job] for b in by_pricing)) for r in first.rows)

    @property
    def machines(self) -> tuple[str, ...]:
        """The CPU models the campaigns read name, as `vbench predict` reads them."""
        models = {m for c in self.readings[0].table.inputs.machines for m in c.cpu_models}
        return tuple(sorted(models))


def pooled_reading(
    pricing: str,
    fit: Campaign,
    calibration: Campaign,
    measured: Sequence[Campaign],
    resources: Sequence[str],
    seed: int,
    fit_costs: Campaign | None = None,
    n_draws: int = cm.DEFAULT_DRAWS,
    nonnegative: bool = False,
) -> PooledReading:
    """One pricing's reading, as `vbench predict` computes it: the costs priced
    (`priced_campaigns`), then `prediction_inputs` with `measured` as its `measured_in` and
    `prediction_table`. The command reads no phases, attempts or task CPU of pooled campaigns."""
    fit, calibration, fit_costs = priced_campaigns(pricing, fit, calibration, resources, fit_costs)
    inputs = prediction_inputs(fit, calibration, resources, measured_in=tuple(measured), fit_costs_in=fit_costs)
    return PooledReading(pricing, prediction_table(inputs, n_draws=n_draws, seed=seed, nonnegative=nonnegative))


def pooled_test(
    fit: Campaign,
    calibration: Campaign,
    measured: Sequence[Campaign],
    resources: Sequence[str],
    seed: int,
    *,
    fit_costs: Campaign | None = None,
    fixed_pricing: str = "",
    n_draws: int = cm.DEFAULT_DRAWS,
    nonnegative: bool = False,
) -> PooledTest:
    """A record read in every pricing (`pooled_reading`). Refused, as the command refuses it, naming
    the campaign's samples file (a calibration without the machine reading priced in CPU, a resource
    not measured) or the option (fewer than two campaigns pooled)."""
    if len(measured) < 2:
        raise ValueError("a pooled test judges its predictions against two campaigns or more")
    resources = tuple(resources)
    readings = tuple(
        pooled_reading(p, fit, calibration, measured, resources, seed, fit_costs, n_draws, nonnegative)
        for p in PRICINGS
    )
    costs = fit_costs if fit_costs is not None else fit
    read = {c.name: c.samples for c in (fit, costs, calibration, *measured)}  # each once, in this order
    return PooledTest(
        fit.name,
        costs.name,
        calibration.name,
        tuple(m.name for m in measured),
        resources,
        seed,
        fixed_pricing,
        readings,
        _copies_alike(copies_timed(calibration.samples, resources), copies_timed(costs.samples, resources)),
        kernels_read(list(read.items())),
        nonnegative,
    )


def _copies_alike(calibration: int, fit_costs: int) -> int:
    """The copies both the calibration and the fit's costs timed with; 0 where they differ."""
    return calibration if calibration == fit_costs else 0


def copies_timed(samples: pd.DataFrame, resources: Sequence[str]) -> int:
    """The copies at once (`copies`: rpc's, jvmstart's) `samples` timed the named resources'
    benchmarks with, where every one that has the setting ran with one same number; 1 where none has
    it; 0 where they differ or one was not recorded. Pure."""
    said: set[str] = set()
    for name in resources:
        settings = settings_of(samples, cm.RESOURCE_BY_NAME[name].benchmark)
        said |= settings.get("copies", frozenset())
    if not said:
        return 1
    # A value that is not a count ("not recorded") says no number either.
    (only,) = said if len(said) == 1 else ("",)
    return int(float(only)) if only.replace(".", "", 1).isdigit() else 0


def pooled_frame(tests: Sequence[PooledTest]) -> pd.DataFrame:
    """The tables' rows for generated/costs-pooled.csv: per test (`test`, from 1), pricing and judged
    row, the predicted ratio and its interval, the prediction interval of a pooled ratio, the pooled
    ratio with its interval and campaigns, and the error; with the campaigns and the seed."""
    records = []
    for number, test in enumerate(tests, start=1):
        for reading in test.readings:
            for r in reading.rows:
                records.append(
                    {
                        "test": number,
                        "pricing": reading.pricing,
                        "fixed_pricing": test.fixed(reading.pricing),
                        "platform": r.platform,
                        "job": r.job,
                        "predicted": r.predicted.estimate,
                        "predicted_low": r.predicted.low,
                        "predicted_high": r.predicted.high,
                        "pi_low": r.measurement.low if r.measurement is not None else None,
                        "pi_high": r.measurement.high if r.measurement is not None else None,
                        "measured": r.measured.estimate,
                        "measured_low": r.measured.low,
                        "measured_high": r.measured.high,
                        "campaigns": r.campaigns,
                        "error": row_error(r),
                        "fit_campaign": test.fit_name,
                        "fit_costs_campaign": test.fit_costs_name,
                        "calibration_campaign": test.calibration_name,
                        "measured_campaigns": ";".join(test.measured_names),
                        "resources": ";".join(test.resources),
                        "seed": test.seed,
                    }
                )
    return pd.DataFrame(records)


# --- the text ---------------------------------------------------------------------------------------


def pricing_label(test: PooledTest, pricing: str) -> str:
    """How a pricing is said beside its numbers: the one the design fixed before it ran, or read
    after the rule (a lead, not a verdict); where none is fixed, read after the design's rules."""
    said = f"priced {PRICING_WORDS[pricing]}"
    if test.fixed_pricing == BOTH_PRICINGS:
        return f"{said}, its rule fixed before it ran"
    if test.fixed(pricing):
        return f"{said}, the pricing its design fixed before it ran"
    if test.fixed_pricing:
        return f"{said}, read after the rule (a lead, not a verdict)"
    return f"{said}, read after its design's rules (a lead, not a verdict)"


def _campaigns_pooled(test: PooledTest) -> str:
    """ "8 campaigns", or "6 to 8 of its 8 campaigns" where some judged rows had fewer."""
    ns = sorted({r.campaigns for r in test.readings[0].rows if r.campaigns is not None})
    k = len(test.measured_names)
    if not ns or ns == [k]:
        return count(k, "campaign")
    least = f"{ns[0]} to {ns[-1]}" if ns[0] != ns[-1] else str(ns[0])
    return f"{least} of its {count(k, 'campaign')}"


def _machines_clause(test: PooledTest) -> str:
    """ ", every campaign on the <CPU model>" where the campaigns read name one model; the models
    where they name several; "" where none recorded one."""
    models = test.machines
    if not models:
        return ""
    if len(models) == 1:
        return f", every campaign on the {tex_escape(models[0])}"
    return f", its campaigns on {and_list([tex_escape(m) for m in models])}"


#: A hyphen in code font after which a line may break.
BREAK_AFTER_HYPHEN = r"-\allowbreak{}"


def _campaign_names(names: Sequence[str]) -> str:
    """Campaigns in code font, each free to break after a hyphen: a sentence listing eight of them
    otherwise sticks out of the column (code font neither hyphenates nor stretches)."""
    return and_list([campaign_code(n).replace("-", BREAK_AFTER_HYPHEN) for n in names])


def kernels_sentence(test: PooledTest) -> str:
    """The machine kernels its campaigns ran on (`kernels_text`)."""
    return kernels_text(test.kernels)


def kernels_text(read: KernelsRead) -> str:
    """The machine kernels campaigns read together ran on: each build with its campaigns where they ran
    on several (gVisor's ratios moved with the build on the AMD EPYC machine, docs/results.md), the one
    build where they agree, and the campaigns that recorded none; "" where none recorded one."""
    if not read.on:
        return ""
    none = f"; {_campaign_names(read.unrecorded)} recorded none" if read.unrecorded else ""
    if read.differ:
        # A build in running text, not code font: it breaks at its hyphens where a line must.
        builds = "; ".join(f"{tex_escape(k)}: {_campaign_names(names)}" for k, names in read.on)
        return f"The campaigns it reads ran on {count(len(read.on), 'build')} of the machine's kernel, {builds}{none}."
    ((kernel, _names),) = read.on
    if read.unrecorded:
        return rf"The campaigns it reads that recorded the machine's kernel ran on {tex_escape(kernel)}{none}."
    return rf"Every campaign it reads ran on the machine's kernel {tex_escape(kernel)}."


def _steps(n: int) -> str:
    return count(n, "step")


def reading_clause(test: PooledTest, pricing: str) -> str:
    """One pricing's numbers: the median |error|, how many steps are within +/-15 %, how many the
    prediction interval of a pooled ratio holds and how many are under-predicted."""
    reading = test.reading(pricing)
    s = summary_of(reading)
    label = pricing_label(test, pricing) + _apart_clause(reading)
    if s is None:
        return f"{label}, no step has a pooled ratio"
    target = C.pct_text(C.GVISOR_TARGET)
    return (
        rf"{label}, the median $|$measured / predicted $-$ 1$|$ is {C.pct_text(s.median_abs_error)}, "
        rf"{s.within_target} of the {_steps(s.rows)} {_are(s.within_target)} within {target} of it either way, the "
        rf"prediction interval of a pooled ratio holds {s.covered} of {s.rows}, and {s.under} of {s.rows} "
        rf"{_are(s.under)} under-predicted (measured above predicted)"
    )


def _apart_clause(reading: PooledReading) -> str:
    """Whether the fit's levels move the fitted costs apart in this pricing (rule 1,
    `cost_prediction.levels_apart`, as `vbench predict` notes it): shares fitted on levels that do not
    are read with that said. "" where the fit fitted one resource (nothing to tell apart)."""
    apart = reading.table.inputs.apart
    if apart is None or len(reading.table.inputs.resources) < 2:
        return ""
    if apart.passes:
        return " (its levels move the fitted costs apart)"
    return rf" (its levels do not move {and_list(list(apart.unresolved))} apart by the rule's margin)"


def _are(n: int) -> str:
    """The verb that agrees with "<n> of the steps": "1 ... is", "0 ... are"."""
    return "is" if n == 1 else "are"


def record_paragraph(test: PooledTest, number: int) -> str:
    """A test's paragraph: what was fitted on what and predicted for which campaign, judged against
    how many campaigns' pooled ratios; then its numbers in each pricing, the fixed one first; the
    platforms left out for want of a pooled ratio."""
    costs = (
        ""
        if test.own_costs
        else rf", its configurations' costs read from campaign \texttt{{{tex_escape(test.fit_costs_name)}}}"
    )
    together = (
        f" (each timed with {count(test.copies, 'copy', 'copies')} running at once on a host)"
        if test.copies > 1
        else ""
    )
    opening = (
        rf"Table~\ref{{{table_label(number)}}}: each step's shares of native time that scale with "
        rf"{C.cost_units_text(test.resources)}{together}, fitted on campaign \texttt{{{tex_escape(test.fit_name)}}}{costs}"
        rf"{BOUNDED_CLAUSE if test.nonnegative else ''}, "
        rf"predict each platform of campaign \texttt{{{tex_escape(test.calibration_name)}}} from its costs "
        rf"(seed {test.seed}), each step judged against its ratio pooled over {_campaigns_pooled(test)}"
        rf"{_machines_clause(test)}."
    )
    order = sorted(PRICINGS, key=lambda p: not test.fixed(p))
    clauses = [reading_clause(test, p) for p in order]
    numbers = clauses[0][0].upper() + clauses[0][1:] + "; " + "; ".join(clauses[1:]) + "."
    left = test.readings[0].unpooled_platforms
    unpooled = (
        f" {and_list([C.platform_cell(p) for p in left])}, which fewer than two of the campaigns timed, "
        f"{'is' if len(left) == 1 else 'are'} predicted but not judged here."
        if left
        else ""
    )
    kernels = kernels_sentence(test)
    return f"{opening} {kernels + ' ' if kernels else ''}{numbers}{unpooled}"


#: What a test whose shares were fitted bounded at 0 says of them (`vbench predict --shares nonnegative`).
BOUNDED_CLAUSE = (
    r" bounded at 0 (a share of native time cannot be negative; in the estimate and every bootstrap draw, "
    r"the shares that are positive unchanged)"
)

#: The subsection's opening: what a pooled ratio is and why the predictions are judged against it.
METHOD_SENTENCE = (
    r"One campaign reads a job's ratio to native over a few blocks in an hour or two, and another campaign "
    r"of the same jobs on the same machine reads one several per cent away; a model of costs predicts the "
    r"machine's long-run ratio, not one hour's. Here each prediction is judged against the step's ratio "
    r"pooled over several campaigns that timed it: the mean of their log ratios, each "
    r"campaign weighted alike, with a Student-$t$ interval on their number less one, and against a prediction "
    r"interval for such a pooled ratio (the campaigns' spread added to the predicted ratio's interval). Each "
    r"test is read in both pricings of the costs: in wall time, as measured, and in the machine's CPU, each "
    r"micro-benchmark run's time per operation times the CPUs it kept busy."
)


def pooled_tex(tests: Sequence[PooledTest]) -> list[str]:
    """The subsection's lines: what a pooled ratio is, then a paragraph and a table per test, in order."""
    lines = [rf"\subsection{{{TITLE}}}\label{{{LABEL}}}", METHOD_SENTENCE]
    for number, test in enumerate(tests, start=1):
        lines += ["", record_paragraph(test, number), "", rf"\input{{generated/tables/{table_name(number)}.tex}}"]
    return lines


# --- the table --------------------------------------------------------------------------------------


def pi_cell(iv: Interval | None) -> str:
    """A prediction interval of a pooled ratio: its bounds alone (its estimate is the prediction's)."""
    if iv is None or not iv.bounded:
        return r"\textemdash"
    return interval_text(iv.estimate, iv.low, iv.high).split(" ", 1)[1]


def error_cell(row: PredictedJob) -> str:
    """measured / predicted - 1 as `costs.table_costs` prints it: signed, two significant digits."""
    e = row_error(row)
    return C.pct_text(e, signed=True).removesuffix(r"\,\%") if e is not None else r"\textemdash"


def _measured_cell(row: PredictedJob) -> str:
    return rf"{C.interval_cell(row.measured)} ({row.campaigns})"


def _column_group(test: PooledTest, pricing: str) -> str:
    """A pricing's column group heading: fixed before the run, or read after."""
    when = "fixed" if test.fixed(pricing) else "read after"
    return f"Priced {PRICING_WORDS[pricing]} ({when})"


def grouped_rows(
    steps: Sequence[Sequence[PredictedJob]], measured_cell: Callable[[PredictedJob], str]
) -> tuple[list[list[str]], list[int]]:
    """A table of readings side by side, each a column group of three: per platform (a heading row
    each) and step (its rows, one per reading, in `steps`), its name, `measured_cell` of its first row,
    then per reading the prediction with its interval, the prediction interval of a measurement and
    the error. The body's rows and the rules under each platform's last row (`C.booktabs`'). Pure."""
    body: list[list[str]] = []
    rules: list[int] = []
    ncols = 2 + 3 * (len(steps[0]) if steps else 0)
    for i, rows in enumerate(steps):
        first = rows[0]
        if i == 0 or first.platform != steps[i - 1][0].platform:
            if body:
                rules.append(len(body) - 1)
            body.append([rf"\multicolumn{{{ncols}}}{{l}}{{\emph{{{C.platform_cell(first.platform)}}}}}"])
        cells = [tex_escape(job_name(first.job)), measured_cell(first)]
        for r in rows:
            cells += [C.interval_cell(r.predicted), pi_cell(r.measurement), error_cell(r)]
        body.append(cells)
    return body, rules


def group_headings(headings: Sequence[str]) -> tuple[str, str]:
    """The column groups' heading row (after the two leading columns) and the rules under them. Pure."""
    groups = " & ".join(rf"\multicolumn{{3}}{{c}}{{{h}}}" for h in headings)
    rules_under = "".join(rf"\cmidrule(lr){{{3 + 3 * k}-{5 + 3 * k}}}" for k in range(len(headings)))
    return groups, rules_under


def table_pooled(test: PooledTest, number: int) -> str:
    """Per platform (a heading row each) and judged step: the pooled ratio with its interval and
    campaigns, then per pricing the prediction with its interval, the prediction interval of a pooled
    ratio and the error."""
    level = round(100 * test.readings[0].table.conf)
    body, rules = grouped_rows(test.pairs(), _measured_cell)
    groups, rules_under = group_headings([_column_group(test, r.pricing) for r in test.readings])
    header = ["Step", rf"Pooled [{level}\,\% CI] (c)"]
    for _ in test.readings:
        header += [rf"Predicted [{level}\,\% CI]", rf"PI [{level}\,\%]", r"Error (\%)"]
    caption = (
        rf"Each step's job time ratio to native pooled over the campaigns that timed it, and predicted from "
        rf"campaign \texttt{{{tex_escape(test.calibration_name)}}}'s costs by shares fitted on campaign "
        rf"\texttt{{{tex_escape(test.fit_name)}}}, priced in wall time and in the machine's CPU, with {level}\,\% "
        rf"intervals. {_pricings_caption(test)}"
    )
    notes = [
        r"Pooled: the mean of the campaigns' log ratios, each campaign weighted alike, its interval a "
        r"Student-$t$ on their number (c) less one. PI: the prediction interval of such a pooled ratio, the "
        r"campaigns' spread added to the predicted ratio's interval. Error: measured / predicted $-$ 1 "
        r"(positive: the platform took more time than the model predicts).",
        f"Campaigns pooled: {and_list([campaign_code(n) for n in test.measured_names])}.",
        _fit_note(test),
        rf"Intervals: {level}\,\% percentile intervals of {test.readings[0].table.n_draws} bootstrap draws "
        rf"seeded {test.seed} (prediction) and Student-$t$ over the campaigns (pooled).",
    ]
    return render(
        Grid(
            header,
            body,
            "l" + "c" * (len(header) - 1),
            caption,
            table_label(number),
            notes,
            # Eight columns, five of them intervals: narrower gaps keep it within the text width.
            size=r"\scriptsize\setlength{\tabcolsep}{3pt}",
            rules_after=tuple(rules),
            above=rf"& & {groups} \\ {rules_under}",
        )
    )


def _pricings_caption(test: PooledTest) -> str:
    """Which pricing was fixed before the design ran and which was read after it."""
    if not test.fixed_pricing:
        return "Neither pricing was fixed before its campaigns ran: both are read after its design's rules."
    if test.fixed_pricing == BOTH_PRICINGS:
        return "Its design fixed a rule for each pricing before its campaigns ran."
    other = and_list([PRICING_WORDS[p] for p in PRICINGS if p != test.fixed_pricing])
    return (
        f"Priced {PRICING_WORDS[test.fixed_pricing]}: the pricing its design fixed before it ran; "
        f"{other}: read after the rule, a lead."
    )


def campaign_code(name: str) -> str:
    """A campaign's name in code font."""
    return rf"\texttt{{{tex_escape(name)}}}"


def _fit_note(test: PooledTest) -> str:
    costs = (
        "its configurations' costs from its own calibration"
        if test.own_costs
        else rf"its configurations' costs from campaign \texttt{{{tex_escape(test.fit_costs_name)}}}"
    )
    return (
        rf"Fitted per step on campaign \texttt{{{tex_escape(test.fit_name)}}}: the shares of native time that scale "
        rf"with {C.resources_text(test.resources)}{', bounded at 0' if test.nonnegative else ''}; {costs}. "
        rf"Calibrated: campaign "
        rf"\texttt{{{tex_escape(test.calibration_name)}}}; no platform of it is in the fit."
    )


def build_note(tests: Sequence[PooledTest]) -> list[str]:
    """The build log's lines on it, one per test and pricing: each row's error to a tenth of a per
    cent (as docs/results.md reads them) and the summary."""
    lines = []
    for test in tests:
        for reading in test.readings:
            s = summary_of(reading)
            errors = "; ".join(
                f"{r.platform} {r.job} {100 * e:+.1f} %"
                for r in reading.rows
                if (e := row_error(r)) is not None and math.isfinite(e)
            )
            said = (
                f"median |error| {100 * s.median_abs_error:.0f} %, {s.within_target} of {s.rows} within "
                f"{100 * C.GVISOR_TARGET:.0f} %, the PI holds {s.covered} of {s.rows}"
                if s is not None
                else "no pooled ratio"
            )
            fixed = " (fixed before it ran)" if test.fixed(reading.pricing) else ""
            fixed += ", shares bounded at 0" if test.nonnegative else ""
            lines.append(
                f"cost model against pooled ratios: fitted on {test.fit_name} ({', '.join(test.resources)}), "
                f"predicted for {test.calibration_name}'s platforms (seed {test.seed}) against "
                f"{len(test.measured_names)} campaigns, priced {PRICING_WORDS[reading.pricing]}{fixed}: "
                f"{errors or 'no row'}; {said}"
            )
    return lines

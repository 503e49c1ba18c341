"""The cost model with the rest of native time priced (issue #53; sec:costs-rest with a table per test,
tab:costs-rest-<n>, after the tests against pooled ratios, before NNBench's barrier).

The model prices the native time its fitted resources explain; the rest of a job's native time, 1 less
its fitted shares (at least 0), it takes to run at native's speed on every platform. A platform that
slows every instruction (QEMU emulating the guest's processor, TCG) slows that rest too, and `vbench
predict --rest R` prices it at resource R's cost instead (`cost_model.predict`'s `rest`). Each record of
params/paper.yaml's `rest_tests` (`vbench.paper.inputs.RestTest`) is read as

    vbench predict CALIBRATION --fit FIT --resources R --seed SEED --costs PRICING --measured MEASURED
        [--rest REST]

reads it (`vbench.commands.predict_cmd`), once without `--rest` (the rest at native's) and once per
resource of its `rests`: the campaigns priced by `cost_prediction.priced_campaigns` (the command's), then
`prediction_inputs(..., measured_in=(MEASURED,), rest=REST)` and `prediction_table` with the command's
default draws, no `--blocks`. Nothing here computes a statistic of its own: a row's error is
`cost_prediction.row_error` (the command's "unexplained"), whether its prediction interval holds the
measured ratio `cost_prediction.accuracy`'s, the terms of its predicted overhead and the rest's share of
native time `cost_model.attribute`'s (`PredictedJob.attribution`, the command's rpc / jvmstart /
rest@R columns).

Pure: campaigns in, records and text out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from vbench.benchmarks.micro import jvmcpu
from vbench.errors import ParamsError
from vbench.stats import cost_model as cm
from vbench.stats.campaign import Campaign
from vbench.stats.cost_prediction import (
    PredictedJob,
    PredictionTable,
    RestNotCalibrated,
    accuracy,
    prediction_inputs,
    prediction_table,
    priced_campaigns,
    row_error,
)
from vbench.stats.machine_kernel import KernelsRead, kernels_read
from vbench.stats.records import Interval
from vbench.wording import count, job_name, resource_name

from vbench.paper import costs as C
from vbench.paper.costs_pooled import PRICING_WORDS, campaign_code, group_headings, grouped_rows, kernels_text, pi_cell
from vbench.paper.fmt import and_list, tex_escape
from vbench.paper.inputs import RestFields, RestTestDirs
from vbench.paper.tables.grid import Grid, render

NAME = "costs-rest"
LABEL = f"sec:{NAME}"
TITLE = "The native time no fitted resource explains"
#: The build log's line when the section is built without this subsection.
OMITTED_NOTE = (
    "the cost model with the rest of native time priced is omitted: params/paper.yaml's paper.rest_tests is empty"
)


def table_name(number: int) -> str:
    """The `number`-th test's table (from 1): generated/tables/<this>.tex, labelled tab:<this>. By
    position, not by campaign: two tests may share a calibration."""
    return f"{NAME}-{number}"


def table_label(number: int) -> str:
    return f"tab:{table_name(number)}"


# --- records --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PricedRest:
    """A test read with the rest of native time priced at `rest`'s cost (None: at native's, as the
    model prices it without `--rest`): `vbench predict`'s table for it."""

    rest: str | None
    table: PredictionTable

    @property
    def rows(self) -> tuple[PredictedJob, ...]:
        """Its rows the measured campaign timed, in the command's order (platform, then the fit's jobs)."""
        return tuple(r for r in self.table.rows if r.measured is not None)

    def rest_cost(self, platform: str) -> Interval | None:
        """`platform`'s cost of the rest's resource over native's, as the calibration measured it: what
        the rest is priced at (None: at native's)."""
        if self.rest is None:
            return None
        costs = next(v for v in self.table.inputs.costs if v.platform == platform)
        return costs.ratio(self.rest).interval(self.table.conf)


@dataclass(frozen=True)
class RestTestReading:
    """A record of `rest_tests` read: what was fitted on what, predicted for which calibration, judged
    against which campaign, and its readings, the rest at native's first, then at each rest's cost."""

    fit_name: str
    calibration_name: str
    measured_name: str
    resources: tuple[str, ...]
    seed: int
    pricing: str
    readings: tuple[PricedRest, ...]
    #: The machine kernels the campaigns it reads (fit, calibration, measured) ran on.
    kernels: KernelsRead = KernelsRead((), ())
    #: Rest -> the one operation whose cost it is, as the calibration ran it (`rest_units`).
    units: Mapping[str, str] = field(default_factory=dict)

    @property
    def rests(self) -> tuple[str, ...]:
        return tuple(r.rest for r in self.readings if r.rest is not None)

    def reading(self, rest: str | None) -> PricedRest:
        return next(r for r in self.readings if r.rest == rest)

    def rows(self) -> tuple[tuple[PredictedJob, ...], ...]:
        """Per measured (platform, job), its row in each reading (`readings`' order). Every reading
        judges the same rows against the same measured ratios: the rest changes the prediction only."""
        first, *others = self.readings
        by_rest = [{(r.platform, r.job): r for r in o.rows} for o in others]
        return tuple((r, *(b[r.platform, r.job] for b in by_rest)) for r in first.rows)

    @property
    def unmeasured_platforms(self) -> tuple[str, ...]:
        """The platforms predicted that the measured campaign timed no job of."""
        measured = {r.platform for r in self.readings[0].rows}
        return tuple(dict.fromkeys(r.platform for r in self.readings[0].table.rows if r.platform not in measured))


def rest_test(
    fit: Campaign,
    calibration: Campaign,
    measured: Campaign,
    resources: Sequence[str],
    seed: int,
    rests: Sequence[str],
    pricing: str,
    *,
    n_draws: int = cm.DEFAULT_DRAWS,
) -> RestTestReading:
    """A record read as `vbench predict` reads it, without `--rest` and with each of `rests`: the costs
    priced (`priced_campaigns`), then `prediction_inputs` with `measured` as its one `measured_in` and
    `prediction_table`. Refused as the command refuses it, naming the campaign's samples file (a
    calibration without a rest's cost: `RestNotCalibrated`, which `rest_tests` names the record's field
    for), or without a rest (nothing priced beside native's)."""
    resources, rests = tuple(resources), tuple(rests)
    if not rests:
        raise ValueError("a rest test prices the rest at one resource's cost at least")
    priced_fit, priced_calibration, _costs = priced_campaigns(pricing, fit, calibration, resources)
    # Every reading's inputs before any table: a rest not calibrated is refused before a draw is made.
    inputs = [
        (rest, prediction_inputs(priced_fit, priced_calibration, resources, measured_in=(measured,), rest=rest))
        for rest in (None, *rests)
    ]
    readings = tuple(PricedRest(rest, prediction_table(given, n_draws=n_draws, seed=seed)) for rest, given in inputs)
    read = {c.name: c.samples for c in (fit, calibration, measured)}  # each once, in this order
    return RestTestReading(
        fit.name,
        calibration.name,
        measured.name,
        resources,
        seed,
        pricing,
        readings,
        kernels_read(list(read.items())),
        rest_units(calibration.samples, rests),
    )


def rest_units(samples: pd.DataFrame, rests: Sequence[str]) -> dict[str, str]:
    """Rest -> the one operation whose cost it is (`costs.COST_UNITS`), where a rest's config changes
    what that is said as: `jvmcpu` warm (after its warm-up) or cold (a fresh JVM's first operations, no
    warm-up: `ops_per_repeat`), as every sample of it in the calibration records. Pure."""
    units = {r: C.COST_UNITS[r] for r in rests if r in C.COST_UNITS}
    if "jvmcpu" in units:
        ran = samples[samples["benchmark"] == "jvmcpu"]
        # A campaign from before ops_per_repeat existed ran timed repeats.
        ops = ran["ops_per_repeat"].fillna(0) if "ops_per_repeat" in ran.columns else pd.Series(0, index=ran.index)
        ways = {jvmcpu.warmth(w, n) for w, n in zip(ran["warmup_s"], ops)}
        if ways in ({"warm"}, {"cold"}):  # said only where every sample ran one way
            units["jvmcpu"] = (C.JVMCPU_COLD if ways == {"cold"} else C.JVMCPU_WARM).format(units["jvmcpu"])
    return units


def rest_tests(
    tests: Sequence[RestTestDirs],
    campaigns: Sequence[tuple[Campaign, Campaign, Campaign]],
    fields: RestFields = RestFields(),
    *,
    n_draws: int = cm.DEFAULT_DRAWS,
) -> list[RestTestReading]:
    """Each record of `rest_tests` read (`rest_test`) from its campaigns (fit, calibration, measured).
    A calibration without a rest's cost is refused as `vbench predict --rest` refuses it, but naming
    the record's `rests` field (`fields`, as the caller was given them): the command's advice, to
    predict without `--rest`, is the record's to take that rest out."""
    readings = []
    for i, (t, (fit, calibration, measured)) in enumerate(zip(tests, campaigns)):
        try:
            readings.append(
                rest_test(fit, calibration, measured, t.resources, t.seed, t.rests, t.pricing, n_draws=n_draws)
            )
        except RestNotCalibrated as exc:
            raise ParamsError(
                fields.at(i, "rests"),
                f"prices the rest at {exc.rest}'s cost, but in {exc.field} {exc.reason}: calibrate it there, or take "
                "it out of the rests",
            ) from None
    return readings


def rest_frame(tests: Sequence[RestTestReading]) -> pd.DataFrame:
    """The tables' rows for generated/costs-rest.csv: per test (`test`, from 1), rest ("native": at
    native's) and measured row, the predicted ratio and its interval, the prediction interval of a
    measurement, the measured ratio with its interval and blocks, the error, the rest's share of native
    time and the cost it is priced at; with the campaigns, the seed and the pricing."""
    records = []
    for number, test in enumerate(tests, start=1):
        for reading in test.readings:
            for r in reading.rows:
                term = _rest_term(r, reading.rest)
                records.append(
                    {
                        "test": number,
                        "rest": reading.rest or "native",
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
                        "blocks": r.blocks,
                        "error": row_error(r),
                        "rest_share": term.time_share if term is not None else None,
                        "rest_cost": term.cost_ratio if term is not None else None,
                        "fit_campaign": test.fit_name,
                        "calibration_campaign": test.calibration_name,
                        "measured_campaign": test.measured_name,
                        "resources": ";".join(test.resources),
                        "seed": test.seed,
                        "pricing": test.pricing,
                    }
                )
    return pd.DataFrame(records)


def _rest_term(row: PredictedJob, rest: str | None) -> cm.ResourceTerm | None:
    """The row's term of the rest priced at `rest`'s cost (`cost_model.REST_TERM`); None at native's."""
    if rest is None:
        return None
    name = cm.REST_TERM.format(rest)
    return next(t for t in row.attribution.terms if t.resource == name)


def _holds(row: PredictedJob) -> bool:
    """Whether the row's prediction interval of a measurement holds its measured ratio, as
    `accuracy` counts it."""
    acc = accuracy([row])
    return acc is not None and acc.covered == 1


# --- the text ---------------------------------------------------------------------------------------


def rest_label(rest: str | None) -> str:
    """How a reading is said: "at native's", "at CPU's cost"."""
    return "at native's" if rest is None else f"at {tex_escape(resource_name(rest))}'s cost"


def _rest_unit(rest: str, units: Mapping[str, str]) -> str:
    """ "CPU (an event of sysbench's ...)": the resource and the one operation whose cost it is, unless
    that only repeats the resource's name ("process creation", "a process creation"). Pure."""
    name, unit = resource_name(rest), units.get(rest)
    said = unit and unit.lower() not in (f"a {name}".lower(), f"an {name}".lower())
    return tex_escape(name) + (f" ({unit})" if said else "")


def _term_clause(term: cm.ResourceTerm, first: bool = False) -> str:
    """ "loopback RPCs +210 % (15 % of it)": a term's extra time as a share of native time and, in
    parentheses, its part of the predicted overhead, as `vbench predict` prints it ("of it" said with
    the `first` term only)."""
    name = "the rest" if term.resource.startswith(cm.REST_TERM.format("")) else tex_escape(resource_name(term.resource))
    of_it = " of it" if first else ""
    part = f" ({C.pct_text(term.share)}{of_it})" if term.share is not None and math.isfinite(term.share) else ""
    return f"{name} {C.pct_text(term.extra_time, signed=True)}{part}"


def _prediction_clause(reading: PricedRest, row: PredictedJob) -> str:
    """One reading's prediction of a row: the ratio, its error and whether its prediction interval
    holds the measured ratio; with the rest priced, the cost it is priced at."""
    said = rf"{rest_label(reading.rest)}"
    cost = reading.rest_cost(row.platform)
    if cost is not None:
        said += rf" ($\times${C.interval_cell(cost)} native's there)"
    error = row_error(row)
    said += rf", {C.interval_cell(row.predicted)}"
    if error is not None:
        said += rf" (error {C.pct_text(error, signed=True)})"
    if row.measurement is not None and row.measurement.bounded:
        held = "holds" if _holds(row) else "does not hold"
        said += rf", whose prediction interval {pi_cell(row.measurement)} {held} the measured ratio"
    return said


def _row_sentences(test: RestTestReading, rows: tuple[PredictedJob, ...]) -> str:
    """A measured step's sentences: its measured ratio, its shares and rest, each reading's prediction,
    and with each rest priced, the terms its predicted overhead splits into."""
    first = rows[0]
    job = tex_escape(job_name(first.job))
    blocks = f" over {count(first.blocks, 'block')}" if first.blocks is not None else ""
    shares = [t for t in first.attribution.terms if t.resource in test.resources]
    # The share `cost_model.attribute` gives the rest term, from the same fitted shares.
    rest_share = float(cm.rest_share(np.array([t.time_share for t in shares])))
    text = (
        rf"On {C.platform_cell(first.platform)}, {job} measured {C.interval_cell(first.measured)}{blocks}. "
        rf"Its shares of native time that scale with {C.resources_text([t.resource for t in shares])} are "
        rf"{and_list([C.pct_text(t.time_share) for t in shares])}, so its rest is {C.pct_text(rest_share)} of its "
        rf"native time. Predicted with the rest "
        + "; with it ".join(_prediction_clause(reading, row) for reading, row in zip(test.readings, rows))
        + "."
    )
    for reading, row in zip(test.readings[1:], rows[1:]):
        extra = row.attribution.predicted - 1
        text += (
            rf" With the rest {rest_label(reading.rest)}, the predicted extra time, "
            rf"{C.pct_text(extra, signed=True)} of native time, splits into "
            rf"{and_list([_term_clause(t, first=i == 0) for i, t in enumerate(row.attribution.terms)])}."
        )
    return text


def record_paragraph(test: RestTestReading, number: int) -> str:
    """A test's paragraph: what was fitted on what and predicted for which campaign, judged against
    which campaign's blocks; what the rest is and what it is priced at; then per measured step its
    numbers in each reading; the platforms predicted but not measured."""
    opening = (
        rf"Table~\ref{{{table_label(number)}}}: each step's shares of native time that scale with "
        rf"{C.cost_units_text(test.resources)}, fitted on campaign \texttt{{{tex_escape(test.fit_name)}}}, predict "
        rf"each platform of campaign \texttt{{{tex_escape(test.calibration_name)}}} from its costs (seed {test.seed}, "
        rf"priced {PRICING_WORDS[test.pricing]}), each step judged against the ratio campaign "
        rf"\texttt{{{tex_escape(test.measured_name)}}} measured over its blocks."
    )
    rests = [_rest_unit(r, test.units) for r in test.rests]
    priced = (
        rf"The rest of a step's native time, 1 less its fitted shares (at least 0), is what no fitted resource "
        rf"explains; read alone the model prices it at native's cost, where it adds nothing, and beside that the "
        rf"table prices it at the cost of {and_list(rests)} over native's, as campaign "
        rf"\texttt{{{tex_escape(test.calibration_name)}}} measured it on each platform"
        + (", each in a column group of its own." if len(rests) > 1 else ".")
    )
    kernels = kernels_text(test.kernels)
    steps = " ".join(_row_sentences(test, rows) for rows in test.rows())
    left = test.unmeasured_platforms
    unmeasured = (
        f" {and_list([C.platform_cell(p) for p in left])}, which campaign \\texttt{{{tex_escape(test.measured_name)}}} "
        f"did not time, {'is' if len(left) == 1 else 'are'} predicted but not judged here."
        if left
        else ""
    )
    return " ".join(t for t in (opening, priced, kernels, steps) if t) + unmeasured


#: The subsection's opening: what the rest is and why a platform's own cost may price it.
METHOD_SENTENCE = (
    r"The model prices the native time its fitted resources explain: each resource's share of it times the "
    r"platform's cost of that resource over native's, less 1. The rest of a step's native time, 1 less the sum "
    r"$S$ of its fitted shares (at least 0), it takes to run at native's speed on every platform. A platform that "
    r"slows every instruction, as QEMU does when it emulates the guest's processor in software, slows that rest "
    r"too. Priced at the cost $x$ over native's of a resource whose benchmark is such work, the rest adds "
    r"$\max(0, 1 - S)(x - 1)$ to the predicted ratio, in the estimate and in every bootstrap draw. The shares are "
    r"not refitted: the fit's planted configurations are taken to run that resource at native's cost (assumed, "
    r"not measured: no planted level slows it by design)."
)


def rest_tex(tests: Sequence[RestTestReading]) -> list[str]:
    """The subsection's lines: what the rest is, then a paragraph and a table per test, in order."""
    lines = [rf"\subsection{{{TITLE}}}\label{{{LABEL}}}", METHOD_SENTENCE]
    for number, test in enumerate(tests, start=1):
        lines += ["", record_paragraph(test, number), "", rf"\input{{generated/tables/{table_name(number)}.tex}}"]
    return lines


# --- the table --------------------------------------------------------------------------------------


def _measured_cell(row: PredictedJob) -> str:
    blocks = f" ({row.blocks})" if row.blocks is not None else ""
    return rf"{C.interval_cell(row.measured)}{blocks}"


def _column_group(reading: PricedRest) -> str:
    """A reading's column group heading: "Rest at native's", "Rest at CPU's cost"."""
    return f"Rest {rest_label(reading.rest)}"


def table_rest(test: RestTestReading, number: int) -> str:
    """Per platform (a heading row each) and measured step: the measured ratio with its interval and
    blocks, then per reading (the rest at native's, then at each rest's cost) the prediction with its
    interval, the prediction interval of a measurement and the error."""
    level = round(100 * test.readings[0].table.conf)
    body, rules = grouped_rows(test.rows(), _measured_cell)
    groups, rules_under = group_headings([_column_group(r) for r in test.readings])
    # "[95 %]" without "CI": a third column group (two rests) then still fits within the text width.
    header = ["Step", rf"Measured [{level}\,\%] (b)"]
    for _ in test.readings:
        header += [rf"Predicted [{level}\,\%]", rf"PI [{level}\,\%]", r"Error (\%)"]
    rests = and_list([tex_escape(resource_name(r)) for r in test.rests])
    caption = (
        rf"Each step's job time ratio to native measured by campaign \texttt{{{tex_escape(test.measured_name)}}} over "
        rf"its blocks, and predicted from campaign \texttt{{{tex_escape(test.calibration_name)}}}'s costs by shares "
        rf"fitted on campaign \texttt{{{tex_escape(test.fit_name)}}}, priced {PRICING_WORDS[test.pricing]}, with "
        rf"the rest of native time priced at native's cost and at {rests}'s, with {level}\,\% intervals."
    )
    in_cpu = (
        r" Priced in the machine's CPU, each fitted resource's time per operation is multiplied by the CPUs its "
        r"run kept busy; the rest's resource is read as measured."
        if test.pricing == "cpu"
        else ""
    )
    notes = [
        r"Measured (b): the ratio over the campaign's blocks (b), its interval a Student-$t$ on their number less "
        r"one. Rest: 1 less the step's fitted shares (at least 0), the native time no fitted resource explains, "
        rf"priced at native's cost (adding nothing) or at the named resource's cost over native's on the platform, "
        rf"as campaign {campaign_code(test.calibration_name)} measured it.{in_cpu}",
        r"PI: the prediction interval of a ratio measured over as many blocks, the step's run-to-run noise on the "
        r"fit's configurations added to the predicted ratio's interval. Error: measured / predicted $-$ 1 "
        r"(positive: the platform took more time than the model predicts).",
        rf"Fitted per step on campaign {campaign_code(test.fit_name)}: the shares of native time that scale with "
        rf"{C.resources_text(test.resources)}; its configurations' costs from its own calibration. Calibrated: "
        rf"campaign {campaign_code(test.calibration_name)}; no platform of it is in the fit.",
        rf"Intervals: {level}\,\% percentile intervals of {test.readings[0].table.n_draws} bootstrap draws seeded "
        rf"{test.seed} (prediction).",
    ]
    return render(
        Grid(
            header,
            body,
            "l" + "c" * (len(header) - 1),
            caption,
            table_label(number),
            notes,
            # As the pooled tests' tables: intervals in most columns, narrower gaps keep it within the text width.
            size=r"\scriptsize\setlength{\tabcolsep}{3pt}",
            rules_after=tuple(rules),
            above=rf"& & {groups} \\ {rules_under}",
        )
    )


def build_note(tests: Sequence[RestTestReading]) -> list[str]:
    """The build log's lines on it, one per test and reading: each measured row's measured and
    predicted ratio and its error to a tenth of a per cent."""
    lines = []
    for test in tests:
        for reading in test.readings:
            said = "; ".join(
                f"{r.platform} {r.job} measured {r.measured.estimate:.3g}, predicted {r.predicted.estimate:.3g} "
                f"({100 * e:+.1f} %)"
                for r in reading.rows
                if (e := row_error(r)) is not None and math.isfinite(e)
            )
            lines.append(
                f"cost model with the rest priced: fitted on {test.fit_name} ({', '.join(test.resources)}), "
                f"predicted for {test.calibration_name}'s platforms (seed {test.seed}, priced "
                f"{PRICING_WORDS[test.pricing]}) against {test.measured_name}, the rest "
                f"{'at native' if reading.rest is None else 'at ' + reading.rest}: {said or 'no row'}"
            )
    return lines

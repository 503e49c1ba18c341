"""Predicted beside measured (issue #53 item 5): each job a campaign timed, on each of its platforms,
predicted by the cost model from the campaign's own calibration and compared with the ratio it
measured. Pure but for `predicted_beside`, which reads the two campaigns.

Two campaigns as `vbench.stats.campaign.load_campaign` reads them, as `vbench predict CALIBRATION
--fit FIT` reads them (`cost_prediction.prediction_inputs`: the fit's rule 1 decides the resources,
every refusal names a campaign's samples file): FIT, native under planted slowdowns, and
CALIBRATION, a campaign that calibrated native beside its platforms and timed the suite's jobs.

The rows are `cost_model.leave_one_platform_out`'s (`held_out_predictions`): each job's shares
fitted on the fit's configurations alone (no platform of CALIBRATION in any fit), one fit per job
serving every platform, with the measured ratio, the predicted one, the error measured / predicted
- 1 with the interval of both uncertainties, and whether the prediction interval holds the measured
ratio. With the fit campaign's design seed and `vbench predict`'s draws (`cost_prediction.fit_seed`,
`cost_model.DEFAULT_DRAWS`) the predictions are the command's, number for number. Two readers:

* the paper's cost-model section (`vbench.paper.costs.cost_study`), which refuses a calibration
  without a job to compare;
* the statistics stage (`vbench.pipeline.predictions`, notebooks/04-statistics.ipynb), which writes
  `predicted_beside` of the analysed campaign to data/processed/<campaign>/predictions.csv and .json
  and never fails on a campaign that cannot be predicted: the result then says why (`skipped`), as
  the refusal of the engine put it. A fit campaign that cannot be fitted is still refused: that is
  the fit's fault, not the analysed campaign's, and the paper refuses it too. The explore
  notebook's cost split (`vbench.explore.cost_split.predictions`) reads the same rows the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pandas as pd

from vbench.errors import ParamsError
from vbench.samples import is_aa
from vbench.stats import cost_model as cm
from vbench.stats.campaign import Campaign, load_campaign
from vbench.stats.cost_prediction import (
    PredictedJob,
    PredictionInputs,
    PredictionTable,
    fit_seed,
    fitted_jobs,
    interval_json,
    prediction_inputs,
    prediction_json,
    samples_path,
)
from vbench.stats.keys import natural_key, platform_order
from vbench.validate import campaign_name

#: What the statistics stage writes into data/processed/<campaign>/ (`vbench.pipeline.predictions`):
#: `predictions_frame` as CSV, `predictions_json` as JSON.
PREDICTIONS_CSV, PREDICTIONS_JSON = "predictions.csv", "predictions.json"
#: Where the fit campaign is named: one key for the statistics stage, the paper and the explore notebook.
COST_FIT_KEY = "params/paper.yaml: paper.cost_fit_campaign"


@dataclass(frozen=True, eq=False)
class PredictedRows:
    """One campaign's predicted-vs-measured rows, or why it has none."""

    fit_campaign: str
    calibration_campaign: str
    #: Why the campaign was not predicted ("" when it was): the engine's refusal, naming the file.
    skipped: str = ""
    #: `vbench predict`'s table of the rows' (platform, job): every job's fit (Holm over them, as
    #: the command's), each row's prediction and its attribution by resource. None when skipped.
    table: PredictionTable | None = None
    #: The rows, in the table's order (jobs by name, platforms in vbench's order).
    rows: tuple[cm.PredictionRow, ...] = ()


# --- computing ------------------------------------------------------------------------------------


def held_out_predictions(
    inputs: PredictionInputs, *, conf: float, n_draws: int, seed: int
) -> tuple[cm.PredictionRow, ...]:
    """Per job, `leave_one_platform_out` over its design rows and the calibration's measured ratios,
    in the table's order (jobs by name, platforms in vbench's order). The fit's configurations and
    the calibration's platforms share one list of cost vectors, each a ratio to its own campaign's
    baseline; only the job's design rows of the fit go in, so a configuration left out of the fit
    (no cost of a resource) is not taken for a platform to predict."""
    fit_names = {v.platform for v in inputs.fit_costs}
    clash = sorted(fit_names & {v.platform for v in inputs.costs}, key=natural_key)
    if clash:
        raise ParamsError(
            str(inputs.calibration_path / "samples.jsonl"),
            f"the calibration's platforms {clash} are also configurations of the fit campaign "
            f"{inputs.fit_path}: a prediction would not know which cost vector is whose",
        )
    costs = (*inputs.fit_costs, *inputs.costs)
    out: list[cm.PredictionRow] = []
    for job, design in inputs.designs:
        # The A/A copy (native measured again as a configuration) is a check, not a platform to predict.
        measured = [r for r in inputs.measured if r.job == job and not is_aa(r.platform)]
        if not measured:
            continue  # the calibration did not time this job: nothing to hold a prediction against
        fitted = [r for r in inputs.fit_ratios if r.job == job and r.platform in design]
        out += cm.leave_one_platform_out(
            costs,
            [*fitted, *measured],
            design=design,
            resources=inputs.resources,
            conf=conf,
            n_draws=n_draws,
            seed=seed,
        )
    jobs = [j for j, _ in inputs.designs]
    return tuple(sorted(out, key=lambda r: (jobs.index(r.job), platform_order(r.platform))))


def job_fits(
    inputs: PredictionInputs, predictions: Sequence[cm.PredictionRow], *, conf: float, n_draws: int, seed: int
) -> tuple[cm.JobFit, ...]:
    """Every job's shares, in the fit's order. A job the calibration timed has them in its rows:
    fitted on the fit's configurations alone, no platform held out is in them, so they are the fit
    `vbench predict` makes of the same rows with the same seed and draws. Any other job is fitted
    here, once: the lack-of-fit test is adjusted over every job the fit fitted, as the command's."""
    held = {p.job: p.fit for p in predictions}
    return tuple(
        held[job]
        if job in held
        else cm.fit_job(
            job,
            inputs.fit_costs,
            inputs.fit_ratios,
            design=rows,
            resources=inputs.resources,
            conf=conf,
            n_draws=n_draws,
            seed=seed,
        )
        for job, rows in inputs.designs
    )


def predicted_rows(
    fit: Campaign,
    calibration: Campaign,
    *,
    conf: float = cm.DEFAULT_CONF,
    n_draws: int = cm.DEFAULT_DRAWS,
    seed: int | None = None,
) -> PredictedRows:
    """`calibration`'s timed jobs on each of its platforms (not the A/A copy) predicted from its own
    calibration by shares fitted on `fit`: what `vbench predict CALIBRATION --fit FIT` predicts
    (`seed`: by default the fit's design seed, as the command takes it), beside what was measured.

    Skipped, saying why, where `calibration` cannot be predicted: the engine's refusal naming its
    samples file (no native calibrated, a fitted resource not calibrated, several cells of a job),
    or no job of the fit timed beside its baseline. A refusal naming the fit campaign is raised."""
    seed = fit_seed(fit.path) if seed is None else seed
    try:
        inputs = prediction_inputs(fit, calibration, conf=conf)
        rows = held_out_predictions(inputs, conf=conf, n_draws=n_draws, seed=seed)
    except ParamsError as exc:
        if exc.field != samples_path(calibration):
            raise
        return PredictedRows(fit.name, calibration.name, skipped=str(exc))
    if not rows:
        fitted = ", ".join(job for job, _ in inputs.designs)
        return PredictedRows(
            fit.name,
            calibration.name,
            skipped=f"{samples_path(calibration)}: timed none of the jobs the fit fitted ({fitted}) in two "
            f"blocks or more beside {inputs.calibration_baseline}: no measured ratio to compare a prediction with",
        )
    fits = fitted_jobs(job_fits(inputs, rows, conf=conf, n_draws=n_draws, seed=seed))
    costs = {v.platform: v for v in inputs.costs}
    measured = {(m.job, m.platform): m for m in inputs.measured}
    # Each row's attribution splits the prediction it shows: its own fit, not a second one.
    predicted = tuple(
        PredictedJob(
            r.platform,
            r.job,
            r.predicted,
            cm.attribute(r.fit, costs[r.platform], measured[r.job, r.platform]),
            r.measured,
            measurement=r.measurement,
            blocks=cm.measured_blocks(measured[r.job, r.platform].ratio),
        )
        for r in rows
    )
    table = PredictionTable(inputs, fits, predicted, conf, n_draws, seed)
    return PredictedRows(fit.name, calibration.name, table=table, rows=rows)


def predicted_beside(raw: Path, fit_campaign: str | None, *, n_draws: int = cm.DEFAULT_DRAWS) -> PredictedRows:
    """`predicted_rows` of the campaign at `raw` by the fit campaign `fit_campaign` names in the same
    data directory (data/raw/<fit_campaign>). Skipped, saying why, where no fit is named (None or
    empty) or the one named is not measured there: a campaign of one's own under another data
    directory has no committed fit beside it, and its statistics stand without predictions. A
    name that is a path is refused, naming COST_FIT_KEY; so is a fit that cannot be fitted."""
    raw = Path(raw)
    name = "" if fit_campaign is None else str(fit_campaign).strip()
    if not name:
        return PredictedRows("", raw.name, skipped=f"no fit campaign: {COST_FIT_KEY} is empty")
    fit_dir = raw.parent / campaign_name(name, COST_FIT_KEY)
    if not (fit_dir / "samples.jsonl").is_file():
        return PredictedRows(
            name,
            raw.name,
            skipped=f"{COST_FIT_KEY} names {name!r}, but {fit_dir / 'samples.jsonl'} does not exist "
            f"(measure it with `vbench campaign run {name}`, or copy data/raw/{name} there)",
        )
    return predicted_rows(load_campaign(fit_dir), load_campaign(raw), n_draws=n_draws)


# --- the rows as data -----------------------------------------------------------------------------


def held_out_frame(
    rows: Sequence[cm.PredictionRow], *, fit_campaign: str, calibration_campaign: str, seed: int
) -> pd.DataFrame:
    """The rows as a table: `cost_model.prediction_frame`'s columns (its `error` measured / predicted
    - 1) and the campaigns and seed they came from (the paper's generated/costs.csv)."""
    frame = cm.prediction_frame(rows)
    return frame.assign(fit_campaign=fit_campaign, calibration_campaign=calibration_campaign, seed=seed)


def predictions_frame(result: PredictedRows) -> pd.DataFrame:
    """predictions.csv: `held_out_frame`'s columns, the resources fitted and those rule 1 left out
    (comma-separated) and whether the job's additive form is rejected (lack of fit, Holm over the
    jobs); skipped, one column `skipped` holding why."""
    if result.skipped:
        return pd.DataFrame({"skipped": [result.skipped]})
    table = result.table
    inputs = table.inputs
    rejected = {fj.fit.job for fj in table.fits if fj.rejected}
    frame = held_out_frame(
        result.rows,
        fit_campaign=result.fit_campaign,
        calibration_campaign=result.calibration_campaign,
        seed=table.seed,
    )
    return frame.assign(
        resources=",".join(inputs.resources),
        left_out=",".join(c.resource for c in inputs.left_out),
        additive_form_rejected=frame["job"].isin(rejected),
    )


def predictions_json(result: PredictedRows) -> dict:
    """predictions.json: `vbench predict --json`'s document of the rows' (platform, job) (the fit,
    rule 1, every job's shares, each platform's costs, each prediction with its attribution; no
    phases, no timings), each prediction with its error, agreement and design beside, and the
    resources rule 1 left out; skipped, the campaigns and why."""
    head = {"fit_campaign": result.fit_campaign, "calibration_campaign": result.calibration_campaign}
    if result.skipped:
        return {**head, "skipped": result.skipped}
    doc = prediction_json(result.table)
    del doc["seconds"]
    for entry, row in zip(doc["predictions"], result.rows, strict=True):
        entry.update(
            error=interval_json(row.error),
            agrees=row.agrees,
            inside_prediction=row.inside_prediction,
            design=list(row.design),
        )
    left_out = [c.resource for c in result.table.inputs.left_out]
    return {**head, "skipped": None, "left_out": left_out, **doc}

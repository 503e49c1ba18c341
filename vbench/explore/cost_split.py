"""Where one run's time went, beside where the cost model says it went (issue #53 item 5): per
platform and job of the cost model's suite whose time is a JobHistory job's
(`vbench.stats.cost_model.PHASED_JOBS`: not NNBench's time per operation), one run's JobHistory
phases beside those of the baseline's run of the same block, and the model's attribution of the
predicted overhead by resource, with the rest it leaves unexplained. Pure but for `predictions`,
which reads the fit campaign and predicts as the statistics stage does.

The measured side. A job's phases are cut at JobHistory's own times, so that they add up to the
job's time: *map* from the job's start (its setup included) to the last successful map's end,
*shuffle* from there to the last reducer's end of shuffle, *merge* from there to the last end of a
reducer's merge, *reduce* from there to the job's end (its commit included); map + shuffle is
VMware's map-shuffle phase and merge + reduce its reduce-merge (`vbench.hadoop.history.phase_split`).
Runs recorded before attempts carried their times (vbench a06a173) give the two VMware phases
only, and runs with neither the job's time only; a pair of runs is cut as finely as both allow.
A run recording several jobs of the step (MRBench's repeats) gives each phase's mean over them, as
the statistics average a run's samples. The run shown is the platform's run whose ratio to the
baseline's run of its block (and round) is the median of its blocks, unless one is asked for;
its counterpart is the baseline's run of the same cell and block, of the same round where there is
one. Warm-up runs are left out, as the statistics leave them out.

The model's side is the statistics stage's prediction (`vbench.stats.predicted_rows.predicted_rows`,
`vbench predict CAMPAIGN --fit FIT`'s numbers): each resource's extra time s_r (x_r - 1), a share of
native time, is shown in seconds of the baseline run's job time; what the run took beyond the
predicted ratio times that is the rest the model does not explain in this pair of runs. The
campaign's own measured ratio (paired over every block) and the attribution's unexplained part
(measured / predicted - 1, as `vbench predict` prints it) stand beside it.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from vbench.errors import ParamsError, VbenchError
from vbench.params import load_yaml_section
from vbench.samples import is_aa
from vbench.stats import cost_model as cm
from vbench.stats.keys import natural_key
from vbench.stats.predicted_rows import PredictedRows, predicted_beside
from vbench.stats.records import Interval
from vbench.stats.tidy import value_number, value_text
from vbench.stats.warmup import measured_samples

#: The finest cut of a job's time, then VMware's two phases, then the job alone: each adds up to the job.
PHASES = ("map", "shuffle", "merge", "reduce")
TWO_PHASES = ("map_shuffle", "reduce_merge")
JOB_ONLY = ("job",)
#: Each cut -> how its parts make the next coarser cut's.
_COARSER = {
    PHASES: (TWO_PHASES, {"map_shuffle": ("map", "shuffle"), "reduce_merge": ("merge", "reduce")}),
    TWO_PHASES: (JOB_ONLY, {"job": TWO_PHASES}),
}
#: Where the fit campaign is set: the statistics stage's and the paper's key, beside data/.
PAPER_PARAMS = Path("params") / "paper.yaml"
#: The platform and job the notebook shows when its parameters name none the campaign has.
DEFAULT_PLATFORM, DEFAULT_JOB = "gvisor", "terasort"


@dataclass(frozen=True)
class RunPhases:
    """One run's job as JobHistory timed it: its time and the phases it adds up to, in seconds."""

    run_id: str
    cell: str
    block: str
    round: str
    job_s: float
    #: (phase, seconds) in order: PHASES, TWO_PHASES or JOB_ONLY; they add up to job_s.
    phases: tuple[tuple[str, float], ...]
    #: How many JobHistory jobs of the step the run recorded (their mean is shown).
    jobs: int = 1

    @property
    def cut(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.phases)

    def seconds(self, phase: str) -> float:
        return dict(self.phases)[phase]

    def coarsened(self, cut: tuple[str, ...]) -> RunPhases:
        """The same run cut as coarsely as `cut` (PHASES -> TWO_PHASES -> JOB_ONLY)."""
        out = self
        while out.cut != cut:
            if out.cut not in _COARSER:
                raise ParamsError("cut", f"{out.cut} cannot be made {cut}")
            coarser, parts = _COARSER[out.cut]
            have = dict(out.phases)
            phases = tuple((p, float(sum(have[q] for q in parts[p]))) for p in coarser)
            out = RunPhases(out.run_id, out.cell, out.block, out.round, out.job_s, phases, out.jobs)
        return out


@dataclass(frozen=True)
class ModelView:
    """What the cost model says of one platform and job (the statistics stage's prediction)."""

    #: The predicted ratio to the baseline, with its interval.
    predicted: Interval
    #: The campaign's measured ratio (paired over its blocks), with its interval.
    measured: Interval | None
    #: Each resource's cost ratio, share of native time and extra time (`cost_model.attribute`).
    attribution: cm.Attribution
    #: The fit campaign's name.
    fit: str = ""
    #: The job's additive form is rejected by the lack-of-fit test (Holm over the jobs).
    rejected: bool = False
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CostSplit:
    """One platform's job: a run and its baseline counterpart of the same block, phase by phase,
    and the model's split of the predicted overhead by resource, in seconds of that counterpart."""

    platform: str
    job: str
    baseline: str
    run: RunPhases
    native: RunPhases
    #: How the run was chosen ("median of N blocks", "asked for").
    chosen: str
    model: ModelView | None = None
    #: Why there is no model (empty when there is one).
    model_note: str = ""
    notes: tuple[str, ...] = ()

    @property
    def run_ratio(self) -> float:
        """This pair's ratio: the run's job time over its counterpart's."""
        return self.run.job_s / self.native.job_s

    def extra_s(self) -> tuple[tuple[str, float], ...]:
        """(resource, seconds): each resource's predicted extra time, in the counterpart's seconds."""
        if self.model is None:
            return ()
        return tuple((t.resource, self.native.job_s * t.extra_time) for t in self.model.attribution.terms)

    @property
    def predicted_s(self) -> float | None:
        """The job time the model predicts from the counterpart's: its time x the predicted ratio."""
        return None if self.model is None else self.native.job_s * self.model.attribution.predicted

    @property
    def rest_s(self) -> float | None:
        """What the run took beyond the model's prediction (negative: less than predicted)."""
        p = self.predicted_s
        return None if p is None else self.run.job_s - p

    @property
    def unexplained(self) -> float | None:
        """The campaign's measured / predicted - 1, as `vbench predict` prints it (over every block)."""
        u = None if self.model is None else self.model.attribution.unexplained_log
        return None if u is None else math.exp(u) - 1


# --- the measured side ------------------------------------------------------------------------------


def job_of(name: str) -> cm.Job:
    """The suite's job called `name` whose time JobHistory's phases split (`cost_model.PHASED_JOBS`),
    refused naming those there are (NNBench's time per operation has no phases)."""
    for job in cm.PHASED_JOBS:
        if job.name == name:
            return job
    there = ", ".join(j.name for j in cm.PHASED_JOBS)
    raise ParamsError("job", f"{name!r} is not a job of the cost model whose time has phases ({there})")


def step_of(job: cm.Job) -> str:
    """The benchmark step that submits `job`: its job time's metric without `.job_time`."""
    if job.step is None:
        raise ParamsError("job", f"{job.name}'s time ({job.metric}) is not a JobHistory job's: no phases")
    return job.step


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    if name in frame.columns:
        return frame[name]
    return pd.Series([None] * len(frame), index=frame.index, dtype=object)


def _timed_phases(job_row: pd.Series, attempts: pd.DataFrame) -> tuple[tuple[str, float], ...] | None:
    """One JobHistory job cut at its times into PHASES, or None when its samples lack them."""
    start, finish = value_number(job_row.get("job_start_ms")), value_number(job_row.get("job_finish_ms"))
    raw = _column(attempts, "raw_metric").astype(str)
    maps = attempts[raw == "map_attempt_time"]
    map_ends = [x for x in map(value_number, _column(maps, "finish_ms")) if x is not None]
    if start is None or finish is None or not map_ends:
        return None
    reduces = attempts[raw == "reduce_attempt_time"]
    merged = attempts[raw == "reducer_merge_time"]
    merge_s = dict(zip(_column(merged, "attempt_id").astype(str), merged["value"].astype(float)))
    shuffle_ends, merge_ends = [], []
    for aid, shuffle_end in zip(_column(reduces, "attempt_id").astype(str), _column(reduces, "shuffle_finish_ms")):
        end = value_number(shuffle_end)
        if end is None:
            continue
        shuffle_ends.append(end)
        merge_ends.append(end + 1000 * merge_s[aid] if aid in merge_s else end)
    if len(reduces) and not shuffle_ends:
        return None  # reducers without their phases' times
    # Each cut no earlier than the one before and no later than the job's end.
    map_end = min(max(max(map_ends), start), finish)
    shuffle_end = min(max(max(shuffle_ends, default=map_end), map_end), finish)
    merge_end = min(max(max(merge_ends, default=shuffle_end), shuffle_end), finish)
    job_s = float(job_row["value"])
    cuts = [(map_end - start) / 1000, (shuffle_end - map_end) / 1000, (merge_end - shuffle_end) / 1000]
    # The last phase closes on the job's own time, so the parts add up to it exactly.
    return tuple(zip(PHASES, [*cuts, job_s - sum(cuts)]))


def _two_phases(rows: pd.DataFrame, step: str, job_id: str) -> tuple[tuple[str, float], ...] | None:
    """VMware's map-shuffle and reduce-merge of one job, as recorded; None when it lacks them."""
    if job_id:
        rows = rows[_column(rows, "job_id").astype(str) == job_id]
    values = {}
    for phase in TWO_PHASES:
        v = rows.loc[rows["metric"] == f"{step}.{phase}_time", "value"]
        if len(v) != 1:
            return None
        values[phase] = float(v.iloc[0])
    return tuple(values.items())


def run_phases(samples: pd.DataFrame, run_id: str, job: cm.Job) -> RunPhases | None:
    """Run `run_id`'s `job` (tidy samples, as `load_campaign` names them) cut as finely as its
    samples allow; None when the run did not time the job."""
    step = step_of(job)
    run = samples[(samples["run_id"].astype(str) == str(run_id)) & (samples["benchmark"] == job.benchmark)]
    jobs = run[run["metric"] == job.metric]
    if jobs.empty:
        return None
    mine = run[_column(run, "step").astype(str) == step]
    cuts = []
    for _, j in jobs.iterrows():
        job_id = value_text(j.get("job_id"))
        attempts = mine[_column(mine, "job_id").astype(str) == job_id] if job_id else mine
        if not job_id and len(jobs) > 1:
            attempts = mine.iloc[0:0]  # whose attempts are whose is unknown
        phases = _timed_phases(j, attempts) or _two_phases(mine, step, job_id) or (("job", float(j["value"])),)
        cuts.append(phases)
    cut = min((tuple(p for p, _ in c) for c in cuts), key=len)
    per_job = [RunPhases("", "", "", "", sum(v for _, v in c), c).coarsened(cut) for c in cuts]
    phases = tuple((p, float(statistics.fmean(r.seconds(p) for r in per_job))) for p in cut)
    first = jobs.iloc[0]
    return RunPhases(
        str(run_id),
        value_text(first.get("size")),
        value_text(first.get("block")),
        value_text(first.get("round")),
        float(jobs["value"].astype(float).mean()),
        phases,
        len(jobs),
    )


def _runs(samples: pd.DataFrame, job: cm.Job) -> pd.DataFrame:
    """One row per compared run of `job`: run_id, platform, cell, block, round, value, start."""
    rows = measured_samples(samples)
    rows = rows[(rows["benchmark"] == job.benchmark) & (rows["metric"] == job.metric)]
    rows = rows[rows["run_id"].astype(str) != ""]  # a sample of no known run pairs with nothing
    if rows.empty:
        return pd.DataFrame(columns=["run_id", "platform", "cell", "block", "round", "value", "start"])
    rows = rows.assign(
        cell=_column(rows, "size").map(value_text),
        block=_column(rows, "block").map(value_text),
        round=_column(rows, "round").map(value_text),
        start=_column(rows, "timestamp").astype(float),
        value=rows["value"].astype(float),
    )
    runs = rows.groupby("run_id", sort=False).agg(
        platform=("platform", "first"),
        cell=("cell", "first"),
        block=("block", "first"),
        round=("round", "first"),
        value=("value", "mean"),
        start=("start", "min"),
    )
    return runs.reset_index().sort_values("start", kind="stable").reset_index(drop=True)


def _counterpart(run: pd.Series, natives: pd.DataFrame) -> pd.Series | None:
    """The baseline's run of `run`'s cell and block, of its round where there is one, else the block's first."""
    same = natives[(natives["cell"] == run["cell"]) & (natives["block"] == run["block"]) & (natives["block"] != "")]
    if same.empty:
        return None
    rounds = same[same["round"] == run["round"]]
    return (rounds if len(rounds) else same).iloc[0]


def run_pairs(samples: pd.DataFrame, platform: str, job: cm.Job, baseline: str) -> list[tuple[str, str, float]]:
    """(run, the baseline's run of its block, ratio of their job times) for every compared run of
    `platform` that has a counterpart, in run order."""
    runs = _runs(samples, job)
    natives = runs[runs["platform"] == baseline]
    out = []
    for _, r in runs[runs["platform"] == platform].iterrows():
        n = _counterpart(r, natives)
        if n is not None and n["value"] > 0:
            out.append((str(r["run_id"]), str(n["run_id"]), float(r["value"] / n["value"])))
    return out


def timed_pairs(samples: pd.DataFrame, baseline: str, jobs: Sequence[cm.Job] = cm.PHASED_JOBS) -> list[tuple[str, str]]:
    """(platform, job name) of every platform beside `baseline` (not its A/A copy) whose run of a
    job of the suite has a counterpart of the baseline in its block: what can be split."""
    platforms = sorted({str(p) for p in samples["platform"]}, key=natural_key) if len(samples) else []
    return [
        (p, job.name)
        for p in platforms
        if p != baseline and not is_aa(p)
        for job in jobs
        if run_pairs(samples, p, job, baseline)
    ]


def choose(
    pairs: Sequence[tuple[str, str]], platform: str | None = None, job: str | None = None
) -> tuple[str, str, tuple[str, ...]]:
    """The (platform, job) to show among `pairs` (`timed_pairs`). Not named (None): DEFAULT_PLATFORM
    (gVisor) where the campaign has it, else its first platform, and DEFAULT_JOB (TeraSort) where
    that platform ran it, else its first job. Named but not there: the same, saying so in the notes."""
    if not pairs:
        raise ParamsError("pairs", "no platform and job to choose from")
    notes = []
    platforms = list(dict.fromkeys(p for p, _ in pairs))
    wanted = platform if platform is not None else DEFAULT_PLATFORM
    chosen = wanted if wanted in platforms else platforms[0]
    if platform is not None and platform != chosen:
        notes.append(
            f"platform {platform!r} has no run to split here: showing {chosen!r} (choices: {', '.join(platforms)})"
        )
    jobs = [j for p, j in pairs if p == chosen]
    wanted = job if job is not None else DEFAULT_JOB
    job_name = wanted if wanted in jobs else jobs[0]
    if job is not None and job != job_name:
        notes.append(f"job {job!r} has no run of {chosen} to split: showing {job_name!r} (choices: {', '.join(jobs)})")
    return chosen, job_name, tuple(notes)


def cost_split(
    samples: pd.DataFrame,
    platform: str,
    job: cm.Job | str,
    baseline: str,
    model: ModelView | None = None,
    model_note: str = "",
    run_id: str | None = None,
) -> CostSplit | None:
    """`platform`'s `job`: a run (`run_id`, else the median of its blocks' pairs) beside the
    baseline's run of the same block, both cut as finely as both allow, and `model`'s split of
    the predicted overhead (None, with `model_note` saying why, when there is none). None when no
    run of the platform has a counterpart."""
    job = job_of(job) if isinstance(job, str) else job
    pairs = run_pairs(samples, platform, job, baseline)
    if not pairs:
        return None
    notes = []
    asked = [p for p in pairs if p[0] == run_id] if run_id is not None else []
    if asked:
        pick, chosen = asked[0], "asked for"
    else:
        if run_id is not None:
            notes.append(f"run {run_id!r} is no run of {platform}'s {job.name} with a {baseline} run in its block")
        ordered = sorted(pairs, key=lambda p: p[2])
        pick = ordered[(len(ordered) - 1) // 2]
        chosen = f"the median of its {len(pairs)} block pair{'s' if len(pairs) > 1 else ''}" + (
            " (the lower of the middle two)" if len(pairs) % 2 == 0 else ""
        )
    run, native = run_phases(samples, pick[0], job), run_phases(samples, pick[1], job)
    cut = min((run.cut, native.cut), key=len)
    if cut != PHASES:
        notes.append(
            "these runs recorded VMware's two phases only (no task times: before vbench a06a173)"
            if cut == TWO_PHASES
            else "these runs recorded no JobHistory phase: the job's time only"
        )
    if model is None and not model_note:
        model_note = "no model given"
    return CostSplit(
        platform,
        job.name,
        baseline,
        run.coarsened(cut),
        native.coarsened(cut),
        chosen,
        model,
        "" if model is not None else model_note,
        tuple(notes),
    )


def cost_splits(
    samples: pd.DataFrame,
    baseline: str,
    models: Mapping[tuple[str, str], ModelView] | None = None,
    model_note: str = "",
) -> tuple[CostSplit, ...]:
    """`cost_split` of every (platform, job) of `timed_pairs`, each with its model where `models`
    ((platform, job) -> ModelView) has one, else `model_note` or why not."""
    out = []
    models = models or {}
    for platform, job in timed_pairs(samples, baseline):
        model = models.get((platform, job))
        note = model_note or f"the model predicts no {job} on {platform} (no measured ratio to set it beside)"
        out.append(cost_split(samples, platform, job, baseline, model, "" if model is not None else note))
    return tuple(out)


# --- the model's side -------------------------------------------------------------------------------


def model_views(result: PredictedRows) -> dict[tuple[str, str], ModelView]:
    """(platform, job) -> the statistics stage's prediction and attribution of it."""
    if result.table is None:
        return {}
    rejected = {f.fit.job: f.rejected for f in result.table.fits}
    notes = tuple(result.table.inputs.notes)
    return {
        (r.platform, r.job): ModelView(
            r.predicted, r.measured, r.attribution, result.fit_campaign, rejected.get(r.job, False), notes
        )
        for r in result.table.rows
    }


def fit_campaign(data_dir: Path) -> str:
    """params/paper.yaml's `paper.cost_fit_campaign` beside `data_dir` ("" when unset or absent):
    the fit the statistics stage and the paper take."""
    path = Path(data_dir).parent / PAPER_PARAMS
    if not path.is_file():
        return ""
    return str(load_yaml_section(path, "paper").get("cost_fit_campaign") or "").strip()


def _stamp(raw: Path) -> tuple:
    f = raw / "samples.jsonl"
    return (f.stat().st_size, f.stat().st_mtime_ns) if f.is_file() else ()


@lru_cache(maxsize=4)
def _predicted(raw: Path, fit: str, n_draws: int, stamps: tuple) -> PredictedRows:
    # Seconds of fitting and drawing per campaign; the same files give the same rows.
    return predicted_beside(raw, fit, n_draws=n_draws)


def predictions(raw: Path, fit: str, n_draws: int = cm.DEFAULT_DRAWS) -> tuple[dict[tuple[str, str], ModelView], str]:
    """The statistics stage's predictions of the campaign at `raw` with the fit campaign `fit` (a
    name beside it under data/raw/; `predicted_beside`) as `model_views`, and why there are none
    ("" when there are): the stage's reason (no fit named, the fit not there, the campaign not
    predictable), or the refusal of a fit that cannot be fitted."""
    raw = Path(raw).resolve()
    try:
        result = _predicted(raw, fit, n_draws, (_stamp(raw), _stamp(raw.parent / fit)))
    except VbenchError as exc:
        return {}, f"the cost model refuses it: {exc}"
    if result.skipped:
        return {}, result.skipped
    return model_views(result), ""


# --- as tables ----------------------------------------------------------------------------------


def split_parts(split: CostSplit) -> pd.DataFrame:
    """The split as the notebook's table: per bar (the baseline's run, the platform's, the model)
    each part in seconds and as a share of the baseline run's job time; the model's parts with
    their resource's cost ratio and share of native time."""
    n = split.native.job_s
    rows = []
    for who, r in (("baseline", split.native), ("platform", split.run)):
        label = f"{split.baseline if who == 'baseline' else split.platform} run (block {r.block or '-'})"
        rows += [{"bar": label, "part": p, "seconds": s, "of baseline job": s / n} for p, s in r.phases]
        rows.append({"bar": label, "part": "job", "seconds": r.job_s, "of baseline job": r.job_s / n})
    if split.model is not None:
        label = f"model ({split.model.fit})" if split.model.fit else "model"
        rows.append({"bar": label, "part": f"{split.baseline} time", "seconds": n, "of baseline job": 1.0})
        for t, (_, s) in zip(split.model.attribution.terms, split.extra_s()):
            rows.append(
                {
                    "bar": label,
                    "part": f"+ {t.resource}",
                    "seconds": s,
                    "of baseline job": t.extra_time,
                    "cost ratio": t.cost_ratio,
                    "time share": t.time_share,
                }
            )
        rows.append(
            {
                "bar": label,
                "part": "= predicted",
                "seconds": split.predicted_s,
                "of baseline job": split.predicted_s / n,
            }
        )
        rows.append(
            {"bar": label, "part": "+ not explained", "seconds": split.rest_s, "of baseline job": split.rest_s / n}
        )
    columns = ["bar", "part", "seconds", "of baseline job", "cost ratio", "time share"]
    return pd.DataFrame(rows, columns=columns)


def split_table(splits: Sequence[CostSplit]) -> pd.DataFrame:
    """One row per (platform, job): the runs, their job times and ratio, each phase's seconds on
    both, the model's predicted and the campaign's measured ratio, each resource's extra seconds
    and the rest, and the campaign's unexplained part."""
    rows = []
    for s in splits:
        row = {
            "platform": s.platform,
            "job": s.job,
            "run": s.run.run_id,
            "baseline run": s.native.run_id,
            "block": s.run.block,
            "job s": s.run.job_s,
            "baseline job s": s.native.job_s,
            "run ratio": s.run_ratio,
        }
        for p, v in s.run.phases:
            row[f"{p} s"] = v
        for p, v in s.native.phases:
            row[f"baseline {p} s"] = v
        m = s.model
        row["measured ratio"] = m.measured.estimate if m is not None and m.measured is not None else None
        row["predicted ratio"] = m.predicted.estimate if m is not None else None
        for resource, v in s.extra_s():
            row[f"+{resource} s"] = v
        row["not explained s"] = s.rest_s
        row["unexplained"] = s.unexplained
        row["note"] = "; ".join(x for x in (*s.notes, s.model_note) if x)
        rows.append(row)
    return pd.DataFrame(rows)

"""The cost model's subsection on NNBench's barrier (issue #53; sec:costs-barrier, the last of
sec:costs): is gVisor's NNBench open/read, which the levels' fit under-predicts, a miss of the fit's
barrier or of a cost no resource measures?

Three campaigns and the levels' fit (params/paper.yaml's `syscall_levels_campaign`) answer it:
`barrier_campaign` (costs-nnbench-barrier) timed NNBench on native and one other platform at two
barriers in the same blocks, and gives that platform's time per operation over native's at the
longer (`stats.nnbench_barrier.ratio_at`, paired over the blocks); `barrier_fit_campaign`
(costs-fit-barrier) fitted the levels' two shares again with NNBench's barrier long enough for every
level's maps; `barrier_calibration_campaign` (costs-oneday-confirm) calibrated the costs both fits
predict from. The verdict is the refit's design's rule 2, fixed before it ran (`verdict`): the
refit's open/read within WITHIN of the measured ratio says the miss was the first fit's barrier; at
or under the first fit's prediction times 1 + WITHIN says it was not; between, not decided; a refit
whose levels do not move the two costs apart (`levels_apart`) is not read.

Pure: campaigns in, text out.
"""

from __future__ import annotations

from dataclasses import dataclass

from vbench.benchmarks.hadoop import nnbench
from vbench.errors import ParamsError
from vbench.samples import read_records
from vbench.stats import cost_model as cm
from vbench.stats.campaign import LATE_AFTER_BARRIER_S, Campaign
from vbench.stats.cost_prediction import ApartCheck, baseline_of, levels_apart, samples_path
from vbench.stats.nnbench_barrier import StepRatio, ratio_at, steps_of
from vbench.stats.records import Interval
from vbench.wording import count, job_name

from vbench.paper import sandbox as S
from vbench.paper.costs import ATTRIBUTED_PLATFORM, LEVELS_FIT_RESOURCES, cost_study, interval_cell
from vbench.paper.fmt import and_list, tex_escape

NAME = "costs-barrier"
LABEL = f"sec:{NAME}"
TITLE = "NNBench at a barrier every map reaches"
#: The refit's design's band (params/experiments/costs-fit-barrier.yaml, rule 2).
WITHIN = 0.15
#: The step the hypothesis is about, and the one read beside it.
TESTED_OP, BESIDE_OP = "open_read", "create_write"

HOLDS, REJECTED, UNDECIDED, NOT_READ = "holds", "rejected", "not decided", "not read"


@dataclass(frozen=True)
class BarrierFit:
    """A fit of the two system-call levels: the barrier its NNBench waited at, its rule 1, and where
    that holds, its prediction of the platform's NNBench steps from the calibration's costs."""

    name: str
    barrier_s: int
    blocks: int
    apart: ApartCheck
    #: (op, predicted ratio) where rule 1 holds, else ().
    predicted: tuple[tuple[str, Interval], ...] = ()

    def of(self, op: str) -> Interval | None:
        return dict(self.predicted).get(op)


@dataclass(frozen=True)
class BarrierReading:
    measured_name: str
    platform: str
    barrier_s: int
    measured: tuple[StepRatio, ...]
    calibration_name: str
    before: BarrierFit
    refit: BarrierFit
    verdict: str

    def measured_of(self, op: str) -> StepRatio | None:
        return next((m for m in self.measured if m.op == op), None)


def verdict(refit: float | None, before: float | None, measured: float, within: float = WITHIN) -> str:
    """The refit's design's rule 2: `refit`'s predicted ratio within `within` of `measured` (as a
    factor), `HOLDS`; at or under `before` x (1 + within), `REJECTED`; else `UNDECIDED`; no refit
    prediction (its rule 1 failed), `NOT_READ`. Pure."""
    if refit is None:
        return NOT_READ
    if measured / (1 + within) <= refit <= measured * (1 + within):
        return HOLDS
    if before is not None and refit <= before * (1 + within):
        return REJECTED
    return UNDECIDED


def _nnbench_barrier_s(fit: Campaign) -> int:
    """The one barrier the fit's NNBench waited at (its samples' `barrier_s`), refused naming its samples
    file where there is none or more than one."""
    col = nnbench.BARRIER_S
    rows = fit.samples[fit.samples["benchmark"] == nnbench.NAME] if "benchmark" in fit.samples else fit.samples[:0]
    found = sorted({int(v) for v in rows[col].dropna()}) if col in rows.columns else []
    if len(found) != 1:
        raise ParamsError(samples_path(fit), f"NNBench timed at barriers {found}: one barrier per fit is read")
    return found[0]


def barrier_fit(fit: Campaign, calibration: Campaign, platform: str) -> BarrierFit:
    """`fit`'s rule 1 on the levels' two resources and, where it holds, its prediction of `platform`'s
    NNBench steps from `calibration`'s costs (`cost_study`, seeded by the fit's design, as `vbench predict
    CALIBRATION --fit FIT --resources syscall,spawn` reads them)."""
    apart = levels_apart(LEVELS_FIT_RESOURCES, cm.cost_vectors_of(fit.samples, baseline=baseline_of(fit)))
    predicted: tuple[tuple[str, Interval], ...] = ()
    if apart.passes:
        study = cost_study(fit, calibration, resources=LEVELS_FIT_RESOURCES, platform=platform)
        predicted = tuple(
            (r.job.removeprefix(f"{nnbench.NAME}_"), r.predicted)
            for r in study.rows
            if r.platform == platform and r.job.startswith(f"{nnbench.NAME}_")
        )
        if TESTED_OP not in dict(predicted):
            raise ParamsError(
                samples_path(fit),
                f"no NNBench {TESTED_OP} of {platform} predicted: the fit timed none, or the "
                f"calibration {calibration.name} calibrated no {platform}",
            )
    return BarrierFit(fit.name, _nnbench_barrier_s(fit), S.blocks_of(fit.samples), apart, predicted)


def _estimate(iv: Interval | None) -> float | None:
    return None if iv is None else iv.estimate


def barrier_reading(
    measured: Campaign, before: Campaign, refit: Campaign, calibration: Campaign, conf: float = cm.DEFAULT_CONF
) -> BarrierReading:
    """The subsection's content: `measured`'s platform over native per NNBench step at its longest
    barrier, both fits' predictions of it from `calibration`'s costs, and the refit design's verdict.
    Refused, naming `measured`'s samples file, without native, one other platform and a step timed in
    two blocks at its longest barrier."""
    where = samples_path(measured)
    steps = steps_of(read_records(measured.path / "samples.jsonl"))
    others = sorted({s.platform for s in steps} - {cm.DEFAULT_BASELINE})
    if cm.DEFAULT_BASELINE not in {s.platform for s in steps} or len(others) != 1:
        raise ParamsError(
            where, f"NNBench steps with a barrier on native and one other platform are read; found {others}"
        )
    (platform,) = others
    if platform != ATTRIBUTED_PLATFORM:
        raise ParamsError(where, f"NNBench on {platform}: the subsection reads gVisor's ({ATTRIBUTED_PLATFORM})")
    longest = max(s.barrier_s for s in steps)
    ratios = [ratio_at(steps, platform, longest, op, LATE_AFTER_BARRIER_S, conf) for op in nnbench.OPS]
    found = tuple(r for r in ratios if r is not None)
    tested = next((r for r in found if r.op == TESTED_OP), None)
    if tested is None:
        raise ParamsError(where, f"no {TESTED_OP} step timed in two blocks at {longest} s on native and {platform}")
    first = barrier_fit(before, calibration, platform)
    second = barrier_fit(refit, calibration, platform)
    return BarrierReading(
        measured.name,
        platform,
        longest,
        found,
        calibration.name,
        first,
        second,
        verdict(_estimate(second.of(TESTED_OP)), _estimate(first.of(TESTED_OP)), tested.ratio.estimate),
    )


# --- the subsection's text ------------------------------------------------------------------------


def _steps(pairs: list[tuple[str, Interval]]) -> str:
    """ "\\num{3.2} [..] for NNBench create/write and \\num{4.7} [..] for NNBench open/read" """
    return and_list([f"{interval_cell(iv)} for {tex_escape(job_name(f'{nnbench.NAME}_{op}'))}" for op, iv in pairs])


def _fit_predicts(fit: BarrierFit, calibration: str) -> str:
    pairs = [(op, iv) for op in (BESIDE_OP, TESTED_OP) if (iv := fit.of(op)) is not None]
    return rf"{_steps(pairs)} from the costs campaign \texttt{{{tex_escape(calibration)}}} calibrated"


VERDICT_TEXT = {
    HOLDS: "it is: gVisor's open/read miss was the first fit's barrier, not a cost no resource measures.",
    REJECTED: (
        "it is at or under that: the miss is not the first fit's barrier, and what gVisor's open/read pays beyond "
        "the two costs is measured by no calibrated resource."
    ),
    UNDECIDED: "it lies between the two: not decided.",
}


def barrier_tex(reading: BarrierReading, conf: float = cm.DEFAULT_CONF) -> list[str]:
    """The subsection's lines: what was timed, the measured ratios, both fits' predictions and the
    verdict fixed before the refit ran."""
    level = round(100 * conf)
    late = sum(m.late for m in reading.measured)
    timed = sum(m.timed for m in reading.measured)
    blocks = max(m.blocks for m in reading.measured)
    lateness = (
        f"at {reading.barrier_s}\\,s, {late} of {timed} of its steps' last map began more than "
        f"\\num{{{LATE_AFTER_BARRIER_S:g}}}\\,s after the barrier"
        if timed
        else "no step logged when its maps began"
    )
    before, refit = reading.before, reading.refit
    lines = [
        rf"\subsection{{{TITLE}}}\label{{{LABEL}}}",
        " ".join(
            [
                rf"Campaign \texttt{{{tex_escape(reading.measured_name)}}} timed NNBench on native and gVisor at two "
                rf"barriers in the same {count(blocks, 'block')}; {lateness}. There gVisor's time per operation over "
                rf"native's was {_steps([(m.op, m.ratio) for m in reading.measured])} ({level}\,\% intervals, paired "
                "over the blocks).",
                rf"The levels' fit above (campaign \texttt{{{tex_escape(before.name)}}}, its NNBench timed at a "
                rf"{before.barrier_s}\,s barrier) predicts {_fit_predicts(before, reading.calibration_name)}.",
                rf"Campaign \texttt{{{tex_escape(refit.name)}}} fitted the same two shares with NNBench's barrier at "
                rf"{refit.barrier_s}\,s ({count(refit.blocks, 'block')})",
            ]
        ),
    ]
    if reading.verdict == NOT_READ:
        lines[-1] += (
            "; its rule 1 failed (its levels did not move a system call and a process creation apart), so by its "
            "design its fit is not read and the question stays open."
        )
        return lines
    tested = reading.measured_of(TESTED_OP)
    assert tested is not None and before.of(TESTED_OP) is not None
    low, high = tested.ratio.estimate / (1 + WITHIN), tested.ratio.estimate * (1 + WITHIN)
    bar = before.of(TESTED_OP).estimate * (1 + WITHIN)
    lines[-1] += (
        rf" and predicts {_fit_predicts(refit, reading.calibration_name)}. Its design said, before it ran, that "
        rf"an open/read prediction within \num{{{round(100 * WITHIN)}}}\,\% of the measured ratio "
        rf"(\num{{{low:.2f}}} to \num{{{high:.2f}}}) would make the miss the first fit's barrier, and one at or under "
        rf"the first fit's prediction and \num{{{round(100 * WITHIN)}}}\,\% (\num{{{bar:.2f}}}) would not: "
        + VERDICT_TEXT[reading.verdict]
    )
    return lines


def build_note(reading: BarrierReading) -> str:
    """The build log's line on it: the measured open/read, both fits' predictions, the verdict."""
    tested = reading.measured_of(TESTED_OP)
    before, refit = reading.before.of(TESTED_OP), reading.refit.of(TESTED_OP)

    def num(iv: Interval | None) -> str:
        return "not read" if iv is None else f"{iv.estimate:.2f}"

    return (
        f"NNBench's barrier: {reading.platform} open/read at {reading.barrier_s} s in {reading.measured_name} "
        f"{num(tested.ratio if tested else None)}, predicted {num(before)} by {reading.before.name} "
        f"({reading.before.barrier_s} s) and {num(refit)} by {reading.refit.name} ({reading.refit.barrier_s} s) "
        f"from {reading.calibration_name}'s costs: {reading.verdict}"
    )

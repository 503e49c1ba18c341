"""How together the sides of a duet campaign ran (issue #51: every configuration of a round runs
the same Hadoop job at the same moment, started by a barrier, so that whatever slows the machine
slows every side).

A duet cancels drift only as far as its sides really overlapped: a side that started late or ran
on after the others had finished saw another machine. Each job step of each duet gives a
`DuetJob`: its start skew (the spread of the sides' JobHistory start times; every cluster reads one
clock here) and its overlap (the time all sides' jobs ran at once, as a share of the longest
side's job time); `duet_summary` sums one step up over the campaign. Pure: frames in, records out.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

import pandas as pd

from vbench.stats.tidy import value_number
from vbench.stats.warmup import CELL_ID, DUET_GROUP, DUET_PARTNERS, duet_sides, is_duet_frame

#: Epoch ms of a job's start and finish, from JobHistory (vbench.hadoop.history.job_samples).
JOB_START, JOB_FINISH = "job_start_ms", "job_finish_ms"
#: Seconds between the first and last side leaving the barrier (the controller's clock).
RELEASE_SKEW = "duet_release_skew_s"
#: The step the summary quotes when the campaign ran it: the job issue #51 measures precision on.
QUOTED_STEP = "terasort"


@dataclass(frozen=True)
class SideJob:
    """One side's run of a job step: from its first job's start to its last job's finish (MRBench
    submits several jobs in one step, one after the other)."""

    cell_id: str
    start_ms: float
    finish_ms: float

    @property
    def seconds(self) -> float:
        return (self.finish_ms - self.start_ms) / 1000


@dataclass(frozen=True)
class DuetJob:
    """One job step of one duet: the sides that were to run it together and those that did."""

    group: str
    step: str
    #: Every side's cell id (the row's own and its partners'), sorted.
    sides: tuple[str, ...]
    #: The sides that measured the job, in start order.
    ran: tuple[SideJob, ...]
    #: The barrier's release skew the sides recorded (the largest), None when none did.
    release_skew_s: float | None

    @property
    def complete(self) -> bool:
        return len(self.ran) == len(self.sides)

    @property
    def start_skew_s(self) -> float:
        """Latest start minus earliest, in seconds."""
        starts = [s.start_ms for s in self.ran]
        return (max(starts) - min(starts)) / 1000

    @property
    def overlap_share(self) -> float:
        """The time every side's job ran at once, as a share of the longest side's job time."""
        together_ms = min(s.finish_ms for s in self.ran) - max(s.start_ms for s in self.ran)
        longest_ms = max(s.finish_ms - s.start_ms for s in self.ran)
        return max(0.0, together_ms) / longest_ms if longest_ms > 0 else 0.0


@dataclass(frozen=True)
class DuetSummary:
    """One job step's duets over a campaign: how far apart they started, how much they overlapped.
    Only complete duets (every side measured the job) are in the numbers."""

    step: str
    groups: int
    #: Sides per duet (the most common count, should the design have changed between blocks).
    sides: int
    median_skew_s: float
    max_skew_s: float
    median_overlap: float
    min_overlap: float
    #: Median of the barrier's release skew; None when no side recorded one.
    median_release_skew_s: float | None
    #: Duets of this step with a side that measured nothing (a failed side): left out above.
    incomplete: int = 0


def _is_job_time(metric: str, step: str) -> bool:
    # The runner's name (`terasort_job_time`) or the campaign frame's step-qualified one.
    return bool(step) and metric in (f"{step}_job_time", f"{step}.job_time")


def duet_job_rows(samples: pd.DataFrame) -> pd.DataFrame:
    """The measured job-time samples of duet runs that say when their job ran. Pure."""
    if samples is None or samples.empty or not is_duet_frame(samples):
        return pd.DataFrame()
    needed = {"metric", "step", JOB_START, JOB_FINISH}
    if not needed <= set(samples.columns):
        return pd.DataFrame()
    df = samples[samples[DUET_GROUP].notna() & (samples[DUET_GROUP].astype(str) != "")]
    if "warmup" in df.columns:  # the statistics count no warm-up: neither does their duet
        df = df[~df["warmup"].astype("boolean").fillna(False).astype(bool)]
    metric = df["raw_metric"] if "raw_metric" in df.columns else df["metric"]
    is_job = [_is_job_time(str(m), str(s) if pd.notna(s) else "") for m, s in zip(metric, df["step"])]
    df = df[is_job]
    return df[df[JOB_START].notna() & df[JOB_FINISH].notna()]


def duet_jobs(samples: pd.DataFrame) -> list[DuetJob]:
    """Every job step of every duet in a campaign's samples (`load_campaign`'s frame, or a tidy
    samples frame with the runner's stamps), ordered by group, step and sides. Pure."""
    rows = duet_job_rows(samples)
    if rows.empty:
        return []
    partners = rows[DUET_PARTNERS] if DUET_PARTNERS in rows.columns else pd.Series(None, index=rows.index)
    skews = rows[RELEASE_SKEW] if RELEASE_SKEW in rows.columns else pd.Series(None, index=rows.index)
    # (group, step, sides) -> cell id -> [start, finish] of the side's step, and the release skews.
    spans: dict[tuple[str, str, tuple[str, ...]], dict[str, list[float]]] = {}
    released: dict[tuple[str, str, tuple[str, ...]], list[float]] = {}
    for group, step, cell, partner_cells, start, finish, skew in zip(
        rows[DUET_GROUP], rows["step"], rows[CELL_ID], partners, rows[JOB_START], rows[JOB_FINISH], skews
    ):
        key = (str(group), str(step), tuple(sorted(duet_sides(cell, partner_cells))))
        span = spans.setdefault(key, {}).setdefault(str(cell), [float(start), float(finish)])
        span[0], span[1] = min(span[0], float(start)), max(span[1], float(finish))
        if (s := value_number(skew)) is not None:
            released.setdefault(key, []).append(s)
    out = []
    for key in sorted(spans):
        group, step, sides = key
        ran = sorted((SideJob(c, a, b) for c, (a, b) in spans[key].items()), key=lambda s: (s.start_ms, s.cell_id))
        skew = max(released[key]) if key in released else None
        out.append(DuetJob(group, step, sides, tuple(ran), skew))
    return out


def duet_steps(jobs: list[DuetJob]) -> list[str]:
    """The job steps the duets ran, the quoted one (`QUOTED_STEP`) first, then by how many duets
    ran them (most first) and by name."""
    counts = Counter(j.step for j in jobs)
    return sorted(counts, key=lambda s: (s != QUOTED_STEP, -counts[s], s))


def duet_summary(jobs: list[DuetJob], step: str | None = None) -> DuetSummary | None:
    """The summary of one step's duets (default: the first of `duet_steps`); None when no duet of it
    has every side measured. Pure."""
    if not jobs:
        return None
    step = step if step is not None else duet_steps(jobs)[0]
    mine = [j for j in jobs if j.step == step]
    whole = [j for j in mine if j.complete and len(j.ran) > 1]
    if not whole:
        return None
    skews = [j.start_skew_s for j in whole]
    overlaps = [j.overlap_share for j in whole]
    releases = [j.release_skew_s for j in whole if j.release_skew_s is not None]
    return DuetSummary(
        step=step,
        groups=len(whole),
        sides=Counter(len(j.sides) for j in whole).most_common(1)[0][0],
        median_skew_s=statistics.median(skews),
        max_skew_s=max(skews),
        median_overlap=statistics.median(overlaps),
        min_overlap=min(overlaps),
        median_release_skew_s=statistics.median(releases) if releases else None,
        incomplete=len(mine) - len(whole),
    )

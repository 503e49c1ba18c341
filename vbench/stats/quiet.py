"""How many runs the quiet-machine gate (vbench.campaign.quiet) flagged, waited for or did not
check, over a group of samples, with the gate's CPU probe beside this machine's reference: the
statistics table's `flagged_runs` row, the report's, the paper's and the precision benchmark's
line about the machine the runs were measured on.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from vbench.samples import QUIET_CPU_PROBE, QUIET_MACHINE_PROBE, QUIET_VERDICT
from vbench.wording import count

#: The quiet-machine gate's verdicts (vbench.campaign.quiet) that mean the machine was checked.
QUIET_CHECKED = ("ok", "waited", "flagged")


@dataclass(frozen=True)
class QuietCounts:
    """How many runs the quiet-machine gate saw on a flagged machine (vbench.campaign.quiet)."""

    runs: int
    flagged: int
    waited: int
    unchecked: int  # no verdict (a campaign from before the gate, an inventory's hosts) or gate off
    #: The median over the runs of the gate's CPU probe / this machine's reference
    #: (vbench.campaign.machine_ref; None: no run carries both): a slow day, said beside the counts.
    probe_vs_machine: float | None = None
    #: How many runs carry both (a table over several campaigns: only those measured with a reference).
    probe_runs: int = 0

    def text(self) -> str:
        parts = [
            f"{self.flagged} of {count(self.runs, 'run')} measured while the quiet-machine gate flagged the machine"
        ]
        if self.waited:
            parts.append(f"{self.waited} after waiting for it to be quiet")
        if self.unchecked:
            parts.append(f"{self.unchecked} not checked")
        if self.probe_vs_machine is not None:
            parts.append(
                f"CPU probe x{self.probe_vs_machine:.2f} this machine's reference "
                f"(median over the {count(self.probe_runs, 'run')} measured with one)"
            )
        return "; ".join(parts)


def quiet_counts(samples: pd.DataFrame) -> QuietCounts | None:
    """The gate's verdicts over the runs of `samples` (a run's rows counted once, by `run_id`
    where the samples carry it), or None when no row carries a verdict."""
    if QUIET_VERDICT not in samples.columns:
        return None
    # Counted over Python values, not pandas masks: the statistics table asks this of every group.
    keep = _one_row_per_run(samples["run_id"].tolist()) if "run_id" in samples.columns else None
    verdicts = samples[QUIET_VERDICT].tolist()
    v = ["" if pd.isna(x) else str(x) for i, x in enumerate(verdicts) if keep is None or keep[i]]
    probe_vs_machine, probe_runs = None, 0
    if {QUIET_CPU_PROBE, QUIET_MACHINE_PROBE} <= set(samples.columns):
        # .loc: a list of no booleans (a group without a kept row) is an empty mask, not a selection of no columns.
        runs = samples if keep is None else samples.loc[keep]
        ratio = (
            pd.to_numeric(runs[QUIET_CPU_PROBE], errors="coerce")
            / pd.to_numeric(runs[QUIET_MACHINE_PROBE], errors="coerce")
        ).dropna()
        probe_vs_machine, probe_runs = (float(ratio.median()) if len(ratio) else None), int(len(ratio))
    return QuietCounts(
        len(v),
        v.count("flagged"),
        v.count("waited"),
        sum(1 for x in v if x not in QUIET_CHECKED),
        probe_vs_machine,
        probe_runs,
    )


def _one_row_per_run(ids: list) -> list[bool]:
    """Which rows count a run: the first row of each `run_id`, and every row without one (missing or "")."""
    seen: set = set()
    keep = []
    for x in ids:
        if pd.isna(x) or str(x) == "":
            keep.append(True)
        elif x in seen:
            keep.append(False)
        else:
            seen.add(x)
            keep.append(True)
    return keep

"""How much of a campaign's pre-registered design is measured: the design's cells (not its
warm-up ones) that the ledger holds as done, out of all of them.

A campaign may be run in parts (`budget_minutes`: each `campaign run` spends its budget in whole
blocks and lists the cells it skipped in skipped.json; `campaign run` again runs the rest). A
verdict read from a part would be optional stopping (peeking at the data until it says something),
so the reproduction delta (vbench.paper.delta) judges a campaign only when its design is whole.

A cell is done when the runner would not run it again on resume (`vbench.campaign.runner.done_cells`,
the ledger's closing records): one whose runs failed is done (it ran, and its failure is its
record); one whose configuration never came up, or that was interrupted, is not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import AbstractSet

from vbench.campaign.design import Experiment, design_hash, expand
from vbench.campaign.runner import done_cells, extends_by_blocks
from vbench.store import CampaignStore

#: The campaign's record of the adaptive stopping rule's decisions (one per round it judged;
#: written by vbench.pipeline.PrecisionHook).
PRECISION_RECORD = "precision.json"

#: The cell kinds `vbench campaign run --only X` runs (without --only: every kind).
KINDS_OF_ONLY = {"calibrate": frozenset({"micro"}), "suite": frozenset({"hadoop"})}


@dataclass(frozen=True)
class DesignProgress:
    """How many of a design's cells (warm-up cells left out) a campaign has done, of how many."""

    done: int
    total: int
    #: Why the design's own stopping rule (`precision`) ended the campaign before its last round,
    #: "" when it did not: a campaign so stopped is whole, the rule being part of its design.
    stopped: str = ""

    @property
    def complete(self) -> bool:
        return bool(self.stopped) or self.done >= self.total


def stopped_by_precision(raw: Path) -> str | None:
    """Why the campaign's precision rule stopped it earlier, or None: a stopped campaign is not
    resumed into the rounds the rule decided not to run."""
    path = raw / PRECISION_RECORD
    if not path.is_file():
        return None
    final = json.loads(path.read_text()).get("stopped")
    return None if final is None else f"{final['verdict']}: {final['reason']}"


def design_progress(exp: Experiment, done: AbstractSet[str], kinds: AbstractSet[str] | None = None) -> DesignProgress:
    """The design's cells of `kinds` (cell kinds, "micro" and "hadoop"; None: every kind) whose id
    is in `done` (the ledger's done cells), out of all of them. Warm-up cells are not counted: the
    statistics exclude them, so no verdict waits for them. Pure."""
    cells = [c.cell_id for c in expand(exp) if not c.warmup and (kinds is None or c.variant.kind in kinds)]
    return DesignProgress(sum(c in done for c in cells), len(cells))


def kinds_of_only(only: str | None) -> frozenset[str] | None:
    """The cell kinds a campaign run with `--only <only>` runs; None (every kind) without it."""
    return KINDS_OF_ONLY[only] if only else None


def records_design(recorded: dict, exp: Experiment) -> bool:
    """Whether a campaign's campaign.json (`recorded`) is of the design `exp`: the same design, or
    `exp` is it with blocks added that the campaign has yet to run (`extends_by_blocks`). Pure."""
    return recorded.get("design_hash") == design_hash(exp) or extends_by_blocks(recorded, exp) is not None


def campaign_progress(
    exp: Experiment, campaign_dir: Path, kinds: AbstractSet[str] | None = None
) -> DesignProgress | None:
    """How much of `exp` the campaign in `campaign_dir` has done (`design_progress`), or None when
    that cannot be told: no ledger (nothing measured), no campaign.json (the samples' design is
    unknown), or a campaign.json of another design, whose cell ids are not `exp`'s (a campaign
    directory belongs to one design: vbench.campaign.runner refuses to mix them)."""
    store = CampaignStore(campaign_dir)
    meta = campaign_dir / "campaign.json"
    if not store.samples_path.is_file() or not meta.is_file():
        return None
    if not records_design(json.loads(meta.read_text()), exp):
        return None
    progress = design_progress(exp, done_cells(store), kinds)
    if exp.precision is not None and not progress.complete:
        progress = DesignProgress(progress.done, progress.total, stopped_by_precision(campaign_dir) or "")
    return progress


__all__ = [
    "DesignProgress",
    "KINDS_OF_ONLY",
    "PRECISION_RECORD",
    "campaign_progress",
    "design_progress",
    "kinds_of_only",
    "records_design",
    "stopped_by_precision",
]

"""How much of a campaign's design is measured (vbench.campaign.completeness): the design's cells,
warm-up ones left out, that the ledger holds as done, the runner's own rule for what a resume
runs again. A campaign run in parts (`budget_minutes`) is whole only after its last part."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.builders import two_platform_design
from vbench.campaign.completeness import (
    DesignProgress,
    campaign_progress,
    design_progress,
    kinds_of_only,
    records_design,
)
from vbench.campaign.design import Cell, design_hash, expand
from vbench.samples import Failure, Sample
from vbench.store import CampaignStore


def _design(**fields):
    """native and lxc, 4 blocks (the first a warm-up block), a micro-benchmark and a Hadoop job:
    2 platforms x 2 benchmarks x 3 measured blocks = 12 cells that count."""
    base = {"repetitions": 4, "warmup_blocks": 1, "calibrate": [{"benchmark": "cpu"}], "suite": [{"benchmark": "pi"}]}
    return two_platform_design(**{**base, **fields})


def _record_design(d: Path, exp) -> None:
    """campaign.json as `campaign run` writes it before the first cell."""
    d.mkdir(parents=True, exist_ok=True)
    record = {"design_hash": design_hash(exp), "experiment": exp.model_dump(mode="json")}
    (d / "campaign.json").write_text(json.dumps(record))


def _save(store: CampaignStore, cell: Cell, failed: bool = False, configuration_failed: bool = False) -> None:
    """One cell's append, as the runner makes it: a sample, a failed run (done: it ran) or a
    configuration that never came up (not done: it runs again)."""
    stamp = {"cell_id": cell.cell_id, "platform": cell.platform, "block": cell.block}
    if configuration_failed:
        f = Failure(cell.variant.benchmark, "testbed did not come up", {}, "", {"configuration_failed": True})
        store.save_runs([(f"unrun-{cell.block}", [f], {})], stamp, cell_done=False)
    elif failed:
        store.save_runs([(f"r-{cell.cell_id}", [Failure(cell.variant.benchmark, "job failed")], {})], stamp)
    else:
        store.save_runs([(f"r-{cell.cell_id}", [Sample(cell.variant.benchmark, "t", 1.0, "s")], {})], stamp)


def test_the_count_leaves_out_warm_up_cells_and_counts_the_ones_done():
    exp = _design()
    cells = expand(exp)
    assert len(cells) == 16 and sum(c.warmup for c in cells) == 4
    measured = [c for c in cells if not c.warmup]
    done = {c.cell_id for c in measured[:5]} | {c.cell_id for c in cells if c.warmup} | {"b9/native/other"}
    p = design_progress(exp, done)
    assert p == DesignProgress(5, 12) and not p.complete
    whole = design_progress(exp, {c.cell_id for c in measured})
    assert whole == DesignProgress(12, 12) and whole.complete
    # A design with nothing done is not whole; one with no cell to run is.
    assert not design_progress(exp, set()).complete and DesignProgress(0, 0).complete


def test_only_the_kinds_a_command_runs_are_counted():
    exp = _design()
    micro = {c.cell_id for c in expand(exp) if not c.warmup and c.variant.kind == "micro"}
    assert design_progress(exp, micro, kinds_of_only("calibrate")) == DesignProgress(6, 6)
    assert design_progress(exp, micro, kinds_of_only("suite")) == DesignProgress(0, 6)
    assert design_progress(exp, micro, kinds_of_only(None)) == DesignProgress(6, 12)


def test_a_failed_cell_is_done_and_one_whose_configuration_never_came_up_is_not(tmp_path):
    exp = _design()
    d = tmp_path / "c"
    _record_design(d, exp)
    store = CampaignStore(d)
    measured = [c for c in expand(exp) if not c.warmup]
    for c in measured[:3]:
        _save(store, c)
    _save(store, measured[3], failed=True)
    _save(store, measured[4], configuration_failed=True)
    assert campaign_progress(exp, d) == DesignProgress(4, 12)
    # The rest measured (the unrun cell again, as a resume runs it): whole.
    for c in measured[4:]:
        _save(store, c)
    assert campaign_progress(exp, d) == DesignProgress(12, 12)


def test_a_campaign_with_blocks_added_to_its_design_is_in_part_until_they_run(tmp_path):
    exp = _design()
    d = tmp_path / "c"
    _record_design(d, exp)
    store = CampaignStore(d)
    for c in expand(exp):
        _save(store, c)
    assert campaign_progress(exp, d).complete
    more = _design(repetitions=6)
    assert records_design(json.loads((d / "campaign.json").read_text()), more)
    assert campaign_progress(more, d) == DesignProgress(12, 20)


def test_nothing_is_told_without_a_ledger_or_of_another_design(tmp_path):
    exp = _design()
    d = tmp_path / "c"
    _record_design(d, exp)
    assert campaign_progress(exp, d) is None  # nothing measured yet: no ledger
    _save(CampaignStore(d), next(c for c in expand(exp) if not c.warmup))
    assert campaign_progress(exp, d) == DesignProgress(1, 12)
    # Another design (its seed: another run order), which this campaign never ran, though its
    # cell ids are the same: the campaign is not judged by it.
    other = _design(seed=8)
    assert {c.cell_id for c in expand(other)} == {c.cell_id for c in expand(exp)}
    assert not records_design(json.loads((d / "campaign.json").read_text()), other)
    assert campaign_progress(other, d) is None
    (d / "campaign.json").unlink()  # samples of an unknown design
    assert campaign_progress(exp, d) is None

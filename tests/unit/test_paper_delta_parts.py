"""A finding's own campaign gives a verdict only once its design is whole (vbench.paper.delta:
`design_progress_by_campaign`, `measured_in_part`). A campaign run in parts (`budget_minutes`)
judged after one part would be optional stopping: the next part could undo the verdict."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from vbench.campaign.completeness import DesignProgress
from vbench.campaign.design import design_hash, expand, load_experiment
from vbench.paper import delta as D
from vbench.samples import Sample
from vbench.stats.campaign import load_campaign
from vbench.store import CampaignStore

NAME = "parts"
DESIGN = f"params/experiments/{NAME}.yaml"
#: Native's TeraSort time per block, and LXC's ratio to it: about 2 % slower every block, as
#: Xavier et al. found (X1, band 1.00-1.04): an interval tight inside the band from 4 blocks on.
NATIVE = [50.0, 51.0, 49.0, 50.0, 52.0, 48.0, 50.0, 51.0]
LXC_RATIO = [1.020, 1.021, 1.019, 1.020, 1.0205, 1.0195, 1.020, 1.0202]
#: Xavier et al.'s X1, tested by this repository's design.
X1 = replace(
    next(f for f in D.load_published().findings if f.id == "X1"),
    test=D.Test(("here",), campaign=NAME, design=DESIGN),
)


def _campaign(root: Path, blocks_done: int) -> Path:
    """A repository `root` holding the design (native and LXC, TeraSort 128 MB, 8 blocks: 16
    cells) and its campaign data/raw/parts, as `campaign run` leaves it after the first
    `blocks_done` blocks: campaign.json, and each cell's run in the ledger by the runner's store."""
    design = root / DESIGN
    design.parent.mkdir(parents=True)
    suite = [{"benchmark": "terasort", "config": {"size_mb": 128}}]
    doc = {"name": NAME, "platforms": ["native", "lxc"], "repetitions": len(NATIVE), "seed": 7, "suite": suite}
    design.write_text(yaml.safe_dump({"experiment": doc}))
    exp = load_experiment(design)
    d = root / "data" / "raw" / NAME
    d.mkdir(parents=True)
    record = {"design_hash": design_hash(exp), "experiment": exp.model_dump(mode="json")}
    (d / "campaign.json").write_text(json.dumps(record))  # as `campaign run` writes it first
    store = CampaignStore(d)
    for cell in expand(exp):
        if cell.block >= blocks_done:
            continue
        value = NATIVE[cell.block] * (LXC_RATIO[cell.block] if cell.platform == "lxc" else 1.0)
        sample = Sample("terasort", "terasort_time", value, "s", {"size_mb": 128})
        stamp = {
            "campaign": NAME,
            "experiment": exp.experiment,
            **cell.config.stamp(),
            "block": cell.block,
            "round": 0,
            "repetition": cell.block,
            "warmup": cell.warmup,
            "cell_id": cell.cell_id,
        }
        store.save_runs([(f"run-{cell.cell_id.replace('/', '-')}", [sample], {})], stamp)
    return d


def _delta(root: Path, d: Path) -> tuple[D.DeltaRow, dict[str, DesignProgress]]:
    progress = D.design_progress_by_campaign([X1], [d], root)
    rows = D.reproduction_delta(D.Published({}, {}, [X1]), load_campaign(d).samples, 0.95, progress)
    return rows[0], progress


def test_a_campaign_measured_in_part_gives_no_verdict_whatever_its_interval(tmp_path):
    row, progress = _delta(tmp_path, _campaign(tmp_path, blocks_done=6))
    assert progress == {NAME: DesignProgress(12, 16)}
    # The interval alone would decide: tight inside the band, paired over the 6 blocks measured.
    assert row.campaign == NAME and row.n_blocks == 6 and row.ratio == pytest.approx(1.02, abs=0.001)
    assert D.verdict_of(X1, row.low, row.high) == D.REPRODUCED
    # ...but the design is not whole: no verdict, no p-value for Holm, nothing "more blocks would settle".
    assert row.verdict == D.INCONCLUSIVE and row.in_part
    assert row.reason.startswith(
        "its design measured in part: 12 of 16 cells (a campaign run in parts); no verdict until it is whole"
    )
    assert row.p_value is None and row.p_holm is None and row.blocks_to_settle is None and row.unadjusted == ""
    assert D.holm_family_size([row]) == 0
    frame = D.delta_frame([row]).iloc[0]
    assert frame["verdict"] == frame["verdict_interval_alone"] == D.INCONCLUSIVE
    assert frame["p_value"] != frame["p_value"]  # NaN: no decision to correct
    assert frame["ci_low"] == pytest.approx(row.low) and frame["ratio"] == pytest.approx(row.ratio)
    table = D.delta_table_tex([row], D.Published({}, {"xavier": {"short": "Xavier", "bibkey": "x"}}, [X1]))
    assert "measured in part" in table and "would settle it" not in table and "Holm" not in table
    assert "measured only in part" in D.rule_tex(D.Published({}, {}, [X1]), [row], 0.95, 5)


def test_the_whole_design_gives_the_intervals_verdict_as_before(tmp_path):
    d = _campaign(tmp_path, blocks_done=len(NATIVE))
    row, progress = _delta(tmp_path, d)
    assert progress == {NAME: DesignProgress(16, 16)}
    assert row.verdict == D.REPRODUCED and not row.in_part and row.n_blocks == 8
    assert "in part" not in row.reason and row.p_value is not None and row.p_holm is not None
    # Exactly the row of a delta that knows nothing of the design.
    assert row == D.reproduction_delta(D.Published({}, {}, [X1]), load_campaign(d).samples, 0.95)[0]
    assert "measured only in part" not in D.rule_tex(D.Published({}, {}, [X1]), [row], 0.95, 5)


def test_a_finding_whose_campaign_is_not_among_those_read_is_judged_as_before(tmp_path):
    d = _campaign(tmp_path, blocks_done=6)
    elsewhere = replace(X1, test=D.Test(("here",), campaign="another", design=DESIGN))
    assert D.design_progress_by_campaign([elsewhere], [d], tmp_path) == {}
    # Without a ledger there is nothing to tell the part by either.
    (d / "samples.jsonl").rename(d / "moved.jsonl")
    assert D.design_progress_by_campaign([X1], [d], tmp_path) == {}
    # And a delta given no progress judges the part as it did before.
    (d / "moved.jsonl").rename(d / "samples.jsonl")
    assert D.evaluate(X1, load_campaign(d).samples).verdict == D.REPRODUCED

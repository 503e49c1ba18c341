"""The method's self-checks for real (issue #18 items 3 and 5): the `quick` design with the A/A
self-check and two rounds. Native and its A/A copy come up together in each block, every sample
carries its block, round and the quiet-machine gate's verdict and readings, the statistics mark
the A/A row, and nothing is left on the machine afterwards."""

from __future__ import annotations

import shutil

import pytest

from tests.integration.conftest import REPO, _RUN, it_hadoop, leftovers
from vbench.campaign.design import Experiment, expand, load_experiment
from vbench.campaign.runner import run_campaign, slot_testbed
from vbench.params import TestbedParams
from vbench.pipeline import headline, tidy
from vbench.samples import Sample, read_records
from vbench.stats import compute_stats

pytestmark = pytest.mark.integration


def test_quick_design_with_aa_and_two_rounds_stamps_block_round_and_the_gates_verdict(tmp_path):
    if shutil.which("ip") is None:
        pytest.skip("needs iproute2")
    quick = load_experiment(REPO / "params" / "experiments" / "quick.yaml")
    exp = Experiment.model_validate(
        {**quick.model_dump(mode="json"), "aa": True, "rounds": 2, "repetitions": 1}
    )  # one block: the rounds are what is tested
    tb = TestbedParams.model_validate(
        {
            "name": f"q{_RUN:04d}",
            "workers": 2,
            "work_root": str(tmp_path / "tb"),
            "network": {"bridge": f"q{_RUN:04d}br", "subnet": f"10.{214 + _RUN // 250}.{_RUN % 250}.0/24"},
        }
    )
    camp = tmp_path / "aa"
    log: list[str] = []
    result = run_campaign(exp, tb, it_hadoop(), camp, log=log.append)
    assert result.failures == 0 and not result.stopped
    assert sorted(result.ran) == sorted(c.cell_id for c in expand(exp))
    records = list(read_records(camp / "samples.jsonl"))
    assert records and all(isinstance(r, Sample) for r in records)
    assert {r.metadata["platform"] for r in records} == {"native", "native~aa"}
    for r in records:
        md = r.metadata
        assert {"block", "round", "quiet.verdict"} <= md.keys(), md
        assert md["quiet.verdict"] in ("ok", "waited", "flagged")
        assert md["quiet.window_s"] == exp.quiet.window_s and md["quiet.mem_available_mb"] > 0
    # The gate ran before every round and said so: 1 block x (calibration + suite) x 2 rounds.
    assert sum(": quiet gate: " in line for line in log) == 1 * 2 * 2, log
    samples, _ = tidy(camp)
    table = compute_stats(headline(samples), n_resamples=999)
    aa = table[table.statistic == "aa_check"]
    assert len(aa) >= 1 and set(aa.platform) == {"native~aa"}
    assert (table.statistic == "flagged_runs").any()
    for slot in range(2):
        assert leftovers(slot_testbed(tb, slot)) == []

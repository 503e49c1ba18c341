"""Interleaved rounds for real (issue #18): the `quick` design with two platforms and two rounds,
both testbeds and clusters up together for each block, every sample stamped with its block and
round, each fresh cluster warmed up, and nothing left on the machine afterwards."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest

from tests.integration.conftest import REPO, _RUN, it_hadoop, leftovers
from vbench.campaign.design import Experiment, expand, load_experiment
from vbench.campaign.runner import run_campaign, slot_testbed
from vbench.params import TestbedParams
from vbench.samples import Sample, read_records
from vbench.testbed.image import image_for

pytestmark = pytest.mark.integration


@pytest.mark.slow  # ~4-7 min; test_pipeline_quick.py runs two clusters together in CI (docs/testing.md)
def test_quick_design_with_two_platforms_and_two_rounds_stamps_block_and_round_on_every_sample(tmp_path):
    if shutil.which("lxc-start") is None or not image_for().exists():
        pytest.skip("needs lxc-start and the guest image (`vbench image build`; the README's test command does both)")
    quick = load_experiment(REPO / "params" / "experiments" / "quick.yaml")
    exp = Experiment.model_validate({**quick.model_dump(mode="json"), "platforms": ["native", "lxc"], "rounds": 2})
    # Five characters: the runner names the testbeds of a block <name>0, <name>1 (at most six).
    tb = TestbedParams.model_validate(
        {
            "name": f"r{_RUN:04d}",
            "workers": 2,
            "work_root": str(tmp_path / "tb"),
            "network": {"bridge": f"r{_RUN:04d}br", "subnet": f"10.{214 + _RUN // 250}.{_RUN % 250}.0/24"},
        }
    )
    camp = tmp_path / "rounds"
    log: list[str] = []
    result = run_campaign(exp, tb, it_hadoop(), camp, log=log.append)
    assert result.failures == 0 and not result.stopped
    assert sorted(result.ran) == sorted(c.cell_id for c in expand(exp))
    records = list(read_records(camp / "samples.jsonl"))
    assert records and all(isinstance(r, Sample) for r in records)
    assert all({"block", "round", "warmup"} <= r.metadata.keys() for r in records)
    measured = Counter(
        (r.metadata["block"], r.metadata["round"], r.metadata["platform"], r.benchmark)
        for r in records
        if not r.metadata["warmup"] and r.metadata["benchmark_kind"] == "hadoop"
    )
    assert set(measured) == {(b, r, p, "pi") for b in range(2) for r in range(2) for p in ("native", "lxc")}
    warm = {r.metadata["cell_id"] for r in records if r.metadata["warmup"]}
    assert len(warm) == 2 * 2 * 2 and all(c.endswith("/warmup") for c in warm)  # blocks x platforms x benchmarks
    # The two clusters of a block were up together: both came up before the block's first job.
    events = "".join(
        "U" if "NodeManagers running in" in line else "J" if line.startswith("pi: pi ...") else "" for line in log
    )
    assert events == ("UU" + "J" * 6) * 2, log
    assert all(r.metadata["hdfs_output_removed"] is True for r in records if r.metadata["benchmark_kind"] == "hadoop")
    for slot in range(2):
        assert leftovers(slot_testbed(tb, slot)) == []

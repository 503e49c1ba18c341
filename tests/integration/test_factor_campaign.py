"""A campaign whose design varies environment factors, for real: each configuration gets its
own testbed and cluster, and every sample says which levels it ran with."""

from __future__ import annotations

import pytest

from tests.integration.conftest import leftovers, it_hadoop
from vbench.campaign.design import Experiment
from vbench.campaign.runner import run_campaign
from vbench.samples import Sample, read_records

pytestmark = pytest.mark.integration


def test_vms_per_host_and_topology_levels_each_run_on_their_own_cluster(it_platform_testbed, tmp_path):
    tb = it_platform_testbed("native", workers=2)
    exp = Experiment.model_validate(
        {
            "name": "factors",
            "experiment": "factors",
            "repetitions": 1,
            "workers": 2,
            "factors": {"testbed.vms_per_host": [1, 2], "hadoop.topology": ["rack"]},
            "compare": ["vms_per_host"],
            "baseline": "1",
            "suite": [{"benchmark": "pi", "config": {"maps": 2, "samples": 1000}}],
        }
    )
    result = run_campaign(exp, tb, it_hadoop({"replication": 2}), tmp_path / "factors")
    assert result.failures == 0
    records = list(read_records(tmp_path / "factors" / "samples.jsonl"))
    assert all(isinstance(r, Sample) for r in records)
    assert {r.metadata["cell_id"] for r in records} == {
        "b0/native[topology=rack,vms_per_host=1]/pi",
        "b0/native[topology=rack,vms_per_host=2]/pi",
    }
    assert {(r.metadata["factor.vms_per_host"], r.metadata["factor.topology"]) for r in records} == {
        (1, "rack"),
        (2, "rack"),
    }
    # The cluster's configuration differs with the topology table (provenance of every sample).
    hashes = {r.metadata["factor.vms_per_host"]: r.metadata["hadoop_config_hash"] for r in records}
    assert hashes[1] != hashes[2]
    assert leftovers(tb) == []

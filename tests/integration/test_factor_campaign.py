"""A campaign whose design varies environment factors, for real: each configuration gets its
own testbed and cluster, and every sample says which levels it ran with."""

from __future__ import annotations

import pytest

from tests.integration.conftest import leftovers, it_hadoop
from vbench.campaign.design import Experiment
from vbench.campaign.runner import run_campaign
from vbench.samples import Sample, read_records

pytestmark = pytest.mark.integration


def native_campaign(it_platform_testbed, name: str, *, workers: int, **design):
    """A native testbed of `workers` workers, and a design `name` (its experiment's name too) of one
    repetition on those workers, with `design`'s settings."""
    tb = it_platform_testbed("native", workers=workers)
    exp = Experiment.model_validate({"name": name, "experiment": name, "repetitions": 1, "workers": workers, **design})
    return tb, exp


def test_vms_per_host_and_topology_levels_each_run_on_their_own_cluster(it_platform_testbed, tmp_path):
    tb, exp = native_campaign(
        it_platform_testbed,
        "factors",
        workers=2,
        factors={"testbed.vms_per_host": [1, 2], "hadoop.topology": ["rack"]},
        compare=["vms_per_host"],
        baseline="1",
        suite=[{"benchmark": "pi", "config": {"maps": 2, "samples": 1000}}],
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


@pytest.mark.slow  # 79 s of CI: test_network_modes.py measures the matrix in every mode (docs/testing.md)
def test_the_iperf3_matrix_is_measured_as_samples_of_a_campaign_comparing_network_modes(it_platform_testbed, tmp_path):
    # Jeong et al.'s Fig. 4 as a campaign (params/experiments/jeong2017-netmatrix.yaml, shortened):
    # every pair of the layout a run of its own, its samples naming the pair, the direction and the
    # mode, the shaped paths near the link's rate and the paths inside a host far above it.
    tb, exp = native_campaign(
        it_platform_testbed,
        "netmatrix",
        workers=3,
        testbed={"vms_per_host": 2, "network": {"link": {"rate_mbit": 200}}},
        factors={"testbed.network.mode": ["bridge", "nat"]},
        compare=["network.mode"],
        baseline="bridge",
        calibrate=[{"benchmark": "netmatrix", "config": {"duration_s": 3, "omit_s": 1, "reverse": [False, True]}}],
    )
    result = run_campaign(exp, tb, it_hadoop({}), tmp_path / "nm")
    assert result.failures == 0
    samples = [r for r in read_records(tmp_path / "nm" / "samples.jsonl") if isinstance(r, Sample)]
    means = {
        (s.metadata["factor.network.mode"], s.metadata["pair"], s.metadata["direction"]): s
        for s in samples
        if s.metric == "throughput_mean"
    }
    assert len(means) == 2 * 4 * 2  # modes x pairs x directions
    for (mode, pair, direction), s in means.items():
        assert s.metadata["size"] == f"{pair}/{direction}" and s.metadata["host"] == "worker1"
        if s.metadata["configured_mbit"] is not None:  # across the emulated link
            assert 0.8 * 200 <= s.value <= 1.1 * 200, (mode, pair, direction, s.value)
        else:
            assert s.value > 3 * 200, (mode, pair, direction, s.value)
    assert len({s.metadata["run_id"] for s in samples}) == 2 * 4 * 2  # a run per pair
    # The sender's RTT is known where the guest sent (iperf3 -R's client prints zeros for it).
    assert {s.metadata["direction"] for s in samples if s.metric == "rtt_mean"} == {"send"}
    assert all(s.value > 0 for s in samples if s.metric == "rtt_mean")
    assert leftovers(tb) == []

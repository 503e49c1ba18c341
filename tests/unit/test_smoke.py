"""`vbench cluster smoke` (vbench/smoke.py) is a design the campaign runner runs: the registry's
TeraSort, its samples stamped like every campaign's, and the block placement read by the
runner's hook before the run's HDFS directory goes."""

from __future__ import annotations

from pathlib import Path

import pytest

from vbench.campaign import runner
from vbench.campaign.design import expand
from vbench.errors import JobFailed, ParamsError
from vbench.host import Host, SshEndpoint
from vbench.params import HadoopParams, TestbedParams
from vbench.samples import Failure, Sample, read_records
from vbench.smoke import (
    placement_samples,
    platform_label,
    run_smoke,
    smoke_experiment,
    smoke_result,
    smoke_size_mb,
)

FSCK = (Path(__file__).resolve().parents[1] / "data" / "hadoop" / "fsck_teragen.txt").read_text()


def _hosts(*workers: str) -> list[Host]:
    ssh = SshEndpoint("10.213.0.10", "root", Path("/k"), Path("/kh"))
    return [
        Host("master", "master", "native", "10.213.0.10", "/w", ssh),
        *(Host(f"worker{i}", "worker", "native", a, "/w", ssh) for i, a in enumerate(workers, 1)),
    ]


def test_the_smoke_is_one_terasort_cell_sized_by_the_workers():
    tb = TestbedParams(workers=3)
    (cell,) = expand(smoke_experiment(tb, HadoopParams(replication=2), 32))
    cfg = cell.variant.config
    assert cell.cell_id == "b0/native/terasort" and cell.variant.benchmark == "terasort"
    assert (cfg.size_mb, cfg.maps, cfg.reduces, cfg.replication) == (32, 3, 3, 2)


def test_a_mixed_cluster_keeps_its_hosts_and_is_named_by_its_platforms():
    tb = TestbedParams(
        hosts=[
            {"name": "m", "role": "master"},
            {"name": "w1", "role": "worker"},
            {"name": "w2", "role": "worker", "platform": "qemu"},
        ]
    )
    exp = smoke_experiment(tb, HadoopParams(), 16)
    assert [h["name"] for h in exp.testbed["hosts"]] == ["m", "w1", "w2"]
    assert expand(exp)[0].variant.config.maps == 2 and platform_label(tb) == "native+qemu"


@pytest.mark.parametrize("size", [0, 512 * 1024, 3 * 1024**2 + 1])
def test_a_size_that_is_not_whole_mib_is_refused_naming_the_option(size):
    with pytest.raises(ParamsError, match="--size"):
        smoke_size_mb(size)


def test_placement_counts_replicas_on_every_worker_including_none():
    samples = placement_samples(FSCK, _hosts("10.213.0.11", "10.213.0.12", "10.213.0.13"), "flat")
    replicas = {s.metadata["node"]: s.value for s in samples if s.metric == "replicas"}
    assert replicas == {"worker1": 2, "worker2": 2, "worker3": 0}
    (check,) = [s for s in samples if s.metric == "blocks_sharing_a_physical_host"]
    assert (
        check.metadata["placement_ok"] is True and "2 blocks, 4 replicas, topology flat" in check.metadata["placement"]
    )


def test_a_worker_without_replicas_fails_the_smoke():
    samples = placement_samples(FSCK, _hosts("10.213.0.11", "10.213.0.12", "10.213.0.13"), "flat")
    ran = [*samples, *_terasort_samples()]
    result = smoke_result(ran, "native", 32)
    assert result.valid and result.placement_ok and not result.blocks_on_every_worker and not result.ok
    assert "blocks_on_all_workers=NO" in result.summary()


def _terasort_samples():
    meta = {
        "verdict": "checksum 1",
        "workers": 2,
        "bringup_s": 12.3,
        "run_id": "terasort-x",
        "vbench_commit": "abc",
        "replication": 2,
        "hadoop_config_hash": "h",
    }
    return [
        Sample("terasort", m, v, "s", meta)
        for m, v in (("teragen_time", 5.0), ("terasort_time", 9.5), ("teravalidate_time", 4.0))
    ]


@pytest.fixture
def smoke(fake_hadoop, monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "TestbedSource", lambda log=print: fake_hadoop.source())
    fake_hadoop.hosts = _hosts("10.213.0.11", "10.213.0.12")
    fake_hadoop.fsck = FSCK
    fake_hadoop.execute = lambda module, cfg, run_dir: _terasort_samples()
    return lambda **kw: run_smoke(
        TestbedParams(workers=2), HadoopParams(replication=2), 32, tmp_path / "smoke", log=lambda _l: None, **kw
    )


def test_the_smoke_runs_through_the_runner_and_passes(smoke, fake_hadoop):
    result, camp = smoke()
    assert result.ok, result.summary()
    # bringup is the cluster's, stamped by the runner (the fake cluster took 1.5 s).
    assert result.summary().startswith(
        "smoke PASS: platform=native workers=2 size=32MB bringup=1.5s "
        "terasort=9.5s validation=valid blocks_on_all_workers=yes"
    )
    assert result.replicas_per_node == {"10.213.0.11": 2, "10.213.0.12": 2}
    # fsck read the run's own sorted output, after the benchmark and before the cluster went.
    fsck = next(e for e in fake_hadoop.events if e.startswith("fsck "))
    assert fsck.startswith("fsck /vbench/terasort-") and fsck.endswith("/sorted")
    assert fake_hadoop.events.index(fsck) < fake_hadoop.events.index("cluster down")
    # Like every other sample (#17): run, commit, design, block, cell, page cache.
    records = list(read_records(camp / "samples.jsonl"))
    assert {r.benchmark for r in records} == {"terasort", "placement"}
    for r in records:
        m = r.metadata
        assert m["run_id"] == result.run_id and m["vbench_commit"] == "0123abcd" and m["design_hash"]
        assert m["block"] == 0 and m["cell_id"] == "b0/native/terasort" and m["experiment"] == "smoke"
        assert m["page_cache"] == "kept"
    assert camp.parent.name == "smoke" and (camp / "campaign.json").exists()


def test_each_smoke_is_a_new_campaign(smoke):
    _, first = smoke()
    _, second = smoke()
    assert first != second and first.parent == second.parent


def test_a_failed_fsck_fails_the_smoke_with_the_reason(smoke, fake_hadoop):
    fake_hadoop.fsck = None
    result, camp = smoke()
    assert not result.ok and "fsck" in result.failure and "no such path" in result.failure
    assert "failed: fsck" in result.summary()
    assert [type(r) for r in read_records(camp / "samples.jsonl")] == [Failure]


def test_an_invalid_sort_fails_the_smoke(smoke, fake_hadoop):
    def invalid(module, cfg, run_dir):
        raise JobFailed("TeraValidate: 3 misordered keys")

    fake_hadoop.execute = invalid
    result, _ = smoke()
    assert not result.valid and not result.ok and result.failure == "TeraValidate: 3 misordered keys"
    assert "validation=INVALID" in result.summary()

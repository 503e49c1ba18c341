"""`vbench bench run|calibrate|suite` are designs built in code (vbench.campaign.adhoc) that the
campaign runner executes: the runner's provenance, failure records, resume and page-cache record
on every sample, and the command's table and summary line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vbench import cli
from vbench.campaign import runner
from vbench.campaign.adhoc import CALIBRATION, SUITE, adhoc_campaign, adhoc_experiment
from vbench.campaign.design import expand
from vbench.errors import JobFailed
from vbench.params import TestbedParams
from vbench.samples import Failure, read_records
from vbench.validate import check_plain_name

PARAMS = Path(__file__).resolve().parents[2] / "params"


def test_a_default_campaign_is_new_each_time_and_a_plain_name():
    name = adhoc_campaign("terasort", now=1795338184.0)
    assert re.fullmatch(r"adhoc-terasort-\d{8}-\d{6}", name) and check_plain_name(name) == name


def test_calibrate_and_suite_are_every_benchmark_of_their_kind_once_per_block():
    tb = TestbedParams(platform="native", workers=1)
    exp = adhoc_experiment("x", tb, calibrate=CALIBRATION, suite=SUITE, repetitions=2)
    cells = expand(exp)
    assert len(cells) == 2 * (8 + 7)
    assert {c.variant.benchmark for c in cells if c.variant.kind == "micro"} == {
        "cpu",
        "membw",
        "pi_digits",
        "dd",
        "fio",
        "bonnie",
        "iperf3",
        "latency",
    }
    assert exp.platforms == ("native",) and exp.workers == 1 and exp.experiment == "adhoc"


def test_a_mixed_cluster_keeps_its_hosts():
    tb = TestbedParams(hosts=[{"name": "m", "role": "master"}, {"name": "w", "role": "worker", "platform": "qemu"}])
    exp = adhoc_experiment("x", tb, suite=SUITE[:1])
    assert [h["name"] for h in exp.testbed["hosts"]] == ["m", "w"]
    assert runner.params_for(exp, "native", tb, runner.HadoopParams())[0].resolved_hosts()[1].platform == "qemu"


@pytest.fixture
def bench(fake_hadoop, monkeypatch, tmp_path, capsys):
    """`vbench bench ...` on the fake cluster; returns (exit code, stdout, stderr)."""
    monkeypatch.setattr(runner, "TestbedSource", lambda log=print: fake_hadoop.source())

    def run(*argv: str) -> tuple[int, str, str]:
        rc = cli.main(["bench", *argv, "--params-dir", str(PARAMS), "--data", str(tmp_path / "data")])
        out = capsys.readouterr()
        return rc, out.out, out.err

    return run


def test_bench_run_is_a_campaign_the_runner_stamps_and_resumes(bench, fake_hadoop, tmp_path):
    rc, out, err = bench("run", "pi", "--set", "maps=3", "--repetitions", "2", "--drop-caches", "--campaign", "b")
    camp = tmp_path / "data" / "raw" / "b"
    assert rc == 0, err
    assert f"samples appended to {camp / 'samples.jsonl'}" in out.replace("\n", "")
    samples = list(read_records(camp / "samples.jsonl"))
    assert sorted(s.metadata["cell_id"] for s in samples) == ["b0/native/pi", "b1/native/pi"]
    for s in samples:
        m = s.metadata
        assert m["experiment"] == "adhoc" and m["campaign"] == "b" and m["page_cache"] == "dropped"
        assert m["vbench_commit"] == "0123abcd" and m["design_hash"] and m["run_id"].startswith("pi-")
    assert fake_hadoop.events.count("cluster up") == 2  # a fresh cluster per block
    # Resumed, not measured twice; a different design is refused, not mixed in.
    rc, _, err = bench("run", "pi", "--set", "maps=3", "--repetitions", "2", "--drop-caches", "--campaign", "b")
    assert rc == 0 and "2 already done, 0 to run" in err
    rc, _, err = bench("run", "pi", "--set", "maps=4", "--campaign", "b")
    assert rc == 2 and "holds a campaign of another design" in err


def test_bench_run_without_a_campaign_makes_a_new_one(bench, tmp_path):
    rc, _, err = bench("run", "pi")
    assert rc == 0, err
    (camp,) = (tmp_path / "data" / "raw").iterdir()
    assert camp.name.startswith("adhoc-pi-") and (camp / "campaign.json").exists()


def test_a_failed_run_is_a_failure_record_in_the_table_and_the_exit_code(bench, fake_hadoop, tmp_path):
    def fails(module, cfg, run_dir):
        raise JobFailed("pi exited 1")

    fake_hadoop.execute = fails
    rc, out, _ = bench("run", "pi", "--campaign", "f")
    assert rc == 1 and "FAILED" in out and "pi exited 1" in out
    (f,) = read_records(tmp_path / "data" / "raw" / "f" / "samples.jsonl")
    assert isinstance(f, Failure) and f.metadata["cell_id"] == "b0/native/pi"


def test_a_bad_parameter_is_refused_naming_it_before_anything_starts(bench, fake_hadoop, tmp_path):
    rc, _, err = bench("run", "pi", "--set", "maps=0")
    assert rc == 2 and "pi.maps" in err
    rc, _, err = bench("run", "pi", "--monitor", "0")
    assert rc == 2 and "--monitor" in err
    assert fake_hadoop.events == [] and not (tmp_path / "data").exists()

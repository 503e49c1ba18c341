"""A calibrate entry's `hosts: N` (issue #51): the micro-benchmark on the testbed's first N hosts
(iperf3 and latency: the first N of their pairs), refused where it has no meaning before
anything starts, recorded on the samples, and out of the design hash when unset."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from vbench.benchmarks import netmatrix
from vbench.benchmarks.hadoop.execute import BenchRun
from vbench.benchmarks.micro import cpu, iperf3, latency
from vbench.campaign import measure
from vbench.campaign.design import Experiment, design_hash, expand, load_experiment
from vbench.campaign.runner import configuration_params, run_campaign
from vbench.campaign.study import load_study
from vbench.errors import ParamsError, VbenchError
from vbench.ledger import read_ledger
from vbench.params import HadoopParams, TestbedParams

from tests.unit.builders import two_platform_design

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "data" / "raw" / "reference" / "campaign.json"
LOCAL = SimpleNamespace(local=True)


def _hosts(n: int) -> list[SimpleNamespace]:
    return [SimpleNamespace(name=f"h{i}", platform="native") for i in range(n)]


@pytest.fixture
def ran(monkeypatch) -> list[str]:
    """measure_micro's runs on no host: each says where it would have measured."""
    where: list[str] = []

    def one(name):
        where.append(name)
        return BenchRun("x", f"x-{len(where)}", {})

    monkeypatch.setattr(measure, "_run_micro", lambda h, item, log, machine=None: one(h.name))
    monkeypatch.setattr(measure, "_run_iperf", lambda c, s, cfg, log: one(f"{c.name}->{s.name}"))
    monkeypatch.setattr(measure, "_run_latency", lambda c, s, cfg, log: one(f"{c.name}->{s.name}"))
    return where


def _measure(benchmark, module, config, hosts, n):
    return measure.measure_micro(hosts, measure.Planned(benchmark, config, module, n), lambda _l: None)


# -- what runs -------------------------------------------------------------------------------------
def test_a_micro_benchmark_runs_on_the_first_n_hosts_in_the_testbeds_order(ran):
    _measure("cpu", cpu, cpu.CpuConfig(), _hosts(3), 1)
    assert ran == ["h0"]
    ran.clear()
    _measure("cpu", cpu, cpu.CpuConfig(), _hosts(3), None)  # unset: every host, as before
    assert ran == ["h0", "h1", "h2"]


def test_iperf3_and_latency_run_the_first_n_of_their_pairs(ran):
    _measure("iperf3", iperf3, iperf3.Iperf3Config(), _hosts(3), 2)
    assert ran == ["h0->h1", "h1->h2"]  # of the ring h0->h1, h1->h2, h2->h0
    ran.clear()
    _measure(latency.NAME, latency, latency.LatencyConfig(), _hosts(4), 1)
    assert ran == ["h0->h1"]


def test_more_than_there_are_or_netmatrix_with_hosts_is_refused_at_run_time_too(ran):
    # Refused before anything starts (below); these guards keep a source that cannot count honest.
    with pytest.raises(VbenchError, match="2 asked"):
        _measure("iperf3", iperf3, iperf3.Iperf3Config(), _hosts(2), 2)
    lay = SimpleNamespace()
    with pytest.raises(VbenchError, match="no `hosts`"):
        measure.measure_micro(
            _hosts(3), measure.Planned(netmatrix.NAME, None, netmatrix, 1), lambda _l: None, layout=lay
        )
    assert ran == []


# -- refused before anything starts -------------------------------------------------------------------
@pytest.mark.parametrize(
    "data, field, words",
    [
        ({"calibrate": [{"benchmark": "cpu", "hosts": True}]}, "calibrate[0].hosts", "integer"),
        ({"calibrate": [{"benchmark": "cpu", "hosts": 0}]}, "calibrate[0].hosts", "at least 1"),
        ({"suite": [{"benchmark": "pi", "hosts": 1}]}, "suite[0].hosts", "Hadoop cluster"),
        ({"calibrate": [{"benchmark": "terasort", "hosts": 1}]}, "calibrate[0].hosts", "Hadoop benchmark"),
        (
            {"calibrate": [{"benchmark": "cpu"}, {"benchmark": "netmatrix", "hosts": 1}]},
            "calibrate[1].hosts",
            "unmeasured",
        ),
    ],
)
def test_hosts_where_it_means_nothing_is_refused_naming_the_file_and_field(tmp_path, data, field, words):
    path = tmp_path / "e.yaml"
    path.write_text(yaml.safe_dump({"experiment": {"name": "x", **data}}))
    with pytest.raises(ParamsError) as err:
        load_experiment(path)
    assert err.value.field == f"{path}: experiment.{field}" and words in err.value.message


def test_more_hosts_than_the_testbed_has_is_refused_with_the_files_name(tmp_path):
    path = tmp_path / "e.yaml"
    calibrate = [{"benchmark": "cpu", "hosts": 1}, {"benchmark": "fio", "hosts": 4}]
    path.write_text(yaml.safe_dump({"experiment": {"name": "x", "workers": 2, "calibrate": calibrate}}))
    with pytest.raises(ParamsError) as err:
        load_study(ROOT / "params", path)
    assert err.value.field == f"{path}: configuration native: experiment.calibrate[1].hosts"
    assert "4 asked, and the testbed has 3 hosts" in err.value.message


def test_the_runner_refuses_too_many_hosts_or_pairs_before_anything_starts():
    def params(calibrate, source=LOCAL, workers=2):
        e = Experiment.model_validate({"name": "x", "workers": workers, "calibrate": calibrate})
        return configuration_params(e, TestbedParams(), HadoopParams(), source, frozenset({"micro"}))

    assert params([{"benchmark": "cpu", "hosts": 3}])  # master and two workers
    with pytest.raises(ParamsError) as err:
        params([{"benchmark": "iperf3", "hosts": 2}], workers=1)  # two hosts: one pair
    assert err.value.field == "configuration native: experiment.calibrate[0].hosts"
    assert "1 pairs of hosts for iperf3 among its 2" in err.value.message
    # An inventory's hosts are counted from its list.
    inventory = SimpleNamespace(local=False, hadoop_overrides={}, host_count=lambda platform: 1)
    with pytest.raises(ParamsError, match="2 asked, and the testbed has 1 hosts"):
        params([{"benchmark": "cpu", "hosts": 2}], source=inventory)
    # Calibration not run: nothing to refuse.
    e = Experiment.model_validate({"name": "x", "calibrate": [{"benchmark": "cpu", "hosts": 9}]})
    assert configuration_params(e, TestbedParams(), HadoopParams(), LOCAL, frozenset({"hadoop"}))


# -- the design hash and the samples --------------------------------------------------------------------
def _reference(**entry) -> Experiment:
    recorded = json.loads(REFERENCE.read_text())["experiment"]
    calibrate = [{**recorded["calibrate"][0], **entry}, *recorded["calibrate"][1:]]
    return Experiment.model_validate({**recorded, "calibrate": calibrate})


def test_a_design_without_hosts_keeps_its_recorded_hash_and_one_with_it_hashes_apart():
    recorded = json.loads(REFERENCE.read_text())["design_hash"]
    assert design_hash(_reference()) == recorded
    assert design_hash(_reference(hosts=None)) == recorded  # campaign.json from now on says null
    assert design_hash(_reference(hosts=1)) not in (recorded, design_hash(_reference(hosts=2)))
    # The cells are the same cells: their ids do not say how many hosts they measure.
    assert [c.cell_id for c in expand(_reference(hosts=1))] == [c.cell_id for c in expand(_reference())]


def test_every_sample_of_such_a_cell_says_how_many_hosts_it_measured_and_no_other_does(tmp_path, fake_machine):
    e = two_platform_design(
        repetitions=1, calibrate=[{"benchmark": "cpu", "hosts": 1}, {"benchmark": "membw"}], suite=[]
    )
    run_campaign(
        e, TestbedParams(), HadoopParams(), tmp_path / "c", log=lambda _l: None, hosts_source=fake_machine.source
    )
    said = {
        (r["metadata"]["cell_id"].rsplit("/", 1)[1], r["metadata"].get("hosts_measured"))
        for r in read_ledger(tmp_path / "c" / "samples.jsonl").records
    }
    assert said == {("cpu", 1), ("membw", None)}

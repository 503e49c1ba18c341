"""The iperf3 matrix as a benchmark of campaigns (Jeong et al., Fig. 4): its samples, the design's
check before anything starts, and the paper's table of it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from vbench.benchmarks import netmatrix, registry
from vbench.benchmarks.base import StepOutput, replace
from vbench.campaign.design import make_experiment
from vbench.campaign.runner import configuration_params
from vbench.errors import ParamsError
from vbench.params import hadoop_params
from vbench.params import testbed_params as make_testbed
from vbench.paper.tables.grid import has_data
from vbench.paper.tables.micro import table_netmatrix
from vbench.paper.results import campaign_statistics, lookup_of
from vbench.stats.campaign import load_campaign
from vbench.stats.campaign_stats import StatsConfig
from vbench.testbed import physnet

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
TEXT = (DATA / "iperf3.json").read_text()


def _layout(mode="nat"):
    tb = make_testbed(
        {
            "name": "n1",
            "workers": 3,
            "vms_per_host": 2,
            "network": {"bridge": "n1br", "subnet": "10.201.0.0/24", "mode": mode, "link": {"rate_mbit": 200}},
        }
    )
    return physnet.layout(tb)


def test_it_is_a_calibration_benchmark_with_the_studys_preset():
    kind, module = registry.find("netmatrix")
    assert kind == "micro" and module is netmatrix
    assert netmatrix.PRESETS["jeong2017"].duration_s == 10
    with pytest.raises(ParamsError) as info:
        netmatrix.NetmatrixConfig(duration_s=2, omit_s=2)
    assert info.value.field == "omit_s"


def test_a_pairs_samples_say_which_pair_which_way_and_their_cell():
    lay = _layout()
    pair = next(p for p in netmatrix.pairs(lay) if p.kind == netmatrix.OTHER_HOST)
    cfg = netmatrix.NetmatrixConfig(duration_s=10, omit_s=1, reverse=True)
    samples = {s.metric: s for s in netmatrix.pair_samples(TEXT, pair, lay, cfg)}
    # Receiving, the client knows no RTT or retransmits of the sender (iperf3 -R prints zeros).
    assert set(samples) == {"throughput_mean"}
    sent = {s.metric: s for s in netmatrix.pair_samples(TEXT, pair, lay, replace(cfg, reverse=False))}
    assert set(sent) == {"throughput_mean", "rtt_mean", "retransmits"}
    doc = json.loads(TEXT)
    assert samples["throughput_mean"].value == pytest.approx(doc["end"]["sum_received"]["bits_per_second"] / 1e6)
    assert sent["retransmits"].value == 20 and sent["rtt_mean"].unit == "ms" and sent["rtt_mean"].value > 0
    meta = samples["throughput_mean"].metadata
    assert meta["pair"] == netmatrix.OTHER_HOST and meta["jeong_label"] == "VM11-PM"
    assert meta["direction"] == "receive" and meta["size"] == "guest-to-other-host/receive"
    assert (meta["client"], meta["server"], meta["configured_mbit"]) == ("worker1", "host:pm", 200)
    # Within one host the path is not shaped: no configured rate.
    same = next(p for p in netmatrix.pairs(lay) if p.kind == netmatrix.SAME)
    assert netmatrix.pair_samples(TEXT, same, lay, cfg)[0].metadata["configured_mbit"] is None
    # The contract's parse reads the same output.
    assert netmatrix.parse({"netmatrix": StepOutput(TEXT, "", 1.0)}, cfg)[0].value == samples["throughput_mean"].value


def _design(**extra):
    return make_experiment(
        {
            "name": "nm",
            "experiment": "netmatrix",
            "platforms": ["native"],
            "workers": 3,
            "calibrate": [{"benchmark": "netmatrix", "config": {"duration_s": 2}}],
            **extra,
        }
    )


LOCAL = SimpleNamespace(local=True)


def test_a_design_measuring_the_matrix_needs_emulated_physical_hosts_before_anything_starts():
    tb, hp = make_testbed({"name": "n1"}), hadoop_params()
    with pytest.raises(ParamsError) as info:
        configuration_params(_design(), tb, hp, LOCAL, frozenset({"micro"}))
    assert "experiment.calibrate[0]" in info.value.field and "emulated physical hosts" in str(info.value)
    # Two guests per host: the pairs exist.
    params = configuration_params(_design(testbed={"vms_per_host": 2}), tb, hp, LOCAL, frozenset({"micro"}))
    assert len(params) == 1
    # The suite alone does not run it.
    assert configuration_params(_design(), tb, hp, LOCAL, frozenset({"hadoop"}))


def test_an_inventorys_hosts_cannot_measure_it():
    remote = SimpleNamespace(local=False, hadoop_overrides={})
    with pytest.raises(ParamsError) as info:
        configuration_params(_design(), make_testbed({"name": "n1"}), hadoop_params(), remote, frozenset({"micro"}))
    assert "inventory" in str(info.value)


# -- the paper's table --------------------------------------------------------------------------------


def _campaign(root: Path, throughput: dict[tuple[str, str, bool], list[float]]) -> Path:
    """A campaign directory of netmatrix samples as the runner stores them: (mode, pair kind,
    reverse) -> one throughput per block, the design comparing network modes to bridge."""
    d = root / "nm"
    d.mkdir()
    recs = []
    for (mode, kind, reverse), values in throughput.items():
        lay = _layout(mode)
        pair = next(p for p in netmatrix.pairs(lay) if p.kind == kind)
        cfg = netmatrix.NetmatrixConfig(duration_s=10, omit_s=1, reverse=reverse)
        doc = json.loads(TEXT)
        for block, v in enumerate(values):
            doc["end"]["sum_received"]["bits_per_second"] = v * 1e6
            for s in netmatrix.pair_samples(json.dumps(doc), pair, lay, cfg):
                meta = {
                    **s.metadata,
                    "campaign": "nm",
                    "experiment": "netmatrix",
                    "platform": "native",
                    "factor.network.mode": mode,
                    "block": block,
                    "round": 0,
                    "repetition": block,
                    "run_id": f"nm-{mode}-{kind}-{reverse}-{block}",
                }
                recs.append({**s.to_dict(), "metadata": meta})
    (d / "samples.jsonl").write_text("".join(json.dumps(r, default=str) + "\n" for r in recs))
    design = {"experiment": "netmatrix", "compare": ["network.mode"], "baseline": "bridge", "platforms": ["native"]}
    (d / "campaign.json").write_text(json.dumps({"experiment": design}))
    return d


def _row(tex: str, first: str) -> list[str]:
    line = next(ln for ln in tex.splitlines() if ln.startswith(first))
    return [c.strip() for c in line.rstrip("\\ ").split("&")]


def test_the_matrix_table_has_a_row_per_pair_and_direction_and_a_column_per_mode(tmp_path):
    data = {
        ("bridge", netmatrix.SAME, False): [2000, 2100, 1900],
        ("bridge", netmatrix.SAME, True): [1800, 1900, 2000],
        ("nat", netmatrix.SAME, False): [9000, 9100, 8900],
        ("bridge", netmatrix.OTHER_HOST, False): [190, 191, 189],
        ("nat", netmatrix.OTHER_HOST, False): [180, 181, 179],
    }
    campaign = load_campaign(_campaign(tmp_path, data))
    stats, note = campaign_statistics(campaign, StatsConfig(n_resamples=200))
    tex = table_netmatrix(lookup_of(stats), campaign.samples)
    assert has_data(tex) and r"\label{tab:netmatrix}" in tex, note
    header = next(ln for ln in tex.splitlines() if ln.startswith("Pair"))
    assert header.index("bridge") < header.index("nat")  # the baseline mode first
    same = _row(tex, "VM11-VM12")
    assert same[1] == "send" and "2000" in same[2] and "9000" in same[3]
    receive = _row(tex, " & receive")
    assert "1900" in receive[2] and receive[3] == r"\textemdash"
    other = _row(tex, "VM11-PM")
    assert "190" in other[2] and "180" in other[3]
    # Pairs with no sample have no row; the shaped link's rate is said once.
    assert "VM11-VM21" not in tex and "VM11-HM1" not in tex
    assert "shaped to 200" in tex and "$n=3$" in tex


def test_without_a_matrix_the_table_says_not_measured():
    assert not has_data(table_netmatrix(lookup_of(pd.DataFrame()), pd.DataFrame()))


def test_in_a_campaign_each_pair_is_a_run_and_a_failed_pair_a_failure_record(monkeypatch):
    from vbench.benchmarks import netmatrix_measure
    from vbench.campaign import measure
    from vbench.errors import JobFailed

    lay = _layout()

    def measure_pair(pair, lay, by_name, cfg):
        if pair.kind == netmatrix.CROSS:
            raise JobFailed("iperf3: the server on worker3 (10.201.0.13) is not listening on TCP port 5211")
        return TEXT

    monkeypatch.setattr(netmatrix_measure, "measure_pair", measure_pair)
    hosts = [SimpleNamespace(name=g.name, platform="native") for g in lay.guests]
    cfg = netmatrix.NetmatrixConfig(duration_s=2, omit_s=1)
    runs = measure.measure_micro(hosts, measure.Planned("netmatrix", cfg, netmatrix), lambda _: None, layout=lay)
    assert [r.samples[0].metadata["pair"] if r.ok else r.failure.metadata["pair"] for r in runs] == [
        p.kind for p in netmatrix.pairs(lay)
    ]
    (failed,) = [r for r in runs if not r.ok]
    assert "not listening" in failed.failure.reason and failed.failure.metadata["server"] == "worker3"
    assert all(s.metadata["host"] == "worker1" for r in runs if r.ok for s in r.samples)
    with pytest.raises(Exception, match="network layout"):
        measure.measure_micro(hosts, measure.Planned("netmatrix", cfg, netmatrix), lambda _: None)

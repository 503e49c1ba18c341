"""This machine's CPU-probe reference from the campaigns beside a new one, and the gate's use of it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.unit.builders import quiet_readings
from vbench.campaign import quiet as Q
from vbench.campaign.machine_ref import (
    ProbeReference,
    campaign_probe_ms,
    quiet_probes,
    reference_beside,
    reference_of,
)
from vbench.samples import Sample, append_records, join_values
from vbench.testbed.facts import parse_cpu_model

REPO = Path(__file__).resolve().parents[2]


def _sample(probe, block=0, rnd=0, verdict="ok", model="AMD EPYC", metric="t"):
    md = {"block": block, "round": rnd, "quiet.verdict": verdict, "quiet.cpu_probe_ms": probe}
    if model is not None:
        md["cpu_model"] = model
    return Sample("pi", metric, 1.0, "s", md)


def test_each_gate_reading_counts_once_and_only_quiet_readings_of_one_named_cpu_count():
    records = [
        _sample(40.0, 0, 0, metric="t"),
        _sample(40.0, 0, 0, metric="u"),  # the same gate's reading on another sample of its round
        _sample(42.0, 0, 1),
        _sample(44.0, 1, 0, verdict="waited"),
        _sample(90.0, 1, 1, verdict="flagged"),  # not a quiet machine: not this machine's speed
        _sample(41.0, 2, 0, model=None),  # no CPU recorded: names no machine
        _sample(43.0, 2, 1, model=join_values(["AMD EPYC", "Intel Xeon"])),  # a cell across two machines
        _sample(20.0, 3, 0, model="Intel Xeon"),
        Sample("pi", "t", 1.0, "s", {"block": 4, "cpu_model": "AMD EPYC", "quiet.verdict": "ok"}),  # no probe
    ]
    assert quiet_probes(r.metadata for r in records) == {"AMD EPYC": [40.0, 42.0, 44.0], "Intel Xeon": [20.0]}
    # The median over every quiet reading once, whatever CPU it names (the paper's per-campaign figure).
    assert campaign_probe_ms(r.metadata for r in records) == 41.5  # 40, 42, 44, 41, 43, 20

    # The same samples as a DataFrame's rows (the paper's view): NaN where a sample had no field,
    # blocks and rounds as floats. The same readings, each once.
    frame = pd.DataFrame([r.metadata for r in records])
    assert frame["quiet.cpu_probe_ms"].isna().any() and frame["block"].dtype == "int64"
    rows = frame.astype({"block": float, "round": float}).to_dict("records")
    assert quiet_probes(rows) == {"AMD EPYC": [40.0, 42.0, 44.0], "Intel Xeon": [20.0]}
    assert campaign_probe_ms(rows) == 41.5
    assert (
        campaign_probe_ms([{"quiet.verdict": "ok"}, {"quiet.cpu_probe_ms": float("nan"), "quiet.verdict": "ok"}])
        is None
    )


def test_the_reference_is_the_median_of_the_campaigns_medians_each_campaign_one_vote():
    found = {
        "long": {"AMD EPYC": [40.0] * 50},
        "slow-day": {"AMD EPYC": [56.0, 58.0, 60.0]},
        "short": {"AMD EPYC": [38.0, 39.0]},
        "other-cpu": {"Intel Xeon": [20.0]},
        "no-probes": {},
    }
    ref = reference_of(found, "AMD EPYC")
    assert ref == ProbeReference("AMD EPYC", 40.0, (("long", 40.0), ("short", 38.5), ("slow-day", 58.0)))
    assert "40.0 ms, the median of 3 campaigns on AMD EPYC (long 40.0, short 38.5, slow-day 58.0 ms)" == (
        ref.describe()
    )
    assert reference_of(found, "Intel Xeon").median_ms == 20.0
    assert reference_of(found, "ARM Neoverse") is None and reference_of(found, "") is None


def test_the_cpu_model_is_read_as_the_hosts_facts_read_it():
    cpuinfo = (
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13  \nprocessor\t: 1\nmodel name\t: X\n"
    )
    assert parse_cpu_model(cpuinfo) == "AMD EPYC 7B13"
    assert parse_cpu_model("processor\t: 0\nBogoMIPS\t: 50.00\n") == ""  # e.g. arm64: no model name


def test_the_campaigns_beside_this_one_give_the_reference_and_this_one_and_broken_ones_do_not(tmp_path):
    raw = tmp_path / "raw"
    append_records(raw / "monday" / "samples.jsonl", [_sample(40.0, 0, 0), _sample(42.0, 1, 0)])
    append_records(raw / "tuesday" / "samples.jsonl", [_sample(60.0, 0, 0)])
    append_records(raw / "this" / "samples.jsonl", [_sample(500.0, 0, 0)])  # the run's own: not its reference
    (raw / "broken").mkdir()
    (raw / "broken" / "samples.jsonl").write_text('{"kind": "sample", "benchmark": ""}\n')
    (raw / "notes.txt").write_text("not a campaign")
    ref = reference_beside(raw / "this", "AMD EPYC")
    assert ref is not None and ref.campaigns == (("monday", 41.0), ("tuesday", 60.0)) and ref.median_ms == 50.5
    assert reference_beside(raw / "this", "Intel Xeon") is None
    assert reference_beside(tmp_path / "nowhere" / "c", "AMD EPYC") is None


def test_on_the_committed_campaigns_the_slow_day_shows_against_the_machines_reference():
    # The committed campaigns that stamped their CPU and ran the probe: speculation-confirm ran on
    # a slower day than the others (docs/results.md, "The interaction, asked").
    ref = reference_beside(REPO / "data" / "raw" / "a-new-campaign", "AMD EPYC")
    assert ref is not None
    by_name = dict(ref.campaigns)
    assert {"speculation", "speculation-confirm"} <= set(by_name)
    # Each later campaign moves the reference (the median of them all), so the two are read against
    # each other and on either side of it: 56.8 against 38.3 ms (x1.48), the reference 45.6 ms with
    # the campaigns of 2026-12-06 (44.5 before them).
    assert by_name["speculation"] < ref.median_ms < by_name["speculation-confirm"]
    assert by_name["speculation-confirm"] / by_name["speculation"] > 1.4


def _readings(probe):
    return quiet_readings(busy_pct=1.0, mem_available_mb=20000, governor="not exposed", cpu_probe_ms=probe)


def test_a_probe_slower_than_the_machines_reference_is_said_stamped_and_judged_when_asked():
    plain = Q.gate(Q.QuietParams(), own=(), measure=lambda w, own: _readings(60.0), machine_ref_ms=40.0)
    assert plain.verdict == Q.OK  # recorded, not judged, by default
    assert "CPU probe 60.0 ms (x1.50 this machine's reference)" in plain.line()
    assert Q.stamp(plain)["quiet.cpu_probe_machine_ms"] == 40.0
    strict = Q.QuietParams(max_machine_slowdown=0.25)
    slow = Q.gate(strict, own=(), measure=lambda w, own: _readings(60.0), probe_ref_ms=59.0, machine_ref_ms=40.0)
    assert slow.verdict == Q.FLAGGED
    assert slow.reasons == ("the CPU probe took 60.0 ms, 50 % over this machine's reference 40.0 ms (max 25 %)",)
    assert "(x1.02 the run's median, x1.50 this machine's reference)" in slow.line()
    fine = Q.gate(strict, own=(), measure=lambda w, own: _readings(45.0), machine_ref_ms=40.0)
    assert fine.verdict == Q.OK and fine.reasons == ()
    unknown = Q.gate(strict, own=(), measure=lambda w, own: _readings(60.0))
    assert unknown.verdict == Q.OK and "quiet.cpu_probe_machine_ms" not in Q.stamp(unknown)


def test_the_local_gate_reads_the_reference_beside_the_campaign_and_says_it(tmp_path, monkeypatch):
    from vbench.campaign import runner
    from vbench.campaign.design import make_experiment
    from vbench.params import HadoopParams, TestbedParams

    append_records(tmp_path / "raw" / "earlier" / "samples.jsonl", [_sample(40.0, 0, 0, model="Test CPU")])
    exp = make_experiment({"name": "e", "platforms": ["native"], "suite": [{"benchmark": "pi"}]})
    params = {"native": (TestbedParams(name="vb"), HadoopParams())}

    class Local:
        local = True

    said: list[str] = []
    monkeypatch.setattr(runner, "this_cpu_model", lambda: "Test CPU")
    hook = runner.gate_hook(exp, params, Local(), said.append, tmp_path / "raw" / "new")
    assert isinstance(hook, Q.QuietHook) and hook.machine_ref.median_ms == 40.0
    assert said == [
        "quiet gate: this machine's CPU probe reference: 40.0 ms, the median of 1 campaign on Test CPU (earlier 40.0 ms)"
    ]
    said.clear()
    monkeypatch.setattr(runner, "this_cpu_model", lambda: "Other CPU")
    hook = runner.gate_hook(exp, params, Local(), said.append, tmp_path / "raw" / "new")
    assert hook.machine_ref is None and said == [
        "quiet gate: no campaign beside this one recorded a quiet CPU probe on Other CPU: "
        "each probe is judged against this run's own"
    ]


@pytest.mark.parametrize("given", [{"max_machine_slowdown": -0.1}, {"max_machine_slowdown": 11}])
def test_a_bad_machine_slowdown_is_refused(given):
    with pytest.raises(ValueError, match="max_machine_slowdown"):
        Q.QuietParams(**given)

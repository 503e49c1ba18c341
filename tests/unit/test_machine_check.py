"""`vbench campaign check`: is the machine quiet and at its usual speed before a campaign starts."""

from __future__ import annotations

import pytest

from tests.unit.builders import quiet_readings
from vbench import cli
from vbench.campaign import quiet as Q
from vbench.campaign.machine_check import DEFAULT_MAX_SLOWDOWN, check
from vbench.campaign.machine_ref import ProbeReference
from vbench.testbed.facts import this_cpu_model
from vbench.samples import Sample, append_records

REF = ProbeReference("AMD EPYC", 40.0, (("earlier", 40.0),))


def _measure(probes: list[float], outside: list[float] | None = None):
    """Readings whose CPU probe (and outside CPU) follow the lists, one value per call."""
    calls = iter(zip(probes, outside or [0.0] * len(probes)))

    def measure(window_s, own):
        probe, out = next(calls)
        top = ((7, "job", out),)
        return quiet_readings(outside_cpu_pct=out, top_outside=top, window_s=window_s, cpu_probe_ms=probe)

    return measure


def _check(probes, outside=None, reference=REF, params=None, **kw):
    said: list[str] = []
    result = check(
        params or Q.QuietParams(),
        reference,
        {1},
        readings=len(probes),
        measure=_measure(probes, outside),
        log=said.append,
        **kw,
    )
    return result, said


def test_a_quiet_machine_at_its_usual_speed_is_ready_and_each_reading_is_said():
    result, said = _check([41.0, 44.0, 39.0])
    assert result.ready and result.probe_ms == 41.0 and result.slowdown == pytest.approx(1.025)
    assert len(said) == 3 and said[0].startswith("machine check 1/3: quiet gate: ok (")
    assert "CPU probe 41.0 ms (x1.02 this machine's reference)" in said[0]
    assert result.summary() == [
        "machine check: CPU probe median 41.0 ms over 3 readings (39.0-44.0), x1.02 this machine's reference "
        "(max x1.25): its usual speed",
        "machine check: 3 of 3 readings quiet",
        "machine check: ready to measure",
    ]


def test_a_slow_day_is_judged_on_the_median_not_on_one_probe():
    # One slow probe among usual ones: a single probe spreads 40-75 ms on an idle machine.
    result, _ = _check([41.0, 75.0, 42.0, 40.0, 43.0])
    assert result.ready and not result.slow
    # Most of them slow: the day is slow, though every reading is quiet.
    result, _ = _check([62.0, 41.0, 60.0, 64.0, 58.0])
    assert result.slow and not result.noisy and not result.ready
    assert "x1.50 this machine's reference (max x1.25): slower than on the days" in result.summary()[0]
    assert result.summary()[-1] == "machine check: not now"


def test_the_limit_is_the_option_else_the_designs_else_the_default():
    probes = [48.0] * 3  # x1.20
    assert _check(probes)[0].max_slowdown == DEFAULT_MAX_SLOWDOWN and _check(probes)[0].ready
    designed = Q.QuietParams(max_machine_slowdown=0.1)
    assert _check(probes, params=designed)[0].max_slowdown == 0.1 and not _check(probes, params=designed)[0].ready
    assert _check(probes, params=designed, max_slowdown=0.3)[0].ready


def test_a_busy_machine_is_not_ready_and_says_who():
    result, said = _check([40.0, 40.0, 40.0], outside=[0.0, 90.0, 0.0])
    assert not result.slow and not result.ready and len(result.noisy) == 1
    assert "quiet gate: flagged" in said[1] and "job[7] 90 %" in said[1]
    assert result.summary()[1].startswith("machine check: 2 of 3 readings quiet; not quiet: processes outside")


def test_single_probes_are_not_judged_by_the_designs_probe_limits():
    params = Q.QuietParams(max_cpu_slowdown=0.05, max_machine_slowdown=0.05)
    result, said = _check([40.0, 46.0, 40.0], params=params)  # the middle one x1.15
    assert not result.noisy and all("quiet gate: ok" in s for s in said)
    assert result.ready  # the median is x1.00


def test_without_a_reference_the_speed_is_unknown_and_only_quietness_counts():
    result, _ = _check([70.0, 71.0], reference=None)
    assert result.ready and result.slowdown is None
    assert "its usual speed is unknown" in result.summary()[0]


def test_the_command_reads_this_machine_against_the_campaigns_beside_and_refuses_bad_options(tmp_path, capsys):
    model = this_cpu_model()
    earlier = Sample("cpu", "t", 1.0, "s", {"cpu_model": model, "quiet.verdict": "ok", "quiet.cpu_probe_ms": 1e6})
    append_records(tmp_path / "raw" / "earlier" / "samples.jsonl", [earlier])
    # A reference a million ms long: this machine is far faster, so its speed never says "not now".
    rc = cli.main(["campaign", "check", "quick", "--data", str(tmp_path), "--readings", "1"])
    out = capsys.readouterr().out
    assert f"this machine's CPU probe reference: 1000000.0 ms, the median of 1 campaign on {model}" in out
    assert "machine check 1/1: quiet gate: " in out and "this machine's reference (max x1.25): its usual speed" in out
    # Quiet or not depends on what else runs beside the test (another test worker): both are said.
    assert ("ready to measure" in out) == (rc == 0) and ("not now" in out) == (rc == 1)
    for bad, field in ((["--readings", "0"], "--readings"), (["--max-slowdown", "-1"], "--max-slowdown")):
        assert cli.main(["campaign", "check", "quick", "--data", str(tmp_path), *bad]) == 2
        assert field in capsys.readouterr().err

"""selfbench.gvisor_call_kinds' pure parts: the commands, the payload's line, a mix's price and the
summary; and the payload itself, run natively (its gVisor runs need root and runsc)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from selfbench import gvisor_call_kinds as kinds


def test_runs_are_held_to_cpu_0_and_gvisor_runs_through_the_gofer_without_network():
    native = kinds.argv_of("native", Path("/t/p.py"), 100, Path("/t/w"))
    assert native == ["taskset", "-c", "0", "python3", "-u", "/t/p.py", "100", "/t/w"]
    gvisor = kinds.argv_of("gvisor", Path("/t/p.py"), 100, Path("/t/w"), spread=True)
    assert gvisor[:5] == ["runsc", "--network=none", "--platform=ptrace", "do", "-force-overlay=false"]
    assert gvisor[5:] == native[3:]
    with pytest.raises(ValueError, match="unknown way"):
        kinds.argv_of("oci", Path("/t/p.py"), 100, Path("/t/w"))


def test_parse_wants_every_kind():
    line = "{" + ", ".join(f'"{k}": 1.5' for k in kinds.KINDS) + "}"
    assert kinds.parse("noise\n" + line + "\n") == {k: 1.5 for k in kinds.KINDS}
    with pytest.raises(ValueError, match="lacks pingpong"):
        kinds.parse(line.replace('"pingpong"', '"other"'))
    with pytest.raises(ValueError, match="no result line"):
        kinds.parse("Traceback\n")


def test_a_mixs_price_weights_each_names_extra_splits_pairs_and_prices_futex_two_ways():
    extra = {k: 20.0 for k in kinds.KINDS}
    extra.update(open_close=50.0, futex=10.0, pingpong=160.0, fault=0.5)
    mix = {"gettid": 50.0, "futex": 25.0, "close": 10.0, "brk": 15.0}
    got = kinds.mix_price(extra, mix, untimed_us=30.0)
    # gettid 20, futex 10 (a wake) or 40 (a quarter of a pingpong), close half the pair's 50, brk untimed at 30
    assert got.wake_us == pytest.approx((50 * 20 + 25 * 10 + 10 * 25 + 15 * 30) / 100)
    assert got.blocking_us == pytest.approx((50 * 20 + 25 * 40 + 10 * 25 + 15 * 30) / 100)
    assert got.timed_share == pytest.approx(0.85)
    with pytest.raises(ValueError, match="no calls"):
        kinds.mix_price(extra, {}, 30.0)


def test_summary_gives_each_kinds_extra_in_one_byte_calls_and_the_mixs_price():
    native = {k: 1.0 for k in kinds.KINDS}
    gvisor = {k: 23.5 for k in kinds.KINDS}
    text = kinds.summary({"native": [native], "gvisor": [gvisor, gvisor]}, {"gettid": 1.0}, untimed_us=22.5)
    row = next(line for line in text.splitlines() if line.startswith("gettid"))
    assert row.split()[-2:] == ["22.50", "1.00"]
    assert "22.5 us extra per call with futex a wake" in text


def test_parse_mix_reads_name_percent_pairs_and_names_a_bad_one():
    assert kinds.parse_mix(["futex=15.2", "gettid=26"]) == {"futex": 15.2, "gettid": 26.0}
    with pytest.raises(ValueError, match="NAME=PERCENT"):
        kinds.parse_mix(["futex"])


def test_the_payload_runs_natively_and_times_every_kind(tmp_path):
    payload = tmp_path / "p.py"
    payload.write_text(kinds.PAYLOAD)
    work = tmp_path / "w"
    work.mkdir()
    r = subprocess.run(["python3", str(payload), "50", str(work)], capture_output=True, text=True, check=True)
    got = kinds.parse(r.stdout)
    assert all(v > 0 for v in got.values())

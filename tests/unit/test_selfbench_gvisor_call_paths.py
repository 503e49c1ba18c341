"""selfbench/gvisor_call_paths.py's pure parts: the command of each way, the payload's line, the
summary's ratios, and the payload itself run natively (no sandbox: seconds)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.unit.selfbench_scripts import load


@pytest.fixture(scope="module")
def G():
    return load("gvisor_call_paths")


def test_each_way_runs_the_same_payload_and_only_the_gofer_way_drops_runsc_dos_overlay(G, tmp_path):
    native = G.argv_of("native", tmp_path / "p.py", 100, tmp_path)
    gofer = G.argv_of("gvisor", tmp_path / "p.py", 100, tmp_path)
    memory = G.argv_of("gvisor-memory", tmp_path / "p.py", 100, tmp_path)
    assert gofer[-len(native) :] == native and memory[-len(native) :] == native
    assert "-force-overlay=false" in gofer and "-force-overlay=false" not in memory
    assert gofer.index("do") < gofer.index("-force-overlay=false")  # a flag of `do`, not of runsc


def test_the_payloads_line_is_read_past_what_runsc_prints_before_it(G):
    assert G.parse('starting\n{"call_us": 0.5, "open_us": 20}\n') == {"call_us": 0.5, "open_us": 20.0}
    with pytest.raises(ValueError, match="no result line"):
        G.parse("runsc: error\n")


def test_the_summary_gives_the_ratio_to_native_and_the_cost_in_one_byte_calls(G):
    def rounds(call, open_):
        return [dict.fromkeys(G.OPS, 10.0) | {"call_us": call, "open_us": open_}] * 3

    text = G.summary({"native": rounds(0.5, 20.0), "gvisor": rounds(50.0, 600.0)})
    open_line = next(line for line in text.splitlines() if line.startswith("open_us"))
    assert "x  30.0" in open_line  # 600 / 20
    assert "=  12.0c" in open_line  # 600 / 50: twelve of gVisor's one-byte calls
    assert "=  40.0c" in open_line  # native: 20 / 0.5


def test_the_payload_runs_natively_and_times_every_operation(G, tmp_path):
    payload = tmp_path / "payload.py"
    payload.write_text(G.PAYLOAD)
    r = subprocess.run([sys.executable, str(payload), "200", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    got = G.parse(r.stdout)
    assert set(got) == set(G.OPS)
    assert all(v > 0 for v in got.values()), got
    assert not (tmp_path / "blk_0").exists()  # its file removed

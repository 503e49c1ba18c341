"""selfbench.gvisor_call_pollution's pure parts: the commands, the walker's line, a call's price and
the summary; and the walker itself, compiled and run natively where cc is (its gVisor runs need root
and runsc)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from selfbench import gvisor_call_pollution as pol


def test_runs_are_held_to_cpu_0_and_gvisor_runs_in_a_ptrace_sandbox():
    native = pol.argv_of("native", Path("/t/walk"), 1024, 10, 5, True)
    assert native == ["taskset", "-c", "0", "/t/walk", "1024", "10", "5", "1"]
    gvisor = pol.argv_of("gvisor", Path("/t/walk"), 1024, 10, 5, False, spread=True)
    assert gvisor == ["runsc", "--network=none", "--platform=ptrace", "do", "/t/walk", "1024", "10", "5", "0"]
    with pytest.raises(ValueError, match="unknown way"):
        pol.argv_of("qemu", Path("/t/walk"), 1024, 10, 5, True)


def test_parse_reads_the_walkers_line():
    assert pol.parse('x\n{"ns_per_iter": 123.5, "sink": 7}\n') == 123.5
    with pytest.raises(ValueError, match="no result line"):
        pol.parse("")


def test_a_calls_price_is_the_median_with_less_the_median_without_in_us():
    walks = [
        pol.Walk("gvisor", 1 << 20, True, 25_000.0),
        pol.Walk("gvisor", 1 << 20, True, 24_000.0),
        pol.Walk("gvisor", 1 << 20, True, 90_000.0),
        pol.Walk("gvisor", 1 << 20, False, 1_000.0),
    ]
    assert pol.call_price(walks, "gvisor", 1 << 20) == pytest.approx(24.0)
    assert pol.call_price(walks, "native", 1 << 20) is None


def test_summary_gives_gvisors_extra_per_working_set():
    walks = [
        pol.Walk("native", 16 << 10, False, 300.0),
        pol.Walk("native", 16 << 10, True, 350.0),
        pol.Walk("gvisor", 16 << 10, False, 310.0),
        pol.Walk("gvisor", 16 << 10, True, 22_660.0),
    ]
    row = pol.summary(walks, 200).splitlines()[1].split()
    assert row[:2] == ["16", "KiB"] and row[-3:] == ["0.05", "22.35", "22.30"]


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs cc")
def test_the_walker_compiles_and_a_call_costs_more_than_none(tmp_path):
    src, binary = tmp_path / "walk.c", tmp_path / "walk"
    src.write_text(pol.SOURCE)
    subprocess.run(["cc", "-O2", "-o", str(binary), str(src)], check=True)
    out = subprocess.run([str(binary), "65536", "2000", "50", "1"], capture_output=True, text=True, check=True)
    assert pol.parse(out.stdout) > 0

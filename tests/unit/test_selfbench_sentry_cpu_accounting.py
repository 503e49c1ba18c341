"""selfbench.sentry_cpu_accounting's pure parts: the commands, the payload's line, the machine's
ticks less the competitors', and the summary. Its runs need root and runsc (not run here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from selfbench import sentry_cpu_accounting as acct


def test_native_runs_the_payload_and_gvisor_runs_it_in_a_ptrace_sandbox_without_network():
    native = acct.argv_of("native", Path("/t/spin.py"), 6.0)
    assert native == ["python3", "-u", "/t/spin.py", "6"]
    gvisor = acct.argv_of("gvisor", Path("/t/spin.py"), 2.5)
    assert gvisor[:4] == ["runsc", "--network=none", "--platform=ptrace", "do"] and gvisor[4:] == [
        "python3",
        "-u",
        "/t/spin.py",
        "2.5",
    ]


def test_parse_reads_the_last_spin_line_and_refuses_output_without_one():
    assert acct.parse("noise\nspin wall_s=6.001 reported_cpu_s=5.990\n") == (6.001, 5.99)
    with pytest.raises(ValueError, match="no 'spin"):
        acct.parse("Traceback ...\n")


def test_the_payloads_cpu_is_the_machines_busy_less_its_competitors():
    assert acct.payload_cpu_s((1000, 2400), (500, 1300), hz=100) == pytest.approx(6.0)
    # Never below zero when the competitors' ticks outrun the aggregate's between two reads.
    assert acct.payload_cpu_s((1000, 1100), (0, 150), hz=100) == 0.0


def test_summary_gives_medians_and_the_reported_over_machine_ratio_per_way_and_competitors():
    spins = [
        acct.Spin("gvisor", 2, 6.0, 6.1, 4.0),
        acct.Spin("gvisor", 2, 6.0, 5.9, 4.2),
        acct.Spin("gvisor", 2, 6.2, 6.0, 3.8),
        acct.Spin("native", 2, 6.0, 4.0, 4.0),
        acct.Spin("native", 0, 6.0, 6.0, 0.0),
    ]
    rows = {tuple(line.split()[:2]): line.split() for line in acct.summary(spins).splitlines()[1:-1]}
    assert rows[("gvisor", "2")][2:] == ["3", "6.00", "6.00", "4.00", "1.50"]
    assert rows[("native", "2")][-1] == "1.00"
    assert rows[("native", "0")][-1] == "-"  # no machine CPU read: no ratio


def test_the_payload_spins_and_prints_its_own_cpu(tmp_path):
    # The payload itself, natively for a fifth of a second: its line parses and its CPU is its own.
    payload = tmp_path / "spin.py"
    payload.write_text(acct.PAYLOAD)
    r = subprocess.run([sys.executable, str(payload), "0.2"], capture_output=True, text=True, timeout=60)
    wall, cpu = acct.parse(r.stdout)
    assert 0.2 <= wall < 5 and 0.0 <= cpu <= wall + 0.1

"""selfbench.gvisor_jvm_stops' pure parts: the command, rpc's and perf's lines, an RPC's price from
two runs and the summary. Its runs need root, perf, runsc and java (not run here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfbench import gvisor_jvm_stops as js
from selfbench.call_names import PTRACE, RAW, SWITCHES


def test_perf_counts_calls_sysemu_and_switches_around_rpcs_command_in_the_way_and_condition():
    argv = js.argv_of("gvisor", "one-cpu", 2.0, 6.0, Path("/t/p.csv"))
    dash = argv.index("--")
    assert argv[:3] == ["perf", "stat", "-a"] and argv[dash - 2 : dash] == ["-o", "/t/p.csv"]
    assert argv[argv.index("--filter") + 1] == "request == 31"
    assert argv[dash + 1 : dash + 8] == ["taskset", "-c", "0", "runsc", "--network=none", "--platform=ptrace", "do"]
    assert argv[-2] == "-c" and "RpcPingPong.java 2 1 6 64" in argv[-1]
    assert "busy_loops" not in argv[-1]  # the condition is the CPUs: rpc's own loops are left out
    native = js.argv_of("native", "alone", 8.0, 6.0, Path("/t/p.csv"))
    assert native[native.index("--") + 1 : native.index("--") + 3] == ["sh", "-c"]
    with pytest.raises(ValueError, match="unknown way"):
        js.argv_of("lxc", "alone", 2.0, 6.0, Path("/t/p.csv"))
    with pytest.raises(ValueError, match="unknown condition"):
        js.argv_of("native", "beside-1", 2.0, 6.0, Path("/t/p.csv"))


def test_parse_rpc_counts_warm_up_and_timed_calls_and_prices_the_timed_ones():
    out = "rpc java=/usr/bin/java version=x\nrpc warmup calls=5000 ns=6000000000\nrpc repeat=1 calls=2000 ns=30000000\n"
    assert js.parse_rpc(out) == (7000, pytest.approx(15.0))
    with pytest.raises(ValueError, match="expected 1 rpc warmup and repeat lines, found 0 and 1"):
        js.parse_rpc("rpc repeat=1 calls=2000 ns=30000000\n")
    # Copies: every copy's calls summed, the median copy's price.
    two = out + "rpc warmup calls=4000 ns=6000000000\nrpc repeat=1 calls=1000 ns=25000000\n"
    assert js.parse_rpc(two, copies=2) == (12000, pytest.approx(20.0))
    with pytest.raises(ValueError, match="expected 3"):
        js.parse_rpc(two, copies=3)


def test_copies_run_at_once_each_in_its_own_directory_and_sandbox():
    argv = js.argv_of("gvisor", "alone", 2.0, 6.0, Path("/t/p.csv"), ["/t/copy0", "/t/copy1"])
    script = argv[argv.index("--") + 1 :]
    assert script[:2] == ["sh", "-c"] and script[2].endswith("; wait") and script[2].count("runsc --network=none") == 2
    assert "cd /t/copy0 ||" in script[2] and "cd /t/copy1 ||" in script[2]
    with pytest.raises(ValueError, match="no work directory"):
        js.argv_of("native", "alone", 2.0, 6.0, Path("/t/p.csv"), [])


def test_parse_perf_reads_the_three_counts():
    text = f"# started\n\n1200,,{RAW},100,100.00,,\n90,,{PTRACE},100,100.00,,\n300,,{SWITCHES},100,100.00,,\n"
    assert js.parse_perf(text) == (1200, 90, 300)
    with pytest.raises(ValueError, match="lacks"):
        js.parse_perf(f"1200,,{RAW},100,100.00,,\n")


def test_an_rpcs_price_is_the_long_runs_extra_per_extra_rpc_and_the_summary_prices_a_stop():
    def run(way, calls, cpu, sysc, stops, sw):
        return js.Run(way, "one-cpu", 0, calls, 16.0, cpu, sysc, stops, sw)

    n = js.per_call(run("native", 1000, 1.0, 17_000, 0, 7000), run("native", 3000, 1.04, 51_000, 0, 21_000))
    assert (n.machine_cpu_us, n.syscalls, n.switches) == (pytest.approx(20.0), 17.0, 7.0)
    g = js.per_call(run("gvisor", 100, 2.0, 12_000, 1800, 4700), run("gvisor", 300, 2.1, 36_000, 5400, 14_100))
    assert (g.machine_cpu_us, g.stops) == (pytest.approx(500.0), 18.0)
    row = js.summary([n, g]).splitlines()[2].split()
    assert row[0] == "gvisor" and row[-2:] == [f"{(500 - 20) / 18:.1f}", f"{18 / 17:.2f}"]
    with pytest.raises(ValueError, match="made 100 RPCs"):
        js.per_call(run("gvisor", 300, 0, 0, 0, 0), run("gvisor", 100, 0, 0, 0, 0))

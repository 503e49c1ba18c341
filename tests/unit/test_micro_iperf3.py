"""iperf3 module: client/server command lines, parse of captured JSON, real loopback run."""

from __future__ import annotations

import json
import shlex
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from invoke import Result

from vbench.benchmarks.base import replace
from vbench.benchmarks.micro import iperf3
from vbench.errors import JobFailed

from tests.unit.builders import config_refusal_test, garbage_refusal_test

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
TEXT = (DATA / "iperf3.json").read_text()
CFG = iperf3.Iperf3Config(server="127.0.0.1", port=47239, server_bind="127.0.0.1")  # the capture's


def test_client_argv():
    cfg = iperf3.Iperf3Config(server="10.0.0.5", port=5202)
    argv = iperf3.argv(cfg)
    assert argv == ["iperf3", "-c", "10.0.0.5", *"-p 5202 -t 10 -i 1 -J --connect-timeout 5000".split()]
    assert iperf3.command(cfg) == shlex.join(argv)
    argv = iperf3.argv(iperf3.Iperf3Config(server="vm11", parallel=4, reverse=True, omit_s=2), "/unused")
    assert argv[argv.index("-P") + 1] == "4" and "-R" in argv and argv[argv.index("-O") + 1] == "2"


def test_server_argv_is_one_off():
    assert iperf3.server_argv(iperf3.Iperf3Config(port=5301)) == ["iperf3", "-s", "-1", "-p", "5301"]
    assert iperf3.server_argv(CFG) == ["iperf3", "-s", "-1", "-p", "47239", "-B", "127.0.0.1"]
    assert iperf3.server_command(CFG) == "iperf3 -s -1 -p 47239 -B 127.0.0.1"


def test_vasconcelos_preset_is_ten_seconds_per_second():
    cfg = replace(iperf3.PRESETS["vasconcelos"], server="slave1")
    assert (cfg.server, cfg.duration_s, cfg.interval_s) == ("slave1", 10, 1)


test_config_refuses_bad_values_naming_the_field = config_refusal_test(
    iperf3.Iperf3Config,
    [
        ({"server": "host; rm -rf /"}, "server"),
        ({"server": ""}, "server"),
        ({"port": 70000}, "port"),
        ({"duration_s": 0}, "duration_s"),
        ({"duration_s": 2, "interval_s": 5}, "interval_s"),
        ({"parallel": 0}, "parallel"),
        ({"reverse": "yes"}, "reverse"),
        ({"omit_s": -1}, "omit_s"),
        ({"server_bind": "a b"}, "server_bind"),
    ],
)


def test_parse_captured_json():
    samples = iperf3.parse_stdout(TEXT, CFG)
    per_second = [s for s in samples if s.metric == "throughput"]
    assert len(per_second) == 10
    assert [s.metadata["interval"] for s in per_second] == list(range(1, 11))
    assert {s.unit for s in per_second} == {"Mbit/s"}
    # From the file's bytes and seconds rather than its bits_per_second.
    doc = json.loads(TEXT)
    for s, interval in zip(per_second, doc["intervals"]):
        total = interval["sum"]
        assert s.value == pytest.approx(total["bytes"] * 8 / total["seconds"] / 1e6, rel=1e-6)
    assert round(per_second[0].value) == 13347  # read off the file: 13346.9 Mbit/s in 0-1 s
    [mean] = [s for s in samples if s.metric == "throughput_mean"]
    assert mean.value == pytest.approx(15736.905780669355)
    received = doc["end"]["sum_received"]
    assert mean.value == pytest.approx(received["bytes"] * 8 / received["seconds"] / 1e6, rel=1e-6)
    assert mean.metadata["intervals"] == 10 and mean.metadata["intervals_dropped"] == 0
    [retr] = [s for s in samples if s.metric == "retransmits"]
    assert retr.value == doc["end"]["sum_sent"]["retransmits"] and retr.unit == "count"
    assert {s.metric for s in samples} == set(iperf3.METRICS)
    assert all(iperf3.METRICS[s.metric] == s.unit for s in samples)


def test_parse_drops_a_trailing_sliver_and_omitted_intervals():
    doc = json.loads(TEXT)
    sliver = dict(doc["intervals"][-1]["sum"], start=10.0, end=10.04, seconds=0.04)
    doc["intervals"].append({"streams": [], "sum": sliver})
    doc["intervals"][0]["sum"]["omitted"] = True
    samples = iperf3.parse_stdout(json.dumps(doc), CFG)
    per_second = [s for s in samples if s.metric == "throughput"]
    assert len(per_second) == 9 and per_second[0].metadata["start"] == doc["intervals"][1]["sum"]["start"]
    assert [s for s in samples if s.metric == "throughput_mean"][0].metadata["intervals_dropped"] == 1


def test_parse_refused_connection_capture_raises_with_iperfs_message():
    # iperf3 -J exits 0 here: the JSON's "error" is the only sign of failure.
    with pytest.raises(JobFailed, match="unable to connect to server: Connection refused"):
        iperf3.parse_stdout((DATA / "iperf3_refused.json").read_text(), CFG)


test_parse_garbage_raises_jobfailed = garbage_refusal_test(
    iperf3.parse_stdout,
    CFG,
    ["", "iperf3: error - unable to connect", "[1, 2]", '{"start": {}}', "{bad"],
)


def test_run_refused_connection_through_fake_context(fake_context):
    c = fake_context(Result(stdout=(DATA / "iperf3_refused.json").read_text()))
    with pytest.raises(JobFailed, match="Connection refused"):
        iperf3.run(c, CFG)
    assert [call.args for call in c.run.call_args_list] == [(iperf3.command(CFG),)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    # Not a test connection: a one-off server (-s -1) would take it as its one client and exit.
    table = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return any(f.split()[1] == f"0100007F:{port:04X}" and f.split()[3] == "0A" for f in table)


@pytest.fixture
def iperf3_server():
    """A one-off iperf3 server on 127.0.0.1, stopped by pid whatever the test does."""
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 not installed")
    cfg = iperf3.Iperf3Config(server="127.0.0.1", port=free_port(), server_bind="127.0.0.1", duration_s=2)
    server = subprocess.Popen(iperf3.server_argv(cfg), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 5
        while not listening(cfg.port) and time.monotonic() < deadline:
            time.sleep(0.05)
        yield cfg
    finally:
        server.kill()
        server.wait()


@pytest.mark.integration
def test_run_real_iperf3_on_loopback(iperf3_server):
    import invoke

    samples, raw = iperf3.run(invoke.Context(), iperf3_server)
    per_second = [s for s in samples if s.metric == "throughput"]
    assert len(per_second) == 2 and all(s.value > 0 for s in per_second)
    assert json.loads(raw)["end"]["sum_received"]["bytes"] > 0

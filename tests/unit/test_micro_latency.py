"""latency module: fio ping-pong command lines, the parse of outputs captured on this machine
(native hosts, a gVisor client, a gVisor server, a refused connection), and the suite's pairs."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from vbench.campaign import measure
from vbench.benchmarks.micro import latency as L
from vbench.errors import JobFailed
from vbench.host import Host, SshEndpoint

from tests.unit.builders import config_refusal_test, latency_capture, latency_capture_config, programs

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"


# -- commands --------------------------------------------------------------------------------
def test_the_client_pings_for_the_duration_after_the_warm_up_and_asks_for_the_percentiles():
    args = L.argv(L.LatencyConfig(server="10.0.0.5", port=9000, message_bytes=128, duration_s=7, warmup_s=2))
    assert args[:2] == ["fio", "--output-format=json"]
    for a in (
        "--ioengine=net",
        "--protocol=tcp",
        "--hostname=10.0.0.5",
        "--port=9000",
        "--bs=128",
        "--rw=write",
        "--pingpong=1",
        "--time_based",
        "--runtime=7",
        "--ramp_time=2",
        "--lat_percentiles=1",
        "--percentile_list=50:99",
    ):
        assert a in args, a


def test_the_server_listens_answers_one_client_and_is_bounded_in_time():
    cfg = L.LatencyConfig(port=9000, message_bytes=128, duration_s=7, warmup_s=2)
    server = L.server_argv(cfg)
    assert "--listen" in server and "--rw=read" in server and "--port=9000" in server and "--bs=128" in server
    assert "--time_based" not in server  # it stops when its client hangs up
    line = L.server_start_line(cfg)
    assert line.startswith("nohup timeout ") and line.endswith("& echo $!")
    assert int(line.split()[2]) >= 7 + 2 + L.SERVER_START_TIMEOUT_S


def test_the_server_is_stopped_only_while_its_pid_is_still_that_server():
    cfg = L.LatencyConfig(port=9000)
    line = L.server_stop_line(4242, cfg)
    assert "/proc/4242/cmdline" in line and "kill 4242" in line
    # What it looks for is in the command line the start line ran, and names this port.
    needle = line.split("grep -qF -- ")[1].split(" && ")[0].strip("'")
    assert needle in L.server_start_line(cfg) and "--port=9000" in needle
    assert needle not in L.server_start_line(L.LatencyConfig(port=9001))


test_config_refuses_bad_values_naming_the_field = config_refusal_test(
    L.LatencyConfig,
    [
        ({"server": "a; reboot"}, "server"),
        ({"port": 0}, "port"),
        ({"message_bytes": 0}, "message_bytes"),
        ({"message_bytes": 10**6}, "message_bytes"),
        ({"duration_s": 0}, "duration_s"),
        ({"warmup_s": -1}, "warmup_s"),
    ],
)


# -- parsing what fio printed ------------------------------------------------------------------
@pytest.mark.parametrize("name", ["native", "gvisor_client", "gvisor_server"])
def test_the_figures_are_fios_total_latencies_in_microseconds(name):
    text, doc = latency_capture(name)
    lat = doc["jobs"][0]["write"]["lat_ns"]
    got = {s.metric: s for s in L.parse_stdout(text, latency_capture_config(doc))}
    assert set(got) == set(L.METRICS)
    assert got["rtt_mean"].value == pytest.approx(lat["mean"] / 1000)
    assert got["rtt_p50"].value == pytest.approx(lat["percentile"]["50.000000"] / 1000)
    assert got["rtt_p99"].value == pytest.approx(lat["percentile"]["99.000000"] / 1000)
    assert got["round_trips"].value == lat["N"] > 1000
    assert all(s.unit == L.METRICS[s.metric] for s in got.values())
    assert got["rtt_p50"].value <= got["rtt_p99"].value
    assert got["rtt_mean"].metadata["fio_version"] == "fio-3.33"
    assert got["rtt_mean"].metadata["measured_ms"] == pytest.approx(3000, abs=50)  # the warm-up is not counted


def test_a_round_trip_through_gvisor_takes_longer_than_between_native_hosts():
    """What the captures say (gVisor's ptrace platform and its own network stack, on this machine)."""
    p50 = {
        n: next(
            s.value
            for s in L.parse_stdout(latency_capture(n)[0], latency_capture_config(latency_capture(n)[1]))
            if s.metric == "rtt_p50"
        )
        for n in ("native", "gvisor_client", "gvisor_server")
    }
    assert p50["gvisor_client"] > 5 * p50["native"] and p50["gvisor_server"] > 5 * p50["native"]


def test_a_refused_connection_is_a_failure_naming_the_error():
    text = (DATA / "latency_refused.json").read_text()
    assert text.startswith("fio: pid=")  # fio's own line, before its JSON, on stdout
    with pytest.raises(JobFailed, match=r"error 111 \(Connection refused\) talking to 10.252.0.12:8799"):
        L.parse_stdout(text, L.LatencyConfig(server="10.252.0.12", port=8799))


def test_output_without_percentiles_or_round_trips_is_a_failure():
    text, doc = latency_capture("native")
    del doc["jobs"][0]["write"]["lat_ns"]["percentile"]
    with pytest.raises(JobFailed, match="unexpected fio JSON layout"):
        L.parse_stdout(json.dumps(doc), latency_capture_config(doc))
    _, doc = latency_capture("native")
    doc["jobs"][0]["write"]["lat_ns"]["N"] = 0
    with pytest.raises(JobFailed, match="no round trip completed"):
        L.parse_stdout(json.dumps(doc), latency_capture_config(doc))
    with pytest.raises(JobFailed, match="no JSON"):
        L.parse_stdout("fio: engine net not loadable\n", L.LatencyConfig())


# -- the suite: every pair once, server started, waited for, stopped ----------------------------
def _host(name: str, address: str, platform: str = "native") -> Host:
    return Host(name, "worker", platform, address, "/w", SshEndpoint(address, "root", Path("/k"), Path("/kh")))


def test_every_pair_of_hosts_is_measured_once_the_first_listed_as_the_client():
    a, b, c = _host("a", "1"), _host("b", "2"), _host("c", "3")
    assert [(x.name, y.name) for x, y in measure.latency_pairs([a, b, c])] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert measure.latency_pairs([a]) == []


class FakeHost:
    """A connection to one host: the server start prints a pid, `ss` says listening after one
    look, the client prints `output`; every command goes to the shared log."""

    def __init__(self, name, log, output="", exited=0):
        self.name, self.log, self.output, self.exited, self.looks = name, log, output, exited, 0

    def run(self, command, **kwargs):
        self.log.append((self.name, command))
        if command.startswith("nohup timeout"):
            return SimpleNamespace(stdout="4242\n", stderr="", exited=0)
        if command.startswith("ss "):
            self.looks += 1
            port = command.rsplit(":", 1)[1].strip("'")
            listening = f"LISTEN 0 5 0.0.0.0:{port} 0.0.0.0:*\n" if self.looks > 1 else ""
            return SimpleNamespace(stdout=listening, stderr="", exited=0)
        return SimpleNamespace(stdout=self.output, stderr="", exited=self.exited)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_the_suite_starts_the_server_waits_runs_the_client_then_stops_the_server(monkeypatch):
    log: list = []
    text, _ = latency_capture("gvisor_server")
    fakes = {"w1": FakeHost("w1", log, output=text), "m": FakeHost("m", log)}
    monkeypatch.setattr(measure, "connect", lambda h: fakes[h.name])
    monkeypatch.setattr(L, "SERVER_POLL_S", 0.01)
    client, server = _host("w1", "10.252.0.11"), _host("m", "10.252.0.10", "gvisor")
    run = measure._run_latency(client, server, L.LatencyConfig(duration_s=3), print)
    assert run.ok, run.failure
    assert programs(log) == [("m", "nohup"), ("m", "ss"), ("m", "ss"), ("w1", "timeout"), ("m", "tr")]
    assert log[3][1].startswith("timeout -k 5 34 fio ")  # warm-up 1 + 3 s + the grace: bounded in time
    assert "--hostname=10.252.0.10" in log[3][1]  # the client talks to the pair's server
    assert "kill 4242" in log[4][1]
    s = run.samples[0]
    assert (s.metadata["client"], s.metadata["server"], s.metadata["server_platform"]) == ("w1", "m", "gvisor")


def test_a_client_that_fails_is_the_runs_failure_and_the_server_is_still_stopped(monkeypatch):
    log: list = []
    refused = (DATA / "latency_refused.json").read_text()
    fakes = {"w1": FakeHost("w1", log, output=refused, exited=1), "m": FakeHost("m", log)}  # fio exits 1
    monkeypatch.setattr(measure, "connect", lambda h: fakes[h.name])
    monkeypatch.setattr(L, "SERVER_POLL_S", 0.01)
    run = measure._run_latency(_host("w1", "10.252.0.11"), _host("m", "10.252.0.12"), L.LatencyConfig(port=8799), print)
    assert not run.ok
    assert run.failure.reason == (
        "latency: the client failed with error 111 (Connection refused) talking to 10.252.0.12:8799 (fio exited 1)"
    )
    assert log[-1][0] == "m" and "kill 4242" in log[-1][1]


def test_a_client_that_never_finishes_is_stopped_and_is_the_runs_failure(monkeypatch):
    log: list = []
    fakes = {"w1": FakeHost("w1", log, output="", exited=L.TIMED_OUT), "m": FakeHost("m", log)}
    monkeypatch.setattr(measure, "connect", lambda h: fakes[h.name])
    monkeypatch.setattr(L, "SERVER_POLL_S", 0.01)
    run = measure._run_latency(_host("w1", "10.252.0.11"), _host("m", "10.252.0.12"), L.LatencyConfig(), print)
    assert not run.ok
    assert run.failure.reason == "latency: the client talking to 10.252.0.12:8765 did not finish within 36 s"
    assert log[-1][0] == "m" and "kill 4242" in log[-1][1]


def test_latency_is_in_the_calibration_set():
    from vbench.campaign.adhoc import CALIBRATION

    assert "latency" in [b.benchmark for b in CALIBRATION]

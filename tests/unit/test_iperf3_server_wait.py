"""The iperf3 client starts once its server listens, not after a fixed head start (issue #24, item 3)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from vbench.campaign import measure
from vbench.benchmarks.micro import _common, iperf3
from vbench.benchmarks import netmatrix
from vbench.errors import JobFailed
from vbench.host import Host, SshEndpoint

from tests.unit.builders import programs

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"


def listening(probe: str) -> str:
    """What `ss` prints for the port that `probe` (a _common.listening_command) asks about."""
    port = probe.rsplit(":", 1)[1].strip("'")
    return f"LISTEN 0      5      0.0.0.0:{port} 0.0.0.0:*\n"


def result(stdout: str = "", stderr: str = "", exited: int = 0) -> SimpleNamespace:
    return SimpleNamespace(stdout=stdout, stderr=stderr, exited=exited)


class FakeHost:
    """A fabric Connection to one host: `ss` answers "not listening" `silent_probes` times, then
    "listening"; any other command answers `output`. Every call goes to the shared `log`."""

    def __init__(self, name: str, log: list, silent_probes: int = 0, output: str = "", ss_stderr: str = ""):
        self.name, self.log, self.silent_probes, self.output, self.ss_stderr = (
            name,
            log,
            silent_probes,
            output,
            ss_stderr,
        )

    def run(self, command: str, **kwargs):
        self.log.append((self.name, command))
        if command.startswith("ss "):
            if self.silent_probes > 0 or self.ss_stderr:
                self.silent_probes -= 1
                return result(stderr=self.ss_stderr, exited=127 if self.ss_stderr else 0)
            return result(listening(command))
        return result(self.output)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class FakeClock:
    """time.monotonic and time.sleep: sleeping advances the clock, and is recorded."""

    def __init__(self):
        self.now, self.sleeps = 100.0, []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_the_probe_is_a_pure_ss_command():
    assert _common.listening_command(5201) == "ss -Hltn 'sport = :5201'"


@pytest.mark.parametrize(
    "output,port,expected",
    [
        ("LISTEN 0      5      0.0.0.0:5201 0.0.0.0:*\n", 5201, True),
        ("LISTEN 0      128    *:5201 *:*\n", 5201, True),
        ("LISTEN 0      128    [::]:5201 [::]:*\n", 5201, True),
        ("LISTEN 0      128    10.0.0.2%eth0:5201 0.0.0.0:*\n", 5201, True),
        ("LISTEN 0      5      0.0.0.0:15201 0.0.0.0:*\n", 5201, False),
        ("LISTEN 0      5      0.0.0.0:5201 0.0.0.0:*\n", 520, False),
        ("", 5201, False),
        ("sh: 1: ss: not found\n", 5201, False),
    ],
)
def test_ss_output_says_whether_the_port_listens(output, port, expected):
    assert _common.is_listening(output, port) is expected


def test_waits_until_the_server_listens():
    log, clock = [], FakeClock()
    server = FakeHost("s1", log, silent_probes=2)
    waited = iperf3.wait_until_listening(
        server, 5201, "s1 (10.0.0.2)", timeout_s=5, poll_s=0.1, clock=clock.monotonic, sleep=clock.sleep
    )
    assert log == [("s1", "ss -Hltn 'sport = :5201'")] * 3
    assert clock.sleeps == [0.1, 0.1]
    assert waited == pytest.approx(0.2)


def test_a_server_that_never_listens_is_named_with_its_port():
    log, clock = [], FakeClock()
    server = FakeHost("s1", log, silent_probes=10**6)
    with pytest.raises(
        JobFailed,
        match=r"^iperf3: the server on s1 \(10.0.0.2\) is not listening on TCP port 5201 "
        r"after 2 s$",
    ):
        iperf3.wait_until_listening(
            server, 5201, "s1 (10.0.0.2)", timeout_s=2, poll_s=0.5, clock=clock.monotonic, sleep=clock.sleep
        )
    assert sum(clock.sleeps) == pytest.approx(2.0)
    assert len(log) == 5  # at 0, 0.5, 1, 1.5 and 2 s


def test_a_failing_probe_says_why():
    clock = FakeClock()
    server = FakeHost("s1", [], ss_stderr="bash: line 1: ss: command not found")
    with pytest.raises(JobFailed, match=r"after 1 s \(ss: bash: line 1: ss: command not found\)"):
        iperf3.wait_until_listening(
            server, 5201, "s1", timeout_s=1, poll_s=0.5, clock=clock.monotonic, sleep=clock.sleep
        )


def host(name: str, address: str) -> Host:
    ssh = SshEndpoint(address, "root", Path("/k"), Path("/kh"))
    return Host(name, "worker", "native", address, "/w", ssh)


@pytest.fixture
def two_hosts(monkeypatch):
    """measure's `connect` gives fakes: s1 listens after two probes, c1 prints an iperf3 result."""
    log: list = []
    fakes = {
        "s1": FakeHost("s1", log, silent_probes=2),
        "c1": FakeHost("c1", log, output=(DATA / "iperf3.json").read_text()),
    }
    monkeypatch.setattr(measure, "connect", lambda h: fakes[h.name])
    monkeypatch.setattr(iperf3, "SERVER_POLL_S", 0.01, raising=False)
    return log, fakes


def test_the_suite_starts_the_client_once_the_server_listens(two_hosts):
    log, _ = two_hosts
    run = measure._run_iperf(host("c1", "10.0.0.1"), host("s1", "10.0.0.2"), iperf3.Iperf3Config(), print)
    assert run.ok, run.failure
    assert programs(log) == [("s1", "nohup"), ("s1", "ss"), ("s1", "ss"), ("s1", "ss"), ("c1", "iperf3")]


def test_the_suite_records_a_server_that_never_listens_as_the_runs_failure(two_hosts, monkeypatch):
    log, fakes = two_hosts
    fakes["s1"].silent_probes = 10**6
    monkeypatch.setattr(iperf3, "SERVER_START_TIMEOUT_S", 0.05, raising=False)
    run = measure._run_iperf(host("c1", "10.0.0.1"), host("s1", "10.0.0.2"), iperf3.Iperf3Config(), print)
    assert not run.ok
    assert "the server on s1 (10.0.0.2) is not listening on TCP port 5201" in run.failure.reason
    assert not any(h == "c1" for h, _ in log)


def test_the_servers_own_time_limit_covers_the_wait(two_hosts):
    log, _ = two_hosts
    measure._run_iperf(host("c1", "10.0.0.1"), host("s1", "10.0.0.2"), iperf3.Iperf3Config(duration_s=10), print)
    start = log[0][1]
    limit = int(start.split("timeout ")[1].split()[0])
    assert limit >= 10 + iperf3.SERVER_START_TIMEOUT_S


# -- the network matrix: servers on guests over SSH, on physical hosts in their namespace ---------


@pytest.fixture
def matrix(monkeypatch):
    """A bridge testbed with fakes for SSH, for `ip netns exec` and for the local server process:
    every server listens after one probe; every client prints an iperf3 result."""
    from vbench.benchmarks import netmatrix_measure as run
    from vbench.params import testbed_params
    from vbench.testbed import physnet

    lay = physnet.layout(
        testbed_params(
            {
                "name": "n1",
                "workers": 3,
                "vms_per_host": 2,
                "network": {"bridge": "n1br", "subnet": "10.201.0.0/24", "mode": "bridge"},
            }
        )
    )
    log: list = []
    output = (DATA / "iperf3.json").read_text()
    fakes = {g.name: FakeHost(g.name, log, silent_probes=1, output=output) for g in lay.guests}
    monkeypatch.setattr(run, "connect", lambda h: fakes[h.name])
    silent = {}

    def in_netns(argv, check=True):
        netns, command = argv[3], argv[-1]
        log.append((f"netns:{netns}", command))
        silent[netns] = silent.get(netns, 1) - 1
        return result(listening(command) if silent[netns] < 0 else "")

    monkeypatch.setattr(run.sysops, "run", in_netns)
    monkeypatch.setattr(
        run.subprocess,
        "Popen",
        lambda argv, **kw: (
            log.append((f"netns:{argv[3]}", "start " + " ".join(argv[4:]))) or SimpleNamespace(pid=-1, wait=lambda: 0)
        ),
    )
    monkeypatch.setattr(run.sysops, "kill_pids", lambda pids, grace_s: log.append(("here", "stop")))
    monkeypatch.setattr(iperf3, "SERVER_POLL_S", 0.01, raising=False)
    hosts = [host(g.name, g.name) for g in lay.guests]
    return run, lay, hosts, log


def test_the_matrix_starts_each_client_once_its_server_listens(matrix):
    run, lay, hosts, log = matrix
    rows = run.measure(hosts, lay, 2, duration_s=2, omit_s=0, log=lambda _: None)
    pairs = netmatrix.pairs(lay)
    assert len(rows) == len(pairs)
    segments, current = [], []  # what happened up to each client's run
    for entry in log:
        current.append(entry)
        if entry[1].startswith("iperf3 -c"):
            segments.append(current)
            current = []
    assert [seg[-1][0] for seg in segments] == [p.client for p in pairs]
    for pair, segment in zip(pairs, segments):
        side = f"netns:{lay.physical(pair.server[5:]).netns}" if pair.server.startswith("host:") else pair.server
        # The last thing before the client was a check on the server's side, which said "listening".
        assert segment[-2] == (side, "ss -Hltn 'sport = :5211'"), f"{pair.kind}: {segment}"
    assert sum(cmd.startswith("ss ") for _, cmd in log) > len(pairs)  # some were checked again


def test_the_matrix_stops_at_a_server_that_never_listens(matrix, monkeypatch):
    run, lay, hosts, log = matrix
    monkeypatch.setattr(iperf3, "SERVER_START_TIMEOUT_S", 0.05, raising=False)
    first = netmatrix.pairs(lay)[0]
    monkeypatch.setattr(FakeHost, "run", lambda self, command, **kw: result())  # nothing ever listens
    with pytest.raises(
        JobFailed, match=f"the server on {first.server} \\({first.target}\\) is not listening on TCP port 5211"
    ):
        run.measure(hosts, lay, 2, duration_s=2, omit_s=0, log=lambda _: None)

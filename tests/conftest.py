"""Root of the test suite: which tests run, how long each may take, and the shared fakes.

Per-test timeouts (pytest-timeout, configured in pyproject.toml): every test gets `timeout`
(unit tests) unless it is marked integration or slow, which get the budgets below here; a test
that knows better says `@pytest.mark.timeout(N)`, and `--timeout N` on the command line applies
N to every test (0: none, e.g. to debug a hang).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import threading
import types
from pathlib import Path

import pytest
import pytest_timeout
from invoke import MockContext

from vbench.samples import Sample

pytest_plugins = ["pytester"]  # tests/unit/test_test_config.py runs pytest on this configuration

# The fuzz suites (tests/unit/test_fuzz_*.py, issue #52): the same examples on every run, so that
# a CI failure replays here, and no per-example deadline (a loaded 2-core machine would make one
# flaky); no example database, which would replay old failures in some runs and not others. Each
# test sets its own example count within the suites' budget (docs/testing.md).
try:
    from hypothesis import settings as hypothesis_settings
except ImportError:  # a .venv made before the test extra had it: said in the header, not collected
    hypothesis_settings = None
    collect_ignore_glob = ["unit/test_fuzz_*.py"]
if hypothesis_settings is not None:
    hypothesis_settings.register_profile("vbench", derandomize=True, deadline=None, database=None, print_blob=True)
    hypothesis_settings.load_profile("vbench")


def pytest_report_header(config):
    if hypothesis_settings is None:
        return "hypothesis is not installed: tests/unit/test_fuzz_*.py are not run (pip install -e '.[test]')"
    return None


#: Seconds an integration test may take, its fixtures' bring-up and teardown included: the
#: longest ones (the same samples from two full runs, a DataNode killed during TeraSort) took
#: 16-19 min here on a machine loaded with other clusters (docs/results.md). A suite of
#: at most 45 min (scripts/setup.sh) plus this still ends a hang before CI's 90-minute kill.
INTEGRATION_TIMEOUT_S = 1800
#: Tests marked slow are longer still: the isolation experiment took 20+ min, the VM smoke 8-16.
SLOW_TIMEOUT_S = 3600

#: The CPU model every fake host reports (the runner stamps it on each sample).
FAKE_CPU = "Fake CPU @ 2.0GHz"


def _missing() -> str | None:
    """Why integration tests cannot run on this machine, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    for tool in ("ip", "unshare", "nc", "ssh-keygen", "mvn"):
        if shutil.which(tool) is None:
            return f"needs {tool}; run the README's test command, which installs it"
    if not Path("/usr/sbin/sshd").exists():
        return "needs openssh-server"
    return None


def pytest_collection_modifyitems(config, items):
    # Here rather than in tests/integration so that integration tests in tests/unit (real dd,
    # fio, iperf3 on this machine) are selected by the same rules when tests/unit runs alone.
    reason = _missing()
    # Tests marked slow (a Hadoop job on a software-emulated VM) run only when asked for.
    slow_asked = "slow" in (config.getoption("markexpr", default="") or "") or os.environ.get("VBENCH_SLOW") == "1"
    timeout_given = config.getoption("timeout", default=None) is not None
    for item in items:
        if reason and "integration" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))
        if not slow_asked and "slow" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="slow: run with VBENCH_SLOW=1 or -m slow (see docs/testing.md)"))
        if timeout_given or item.get_closest_marker("timeout"):
            continue
        if "slow" in item.keywords:
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT_S))
        elif "integration" in item.keywords:
            item.add_marker(pytest.mark.timeout(INTEGRATION_TIMEOUT_S))


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item, settings):
    """pytest-timeout's thread method, which also prints the test's id: its stack dump names only
    the function that hangs, often a fixture (a cluster's bring-up) that many tests share."""
    if settings.method != "thread":
        return None  # pytest-timeout's own

    def expire():
        if settings.disable_debugger_detection or not pytest_timeout.is_debugging():
            capture = item.config.pluginmanager.getplugin("capturemanager")
            if capture:  # else the line would land among the test's captured output
                capture.suspend_global_capture()
            item.config.get_terminal_writer().line(
                f"\nTimeout: {item.nodeid} still running after {settings.timeout:g} s"
            )
        pytest_timeout.timeout_timer(item, settings)  # dumps every thread's stack, then exits

    timer = threading.Timer(settings.timeout, expire)
    timer.name = f"pytest_timeout {item.nodeid}"
    item.cancel_timeout = lambda: (timer.cancel(), timer.join())  # called by pytest_timeout_cancel_timer
    timer.start()
    return True


@pytest.fixture
def fake_context():
    """Make an invoke context whose `run` answers with the given `invoke.Result`s in turn.

    Its calls are recorded (`c.run.call_args_list`: command and keyword arguments); one call
    more than there are results raises NotImplementedError rather than run anything.
    """
    return lambda *results: MockContext(run=list(results), repeat=False)


class NoHostsSource:
    """A remote hosts source (vbench.campaign.hosts_source) with nothing to start: `open` yields
    no hosts, and the quiet gate has none to read over SSH."""

    local = False
    ready_timeout_s = None

    def check(self, platforms):
        return None

    def gate_hosts(self, platforms):
        return []

    def clear(self, testbed):
        return None

    @contextlib.contextmanager
    def open(self, platform, testbed):
        yield []


class FakeHadoop:
    """What `fake_hadoop` records: every command run on a host and every benchmark executed, in
    order (`events`); `answer` (host name -> stdout of the page-cache drop), `fsck` and `execute`
    (module, cfg, run_dir -> samples, or raise JobFailed) say what the fakes answer; `hosts` are
    the cluster's (addresses as in tests/data/hadoop/fsck_teragen.txt)."""

    def __init__(self):
        from vbench.host import Host, SshEndpoint

        ssh = SshEndpoint("10.213.0.10", "root", Path("/k"), Path("/kh"))
        self.hosts = [
            Host("master", "master", "native", "10.213.0.10", "/w", ssh),
            Host("worker1", "worker", "native", "10.213.0.11", "/w", ssh),
        ]
        self.events: list[str] = []
        self.answer: dict[str, str] = {}
        #: What `fsck` prints (None: it fails).
        self.fsck: str | None = ""
        self.execute = lambda module, cfg, run_dir: [Sample(module.NAME, "job_time", 1.0, "s")]

    def source(self):
        """A hosts source (vbench.campaign.hosts_source) giving these hosts, starting nothing."""
        fake = self

        class Source(NoHostsSource):
            @contextlib.contextmanager
            def open(self, platform, testbed):
                fake.events.append(f"hosts up ({platform})")
                yield fake.hosts
                fake.events.append("hosts down")

        return Source()


@pytest.fixture
def fake_hadoop(monkeypatch) -> FakeHadoop:
    """The campaign runner with a fake Hadoop cluster: nothing is downloaded, started or reached.
    A Hadoop cell's benchmark gives `fake.execute(module, cfg, run_dir)`'s samples (JobFailed: a
    failed run) and then the `inspect` the runner passed; `fake.events` is what happened, in order."""
    from vbench.benchmarks.hadoop.execute import BenchRun, new_run_id
    from vbench.campaign import measure, runner
    from vbench.errors import JobFailed
    from vbench.samples import Failure

    fake = FakeHadoop()

    class Cluster:
        def __init__(self, hosts, params, dist, log=print):
            self.hosts, self.params, self.bringup_seconds = hosts, params, 1.5
            self.master = hosts[0] if hosts else None

        def up(self, timeout_s=None):
            fake.events.append("cluster up")

        def down(self):
            fake.events.append("cluster down")

        def log_files(self, host):  # none: a failed run has no daemon logs to keep here
            return []

        def sh(self, host, line):
            fake.events.append(f"{host.name}: {line}")
            return types.SimpleNamespace(stdout=fake.answer.get(host.name, "dropped\n"), ok=True)

        def fsck(self, path):
            fake.events.append(f"fsck {path}")
            ok = fake.fsck is not None
            return types.SimpleNamespace(
                ok=ok, stdout=fake.fsck or "", stderr="" if ok else "no such path", exit_code=0 if ok else 1
            )

    def execute(cluster, module, cfg, *, log=print, timeout_s=None, inspect=None, **_kw):
        run = BenchRun(module.NAME, new_run_id(module.NAME), {})
        run_dir = f"/vbench/{run.run_id}"
        fake.events.append(f"execute {module.NAME}")
        try:
            run.samples = list(fake.execute(module, cfg, run_dir))
            if inspect is not None:
                run.samples += inspect(cluster, run_dir)
        except JobFailed as exc:
            run.failure = Failure(module.NAME, str(exc), {})
        return run

    monkeypatch.setattr(runner, "fetch", lambda *_a, **_k: None)
    monkeypatch.setattr(runner, "HadoopCluster", Cluster)
    monkeypatch.setattr(
        runner, "cluster_provenance", lambda c: {"hadoop_version": "3.4.2", "bringup_s": c.bringup_seconds}
    )
    monkeypatch.setattr(runner, "vbench_commit", lambda: "0123abcd")
    monkeypatch.setattr(measure, "execute", execute)
    return fake


class FakeMachine:
    """Testbeds and Hadoop clusters that exist only as records, for the campaign runner's unit
    tests (`fake_machine`): what is up now, what happened in order, and faults to inject.

    `source` is a local hosts source (testbed names, subnets and machine-fit checks apply);
    each run (micro or Hadoop) is recorded with the testbeds and clusters up at that moment.
    Faults: `cannot_open` (platforms whose hosts cannot come up), `cannot_start` (testbed names
    whose cluster fails to start), `raise_on_run` (n-th run, counted from 1 -> the exception it
    raises)."""

    def __init__(self):
        self.testbeds: dict[str, object] = {}  # name -> TestbedParams, of the testbeds up now
        self.clusters: set[str] = set()  # testbed names whose cluster is up now
        self.events: list[tuple] = []  # ("open"|"close"|"cluster up"|"cluster down", testbed), ("run", ...)
        self.runs: list[dict] = []  # kind, benchmark, testbed, testbeds and clusters up during the run
        self.most_testbeds_up = 0
        self.cannot_open: set[str] = set()
        self.cannot_start: set[str] = set()
        self.raise_on_run: dict[int, BaseException] = {}
        self.gated: list[tuple] = []  # (block, round, testbed names) the quiet gate was asked about
        self.source = _FakeSource(self)

    def gate_hook(self, exp, params, source, log, campaign_dir=None):
        """The runner's quiet gate, faked: records the rounds it is asked about and the testbeds
        it would count as the measurement's own; every sample gets quiet.verdict ok."""
        machine = self

        class Gate:
            def before_round(self, info):
                machine.gated.append((info.block, info.round, tuple(sorted(tb.name for tb, _ in params.values()))))
                return {"quiet.verdict": "ok"}

            def after_round(self, info):
                return None

        return Gate()

    def run(self, kind: str, benchmark: str, testbed: str) -> None:
        self.runs.append(
            {
                "kind": kind,
                "benchmark": benchmark,
                "testbed": testbed,
                "testbeds": frozenset(self.testbeds),
                "clusters": frozenset(self.clusters),
            }
        )
        self.events.append(("run", testbed, benchmark))
        exc = self.raise_on_run.get(len(self.runs))
        if exc is not None:
            raise exc


class _FakeSource:
    local = True
    ready_timeout_s = None

    def __init__(self, machine: FakeMachine):
        self.machine = machine

    def check(self, platforms):
        return None

    def clear(self, testbed):
        self.machine.events.append(("clear", testbed.name))

    @contextlib.contextmanager
    def open(self, platform, testbed):
        from vbench.errors import VbenchError

        m = self.machine
        if platform in m.cannot_open:
            raise VbenchError(f"{platform} hosts unreachable")
        assert testbed.name not in m.testbeds, f"testbed {testbed.name} is up already"
        m.testbeds[testbed.name] = testbed
        m.most_testbeds_up = max(m.most_testbeds_up, len(m.testbeds))
        m.events.append(("open", testbed.name))
        try:
            # Every host names its machine's CPU; a VM's facts also name its accelerator, as qemu
            # hosts' do (TCG: this machine has no KVM).
            facts = {"cpu_model": FAKE_CPU, "vcpus": "2", **({"accelerator": "tcg"} if platform == "qemu" else {})}
            yield [
                _FakeHost(f"{testbed.name}-{n}", r, platform, testbed.name, facts)
                for n, r in (("master", "master"), ("worker1", "worker"))
            ]
        finally:
            del m.testbeds[testbed.name]
            m.events.append(("close", testbed.name))


@dataclasses.dataclass(frozen=True)
class _FakeHost:
    name: str
    role: str
    platform: str
    testbed: str
    facts: dict = dataclasses.field(default_factory=dict, hash=False, compare=False)


@pytest.fixture
def fake_machine(monkeypatch):
    """A FakeMachine wired into vbench.campaign.runner: its clusters, Hadoop runs, micro runs,
    provenance and Hadoop download are fakes; the machine has 64 GiB and 8 CPUs."""
    from types import SimpleNamespace

    from vbench.benchmarks.hadoop.execute import BenchRun
    from vbench.campaign import measure, runner
    from vbench.machine_fit import MachineFacts
    from vbench.samples import Sample

    m = FakeMachine()

    class Cluster:
        def __init__(self, hosts, params, dist, log=print):
            self.hosts, self.params = hosts, params
            self.testbed = hosts[0].testbed

        def up(self, timeout_s=None):
            if self.testbed in m.cannot_start:
                raise RuntimeError(f"NameNode of {self.testbed} did not start")
            m.clusters.add(self.testbed)
            m.events.append(("cluster up", self.testbed))

        def down(self):
            if self.testbed in m.clusters:
                m.clusters.discard(self.testbed)
                m.events.append(("cluster down", self.testbed))

        def log_files(self, host):  # none: a failed configuration has no daemon logs to keep here
            return []

        def sh(self, host, line):
            return SimpleNamespace(stdout="dropped\n", ok=True)

    def execute(cluster, module, cfg, log=print, timeout_s=None, **_kw):
        assert cluster.testbed in m.clusters, "a job ran on a cluster that is not up"
        m.run("hadoop", module.NAME, cluster.testbed)
        return BenchRun(
            module.NAME,
            f"{module.NAME}-{len(m.runs)}",
            {},
            samples=[Sample(module.NAME, "time", float(len(m.runs)), "s")],
            hdfs_output_removed=True,
        )

    def measure_micro(hosts, item, log=print, iperf_pairs=None, layout=None, machine=None):
        m.run("micro", item.benchmark, hosts[0].testbed)
        return [
            BenchRun(
                item.benchmark,
                f"{item.benchmark}-{len(m.runs)}",
                {},
                samples=[Sample(item.benchmark, "events", float(len(m.runs)), "events/s")],
            )
        ]

    monkeypatch.setattr(runner, "HadoopCluster", Cluster)
    monkeypatch.setattr(measure, "execute", execute)
    monkeypatch.setattr(runner, "measure_micro", measure_micro)
    monkeypatch.setattr(runner, "cluster_provenance", lambda cluster: {"hadoop_version": "fake"})
    monkeypatch.setattr(runner, "fetch", lambda *a, **k: None)
    monkeypatch.setattr(runner, "vbench_commit", lambda: "fake")
    monkeypatch.setattr(MachineFacts, "local", classmethod(lambda cls: MachineFacts(65536, 8, tuple(range(8)))))
    # The quiet-machine gate reads no real machine here: it hears of each round and says "ok".
    monkeypatch.setattr(runner, "gate_hook", m.gate_hook)
    return m


#: The campaigns committed to the repository (data/raw/<name>/).
COMMITTED_RAW = Path(__file__).resolve().parents[1] / "data" / "raw"


@pytest.fixture
def fresh_clone_campaign(tmp_path):
    """Copy a committed campaign into `tmp_path/data/raw/<name>` and return that directory: a data
    tree as a fresh clone has it, with no data/processed/ (whatever the checkout's own holds, the
    statistics stage's table of a `dvc repro` with other settings would be refused by the paper)."""

    def copy(name: str) -> Path:
        dest = tmp_path / "data" / "raw" / name
        shutil.copytree(COMMITTED_RAW / name, dest)
        return dest

    return copy

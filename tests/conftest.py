"""Root of the test suite: which tests run, how long each may take, and the shared fakes.

Per-test timeouts (pytest-timeout, configured in pyproject.toml): every test gets `timeout`
(unit tests) unless it is marked integration or slow, which get the budgets below here; a test
that knows better says `@pytest.mark.timeout(N)`, and `--timeout N` on the command line applies
N to every test (0: none, e.g. to debug a hang).
"""
from __future__ import annotations

import contextlib
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

#: Seconds an integration test may take, its fixtures' bring-up and teardown included: the
#: longest ones (the same samples from two full runs, a DataNode killed during TeraSort) took
#: 16-19 min here on a machine loaded with other clusters (docs/results.md). A suite of
#: at most 45 min (scripts/setup.sh) plus this still ends a hang before CI's 90-minute kill.
INTEGRATION_TIMEOUT_S = 1800
#: Tests marked slow are longer still: the isolation experiment took 20+ min, the VM smoke 8-16.
SLOW_TIMEOUT_S = 3600


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
            item.config.get_terminal_writer().line(f"\nTimeout: {item.nodeid} still running after {settings.timeout:g} s")
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


class FakeHadoop:
    """What `fake_hadoop` records: every command run on a host and every benchmark executed, in
    order (`events`); `answer` (host name -> stdout of the page-cache drop) and `execute`
    (module, cfg, run_dir -> samples, or raise JobFailed) say what the fakes answer."""

    def __init__(self):
        from vbench.host import Host, SshEndpoint

        ssh = SshEndpoint("10.0.0.10", "root", Path("/k"), Path("/kh"))
        self.hosts = [Host("master", "master", "native", "10.0.0.10", "/w", ssh),
                      Host("worker1", "worker", "native", "10.0.0.11", "/w", ssh)]
        self.events: list[str] = []
        self.answer: dict[str, str] = {}
        self.execute = lambda module, cfg, run_dir: [Sample(module.NAME, "job_time", 1.0, "s")]

    def source(self):
        """A hosts source (vbench.campaign.hosts_source) giving these hosts, starting nothing."""
        fake = self

        class Source:
            local = False
            ready_timeout_s = None

            def check(self, platforms):
                return None

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

        def up(self, timeout_s=None):
            fake.events.append("cluster up")

        def down(self):
            fake.events.append("cluster down")

        def sh(self, host, line):
            fake.events.append(f"{host.name}: {line}")
            return types.SimpleNamespace(stdout=fake.answer.get(host.name, "dropped\n"), ok=True)

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
    monkeypatch.setattr(runner, "cluster_provenance", lambda c: {"hadoop_version": "3.4.2",
                                                                  "bringup_s": c.bringup_seconds})
    monkeypatch.setattr(runner, "vbench_commit", lambda: "0123abcd")
    monkeypatch.setattr(measure, "execute", execute)
    return fake

"""The round-trip latency benchmark for real, between the two hosts of a native testbed: every
pair measured once, figures that make sense, no server left behind."""

from __future__ import annotations

import shutil

import pytest

from tests.integration.conftest import leftovers
from vbench.benchmarks.micro import latency
from vbench.campaign.measure import Planned, measure_micro
from vbench.host import connect
from vbench.testbed import Testbed

pytestmark = pytest.mark.integration


def test_latency_between_two_native_hosts(it_platform_testbed):
    if shutil.which("fio") is None:
        pytest.skip("needs fio; run the README's test command, which installs it")
    tbp = it_platform_testbed("native", workers=1)
    cfg = latency.LatencyConfig(duration_s=3, warmup_s=1)
    with Testbed(tbp) as tb:
        runs = measure_micro(tb.hosts, Planned("latency", cfg, latency))
        assert [r.ok for r in runs] == [True], [r.failure for r in runs]
        got = {s.metric: s for s in runs[0].samples}
        print({m: round(s.value, 2) for m, s in got.items()})
        assert set(got) == set(latency.METRICS)
        assert (got["rtt_mean"].metadata["client"], got["rtt_mean"].metadata["server"]) == ("master", "worker1")
        # A round trip through two veths and a bridge on one machine: microseconds, not milliseconds.
        assert 1 < got["rtt_p50"].value <= got["rtt_p99"].value < 10_000
        assert got["round_trips"].value > 1000
        assert 2900 <= got["rtt_mean"].metadata["measured_ms"] <= 3100  # the warm-up is not counted
        for h in tb.hosts:  # the server served its one client and exited
            with connect(h) as c:
                left = c.run("ps -eo args | grep -c '[v]bench-latency-server' || true", hide=True, in_stream=False)
                assert left.stdout.strip() == "0", h.name
    assert leftovers(tbp) == []

"""Monitoring for real: the sampler on native and container hosts over SSH, the machine side of a
container, hidden counters said in the data, and a monitored TeraSort whose data-volume checks
pass (test_running_cluster.py). Native hosts (and one LXC host when LXC and the guest image are there); the VM path is
exercised by the slow mixed-cluster run (docs/monitoring.md)."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from tests.integration.conftest import leftovers
from vbench.host import connect
from vbench.stats import volume
from vbench.monitor.monitor import Monitor
from vbench.monitor.series import METRICS
from vbench.testbed import Testbed
from vbench.testbed.image import image_for

pytestmark = pytest.mark.integration


def _write_and_talk(hosts, writer: str) -> None:
    """16 MiB of direct writes on `writer` (so a cgroup's blkio sees them) and traffic to it."""
    by = {h.name: h for h in hosts}
    with connect(by[writer]) as c:
        c.run(
            f"dd if=/dev/zero of={by[writer].work_dir}/mon.bin bs=1M count=16 oflag=direct status=none && "
            f"rm -f {by[writer].work_dir}/mon.bin && sleep 3",
            hide=True,
            in_stream=False,
        )
    with connect(by["master"]) as c:
        c.run(f"ping -c 3 -i 0.3 {by[writer].address} >/dev/null; sleep 2", hide=True, warn=True, in_stream=False)


def _pids_gone(hosts, token: str) -> bool:
    for h in hosts:
        with connect(h) as c:
            r = c.run(f"ls {h.work_dir}/monitor-*-{token}.* 2>/dev/null | wc -l", hide=True, warn=True, in_stream=False)
            if r.stdout.strip() != "0":
                return False
    return True


def test_sampler_on_native_hosts(it_testbed):
    with Testbed(it_testbed) as tb:
        mon = Monitor(tb.hosts, it_testbed.name, interval_s=0.5).start()
        _write_and_talk(tb.hosts, "worker1")
        d = pd.DataFrame([p.__dict__ for p in mon.stop()])
        assert _pids_gone(tb.hosts, mon.token)
    assert set(d["host"]) == {"master", "worker1", "worker2"}
    assert set(d["side"]) == {"guest"}  # native hosts have no machine side
    for metric in [m for ms in METRICS.values() for m in ms]:
        assert d[(d["metric"] == metric)]["value"].notna().any(), metric
    # Native hosts share the kernel: CPU and disk are the machine's; network is the host's own.
    assert set(d[d["metric"].str.startswith(("cpu_", "disk_"))]["scope"]) == {"machine"}
    assert set(d[d["metric"].str.startswith("net_")]["scope"]) == {"host"}
    # the pings reached worker1, not worker2
    rx = d[d["metric"] == "net_rx_Bps"].groupby("host")["value"].max()
    assert rx["worker1"] > rx["worker2"]
    assert leftovers(it_testbed) == []


def test_sampler_on_a_container_host_has_a_machine_side(it_platform_testbed):
    if shutil.which("lxc-start") is None or not image_for().exists():
        pytest.skip("needs LXC and the guest image (`vbench image build`)")
    tbp = it_platform_testbed(
        "native", hosts=[{"name": "master", "role": "master"}, {"name": "worker1", "role": "worker", "platform": "lxc"}]
    )
    with Testbed(tbp) as tb:
        # The monitor switches blk-throttle's counting on (off on a disk until its first rule
        # since boot, Linux 6.10+): without that, a full CI run on a fresh boot read 0 B here.
        mon = Monitor(tb.hosts, tbp.name, interval_s=0.5).start()
        _write_and_talk(tb.hosts, "worker1")
        d = pd.DataFrame([p.__dict__ for p in mon.stop()])
    m = d[(d["host"] == "worker1") & (d["side"] == "machine")]
    written = volume.disk_written(m.assign(side="guest"), m["time"].min() - 1, m["time"].max())[0]
    assert set(m[m["value"].notna()]["source"]) == {"cgroup cpuacct.stat", "cgroup blkio.throttle.io_service_bytes"}
    assert set(m["scope"]) == {"host"}
    # The direct writes, attributed to the container's cgroup; summed from counter deltas in floating
    # point over the window, 16 MiB can read 2e-9 B short (CI, 2026-12-06: 16777215.999999998).
    assert written >= 16 * 2**20 * (1 - 1e-9)
    hidden = m[m["value"].isna()]
    assert set(hidden["metric"]) >= {"cpu_iowait_pct", "cpu_steal_pct"} and hidden["note"].str.len().min() > 0
    assert leftovers(tbp) == []

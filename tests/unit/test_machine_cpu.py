"""The machine's CPU spent over a micro-benchmark run (vbench.monitor.machine_cpu), stamped by the
runner on each sample (vbench.campaign.measure), and the costs priced in it
(`cost_model.cpu_weighted`, `vbench predict --costs cpu`): known answers."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from vbench.benchmarks.micro import syscall
from vbench.campaign import measure
from vbench.errors import ParamsError
from vbench.host import Host, SshEndpoint
from vbench.monitor.machine_cpu import (
    SENTRY_ARGV0,
    Mark,
    SentryReader,
    busy_between,
    busy_ticks,
    is_sentry,
    kernel_ticks,
    mark,
    start_time,
)
from vbench.samples import (
    MACHINE_CPU_FIELD as CPU_FIELD,
    MACHINE_FAULTS_FIELD as FAULTS_FIELD,
    MACHINE_KERNEL_FIELD as KERNEL_FIELD,
    MACHINE_SWITCHES_FIELD as SWITCHES_FIELD,
    MACHINE_SYSCALLS_FIELD as SYSCALLS_FIELD,
    MACHINE_WALL_FIELD as WALL_FIELD,
    SENTRY_CPU_FIELD as SENTRY_FIELD,
)
from vbench.stats import cost_model as cm

#: user nice system idle iowait irq softirq steal guest guest_nice
LINE = "cpu  1000 20 300 5000 40 5 6 70 0 0\n"
#: The rest of a /proc/stat, and a /proc/vmstat, as far as a mark reads them.
CTXT = "cpu0 500 10 150 2500 20 2 3 35 0 0\nintr 12345 0 1\nctxt 777000\nbtime 1700000000\nprocesses 4242\n"
VMSTAT = "nr_free_pages 123\npgfault 9000\npgmajfault 12\n"


def test_busy_ticks_leave_out_idle_iowait_and_steal():
    assert busy_ticks(LINE) == 1000 + 20 + 300 + 5 + 6
    with pytest.raises(ValueError):
        busy_ticks("cpu0 1 2 3 4\n")  # a per-CPU line is not the machine's


def test_a_run_s_stamp_is_its_cpu_seconds_and_wall_seconds():
    assert busy_between(Mark(1000, 10.0), Mark(1450, 13.0), hz=100) == {CPU_FIELD: 4.5, WALL_FIELD: 3.0}
    # 100 more user ticks and 30 more system ticks: 1.3 s busy, 0.3 s of it the kernel's.
    lines, times = iter([LINE, LINE.replace("1000", "1100").replace(" 300 ", " 330 ")]), iter([1.0, 2.0])
    a = mark(lambda: next(lines) + CTXT, lambda: next(times), read_vm=lambda: VMSTAT)
    b = mark(lambda: next(lines) + CTXT, lambda: next(times), read_vm=lambda: VMSTAT)
    assert busy_between(a, b, hz=100) == {
        CPU_FIELD: 1.3,
        WALL_FIELD: 1.0,
        KERNEL_FIELD: 0.3,
        FAULTS_FIELD: 0,
        SWITCHES_FIELD: 0,
    }


def test_the_kernels_ticks_are_system_irq_and_softirq():
    assert kernel_ticks(LINE) == 300 + 5 + 6
    # Marks made without it (a test's stand-in, an older reader) stamp no kernel field.
    assert KERNEL_FIELD not in busy_between(Mark(1, 0.0, kernel=5), Mark(2, 1.0), hz=100)


def test_a_marks_kernel_entries_are_the_machines_faults_switches_and_counted_calls():
    stats = iter([LINE + CTXT, LINE + CTXT.replace("777000", "780500")])
    vms = iter([VMSTAT, VMSTAT.replace("9000", "9420")])
    calls = iter([10_000, 31_000])
    a, b = (
        mark(lambda: next(stats), lambda: 1.0, read_vm=lambda: next(vms), syscalls=lambda: next(calls)) for _ in "ab"
    )
    assert (a.faults, a.switches, a.syscalls) == (9000, 777000, 10_000)
    stamp = busy_between(a, b, hz=100)
    assert (stamp[FAULTS_FIELD], stamp[SWITCHES_FIELD], stamp[SYSCALLS_FIELD]) == (420, 3500, 21_000)
    # pgmajfault and the per-CPU lines are not taken for the machine's counters.
    assert a.faults != 12 and a.switches != 4242
    # Without a counter no call count is stamped; a mark made without entries stamps none of them.
    stamp = busy_between(Mark(1, 0.0, faults=1, switches=1), Mark(2, 1.0, faults=3, switches=2), hz=100)
    assert (stamp[FAULTS_FIELD], stamp[SWITCHES_FIELD]) == (2, 1) and SYSCALLS_FIELD not in stamp
    assert set(busy_between(Mark(1, 0.0), Mark(2, 1.0))) == {CPU_FIELD, WALL_FIELD}


def _stat(pid: int, comm: str, utime: int, stime: int, start: int = 5) -> str:
    return f"{pid} ({comm}) S 1 {pid} {pid} 0 -1 4194560 10 0 0 0 {utime} {stime} 0 0 20 0 9 0 {start} 0 0"


def test_a_sentry_is_a_runsc_sandbox_process_and_its_start_time_is_field_22():
    assert SENTRY_ARGV0 == "runsc-sandbox"
    assert is_sentry("runsc-sandbox\0--root=/var/lib/vbench/vb/runsc\0boot\0")
    assert not is_sentry("runsc-gofer\0--root=/r\0gofer\0")
    assert not is_sentry("")  # a ptrace stub (the guest's own code) or a process gone
    assert start_time(_stat(20, "exe (x) y", 1, 2, start=777)) == "777"  # a name with parens


def test_marks_with_sandboxes_stamp_the_sentries_cpu_and_marks_without_do_not():
    lines = iter([LINE, LINE.replace("1000", "1900")])
    read = {"sandboxes": ("vbench-vb/worker1", "vbench-vb/worker2"), "sentries": lambda rels: 100 * len(rels)}
    a = mark(lambda: next(lines) + CTXT, iter([1.0]).__next__, read_vm=lambda: VMSTAT, **read)
    read["sentries"] = lambda rels: 100 * len(rels) + 250
    b = mark(lambda: next(lines) + CTXT, iter([2.0]).__next__, read_vm=lambda: VMSTAT, **read)
    assert (a.sentry, b.sentry) == (200, 450)
    assert busy_between(a, b, hz=100) == {
        CPU_FIELD: 9.0,
        WALL_FIELD: 1.0,
        SENTRY_FIELD: 2.5,
        KERNEL_FIELD: 0.0,
        FAULTS_FIELD: 0,
        SWITCHES_FIELD: 0,
    }
    # No gVisor host: the Sentries are not read at all, and the stamp has no such field.
    plain = mark(
        lambda: LINE + CTXT,
        lambda: 3.0,
        sentries=lambda rels: pytest.fail("read without a sandbox"),
        read_vm=lambda: VMSTAT,
    )
    assert plain.sentry is None and SENTRY_FIELD not in busy_between(plain, plain, hz=100)


def _fake_proc(monkeypatch, proc: dict[str, str], reads: list[str]) -> None:
    real_read_text = Path.read_text

    def read_text(self, *args, **kwargs):
        if str(self).startswith("/proc/"):
            reads.append(str(self))
            if str(self) not in proc:
                raise FileNotFoundError(self)
            return proc[str(self)]
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)


def test_the_reader_sums_the_sentries_of_each_cgroup_and_lists_a_cgroup_only_until_they_are_found(
    tmp_path, monkeypatch
):
    for host, pids in (("worker1", "4242\n4343\n4444\n"), ("worker2", "")):
        (tmp_path / "cpuacct" / "vbench-vb" / host).mkdir(parents=True)
        (tmp_path / "cpuacct" / "vbench-vb" / host / "cgroup.procs").write_text(pids)
    proc = {
        "/proc/4242/stat": _stat(4242, "exe", 30, 70),
        "/proc/4242/cmdline": "runsc-sandbox\0boot\0",
        "/proc/4343/stat": _stat(4343, "exe", 500, 5),  # a stub: the guest's own code
        "/proc/4343/cmdline": "",
        "/proc/4444/stat": _stat(4444, "exe", 9, 9),
        "/proc/4444/cmdline": "runsc-gofer\0gofer\0",
    }
    reads: list[str] = []
    _fake_proc(monkeypatch, proc, reads)
    rels = ["vbench-vb/worker1", "vbench-vb/worker2", "vbench-vb/gone"]
    reader = SentryReader(root=tmp_path)
    assert reader(rels) == 100
    assert "/proc/4343/cmdline" in reads
    # The next mark reads the Sentry's stat alone, with its new ticks.
    reads.clear()
    proc["/proc/4242/stat"] = _stat(4242, "exe", 80, 90)
    assert reader(rels) == 170
    assert [r for r in reads if r.startswith("/proc/4")] == ["/proc/4242/stat"]
    # The host restarted: its pid now names a process with another start time, and the cgroup's
    # Sentry is another pid. The reader lists the cgroup again and follows the new one.
    proc["/proc/4242/stat"] = _stat(4242, "exe", 1, 1, start=900)
    proc["/proc/4242/cmdline"] = ""
    proc["/proc/5555/stat"] = _stat(5555, "exe", 7, 3, start=901)
    proc["/proc/5555/cmdline"] = "runsc-sandbox\0boot\0"
    (tmp_path / "cpuacct" / "vbench-vb" / "worker1" / "cgroup.procs").write_text("4242\n5555\n")
    assert reader(rels) == 10


def _host() -> Host:
    ssh = SshEndpoint("10.0.0.2", "root", Path("/k"), Path("/kh"))
    return Host("h1", "worker", "native", "10.0.0.2", "/w", ssh)


def test_the_runner_stamps_each_sample_of_a_one_host_run_with_the_machine_s_cpu(monkeypatch):
    cfg = syscall.SyscallConfig(count=1000, repeats=2)
    dd = "1000 bytes (1.0 kB, 1000 B) copied, 0.0005 s, 2.0 MB/s\n"

    class Conn:
        def run(self, command, **_kw):
            return SimpleNamespace(stdout=dd * 2 if "dd " in command else "", stderr="", exited=0)

    @contextmanager
    def connect(_host):
        yield Conn()

    monkeypatch.setattr(measure, "connect", connect)
    marks = iter([Mark(500, 100.0), Mark(800, 102.0)])
    item = measure.Planned("syscall", cfg, syscall)
    (run,) = measure.measure_micro([_host()], item, lambda _l: None, machine=lambda: next(marks))
    assert run.ok and len(run.samples) == 4
    assert {(s.metadata[CPU_FIELD], s.metadata[WALL_FIELD]) for s in run.samples} == {(3.0, 2.0)}
    (bare,) = measure.measure_micro([_host()], item, lambda _l: None)  # an inventory's host: not read
    assert all(CPU_FIELD not in s.metadata for s in bare.samples)


def _samples(**stamp) -> pd.DataFrame:
    rows = [
        {"benchmark": "rpc", "metric": "rpc_us", "value": 100.0, "platform": "native", **stamp},
        {"benchmark": "iperf3", "metric": "throughput_mean", "value": 1000.0, "platform": "native", **stamp},
        {"benchmark": "terasort", "metric": "terasort_job_time", "value": 30.0, "platform": "native"},
    ]
    return pd.DataFrame(rows)


def test_a_time_per_operation_is_multiplied_by_the_busy_cpus_and_a_throughput_divided():
    got = cm.cpu_weighted(_samples(**{CPU_FIELD: 3.0, WALL_FIELD: 2.0}), ["rpc", "net_throughput"])
    assert list(got["value"]) == [150.0, pytest.approx(1000 / 1.5), 30.0]
    only_rpc = cm.cpu_weighted(_samples(**{CPU_FIELD: 3.0, WALL_FIELD: 2.0}), ["rpc"])
    assert list(only_rpc["value"]) == [150.0, 1000.0, 30.0]  # a resource not named is as measured
    assert list(cm.cpu_weighted(_samples(), ["jvmstart"])["value"]) == [100.0, 1000.0, 30.0]  # not measured


@pytest.mark.parametrize("stamp", [{}, {CPU_FIELD: np.nan, WALL_FIELD: 2.0}, {CPU_FIELD: 3.0, WALL_FIELD: 0.0}])
def test_a_named_resource_without_a_reading_is_refused(stamp):
    with pytest.raises(ParamsError, match="rpc: 1 of 1 rpc samples carry no machine CPU reading"):
        cm.cpu_weighted(_samples(**stamp), ["rpc"])


def test_predict_prices_in_cpu_only_the_resources_named(capsys, tmp_path):
    from vbench import cli

    (tmp_path / "raw" / "cal").mkdir(parents=True)
    (tmp_path / "raw" / "cal" / "samples.jsonl").write_text("")
    (tmp_path / "raw" / "fit").mkdir(parents=True)
    (tmp_path / "raw" / "fit" / "samples.jsonl").write_text("")
    rc = cli.main(["predict", "cal", "--fit", "fit", "--data", str(tmp_path), "--costs", "cpu"])
    assert rc != 0 and "--costs: cpu prices only the resources named: give --resources" in capsys.readouterr().err


def _runs(busy: dict[tuple[str, int], list[float]]) -> pd.DataFrame:
    """Three rpc samples per run (as rpc records a run's repeats), each run's stamp giving `busy`."""
    rows = []
    for (platform, block), values in busy.items():
        for i, b in enumerate(values):
            stamp = {CPU_FIELD: 2.0 * b, WALL_FIELD: 2.0, "run_id": f"{platform}-{block}-{i}", "block": block}
            rows += [
                {"benchmark": "rpc", "metric": "rpc_us", "value": 90.0 + r, "platform": platform, **stamp}
                for r in range(3)
            ]
    return pd.DataFrame(rows)


def test_the_busy_cpus_are_one_value_per_run_medians_per_configuration_and_block():
    samples = _runs(
        {("native", 0): [1.0, 1.2, 1.1], ("native", 1): [0.9], ("gvisor", 0): [1.8, 1.6], ("gvisor", 1): [1.7]}
    )
    got = cm.busy_cpus_of(samples, ["rpc"])
    assert [(b.configuration, b.resource, b.runs) for b in got] == [("gvisor", "rpc", 3), ("native", "rpc", 4)]
    gvisor, native = got
    assert gvisor.median == pytest.approx(1.7) and native.median == pytest.approx(1.05)
    assert gvisor.per_block == (("0", pytest.approx(1.7)), ("1", pytest.approx(1.7)))
    assert native.per_block == (("0", pytest.approx(1.1)), ("1", pytest.approx(0.9)))
    assert cm.busy_cpus_of(samples.drop(columns=[CPU_FIELD]), ["rpc"]) == ()  # measured before the reading


def test_predict_prints_and_writes_the_busy_cpus_it_priced_with(tmp_path):
    from vbench.stats.campaign import Campaign
    from vbench.stats.cost_prediction import busy_json, format_busy

    rows = cm.busy_cpus_of(_runs({("native", 0): [1.0], ("native", 1): [1.2]}), ["rpc"])
    text = format_busy(Campaign(tmp_path, "cal", pd.DataFrame()), rows)
    assert "CPUs each run kept busy in cal" in text
    assert text.splitlines()[-1].split() == ["native", "rpc", "1.10", "2", "1.00", "1.20"]
    assert busy_json(rows)[0]["per_block"] == [{"block": "0", "median": 1.0}, {"block": "1", "median": 1.2}]


def test_priced_in_cpu_a_platform_s_cost_ratio_is_its_wall_ratio_times_its_busy_cpus_ratio():
    """Native's rpc call 100 us with 0.75 CPUs busy, the platform's 600 us with 1.05: priced in CPU
    the platform's cost is 600 x 1.05 / (100 x 0.75) = 8.4 times native's, in wall time 6."""
    rows = []
    # The sandbox's per-block ratios 6 x 1.02, 6 / 1.02, 6: their geometric mean is 6, and they differ.
    for block, wobble in enumerate((1.02, 1 / 1.02, 1.0)):
        for platform, us, busy in (("native", 100.0 / wobble, 0.75), ("sandbox", 600.0, 1.05)):
            stamp = {CPU_FIELD: 10.0 * busy, WALL_FIELD: 10.0, "run_id": f"{platform}-{block}", "block": block}
            rows.append(
                {"benchmark": "rpc", "metric": "rpc_us", "value": us, "unit": "us", "platform": platform} | stamp
            )
    samples = pd.DataFrame(rows)
    (wall,) = cm.cost_vectors_of(samples)
    (cpu,) = cm.cost_vectors_of(cm.cpu_weighted(samples, ["rpc"]))
    assert wall.platform == cpu.platform == "sandbox"
    assert [c.resource for c in wall.costs] == [c.resource for c in cpu.costs] == ["rpc"]
    assert np.exp(wall.costs[0].ratio.log_estimate) == pytest.approx(6.0)
    assert np.exp(cpu.costs[0].ratio.log_estimate) == pytest.approx(8.4)

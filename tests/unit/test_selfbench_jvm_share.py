"""selfbench.jvm_share's pure parts: the prices from clientjvm's steps, a job's split, and the
share of a platform's extra machine CPU they explain, on synthetic data with a known answer."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from selfbench import jvm_share as js


def _spans(platform: str, block: int, idle_cpus: float, jvm_cpu_s: float, jvm_walls=(1.0, 2.0, 3.0)) -> list[js.Span]:
    out = [js.Span(platform, block, "idle", idle_cpus * 20, 20.0)]
    # Each JVM's step: its own CPU plus the waiting cluster's over its wall time.
    out += [js.Span(platform, block, f"jvm{i}", jvm_cpu_s + idle_cpus * w, w) for i, w in enumerate(jvm_walls, 1)]
    return out


def test_prices_are_the_waiting_rate_and_a_jvms_own_cpu_without_the_waiting_clusters():
    prices = js.prices_of(_spans("native", 0, 0.1, 1.6) + _spans("gvisor", 0, 0.3, 5.0, (4.0, 5.0, 6.0)))
    assert prices[("native", 0)].idle_cpus == pytest.approx(0.1)
    assert prices[("native", 0)].jvm_cpu_s == pytest.approx(1.6)
    assert prices[("gvisor", 0)] == js.Prices(pytest.approx(0.3), pytest.approx(5.0))
    # A run without its idle step, or without a JVM, prices nothing.
    assert js.prices_of([js.Span("lxc", 1, "idle", 2.0, 20.0)]) == {}
    assert js.prices_of([js.Span("lxc", 1, "jvm1", 2.0, 1.0)]) == {}


def test_a_jobs_explained_cpu_is_the_waiting_rate_over_its_wall_time_plus_its_jvms():
    sp = js.split(js.Job("gvisor", 0, "terasort", 90.0, 40.0, 6), js.Prices(0.3, 5.0))
    assert (sp.waiting_s, sp.jvms_s, sp.explained_s) == (pytest.approx(12.0), 30.0, pytest.approx(42.0))


def test_the_share_is_the_explained_difference_over_the_measured_difference_per_step_and_block():
    prices = {
        ("native", 0): js.Prices(0.1, 1.5),
        ("gvisor", 0): js.Prices(0.3, 5.0),
        ("gvisor", 1): js.Prices(0.3, 5.0),
    }
    jobs = [
        js.Job("native", 0, "terasort", 30.0, 15.0, 6),  # explained 1.5 + 9 = 10.5
        js.Job("gvisor", 0, "terasort", 90.0, 40.0, 6),  # explained 12 + 30 = 42
        js.Job("gvisor", 1, "terasort", 90.0, 40.0, 6),  # block 1 has no native job: left out
        js.Job("native", 0, "teragen", 20.0, 10.0, 4),
        js.Job("gvisor", 0, "teragen", 20.0, 30.0, 4),  # no extra: no share
    ]
    got = {(s.step, s.block): s for s in js.shares(jobs, prices, "gvisor")}
    assert set(got) == {("terasort", 0), ("teragen", 0)}
    ts = got[("terasort", 0)]
    assert (ts.extra_cpu_s, ts.waiting_s, ts.jvms_s) == (60.0, pytest.approx(10.5), pytest.approx(21.0))
    assert ts.share == pytest.approx(31.5 / 60.0)
    assert math.isnan(got[("teragen", 0)].share)


def test_the_report_names_every_price_and_step():
    spans = _spans("native", 0, 0.1, 1.6) + _spans("gvisor", 0, 0.3, 5.0)
    jobs = [js.Job("native", 0, "terasort", 30.0, 15.0, 6), js.Job("gvisor", 0, "terasort", 90.0, 40.0, 6)]
    text = js.report(spans, jobs, "gvisor")
    assert "gvisor" in text and "terasort" in text
    last = text.splitlines()[-1].split()
    assert last[0] == "terasort" and float(last[-1]) == pytest.approx(((12 + 30) - (1.5 + 9.6)) / 60, abs=0.006)


def _profile(run_id: str, step: str, maps: int, reduces: int | None, cpu: float | None = 50.0, block: int | None = 0):
    run = SimpleNamespace(run_id=run_id, platform="gvisor", block=block)
    counters = SimpleNamespace(launched_maps=maps, launched_reduces=reduces)
    return SimpleNamespace(
        run=run,
        step=step,
        counters=counters,
        machine_cpu_s=cpu,
        machine_wall_s=20.0,
        job_time_s=10.0 + maps,
        machine_kernel_cpu_s=None,
    )


def test_a_step_is_one_job_with_its_jobs_tasks_an_application_master_each_and_one_client():
    jobs = js.jobs_of(
        [
            _profile("r1", "teragen", 2, None),  # TeraGen has no reduce counter: 2 maps + AM + client
            _profile("r1", "mrbench", 2, 1),  # MRBench: three jobs from one client
            _profile("r1", "mrbench", 2, 1),
            _profile("r1", "mrbench", 3, 1),  # a speculative map attempt counts as a JVM
            _profile("r2", "terasort", 2, 2, cpu=None),  # its machine CPU not read: left out
            _profile("r3", "terasort", 2, 2, block=None),  # no block: left out
        ]
    )
    assert sorted((j.step, j.jvms, j.cpu_s) for j in jobs) == [
        ("mrbench", 3 * 3 + 1 + 3 + 1, 50.0),
        ("teragen", 4, 50.0),
    ]
    # A step's job time is its jobs' summed.
    assert sorted(j.job_time_s for j in jobs) == [12.0, 12.0 + 12.0 + 13.0]


def _priced_job(
    platform: str, step: str, wall: float, jvms: int, rate: float, client: float, task: float, extra: float = 0.0
):
    cpu = rate * wall + jvms * client + (jvms - 1) * task + extra
    return js.Job(platform, 0, step, cpu, wall, jvms, job_time_s=cpu / 2)


def test_the_task_price_is_what_a_no_data_step_leaves_over_its_jvms_that_are_not_its_client():
    prices = {("native", 0): js.Prices(0.1, 1.5), ("gvisor", 0): js.Prices(0.3, 5.0)}
    jobs = [
        _priced_job("native", "mrbench", 45.0, 13, 0.1, 1.5, 4.0),
        _priced_job("gvisor", "mrbench", 170.0, 13, 0.3, 5.0, 15.0),
        _priced_job("gvisor", "terasort", 40.0, 6, 0.3, 5.0, 15.0),  # not the task step
    ]
    tasks = js.task_prices(jobs, prices, "mrbench")
    assert tasks == {("native", 0): pytest.approx(4.0), ("gvisor", 0): pytest.approx(15.0)}


def test_a_step_made_of_the_three_prices_is_predicted_exactly_and_one_with_more_work_is_under_predicted():
    prices = {("native", 0): js.Prices(0.1, 1.5), ("gvisor", 0): js.Prices(0.3, 5.0)}
    tasks = {("native", 0): 4.0, ("gvisor", 0): 15.0}
    jobs = [
        _priced_job("native", "terasort", 15.0, 6, 0.1, 1.5, 4.0, extra=5.0),  # 5 s of its own work natively
        _priced_job("gvisor", "terasort", 45.0, 6, 0.3, 5.0, 15.0, extra=5.0),  # the same 5 s on gVisor
        _priced_job("native", "teragen", 10.0, 4, 0.1, 1.5, 4.0, extra=2.0),
        _priced_job("gvisor", "teragen", 30.0, 4, 0.3, 5.0, 15.0, extra=8.0),  # its work costs gVisor 6 s more
    ]
    got = {p.step: p for p in js.predictions(jobs, prices, tasks, "gvisor")}
    ts = got["terasort"]
    assert ts.predicted_ratio == pytest.approx(ts.measured_ratio) and ts.error == pytest.approx(0.0)
    assert ts.job_time_ratio == pytest.approx(ts.measured_ratio)  # the synthetic job time is CPU / 2
    tg = got["teragen"]
    native_cpu = 0.1 * 10 + 4 * 1.5 + 3 * 4.0 + 2.0
    assert tg.measured_ratio - tg.predicted_ratio == pytest.approx(6.0 / native_cpu)
    # Without a task price for a block, nothing is predicted there.
    assert js.predictions(jobs, prices, {("gvisor", 0): 15.0}, "gvisor") == []


def test_a_jvm_starts_machine_cpu_is_its_time_times_its_runs_busy_cpus_median_per_block():
    got = js.start_cpu_of(
        [
            ("native", 0, 100.0, 9.0, 10.0, 3.0),  # 0.1 s x 0.9 CPUs, 0.3 of them the kernel's
            ("native", 0, 120.0, 10.0, 10.0, 2.0),
            ("native", 0, 110.0, 5.0, 10.0, 5.0),
            ("gvisor", 0, 400.0, 12.0, 10.0, None),  # a kernel part not read: none for the block
            ("gvisor", 0, 400.0, 12.0, 10.0, 1.0),
            ("gvisor", 1, 400.0, 12.0, 0.0, 1.0),  # no wall time: left out
        ]
    )
    assert got == {
        ("native", 0): js.StartCost(pytest.approx(0.09), pytest.approx(0.03)),
        ("gvisor", 0): js.StartCost(pytest.approx(0.48), None),
    }


def test_the_calibrated_ratio_scales_the_jvms_and_the_waiting_by_r_over_a_wall_time_that_grows_with_the_cpu():
    base = js.Job("native", 0, "terasort", 30.0, 15.0, 6)
    prices, task = js.Prices(0.1, 1.5), 2.0  # JVMs' part 6 x 1.5 + 5 x 2 = 19, waiting 1.5, left 9.5
    assert js.calibrated_ratio(base, prices, task, 1.0) == pytest.approx(1.0)
    got = js.calibrated_ratio(base, prices, task, 3.0)
    cpu = got * 30.0
    # Self-consistent: the left work, the JVMs at 3x, and 3x the waiting rate over 15 s x cpu / 30.
    assert cpu == pytest.approx(9.5 + 3 * 19 + 3 * 0.1 * 15.0 * cpu / 30.0)
    assert got == pytest.approx((9.5 + 57) / 0.85 / 30)
    # Waiting that would outgrow the machine, or a baseline with no CPU: no prediction.
    assert js.calibrated_ratio(base, prices, task, 20.0) is None
    assert js.calibrated_ratio(js.Job("native", 0, "x", 0.0, 15.0, 6), prices, task, 3.0) is None


def test_calibrated_predictions_read_only_the_baselines_prices_and_need_both_calibrations():
    prices = {("native", 0): js.Prices(0.1, 1.5), ("native", 1): js.Prices(0.1, 1.5)}
    tasks = {("native", 0): 2.0, ("native", 1): 2.0}
    starts = {  # block 1: gVisor not calibrated
        ("native", 0): js.StartCost(0.1),
        ("gvisor", 0): js.StartCost(0.3),
        ("native", 1): js.StartCost(0.1),
    }
    jobs = [
        js.Job("native", 0, "terasort", 30.0, 15.0, 6, 12.0),
        js.Job("gvisor", 0, "terasort", 80.0, 40.0, 7, 36.0),  # its own JVM count is not read
        js.Job("native", 1, "terasort", 30.0, 15.0, 6),
        js.Job("gvisor", 1, "terasort", 80.0, 40.0, 6),
    ]
    got = js.calibrated_predictions(jobs, prices, tasks, starts, "gvisor")
    assert [(p.step, p.block) for p in got] == [("terasort", 0)]
    p = got[0]
    assert p.scale == pytest.approx(3.0)
    assert p.predicted_ratio == pytest.approx(js.calibrated_ratio(jobs[0], prices[("native", 0)], 2.0, 3.0))
    assert (p.measured_ratio, p.job_time_ratio) == (pytest.approx(80 / 30), pytest.approx(3.0))
    assert p.error == pytest.approx(p.predicted_ratio / (80 / 30) - 1)
    text = "\n".join(js.calibrated_lines(jobs, prices, tasks, starts, "gvisor", "native"))
    assert "3.00" in text and "terasort" in text

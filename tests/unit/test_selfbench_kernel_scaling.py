"""selfbench.kernel_scaling: a platform's machine CPU on a job from native's, with the kernel's part
multiplied by f from a JVM start, on synthetic data with a known answer."""

from __future__ import annotations

import pytest

from selfbench import jvm_share as js
from selfbench import kernel_scaling as ks


def test_f_is_the_platforms_start_less_natives_user_part_over_natives_kernel_part():
    assert ks.kernel_factor(js.StartCost(0.1, 0.06), js.StartCost(0.46)) == pytest.approx(7.0)
    assert ks.kernel_factor(js.StartCost(0.1, None), js.StartCost(0.46)) is None
    assert ks.kernel_factor(js.StartCost(0.1, 0.0), js.StartCost(0.46)) is None


def test_scaled_multiplies_only_the_kernel_part_clamped_to_the_cpu():
    assert ks.scaled(10.0, 4.0, 3.0) == pytest.approx(6 + 12)
    assert ks.scaled(10.0, -1.0, 3.0) == pytest.approx(10.0)  # a negative remainder counts as none
    assert ks.scaled(10.0, 12.0, 3.0) == pytest.approx(30.0)  # no more kernel than CPU


def _spans(platform: str, block: int, cpu: float, kernel: float) -> list[js.Span]:
    return [
        js.Span(platform, block, "idle", cpu * 20, 20.0, kernel * 20),
        js.Span(platform, block, "jvm1", 1.5 + cpu * 2, 2.0, 0.5 + kernel * 2),
        js.Span(platform, block, "jvm2", 1.7 + cpu * 2, 2.0, 0.7 + kernel * 2),
    ]


def test_the_predicted_ratio_is_self_consistent_and_one_when_f_is_one():
    w = ks.Waiting(0.1, 0.05)
    job = js.Job("native", 0, "terasort", 30.0, 15.0, 6, kernel_s=9.0)
    assert ks.predicted_ratio(job, w, 1.0) == pytest.approx(1.0)
    got = ks.predicted_ratio(job, w, 7.0)
    cpu = got * 30.0
    # The own work (28.5, 8.25 of it the kernel's) with its kernel part x7, and the waiting rate
    # (0.05 + 7 x 0.05 = 0.4) over a wall time grown with the CPU.
    assert cpu == pytest.approx(28.5 - 8.25 + 7 * 8.25 + 0.4 * 15.0 * cpu / 30.0)
    assert got == pytest.approx(3.25)
    assert ks.predicted_ratio(js.Job("native", 0, "x", 30.0, 15.0, 6), w, 7.0) is None  # no kernel part
    assert ks.predicted_ratio(job, w, 100.0) is None  # the waiting would outgrow the machine


def test_rows_read_natives_steps_and_the_platforms_only_to_compare():
    spans = _spans("native", 0, 0.1, 0.05) + _spans("gvisor", 0, 0.3, 0.0)
    starts = {("native", 0): js.StartCost(0.1, 0.06), ("gvisor", 0): js.StartCost(0.46, 0.0)}
    jobs = [
        js.Job("native", 0, "terasort", 30.0, 15.0, 6, 12.0, 9.0),
        js.Job("gvisor", 0, "terasort", 90.0, 48.0, 7, 40.0, 1.0),
        js.Job("gvisor", 1, "terasort", 90.0, 48.0, 7, 40.0, 1.0),  # block 1: nothing native
    ]
    assert ks.waiting_of(spans)[("native", 0)] == ks.Waiting(pytest.approx(0.1), pytest.approx(0.05))
    got = ks.rows(jobs, spans, starts, "gvisor")
    assert [(r.step, r.block) for r in got] == [("terasort", 0)]
    r = got[0]
    assert (r.scale, r.predicted_ratio, r.measured_ratio) == (pytest.approx(7.0), pytest.approx(3.25), 3.0)
    assert r.job_time_ratio == pytest.approx(40 / 12) and r.error == pytest.approx(3.25 / 3 - 1)
    clients = ks.client_prices(spans)
    assert clients[("native", 0)] == js.StartCost(pytest.approx(1.6), pytest.approx(0.6))
    text = ks.report(spans, jobs, starts, "gvisor", "native")
    assert "f 7.00" in text and "3.25" in text
    # The client JVM's price predicted from native's: 1.0 user + 7 x 0.6 kernel.
    assert "1.60 (0.60), 5.20" in text

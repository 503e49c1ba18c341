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
    return SimpleNamespace(run=run, step=step, counters=counters, machine_cpu_s=cpu, machine_wall_s=20.0)


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

"""costs-entries-gvisor's reading (selfbench/entry_prices.py): a platform's prices per system call
and per fault from two micro-benchmarks, and a job's machine CPU priced from native's counted
entries, on synthetic data with known answers."""

from __future__ import annotations

import pytest

from selfbench.entry_prices import (
    Campaign,
    Counted,
    EntryPrices,
    Rates,
    entry_prices,
    fitted_prices,
    own_work,
    per_operation,
    predicted_ratio,
    priced,
    report,
    rows,
    verdict,
    waiting_of,
)
from selfbench.jvm_share import Job
from vbench.benchmarks.hadoop import clientjvm


def test_per_operation_weighs_each_sample_by_its_runs_busy_cpus_and_counts_per_second():
    # 2 ms per start in a run of 4 s that kept 1.5 CPUs busy and made 8000 calls and 20000 faults.
    got = per_operation([("native", 0, 0.002, 6.0, 4.0, 8000, 20000), ("native", 0, 0.002, 6.0, 0.0, 1, 1)])
    assert got[("native", 0)] == Rates(pytest.approx(0.003), pytest.approx(4.0), pytest.approx(10.0))


def test_a_fault_is_priced_by_what_a_start_costs_beyond_its_calls():
    call_n, call_g = Rates(1e-7, 1, 0), Rates(20.1e-6, 1, 0)  # ds = 20 us
    start_n = Rates(0.03, 1000, 5000)
    # gVisor's start: native's + 1000 calls x 20 us + 5000 faults x 4 us = 0.03 + 0.02 + 0.02.
    start_g = Rates(0.07, 0, 0)
    p = entry_prices(call_n, call_g, start_n, start_g)
    assert p.call_s == pytest.approx(20e-6) and p.fault_s == pytest.approx(4e-6)
    assert entry_prices(call_n, call_g, Rates(0.03, 1000, 0), start_g) is None
    assert priced(1.0, 1000, 5000, p) == pytest.approx(1.04)


def _step(platform, block, step, cpu, wall, calls=0.0, faults=0.0, switches=0.0):
    return Counted(platform, block, step, cpu, wall, calls, faults, switches)


def test_the_waiting_cluster_is_its_idle_steps_rates_and_a_steps_own_work_is_what_is_left():
    idle = [_step("native", 0, clientjvm.IDLE_STEP, 2.0, 20.0, 40000, 2000), _step("native", 0, "jvm1", 1.5, 1.0)]
    w = waiting_of(idle)[("native", 0)]
    assert w == Rates(pytest.approx(0.1), pytest.approx(2000), pytest.approx(100))
    own = own_work(_step("native", 0, "wordcount", 10.0, 10.0, 50000, 30000), w)
    assert own == Rates(pytest.approx(9.0), pytest.approx(30000), pytest.approx(29000))


def test_the_ratio_prices_own_work_and_the_waiting_cluster_over_a_wall_that_grows():
    p = EntryPrices(20e-6, 4e-6)
    w = Rates(0.1, 2000, 100)
    step = _step("native", 0, "wordcount", 10.0, 10.0, 50000, 30000)
    job = Job("native", 0, "wordcount", 10.0, 10.0, 5)
    own_g = 9.0 + 30000 * 20e-6 + 29000 * 4e-6  # 9.716
    wait_g = 0.1 + 2000 * 20e-6 + 100 * 4e-6  # 0.1404 CPUs
    expected = own_g / (1 - wait_g * 10.0 / 10.0) / 10.0
    assert predicted_ratio(job, step, w, p) == pytest.approx(expected)
    # Free entries: the platform is native, ratio 1.
    assert predicted_ratio(job, step, w, EntryPrices(0.0, 0.0)) == pytest.approx(1.0)


def _campaign(ds=20e-6, df=4e-6, noise=0.0):
    """Three blocks: native's steps with counted entries, gVisor's CPU made by the rule itself."""
    spans, jobs, calls, starts = [], [], {}, {}
    p = EntryPrices(ds, df)
    for b in range(3):
        calls[("native", b)], calls[("gvisor", b)] = Rates(1e-7, 1, 0), Rates(1e-7 + ds, 1, 0)
        start_n = Rates(0.03, 1400, 4800)
        starts[("native", b)] = start_n
        starts[("gvisor", b)] = Rates(priced(0.03, 1400, 4800, p), 0, 0)
        idle = _step("native", b, clientjvm.IDLE_STEP, 2.0, 20.0, 40000, 2000)
        spans.append(idle)
        w = waiting_of([idle])[("native", b)]
        for i, name in enumerate(("wordcount", "create_write", "open_read", "write", "terasort")):
            s = _step("native", b, name, 10.0 + i, 12.0 + i, 50000 + 1000 * i, 30000 + 5000 * i, 900)
            spans.append(s)
            base = Job("native", b, name, s.cpu_s, s.wall_s, 5, job_time_s=s.wall_s)
            r = predicted_ratio(base, s, w, p) * (1 + noise * (b - 1))
            jobs += [base, Job("gvisor", b, name, r * s.cpu_s, r * s.wall_s, 5, job_time_s=r * s.wall_s)]
    return Campaign(spans, jobs, calls, starts)


def test_rows_recover_the_measured_ratio_when_the_platform_follows_the_rule():
    got = rows(_campaign(), "gvisor")
    assert len(got) == 15
    for r in got:
        assert r.prediction.error == pytest.approx(0.0, abs=1e-9)
        step = _campaign().span("native", r.prediction.block, r.prediction.step)
        assert r.calls_extra_s == pytest.approx(step.syscalls * 20e-6)
        assert r.faults_extra_s == pytest.approx(step.faults * 4e-6)
    text = report(_campaign(), "gvisor", "native")
    assert "the suite: held (5 held, 0 rejected of 5)" in text


def test_the_design_rule_per_step_and_for_the_suite():
    assert verdict([0.1, -0.14, 0.0]) == "held"
    assert verdict([0.3, -0.26, 0.0]) == "rejected"
    assert verdict([0.2, 0.3, 0.1]) == "neither"
    # Blocks 0 and 2 measured x0.5 and x1.5 the rule's: predictions +100 % and -33 % off, every step rejected.
    assert "the suite: rejected (0 held, 5 rejected of 5)" in report(_campaign(noise=0.5), "gvisor", "native")


def test_the_least_squares_prices_are_the_ones_that_made_the_extra_cpu():
    p = EntryPrices(30e-6, 2e-6)
    steps = [_step("native", 0, "s", 10.0, 10.0, c, f) for c, f in ((5e4, 3e4), (8e4, 1e4), (2e4, 9e4))]
    got = fitted_prices((s, priced(s.cpu_s, s.syscalls, s.faults, p)) for s in steps)
    assert got.call_s == pytest.approx(30e-6) and got.fault_s == pytest.approx(2e-6)
    assert fitted_prices([(steps[0], 11.0)]) is None


def test_a_client_jvms_price_is_its_steps_less_the_waiting_cluster():
    from selfbench.entry_prices import client_price

    spans = [
        _step("native", 0, clientjvm.IDLE_STEP, 2.0, 20.0, 40000, 2000),
        *(_step("native", 0, f"jvm{i}", 1.5 + 0.1 * i, 2.0, 20000 + i, 17000) for i in (1, 2, 3)),
        _step("native", 0, "wordcount", 30.0, 20.0, 9, 9),  # a job step is not a client JVM
    ]
    got = client_price(spans, "native", 0)
    assert got == Rates(pytest.approx(1.7 - 0.2), pytest.approx(20002 - 4000), pytest.approx(17000 - 200))
    assert client_price(spans, "gvisor", 0) is None


def test_a_call_is_priced_by_dds_cpu_its_wall_or_a_jvms_rpc_over_the_baselines_calls_per_round_trip():
    from dataclasses import replace

    from selfbench.entry_prices import call_rates, prices_by_block

    c = replace(
        _campaign(),
        call_walls={("native", 0): 1e-7, ("gvisor", 0): 72e-6},
        # A round trip: native 130 us of CPU and 22 calls; gVisor 1,230 us: 1,100 us more, 50 us a call.
        rpcs={("native", 0): Rates(130e-6, 22, 0), ("gvisor", 0): Rates(1230e-6, 300, 40)},
    )
    assert call_rates(c, "dd_cpu", "native") is c.calls
    assert prices_by_block(c, "gvisor", "native", "dd_wall")[0].call_s == pytest.approx(72e-6 - 1e-7)
    assert prices_by_block(c, "gvisor", "native", "rpc_cpu")[0].call_s == pytest.approx(50e-6)
    # Only block 0 has walls and round trips: the other blocks are not priced by those rules.
    assert set(prices_by_block(c, "gvisor", "native", "rpc_cpu")) == {0}
    assert set(prices_by_block(c, "gvisor", "native")) == {0, 1, 2}
    with pytest.raises(ValueError, match="dd_cpu, dd_wall, rpc_cpu"):
        call_rates(c, "strace", "native")

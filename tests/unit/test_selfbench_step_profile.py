"""selfbench.step_profile: perf script's lines, each sample's place and step, the CSV and the report."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest

from selfbench import step_profile as sp

LINES = [
    "         swapper     0 100.000100:  ffffffff8225295b pv_native_safe_halt ([kernel.kallsyms])",
    "             exe  6671 100.500000:  ffffffff81234567 finish_task_switch.isra.0 ([kernel.kallsyms])",
    "             exe  6671 101.000000:            4a2389 [unknown] (/usr/bin/runsc)",
    " C2 CompilerThre  7001 101.500000:      7f0624aa2389 [unknown] ([unknown])",
    "            java  7002 102.500000:  ffffffff81000001 do_syscall_64 ([kernel.kallsyms])",
    "not a sample line",
]


def test_samples_give_each_lines_time_and_place_and_leave_idle_out():
    got = list(sp.samples(LINES))
    assert got == [
        (100.5, "k:finish_task_switch.isra.0"),
        (101.0, sp.SENTRY),
        (101.5, sp.USER),  # a thread name with a space is still a sample
        (102.5, "k:do_syscall_64"),
    ]


def test_place_tells_the_kernel_the_sentry_and_other_user_code_apart():
    assert sp.place("clear_page_erms", "[kernel.kallsyms]") == "k:clear_page_erms"
    assert sp.place("", "[kernel.kallsyms]") == "k:[unknown]"
    assert sp.place("[unknown]", "/usr/local/bin/runsc") == sp.SENTRY
    assert sp.place("Java_foo", "/usr/lib/jvm/lib/server/libjvm.so") == sp.USER
    assert sp.place("x", "memfd:runsc-memory (deleted)") == sp.USER


def test_a_sample_counts_in_the_span_whose_start_end_holds_it():
    spans = [
        sp.Span(101.0, 102.0, 0, "gvisor", "wordcount", "wordcount"),
        sp.Span(100.0, 101.0, 0, "native", "wordcount", "wordcount"),
    ]
    got = sp.per_span(sp.samples(LINES), spans)
    # 100.5 is native's; 101.0 is native's end, not gVisor's start; 101.5 gVisor's; 102.5 neither's.
    assert got == Counter({(1, "k:finish_task_switch.isra.0"): 1, (1, sp.SENTRY): 1, (0, sp.USER): 1})


def test_the_csv_reads_back_per_platform_block_and_step_and_leaves_uncelled_rows_out():
    spans = [
        sp.Span(0, 1, 0, "native", "wordcount", "wordcount"),
        sp.Span(1, 2, None, None, "campaign", "prepare"),
        sp.Span(2, 3, 0, "native", "wordcount", "wordcount"),  # a step's two windows add up
    ]
    out = io.StringIO()
    sp.write(out, spans, Counter({(0, "user"): 3, (1, "user"): 9, (2, "user"): 2, (2, "k:x"): 1}), freq=100)
    assert out.getvalue().splitlines()[:2] == ["# freq 100", ",".join(sp.FIELDS)]
    prof = sp.read(out.getvalue())
    assert prof.freq == 100 and prof.steps == {("native", 0, "wordcount"): Counter({"user": 5, "k:x": 1})}
    with pytest.raises(ValueError, match="freq"):
        sp.read("block,platform\n")


def test_the_extra_per_stop_is_the_platforms_samples_beyond_the_baselines_over_its_stops():
    prof = sp.Profile(
        100,
        {
            ("native", 0, "terasort"): Counter({"user": 1000, "k:finish_task_switch": 10}),
            ("gvisor", 0, "terasort"): Counter({"user": 1500, "k:finish_task_switch": 410, sp.SENTRY: 300}),
            ("gvisor", 1, "terasort"): Counter({"user": 1}),  # no baseline in block 1: not paired
        },
    )
    per = sp.extra_per_stop(prof, {(0, "terasort"): 100_000, (1, "terasort"): 5}, "gvisor", "native")
    assert list(per) == [(0, "terasort")]
    # 400 samples of 1/100 s over 100,000 stops: 40 us a stop.
    assert per[(0, "terasort")]["k:finish_task_switch"] == pytest.approx(40.0)
    assert per[(0, "terasort")][sp.SENTRY] == pytest.approx(30.0)
    text = sp.report(prof, {(0, "terasort"): 100_000}).splitlines()
    assert text[0].startswith("b0 terasort: profiled CPU-s native 10.1, gvisor 22.1; extra us per stop 120.0")
    assert "kernel switch 40.0, kernel other 0.0, Sentry code 30.0, other user code 50.0" in text[0]
    assert text[1].split(", ")[0].strip() == "user 50.0"


def test_perf_records_the_whole_machine_on_a_timer_stamped_with_the_wall_clock():
    argv = sp.record_argv(Path("/t/perf.data"))
    assert argv[:3] == ["perf", "record", "-a"] and argv[argv.index("-k") + 1] == "CLOCK_REALTIME"
    assert argv[argv.index("-e") + 1] == "cpu-clock" and argv[-2:] == ["-o", "/t/perf.data"]
    assert sp.script_argv(Path("/t/perf.data"))[-1] == "comm,pid,time,ip,sym,dso"


def test_a_commands_places_are_priced_per_stop_it_made():
    got = Counter({"k:finish_task_switch": 400, sp.SENTRY: 40, "k:do_syscall_64": 160})
    head, most = sp.places_report(got, 100, 100_000).splitlines()
    assert head.startswith("profiled CPU-s 6.00, 100,000 ptrace stops; us per stop 60.0")
    assert "kernel switch 40.0, kernel other 16.0, Sentry code 4.0, other user code 0.0" in head
    assert most.split(", ")[0].strip() == "k:finish_task_switch 40.0"
    assert "us per stop 0.0" in sp.places_report(got, 100, 0).splitlines()[0]

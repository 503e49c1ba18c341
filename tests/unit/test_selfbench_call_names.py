"""selfbench.call_names: perf stat's interval rows, a campaign log's step windows and the report."""

from __future__ import annotations

from datetime import datetime

import pytest

from selfbench import call_names as cn

PERF = """# started on Sat Dec  5 08:01:10 2026

     1.001,100,,raw_syscalls:sys_enter,2000,100.00,,
     1.001,60,,syscalls:sys_enter_ptrace,2000,100.00,,
     1.001,40,,syscalls:sys_enter_wait4,2000,100.00,,
     1.001,10,,syscalls:sys_enter_ptrace,2000,100.00,,
     1.001,37,,context-switches,2000,100.00,,
     2.002,<not counted>,,syscalls:sys_enter_futex,0,0.00,,
     2.002,500,,raw_syscalls:sys_enter,2000,100.00,,
     2.002,300,,syscalls:sys_enter_ptrace,2000,100.00,,
     2.002,200,,syscalls:sys_enter_wait4,2000,100.00,,
     2.002,50,,syscalls:sys_enter_ptrace,2000,100.00,,
     2.002,185,,context-switches,2000,100.00,,
"""

LOG = """08:01:09 campaign x: 1 cells
08:01:10 wordcount: wordcount ...
08:01:12 wordcount: counts ...
08:01:20 wordcount: JobHistory of 1 job(s) read in 0.5 s
not a stamped line
"""


def test_intervals_read_the_start_the_rows_and_name_the_second_ptrace_row_sysemu():
    started, rows = cn.intervals(PERF)
    assert started == datetime(2026, 12, 5, 8, 1, 10)
    assert (1.001, cn.SYSEMU, 10) in rows and (1.001, cn.PTRACE, 60) in rows
    assert not any(e == "syscalls:sys_enter_futex" for _, e, _ in rows)  # not counted: left out
    with pytest.raises(ValueError, match="started on"):
        cn.intervals("1.0,5,,raw_syscalls:sys_enter,1,100,,\n")


def test_windows_run_from_a_steps_line_to_the_next_stamped_line_and_cross_midnight():
    got = cn.windows(LOG, datetime(2026, 12, 5))
    assert [(w.bench, w.step) for w in got] == [("wordcount", "wordcount"), ("wordcount", "counts")]
    assert got[0].start == datetime(2026, 12, 5, 8, 1, 10) and got[0].end == datetime(2026, 12, 5, 8, 1, 12)
    assert got[1].end == datetime(2026, 12, 5, 8, 1, 20)
    late = cn.windows("23:59:58 dfsio: write ...\n00:00:03 dfsio: JobHistory\n", datetime(2026, 12, 5))
    assert late[0].end == datetime(2026, 12, 6, 0, 0, 3)


def test_an_interval_counts_toward_the_step_its_end_falls_in():
    started, rows = cn.intervals(PERF)
    first = cn.Window("w", "a", datetime(2026, 12, 5, 8, 1, 10), datetime(2026, 12, 5, 8, 1, 11, 500000))
    assert cn.counts(started, rows, first)[cn.RAW] == 100


def test_report_gives_calls_stops_switches_a_stop_and_names_in_percent_of_the_calls():
    started, rows = cn.intervals(PERF)
    # The second interval ends at 08:01:12.002, past the first step: it is the next step's.
    got = cn.report(started, rows, cn.windows(LOG, started))
    head, names = got.splitlines()[:2]
    assert head.startswith("wordcount wordcount: 100 calls in 2 s (50/s); 10 ptrace stops (0.100 of the calls)")
    assert head.endswith("3.70 context switches a stop")
    assert names.split(", ")[:2] == ["    ptrace 60.0%", "wait4 40.0%"]

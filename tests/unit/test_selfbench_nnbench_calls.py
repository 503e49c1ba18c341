"""selfbench/nnbench_calls.py: NNBench's operations window and the calls counted inside it."""

from __future__ import annotations

from datetime import datetime

from selfbench import nnbench_calls as C

LOG = """2026-12-02 09:35:38,325 INFO hdfs.NNBench:                Test Operation: open_read
2026-12-02 09:35:38,325 INFO hdfs.NNBench:                Start time: 2026-12-02 09:36:27,5
2026-12-02 09:36:32,527 INFO hdfs.NNBench:        RAW DATA: Longest Map Time (ms): 2102.0
"""

TRACE = [
    "2784 09:36:26.900000 futex(0x7f, FUTEX_WAIT_PRIVATE, 0, NULL) = 0",  # before the barrier
    "2784 09:36:27.100000 futex(0x7f, FUTEX_WAKE_PRIVATE, 1) = 1",
    "2790 09:36:27.200000 epoll_wait(5,  <unfinished ...>",
    "2790 09:36:27.300000 <... epoll_wait resumed>[{events=EPOLLIN}], 1, 60000) = 1",  # not a new call
    '2790 09:36:27.400000 read(7, "\\0\\0", 4) = 4',
    "2784 09:36:28.000000 --- SIGSEGV {si_signo=SIGSEGV} ---",
    '2784 09:36:29.200000 write(7, "x", 1) = 1',  # after the longest map
    "garbage",
]


def test_the_window_is_the_barrier_to_the_barrier_plus_the_longest_map():
    w = C.ops_window(LOG)
    assert w.op == "open_read"
    # NNBench prints its milliseconds unpadded: ",5" is 5 ms.
    assert w.start == datetime(2026, 12, 2, 9, 36, 27, 5000)
    assert (w.end - w.start).total_seconds() == 2.102


def test_a_log_without_its_report_has_no_window():
    assert C.ops_window(LOG.splitlines()[0]) is None


def test_only_the_calls_begun_inside_the_window_count_and_signals_apart():
    calls, sigs = C.count(TRACE, C.ops_window(LOG))
    assert calls == {"futex": 1, "epoll_wait": 1, "read": 1}
    assert sigs == {"SIGSEGV": 1}

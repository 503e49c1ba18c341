"""selfbench.call_names: perf stat's interval rows, a campaign log's step windows and the report."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

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
    assert cn.per_window(started, rows, [first])[0][1][cn.RAW] == 100


def test_report_gives_calls_stops_switches_a_stop_and_names_in_percent_of_the_calls():
    started, rows = cn.intervals(PERF)
    # The second interval ends at 08:01:12.002, past the first step: it is the next step's.
    got = cn.report(cn.per_window(started, rows, cn.windows(LOG, started)))
    head, names = got.splitlines()[:2]
    assert head.startswith("wordcount wordcount: 100 calls in 2 s (50/s); 10 ptrace stops (0.100 of the calls)")
    assert head.endswith("3.70 context switches a stop")
    assert names.split(", ")[:2] == ["    ptrace 60.0%", "wait4 40.0%"]


CELLS_LOG = """[0/2 cells, 0s elapsed, ETA ?] running b0/native/wordcount
08:01:10 wordcount: wordcount ...
08:01:12 b0/native/wordcount: ok
[1/2 cells, 2s elapsed, ETA 2s] running b0/gvisor/wordcount
08:01:12 wordcount: wordcount ...
08:01:14 b0/gvisor/wordcount: ok
"""


def _rows(*per_second):
    """Interval rows ending at 1.5, 2.5, ... s after the start, each (calls, sysemu, switches)."""
    rows = []
    for i, (calls, stops_, switches) in enumerate(per_second):
        t = i + 1.5
        rows += [(t, cn.RAW, calls), (t, cn.SYSEMU, stops_), (t, cn.SWITCHES, switches)]
    return rows


def test_windows_carry_the_cell_the_runner_named_last():
    got = cn.windows(CELLS_LOG, datetime(2026, 12, 5))
    assert [(w.block, w.platform, w.step) for w in got] == [(0, "native", "wordcount"), (0, "gvisor", "wordcount")]


def test_stops_pair_the_baselines_calls_with_the_platforms_stops_and_price_each_stop():
    started = datetime(2026, 12, 5, 8, 1, 9)
    # Intervals end at 08:01:10.5, 11.5 (native's window), 12.5, 13.5 (gVisor's).
    rows = _rows((100, 0, 5), (900, 0, 5), (3000, 500, 2000), (4000, 700, 2500))
    cpu = {("native", 0, "wordcount"): 20.0, ("gvisor", 0, "wordcount"): 80.0}
    (got,) = cn.stops(cn.per_window(started, rows, cn.windows(CELLS_LOG, started)), cpu)
    assert (got.block, got.step, got.calls, got.stops, got.switches) == (0, "wordcount", 1000, 1200, 4500)
    assert got.extra_us_per_stop == pytest.approx(60.0 / 1200 * 1e6)
    text = cn.stops_report([got]).splitlines()[1].split()
    assert text[:5] == ["0", "wordcount", "1,000", "1,200", "1.20"] and text[5] == "3.75"
    # Without the machine's CPU a stop is not priced, and the report says so.
    bare = cn.stops(cn.per_window(started, rows, cn.windows(CELLS_LOG, started)), {})[0]
    assert bare.extra_us_per_stop is None and cn.stops_report([bare]).splitlines()[1].split()[-2] == "-"


def test_stops_count_each_sides_interrupts_between_cpus_and_the_platforms_extra_per_stop():
    started = datetime(2026, 12, 5, 8, 1, 9)
    rows = _rows((100, 0, 5), (900, 0, 5), (3000, 500, 2000), (4000, 700, 2500))
    ipi, single = cn.IPIS[2], cn.IPIS[0]
    rows += [(2.5, single, 100), (2.5, ipi, 20), (4.5, single, 3000), (4.5, ipi, 120)]
    (got,) = cn.stops(cn.per_window(started, rows, cn.windows(CELLS_LOG, started)), {})
    assert (got.base_ipis, got.ipis) == (120, 3120)
    assert got.extra_ipis_per_stop == pytest.approx(3000 / 1200)
    assert cn.stops_report([got]).splitlines()[1].split()[-1] == "2.50"


def test_a_step_one_side_did_not_run_is_not_paired():
    started = datetime(2026, 12, 5, 8, 1, 9)
    only = CELLS_LOG.split("[1/2")[0]
    assert cn.stops(cn.per_window(started, _rows((100, 0, 5), (900, 0, 5)), cn.windows(only, started)), {}) == []


def test_perf_counts_every_call_by_name_sysemu_and_switches_over_the_whole_machine():
    argv = cn.perf_argv(Path("/t/p.csv"))
    assert argv[:6] == ["perf", "stat", "-a", "-x,", "-I", "2000"]
    assert argv[argv.index("--filter") - 1] == cn.PTRACE and argv[argv.index("--filter") + 1] == "request == 31"
    assert argv[-2:] == ["-o", "/t/p.csv"]
    assert argv[argv.index(",".join(cn.IPIS)) - 1] == "-e"


def test_keep_writes_nothing_where_no_campaign_was_written(tmp_path):
    csv, log = tmp_path / "p.csv", tmp_path / "l.log"
    csv.write_text(PERF)
    log.write_text(LOG)
    cn._keep(csv, log, tmp_path / "raw" / "none")
    assert not (tmp_path / "raw").exists()
    camp = tmp_path / "raw" / "x"
    camp.mkdir(parents=True)
    (camp / "campaign.json").write_text("{}")
    cn._keep(csv, log, camp)
    assert cn.intervals(cn._text(camp / "calls" / cn.PERF_FILE))[0] == datetime(2026, 12, 5, 8, 1, 10)
    assert (camp / "calls" / cn.LOG_FILE).read_text() == LOG


def test_the_designs_rule_needs_every_judged_pair_in_the_stop_band_and_above_the_price():
    def pair(step, calls, stops_, extra_s):
        return cn.Stops(0, step, calls, stops_, 0, 10.0, 10.0 + extra_s)

    good = [pair(s, 1000, 1200, 0.08) for s in cn.JUDGED]
    assert cn.verdict(good) == ("held", [])
    # Teragen is not judged: its miss changes nothing.
    assert cn.verdict(good + [pair("teragen", 1000, 500, 0.01)])[0] == "held"
    one = [pair("wordcount", 1000, 900, 0.08)] + good[1:]
    word, failed = cn.verdict(one)
    assert word == "neither" and [f.step for f in failed] == ["wordcount"]
    cheap = [pair(s, 1000, 1200, 0.05) for s in cn.JUDGED[:3]] + good[3:]
    assert cn.verdict(cheap)[0] == "rejected"
    assert cn.verdict([])[0] == "neither"


def test_the_wake_rule_prices_a_stop_in_place_plus_a_wake_per_extra_interrupt():
    def pair(step, extra_ipis_per_stop, extra_us_per_stop):
        stops_ = 1000
        return cn.Stops(
            0,
            step,
            1000,
            stops_,
            0,
            10.0,
            10.0 + extra_us_per_stop * stops_ / 1e6,
            0,
            int(extra_ipis_per_stop * stops_),
        )

    assert cn.predicted_us_per_stop(pair("wordcount", 2.0, 0)) == pytest.approx(cn.STOP_IN_PLACE_US + 2 * cn.WAKE_US)
    good = [pair(s, 2.0, 46.4 * 1.1) for s in cn.JUDGED]  # 10 % over 22.4 + 2 x 12
    assert cn.wake_verdict(good) == ("held", [])
    assert cn.wake_error(good[0]) == pytest.approx(0.1, abs=1e-3)
    assert cn.wake_verdict(good + [pair("teragen", 0.0, 200.0)])[0] == "held"  # not judged
    one = [pair("wordcount", 2.0, 46.4 * 1.2)] + good[1:]
    word, off = cn.wake_verdict(one)
    assert word == "neither" and [s.step for s in off] == ["wordcount"]
    # Three pairs more than 25 % off: rejected, as 63-80 us with no extra interrupt would be.
    far = [pair(s, 0.0, 70.0) for s in cn.JUDGED[:3]] + good[3:]
    assert cn.wake_verdict(far)[0] == "rejected"
    unpriced = [cn.Stops(0, s, 1000, 1000, 0, None, None) for s in cn.JUDGED[:3]] + good[3:]
    assert cn.wake_verdict(unpriced)[0] == "rejected"
    assert "held; 5 of 5 judged pairs within 15%" in cn.wake_report(good)


PERF_SCRIPT = """\
         swapper     0 1796473148.320553:  ffffffff8225295b pv_native_safe_halt ([kernel.kallsyms])
             exe  6671 1796473150.100000:  ffffffff81234567 finish_task_switch.isra.0 ([kernel.kallsyms])
             exe  6671 1796473150.200000:            4a2389 [unknown] (/usr/bin/runsc)
 C2 CompilerThre  7001 1796473150.300000:      7f0624aa2389 [unknown] ([unknown])
"""


def test_keep_counts_perf_records_samples_per_step_beside_the_counts(tmp_path, monkeypatch):
    from selfbench import step_profile as sp

    # perf record's data stands for itself here: perf script's output is canned, as perf would print it.
    script = tmp_path / "script.txt"
    script.write_text(PERF_SCRIPT)
    monkeypatch.setattr(sp, "script_argv", lambda data: ["cat", str(script)])
    csv, log, sampled = tmp_path / "p.csv", tmp_path / "l.log", tmp_path / "perf.data"
    day = datetime.fromtimestamp(1796473149)
    csv.write_text(f"# started on {day.strftime('%a %b %d %H:%M:%S %Y')}\n")
    start, end = datetime.fromtimestamp(1796473150), datetime.fromtimestamp(1796473152)
    log.write_text(
        "[0/1 cells, 0s elapsed, ETA ?] running b0/gvisor/wordcount\n"
        f"{start:%H:%M:%S} wordcount: wordcount ...\n{end:%H:%M:%S} b0/gvisor/wordcount: ok\n"
    )
    sampled.write_bytes(b"")
    camp = tmp_path / "raw" / "x"
    camp.mkdir(parents=True)
    (camp / "campaign.json").write_text("{}")
    cn._keep(csv, log, camp, sampled)
    prof = sp.read(cn._text(camp / "calls" / sp.PROFILE_FILE))
    assert prof.freq == sp.FREQ
    assert prof.steps == {("gvisor", 0, "wordcount"): {"k:finish_task_switch.isra.0": 1, "runsc": 1, "user": 1}}


def test_profile_wants_a_command():
    with pytest.raises(SystemExit):
        cn.main(["profile", "--"])

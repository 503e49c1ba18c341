"""selfbench.micro_cv: the argv, a metric's CV over repeats, the config from --set, and a real run
of a cheap registered micro-benchmark (dd's one-byte calls) natively."""

from __future__ import annotations

import shutil

import pytest

from selfbench import micro_cv as mc
from vbench.benchmarks.micro import syscall
from vbench.errors import VbenchError
from vbench.samples import Sample


def _s(metric: str, value: float) -> Sample:
    return Sample(benchmark="rpc", metric=metric, value=value, unit="us")


def test_argv_runs_the_command_in_a_shell_sandboxed_and_pinned_where_asked():
    assert mc.argv_of("echo x") == ["sh", "-c", "echo x"]
    got = mc.argv_of("echo x", gvisor=True, pin=True)
    assert got[:3] == ["taskset", "-c", "0"] and got[3] == "runsc" and got[-3:] == ["sh", "-c", "echo x"]


def test_cv_is_the_sd_over_the_mean_in_percent_per_metric():
    got = mc.cv_by_metric([_s("rpc_us", 90.0), _s("rpc_us", 110.0), _s("elapsed", 3.0)])
    mean, cv, n = got["rpc_us"]
    assert (mean, n) == (100.0, 2) and cv == pytest.approx(14.142, abs=1e-3)
    assert "elapsed" not in got  # one repeat: no CV


def test_the_config_takes_its_settings_and_names_a_bad_one():
    cfg = mc.config_of(syscall, ["count=5000"], 3)
    assert (cfg.count, cfg.repeats) == (5000, 3)
    with pytest.raises(VbenchError, match="KEY=VALUE"):
        mc.config_of(syscall, ["count"], 3)
    with pytest.raises(VbenchError, match="syscall"):
        mc.config_of(syscall, ["count=1"], 3)  # below its floor of 1000


def test_an_unknown_benchmark_is_refused(capsys):
    assert mc.main(["no-such-bench"]) == 2
    assert "no-such-bench" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("dd") is None, reason="needs dd")
def test_a_real_run_prints_each_metrics_cv(capsys):
    assert mc.main(["syscall", "--set", "count=2000", "--repeats", "3", "--runs", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("syscall (native) run 1: syscall_ns mean ") for line in out)
    assert all(line.endswith("over 3 repeats") for line in out)


def test_a_second_design_takes_its_settings_over_the_firsts():
    [(a, first), (b, second)] = mc.designs_of(syscall, ["count=5000"], ["count=3000"], 4)
    assert (a, first.count, first.repeats) == ("design", 5000, 4)
    assert (b, second.count, second.repeats) == ("against", 3000, 4)
    assert mc.designs_of(syscall, [], [], 2)[0][0] == ""  # alone: no label


@pytest.mark.skipif(shutil.which("dd") is None, reason="needs dd")
def test_two_designs_run_alternately_and_end_with_each_ones_median_cv(capsys):
    argv = ["syscall", "--set", "count=2000", "--against", "count=1000", "--repeats", "2", "--runs", "2"]
    assert mc.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    runs = [line.split(" (native) run ")[0] + line.split(" run ")[1][:1] for line in out if "syscall_ns mean" in line]
    assert runs == ["syscall design1", "syscall against1", "syscall design2", "syscall against2"]
    assert "syscall against: {'count': 1000, 'repeats': 2}" in out
    medians = [line for line in out if "syscall_ns median CV" in line]
    assert len(medians) == 2 and all(line.endswith("over 2 runs") for line in medians)


def test_pinning_rpc_with_its_busy_loop_is_refused(capsys):
    assert mc.main(["rpc", "--pin", "--set", "other_cpus_busy=true"]) == 2
    assert "add --set other_cpus_busy=false" in capsys.readouterr().err
    assert mc.main(["rpc", "--pin", "--against", "other_cpus_busy=true", "--set", "other_cpus_busy=false"]) == 2
    assert "(against)" in capsys.readouterr().err


# --- one repeat a run: the CV over runs ----------------------------------------------------------------


def test_a_run_of_one_repeat_gives_each_metric_its_value():
    assert mc.run_values([_s("rpc_us", 90.0), _s("elapsed", 3.0)]) == {"rpc_us": 90.0, "elapsed": 3.0}
    assert mc.run_values([_s("rpc_us", 90.0), _s("rpc_us", 110.0)]) == {"rpc_us": 100.0}  # several: their mean


def test_the_cv_over_runs_is_the_sd_of_the_runs_values_over_their_mean():
    runs = [{"rpc_us": 90.0, "elapsed": 3.0}, {"rpc_us": 110.0}, {"rpc_us": 100.0, "zero": 0.0}]
    got = mc.cv_over_runs(runs)
    mean, cv, n = got["rpc_us"]
    assert (mean, n) == (100.0, 3) and cv == pytest.approx(10.0)
    assert "elapsed" not in got and "zero" not in got  # one run's value: no CV; a mean of 0: none
    assert mc.cv_over_runs([]) == {}


def test_a_cv_over_one_value_is_refused_in_one_line(capsys):
    mc.refuse_one_value(5, 1)  # repeats give the CV: one run is enough
    mc.refuse_one_value(1, 2)
    with pytest.raises(VbenchError, match="give --runs 2 or more, not 1"):
        mc.refuse_one_value(1, 1)
    assert mc.main(["syscall", "--repeats", "1", "--runs", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("micro_cv: --repeats 1 gives one value a run") and len(err.splitlines()) == 1


def test_a_set_repeats_that_repeats_would_override_is_refused(capsys):
    assert mc.config_of(syscall, ["repeats=3"], 3).repeats == 3  # the same: nothing overridden
    with pytest.raises(VbenchError, match="give --repeats 1"):
        mc.config_of(syscall, ["repeats=1"], 5)
    assert mc.main(["syscall", "--set", "repeats=1"]) == 2
    assert "--set repeats=1 is not used: the repeats are --repeats's (5)" in capsys.readouterr().err


def _canned(monkeypatch, values):
    """main's processes stood in for: each run's syscall_ns is the next of `values`, nothing measured."""
    from types import SimpleNamespace
    from subprocess import CompletedProcess

    given = iter(values)
    monkeypatch.setattr(mc, "subprocess", SimpleNamespace(run=lambda argv, **_: CompletedProcess(argv, 0, "", "")))
    monkeypatch.setattr(syscall, "parse_stdout", lambda _out, _cfg: [_s("syscall_ns", next(given))])


def test_one_repeat_a_run_prints_each_runs_value_then_the_cv_over_the_runs(monkeypatch, capsys):
    _canned(monkeypatch, [90.0, 110.0, 100.0])
    assert mc.main(["syscall", "--repeats", "1", "--runs", "3"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "syscall (native) run 1: syscall_ns 90",
        "syscall (native) run 2: syscall_ns 110",
        "syscall (native) run 3: syscall_ns 100",
        "syscall (native): syscall_ns mean 100, CV 10.0 % over 3 runs",
    ]


def test_one_repeat_a_run_against_a_second_design_gives_each_its_cv_over_its_runs(monkeypatch, capsys):
    _canned(monkeypatch, [90.0, 50.0, 110.0, 70.0])
    assert mc.main(["syscall", "--repeats", "1", "--runs", "2", "--against", "count=1000"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == [
        "syscall design (native) run 1: syscall_ns 90",
        "syscall against (native) run 1: syscall_ns 50",
        "syscall design (native) run 2: syscall_ns 110",
        "syscall against (native) run 2: syscall_ns 70",
    ]
    assert out[-2:] == [
        "syscall design (native): syscall_ns mean 100, CV 14.1 % over 2 runs",
        "syscall against (native): syscall_ns mean 60, CV 23.6 % over 2 runs",
    ]
    assert not any("median CV" in line for line in out)  # no CV over repeats to take the median of

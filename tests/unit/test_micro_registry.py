"""The micro-benchmark registry: every module has the one shape, and describe() lists it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from invoke import Result

from pydantic import ValidationError

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.micro import MICRO_BENCHMARKS
from vbench.benchmarks.registry import describe_all
from vbench.errors import JobFailed
from vbench.samples import UNITS

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"

# A captured output and the config it was made with, per benchmark.
CAPTURES = {
    "fio": ("fio.json", {"size_mb": 16, "runtime_s": 2}),
    "dd": ("dd.txt", {"bs_mb": 4, "count": 4, "repeats": 3}),
    "hdparm": ("hdparm_loop.txt", {"device": "/dev/loop1", "repeats": 2}),
    "bonnie": ("bonnie_files.csv", {"files_k": 4}),
    "iperf3": ("iperf3.json", {"port": 47239}),
    "cpu": ("cpu.txt", {"time_s": 2}),
    "pi_digits": ("pi_digits.txt", {"digits": (1000, 10000, 100000)}),
    "membw": ("membw.txt", {"time_s": 2}),
    "latency": ("latency_native.json", {"server": "10.252.0.12", "duration_s": 3}),
    "syscall": ("syscall.txt", {"count": 1000, "repeats": 2}),
    "spawn": ("spawn.txt", {"count": 100, "repeats": 2, "windows": 3}),
    "jvmstart": ("jvmstart.txt", {"count": 2, "repeats": 2, "windows": 3, "warmup_starts": 1}),
    "fileopen": ("fileopen.txt", {"count": 100, "repeats": 2, "windows": 3}),
    "pagefault": ("pagefault.txt", {"size_mb": 16, "count": 10, "repeats": 2, "windows": 3}),
    "rpc": ("rpc.txt", {"seconds": 0.5, "repeats": 2, "warmup_s": 0.5, "other_cpus_busy": True}),
    "jvmcpu": ("jvmcpu.txt", {"seconds": 0.5, "repeats": 2, "warmup_s": 0.5, "records": 1000}),
}


def test_registry_names_the_sixteen_benchmarks():
    assert set(MICRO_BENCHMARKS) == set(CAPTURES)
    assert all(module.NAME == name for name, module in MICRO_BENCHMARKS.items())


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_every_module_has_the_one_shape(name):
    module = MICRO_BENCHMARKS[name]
    for attr in ("command", "parse", "run", "Config", "PRESETS", "METRICS"):
        assert hasattr(module, attr), attr
    assert issubclass(module.Config, BenchConfig) and module.Config.model_config["frozen"]
    assert set(module.METRICS.values()) <= UNITS
    with pytest.raises(ValidationError, match="frozen"):
        setattr(module.Config(), next(iter(module.Config.model_fields)), None)
    assert isinstance(module.command(module.Config(), "/w"), str)


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_run_returns_samples_and_raw_output_through_any_context(name, fake_context):
    module = MICRO_BENCHMARKS[name]
    fname, kwargs = CAPTURES[name]
    text = (DATA / fname).read_text()
    cfg = module.Config(**kwargs)
    c = fake_context(Result(stdout=text))
    samples, raw = module.run(c, cfg, "/w")
    assert raw == text and samples
    assert all(s.benchmark == name and module.METRICS[s.metric] == s.unit for s in samples)
    [call] = c.run.call_args_list
    assert call.args == (module.command(cfg, "/w"),)
    assert call.kwargs["hide"] is True and call.kwargs["warn"] is True


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_run_turns_a_non_zero_exit_into_jobfailed_with_the_stderr_tail(name, fake_context):
    module = MICRO_BENCHMARKS[name]
    stderr = "".join(f"noise {i}\n" for i in range(40)) + "the real reason\n"
    c = fake_context(Result(stderr=stderr, exited=2))
    with pytest.raises(JobFailed, match="the real reason") as info:
        module.run(c, module.Config(**CAPTURES[name][1]), "/w")
    assert "noise 0\n" not in str(info.value)  # a tail, not the whole stream


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_run_turns_unparseable_output_into_jobfailed(name, fake_context):
    module = MICRO_BENCHMARKS[name]
    c = fake_context(Result(stdout="<html>503</html>", stderr="warning: odd\n"))
    with pytest.raises(JobFailed, match="warning: odd"):
        module.run(c, module.Config(**CAPTURES[name][1]), "/w")


def test_describe_lists_fields_defaults_and_metrics():
    entries = {d["name"]: d for d in describe_all() if d["kind"] == "micro"}
    # Every micro module, and the iperf3 matrix, a calibration benchmark across the testbed's hosts.
    assert set(entries) == set(CAPTURES) | {"netmatrix"}
    assert "jeong2017" in entries["netmatrix"]["presets"]
    fio = entries["fio"]
    assert fio["config"] == "FioConfig"
    assert {"name": "size_mb", "type": "int", "default": 32} in fio["fields"]
    assert {"metric": "randread_iops", "unit": "IOPS"} in fio["metrics"]
    assert "liu2012" in entries["dd"]["presets"] and "vasconcelos" in entries["bonnie"]["presets"]
    assert all(d["summary"] and d["metrics"] and d["fields"] for d in entries.values())
    json.dumps(describe_all())  # printable by `vbench bench list --json`


def test_no_benchmarks_config_field_is_a_key_the_campaign_runner_stamps_on_its_samples():
    # A config is stamped into each sample's metadata, and the runner's stamp goes over it: a field
    # named `warmup` (jvmstart's warm-up starts, first so named) would be overwritten in a campaign,
    # and outside one read by the statistics as a warm-up run, which they drop.
    from types import SimpleNamespace

    from vbench.benchmarks.hadoop import HADOOP_BENCHMARKS
    from vbench.benchmarks.base import fields_of
    from vbench.campaign.runner import _stamp

    cell = SimpleNamespace(
        block=0, round=0, repetition=lambda rounds: 0, warmup=False, cell_id="b0/x", variant=SimpleNamespace(levels=())
    )
    stamped = set(_stamp({}, SimpleNamespace(stamp=lambda: {"platform": "native"}), cell, 1))
    assert {"warmup", "block", "round", "platform"} <= stamped
    for name, module in {**MICRO_BENCHMARKS, **HADOOP_BENCHMARKS}.items():
        assert not set(fields_of(module.Config())) & stamped, name

"""fio module: command line, parse of captured JSON, run through a fake and a real context."""

from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path

import pytest
from invoke import Result

from vbench.benchmarks.micro import fio
from vbench.errors import JobFailed, ParamsError

from tests.unit.builders import garbage_refusal_test, runs_here

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
TEXT = (DATA / "fio.json").read_text()
CFG = fio.FioConfig(size_mb=16, runtime_s=2)  # what the capture was made with


def test_argv_has_three_stonewalled_jobs_with_json_output():
    argv = fio.argv(fio.FioConfig(), "/data/work dir")
    assert argv[:2] == ["fio", "--output-format=json"]
    first_job = argv.index("--name=seq_write")
    # Before the first job: options every job shares, the test file one word, spaces and all.
    for flag in (
        "--direct=1",
        "--size=32M",
        "--ioengine=psync",
        "--runtime=3",
        "--filename=/data/work dir/vbench-fio.dat",
    ):
        assert flag in argv[:first_job]
    assert argv[first_job:] == [
        *("--name=seq_write", "--rw=write", "--bs=1024k", "--end_fsync=1"),
        *("--name=seq_read", "--stonewall", "--rw=read", "--bs=1024k"),
        *("--name=randread", "--stonewall", "--rw=randread", "--bs=4k", "--time_based"),
    ]


def test_command_runs_the_argv_then_removes_the_test_file():
    cmd = fio.command(fio.FioConfig(), "/data/work dir")
    assert cmd.startswith(shlex.join(fio.argv(fio.FioConfig(), "/data/work dir")) + "; rc=$?; ")
    assert cmd.endswith("rm -f '/data/work dir/vbench-fio.dat'; exit $rc")


def test_argv_buffered_when_direct_off():
    assert "--direct=0" in fio.argv(fio.FioConfig(direct=False), "/w")


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"size_mb": 0}, "size_mb"),
        ({"runtime_s": -1}, "runtime_s"),
        ({"ioengine": "dpdk"}, "ioengine"),
        ({"direct": "yes"}, "direct"),
        ({"rand_bs_k": 1.5}, "rand_bs_k"),
        ({"iodepth": 0}, "iodepth"),
    ],
)
def test_config_refuses_bad_values_naming_the_field(kwargs, field):
    with pytest.raises(ParamsError, match=field) as info:
        fio.FioConfig(**kwargs)
    assert info.value.field == field


def test_parse_captured_json():
    samples = {s.metric: s for s in fio.parse_stdout(TEXT, CFG)}
    assert set(samples) == set(fio.METRICS)
    assert {m: s.unit for m, s in samples.items()} == fio.METRICS
    # Numbers read off the captured file.
    assert samples["seq_write_bw"].value == pytest.approx(1600.0)
    assert samples["seq_read_bw"].value == pytest.approx(1066.666, rel=1e-5)
    assert samples["randread_iops"].value == pytest.approx(12335.832084)
    # The same, derived from other fields of the document: "bw" is KiB/s, iops = ios / runtime.
    jobs = {j["jobname"]: j for j in json.loads(TEXT)["jobs"]}
    assert samples["seq_write_bw"].value == pytest.approx(jobs["seq_write"]["write"]["bw"] / 1024, rel=1e-3)
    assert samples["seq_read_bw"].value == pytest.approx(jobs["seq_read"]["read"]["bw"] / 1024, rel=1e-3)
    rr = jobs["randread"]["read"]
    assert samples["randread_iops"].value == pytest.approx(rr["total_ios"] / (rr["runtime"] / 1000), rel=1e-3)
    assert samples["randread_lat_mean"].value == pytest.approx(rr["clat_ns"]["mean"] / 1000, rel=0.2)
    for s in samples.values():
        assert s.benchmark == "fio"
        assert s.metadata["direct"] is True
        assert s.metadata["size_mb"] == 16


def test_parse_takes_direct_from_what_fio_ran():
    samples = fio.parse_stdout(TEXT.replace('"direct" : "1"', '"direct" : "0"'), CFG)
    assert all(s.metadata["direct"] is False for s in samples)


test_parse_garbage_raises_jobfailed = garbage_refusal_test(
    fio.parse_stdout,
    CFG,
    [
        "",
        "fio: pid=1, err=5/file:io_u.c",
        "{not json",
        '{"fio version": "fio-3.33"}',
        '{"jobs": [{"jobname": "seq_write", "error": 0}]}',
    ],
)


def test_parse_refuses_a_job_that_errored():
    doc = json.loads(TEXT)
    doc["jobs"][2]["error"] = 5
    with pytest.raises(JobFailed, match="randread"):
        fio.parse_stdout(json.dumps(doc), CFG)


def test_parse_skips_notes_printed_before_the_json():
    assert len(fio.parse_stdout("note: both iodepth >= 1 and synchronous I/O engine\n" + TEXT, CFG)) == 4


def test_run_falls_back_to_buffered_when_direct_io_is_refused(fake_context):
    refused = Result(
        stderr="fio: looks like your file system does not support direct=1/buffered=0\n"
        "fio: destination does not support O_DIRECT\n",
        exited=1,
    )
    ok = Result(stdout=TEXT.replace('"direct" : "1"', '"direct" : "0"'))
    c = fake_context(refused, ok)
    samples, raw = fio.run(c, CFG, "/w")
    first, second = c.run.call_args_list
    assert "--direct=1" in first.args[0] and "--direct=0" in second.args[0]
    assert first.kwargs["hide"] is True and first.kwargs["warn"] is True
    assert raw == ok.stdout
    assert all(s.metadata["direct"] is False and "O_DIRECT" in s.metadata["direct_fallback"] for s in samples)


def test_run_does_not_fall_back_on_other_errors(fake_context):
    c = fake_context(Result(stderr="fio: pid=7, err=28/file:filesetup.c: No space left on device", exited=1))
    with pytest.raises(JobFailed, match="No space left on device"):
        fio.run(c, CFG, "/w")
    assert c.run.call_count == 1


def test_run_refuses_fallback_when_disabled(fake_context):
    c = fake_context(Result(stderr="fio: destination does not support O_DIRECT", exited=1))
    with pytest.raises(JobFailed, match="O_DIRECT"):
        fio.run(c, fio.FioConfig(direct_fallback=False), "/w")


@runs_here("fio")
def test_run_real_fio_small():
    import invoke

    with tempfile.TemporaryDirectory(prefix="vbench-fio-") as wd:
        samples, raw = fio.run(invoke.Context(), fio.FioConfig(size_mb=4, runtime_s=1), wd)
        assert list(Path(wd).iterdir()) == []  # the test file is removed
    assert json.loads(raw)["jobs"]
    assert {s.metric for s in samples} == set(fio.METRICS)
    assert all(s.value > 0 for s in samples)

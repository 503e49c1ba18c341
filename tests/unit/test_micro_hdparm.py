"""hdparm module: command line, parse of captured output, the no-block-device error."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from invoke import Result

from vbench.benchmarks.micro import hdparm
from vbench.errors import JobFailed

from tests.unit.builders import config_refusal_test, garbage_refusal_test, runs_here

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
TEXT = (DATA / "hdparm_loop.txt").read_text()
CFG = hdparm.HdparmConfig(device="/dev/loop1", repeats=2)  # what the capture was made with


def test_command_with_named_device_repeats_hdparm_t():
    cmd = hdparm.command(hdparm.HdparmConfig(device="/dev/sdb", repeats=3), "/w")
    assert cmd == 'dev=/dev/sdb; hdparm -t "$dev" && hdparm -t "$dev" && hdparm -t "$dev"'
    assert "hdparm -t --direct" in hdparm.command(hdparm.HdparmConfig(device="/dev/sdb", direct=True), "/w")


def test_command_without_device_finds_the_one_under_the_workdir():
    cmd = hdparm.command(hdparm.HdparmConfig(repeats=1), "/data/my work")
    assert "wd='/data/my work';" in cmd
    assert 'findmnt -no SOURCE -T "$wd"' in cmd and 'df --output=source "$wd"' in cmd
    assert '[ ! -b "$dev" ]' in cmd and f"exit {hdparm.NO_BLOCK_DEVICE}" in cmd
    assert cmd.endswith('hdparm -t "$dev"')


test_config_refuses_bad_values_naming_the_field = config_refusal_test(
    hdparm.HdparmConfig,
    [
        ({"device": "sda"}, "device"),
        ({"device": "/dev/x\n"}, "device"),
        ({"repeats": 0}, "repeats"),
        ({"direct": 1}, "direct"),
    ],
)


def test_parse_captured_output():
    samples = hdparm.parse_stdout(TEXT, CFG)
    assert [s.metric for s in samples] == ["buffered_read_bw"] * 2
    assert {s.unit for s in samples} == {"MiB/s"}
    # Read off the file: "64 MB in  0.39 seconds = 165.31 MB/sec", "... 0.16 seconds = 391.97 MB/sec".
    assert [s.value for s in samples] == [165.31, 391.97]
    assert [s.metadata["seconds"] for s in samples] == [0.39, 0.16]
    assert samples[0].value == pytest.approx(64 / 0.39, rel=0.02)  # hdparm's rate = MiB / s
    assert all(s.metadata["device"] == "/dev/loop1" and s.metadata["read_mib"] == 64 for s in samples)
    assert [s.metadata["repeat"] for s in samples] == [1, 2]


def test_parse_direct_capture_names_the_metric_apart():
    text = (DATA / "hdparm_direct_loop.txt").read_text()
    [s] = hdparm.parse_stdout(text, hdparm.HdparmConfig(device="/dev/loop0", direct=True, repeats=1))
    assert (s.metric, s.value, s.unit) == ("direct_read_bw", 291.29, "MiB/s")  # "= 291.29 MB/sec"
    assert s.metadata["device"] == "/dev/loop0"


def test_parse_converts_kb_per_sec_below_one_mib():
    # hdparm prints kB/sec (KiB) under 1 MiB/s: the format string in hdparm 9.65 is
    # "%3u MB in %5.2f seconds = %6.2f kB/sec".
    text = "\n/dev/sdz:\n Timing buffered disk reads:   2 MB in  3.20 seconds = 640.00 kB/sec\n"
    [s] = hdparm.parse_stdout(text, hdparm.HdparmConfig(repeats=1))
    assert s.value == pytest.approx(0.625) and s.unit == "MiB/s"


test_parse_garbage_raises_jobfailed = garbage_refusal_test(
    hdparm.parse_stdout,
    CFG,
    ["", "/dev/vda: Operation not permitted\n", "Timing cached reads: lots"],
)


def test_run_says_clearly_when_there_is_no_block_device(fake_context):
    msg = "vbench: no block device under /w: it is on 'overlay', not a block device"
    c = fake_context(Result(stderr=msg, exited=hdparm.NO_BLOCK_DEVICE))
    with pytest.raises(JobFailed, match="no block device under /w: it is on 'overlay'"):
        hdparm.run(c, hdparm.HdparmConfig(), "/w")


def test_run_passes_hdparm_errors_on(fake_context):
    c = fake_context(Result(stderr="/dev/vda: Operation not permitted\n", exited=1))
    with pytest.raises(JobFailed, match="Operation not permitted"):
        hdparm.run(c, hdparm.HdparmConfig(device="/dev/vda"), "/w")


@runs_here("findmnt")
def test_run_real_shell_on_tmpfs_raises_no_block_device():
    import invoke

    source = subprocess.run(["findmnt", "-no", "SOURCE", "-T", "/dev/shm"], capture_output=True, text=True)
    if source.returncode != 0 or source.stdout.strip().splitlines()[-1].startswith("/dev/"):
        pytest.skip("/dev/shm is not a tmpfs here")
    with pytest.raises(JobFailed, match="no block device under /dev/shm"):
        hdparm.run(invoke.Context(), hdparm.HdparmConfig(repeats=1), "/dev/shm")


@pytest.fixture
def loop_device():
    """A 64 MiB sparse file on a loop device: a block device the sandbox lets hdparm open."""
    if os.geteuid() != 0 or shutil.which("losetup") is None or shutil.which("hdparm") is None:
        pytest.skip("needs root, losetup and hdparm")
    with tempfile.TemporaryDirectory(prefix="vbench-hdparm-") as wd:
        img = Path(wd) / "disk.img"
        with open(img, "wb") as fh:
            fh.truncate(64 * 2**20)
        made = subprocess.run(["losetup", "-f", "--show", str(img)], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"cannot set up a loop device: {made.stderr.strip()}")
        device = made.stdout.strip()
        try:
            yield device
        finally:
            subprocess.run(["losetup", "-d", device], check=True)


@pytest.mark.integration
def test_run_real_hdparm_on_a_loop_device(loop_device):
    import invoke

    samples, raw = hdparm.run(invoke.Context(), hdparm.HdparmConfig(device=loop_device, repeats=1), "/tmp")
    assert "Timing buffered disk reads" in raw
    [s] = samples
    assert s.value > 0 and s.metadata["device"] == loop_device

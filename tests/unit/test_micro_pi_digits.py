"""pi_digits module (Debian `pi`, CLN): command line, parse of captured output, real run."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from vbench.benchmarks.micro import pi_digits
from vbench.errors import ParamsError

from tests.unit.builders import garbage_refusal_test, runs_here

DATA = Path(__file__).resolve().parents[1] / "data" / "micro"
TEXT = (DATA / "pi_digits.txt").read_text()
CFG = pi_digits.PiDigitsConfig(digits=(1000, 10000, 100000))  # what the capture was made with


def test_command_times_each_size_and_cleans_up():
    cmd = pi_digits.command(pi_digits.PiDigitsConfig(digits=(1000, 2000)), "/w d")
    assert "for n in 1000 2000; do s=$(date +%s.%N); pi $n > '/w d/vbench-pi.txt'" in cmd
    assert "count=$(tr -cd 0-9 < '/w d/vbench-pi.txt' | wc -c)" in cmd
    assert cmd.endswith("rm -f '/w d/vbench-pi.txt'; exit $rc")


def test_vasconcelos_preset_is_table_5():
    assert pi_digits.PRESETS["vasconcelos"].digits == (1_000_000, 2_000_000, 4_000_000, 8_000_000)


def test_config_accepts_one_size_or_a_list():
    assert pi_digits.PiDigitsConfig(digits=5000).digits == (5000,)
    assert pi_digits.PiDigitsConfig(digits=[1000, 2000]).digits == (1000, 2000)


@pytest.mark.parametrize("digits", [(), (5,), (1000, -1), ("1000",), None])
def test_config_refuses_bad_values_naming_the_field(digits):
    with pytest.raises(ParamsError, match="digits"):
        pi_digits.PiDigitsConfig(digits=digits)


def test_parse_captured_output():
    samples = pi_digits.parse_stdout(TEXT, CFG)
    assert [s.metadata["digits"] for s in samples] == [1000, 10000, 100000]
    assert {(s.metric, s.unit) for s in samples} == {("time", "s")}
    # end - start of each line, with plain string slicing on the fractional part (same second).
    for s, line in zip(samples, TEXT.splitlines()):
        fields = dict(f.split("=") for f in line.split())
        start_s, start_ns = fields["start"].split(".")
        end_s, end_ns = fields["end"].split(".")
        expected = (int(end_s) - int(start_s)) + (int(end_ns) - int(start_ns)) / 1e9
        assert s.value == pytest.approx(expected, abs=1e-9)
    assert samples[0].value == pytest.approx(0.005324971, abs=1e-9)  # 559.317155107 - 559.311830136


test_parse_garbage_raises_jobfailed = garbage_refusal_test(
    pi_digits.parse_stdout,
    CFG,
    [
        "",
        "pi: command not found",
        TEXT.replace("count=10000\n", "count=9999\n"),  # truncated output
        TEXT.replace("head=3.14159265358979 count=1000\n", "head=2.71828182845904 count=1000\n"),  # not pi
        "\n".join(TEXT.splitlines()[:2]),
    ],  # a size missing
)


@runs_here("pi", "Debian package 'pi' (CLN) not installed")
def test_run_real_pi():
    import invoke

    cfg = pi_digits.PiDigitsConfig(digits=(1000, 20000))
    with tempfile.TemporaryDirectory(prefix="vbench-pi-") as wd:
        samples, raw = pi_digits.run(invoke.Context(), cfg, wd)
        assert list(Path(wd).iterdir()) == []
    assert [s.metadata["digits"] for s in samples] == [1000, 20000]
    assert all(0 <= s.value < 10 for s in samples)

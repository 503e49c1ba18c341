"""Fetching Hadoop's jars runs Maven with a time limit (issue #24, item 4), against a fake `mvn`."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from vbench.errors import VbenchError
from vbench.hadoop import artifacts

VERSION, EXAMPLES = "3.3.6", "3.3.6"


def fake_mvn(bin_dir: Path, body: str) -> None:
    """A `mvn` on PATH that runs `body` (sh) with Maven's arguments."""
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "mvn"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)


@pytest.fixture
def bin_dir(tmp_path, monkeypatch):
    path = tmp_path / "bin"
    monkeypatch.setenv("PATH", f"{path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("VBENCH_MVN_TIMEOUT_S", raising=False)
    return path


def gone(pid: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


# A stalled download: a line of progress, then a child (as Maven's JVM) that outlives the limit.
STALLED = 'echo "Downloading from central: hadoop-common-3.3.6.jar"\nsleep 60 &\necho $! > "$SLEEPER"\nwait'


def test_a_stalled_mvn_is_stopped_and_says_what_it_was_fetching(tmp_path, bin_dir, monkeypatch):
    fake_mvn(bin_dir, STALLED)
    monkeypatch.setenv("SLEEPER", str(tmp_path / "sleeper.pid"))
    t0 = time.monotonic()
    with pytest.raises(VbenchError) as err:
        artifacts.fetch(VERSION, EXAMPLES, cache=tmp_path / "cache", log=lambda _: None, timeout_s=0.5)
    assert time.monotonic() - t0 < 10
    text = str(err.value)
    assert "did not finish in 0.5 s" in text
    assert "org.apache.hadoop:hadoop-common:3.3.6" in text
    assert "org.apache.hadoop:hadoop-mapreduce-client-jobclient:jar:tests:3.3.6" in text
    assert "junit:junit:4.13.2" in text
    assert "Downloading from central: hadoop-common-3.3.6.jar" in text  # the output's last lines
    log = artifacts.mvn_log(artifacts.dist_for(VERSION, EXAMPLES, tmp_path / "cache"))
    assert str(log) in text and "Downloading from central" in log.read_text()
    assert gone(int((tmp_path / "sleeper.pid").read_text())), "Maven's children must be stopped too"
    assert not artifacts.dist_for(VERSION, EXAMPLES, tmp_path / "cache").marker.exists()


def test_the_time_limit_is_set_by_the_environment(tmp_path, bin_dir, monkeypatch):
    fake_mvn(bin_dir, STALLED)
    monkeypatch.setenv("SLEEPER", str(tmp_path / "sleeper.pid"))
    monkeypatch.setenv("VBENCH_MVN_TIMEOUT_S", "0.5")
    with pytest.raises(VbenchError, match="did not finish in 0.5 s"):
        artifacts.fetch(VERSION, EXAMPLES, cache=tmp_path / "cache", log=lambda _: None)
    assert gone(int((tmp_path / "sleeper.pid").read_text()))


@pytest.mark.parametrize("text", ["soon", "0", "-5"])
def test_a_bad_time_limit_in_the_environment_is_named(bin_dir, monkeypatch, text):
    monkeypatch.setenv("VBENCH_MVN_TIMEOUT_S", text)
    with pytest.raises(VbenchError, match=f"VBENCH_MVN_TIMEOUT_S: expected a positive number of seconds, got '{text}'"):
        artifacts.mvn_timeout_s()


def test_the_default_time_limit_is_generous(bin_dir):
    assert artifacts.mvn_timeout_s() == 20 * 60


def test_a_failing_mvn_shows_its_last_lines_and_its_log(tmp_path, bin_dir):
    fake_mvn(bin_dir, 'echo "[ERROR] Could not resolve org.apache.hadoop:hadoop-common:jar:3.3.6" >&2\nexit 1')
    with pytest.raises(VbenchError) as err:
        artifacts.fetch(VERSION, EXAMPLES, cache=tmp_path / "cache", log=lambda _: None, timeout_s=30)
    text = str(err.value)
    assert text.startswith(f"Maven could not fetch Hadoop {VERSION} (exit 1)")
    assert "[ERROR] Could not resolve" in text and "mvn.log" in text


def test_a_finished_mvn_gives_a_complete_dist(tmp_path, bin_dir):
    # Maven's copy-dependencies writes the jars to -DoutputDirectory=...
    fake_mvn(
        bin_dir,
        'for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${a#*=}";; esac; done\n'
        'mkdir -p "$out" && touch "$out/hadoop-common-3.3.6.jar"',
    )
    dist = artifacts.fetch(VERSION, EXAMPLES, cache=tmp_path / "cache", log=lambda _: None, timeout_s=30)
    assert dist.marker.exists() and dist.jars() == ["hadoop-common-3.3.6.jar"]

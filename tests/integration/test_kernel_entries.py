"""A campaign that counts the machine's system calls, for real: every micro-benchmark sample of the
local testbed carries its run's calls, faults and context switches, the calls at least those the
benchmark itself made, and tracefs is left as the campaign found it."""

from __future__ import annotations

import pytest

from tests.integration.conftest import leftovers
from tests.integration.test_factor_campaign import native_campaign
from vbench.campaign.runner import run_campaign
from vbench.params import HadoopParams
from vbench.samples import (
    MACHINE_FAULTS_FIELD,
    MACHINE_SWITCHES_FIELD,
    MACHINE_SYSCALLS_FIELD,
    Sample,
    read_records,
)

pytestmark = pytest.mark.integration


def _tracefs_mounted() -> bool:
    return any(line.split()[2] == "tracefs" for line in open("/proc/mounts"))


def test_a_counting_campaign_stamps_each_runs_calls_faults_and_switches(it_platform_testbed, tmp_path):
    # dd's calls must outnumber the rest of the machine's over the run (sshd, the runner, a unit test
    # run beside): at 20,000 bytes they were 80,000 against a background of up to ~87,000, and the
    # ceiling below failed on a busy machine. 200,000 bytes add ~0.2 s.
    count, repeats = 200_000, 2
    tb, exp = native_campaign(
        it_platform_testbed,
        "entries",
        workers=1,
        count_syscalls=True,
        calibrate=[{"benchmark": "syscall", "config": {"count": count, "repeats": repeats}, "hosts": 1}],
    )
    mounted = _tracefs_mounted()
    result = run_campaign(exp, tb, HadoopParams(), tmp_path / "entries", kinds=frozenset({"micro"}))
    assert result.failures == 0
    samples = [r for r in read_records(tmp_path / "entries" / "samples.jsonl") if isinstance(r, Sample)]
    assert samples
    for s in samples:
        # dd's own calls (a read and a write per byte) are a floor; its start, sshd and the rest of
        # the machine add some, not another run's worth.
        assert 2 * count * repeats <= s.metadata[MACHINE_SYSCALLS_FIELD] < 4 * count * repeats
        assert s.metadata[MACHINE_FAULTS_FIELD] > 0 and s.metadata[MACHINE_SWITCHES_FIELD] > 0
    assert _tracefs_mounted() == mounted
    assert leftovers(tb) == []

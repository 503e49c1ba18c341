"""The machine's kernel a campaign ran on (vbench.stats.machine_kernel, vbench.provenance's stamp),
and the note where campaigns read together ran on different ones (issue #53)."""

from __future__ import annotations

import platform
from pathlib import Path

import pandas as pd
import pytest

from vbench.provenance import machine_kernel_stamp
from vbench.stats.machine_kernel import kernels_differ, kernels_of

ROOT = Path(__file__).resolve().parents[2]


def _samples(**columns) -> pd.DataFrame:
    return pd.DataFrame(columns)


def test_a_local_campaign_stamps_the_controllers_kernel_and_hosts_from_elsewhere_nothing():
    assert machine_kernel_stamp(True) == {"machine_kernel": platform.release()}
    assert machine_kernel_stamp(False) == {}


def test_the_kernels_are_the_stamp_and_the_hadoop_kernel_of_hosts_that_share_the_machines():
    assert kernels_of(_samples(machine_kernel=["k2", "k2", None])) == {"k2"}
    # Before the stamp: a Hadoop sample's master kernel, where every host shared the machine's.
    old = _samples(
        kernel=["k1", "4.4.0", "4.4.0", "guest", None],
        platforms=["native", "gvisor", "gvisor,native", "qemu", "lxc"],
    )
    assert kernels_of(old) == {"k1"}
    assert kernels_of(_samples(kernel=["k1", "k1"], platforms=["lxc,oci", "oci"])) == {"k1"}
    assert kernels_of(_samples(value=[1.0])) == frozenset()  # a calibration from before it: none


def test_campaigns_on_different_kernels_are_noted_with_those_that_recorded_none():
    a, b = _samples(machine_kernel=["k1"]), _samples(kernel=["k2"], platforms=["native"])
    none = _samples(value=[1.0])
    (note,) = kernels_differ([("a", a), ("b", b), ("c", none), ("d", a)])
    assert "ran on different kernels of the machine: k1 (a, d); k2 (b); not recorded: c." in note
    assert kernels_differ([("a", a), ("d", a), ("c", none)]) == []
    assert kernels_differ([("a", a), ("c", none)]) == []


def test_the_committed_amd_campaigns_read_as_docs_say():
    """docs/results.md: the speculation-off AMD campaigns of 2026-12-04 ran on v1147, the suite
    campaigns of 2026-12-06 on v1272; the six-block calibration recorded none."""
    raw = ROOT / "data" / "raw"
    if not (raw / "costs-suite-confirm-amd" / "samples.jsonl").is_file():
        pytest.skip("the committed campaigns are not checked out")
    from vbench.stats.campaign import load_campaign

    kernels = {
        n: kernels_of(load_campaign(raw / n).samples)
        for n in ("costs-nospec-sameday-amd", "costs-suite-confirm-amd", "costs-calib-sixblocks-amd")
    }
    assert kernels == {
        "costs-nospec-sameday-amd": {"6.18.44-fc-v1147"},
        "costs-suite-confirm-amd": {"6.18.44-fc-v1272"},
        "costs-calib-sixblocks-amd": frozenset(),
    }


def test_the_kernel_campaign_carries_the_stamp_on_every_sample():
    """docs/results.md: costs-suite-kernel-amd, the first campaign with the stamp, ran on v1272 alone."""
    raw = ROOT / "data" / "raw" / "costs-suite-kernel-amd"
    if not (raw / "samples.jsonl").is_file():
        pytest.skip("the committed campaigns are not checked out")
    from vbench.stats.campaign import load_campaign

    samples = load_campaign(raw).samples
    assert set(samples["machine_kernel"]) == {"6.18.44-fc-v1272"}
    assert kernels_of(samples) == {"6.18.44-fc-v1272"}

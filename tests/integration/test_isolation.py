"""The isolation experiment for real (LXC, small): TeraSort in tenant A beside each stress in
tenant B; the fork bomb is contained by pids.max (read back before it starts), the machine keeps
answering, and nothing of either tenant is left. ~4 min on an idle 2-core machine.

    python3 -m pytest tests/integration/test_isolation.py
"""

from __future__ import annotations

import shutil

import pytest

from tests.integration.conftest import leftovers, it_hadoop
from vbench.errors import VbenchError
from vbench.isolation import params as P
from vbench.isolation.experiment import run_isolation
from vbench.isolation.pids import PidsCgroup, require_pids_limit
from vbench.samples import Failure, Sample, read_records
from vbench.testbed import Testbed
from vbench.testbed.image import image_for
from vbench.testbed.platforms import provisioner_for

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _lxc_ready():
    if shutil.which("lxc-start") is None or shutil.which("stress-ng") is None:
        pytest.skip("needs lxc and stress-ng; run the README's test command")
    if not image_for().exists():
        pytest.skip("the guest image is not built; run `vbench image build`")


def _small_iso(**extra) -> P.IsolationParams:
    return P.isolation_params(
        {
            "workers": 1,
            "size_mb": 16,
            "maps": 1,
            "repetitions": 1,
            "warmup_s": 3,
            "stress_timeout_s": 300,
            "responsive_within_s": 15,
            **extra,
        }
    )


@pytest.mark.slow  # five TeraSorts beside five stresses: 20+ minutes here (docs/testing.md)
def test_each_stress_beside_terasort_with_the_fork_bomb_contained_then_nothing_left(it_platform_testbed, tmp_path):
    iso = _small_iso()
    base = it_platform_testbed("lxc")
    tb_a, tb_b = P.tenant_a_testbed(base, iso), P.tenant_b_testbed(base, iso)
    camp = tmp_path / "data" / "isolation"
    try:
        result = run_isolation(iso, base, it_hadoop({"block_size": "16MB"}), camp, log=print)
    finally:
        assert leftovers(tb_a) == [] and leftovers(tb_b) == []
    records = list(read_records(camp / "samples.jsonl"))
    assert not [r for r in records if isinstance(r, Failure)], [r.reason for r in records if isinstance(r, Failure)]
    assert result.failures == 0 and len(result.ran) == 5
    times = {r.metadata["stress"]: r.value for r in records if isinstance(r, Sample) and r.metric == "terasort_time"}
    assert set(times) == {"none", "cpu", "memory", "io", "forkbomb"}
    watch = {(r.metadata["stress"], r.metric): r.value for r in records if r.benchmark == "isolation_watch"}
    for stress in ("cpu", "memory", "io", "forkbomb"):
        assert watch[(stress, "stress_tasks")] > 0, f"{stress} did not run in tenant B"
    assert watch[("forkbomb", "pids_max")] == 256
    # The bomb ran into the limit (forks refused) and the count never passed it.
    assert watch[("forkbomb", "refused_forks")] > 0 and 0 < watch[("forkbomb", "pids_peak")] <= 256
    assert watch[("forkbomb", "pids_samples")] > 10
    # The machine kept answering: every SSH session to tenant A completed, each within 15 s.
    assert watch[("forkbomb", "responsive")] == 1.0, watch[("forkbomb", "probe_max_time")]
    # The runner's samples (#17): the registry's TeraSort, stamped like every campaign's.
    for r in records:
        m = r.metadata
        assert m["cell_id"] == f"b0/lxc/terasort[stress={m['stress']}]" and m["factor.stress"] == m["stress"]
        assert m["run_id"] and m["vbench_commit"] not in ("", "unknown") and m["design_hash"] and m["block"] == 0


def test_fork_bomb_refused_when_the_neighbour_has_no_pids_limit(it_platform_testbed):
    iso = _small_iso(stresses=["none", "cpu"], tenant_b={"limits": {"cpuset": "1", "memory_mb": 512}})
    tb_b = P.tenant_b_testbed(it_platform_testbed("lxc"), iso)
    spec = tb_b.resolved_hosts()[0]
    with Testbed(tb_b, log=print) as b:
        cg = PidsCgroup.of_pid(provisioner_for("lxc").init_pid(spec, b.ctx))
        assert cg.limit() is None and cg.current() >= 1
        with pytest.raises(VbenchError, match="no limit in force"):
            require_pids_limit(cg, 256)
    assert leftovers(tb_b) == []

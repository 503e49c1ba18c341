"""Issue #52, after the remote command is stopped (tests/unit/test_remote_interrupt.py): an
interrupted Hadoop job has its YARN application(s) killed and the interrupt goes on; the cell is
recorded as interrupted, not done, and runs again on resume; teardown runs."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from vbench.benchmarks.hadoop import pi
from vbench.benchmarks.hadoop.execute import execute
from vbench.campaign.design import expand, sessions
from vbench.campaign.runner import done_cells
from vbench.hadoop import yarn_apps
from vbench.lifecycle import Terminated
from vbench.store import CampaignStore

from tests.unit.test_campaign_runner import closed_cells, design, records, run


class InterruptedJobCluster:
    """A cluster whose job client is interrupted (as KillableRemote raises it) and that has one
    active YARN application; every command it is asked to run is recorded."""

    def __init__(self, interrupt: KeyboardInterrupt, apps: tuple[str, ...] = ("application_1_0001",)):
        self.master = SimpleNamespace(name="master")
        self.interrupt, self.apps = interrupt, apps
        self.calls: list[tuple] = []

    def java(self, main_class, args, timeout=None, extra_cp=""):
        self.calls.append(("java", main_class, tuple(args)))
        if main_class == yarn_apps.APPLICATION_CLI:
            return SimpleNamespace(ok=True, stdout="", stderr="", seconds=0.1, exit_code=0)
        raise self.interrupt

    def sh(self, host, line, timeout=None):
        self.calls.append(("sh", line))
        body = {"apps": {"app": [{"id": a} for a in self.apps]}} if self.apps else {"apps": None}
        return SimpleNamespace(ok=True, stdout=json.dumps(body), stderr="", exit_code=0)

    def fs(self, *args):
        self.calls.append(("fs", *args))
        return SimpleNamespace(ok=True, stdout="", stderr="", exit_code=0)


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt(), Terminated("received signal SIGTERM")])
def test_an_interrupted_job_has_its_yarn_applications_killed_and_the_interrupt_goes_on(interrupt):
    cluster = InterruptedJobCluster(interrupt)
    said: list[str] = []
    with pytest.raises(KeyboardInterrupt) as raised:
        execute(cluster, pi, pi.Config(), log=said.append, job_details=False)
    assert raised.value is interrupt
    kills = [c for c in cluster.calls if c[:2] == ("java", yarn_apps.APPLICATION_CLI)]
    assert kills == [("java", yarn_apps.APPLICATION_CLI, tuple(yarn_apps.kill_args("application_1_0001")))]
    # No HDFS clean-up JVM after an interrupt: the cluster's teardown wipes HDFS.
    assert not [c for c in cluster.calls if c[0] == "fs"]
    assert any("interrupted" in line for line in said)


def test_a_failure_to_kill_the_applications_does_not_turn_the_interrupt_into_an_error():
    cluster = InterruptedJobCluster(KeyboardInterrupt())

    def broken(host, line, timeout=None):
        raise OSError("connection lost")

    cluster.sh = broken
    with pytest.raises(KeyboardInterrupt):
        execute(cluster, pi, pi.Config(), log=lambda _l: None, job_details=False)


@pytest.mark.parametrize(
    "interrupt, why",
    [
        (KeyboardInterrupt(), "received signal SIGINT"),
        (Terminated("received signal SIGTERM"), "received signal SIGTERM"),
    ],
)
def test_an_interrupted_cell_is_recorded_as_interrupted_not_done_and_runs_again_on_resume(
    tmp_path, fake_machine, interrupt, why
):
    e = design()
    plan = [c for s in sessions(e, expand(e)) for c in s.runs]
    n = next(i for i, c in enumerate(plan, 1) if c.variant.kind == "hadoop" and not c.warms_up)
    fake_machine.raise_on_run[n] = interrupt
    with pytest.raises(KeyboardInterrupt):
        run(e, tmp_path / "c", fake_machine)
    cut = plan[n - 1]
    assert not fake_machine.testbeds and not fake_machine.clusters  # torn down
    mine = [r for r in records(tmp_path / "c") if r["metadata"].get("cell_id") == cut.cell_id]
    assert [(r["kind"], r["reason"], r["metadata"]["interrupted"]) for r in mine] == [
        ("failure", f"interrupted ({why})", True)
    ]
    assert mine[0]["metadata"]["block"] == cut.block and mine[0]["metadata"]["benchmark_kind"] == "hadoop"
    assert cut.cell_id not in done_cells(CampaignStore(tmp_path / "c"))
    assert closed_cells(tmp_path / "c") == [c.cell_id for c in plan[: n - 1]]

    fake_machine.raise_on_run.clear()
    again = run(e, tmp_path / "c", fake_machine)
    assert cut.cell_id in again.ran
    cells = [c for c in closed_cells(tmp_path / "c") if not c.endswith("/warmup")]
    assert sorted(cells) == sorted(c.cell_id for c in expand(e))  # each cell done exactly once

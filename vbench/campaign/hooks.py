"""The runner's one hook: what a design adds to each of its Hadoop runs, given in code by the
command that runs the design (`vbench isolation run`: a stressed neighbour beside TeraSort;
`vbench cluster smoke`: where the sorted output's blocks went). The runner stays the one loop:
a hook sets up and tears down around a run, and reads the run's output before it is removed;
it never runs a benchmark and never stores anything itself.

A design whose cells a hook tells apart declares it (`Experiment.condition`: the condition's
name and levels, each level a cell of its own); the runner refuses to start such a design
without a hook for that condition, and a hook for a condition the design does not declare.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from vbench.campaign.design import Cell, Experiment
from vbench.errors import ParamsError
from vbench.hadoop.cluster import HadoopCluster
from vbench.samples import Sample

Log = Callable[[str], None]


@dataclass
class Beside:
    """What a hook saw beside one run, filled in as it tears down: samples stored with the run
    (also when the run failed), metadata stamped on all the run's records, raw text kept under
    the run's raw directory."""

    samples: list[Sample] = field(default_factory=list)
    stamp: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)


class RunHook:
    """Does nothing; a design's hook overrides what it needs."""

    #: The `Experiment.condition` this hook applies (its name), or None.
    condition: str | None = None

    @contextmanager
    def around(self, cell: Cell, cluster: HadoopCluster, log: Log) -> Iterator[Beside]:
        """Set up before the cell's run, yield, tear down after it (also when it failed). A
        VbenchError before the yield fails the run (the runner records why), not the campaign."""
        yield Beside()

    def inspect(self, cell: Cell, cluster: HadoopCluster, run_dir: str) -> list[Sample]:
        """After the benchmark's steps passed, before its HDFS directory `run_dir` is removed:
        samples of what it left there."""
        return []


def check_hook(exp: Experiment, hook: RunHook | None) -> None:
    """Refuse, before anything starts, a design and a hook that do not belong together."""
    wanted = exp.condition.name if exp.condition is not None else None
    given = hook.condition if hook is not None else None
    if wanted != given:
        if given is None:
            raise ParamsError(
                "experiment.condition",
                f"{wanted!r} is applied by a hook that only the command "
                "made for it gives the runner (e.g. `vbench isolation run`); it cannot run here",
            )
        raise ParamsError(
            "experiment.condition", f"the hook applies {given!r}, the design declares {wanted or 'no condition'}"
        )


def condition_level(cell: Cell, condition: str) -> str:
    """The level of `condition` this cell runs at."""
    return str(dict(cell.variant.levels)[condition])

"""What a Hadoop benchmark is made of: steps that are pure data, and their outputs.

A benchmark module builds its steps with a pure `steps(cfg, run_dir)` and turns the outputs into
samples with a pure `parse(outputs, cfg)`; `vbench.benchmarks.hadoop.execute` runs steps on a
cluster. So every module is testable against captured outputs without a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

# What a step printed: the contract's type (every benchmark's parse reads it), named here too.
from vbench.benchmarks.base import Outputs, StepOutput

__all__ = ["JavaStep", "ListStep", "Outputs", "ReadStep", "START_TIME", "Step", "StepOutput", "UploadStep", "WaitStep"]

#: In JavaStep args, replaced at run time by an epoch-seconds start time `barrier_s` ahead
#: (NNBench's -startTime barrier must be in the future when the maps start).
START_TIME = "@START_TIME@"


@dataclass(frozen=True)
class JavaStep:
    """A Hadoop client class run on the master host; a non-zero exit fails the run."""

    name: str
    main_class: str
    args: tuple[str, ...]
    timeout_s: float = 3600
    barrier_s: int = 0
    #: Collect JobHistory detail for the jobs this step submitted.
    job_details: bool = True
    #: An HDFS directory the step writes once per cluster for the runs after it to reuse (a
    #: TeraSort input generated once): the step is skipped while `<reuses>/_SUCCESS` exists, and
    #: a partial directory left by a failed attempt is removed before it runs.
    reuses: str | None = None


@dataclass(frozen=True)
class ReadStep:
    """Read HDFS files (a glob) into the output, e.g. a validation report."""

    name: str
    hdfs_glob: str


@dataclass(frozen=True)
class ListStep:
    """List an HDFS directory: the output is the NameNode's WebHDFS LISTSTATUS answer (JSON),
    e.g. for the sizes of a job's output files."""

    name: str
    hdfs_dir: str


@dataclass(frozen=True)
class UploadStep:
    """Put a controller-side file into HDFS at `hdfs_path`; `make() -> (local path, info)`
    creates it (or finds it cached) when the step runs, not when the steps are built."""

    name: str
    hdfs_path: str
    make: Callable[[], tuple[str, dict]] = field(compare=False)


@dataclass(frozen=True)
class WaitStep:
    """Leave the cluster up and doing nothing for `seconds`: what its daemons cost (heartbeats,
    reports, timers) while no job runs, read by the machine's marks around the step."""

    name: str
    seconds: float


Step = JavaStep | ReadStep | ListStep | UploadStep | WaitStep

"""clientjvm: what a Hadoop JVM and a waiting cluster cost, on the cluster the jobs run on (issue #53).

On the 2-core local testbed a 16-MB job's time is the machine CPU it needs (docs/results.md,
costs-accounting-gvisor), and most of that CPU is not the job's data: every job starts a client,
an ApplicationMaster and a JVM per task, each of which loads Hadoop's classes and compiles its hot
code, while the cluster's daemons keep heartbeating. This prices those two parts per platform so
a job's machine CPU can be split into them and the rest:

- `idle`: the cluster left up with no job for `idle_s` seconds (a WaitStep); its step's machine
  CPU over its wall time is the cluster's background rate.
- `jvm1` ... `jvm<count>`: `hadoop fs -ls /` run on the master as a user runs it (FsShell: a JVM
  started, Hadoop's configuration and file-system classes loaded, one NameNode call), each its own
  step, so each carries the machine's CPU over it (vbench.benchmarks.hadoop.execute).

Every sample names its step; on the local testbed each carries `machine_cpu_s` and
`machine_wall_s` (and `sentry_cpu_s` on gVisor hosts). A client JVM is not a task JVM (a task also
starts YarnChild, its umbilical and the job's code): the price is a floor for one.
"""

from __future__ import annotations

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.benchmarks.hadoop.steps import JavaStep, Outputs, Step, WaitStep
from vbench.errors import JobFailed
from vbench.samples import Sample

NAME = "clientjvm"
METRICS = {"client_jvm_time": "s", "idle_time": "s"}
FS_SHELL = "org.apache.hadoop.fs.FsShell"
#: A client JVM's `-ls /` on a cluster that answers takes seconds; more is a hung NameNode.
JVM_TIMEOUT_S = 300
IDLE_STEP = "idle"
#: Each client JVM's step is this and its number (jvm1, jvm2, ...).
JVM_STEP_PREFIX = "jvm"


class Config(BenchConfig):
    count: int = Field(5, ge=1, le=100)  # client JVMs, one after another
    idle_s: float = Field(20.0, ge=1.0, le=3600.0)  # seconds the cluster waits with no job


PRESETS: dict[str, Config] = {}


def jvm_steps(count: int) -> list[str]:
    """The client JVMs' step names, in the order they run. Pure."""
    return [f"{JVM_STEP_PREFIX}{i}" for i in range(1, count + 1)]


def steps(cfg: Config, run_dir: str) -> list[Step]:
    # The wait first: the cluster has settled from its start-up by the time the JVMs run.
    return [
        WaitStep(IDLE_STEP, cfg.idle_s),
        *(JavaStep(name, FS_SHELL, ("-ls", "/"), JVM_TIMEOUT_S, job_details=False) for name in jvm_steps(cfg.count)),
    ]


def parse(outputs: Outputs, cfg: Config) -> list[Sample]:
    missing = [name for name in (IDLE_STEP, *jvm_steps(cfg.count)) if name not in outputs]
    if missing:
        raise JobFailed(f"clientjvm: no output of step(s) {', '.join(missing)}")
    out = [Sample(NAME, "idle_time", round(outputs[IDLE_STEP].seconds, 3), "s", {"step": IDLE_STEP})]
    out += [
        Sample(NAME, "client_jvm_time", round(outputs[name].seconds, 3), "s", {"step": name})
        for name in jvm_steps(cfg.count)
    ]
    return out

"""Run a Hadoop benchmark's steps on a cluster: the only part of a benchmark that touches hosts.

A run never raises for a benchmark failure: it returns a `BenchRun` carrying either samples or a
`Failure`, plus every step's raw output for audit. Its HDFS directory is unique and removed after.
"""

from __future__ import annotations

import json
import shlex
import time
import uuid
from dataclasses import dataclass, field
from functools import partial
from types import ModuleType
from typing import Any, Callable

from vbench.benchmarks.hadoop.steps import START_TIME, JavaStep, ListStep, ReadStep, StepOutput, UploadStep, WaitStep
from vbench.benchmarks.micro._common import params as config_params, tail
from vbench.errors import JobFailed, VbenchError
from invoke.exceptions import CommandTimedOut

from vbench.hadoop import history, history_fetch, jobs, webhdfs, yarn_apps
from vbench.hadoop.cluster import HadoopCluster
from vbench.lifecycle import shielded
from vbench.monitor.machine_cpu import Marker, busy_between
from vbench.samples import Failure, Sample

Log = Callable[[str], None]


@dataclass
class BenchRun:
    benchmark: str
    run_id: str
    parameters: dict[str, Any]
    samples: list[Sample] = field(default_factory=list)
    failure: Failure | None = None
    outputs: dict[str, StepOutput] = field(default_factory=dict)
    #: Samples of what ran beside the benchmark (a design's hook, e.g. the isolation
    #: experiment's watch of its neighbour): stored with the run whether it passed or failed.
    beside: list[Sample] = field(default_factory=list)
    #: Whether the run's HDFS directory (inputs and outputs) was removed after it (None: not tried).
    hdfs_output_removed: bool | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def new_run_id(benchmark: str) -> str:
    return f"{benchmark}-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"


def _java_args(step: JavaStep, now: float) -> list[str]:
    start = str(int(now) + step.barrier_s)
    return [start if a == START_TIME else a for a in step.args]


def reusable_output_exists(cluster: HadoopCluster, step: JavaStep) -> bool:
    """Whether `step` is skipped because an earlier run on this cluster wrote what it reuses;
    a partial output (no _SUCCESS) is removed so the step can write it again."""
    if step.reuses is None:
        return False
    if cluster.exists(f"{step.reuses}/_SUCCESS"):
        return True
    cluster.remove(step.reuses)
    return False


def run_step(cluster: HadoopCluster, step, log: Log, timeout_s: float | None = None) -> StepOutput:
    if isinstance(step, JavaStep):
        limit = min(step.timeout_s, timeout_s) if timeout_s else step.timeout_s
        t0 = time.monotonic()
        try:
            r = cluster.java(step.main_class, _java_args(step, time.time()), timeout=limit)
        except CommandTimedOut as exc:
            killed = kill_active_apps(cluster, log)
            out = StepOutput(exc.result.stdout, exc.result.stderr, time.monotonic() - t0)
            raise _StepFailed(
                step.name,
                f"{step.name} exceeded its timeout of {limit:.0f} s; "
                f"YARN application(s) killed: {', '.join(killed) or 'none active'}",
                out,
            ) from None
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM: the job client was killed on the master with it (vbench.host.
            # KillableRemote), but the job runs on in YARN until killed too.
            log(f"{step.name} interrupted: killing its YARN application(s)")
            with shielded():
                try:
                    kill_active_apps(cluster, log)
                except Exception as exc:  # the interrupt goes on whatever happens here
                    log(f"could not kill the YARN application(s) of {step.name}: {exc}")
            raise
        out = StepOutput(r.stdout, r.stderr, r.seconds)
        if not r.ok:
            raise _StepFailed(step.name, f"{step.name} exited {r.exit_code}", out)
        return out
    if isinstance(step, ReadStep):
        r = cluster.fs("-cat", step.hdfs_glob)
        out = StepOutput(r.stdout, r.stderr, r.seconds)
        if not r.ok:
            raise _StepFailed(step.name, f"reading {step.hdfs_glob} failed", out)
        return out
    if isinstance(step, ListStep):
        t0 = time.monotonic()
        try:
            entries = cluster.listing(step.hdfs_dir)
        except VbenchError as exc:
            raise _StepFailed(step.name, str(exc), StepOutput("", str(exc), time.monotonic() - t0)) from None
        return StepOutput(webhdfs.listing_text(entries), "", time.monotonic() - t0)
    if isinstance(step, WaitStep):
        t0 = time.monotonic()
        time.sleep(step.seconds)  # an interrupt ends it at once: its signal handler raises
        return StepOutput("", "", time.monotonic() - t0)
    if isinstance(step, UploadStep):
        t0 = time.monotonic()
        local, info = step.make()
        staging = f"{cluster.layout(cluster.master).work_dir}/upload-{uuid.uuid4().hex[:8]}"
        cluster.conn(cluster.master).put(local, staging)
        try:
            parent = step.hdfs_path.rsplit("/", 1)[0]
            cluster.fs("-mkdir", "-p", parent)
            r = cluster.fs("-put", staging, step.hdfs_path)
        finally:
            cluster.sh(cluster.master, f"rm -f {shlex.quote(staging)}")
        out = StepOutput(r.stdout, r.stderr, time.monotonic() - t0, info)
        if not r.ok:
            raise _StepFailed(step.name, f"uploading to {step.hdfs_path} failed", out)
        return out
    raise TypeError(f"unknown step {step!r}")


def kill_active_apps(cluster: HadoopCluster, log: Log) -> list[str]:
    """Kill every active YARN application (a campaign runs one job at a time, so they are the
    timed-out step's). Returns their ids."""
    r = cluster.sh(cluster.master, f"curl -sf --max-time 10 '{yarn_apps.active_apps_url(cluster.master.name)}'")
    try:
        apps = yarn_apps.parse_active_apps(r.stdout) if r.ok else []
    except (ValueError, KeyError):
        apps = []
    for app in apps:
        log(f"killing YARN application {app}")
        cluster.java(yarn_apps.APPLICATION_CLI, yarn_apps.kill_args(app), timeout=120)
    return apps


class _StepFailed(Exception):
    def __init__(self, step: str, reason: str, output: StepOutput):
        super().__init__(reason)
        self.step, self.reason, self.output = step, reason, output


def job_detail_samples(cluster: HadoopCluster, benchmark: str, step: str, client_log: str) -> list[Sample]:
    """Counters, phases and attempt timings of every job the step submitted, from JobHistory."""
    out: list[Sample] = []
    for job_id in jobs.job_ids(client_log):
        job, resources = _retry(partial(fetch_job_history, cluster, job_id))
        detail = history_fetch.parse_detail(resources, job_id)
        out += history.job_samples(benchmark, step, job, detail.counters, detail.attempts, {})
    return out


def fetch_job_history(cluster: HadoopCluster, job_id: str) -> tuple[history.JobInfo, dict[str, history_fetch.Resource]]:
    """The job's record and everything else JobHistory has on it, in one SSH round trip."""
    r = cluster.sh(cluster.master, history_fetch.fetch_command(cluster.master.name, job_id))
    resources = history_fetch.split_stream(r.stdout, job_id)
    if not resources and not r.ok:
        # Nothing came back at all: the shell on the master failed, not the history server.
        raise JobFailed(
            f"JobHistory has no record for {job_id} (fetching it on {cluster.master.name} "
            f"exited {r.exit_code}: {tail(r.stderr, 3)})"
        )
    return history_fetch.parse_job(resources, job_id), resources


def _retry(fn, tries: int = 10, pause_s: float = 1.0):
    # The history server picks a finished job's .jhist file up a moment after the client returns.
    for i in range(tries):
        try:
            return fn()
        except (JobFailed, json.JSONDecodeError, KeyError):
            if i == tries - 1:
                raise
            time.sleep(pause_s)


#: Reads what a run left in its HDFS directory: (cluster, that directory) -> samples.
Inspect = Callable[[HadoopCluster, str], list[Sample]]


def execute(
    cluster: HadoopCluster,
    module: ModuleType,
    cfg: Any,
    *,
    job_details: bool = True,
    log: Log = print,
    run_id: str | None = None,
    timeout_s: float | None = None,
    inspect: Inspect | None = None,
    before_first_step: Callable[[], None] | None = None,
    machine: Marker | None = None,
) -> BenchRun:
    """Run the benchmark's steps; `timeout_s` bounds each Hadoop job step (the job is killed and
    the run recorded as failed when it is exceeded). `inspect`, when the steps passed, reads
    the run's HDFS directory before it is removed; its samples join the run's. An interrupt
    (KeyboardInterrupt, vbench.lifecycle.Terminated) kills a running job and is raised again.
    `before_first_step` is called once, right before the first step that runs (a duet's
    barrier: the sides' jobs start together, after whatever each checks before them).

    With `machine` (the reader of the machine the hosts share: the local testbed's), every
    JobHistory sample of a step carries the machine's busy CPU-seconds and wall seconds over that
    step (vbench.monitor.machine_cpu), and so does every sample the module's parser names a step
    in (`step` in its metadata). A sandbox's own account of its tasks' CPU is not the
    machine's: gVisor's tasks count their waits for a core, yet see a fraction of what the
    machine spends for the job (docs/results.md, costs-accounting-gvisor)."""
    run_id = run_id or new_run_id(module.NAME)
    run_dir = f"/vbench/{run_id}"
    run = BenchRun(module.NAME, run_id, config_params(cfg))
    step = None
    interrupted = False
    spans: dict[str, dict[str, float]] = {}  # step -> the machine's CPU over it
    try:
        for step in module.steps(cfg, run_dir):
            if isinstance(step, JavaStep) and reusable_output_exists(cluster, step):
                log(f"{module.NAME}: {step.name} skipped: {step.reuses} was written by an earlier run")
                continue
            if before_first_step is not None:
                before_first_step, wait = None, before_first_step
                wait()
            log(f"{module.NAME}: {step.name} ...")
            before = machine() if machine is not None else None
            run.outputs[step.name] = run_step(cluster, step, log, timeout_s)
            if before is not None:
                spans[step.name] = busy_between(before, machine())
        # A parser's sample that names its step (a step with no job: clientjvm's) carries its span too.
        samples = [s.with_metadata(**spans.get(s.metadata.get("step"), {})) for s in module.parse(run.outputs, cfg)]
        if job_details:
            t0, details = time.monotonic(), []
            for s in module.steps(cfg, run_dir):
                if isinstance(s, JavaStep) and s.job_details and s.name in run.outputs:
                    found = job_detail_samples(cluster, module.NAME, s.name, run.outputs[s.name].stderr)
                    details += [d.with_metadata(**spans.get(s.name, {})) for d in found]
            # The line to time this step by (issue #24: it cost N+3 SSH round trips per job).
            log(
                f"{module.NAME}: JobHistory of {len({d.metadata['job_id'] for d in details})} job(s) read in "
                f"{time.monotonic() - t0:.2f} s"
            )
            samples += details
        if inspect is not None:
            samples += inspect(cluster, run_dir)
        run.samples = [s.with_metadata(**run.parameters, run_id=run_id) for s in samples]
    except _StepFailed as exc:
        run.outputs[exc.step] = exc.output
        run.failure = Failure(
            module.NAME,
            exc.reason,
            run.parameters,
            tail(exc.output.stderr or exc.output.stdout),
            {"run_id": run_id, "step": exc.step},
        )
    except JobFailed as exc:
        last = run.outputs.get(step.name) if step is not None else None
        run.failure = Failure(
            module.NAME,
            str(exc),
            run.parameters,
            tail(last.stderr) if last else "",
            {"run_id": run_id, "step": getattr(step, "name", "")},
        )
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        # Not after an interrupt: the cluster's teardown, next, wipes HDFS (one command less to wait for).
        if not interrupted:
            run.hdfs_output_removed = cluster.remove(run_dir)
    return run

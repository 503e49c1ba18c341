"""The fault-injection soak (issue #52 items 1-3): nothing lost, nothing left, whatever breaks.

Runs a short campaign (params/experiments/soak.yaml: native, one worker, two blocks of a CPU
cell and a tiny Pi job) again and again, each time as `python -m vbench.cli campaign run` in a
directory of its own, with ONE fault injected at a moment drawn from the campaign's whole life
(bring-up, a job's tasks, a ledger append, teardown; selfbench/soak_plan.py), then resumes it
with the same command to its end and checks the invariants (selfbench/soak_invariants.py):

  ledger whole, cells once (none lost, none repeated), committed kept, interrupt recorded,
  failures explained, stopped in time (a Ctrl-C or SIGTERM: signal to exit), cell recorded (a
  fault the runner survives: the cell it hit done or failed), resumed, nothing left, canaries
  kept (a bridge <testbed>cy, a `sleep` and two files of the soak's own, planted before the
  campaign and never recorded by vbench, are as planted after the resume and any cleanup; the
  soak then removes them, and what it could not remove fails "fault as planned"), fault as
  planned (the injector did and undid all it meant to)

Faults (selfbench/soak_plan.py FAULTS, injected by selfbench/soak_machine.py): SIGKILL, SIGTERM,
SIGINT and a double SIGINT of the runner; SIGKILL of a Hadoop daemon (found through the pid files
the hosts hold, never by name; its kind in turn over the schedule: NameNode, DataNode,
ResourceManager, NodeManager, JobHistoryServer, any present when the aimed one is not); every
process of a random native host killed (its namespace, from the testbed's state file); a random
host's recorded bridge-side veth down for 20-60 s, then up; a reboot simulated (the runner's group
and every process the testbeds recorded killed, their recorded namespaces, links and cgroups
deleted, then the resume); the trial's work root filled to ENOSPC (a tmpfs the soak mounted there
itself before the campaign, its fill removed before the resume, unmounted after the checks); a
MapReduce task JVM (YarnChild) descended from a recorded NodeManager OOM-killed by a 16 MiB limit
(a cgroup v1 memory cgroup of the soak's own, its limit set before the task is moved in; a task
that survives is moved back, the cgroup removed). Only pids vbench recorded (or their task JVMs),
or the runner the soak started, are ever signalled or moved; only names the testbeds' states list,
each carrying its testbed's name, are taken down or deleted.

Each trial is drawn from (seed, index) alone: `--replay I` reruns trial I of `--seed S` as it was.
`--kinds a,b` restricts the schedule to those kinds (the same seeded shuffle over the subset; a
replay of such a soak names them too). Each trial has its own testbed name (sk<index>), bridge,
subnet and work root under --out, so a trial that leaves something does not stop the next; what it
left is named in the report, then removed with `vbench testbed down` (vbench's own cleanup, by its
state file).

Report: <out>/soak-report.md and soak-report.json (per trial: fault, moment, what was hit, time
to stop, each invariant passed or failed with its reason, the command that replays it; per
fault kind: trials, completed after resume, cells lost, repeated, leftovers, canaries harmed; a
summary line).
Run again with the same --out, it resumes: trials with a trial.json are not run again.

It refuses a loaded machine: a 1-minute load average >= 1.0 before it starts is refused (exit 2)
unless --allow-loaded, which marks the report LOADED (a slow machine stretches stop times).
Root only, as the testbed is.

    .venv/bin/python selfbench/soak.py --plan [--trials N --seed S]   # the trials and their estimated time
    .venv/bin/python selfbench/soak.py [--trials 63] [--seed 52] [--first I] [--out DIR] [--allow-loaded]
    .venv/bin/python selfbench/soak.py --kinds task-oom,daemon-kill --trials 10 --seed 53  # some kinds only
    .venv/bin/python selfbench/soak.py --replay I --seed S [--kinds K] [--out DIR]  # one trial again
    .venv/bin/python selfbench/soak.py --report DIR                     # the report of a soak already run

(the campaigns run with the same interpreter, sys.executable, so it must be the one with vbench.)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from selfbench import soak_invariants as inv  # noqa: E402
from selfbench import soak_ledger  # noqa: E402
from selfbench.precision import LOAD_LIMIT, Costs, estimate, plan_text, read_load1  # noqa: E402
from selfbench.soak_plan import FAULTS, Trial, kinds_named, marker_reached, schedule, trial  # noqa: E402
from vbench.campaign.progress import clock_text  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DESIGN = REPO / "params" / "experiments" / "soak.yaml"
DEFAULT_SEED = 52
#: 63 trials: chosen when there were 9 fault kinds (7 each); with the 10 kinds of now, 6 cycles and
#: 3 more, each kind >= 6 times (the issue asks for >= 60 trials, >= 5 per kind).
DEFAULT_TRIALS = 63
REPORT_MD = "soak-report.md"
REPORT_JSON = "soak-report.json"
TRIAL_FILE = "trial.json"
#: The ledger as the faulted run left it, kept beside the campaign before the resume.
AFTER_FAULT = "samples.after-fault.jsonl"
#: Not measured for this design yet: pi at 2 maps x 1000 samples is its ~12 s of job start-up and
#: ~7 s of client JVM and output removal (precision.DEFAULT_COSTS' sources), cpu its 1 s and SSH.
SOAK_COSTS = Costs({"cpu": 3.0, "pi": 22.0}, {"native": 47.0}, 0.0)
#: A run of the campaign (or its resume) that takes longer is killed and said so: the soak
#: design takes ~3 min; a hang is a finding, not a reason to wait for ever.
RUN_TIMEOUT_S = 20 * 60
#: How often the soak looks at the campaign while it runs, s.
POLL_S = 0.1


@dataclass(frozen=True)
class TrialResult:
    index: int
    seed: int
    fault: str
    moment: str
    injected: bool
    hit: str  # what the injector did
    fault_at_s: float | None  # after the runner's start
    running_at_fault: str | None
    stop_s: float | None  # a runner signal: to its exit
    first_rc: int | None
    resume_rc: int | None
    #: From the fault to the resumed campaign's end, s.
    to_resumed_s: float | None
    lost: int
    repeated: int
    leftovers: tuple[str, ...]
    cleanup: str  # after leftovers: what `vbench testbed down` did
    checks: tuple[inv.Check, ...]
    seconds: float
    #: What the injector (and the soak's own mount) meant to do or undo and could not.
    fault_problems: tuple[str, ...] = ()
    #: The kinds the schedule was restricted to (--kinds); () = all of them.
    kinds: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return all(c.ok for c in self.checks)

    def replay_args(self) -> str:
        return (
            f"--seed {self.seed}"
            + (f" --kinds {','.join(self.kinds)}" if self.kinds else "")
            + f" --replay {self.index}"
        )

    def failed_text(self) -> str:
        return "; ".join(f"{c.name}: {c.reason}" for c in self.checks if not c.ok)

    @classmethod
    def of(cls, doc: dict) -> "TrialResult":
        return cls(
            **{
                **doc,
                "leftovers": tuple(doc["leftovers"]),
                "checks": tuple(inv.Check(**c) for c in doc["checks"]),
                "fault_problems": tuple(doc.get("fault_problems", ())),
                "kinds": tuple(doc.get("kinds", ())),
            }
        )


# --- one trial -------------------------------------------------------------------------------------


def testbed_doc(index: int, work_root: Path) -> dict:
    """The trial's own testbed: name sk<index> (<= 6 characters), its bridge and a /24 of
    10.232-235.x, none of which a user's testbed or the integration tests' (10.213-, 10.214+) use."""
    name = f"sk{index % 10000:04d}"
    subnet = f"10.{232 + (index // 250) % 4}.{index % 250}.0/24"
    return {
        "testbed": {
            "name": name,
            "platform": "native",
            "work_root": str(work_root),
            "network": {"bridge": f"{name}br", "subnet": subnet},
        }
    }


def write_params(tdir: Path, index: int) -> Path:
    params = tdir / "params"
    params.mkdir(parents=True, exist_ok=True)
    (params / "testbed.yaml").write_text(yaml.safe_dump(testbed_doc(index, tdir / "tb")))
    shutil.copyfile(REPO / "params" / "hadoop.yaml", params / "hadoop.yaml")
    return params


def ledger_path(tdir: Path) -> Path:
    """The trial's campaign ledger: <trial>/data/raw/<the design's name>/samples.jsonl."""
    return tdir / "data" / "raw" / "soak" / "samples.jsonl"


def ledgers_of(tdir: Path) -> tuple[bytes, bytes]:
    """A trial directory's ledger as the faulted run left it (kept aside before the resume) and
    as it is now (b"" where there is none)."""

    def read(path: Path) -> bytes:
        return path.read_bytes() if path.exists() else b""

    return read(tdir / AFTER_FAULT), read(ledger_path(tdir))


def campaign_argv(params: Path, data: Path, design: Path = DESIGN) -> list[str]:
    return [
        sys.executable,
        "-m",
        "vbench.cli",
        "campaign",
        "run",
        str(design),
        "--params-dir",
        str(params),
        "--data",
        str(data),
    ]


def sigint_ignored(pid: int) -> bool:
    """Whether process `pid` ignores SIGINT (its /proc status's SigIgn mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return any(
        line.startswith("SigIgn:") and int(line.split()[1], 16) & (1 << (signal.SIGINT - 1))
        for line in status.splitlines()
    )


def hear_ctrl_c_as_a_terminal_gives_it() -> None:
    """SIGINT handled as in a terminal's foreground job, whatever the soak inherited: a shell
    starting it in the background (`... &`) leaves SIGINT ignored, and an ignored signal stays
    ignored across exec, so every runner the soak starts would shrug off its Ctrl-C faults (a
    first run did: a SIGINT trial's runner ran on to its end, 69 s)."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


class Runner:
    """One `vbench campaign run` the soak started, in a session of its own (so that a Ctrl-C
    can be sent to its group as a terminal does, and the soak's own Ctrl-C does not reach it);
    its exit time is taken by a thread, to the millisecond, whatever the soak is doing."""

    def __init__(self, argv: list[str], log: Path):
        self.log = log
        with open(log, "ab") as fh:
            self.proc = subprocess.Popen(
                argv,
                cwd=REPO,
                env={**os.environ, "PYTHONPATH": str(REPO)},
                stdin=subprocess.DEVNULL,
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.started = time.monotonic()
        if sigint_ignored(self.proc.pid):
            # Started from a shell's background (`... &`), the soak inherits SIGINT ignored and
            # so would the runner: a Ctrl-C sent to it would test nothing (main() prevents it).
            self.proc.kill()
            raise RuntimeError(f"the runner (pid {self.proc.pid}) ignores SIGINT: a trial's Ctrl-C would test nothing")
        self.ended: float | None = None
        threading.Thread(target=self._wait, daemon=True).start()

    def _wait(self) -> None:
        self.proc.wait()
        self.ended = time.monotonic()

    def alive(self) -> bool:
        return self.ended is None

    def wait(self, deadline: float, harvest) -> bool:
        """Until it exits (True) or `deadline` (False), harvesting what the testbeds record."""
        while self.alive() and time.monotonic() < deadline:
            harvest()
            time.sleep(POLL_S)
        return not self.alive()

    def stop(self, limit_s: float) -> None:
        """A Ctrl-C to its group, as a user would stop it; SIGKILL after `limit_s` if it is still
        there (what it then leaves is a leftover the report names)."""
        if self.alive():
            try:
                os.killpg(self.proc.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + limit_s
            while self.alive() and time.monotonic() < deadline:
                time.sleep(POLL_S)
        self.kill()

    def kill(self) -> None:
        """SIGKILL its whole group (the soak's own child and what it started in that group)."""
        if self.alive():
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def run_trial(
    t: Trial, tdir: Path, planned: tuple[str, ...], stop_limit_s: float, kinds: tuple[str, ...] = ()
) -> TrialResult:
    from selfbench import soak_machine as m

    t0 = time.monotonic()
    tdir.mkdir(parents=True, exist_ok=True)
    params, data = write_params(tdir, t.index), tdir / "data"
    work_root = tdir / "tb"
    ledger = ledger_path(tdir)
    argv = campaign_argv(params, data)
    recorded = [inv.Recorded()]
    if t.fault.target == "task":  # the soak's own memory cgroup: 'nothing left' looks for it too
        recorded[0] = inv.Recorded(cgroups=frozenset({m.oom_cgroup(t)}))

    def harvest() -> None:
        recorded[0] = recorded[0].merged(m.recorded_now(work_root))

    def watching(seconds: float) -> None:
        """An injector's pause (a link held down, a reboot's sweeps): the soak keeps harvesting."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            harvest()
            time.sleep(max(0.0, min(POLL_S, end - time.monotonic())))

    print(f"{t.line()}", flush=True)
    source = m.mount_source(t)
    testbed = testbed_doc(t.index, work_root)["testbed"]["name"]
    # The canaries after the tmpfs (mounted only on an empty work root), before the campaign.
    with (
        m.OwnTmpfs(work_root, source, t.fault.target == "disk") as disk,
        m.Canaries(testbed, tdir, work_root) as canaries,
    ):
        run = Runner(argv, tdir / "run.log")
        seen_at = fault_at = running = None
        at_fault = b""
        injection = m.Injection(False, "the campaign ended before the moment")
        deadline = run.started + RUN_TIMEOUT_S
        target = m.Target(
            run.proc.pid, work_root, run.alive, sleep=watching, disk_source=source if disk.mounted else ""
        )
        try:
            while run.alive() and time.monotonic() < deadline:
                now = time.monotonic()
                harvest()
                if seen_at is None and marker_reached(
                    t.moment, m.observe(work_root, ledger, now - run.started), len(planned)
                ):
                    seen_at = now
                if seen_at is not None and now >= seen_at + t.moment.delay_s:
                    running = inv.running_cell(run.log_text())
                    at_fault = ledger.read_bytes() if ledger.exists() else b""
                    fault_at = time.monotonic()
                    injection = m.inject(t, target)
                    break
                time.sleep(POLL_S)
            # A runner signal must stop it within the stop limit; any other fault, the campaign goes on.
            graceful = injection.struck and t.fault.graceful
            exited = run.wait(fault_at + max(4 * stop_limit_s, 180) if graceful else deadline, harvest)
            if not exited:
                run.kill()  # a graceful fault's runner has had its signal and its time; a hang its deadline
        except BaseException:  # the soak itself stopped: its campaign is stopped as a user would
            run.stop(stop_limit_s)
            raise
        stop_s = (
            run.ended - fault_at
            if exited and injection.struck and t.fault.target == "runner" and fault_at is not None
            else None
        )
        (tdir / AFTER_FAULT).write_bytes(ledger.read_bytes() if ledger.exists() else b"")
        disk.free()  # a full disk: the user makes room, then resumes

        resume = Runner(argv, tdir / "resume.log")
        try:
            if not resume.wait(resume.started + RUN_TIMEOUT_S, harvest):
                resume.stop(stop_limit_s)
        except BaseException:
            resume.stop(stop_limit_s)
            raise
        harvest()
        first, final = ledgers_of(tdir)
        view = inv.without_canaries(m.machine_view(recorded[0], work_root), canaries.record)
        left = tuple(inv.leftovers(recorded[0], view))
        cleanup = clean_up(params, recorded[0], tdir, canaries.record) if left else ""
        harmed = canaries.harms()  # after the resume, 'nothing left' and vbench's own cleanup
        canaries.remove()
        disk.release()  # after the checks: what lay on it is seen first
    problems = tuple(injection.problems) + tuple(disk.problems) + tuple(canaries.problems)
    ev = inv.Evidence(
        planned=planned,
        fault=t.fault,
        injected=injection.struck,
        first_ledger=first,
        final_ledger=final,
        running_at_fault=running,
        stop_s=stop_s,
        stop_limit_s=stop_limit_s,
        resume_rc=resume.proc.returncode,
        leftovers=left,
        first_exited=exited,
        fault_problems=problems,
        kept_logs=inv.kept_logs_in(ledger_path(tdir).parent),
        at_fault=at_fault,
        canaries_harmed=harmed,
    )
    tally = inv.cell_tally(soak_ledger.read(final), planned)
    result = TrialResult(
        index=t.index,
        seed=t.seed,
        fault=t.fault.name,
        moment=t.moment.text(),
        injected=injection.struck,
        hit=injection.what,
        fault_at_s=None if fault_at is None else round(fault_at - run.started, 2),
        running_at_fault=running,
        stop_s=None if stop_s is None else round(stop_s, 2),
        first_rc=run.proc.returncode,
        resume_rc=resume.proc.returncode,
        to_resumed_s=None if fault_at is None or resume.ended is None else round(resume.ended - fault_at, 1),
        lost=len(tally.lost),
        repeated=len(tally.repeated),
        leftovers=left,
        cleanup=cleanup,
        checks=inv.check_all(ev),
        seconds=round(time.monotonic() - t0, 1),
        fault_problems=problems,
        kinds=kinds,
    )
    (tdir / TRIAL_FILE).write_text(json.dumps(asdict(result), indent=1, sort_keys=True) + "\n")
    print(f"  {'passed' if result.passed else 'FAILED: ' + result.failed_text()} ({clock_text(result.seconds)})")
    return result


def clean_up(params: Path, recorded: inv.Recorded, tdir: Path, canaries: inv.CanaryRecord) -> str:
    """What a trial left, removed by vbench's own cleanup (`vbench testbed down`, by its state
    file), so that the next trial starts on a clean machine; what even that leaves is said."""
    from selfbench import soak_machine as m

    with open(tdir / "cleanup.log", "ab") as fh:
        rc = subprocess.run(
            [sys.executable, "-m", "vbench.cli", "testbed", "down", "--params-dir", str(params)],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdin=subprocess.DEVNULL,
            stdout=fh,
            stderr=subprocess.STDOUT,
            timeout=300,
        ).returncode
    still = inv.leftovers(recorded, inv.without_canaries(m.machine_view(recorded, tdir / "tb"), canaries))
    return f"`vbench testbed down` exited {rc}; " + (
        f"still left: {', '.join(still)}" if still else "nothing left after it"
    )


# --- the report ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class KindRow:
    fault: str
    trials: int
    injected: int
    passed: int
    completed: int  # the resume exited 0 with every planned cell done once
    lost: int
    repeated: int
    leftovers: int  # trials that left something
    median_stop_s: float | None
    median_to_resumed_s: float | None
    #: Trials whose "canaries kept" failed; None: no trial of the kind had canaries (before them).
    canaries_harmed: int | None = None


def canaries_harmed(r: TrialResult) -> bool | None:
    """Whether trial `r` harmed a canary (None: its trial had no such check, run before canaries). Pure."""
    found = [c for c in r.checks if c.name == "canaries kept"]
    return None if not found else not found[0].ok


def _median(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 1) if xs else None


def _count_known(flags: list[bool | None]) -> int | None:
    known = [f for f in flags if f is not None]
    return sum(known) if known else None


def kind_rows(results: list[TrialResult]) -> list[KindRow]:
    """Per fault kind, in FAULTS' order. Pure."""
    rows = []
    for f in FAULTS:
        rs = [r for r in results if r.fault == f.name]
        if not rs:
            continue
        rows.append(
            KindRow(
                f.name,
                len(rs),
                sum(r.injected for r in rs),
                sum(r.passed for r in rs),
                sum(r.resume_rc == 0 and not r.lost and not r.repeated for r in rs),
                sum(r.lost for r in rs),
                sum(r.repeated for r in rs),
                sum(bool(r.leftovers) for r in rs),
                _median([r.stop_s for r in rs if r.stop_s is not None]),
                _median([r.to_resumed_s for r in rs if r.to_resumed_s is not None]),
                _count_known([canaries_harmed(r) for r in rs]),
            )
        )
    return rows


def summary_line(results: list[TrialResult]) -> str:
    passed = sum(r.passed for r in results)
    seeds = sorted({r.seed for r in results})
    return (
        f"{len(results)} trials (seed {', '.join(map(str, seeds)) or '-'}): {passed} passed every invariant, "
        f"{len(results) - passed} failed; a fault struck in {sum(r.injected for r in results)}; "
        f"{sum(r.lost for r in results)} cells lost, {sum(r.repeated for r in results)} repeated, "
        f"{sum(bool(r.leftovers) for r in results)} trials left something behind; " + canaries_text(results)
    )


def canaries_text(results: list[TrialResult]) -> str:
    flags = [canaries_harmed(r) for r in results]
    known = [f for f in flags if f is not None]
    if not known:
        return "no canary planted (trials run before the soak had canaries)"
    text = f"{sum(known)} harmed a canary"
    return text + (f" ({len(flags) - len(known)} trials run before canaries)" if len(known) < len(flags) else "")


def first_line(loaded: bool, load1: float | None) -> str:
    head = "vbench fault-injection soak (issue #52)"
    return f"# LOADED machine (load average {load1:.2f} before the run): {head}" if loaded else f"# {head}"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:g}"


def markdown(results: list[TrialResult], loaded: bool = False, load1: float | None = None) -> str:
    lines = [
        first_line(loaded, load1),
        "",
        summary_line(results),
        "",
        "| fault | trials | struck | passed | completed after resume | cells lost | cells repeated "
        "| trials with leftovers | trials with canaries harmed | median stop (s) | median fault to resumed (s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for k in kind_rows(results):
        lines.append(
            f"| {k.fault} | {k.trials} | {k.injected} | {k.passed} | {k.completed} | {k.lost} | {k.repeated} "
            f"| {k.leftovers} | {_num(k.canaries_harmed)} | {_num(k.median_stop_s)} | {_num(k.median_to_resumed_s)} |"
        )
    lines += [
        "",
        "| trial | fault | moment | what it hit | stop (s) | invariants | replay |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in sorted(results, key=lambda r: r.index):
        verdict = "all passed" if r.passed else "FAILED: " + r.failed_text()
        replay = f"`{r.replay_args()}`"
        lines.append(f"| {r.index} | {r.fault} | {r.moment} | {r.hit} | {_num(r.stop_s)} | {verdict} | {replay} |")
    return "\n".join(lines) + "\n"


def report_json(results: list[TrialResult], loaded: bool = False, load1: float | None = None) -> dict:
    return {
        "first_line": first_line(loaded, load1),
        "loaded": loaded,
        "load_before": load1,
        "summary": summary_line(results),
        "kinds": [asdict(k) for k in kind_rows(results)],
        "trials": [{**asdict(r), "passed": r.passed} for r in sorted(results, key=lambda r: r.index)],
    }


def read_results(out: Path) -> list[TrialResult]:
    return [TrialResult.of(json.loads(p.read_text())) for p in sorted(out.glob(f"trial-*/{TRIAL_FILE}"))]


def write_report(out: Path, results: list[TrialResult], loaded: bool, load1: float | None) -> str:
    text = markdown(results, loaded, load1)
    (out / REPORT_MD).write_text(text)
    (out / REPORT_JSON).write_text(json.dumps(report_json(results, loaded, load1), indent=1, sort_keys=True) + "\n")
    return text


# --- the plan ------------------------------------------------------------------------------------


def load_design():
    from vbench.campaign.design import expand, load_experiment

    exp = load_experiment(DESIGN)
    return exp, tuple(c.cell_id for c in expand(exp))


def trial_seconds(campaign_s: float, stop_limit_s: float) -> float:
    """A trial: the campaign once, cut and resumed (the resume brings a session up again), and
    at most a stop limit's wait. Pure."""
    return campaign_s + SOAK_COSTS.bringup_s["native"] + stop_limit_s


def plan(args) -> int:
    exp, cells = load_design()
    est = estimate(exp, SOAK_COSTS)
    trials = selected(args, len(cells), est.seconds)
    print(plan_text(exp, est))
    for t in trials:
        print(t.line())
    each = trial_seconds(est.seconds, args.stop_limit)
    print(f"{len(trials)} trials, ~{clock_text(each)} each: estimated total {clock_text(len(trials) * each)}")
    if args.check_machine:
        from vbench.campaign.hosts_source import TestbedSource
        from vbench.campaign.runner import configuration_params
        from vbench.campaign.study import load_study

        study = load_study(REPO / "params", DESIGN)
        # The runner's own check that the machine holds the design's cluster (reads /proc/meminfo).
        configuration_params(
            study.experiment, study.testbed, study.hadoop, TestbedSource(), frozenset({"micro", "hadoop"})
        )
        print(f"the machine holds the design's cluster; load average now {read_load1():.2f}")
    return 0


def selected(args, cells: int, campaign_s: float) -> list[Trial]:
    faults = args.faults if getattr(args, "faults", None) else FAULTS
    if args.replay is not None:
        return [trial(args.seed, args.replay, cells, campaign_s, faults)]
    return schedule(args.seed, args.trials, cells, campaign_s, faults)[args.first - 1 :]


def kinds_given(faults) -> tuple[str, ...]:
    """The kinds a restricted schedule runs, for its results (() for all of them). Pure."""
    return () if tuple(faults) == FAULTS else tuple(f.name for f in faults)


# --- running -------------------------------------------------------------------------------------


def run(args) -> int:
    if os.geteuid() != 0:
        print("refused: the soak brings up native testbeds, which need root", file=sys.stderr)
        return 2
    load1 = read_load1()
    if load1 >= LOAD_LIMIT and not args.allow_loaded:
        print(
            f"refused: the 1-minute load average is {load1:.2f} (limit {LOAD_LIMIT:g}); on a busy machine stop "
            "times stretch and say nothing about vbench. Wait, or pass --allow-loaded (the report is then "
            "marked LOADED).",
            file=sys.stderr,
        )
        return 2
    exp, cells = load_design()
    est = estimate(exp, SOAK_COSTS)
    trials = selected(args, len(cells), est.seconds)
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"soak: {len(trials)} trials into {args.out}; load average before: {load1:.2f}", flush=True)
    for t in trials:
        name = f"trial-{t.index:03d}" + (f"-replay-{time.strftime('%Y%m%d-%H%M%S')}" if args.replay else "")
        tdir = args.out / name
        if (tdir / TRIAL_FILE).exists():
            continue  # a soak run again with the same --out resumes
        if tdir.exists():  # cut short by the soak's own interruption: run it again from the start
            release_own_mount(tdir / "tb", t)
            tdir.rename(tdir.with_name(f"{name}.cut-{time.strftime('%Y%m%d-%H%M%S')}"))
        run_trial(t, tdir, cells, args.stop_limit, kinds_given(args.faults))
    results = read_results(args.out)
    loaded = load1 >= LOAD_LIMIT
    print()
    print(write_report(args.out, results, loaded, load1), end="")
    print(f"(written to {args.out / REPORT_MD} and {args.out / REPORT_JSON})")
    return 0 if all(r.passed for r in results) else 1


def release_own_mount(work_root: Path, t: Trial) -> None:
    """A disk-full trial cut short (the soak killed) may have left its tmpfs mounted: unmounted
    (only that mount: its mount point and source name), before its directory is set aside."""
    from selfbench import soak_machine as m

    own = m.OwnTmpfs(work_root, m.mount_source(t), False)
    own.mounted = m.is_own_mount(work_root, own.source)
    own.release()
    for problem in own.problems:
        print(f"  {problem}", flush=True)


def from_directory(out: Path) -> int:
    results = read_results(out)
    if not results:
        raise SystemExit(f"{out}: no trial has finished ({TRIAL_FILE} under trial-*/)")
    doc = json.loads((out / REPORT_JSON).read_text()) if (out / REPORT_JSON).is_file() else {}
    print(write_report(out, results, bool(doc.get("loaded")), doc.get("load_before")), end="")
    return 0 if all(r.passed for r in results) else 1


def default_out() -> Path:
    return Path(tempfile.gettempdir()) / f"vbench-soak-{time.strftime('%Y%m%d-%H%M%S')}"


def main(argv=None) -> int:
    hear_ctrl_c_as_a_terminal_gives_it()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=DEFAULT_TRIALS, help=f"how many trials (default {DEFAULT_TRIALS})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"the schedule's seed (default {DEFAULT_SEED})")
    p.add_argument(
        "--first",
        type=int,
        default=1,
        metavar="TRIAL",
        help="start the schedule at trial TRIAL (the earlier trials' directories are elsewhere or gone)",
    )
    p.add_argument("--replay", type=int, metavar="TRIAL", help="run trial TRIAL of --seed again, alone")
    p.add_argument(
        "--kinds",
        metavar="A,B,...",
        help="only these fault kinds, the schedule shuffled over them (default: all: "
        + ",".join(f.name for f in FAULTS)
        + ")",
    )
    p.add_argument("--out", type=Path, help="directory to run into, or to resume (default: /tmp/vbench-soak-<time>)")
    p.add_argument("--report", type=Path, metavar="DIR", help="the report of a soak already run in DIR; run nothing")
    p.add_argument(
        "--plan", action="store_true", help="print the trials (seed, fault, moment) and the time; run nothing"
    )
    p.add_argument("--allow-loaded", action="store_true", help="run on a loaded machine; the report says LOADED")
    p.add_argument(
        "--stop-limit", type=float, default=inv.STOP_LIMIT_S, help="s a Ctrl-C or SIGTERM may take to stop the runner"
    )
    p.add_argument("--check-machine", action=argparse.BooleanOptionalAction, default=True, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.trials < 1 or args.first < 1 or (args.replay is not None and args.replay < 1):
        p.error("--trials, --first and --replay count from 1")
    if args.first > args.trials:
        p.error(f"--first {args.first} is past the schedule's last trial (--trials {args.trials})")
    try:
        args.faults = FAULTS if args.kinds is None else kinds_named([k.strip() for k in args.kinds.split(",")])
    except ValueError as exc:
        p.error(f"--kinds: {exc}")
    if args.report is not None:
        return from_directory(args.report)
    if args.plan:
        return plan(args)
    args.out = args.out or default_out()
    try:
        return run(args)
    except KeyboardInterrupt:  # the trial's campaign was stopped as a user would (run_trial)
        print(
            f"\nsoak: interrupted; the trial under way runs again from its start on resume "
            f"(--out {args.out} --seed {args.seed}{' --kinds ' + args.kinds if args.kinds else ''})",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""The campaign runner: runs a design's cells in order, one testbed and cluster per (block,
configuration) (a configuration: a platform with its environment factors' levels), and
resumes an interrupted campaign (Ctrl-C, kill -9, a crash) where it stopped.

Cells run in sessions (vbench.campaign.design.sessions): the configurations a session holds up
at the same time (every configuration of a block when the design's rounds are concurrent, each
on a testbed of its own name, bridge and subnet: `slot_testbed`; otherwise one) and the runs
made on them, warm-up runs first. A session holds its testbeds and clusters in an ExitStack, so
that every one of them is torn down on failure, Ctrl-C and SIGTERM; a configuration that fails
has its remaining cells recorded as failed and is torn down at once while the others go on
(or the campaign stops: `on_failure: stop`). `RoundHooks` are called before and after every
round (the quiet-machine gate, adaptive stopping).

The ledger is samples.jsonl itself (vbench.ledger): every record carries its `cell_id`, and one
cell's records (all its attempts) are appended in a single fsync'd write that ends with the
cell's closing record. A cell is done only when that record is there; on resume, an append that
did not finish is cut off (kept aside in samples.jsonl.torn-<time>) and its cell runs again, so
resuming never loses, fakes or repeats a finished cell.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import Any, Callable, Protocol

from pydantic import ValidationError

from vbench import durable
from vbench.benchmarks import netmatrix, registry
from vbench.benchmarks.hadoop.execute import BenchRun
from vbench.benchmarks.micro._common import following_java_home
from vbench.campaign import failed_logs
from vbench.campaign.design import (
    Cell,
    Configuration,
    Experiment,
    Session,
    deep_merge,
    design_hash,
    duet_cpusets,
    expand,
    sessions,
    side_cpuset,
)
from vbench.campaign.hooks import RunHook, check_hook
from vbench.campaign.hosts_source import HostsSource, TestbedSource
from vbench.campaign.machine_ref import reference_said
from vbench.campaign.measure import (
    Planned,
    check_calibrate_hosts,
    failure_reason,
    measure_hadoop,
    measure_micro,
    records_of,
)
from vbench.campaign.pagecache import kept
from vbench.campaign.progress import CampaignProgress, NoProgress, ProgressReport
from vbench.campaign.quiet import QuietHook, controller_and_testbeds
from vbench.campaign.quiet_remote import InventoryQuietHook
from vbench.campaign.together import StartLine, run_together
from vbench.errors import ParamsError, VbenchError
from vbench.hadoop.artifacts import fetch
from vbench.hadoop.cluster import HadoopCluster
from vbench.hadoop.presets import preset_params
from vbench.lifecycle import interrupts_unwind, shielded
from vbench.monitor.monitor import Monitor, finish_monitor
from vbench.monitor import kernel_entries, machine_cpu
from vbench.machine_fit import MachineFacts, check_cluster_fits, check_clusters_fit_together
from vbench.params import HadoopParams, TestbedParams, describe_validation_error, prefixed
from vbench.provenance import cluster_provenance, machine_kernel_stamp, machine_stamp, slowdown_stamp, vbench_commit
from vbench.host import Host
from vbench.ledger import read_ledger
from vbench.samples import Failure
from vbench.store import CampaignStore
from vbench.testbed import physhosts, physnet
from vbench.testbed.facts import this_cpu_model
from vbench.testbed.freezer import TestbedFreezer
from vbench.testbed.guest import testbed_cgroup
from vbench.testbed.native_jdk import native_jdk

Log = Callable[[str], None]
#: Every kind of cell a campaign has: calibration ("micro") and the Hadoop suite ("hadoop").
ALL_KINDS = frozenset({"micro", "hadoop"})


@dataclass
class CampaignResult:
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    already_done: int = 0
    #: Warm-up runs made (not cells of the design: each session's first run of a benchmark).
    warmups: int = 0
    failures: int = 0
    seconds: float = 0.0
    #: Why the campaign stopped early (design `on_failure: stop`, a round hook), else None.
    stopped: str | None = None


def done_cells(store: CampaignStore) -> set[str]:
    """Cells whose closing record is in the ledger (in a campaign begun by an older vbench: cells
    with any record). Cells whose configuration never came up are not done: they run again."""
    if not store.samples_path.exists():
        return set()
    return read_ledger(store.samples_path).done_cells


def extends_by_blocks(recorded: dict, exp: Experiment) -> int | None:
    """The recorded design's block count when `exp` is that design with more blocks and nothing
    else changed (its blocks 0..n-1 are the recorded ones, cell for cell), else None. Pure."""
    reps = (recorded.get("experiment") or {}).get("repetitions")
    if not isinstance(reps, int) or isinstance(reps, bool) or not 0 < reps < exp.repetitions:
        return None
    same = design_hash(exp.model_copy(update={"repetitions": reps})) == recorded.get("design_hash")
    return reps if same else None


def _check_design(store: CampaignStore, exp: Experiment, log: Log = print) -> None:
    """A campaign directory belongs to one design: resuming under a changed design would mix data.
    The one change allowed is more blocks (`repetitions`): a campaign whose intervals are too wide
    gets blocks added to the ones it has, and campaign.json records what it was before.
    Samples without a campaign.json are of an unknown design: adopted only when asked (--append)."""
    meta = store.root / "campaign.json"
    h = design_hash(exp)
    if meta.exists():
        old = json.loads(meta.read_text())
        if old.get("design_hash") == h:
            return
        before = extends_by_blocks(old, exp)
        if before is None:
            raise VbenchError(
                f"{store.root} holds a campaign of another design (hash {old.get('design_hash')}, now {h}); "
                f"use another campaign name, or remove the directory to start over (only `repetitions` may "
                f"grow: more blocks are added to a campaign)"
            )
        history = [*old.get("extended_from", []), {"design_hash": old.get("design_hash"), "repetitions": before}]
        _record_design(store, exp, extended_from=history)
        log(f"campaign {store.root.name}: {before} blocks extended to {exp.repetitions} (campaign.json records both)")
        return
    if store.holds_samples() and not store.append:
        raise VbenchError(
            f"{store.root} holds samples but no campaign.json, so their design is unknown; use another "
            f"campaign name, or pass --append to adopt them into this design"
        )
    durable.make_dirs(store.root)
    _record_design(store, exp)


def _record_design(store: CampaignStore, exp: Experiment, **history) -> None:
    """Write campaign.json: the design, its hash and (`history`) what it grew from."""
    record = {"design_hash": design_hash(exp), "experiment": exp.model_dump(mode="json"), **history}
    durable.write_text(store.root / "campaign.json", json.dumps(record, indent=1, sort_keys=True))
    durable.fsync_dir(store.root)


def params_for(
    exp: Experiment, config: Configuration | str, testbed: TestbedParams, hadoop: HadoopParams
) -> tuple[TestbedParams, HadoopParams]:
    """The testbed and Hadoop params of one configuration: the files', then the experiment's
    overrides, then the configuration's factor levels."""
    config = Configuration(config) if isinstance(config, str) else config
    tb_doc = deep_merge(deep_merge(testbed.model_dump(exclude_none=True), exp.testbed), config.overrides("testbed"))
    # An experiment may name its hosts (a mixed cluster: Liu et al.); else master + N workers.
    tb = testbed.model_validate(
        {**tb_doc, "platform": config.platform, "workers": exp.workers, "hosts": exp.testbed.get("hosts")}
    )
    return tb, native_jdk(hadoop_for(exp, config, hadoop), tb)


def hadoop_for(
    exp: Experiment, config: Configuration, hadoop: HadoopParams, overrides: dict | None = None
) -> HadoopParams:
    """The Hadoop params of one configuration: the file's, the experiment's Hadoop preset if it
    names one (`hadoop: {preset: vmware2015}`, vbench.hadoop.presets), the experiment's other
    overrides, the configuration's factor levels, then `overrides` (what a hosts source sets,
    e.g. java_home)."""
    own = dict(exp.hadoop)
    preset = own.pop("preset", None)
    doc = hadoop.model_dump()
    if preset is not None:
        doc = deep_merge(doc, preset_params(str(preset)))
    doc = deep_merge(deep_merge(doc, own), config.overrides("hadoop"))
    return hadoop.model_validate(deep_merge(doc, overrides or {}))


def _params(
    exp: Experiment, config: Configuration, testbed: TestbedParams, hadoop: HadoopParams, source: HostsSource
) -> tuple[TestbedParams, HadoopParams]:
    if source.local:
        return params_for(exp, config, testbed, hadoop)
    # Hosts from elsewhere: the testbed params do not apply; the source may set e.g. java_home.
    hp = hadoop_for(exp, config, hadoop, getattr(source, "hadoop_overrides", {}))
    if hp.jdk != "host":
        raise ParamsError(
            "hadoop.jdk",
            f"{hp.jdk}: the guest image's JDK is on this machine's local testbed only; hosts from an "
            "inventory run the JDK at its java_home",
        )
    return testbed, hp


def concurrent(exp: Experiment) -> bool:
    """Whether a block's configurations are up at the same time (rounds, interleave: concurrent)."""
    return exp.rounds > 1 and exp.interleave == "concurrent" and len(exp.configurations()) > 1


def slot_testbed(testbed: TestbedParams, slot: int) -> TestbedParams:
    """The testbed of the `slot`-th configuration when a block's testbeds are up together: its own
    name (`vb` -> `vb0`, `vb1`...: namespaces, links, state directory and lock derive from it), bridge
    (`vbbr0-1`) and subnet (the `slot`-th next one of the same size, hosts named by address moved
    along), so that they coexist. Refused (ParamsError naming the field) when a name gets too long."""
    net = testbed.network.subnet
    offset = slot * net.num_addresses
    subnet = ipaddress.ip_network((int(net.network_address) + offset, net.prefixlen))
    doc = testbed.model_dump(exclude_none=True)
    doc["name"] = f"{testbed.name}{slot}"
    doc["network"] = {**doc["network"], "bridge": f"{testbed.network.bridge}-{slot}", "subnet": str(subnet)}
    if testbed.hosts is not None:
        doc["hosts"] = [
            {**h, "address": str(ipaddress.ip_address(h["address"]) + offset)} if h.get("address") else h
            for h in doc["hosts"]
        ]
    try:
        return testbed.model_validate(doc)
    except ValidationError as exc:
        raise describe_validation_error(exc, "testbed", TestbedParams) from None


def freezable_testbed(testbed: TestbedParams, local: bool) -> TestbedParams:
    """The testbed with its freezer (`idle: freeze`); refused (ParamsError naming the field) on an
    inventory's hosts, which are not vbench's to stop, and on platforms the freezer does not hold."""
    if not local:
        raise ParamsError(
            "experiment.idle", "freeze pauses the local testbed's hosts; an inventory's hosts are not vbench's to stop"
        )
    return _testbed_with(testbed, freezer=True)


def _testbed_with(testbed: TestbedParams, **fields) -> TestbedParams:
    """The testbed with `fields` set, validated again (ParamsError naming the field)."""
    try:
        return testbed.model_validate({**testbed.model_dump(exclude_none=True), **fields})
    except ValidationError as exc:
        raise describe_validation_error(exc, "testbed", TestbedParams) from None


def cpu_grouped_testbed(testbed: TestbedParams) -> TestbedParams:
    """The testbed with its hosts in one cpu cgroup of its own (testbed.cpu_group), as the sides
    of a duet need: with native hosts in the machine's root cpu cgroup, each of their threads
    weighs as much as a whole LXC testbed, and the native side of a duet takes most of the CPUs
    (measured: docs/results.md, `lean-duet`). Refused (ParamsError naming the field) on
    platforms a cpu group does not hold."""
    return _testbed_with(testbed, cpu_group=True)


def configuration_params(
    exp: Experiment,
    testbed: TestbedParams,
    hadoop: HadoopParams,
    source: HostsSource,
    kinds: frozenset[str],
    machine: MachineFacts | None = None,
    netem: Callable[[], bool] = physhosts.netem_available,
) -> dict[str, tuple[TestbedParams, HadoopParams]]:
    """Every configuration's testbed and Hadoop params, by configuration key, after refusing what
    cannot run, before anything starts: a configuration the machine cannot hold, a delay on a
    kernel without netem (`netem`: whether it has it, asked only if a configuration delays), and
    (clusters up together) configurations that cannot coexist: together more memory than the
    machine has, or an inventory's hosts shared by two of them."""
    out: dict[str, tuple[TestbedParams, HadoopParams]] = {}
    delayed: dict[str, list[str]] = {}
    together = concurrent(exp)
    suite = bool(exp.suite) and "hadoop" in kinds
    _check_count_syscalls(exp, source)
    for slot, config in enumerate(exp.configurations()):
        try:
            if not source.local and config.overrides("testbed"):
                raise ParamsError(
                    "factors",
                    "testbed factors (network mode, VMs per host...) describe the local "
                    "testbed; an inventory's hosts are what they are: vary them in the inventory",
                )
            tb, hp = _params(exp, config, testbed, hadoop, source)
            if source.local:
                for name, delay_ms in (
                    ("testbed.slowdown.delay_ms", tb.slowdown.delay_ms),
                    ("network.link.delay_ms", tb.network.link.delay_ms),
                ):
                    if delay_ms > 0:
                        delayed.setdefault(name, []).append(config.key)
            if "micro" in kinds:
                _check_netmatrix(exp, tb, source)
                _check_calibrate_hosts(exp, config, tb, source)
            if together and source.local:
                tb = slot_testbed(tb, slot)
            if exp.idle == "freeze":
                tb = freezable_testbed(tb, source.local)
            if exp.duet is not None and source.local:
                tb = cpu_grouped_testbed(tb)
            if suite and source.local:
                machine = machine or MachineFacts.local()
                check_cluster_fits(tb, hp, machine)
        except ParamsError as exc:
            raise prefixed(exc, f"configuration {config.key}") from None
        out[config.key] = (tb, hp)
    # The testbed refuses a delay at its own bring-up too, but by then the configurations before
    # it have run for hours and those after it would each fail in turn.
    if delayed and not netem():
        name, keys = next(iter(delayed.items()))
        raise ParamsError(
            name,
            f"this kernel has no netem qdisc (sch_netem), so no delay can be set here, and "
            f"{len(keys)} of {len(out)} configurations ask for one ({', '.join(keys[:3])}"
            f"{', ...' if len(keys) > 3 else ''}); a design without the delay runs here (e.g. costs-fit-nodelay "
            "for costs-fit)",
        )
    if exp.duet is not None and exp.duet.cpus == "split":
        machine = machine or MachineFacts.local()
        split_parts(len(out), source.local, machine)
    if together and source.local:
        check_clusters_fit_together(
            [(k, tb, hp if suite else None) for k, (tb, hp) in out.items()], machine or MachineFacts.local()
        )
    elif together:
        by_platform: dict[str, list[str]] = {}
        for config in exp.configurations():
            by_platform.setdefault(config.platform, []).append(config.key)
        shared = next((keys for keys in by_platform.values() if len(keys) > 1), None)
        if shared:
            raise ParamsError(
                "experiment.interleave",
                f"configurations {', '.join(shared)} run on the same hosts of "
                "the inventory, so they cannot be up at the same time; set interleave: alternating to "
                "run one configuration at a time",
            )
    return out


def split_parts(sides: int, local: bool, machine: MachineFacts) -> tuple[str, ...]:
    """The parts of the machine's CPUs the sides of a `cpus: split` duet run on (one cpuset per
    side); refused (ParamsError naming the field) on an inventory's hosts and where the machine
    has fewer CPUs than sides."""
    field = "experiment.duet.cpus"
    if not local:
        raise ParamsError(
            field, "split pins the local testbed's hosts to CPUs; an inventory's hosts are not vbench's to pin"
        )
    cpus = sorted(machine.cpu_ids if machine.cpu_ids is not None else range(machine.cpus))
    if sides > len(cpus):
        raise ParamsError(
            field,
            f"split gives each of the {sides} configurations of a duet CPUs of its own, and vbench may run on "
            f"{len(cpus)} CPUs here; run fewer configurations per design (e.g. the A/A pair and the comparison "
            "as two designs) or cpus: shared",
        )
    return duet_cpusets(cpus, sides)


def _check_netmatrix(exp: Experiment, tb: TestbedParams, source: HostsSource) -> None:
    """The iperf3 matrix measures pairs of the local testbed's emulated physical hosts: refused
    for an inventory's hosts, and for a testbed without them (direct attachment, one guest per
    host, unshaped: every pair would be the same path)."""
    at = next((i for i, spec in enumerate(exp.calibrate) if spec.benchmark == netmatrix.NAME), None)
    if at is None:
        return
    field = f"experiment.calibrate[{at}]"
    if not source.local:
        raise ParamsError(field, "netmatrix measures the local testbed's emulated physical hosts, not an inventory's")
    if not physnet.uses_physical_hosts(tb):
        raise ParamsError(
            field,
            "netmatrix needs emulated physical hosts: set testbed.network.mode nat or bridge+nat, "
            "testbed.vms_per_host above 1, or testbed.network.link.rate_mbit",
        )


def _check_count_syscalls(exp: Experiment, source: HostsSource) -> None:
    """Counting system calls reads this machine's kernel: the local testbed's hosts share it, an
    inventory's do not."""
    if exp.count_syscalls and not source.local:
        raise ParamsError("experiment.count_syscalls", "counts this machine's calls: the local testbed only")


def _check_calibrate_hosts(exp: Experiment, config: Configuration, tb: TestbedParams, source: HostsSource) -> None:
    """A calibrate entry's `hosts` within the configuration's hosts, where their number is known
    before anything starts: the local testbed's from its params, an inventory's from its list (a
    source that cannot say is left to measure_micro's guard)."""
    if source.local:
        count: int | None = len(tb.resolved_hosts())
    else:
        counted = getattr(source, "host_count", None)
        count = counted(config.platform) if counted is not None else None
    if count is not None:
        check_calibrate_hosts(exp.calibrate, count)


class RoundHooks(Protocol):
    """What the runner calls around every round (issue #18): the quiet-machine gate before it, the
    adaptive stopping rule after it. A round here is a stretch of consecutive runs of one block
    and round (in a design without rounds: a block); in a concurrent block the calibration's
    rounds and the suite's are separate stretches, each heard of. Hooks hear only of rounds
    that run something (not of rounds skipped by the time budget or lost with their configuration)."""

    def before_round(self, info: RoundInfo) -> dict[str, Any]:
        """Called before the round's first run; returns fields stamped on every sample of the round."""

    def after_round(self, info: RoundInfo) -> str | None:
        """Called after the round's last run; a reason to stop the campaign here, or None to go on."""


@dataclass(frozen=True)
class RoundInfo:
    block: int
    round: int
    #: Every run of the round, in order (warm-up runs included: their ids end in /warmup).
    cell_ids: tuple[str, ...]
    #: How the terminal names it (None: b<block>/r<round>); a session's gate names its configurations.
    label: str | None = None


class NoHooks:
    def before_round(self, info: RoundInfo) -> dict[str, Any]:
        return {}

    def after_round(self, info: RoundInfo) -> str | None:
        return None


class AllHooks:
    """Several RoundHooks in order: their stamps merged, the first reason to stop wins (every
    hook still hears of the round's end). A hook with a `before_session` is called before each
    session too (SessionGate)."""

    def __init__(self, *hooks: RoundHooks):
        self.hooks = hooks

    def before_round(self, info: RoundInfo) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for h in self.hooks:
            out.update(h.before_round(info) or {})
        return out

    def before_session(self, s: Session) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for h in self.hooks:
            if hasattr(h, "before_session"):
                out.update(h.before_session(s) or {})
        return out

    def after_round(self, info: RoundInfo) -> str | None:
        reasons = [h.after_round(info) for h in self.hooks]
        return next((r for r in reasons if r), None)


class SessionGate:
    """The gate before each session instead of each round (`quiet: {every: session}`): the same
    check, made before the session's testbeds come up (the previous session's are down by then),
    its stamp on every run of the session. In a design without rounds a block holds one session
    per platform, and a slow spell that begins after the block's first platform would otherwise
    go unseen until the next block."""

    def __init__(self, gate: RoundHooks):
        self.gate = gate

    def before_round(self, info: RoundInfo) -> dict[str, Any]:
        return {}

    def after_round(self, info: RoundInfo) -> str | None:
        return None

    def before_session(self, s: Session) -> dict[str, Any]:
        label = f"b{s.block}/{'+'.join(c.key for c in s.configs)}"
        info = RoundInfo(s.block, s.runs[0].round or 0, tuple(c.cell_id for c in s.runs), label)
        return self.gate.before_round(info)


def gate_hook(
    exp: Experiment,
    params: dict[str, tuple[TestbedParams, HadoopParams]],
    source: HostsSource,
    log: Log,
    campaign_dir: Path | None = None,
) -> RoundHooks:
    """The quiet-machine gate before every round (or session: SessionGate): on the local testbed
    this machine (vbench.campaign.quiet), with the controller and the testbeds' processes as the
    measurement's own, its CPU probe also against this machine's reference from the campaigns
    beside `campaign_dir` (vbench.campaign.machine_ref); on an inventory every host of the
    campaign, over SSH (vbench.campaign.quiet_remote)."""
    if exp.quiet.mode == "off":
        return NoHooks()
    gate: RoundHooks
    if source.local:
        ref = None
        if campaign_dir is not None:
            ref, said = reference_said(campaign_dir, this_cpu_model())
            log(f"quiet gate: {said}" + ("" if ref else ": each probe is judged against this run's own"))
        own = controller_and_testbeds(tb for tb, _ in params.values())
        gate = QuietHook(exp.quiet, own, log, machine_ref=ref)
    else:
        hosts = source.gate_hosts(exp.platforms)
        if not hosts:
            return NoHooks()
        gate = InventoryQuietHook(exp.quiet, hosts, log)
    return SessionGate(gate) if exp.quiet.every == "session" else gate


class _Rounds:
    """The runs of a campaign in order, cut into rounds, with the hooks called at their edges."""

    def __init__(self, runs: list[Cell], hooks: RoundHooks):
        self.hooks = hooks
        self.round_of: list[int] = []  # run index -> round index
        self.rounds: list[RoundInfo] = []
        for key, group in groupby(runs, key=lambda c: (c.block, c.round or 0)):
            ids = tuple(c.cell_id for c in group)
            self.round_of += [len(self.rounds)] * len(ids)
            self.rounds.append(RoundInfo(key[0], key[1], ids))
        self.last = {self.round_of[i]: i for i in range(len(runs))}  # round index -> its last run
        self.stamps: dict[int, dict[str, Any]] = {}

    def enter(self, i: int) -> dict[str, Any]:
        """Before run `i` runs: the round's stamp, opening the round first if it is not open yet."""
        r = self.round_of[i]
        if r not in self.stamps:
            self.stamps[r] = dict(self.hooks.before_round(self.rounds[r]) or {})
        return self.stamps[r]

    def leave(self, i: int) -> str | None:
        """After run `i` (run, skipped or lost): the after-round hook's verdict if it ended an open round."""
        r = self.round_of[i]
        if self.last[r] == i and r in self.stamps:
            return self.hooks.after_round(self.rounds[r])
        return None


@dataclass
class _Up:
    """A configuration held up in a session: its hosts, its cluster once up, what tears it down."""

    tb: TestbedParams
    hp: HadoopParams
    stack: ExitStack
    hosts: list[Host] = field(default_factory=list)
    cluster: HadoopCluster | None = None
    provenance: dict = field(default_factory=dict)
    #: Its testbed's freezer (`idle: freeze`), None otherwise.
    freezer: TestbedFreezer | None = None


class _Campaign:
    """One run of run_campaign: its sessions, in order, each holding its configurations up in an
    ExitStack so that every testbed and cluster of a session is torn down on failure, Ctrl-C and
    SIGTERM alike."""

    def __init__(
        self,
        exp: Experiment,
        params: dict[str, tuple[TestbedParams, HadoopParams]],
        source: HostsSource,
        store: CampaignStore,
        log: Log,
        progress: CampaignProgress,
        round_hooks: RoundHooks,
        hook: RunHook | None,
        result: CampaignResult,
        base: dict,
        dist,
        t0: float,
    ):
        self.exp, self.params, self.source, self.store, self.log = exp, params, source, store, log
        self.progress, self.round_hooks, self.hook = progress, round_hooks, hook
        self.result, self.base, self.dist, self.t0 = result, base, dist, t0
        self.budget_s = exp.budget_minutes * 60 if exp.budget_minutes else None
        self.budget_note = f"time budget of {exp.budget_minutes} min"
        #: (seconds, runs) of each block this run finished: what the budget expects of the next.
        self.blocks_run: list[tuple[float, int]] = []
        self.rounds = _Rounds([], round_hooks)
        self.teardown_failed: str | None = None
        #: What the session gate (if any) stamped on the running session's runs.
        self.session_stamp: dict[str, Any] = {}
        #: With a `cpus: split` duet, the CPUs of each part and each configuration's slot.
        split = exp.duet is not None and exp.duet.cpus == "split"
        self.cpu_parts = split_parts(len(params), source.local, MachineFacts.local()) if split else ()
        self.slots = {key: i for i, key in enumerate(params)}
        #: The machine's system calls counted since the campaign began (the design's
        #: count_syscalls), read at every machine mark; closed by run_campaign.
        self.syscalls: kernel_entries.SyscallCounter | None = None

    def run(self, plan: list[Session]) -> None:
        """Run the plan block by block. The time budget is spent in whole blocks: a block starts
        only if the blocks run so far say it fits, and a started block runs to its end, so a
        campaign run in parts (a budget per `campaign run`) never leaves a block's pairs split
        between two runs, which may be days or machines apart."""
        self.rounds = _Rounds([r for s in plan for r in s.runs], self.round_hooks)
        i = 0
        for _block, group in groupby(plan, key=lambda s: s.block):
            group = list(group)
            runs = sum(len(s.runs) for s in group)
            if self.block_over_budget(runs):
                for s in group:
                    for pos, cell in enumerate(s.runs):
                        self.skip(cell)
                        if stop := self.rounds.leave(i + pos):
                            self.stop(stop)
                            return
                    i += len(s.runs)
                continue
            b0 = time.monotonic()
            for s in group:
                if not self.session(s, i):
                    return
                i += len(s.runs)
            self.blocks_run.append((time.monotonic() - b0, runs))

    def block_over_budget(self, runs: int) -> bool:
        return self.budget_s is not None and _block_over_budget(
            time.monotonic() - self.t0, self.budget_s, runs, self.blocks_run
        )

    def skip(self, cell: Cell) -> None:
        if not cell.warms_up:
            self.result.skipped.append(cell.cell_id)
        self.progress.cell_skipped(cell.cell_id, self.budget_note)

    def session(self, s: Session, first: int) -> bool:
        """Run a session's runs (run indices from `first`); False when the campaign stops here."""
        handled: set[int] = set()  # positions in s.runs already accounted for (lost with their configuration)
        self.teardown_failed = None
        before = getattr(self.round_hooks, "before_session", None)
        self.session_stamp = dict(before(s) or {}) if before else {}
        with ExitStack() as stack:
            up: dict[str, _Up] = {}
            for config in s.configs:
                if not self.open(config, stack, up, s, 0, handled):
                    return False
            clusters_asked = False
            for pos, cell in enumerate(s.runs):
                i = first + pos
                if pos in handled:
                    pass
                else:
                    if cell.variant.kind == "hadoop" and not clusters_asked:
                        clusters_asked = True  # every cluster of the session comes up before its first job
                        for key in list(up):
                            if not self.cluster_up(key, up, s, pos, handled):
                                return False
                    if pos in handled:
                        pass
                    elif self.exp.duet is not None and cell.variant.kind == "hadoop":
                        if not self.run_duet(duet_group(s.runs, pos, handled), up, s, first, handled):
                            return False
                    elif not self.run_one(cell, up, s, pos, i, handled):
                        return False
                if stop := self.rounds.leave(i):
                    return self.stop(stop)
        if self.teardown_failed is not None and self.exp.on_failure == "stop":
            return self.stop(self.teardown_failed, say=True)
        return True

    def open(
        self, config: Configuration, stack: ExitStack, up: dict[str, _Up], s: Session, pos: int, handled: set[int]
    ) -> bool:
        tb, hp = self.params[config.key]
        if self.cpu_parts:  # this block's part of the CPUs (rotated from block to block)
            tb = _testbed_with(tb, cpuset=side_cpuset(self.cpu_parts, self.slots[config.key], s.block))
        mine = ExitStack()
        stack.callback(self.close, config, mine)  # before entering: a half-made configuration is undone too
        try:
            hosts = mine.enter_context(self.source.open(config.platform, tb))
        except Exception as exc:  # the configuration could not be brought up
            return self.lost(config, exc, up, s, pos, handled)
        frz = TestbedFreezer(tb.name, tuple(h.name for h in hosts)) if self.exp.idle == "freeze" else None
        if frz is not None:
            mine.callback(frz.thaw)  # a frozen host cannot be torn down
        up[config.key] = _Up(tb, hp, mine, hosts, freezer=frz)
        return True

    def cluster_up(self, key: str, up: dict[str, _Up], s: Session, pos: int, handled: set[int]) -> bool:
        held = up[key]
        config = next(c for c in s.configs if c.key == key)
        if not any(c.variant.kind == "hadoop" and c.config.key == key for c in s.runs[pos:]):
            return True
        try:
            cluster = HadoopCluster(held.hosts, held.hp, self.dist, log=self.log)
            held.stack.callback(cluster.down)  # also when up() fails half-way
            if held.freezer is not None:
                held.stack.callback(held.freezer.thaw)  # before cluster.down: a frozen daemon does not stop
            held.cluster = cluster
            cluster.up(timeout_s=getattr(self.source, "ready_timeout_s", None))
            held.provenance = cluster_provenance(cluster)
        except Exception as exc:
            return self.lost(config, exc, up, s, pos, handled)
        return True

    def run_one(self, cell: Cell, up: dict[str, _Up], s: Session, pos: int, i: int, handled: set[int]) -> bool:
        held = up[cell.config.key]
        idle = self.freeze_others(cell.config.key, up)
        stamp = {
            **self.rounds.enter(i),
            **self.session_stamp,
            **_stamp(self.base, cell.config, cell, self.exp.rounds),
            **idle,
        }
        self.progress.cell_started(cell.cell_id)
        try:
            failed, why = _run_cell(
                cell,
                self.exp.retries,
                lambda n: self.attempt(cell, n, held, stamp),
                self.store,
                self.log,
                {**stamp, "benchmark_kind": cell.variant.kind},
            )
        except Exception as exc:  # the configuration broke (lost its hosts...)
            return self.lost(cell.config, exc, up, s, pos, handled)
        self.measured(cell, failed)
        self.progress.cell_finished(cell.cell_id, why)
        return True

    def measured(self, cell: Cell, failed: int) -> None:
        """A cell that ran (alone or in a duet) in the result: its failures, and whether it was a
        warm-up."""
        self.result.failures += failed
        if cell.warms_up:
            self.result.warmups += 1
        else:
            self.result.ran.append(cell.cell_id)

    def run_duet(self, group: list[int], up: dict[str, _Up], s: Session, first: int, handled: set[int]) -> bool:
        """Run the cells at positions `group` of the session (one variant, every configuration of
        a round) at the same moment, each in a thread, their jobs released by one barrier; then
        account for each as run_one does, in order. Every record says its partners, how the CPUs
        were shared and how far apart the sides left the barrier."""
        cells = [s.runs[p] for p in group]
        start = StartLine(len(cells))
        lock = threading.Lock()
        label = duet_label(cells[0])
        stamps = []
        for k, (p, cell) in enumerate(zip(group, cells)):
            stamps.append(
                {
                    **self.rounds.enter(first + p),
                    **self.session_stamp,
                    **_stamp(self.base, cell.config, cell, self.exp.rounds),
                    "duet_group": label,
                    "duet_partners": [c.cell_id for c in cells if c is not cell],
                    "duet_cpus": self.exp.duet.cpus,  # type: ignore[union-attr]
                }
            )
            self.progress.cell_started(cell.cell_id)

        def side(k: int) -> Callable[[], tuple[int, str | None]]:
            cell, held = cells[k], up[cells[k].config.key]
            log = lambda line: self.log(f"[{cell.config.key}] {line}")  # noqa: E731 - sides interleave

            def go() -> tuple[int, str | None]:
                try:
                    return _run_cell(
                        cell,
                        0,
                        lambda n: self.attempt(cell, n, held, stamps[k], log=log, start=(start, k)),
                        _LockedStore(self.store, lock),
                        log,
                        {**stamps[k], "benchmark_kind": cell.variant.kind},
                    )
                except BaseException:
                    start.abort()  # partners still waiting at the barrier stop waiting (no effect once past it)
                    raise

            return go

        outcomes = run_together([side(k) for k in range(len(cells))], start=start)
        handled.update(group)
        for p, cell, out in zip(group, cells, outcomes):
            if isinstance(out.error, PartnerLost):  # it never started: not done, runs again on resume
                if not cell.warms_up:  # as a lost configuration's: a warm-up run is not a cell of the design
                    _record_unrun([cell], cell.config, self.base, str(out.error), self.store, self.exp.rounds)
                    self.result.failures += 1
                self.progress.cell_finished(cell.cell_id, str(out.error))
                continue
            if out.error is not None:  # the configuration broke (lost its hosts...)
                if not isinstance(out.error, Exception):
                    raise out.error
                handled.discard(p)
                if not self.lost(cell.config, out.error, up, s, p, handled):
                    return False
                continue
            failed, why = out.value  # type: ignore[misc]
            self.measured(cell, failed)
            self.progress.cell_finished(cell.cell_id, why, together=len(cells))
        return True

    def freeze_others(self, key: str, up: dict[str, _Up]) -> dict[str, Any]:
        """With `idle: freeze`: thaw configuration `key`'s testbed, freeze every other one of the
        session, and say so in the run's stamp (which were frozen, how long freezing took)."""
        if self.exp.idle != "freeze":
            return {}
        up[key].freezer.thaw()  # type: ignore[union-attr]
        t0 = time.monotonic()
        others = sorted(k for k in up if k != key)
        for k in others:
            up[k].freezer.freeze()  # type: ignore[union-attr]
        return {"idle": "freeze", "frozen_configs": others, "freeze_s": round(time.monotonic() - t0, 3)}

    def attempt(
        self,
        cell: Cell,
        attempt: int,
        held: _Up,
        stamp: dict,
        log: Log | None = None,
        start: tuple[StartLine, int] | None = None,
    ) -> tuple[list, dict]:
        """One attempt at a cell on its configuration `held`: its runs and the stamp of their
        records (nothing stored yet). `start`: a duet's barrier and this side's number; the
        Hadoop run begins when every side is there."""
        v, exp = cell.variant, self.exp
        log = log or self.log
        mon = Monitor(held.hosts, held.tb.name, exp.monitor_interval_s, log).start() if exp.monitor_interval_s else None
        # The local testbed's hosts share this machine: what it spent over each run is read here,
        # with its gVisor hosts' Sentries apart.
        machine = None
        if self.source.local:
            sandboxes = tuple(f"{testbed_cgroup(held.tb.name)}/{h.name}" for h in held.hosts if h.platform == "gvisor")
            machine = partial(
                machine_cpu.mark, sandboxes=sandboxes, sentries=machine_cpu.SentryReader(), syscalls=self.syscalls
            )
        if v.kind == "micro":
            # The iperf3 matrix's pairs come from the local testbed's network layout (none elsewhere).
            layout = physnet.layout(held.tb) if self.source.local else None
            cfg = following_java_home(v.config, str(held.hp.java_home))
            planned = Planned(v.benchmark, cfg, registry.find(v.benchmark)[1], v.hosts)
            runs = measure_micro(held.hosts, planned, self.log, layout=layout, machine=machine)
            kind_stamp = {"benchmark_kind": "micro", **kept()}
            if v.hosts is not None:  # only then: samples of designs without it stay as they were
                kind_stamp["hosts_measured"] = v.hosts
        else:
            assert held.cluster is not None
            run, run_stamp = measure_hadoop(
                held.cluster,
                cell,
                drop_caches=exp.drop_caches,
                hook=self.hook,
                log=log,
                timeout_s=exp.job_timeout_s,
                before_first_step=(lambda: _start_together(*start, mon)) if start is not None else None,
                machine=machine,
            )
            if start is not None:
                run_stamp["duet_release_skew_s"] = _rounded(start[0].skew_s())
            runs = [run]
            kind_stamp = {"benchmark_kind": "hadoop", **held.provenance, **run_stamp}
            kind_stamp["hdfs_output_removed"] = run.hdfs_output_removed  # the run's HDFS directory, after it
        kind_stamp.update(
            finish_monitor(mon, self.store.root, cell.cell_id if not attempt else f"{cell.cell_id}#{attempt}"),
            host_platforms={h.name: h.platform for h in held.hosts},
            **machine_stamp(h.facts for h in held.hosts),
            **slowdown_stamp(h.facts for h in held.hosts),
        )
        if v.kind == "hadoop" and runs[0].failure is not None:  # once its monitor has stopped
            self.keep_run_logs(runs[0], held.cluster, log)
        # A VM's accelerator (kvm, or tcg: software emulation) decides what its figures mean; only
        # cells with a VM carry the stamp, so other campaigns' records are as before.
        accelerators = {h.name: str(h.facts["accelerator"]) for h in held.hosts if h.facts.get("accelerator")}
        if accelerators:
            kind_stamp["host_accelerators"] = accelerators
        extra = {"attempt": attempt} if exp.retries else {}
        return runs, {**stamp, **kind_stamp, **extra}

    def lost(
        self, config: Configuration, exc: Exception, up: dict[str, _Up], s: Session, pos: int, handled: set[int]
    ) -> bool:
        """The configuration failed: its runs from `pos` on are recorded as failed (the design's
        cells as failure records, which a resume runs again), it is torn down now, and the session
        goes on with the others, unless the design says on_failure: stop. False: stop."""
        reason = failure_reason(exc)
        held = up.get(config.key)
        # Before teardown removes them: the logs the reason names, as the record names them.
        logs = self.keep_logs(
            held.cluster if held is not None else None, failed_logs.configuration_dir(s.block, config.key, time.time())
        )
        lost = [(p, c) for p, c in enumerate(s.runs) if p >= pos and p not in handled and c.config.key == config.key]
        cells = [c for _, c in lost if not c.warms_up]
        _record_unrun(cells, config, self.base, reason, self.store, self.exp.rounds, logs)
        self.result.failures += len(cells)
        self.result.ran += [c.cell_id for c in cells]
        handled.update(p for p, _ in lost)
        for _, c in lost:  # the run that was running when it broke, then the ones never started
            self.progress.cell_finished(c.cell_id, f"configuration failed: {reason}")
        self.log(
            f"configuration b{s.block}/{config.key} failed: {reason}; {len(cells)} cells recorded as failed"
            + (f"; the end of its daemons' logs is kept in {self.store.root / logs}" if logs else "")
        )
        held = up.pop(config.key, None)
        if held is not None:
            self.close(config, held.stack)
        if self.exp.on_failure == "stop":
            return self.stop(reason, say=True)
        return True

    def keep_logs(self, cluster: HadoopCluster | None, rel: str, log: Log | None = None) -> str | None:
        """The end of `cluster`'s daemon logs copied into the campaign directory at `rel` before
        teardown removes them (vbench.campaign.failed_logs); `rel` if anything was kept. Never
        raises an Exception: what fails here is said and the failure it documents goes on."""
        if cluster is None:
            return None
        return failed_logs.keep(cluster, self.store.root, rel, log or self.log)

    def keep_run_logs(self, run: BenchRun, cluster: HadoopCluster | None, log: Log) -> None:
        """A failed Hadoop run: the daemons' account of it kept before a teardown removes them
        (`failed-logs/<run id>/`), and its failure record says where."""
        at = self.keep_logs(cluster, failed_logs.run_dir(run.run_id), log)
        if at is not None and run.failure is not None:
            log(f"{run.benchmark}: the end of the daemons' logs is kept in {self.store.root / at}")
            run.failure = replace(run.failure, metadata={**run.failure.metadata, "failed_logs": at})

    def close(self, config: Configuration, mine: ExitStack) -> None:
        """Tear a configuration down (its cluster, then its hosts); a failure is said, and stops
        the campaign after this session when the design says on_failure: stop."""
        try:
            mine.close()
        except Exception as exc:
            reason = failure_reason(exc)
            self.log(f"configuration {config.key} failed on teardown: {reason}")
            self.teardown_failed = reason

    def stop(self, reason: str, say: bool = False) -> bool:
        if say:
            self.log("design says on_failure: stop; the campaign stops here (resume with `campaign run` again)")
        else:
            self.log(f"the campaign stops here: {reason}")
        self.result.stopped = reason
        return False


class PartnerLost(VbenchError):
    """A duet side whose partner failed before the barrier: it never ran (not done; runs again)."""


class _LockedStore:
    """The campaign's store as the sides of a duet append to it: one append at a time."""

    def __init__(self, store: CampaignStore, lock: threading.Lock):
        self._store, self._lock = store, lock

    def save_attempts(self, *args, **kwargs):
        with self._lock:
            return self._store.save_attempts(*args, **kwargs)


def _start_together(start: StartLine, side: int, mon: Monitor | None) -> None:
    """Wait at the duet's barrier; a partner that failed before it (or an interrupt that broke
    it) is PartnerLost: this side's run does not start (its monitor, if any, is stopped)."""
    try:
        start.wait(side)
    except threading.BrokenBarrierError:
        if mon is not None:
            mon.stop()
        raise PartnerLost("its duet partner failed before the job started") from None


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def duet_label(cell: Cell) -> str:
    """The duet group a cell runs in: block, round, the variant, and whether it is the warm-up."""
    return f"b{cell.block}/r{cell.round or 0}/{cell.variant.key}" + ("/warmup" if cell.warms_up else "")


def duet_group(runs: tuple[Cell, ...], pos: int, handled: set[int]) -> list[int]:
    """Positions of `runs` that run together with the Hadoop run at `pos`: the same block, round,
    variant and warm-up flag, not yet accounted for. Pure."""
    here = runs[pos]
    key = duet_label(here)
    return [
        p
        for p in range(pos, len(runs))
        if p not in handled and runs[p].variant.kind == "hadoop" and duet_label(runs[p]) == key
    ]


def run_campaign(
    exp: Experiment,
    testbed: TestbedParams,
    hadoop: HadoopParams,
    campaign_dir: Path,
    log: Log = print,
    progress: CampaignProgress | None = None,
    kinds: frozenset[str] = ALL_KINDS,
    hosts_source: HostsSource | None = None,
    append: bool = False,
    hook: RunHook | None = None,
    round_hooks: RoundHooks | None = None,
) -> CampaignResult:
    """Run (or resume) the campaign's cells of `kinds` ("micro" = calibration, "hadoop" = suite);
    `progress` hears of every run (cells and warm-up runs) as it starts and ends. `hosts_source`
    gives each configuration's hosts: the local testbed (default) or an SSH inventory. `append`:
    the user said to add to a committed campaign, or to adopt samples without a campaign.json.
    `hook`: what the design adds around each Hadoop run (vbench.campaign.hooks), from the command
    that runs it; `round_hooks` are called before and after every round (RoundHooks)."""
    t0 = time.monotonic()
    store = CampaignStore(campaign_dir, append=append)
    source = hosts_source or TestbedSource(log)
    check_hook(exp, hook)
    if exp.duet is not None and hook is not None:
        raise ParamsError(
            "experiment.duet",
            "a design's hook (a neighbour, a fault) runs around one job at a time; run it without duet",
        )
    if exp.precision is not None and round_hooks is None:
        raise ParamsError(
            "experiment.precision",
            "adaptive stopping needs the statistics after each round: run "
            "this design with `vbench campaign run` or `dvc repro`, which give the runner its rule",
        )
    params = configuration_params(exp, testbed, hadoop, source, kinds)  # refuse what cannot run, before anything starts
    store.check_appendable()
    source.check(exp.platforms)
    _check_design(store, exp, log)
    aside = store.cut_torn_tail()
    if aside is not None:
        log(
            f"campaign {campaign_dir.name}: an append that did not finish was cut off the ledger (kept in {aside}); "
            "its cell runs again"
        )
    cells = [c for c in expand(exp) if c.variant.kind in kinds]
    done = done_cells(store)
    todo = [c for c in cells if c.cell_id not in done]
    if not todo:
        _clear_leftovers(params, source, log)
    plan = sessions(exp, todo)
    result = CampaignResult(already_done=len(cells) - len(todo))
    progress = progress or NoProgress()
    warm = sum(c.warms_up for s in plan for c in s.runs)
    log(
        f"campaign {campaign_dir.name}: {len(cells)} cells, {result.already_done} already done, {len(todo)} to run"
        + (f" (and {warm} warm-up runs)" if warm else "")
    )
    base = {
        "campaign": campaign_dir.name,
        "experiment": exp.experiment,
        "design_hash": design_hash(exp),
        "vbench_commit": vbench_commit(),
        **machine_kernel_stamp(source.local),
    }
    dist = (
        fetch(hadoop.version, hadoop.examples_version, log=log)
        if any(c.variant.kind == "hadoop" for c in todo)
        else None
    )
    # The gate's verdicts go where the progress goes (the terminal of `dvc repro`), not only
    # to the notebook that runs the stage.
    round_log = progress.note if isinstance(progress, ProgressReport) else log
    hooks = AllHooks(gate_hook(exp, params, source, round_log, store.root), round_hooks or NoHooks())
    run = _Campaign(exp, params, source, store, log, progress, hooks, hook, result, base, dist, t0)
    progress.begin([c.cell_id for s in plan for c in s.runs])
    try:
        with interrupts_unwind():
            if exp.count_syscalls:
                run.syscalls = kernel_entries.SyscallCounter()
            run.run(plan)
    finally:  # the bar is closed and the tally printed on Ctrl-C too
        if run.syscalls is not None:
            run.syscalls.close()
        progress.end()
    if result.skipped:
        (store.root / "skipped.json").write_text(
            json.dumps({"reason": run.budget_note, "cells": result.skipped}, indent=1)
        )
        log(f"time budget reached: {len(result.skipped)} cells skipped (listed in {store.root / 'skipped.json'})")
    elif (store.root / "skipped.json").is_file():
        # An earlier part's list: every cell of the plan has run now, so it names none left to run.
        (store.root / "skipped.json").unlink()
        log(f"every cell of the plan has run: {store.root / 'skipped.json'} of an earlier part removed")
    result.seconds = time.monotonic() - t0
    return result


def _clear_leftovers(params: dict[str, tuple[TestbedParams, HadoopParams]], source: HostsSource, log: Log) -> None:
    """With nothing left to run no configuration is opened, and opening is where what a killed
    run left is cleared: a run killed in its last teardown would leave its testbeds up for good.
    So they are cleared here; one another process holds is said and left alone."""
    for tb, _hp in params.values():
        try:
            source.clear(tb)
        except VbenchError as exc:
            log(f"leftovers of testbed {tb.name} not cleared: {exc}")


def _block_over_budget(elapsed_s: float, budget_s: float, runs: int, blocks_run: list[tuple[float, int]]) -> bool:
    """Would a block of `runs` runs end past the budget? Estimated at the seconds per run of the
    blocks this `campaign run` finished (their bring-ups, gates and teardowns included); before
    the first one, only a budget already spent stops it."""
    seconds = sum(s for s, _n in blocks_run)
    done = sum(n for _s, n in blocks_run)
    estimate = seconds / done * runs if done else 0.0
    return elapsed_s + estimate > budget_s


def _stamp(base: dict, config: Configuration, cell: Cell, rounds: int) -> dict:
    return {
        **base,
        **config.stamp(),
        "block": cell.block,
        "round": cell.round or 0,
        "repetition": cell.repetition(rounds),
        "warmup": cell.warmup,
        "cell_id": cell.cell_id,
        **{f"factor.{k}": v for k, v in cell.variant.levels},
    }


def _record_unrun(
    cells: list[Cell],
    config: Configuration,
    base: dict,
    reason: str,
    store: CampaignStore,
    rounds: int,
    logs: str | None = None,
) -> None:
    """Cells that could not run (their configuration failed) become failure records, so the
    campaign says what happened to every cell; a resumed run runs them again. `logs`: where,
    relative to the campaign directory, the end of the configuration's daemon logs was kept."""
    where = {"failed_logs": logs} if logs else {}
    for cell in cells:
        f = Failure(cell.variant.benchmark, reason, {}, "", {"configuration_failed": True, **where})
        store.save_runs(
            [(f"unrun-{cell.cell_id.replace('/', '-')}", [f], {})],
            {**_stamp(base, config, cell, rounds), "benchmark_kind": cell.variant.kind},
            cell_done=False,
        )


def _interrupted(cell: Cell, exc: KeyboardInterrupt, stamp: dict | None) -> tuple[list, dict]:
    """An attempt that is the record of the cell's interruption: a failure saying which signal."""
    why = str(exc) or "received signal SIGINT"  # Ctrl-C's KeyboardInterrupt says nothing
    f = Failure(cell.variant.benchmark, f"interrupted ({why})", {}, "", {"interrupted": True})
    run_id = f"interrupted-{cell.cell_id.replace('/', '-')}-{time.strftime('%Y%m%dT%H%M%S')}"
    return [(run_id, [f], {})], {**(stamp or {}), "cell_id": cell.cell_id}


def _run_cell(
    cell: Cell,
    retries: int,
    attempt_once: Callable[[int], tuple[list, dict]],
    store: CampaignStore,
    log: Log,
    stamp: dict | None = None,
) -> tuple[int, str | None]:
    """Run one cell (`attempt_once(n)`: attempt n, 0 first, its runs and their records' stamp;
    again, up to `retries` times, while it fails) and store all its attempts' records in one
    append, closed as the cell's, when it ends: a cell cut short between attempts is not done and
    runs again whole. An interrupt (Ctrl-C, SIGTERM) is recorded, stamped with `stamp`, as the
    cell's failure "interrupted (...)", not done, and raised again. Returns the number of failed
    runs of the last attempt and the first one's reason (None when all passed)."""
    attempts: list[tuple[list, dict]] = []
    try:
        for attempt in range(retries + 1):
            runs, attempt_stamp = attempt_once(attempt)
            attempts.append(([records_of(r) for r in runs], attempt_stamp))
            failed = sum(not r.ok for r in runs)
            log(
                f"{cell.cell_id}: {'ok' if not failed else f'{failed} failed'}"
                + (f" (attempt {attempt + 1} of {retries + 1})" if retries else "")
            )
            if not failed:
                break
    except Exception:
        # The configuration broke during a retry: what the earlier attempts measured is kept,
        # but the cell is not done (the runner records it as failed; a resume runs it again).
        if attempts:
            store.save_attempts(attempts, cell.cell_id, cell_done=False)
        raise
    except KeyboardInterrupt as exc:  # and so vbench.lifecycle.Terminated
        with shielded():  # a second Ctrl-C waits for this one append
            try:
                store.save_attempts([*attempts, _interrupted(cell, exc, stamp)], cell.cell_id, cell_done=False)
            except Exception as err:  # the interrupt goes on whatever happens here
                log(f"{cell.cell_id}: the interruption could not be recorded: {err}")
        log(f"{cell.cell_id}: interrupted; not done, it runs again on resume")
        raise
    store.save_attempts(attempts, cell.cell_id)
    reason = next((r.failure.reason for r in runs if not r.ok), None)
    return failed, reason

"""Issue #10 for real, without real hardware: the local testbed's hosts (network namespaces with
their own sshd) are driven from an SSH inventory as if they were remote machines, reached
through the testbed's controller namespace with a ProxyCommand. No testbed provisioner is used
on the inventory path: only addresses, a key file, a known_hosts file and SSH."""

from __future__ import annotations

import ipaddress
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from vbench.campaign.design import Experiment, expand
from vbench.campaign.hosts_source import TestbedSource
from vbench.campaign.runner import run_campaign
from vbench.cli import main
from vbench.hadoop import yarn_apps
from vbench.host import connect, known_hosts_line
from vbench.inventory.model import inventory, load_inventory
from vbench.inventory.preflight import preflight
from vbench.inventory.source import InventorySource
from vbench.samples import Failure, Sample, read_records
from vbench.testbed import Testbed, netcmd
from vbench.testbed.sshd import sshd_config

from .conftest import _RUN, IT_SUBNET, REPO, it_hadoop, it_testbed_params, leftovers

pytestmark = pytest.mark.integration


def inventory_of(bed: Testbed, work_root: Path, **host_changes) -> dict:
    """An inventory file's content pointing at a running testbed's hosts (what a user would write)."""
    hosts = []
    for h in bed.hosts:
        hosts.append(
            {
                "name": h.name,
                "address": h.address,
                "key_file": str(bed.paths.client_key),
                "role": h.role,
                "platform": h.platform,
                "physical_host": "this-machine",
                **host_changes.get(h.name, {}),
            }
        )
    return {
        "known_hosts": str(bed.paths.known_hosts),
        "work_root": str(work_root),
        "hosts": hosts,
        "proxy_command": f"ip netns exec {bed.controller_netns} nc %h %p",
    }


@pytest.fixture(scope="module")
def bed(tmp_path_factory):
    """One testbed of hosts only (1 master + 2 workers, no Hadoop) for every test of the module:
    each reaches its hosts through an inventory, and whatever Hadoop a test runs lives in the
    test's own work directory (tmp_path/inv-work) and is torn down by its campaign. Brought up
    once, torn down after the module's last test, and the machine checked clean then. Its own name,
    bridge and subnet (the test subnet's next one), so that the provisioned run of
    test_campaign_from_an_inventory_gives_the_samples_of_the_provisioned_run brings up the usual
    test testbed beside it."""
    net = ipaddress.ip_network(IT_SUBNET)
    params = it_testbed_params(
        tmp_path_factory.mktemp("inventory-bed") / "tb",
        name=f"i{_RUN:04d}",
        network={
            "bridge": f"i{_RUN:04d}br",
            "subnet": str(ipaddress.ip_network((int(net.network_address) + net.num_addresses, net.prefixlen))),
        },
    )
    with Testbed(params, log=lambda _m: None) as b:  # `with` brings it up
        yield b
    assert leftovers(params) == []


def _write(path: Path, inv: dict) -> Path:
    import yaml

    path.write_text(yaml.safe_dump({"inventory": inv}))
    return path


def test_preflight_passes_then_refuses_each_fault_clearly_and_touches_nothing(bed, tmp_path):
    work = tmp_path / "inv-work"
    good = inventory_of(bed, work)
    assert preflight(inventory(good)) == []

    # A host key that changed: the master's line in known_hosts now holds another key.
    other = tmp_path / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    lines = bed.paths.known_hosts.read_text().splitlines()
    kh_changed = tmp_path / "kh_changed"
    kh_changed.write_text(
        "\n".join([known_hosts_line(lines[0].split()[0].split(","), other.with_suffix(".pub").read_text()), *lines[1:]])
        + "\n"
    )
    kh_unknown = tmp_path / "kh_unknown"
    kh_unknown.write_text("\n".join(lines[1:]) + "\n")
    master = bed.hosts[0]
    assert master.role == "master"
    cases = {
        "changed_key": ({**good, "known_hosts": str(kh_changed)}, [f"{master.address}:22 CHANGED", f"{kh_changed}:1"]),
        "unknown_key": (
            {**good, "known_hosts": str(kh_unknown)},
            [f"ip netns exec {bed.controller_netns} ssh-keyscan -p 22 {master.address} >> {kh_unknown}"],
        ),
        "key_file": (
            inventory_of(bed, work, master={"key_file": str(tmp_path / "no-such-key")}),
            ["inventory.hosts[0].key_file", "does not exist"],
        ),
        "unreachable": (
            inventory_of(bed, work, master={"address": str(bed.params.network.subnet[250])}),
            [f"root@{bed.params.network.subnet[250]}:22 unreachable", "no SSH answer within"],
        ),
    }
    for kind, (inv, words) in cases.items():
        t0 = time.monotonic()
        problems = preflight(inventory(inv), timeout_s=8)
        assert [p.kind for p in problems] == [kind], problems
        assert all(w in problems[0].message for w in words), problems[0].message
        assert time.monotonic() - t0 < 30
        # The command line refuses the same way, before preparing anything: no work dir appears.
        path = _write(tmp_path / f"{kind}.yaml", inv)
        assert main(["inventory", "prepare", "--no-hadoop", "--inventory", str(path), "--timeout", "8"]) == 2
        assert not work.exists()


def test_prepare_is_idempotent_and_pushes_hadoop_once(bed, tmp_path, capsys):
    """Namespace hosts share this machine's packages, all installed here: prepare must find
    nothing to install (so it does not touch the machine), push the jars once, then do nothing."""
    work = tmp_path / "inv-work"
    path = _write(tmp_path / "inventory.yaml", inventory_of(bed, work))
    args = ["inventory", "prepare", "--inventory", str(path), "--params-dir", str(REPO / "params")]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert first.count("installed nothing (all present); Hadoop jars pushed") == len(bed.hosts), first
    for h in bed.hosts:
        assert list((work / h.name).glob("hadoop-*/COMPLETE"))
    assert main(args) == 0
    second = capsys.readouterr().out
    assert second.count("installed nothing (all present); Hadoop jars already there") == len(bed.hosts), second


def test_a_user_without_sudo_is_refused(bed, tmp_path):
    """A real non-root account on a testbed host: a second sshd in the master's namespace sees a
    passwd/shadow with one more user (bind-mounted in a private mount namespace, so the machine's
    own files are untouched). sudo is not usable for it (here: not even installed)."""
    master = bed.hosts[0]
    hdir = bed.paths.host_dir(master.name)
    passwd, shadow = tmp_path / "passwd", tmp_path / "shadow"
    passwd.write_text(Path("/etc/passwd").read_text() + f"vbnosudo:x:4242:4242:vbench test:{tmp_path}:/bin/bash\n")
    shadow.write_text(Path("/etc/shadow").read_text() + "vbnosudo:*:19000:0:99999:7:::\n")
    shadow.chmod(0o600)
    # sshd reads a user's authorized keys as that user: pytest's tmp dirs (0700) are closed to it.
    open_dir = Path(tempfile.mkdtemp(prefix="vbench-nosudo-"))
    open_dir.chmod(0o755)
    auth = open_dir / "authorized_keys"
    shutil.copy(bed.paths.authorized_keys, auth)
    auth.chmod(0o644)
    cfg = tmp_path / "sshd_config"
    cfg.write_text(
        sshd_config(
            master.address, str(hdir / "ssh_host_ed25519_key"), str(auth), str(tmp_path / "sshd.pid"), port=2222
        )
    )
    log = tmp_path / "sshd.log"
    ns = netcmd.netns_name(bed.params.name, master.name)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                ns,
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "sh",
                "-c",
                f"mount --bind {passwd} /etc/passwd && mount --bind {shadow} /etc/shadow && "
                f"exec /usr/sbin/sshd -D -e -f {cfg}",
            ],
            stdout=out,
            stderr=out,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + 30
        while "Server listening" not in log.read_text(errors="replace"):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        kh = tmp_path / "known_hosts"
        pub = (hdir / "ssh_host_ed25519_key.pub").read_text()
        kh.write_text(bed.paths.known_hosts.read_text() + known_hosts_line([master.address], pub, port=2222) + "\n")
        work = tmp_path / "inv-work"
        inv = {
            **inventory_of(bed, work, master={"user": "vbnosudo", "sudo": True, "port": 2222}),
            "known_hosts": str(kh),
        }
        problems = preflight(inventory(inv), timeout_s=8)
        assert [p.kind for p in problems] == ["sudo"], (problems, log.read_text()[-1500:])
        assert "user vbnosudo" in problems[0].message and "sudo -n true" in problems[0].message
        # The same account without sudo: true logs in fine (so it was the sudo check that refused).
        inv_plain = {**inventory_of(bed, work, master={"user": "vbnosudo", "port": 2222}), "known_hosts": str(kh)}
        assert preflight(inventory(inv_plain), timeout_s=8) == []
        assert not work.exists()
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(open_dir, ignore_errors=True)


def test_an_unreachable_configuration_is_recorded_and_the_campaign_goes_on_or_stops(bed, tmp_path):
    """Two clusters in one inventory: label `kvm` on an address where no host answers, `native`
    on the testbed's hosts. Micro-benchmarks only, so no Hadoop is needed to show the runner's part."""
    good = inventory_of(bed, tmp_path / "inv-work")
    dead = str(bed.params.network.subnet[250])
    ghost = {
        "name": "ghost",
        "address": dead,
        "key_file": str(bed.paths.client_key),
        "role": "master",
        "platform": "kvm",
    }
    inv = inventory({**good, "hosts": [ghost, *good["hosts"]]})
    spec = {
        "name": "faults",
        "platforms": ["kvm", "native"],
        "repetitions": 1,
        "workers": 2,
        "seed": 1,
        "calibrate": [{"benchmark": "cpu", "config": {"time_s": 1}}],
    }
    seed = next(
        s
        for s in range(50)
        if [
            c.platform
            for c in expand(Experiment.model_validate({**spec, "seed": s}, context={"platform_labels": ("kvm",)}))
        ]
        == ["kvm", "native"]
    )
    exp = Experiment.model_validate({**spec, "seed": seed}, context={"platform_labels": ("kvm",)})
    hp = it_hadoop()

    go_on = tmp_path / "data" / "go-on"
    r = run_campaign(exp, bed.params, hp, go_on, log=print, hosts_source=InventorySource(inv, log=print, timeout_s=5))
    recs = {x.metadata["cell_id"]: x for x in read_records(go_on / "samples.jsonl")}
    fail = recs["b0/kvm/cpu"]
    assert (
        isinstance(fail, Failure)
        and f"root@{dead}:22 unreachable" in fail.reason
        and fail.metadata["configuration_failed"]
    )
    assert isinstance(recs["b0/native/cpu"], Sample) and recs["b0/native/cpu"].metadata["platform"] == "native"
    assert r.failures == 1 and r.stopped is None

    stop = tmp_path / "data" / "stop"
    exp_stop = exp.model_copy(update={"on_failure": "stop"})
    r = run_campaign(
        exp_stop, bed.params, hp, stop, log=print, hosts_source=InventorySource(inv, log=print, timeout_s=5)
    )
    cells = [x.metadata["cell_id"] for x in read_records(stop / "samples.jsonl")]
    assert cells == ["b0/kvm/cpu"] and "unreachable" in r.stopped
    # Resuming runs what never ran (the failed configuration included), and loses nothing.
    r = run_campaign(
        exp_stop, bed.params, hp, stop, log=print, hosts_source=InventorySource(inv, log=print, timeout_s=5)
    )
    cells = [x.metadata["cell_id"] for x in read_records(stop / "samples.jsonl")]
    assert cells == ["b0/kvm/cpu", "b0/kvm/cpu"] and "unreachable" in r.stopped  # still down: stops again
    assert not (tmp_path / "inv-work").exists() or all(
        p.name in ("master", "worker1", "worker2") for p in (tmp_path / "inv-work").iterdir()
    )


def _shape(campaign: Path) -> dict:
    """What must agree between two runs of one design: per cell, the kinds of records, benchmarks,
    metrics with units, platform labels and sample counts (not the measured values)."""
    shape: dict = {}
    for r in read_records(campaign / "samples.jsonl"):
        cell = r.metadata["cell_id"]
        if isinstance(r, Failure):
            shape.setdefault(cell, []).append(("failure", r.benchmark, r.reason))
        else:
            shape.setdefault(cell, []).append(
                ("sample", r.benchmark, r.metric, r.unit, r.metadata["platform"], r.metadata.get("host_platform", ""))
            )
    return {k: sorted(v) for k, v in shape.items()}


def test_campaign_from_an_inventory_gives_the_samples_of_the_provisioned_run(bed, it_testbed, tmp_path):
    exp = Experiment.model_validate(
        {
            "name": "inv",
            "platforms": ["native"],
            "repetitions": 1,
            "workers": 2,
            "calibrate": [{"benchmark": "cpu", "config": {"time_s": 1}}],
            "suite": [{"benchmark": "pi", "config": {"maps": 2, "samples": 1000}}],
        }
    )
    hp = it_hadoop()
    provisioned = tmp_path / "data" / "provisioned"
    # The machine is shared with other clusters: give Hadoop the same time to come up on both paths.
    r1 = run_campaign(
        exp, it_testbed, hp, provisioned, log=print, hosts_source=TestbedSource(print, ready_timeout_s=600)
    )
    assert r1.failures == 0
    assert leftovers(it_testbed) == []
    # The same design on the same kind of hosts (the module's testbed: 1 master + 2 native
    # workers), found through an inventory file instead.
    inv = load_inventory(_write(tmp_path / "inventory.yaml", inventory_of(bed, tmp_path / "inv-work")))
    from_inventory = tmp_path / "data" / "inventory"
    inv = inv.model_copy(update={"ready_timeout_s": 600.0})
    r2 = run_campaign(
        exp,
        bed.params,
        hp,
        from_inventory,
        log=print,
        hosts_source=InventorySource(inv, facts_dir=from_inventory / "inventory", log=print),
    )
    assert r2.failures == 0
    assert _shape(from_inventory) == _shape(provisioned)
    assert set(_shape(provisioned)) == {c.cell_id for c in expand(exp)}
    # Hadoop's jars were pushed (inventory hosts are remote), and each host's checks were recorded.
    assert (tmp_path / "inv-work" / "master" / f"hadoop-{hp.version}" / "COMPLETE").exists() or any(
        (tmp_path / "inv-work" / "master").glob("hadoop-*/COMPLETE")
    )
    for h in ("master", "worker1", "worker2"):
        assert (from_inventory / "inventory" / "native" / "hosts" / h / "facts.json").exists()
    # The quiet gate read every inventory host over SSH before the round, and its samples say so.
    gated = [r.metadata for r in read_records(from_inventory / "samples.jsonl") if isinstance(r, Sample)]
    assert gated and all(m["quiet.hosts"] == 3 and m["quiet.verdict"] in ("ok", "flagged") for m in gated)
    assert all(m["quiet.host"] in ("master", "worker1", "worker2") and m["quiet.mem_available_mb"] > 0 for m in gated)


# 110-148 s of CI, which kept the suite over 30 min: the fault-injection soak (selfbench/soak.py,
# `daemon-kill`) SIGKILLs a daemon drawn among all of a real campaign's, DataNodes included, at a
# random moment and checks this test's invariants and more (docs/testing.md).
@pytest.mark.slow
def test_a_datanode_killed_during_terasort_is_recorded_and_the_campaign_goes_on(bed, tmp_path):
    """On the module's testbed: 1 master + 2 workers, replication 2, so every block TeraSort reads
    has a replica on the DataNode that is killed and one on the DataNode that lives."""
    suite = [
        {"benchmark": "terasort", "config": {"size_mb": 32}},
        {"benchmark": "pi", "config": {"maps": 2, "samples": 1000}},
    ]
    # A seed whose run order puts TeraSort first, so "the next cell" comes after the kill.
    exp = _native_design("dnkill", 2, suite, lambda first: first.variant.benchmark == "terasort", replication=2)
    hp = it_hadoop()
    killed: list[str] = []
    inv = _inventory_of_testbed(bed, tmp_path)
    pid_file = f"{tmp_path / 'inv-work' / 'worker2'}/run/datanode.pid"

    def kill_datanode() -> None:
        # Once the sort's YARN application runs (its maps read HDFS), kill -9 the DataNode's JVM
        # by the pid vbench recorded for it.
        with connect(_host(inv, "master")) as m:
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                r = m.run(
                    f"curl -sf --max-time 5 '{yarn_apps.active_apps_url('master')}'",
                    hide=True,
                    warn=True,
                    in_stream=False,
                )
                if '"state":"RUNNING"' in r.stdout:
                    break
                time.sleep(1)
        time.sleep(5)
        with connect(_host(inv, "worker2")) as c:
            r = c.run(f"p=$(cat {pid_file}) && kill -9 $p && echo $p", hide=True, warn=True, in_stream=False)
        killed.append(r.stdout.strip())

    def log(msg: str) -> None:
        print(msg)
        if msg.startswith("terasort: terasort ") and not killed:
            threading.Thread(target=kill_datanode, daemon=True).start()

    campaign = tmp_path / "data" / "dnkill"
    result = run_campaign(exp, bed.params, hp, campaign, log=log, hosts_source=InventorySource(inv, log=print))
    assert killed and killed[0].isdigit(), "the DataNode was not killed"
    records = list(read_records(campaign / "samples.jsonl"))
    by_cell: dict = {}
    for r in records:
        by_cell.setdefault(r.metadata["cell_id"], []).append(r)
    tera = by_cell["b0/native/terasort"]
    if any(isinstance(r, Failure) for r in tera):
        assert all(r.reason for r in tera if isinstance(r, Failure))
    else:  # completed: TeraValidate gates samples, so samples mean a valid sorted output
        assert any(isinstance(r, Sample) and r.metric for r in tera)
    print("terasort after the kill:", "failed: " + tera[0].reason if isinstance(tera[0], Failure) else "completed")
    assert "b0/native/pi" in by_cell, "the campaign did not go on to the next cell"
    assert result.ran == [c.cell_id for c in expand(exp)]


@pytest.mark.slow  # waits out a 180 s job timeout on a cluster of its own (docs/testing.md)
def test_a_job_over_its_timeout_is_killed_in_yarn_and_recorded(it_platform_testbed, tmp_path):
    tb = it_platform_testbed("native", workers=1)
    # A Pi with far more samples than the timeout allows; the next cell (a short Pi) must run.
    suite = [{"benchmark": "pi", "config": {"maps": 1, "samples": [200000000000, 1000]}}]
    exp = _native_design(
        "timeout", 1, suite, lambda first: first.variant.config.samples > 1000, replication=1, job_timeout_s=180
    )
    hp = it_hadoop()
    with Testbed(tb, log=print) as bed:
        inv = _inventory_of_testbed(bed, tmp_path)
        campaign = tmp_path / "data" / "timeout"
        result = run_campaign(exp, tb, hp, campaign, log=print, hosts_source=InventorySource(inv, log=print))
    recs = list(read_records(campaign / "samples.jsonl"))
    long_cell, short_cell = [c.cell_id for c in expand(exp)]
    failed = [r for r in recs if r.metadata["cell_id"] == long_cell]
    assert len(failed) == 1 and isinstance(failed[0], Failure), failed
    assert "exceeded its timeout of 180 s" in failed[0].reason and "killed: application_" in failed[0].reason, failed[
        0
    ].reason
    # The campaign went on: the next cell ran (on an idle machine a short Pi finishes well inside
    # the limit; on a machine as loaded as this one it may exceed it too, and is recorded so).
    short = [r for r in recs if r.metadata["cell_id"] == short_cell]
    assert short and (isinstance(short[0], Sample) or "exceeded its timeout" in short[0].reason), short
    assert result.ran == [long_cell, short_cell]
    assert leftovers(tb) == []


def _native_design(name: str, workers: int, suite: list, first_cell, replication: int, **fields) -> Experiment:
    """One repetition of `suite` on `workers` native workers, with the first seed (below 100) whose
    first cell passes `first_cell`."""
    spec = {
        "name": name,
        "platforms": ["native"],
        "repetitions": 1,
        "workers": workers,
        **fields,
        "hadoop": {"replication": replication},
        "suite": suite,
    }
    seed = next(s for s in range(100) if first_cell(expand(Experiment.model_validate({**spec, "seed": s}))[0]))
    return Experiment.model_validate({**spec, "seed": seed})


def _inventory_of_testbed(bed, tmp_path: Path):
    """An inventory file of the running testbed's hosts (work under tmp_path/inv-work), loaded."""
    return load_inventory(
        _write(tmp_path / "inventory.yaml", {**inventory_of(bed, tmp_path / "inv-work"), "ready_timeout_s": 600})
    )


def _host(inv, name):
    from vbench.inventory.model import to_host

    return to_host(inv, next(h for h in inv.hosts if h.name == name))

"""Planted slowdowns (testbed.slowdown, issue #51 item 2): params, design factors, the pure
cgroup/tc builders and the read-back, without hosts. The root test that plants one on this
machine is tests/integration/test_slowdown.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.unit.builders import planted_campaign_dir
from vbench.campaign.design import BenchmarkSpec, Experiment
from vbench.campaign.runner import params_for
from vbench.campaign.study import _check_configuration
from vbench.errors import ParamsError, VbenchError
from vbench.params import HadoopParams, SlowdownParams
from vbench.params import testbed_params as make_testbed
from vbench.provenance import slowdown_stamp
from vbench.testbed import physnet
from vbench.testbed import slowdown as S
from vbench.testbed.limits import BlockDevice
from vbench.testbed.provisioner import TestbedContext, TestbedPaths

DISK = BlockDevice(254, 0, "vda")


def refused(data) -> ParamsError:
    with pytest.raises(ParamsError) as info:
        make_testbed(data)
    return info.value


# -- params ---------------------------------------------------------------------------------------


def test_the_default_plants_nothing():
    sd = make_testbed({}).slowdown
    assert not sd.active and sd.describe() == "" and sd.planted() == {}


def test_describe_names_only_what_is_planted_with_sizes_in_bytes():
    sd = make_testbed({"slowdown": {"cpu_fraction": 0.9, "delay_ms": 2, "disk_write_bps": "10MB"}}).slowdown
    assert sd.cpu and sd.network and sd.disk
    assert sd.describe() == "cpu_fraction=0.9,delay_ms=2,disk_write_bps=10485760"


@pytest.mark.parametrize(
    "field, value",
    [
        ("cpu_fraction", 0),
        ("cpu_fraction", 0.05),
        ("cpu_fraction", 1.5),
        ("cpu_fraction", "fast"),
        ("delay_ms", -1),
        ("delay_ms", 5000),
        ("rate_mbit", 0),
        ("disk_read_bps", 0),
        ("disk_write_bps", "lots"),
    ],
)
def test_nonsense_is_refused_naming_the_field(field, value):
    assert refused({"slowdown": {field: value}}).field == f"testbed.slowdown.{field}"


def test_an_unknown_field_is_refused_with_the_known_ones():
    err = refused({"slowdown": {"cpu_fractoin": 0.9}})
    assert err.field == "testbed.slowdown.cpu_fractoin" and "cpu_fraction" in str(err)


@pytest.mark.parametrize("platform", ["gvisor", "qemu"])
def test_platforms_it_cannot_hold_are_refused_naming_the_field(platform):
    err = refused({"platform": platform, "slowdown": {"cpu_fraction": 0.5}})
    assert err.field == "testbed.slowdown"
    assert f"not on {platform} hosts" in str(err) and "native, lxc, oci" in str(err)


def test_a_mixed_testbed_with_a_vm_is_refused_too():
    hosts = [{"name": "m", "role": "master"}, {"name": "w", "role": "worker", "platform": "qemu"}]
    assert refused({"hosts": hosts, "slowdown": {"delay_ms": 1}}).field == "testbed.slowdown"


@pytest.mark.parametrize("platform", ["native", "lxc", "oci"])
def test_native_lxc_and_oci_take_it(platform):
    assert make_testbed({"platform": platform, "slowdown": {"cpu_fraction": 0.5}}).slowdown.cpu


def test_nothing_planted_is_no_reason_to_refuse_a_platform():
    assert make_testbed({"platform": "qemu", "slowdown": {"cpu_fraction": 1.0}}).platform == "qemu"


# -- a factor of a design ---------------------------------------------------------------------------


def exp(**kw) -> Experiment:
    base = dict(
        name="planted",
        platforms=("native",),
        repetitions=2,
        suite=(BenchmarkSpec(benchmark="terasort"),),
        factors={"testbed.slowdown.cpu_fraction": [1.0, 0.9]},
        compare=("slowdown.cpu_fraction",),
    )
    return Experiment(**{**base, **kw})


def test_each_level_is_a_configuration_with_its_own_testbed():
    e = exp()
    configs = e.configurations()
    assert [c.key for c in configs] == ["native[slowdown.cpu_fraction=1.0]", "native[slowdown.cpu_fraction=0.9]"]
    fractions = [params_for(e, c, make_testbed({}), HadoopParams())[0].slowdown.cpu_fraction for c in configs]
    assert fractions == [1.0, 0.9]
    assert configs[1].stamp()["factor.slowdown.cpu_fraction"] == 0.9


def test_a_level_out_of_bounds_is_refused_naming_the_factor():
    with pytest.raises(ValueError, match=r"testbed.slowdown.cpu_fraction.*level 1 \(0\).*at least 0.1"):
        exp(factors={"testbed.slowdown.cpu_fraction": [1.0, 0]})


def test_a_design_planting_on_a_platform_that_cannot_hold_it_is_refused_before_anything_starts():
    e = exp(platforms=("native", "gvisor"), compare=("platform", "slowdown.cpu_fraction"))
    config = e.configurations()[-1]
    with pytest.raises(ParamsError) as info:
        _check_configuration(e, config, make_testbed({}), HadoopParams(), True, Path("x.yaml"))
    assert info.value.field == "x.yaml: configuration gvisor[slowdown.cpu_fraction=0.9]: testbed.slowdown"


# -- the cgroup builders ------------------------------------------------------------------------------


def test_the_quota_is_the_fraction_of_the_machine():
    assert S.cpu_quota_us(0.9, 2) == 180_000
    assert S.cpu_quota_us(0.5, 4, period_us=50_000) == 100_000
    assert S.cpu_quota_us(0.1, 1, period_us=1000) == S.MIN_QUOTA_US  # the kernel's floor


@pytest.mark.parametrize("fraction, cpus", [(0, 2), (1.1, 2), (0.5, 0)])
def test_a_quota_out_of_reach_is_an_error(fraction, cpus):
    with pytest.raises(VbenchError):
        S.cpu_quota_us(fraction, cpus)


def test_the_parent_holds_the_quota_and_each_host_the_disk_throttles_in_writing_order():
    sd = SlowdownParams(cpu_fraction=0.75, disk_read_bps="50MB", disk_write_bps="10MB")
    settings = S.cgroup_settings(sd, 2, DISK)
    assert list(settings.items()) == [("cpu.cfs_period_us", "100000"), ("cpu.cfs_quota_us", "150000")]
    own = S.host_settings(sd, DISK)
    # Not the parent's: cgroup v1's blk-throttle does not hold a child's I/O to its parent's limit.
    assert list(own.items()) == [
        ("blkio.throttle.read_bps_device", "254:0 52428800"),
        ("blkio.throttle.write_bps_device", "254:0 10485760"),
    ]
    assert S.controllers(settings) == ["cpu"] and S.controllers(own) == ["blkio"]


def test_a_network_slowdown_alone_makes_no_cgroup():
    assert S.cgroup_settings(SlowdownParams(delay_ms=1), 2, None) == {}


def test_a_disk_throttle_needs_a_device():
    with pytest.raises(VbenchError, match="disk_read_bps"):
        S.host_settings(SlowdownParams(disk_read_bps=1), None)


def test_a_container_takes_the_planted_disk_rate_as_its_own_limit_the_stricter_one_winning():
    hosts = make_testbed(
        {
            "platform": "lxc",
            "hosts": [
                {"name": "m", "role": "master"},
                {"name": "w", "role": "worker", "limits": {"disk_write_bps": "10MB", "disk_read_bps": "500MB"}},
            ],
            "slowdown": {"disk_write_bps": "100MB", "disk_read_bps": "200MB"},
        }
    ).resolved_hosts()
    assert (hosts[0].limits.disk_write_bps, hosts[0].limits.disk_read_bps) == (100 * 2**20, 200 * 2**20)
    assert (hosts[1].limits.disk_write_bps, hosts[1].limits.disk_read_bps) == (10 * 2**20, 200 * 2**20)
    native = make_testbed({"slowdown": {"disk_write_bps": "100MB"}}).resolved_hosts()
    assert all(h.limits is None for h in native)  # a native host's own cgroup holds it (host_procs)


def test_names_derive_from_the_testbed():
    assert S.parent_cgroup("vb1") == "vbench-vb1"
    assert S.host_cgroup("vb1", "worker2") == "vbench-vb1/worker2"


def test_the_cgroup_wrapper_moves_the_process_before_its_command_runs(tmp_path):
    # Plain files stand in for cgroup.procs: the pid the shell writes is the command's own.
    odd = tmp_path / "a dir; $(touch pwned)"
    odd.mkdir()
    procs = [tmp_path / "cpu.procs", odd / "cgroup.procs"]
    argv = S.in_cgroups_argv(procs, ["sh", "-c", 'echo "$$ $1"', "x", "it's data"])
    out = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=tmp_path).stdout.split(" ", 1)
    assert [p.read_text().strip() for p in procs] == [out[0]] * 2
    assert out[1].strip() == "it's data" and not (tmp_path / "pwned").exists()


def test_the_cgroup_wrapper_stops_when_a_move_fails(tmp_path):
    argv = S.in_cgroups_argv([tmp_path / "missing" / "cgroup.procs"], ["touch", str(tmp_path / "ran")])
    assert subprocess.run(argv, capture_output=True).returncode == 125
    assert not (tmp_path / "ran").exists()


def test_membership_is_read_per_planted_hierarchy():
    proc = "12:cpu:/vbench-vb/master\n11:cpuacct:/\n7:blkio:/\n1:name=systemd:/\n0::/\n"
    assert S.membership_problems(proc, "vbench-vb", ["cpu"]) == []
    assert S.membership_problems(proc, "vbench-vb", ["blkio", "cpu"]) == [
        "its blkio cgroup is /, not inside /vbench-vb"
    ]
    assert S.membership_problems("3:cpu:/vbench-vb1/x\n", "vbench-vb", ["cpu"])  # a prefix is not a parent
    assert S.inside("/vbench-vb", "vbench-vb") and S.inside("/vbench-vb/w/lxc.payload", "vbench-vb")


# -- the network builders ------------------------------------------------------------------------------


def test_each_host_is_shaped_on_the_bridge_side_of_its_veth():
    p = make_testbed({"name": "vb", "slowdown": {"delay_ms": 1}})
    spec = p.resolved_hosts()[1]
    assert S.host_links(p, spec, 2, None) == [("vbh2", None)]


def test_behind_an_emulated_physical_host_the_veth_is_in_its_namespace_and_both_nics_are_shaped():
    p = make_testbed({"name": "vb", "workers": 2, "vms_per_host": 2, "network": {"mode": "bridge+nat"}})
    lay = physnet.layout(p)
    spec = p.resolved_hosts()[1]
    assert S.host_links(p, spec, 2, lay) == [("vbh2", "vb-phy-p1"), ("vbn2", "vb-phy-p1")]


def test_shaping_reuses_the_link_shaping_builders():
    sd = SlowdownParams(delay_ms=2, rate_mbit=100)
    assert S.shape_commands(sd, "vbh1", None) == physnet.shape("vbh1", 100, 2)
    assert S.shape_commands(sd, "vbh1", "ns")[0][:4] == ["ip", "netns", "exec", "ns"]
    assert S.shape_commands(SlowdownParams(cpu_fraction=0.5), "vbh1", None) == []
    assert S.unshape_command("vbh1", None) == ["tc", "qdisc", "del", "dev", "vbh1", "root"]
    assert S.show_command("uplink", "ns") == ["ip", "netns", "exec", "ns", "tc", "qdisc", "show", "dev", "uplink"]


TC_SHOWN = (
    "qdisc netem 1: root refcnt 2 limit 1000 delay 500us\nqdisc tbf 2: parent 1: rate 1500Kbit burst 64Kb lat 100ms\n"
)


def test_what_tc_shows_is_parsed_in_its_units():
    assert S.parse_qdiscs(TC_SHOWN) == pytest.approx({"delay_ms": 0.5, "rate_mbit": 1.5})
    assert S.parse_qdiscs("qdisc netem 1: root refcnt 2 limit 1000 delay 2s\n") == {"delay_ms": 2000.0}
    assert S.parse_qdiscs("qdisc noqueue 0: root refcnt 2\n") == {}


def test_qdisc_read_back_says_what_is_missing_or_wrong():
    assert S.qdisc_problems(SlowdownParams(delay_ms=0.5, rate_mbit=1.5), "d", TC_SHOWN) == []
    bad = S.qdisc_problems(SlowdownParams(delay_ms=1, rate_mbit=1.5), "d", TC_SHOWN)
    assert bad == ["d: delay_ms is 0.5, wanted 1"]
    assert S.qdisc_problems(SlowdownParams(delay_ms=1), "d", "")[0].startswith("d: no delay")


def test_what_was_applied_in_words():
    sd = SlowdownParams(cpu_fraction=0.9, delay_ms=1)
    text = S.applied_text({"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "180000"}, sd, 2)
    assert text == "cpu.cfs_period_us=100000;cpu.cfs_quota_us=180000;machine_cpus=2;netem_delay_ms=1"


# -- bring-up and teardown against stand-in hierarchies --------------------------------------------------


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A Slowdown whose cgroup hierarchies are directories of tmp_path, its state a dict."""
    mounts = {c: tmp_path / "cg" / c for c in ("cpu", "blkio")}
    for d in mounts.values():
        d.mkdir(parents=True)
    monkeypatch.setattr(S, "cgroup_mounts", lambda: dict(mounts))
    monkeypatch.setattr(S, "machine_cpus", lambda: 2)
    monkeypatch.setattr(S, "block_device_of", lambda _p: DISK)
    ran: list[list[str]] = []
    monkeypatch.setattr(
        S.sysops, "run", lambda cmd, check=True: ran.append(cmd) or subprocess.CompletedProcess(cmd, 0, "", "")
    )

    def make(**sd):
        state: dict = {}
        params = make_testbed({"name": "vb", "work_root": str(tmp_path / "wr"), "slowdown": sd})
        ctx = TestbedContext(
            params,
            TestbedPaths(tmp_path / "wr" / "vb"),
            lambda k, v: state.setdefault(k, []).append(v),
            lambda _m: None,
        )
        return S.Slowdown(ctx), state, mounts, ran

    return make


def test_the_parent_is_recorded_then_made_with_its_settings(planted):
    sd, state, mounts, _ = planted(cpu_fraction=0.5, disk_read_bps=1000)
    sd.preflight()
    sd.create_parent()
    assert state["cgroups"] == ["vbench-vb"]
    assert (mounts["cpu"] / "vbench-vb" / "cpu.cfs_quota_us").read_text() == "100000"
    # Made in the blkio hierarchy too, for the hosts' cgroups, but holding no throttle itself.
    assert (mounts["blkio"] / "vbench-vb").is_dir()
    assert not (mounts["blkio"] / "vbench-vb" / "blkio.throttle.read_bps_device").exists()


def test_a_native_hosts_own_cgroup_holds_the_disk_throttle_and_the_read_back_wants_it_there(planted, monkeypatch):
    sd, state, mounts, _ = planted(disk_write_bps=1000)
    sd.preflight()
    sd.create_parent()
    spec = sd.ctx.params.resolved_hosts()[0]
    argv = sd.native_argv(spec, ["sshd", "-D"])
    assert str(mounts["blkio"] / "vbench-vb" / "master" / "cgroup.procs") in argv
    assert (mounts["blkio"] / "vbench-vb" / "master" / "blkio.throttle.write_bps_device").read_text() == "254:0 1000"
    assert state["cgroups"] == ["vbench-vb", "vbench-vb/master"]
    monkeypatch.setattr(S, "proc_cgroup", lambda _pid: "7:blkio:/vbench-vb/master\n")
    facts = sd.verify_host(spec, 1, 1234)
    assert facts["slowdown_applied"] == "blkio.throttle.write_bps_device=254:0 1000"
    # Below its cgroup, the throttle would not hold it: refused by name.
    monkeypatch.setattr(S, "proc_cgroup", lambda _pid: "7:blkio:/vbench-vb/master/inner\n")
    with pytest.raises(VbenchError, match=r"blkio cgroup is /vbench-vb/master/inner, not /vbench-vb/master"):
        sd.verify_host(spec, 1, 1234)
    monkeypatch.setattr(S, "proc_cgroup", lambda _pid: "7:blkio:/vbench-vb/master\n")
    (mounts["blkio"] / "vbench-vb" / "master" / "blkio.throttle.write_bps_device").write_text("")
    with pytest.raises(VbenchError, match=r"vbench-vb/master: blkio.throttle.write_bps_device is ''"):
        sd.verify_host(spec, 1, 1234)


def test_a_parent_that_exists_already_is_refused_before_anything_is_made(planted):
    sd, state, mounts, _ = planted(cpu_fraction=0.5)
    (mounts["cpu"] / "vbench-vb").mkdir()
    with pytest.raises(VbenchError, match="exists already"):
        sd.preflight()
    with pytest.raises(VbenchError, match="exists already"):
        S.make_cgroup("vbench-vb", {"cpu.cfs_quota_us": "1"}, mounts)


def test_a_network_slowdown_leaves_cgroups_alone(planted):
    sd, state, mounts, _ = planted(delay_ms=1)
    sd.create_parent()
    assert state == {} and not (mounts["cpu"] / "vbench-vb").exists()
    argv = ["sshd"]
    assert sd.native_argv(make_testbed({}).resolved_hosts()[0], argv) == argv


def test_a_native_host_starts_inside_its_cgroup_below_the_parent(planted):
    sd, state, mounts, _ = planted(cpu_fraction=0.5)
    sd.create_parent()
    spec = sd.ctx.params.resolved_hosts()[0]
    argv = sd.native_argv(spec, ["sshd", "-D"])
    assert argv[:2] == ["sh", "-c"] and argv[-2:] == ["sshd", "-D"]
    assert str(mounts["cpu"] / "vbench-vb" / "master" / "cgroup.procs") in argv
    assert state["cgroups"] == ["vbench-vb", "vbench-vb/master"]


def test_each_shaped_link_is_recorded_before_its_qdisc_is_added(planted):
    sd, state, _, ran = planted(delay_ms=2)
    spec = sd.ctx.params.resolved_hosts()[1]
    sd.shape_host(spec, 2)
    assert state["qdiscs"] == [{"dev": "vbh2", "netns": None}]
    assert ran == physnet.shape("vbh2", None, 2)


def test_the_read_back_passes_for_a_host_inside_and_names_one_outside(planted, monkeypatch):
    sd, _, mounts, _ = planted(cpu_fraction=0.5)
    sd.create_parent()
    spec = sd.ctx.params.resolved_hosts()[0]
    monkeypatch.setattr(S, "proc_cgroup", lambda _pid: "4:cpu:/vbench-vb/master\n")
    facts = sd.verify_host(spec, 1, 1234)
    assert facts == {
        "slowdown": "cpu_fraction=0.5",
        "slowdown_applied": "cpu.cfs_period_us=100000;cpu.cfs_quota_us=100000;machine_cpus=2",
    }
    monkeypatch.setattr(S, "proc_cgroup", lambda _pid: "4:cpu:/\n")
    with pytest.raises(VbenchError, match=r"native host master: .*cpu cgroup is /, not inside /vbench-vb"):
        sd.verify_host(spec, 1, 1234)
    monkeypatch.setattr(S, "proc_cgroup", lambda _pid: "4:cpu:/vbench-vb/master\n")
    (mounts["cpu"] / "vbench-vb" / "cpu.cfs_quota_us").write_text("-1\n")  # changed behind vbench's back
    with pytest.raises(VbenchError, match=r"cpu.cfs_quota_us is '-1', wanted '100000'"):
        sd.verify_host(spec, 1, 1234)


def test_nothing_planted_reads_nothing_back(planted):
    sd, _, _, ran = planted()
    assert sd.verify_host(sd.ctx.params.resolved_hosts()[0], 1, 1) == {} and ran == []


def test_teardown_deletes_only_recorded_qdiscs_on_links_that_still_exist(monkeypatch):
    ran: list[list[str]] = []

    def run(cmd, check=True):
        ran.append(cmd)
        gone = cmd[-1] == "vbh3" and "show" in cmd
        return subprocess.CompletedProcess(cmd, 1 if gone else 0, "", "")

    monkeypatch.setattr(S.sysops, "run", run)
    monkeypatch.setattr(S.sysops, "existing_netns", lambda: {"vb-phy-p1"})
    state = json.loads(
        json.dumps(
            {
                "qdiscs": [
                    {"dev": "vbh2", "netns": None},
                    {"dev": "vbh3", "netns": None},
                    {"dev": "vbh4", "netns": "vb-phy-p1"},
                    {"dev": "vbh5", "netns": "vb-phy-gone"},
                    "junk",
                ]
            }
        )
    )
    S.remove_qdiscs(state, lambda _m: None)
    deleted = [c for c in ran if "del" in c]
    assert deleted == [S.unshape_command("vbh2", None), S.unshape_command("vbh4", "vb-phy-p1")]


# -- provenance ------------------------------------------------------------------------------------


def test_samples_say_what_was_planted_and_others_say_nothing():
    facts = [{"slowdown": "cpu_fraction=0.9", "slowdown_applied": "cpu.cfs_quota_us=180000"}] * 3
    assert slowdown_stamp(facts) == {"slowdown": "cpu_fraction=0.9", "slowdown_applied": "cpu.cfs_quota_us=180000"}
    assert slowdown_stamp([{"cpu_model": "x"}]) == {}


def test_a_container_limit_above_the_planted_share_is_refused_before_anything_starts():
    from vbench.machine_fit import MachineFacts, check_limits_fit

    machine = MachineFacts(mem_total_mb=64_000, cpus=2, cpu_ids=(0, 1))
    p = make_testbed({"platform": "lxc", "limits": {"cpus": 2}, "slowdown": {"cpu_fraction": 0.9}})
    with pytest.raises(ParamsError) as info:
        check_limits_fit(p, machine)
    assert info.value.field == "testbed.limits.cpus" and "0.9 x 2 CPUs = 1.8" in str(info.value)
    check_limits_fit(p.model_copy(update={"limits": None}), machine)  # unlimited hosts: the parent caps them
    ok = make_testbed({"platform": "lxc", "limits": {"cpus": 1}, "slowdown": {"cpu_fraction": 0.9}})
    check_limits_fit(ok, machine)


def test_the_statistics_compare_a_planted_level_to_the_unplanted_one(tmp_path):
    """The documented design (docs/planted-effects.md): compare: [slowdown.cpu_fraction], baseline
    "1.0"; the planted level's ratio is its effect."""
    from vbench.stats.campaign import load_campaign
    from vbench.stats.campaign_stats import StatsConfig, campaign_stats

    d = tmp_path / "planted"
    planted_campaign_dir(
        d,
        "terasort_time",
        [
            (
                level,
                30.0 * (1.1 if level == 0.9 else 1.0) + rep * 0.3,
                {"repetition": rep, "size_mb": 16, "run_id": f"{rep}-{level}"},
            )
            for rep in range(4)
            for level in (1.0, 0.9)
        ],
    )
    stats = campaign_stats(load_campaign(d), StatsConfig(n_resamples=200))
    r = stats[(stats["statistic"] == "ratio_to_baseline") & (stats["method"] == "fieller")]
    assert set(r["baseline"]) == {"1.0"} and set(r["platform"]) == {"0.9"}
    assert r["estimate"].between(1.09, 1.11).all()


# -- a testbed's own cpu cgroup (testbed.cpu_group: a duet's sides as equals) -------------------------


def test_a_cpu_group_is_the_default_weight_written_first_and_plants_nothing():
    assert S.cgroup_settings(SlowdownParams(), 2, None, cpu_group=True) == {"cpu.shares": str(S.DEFAULT_CPU_SHARES)}
    both = S.cgroup_settings(SlowdownParams(cpu_fraction=0.5), 2, None, cpu_group=True)
    assert list(both) == ["cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us"]
    assert S.cgroup_settings(SlowdownParams(), 2, None) == {}  # without it, as before
    assert slowdown_stamp([{"cpu_group": "vbench-vb0"}]) == {"cpu_group": "vbench-vb0"}


@pytest.mark.parametrize("platform", ["gvisor", "qemu"])
def test_a_cpu_group_on_hosts_it_cannot_hold_is_refused_naming_the_field(platform):
    err = refused({"platform": platform, "cpu_group": True})
    assert err.field == "testbed.cpu_group" and platform in str(err)


def test_a_duet_puts_every_local_configuration_in_a_cpu_group_of_its_own():
    from vbench.campaign.hosts_source import TestbedSource
    from vbench.campaign.runner import configuration_params
    from vbench.machine_fit import MachineFacts

    duet = exp(platforms=("native", "lxc"), rounds=2, duet={"cpus": "shared"}, factors={}, compare=("platform",))
    machine = MachineFacts(mem_total_mb=1_000_000, cpus=64)
    tb, hp = make_testbed({}), HadoopParams()
    got = configuration_params(duet, tb, hp, TestbedSource(print), frozenset({"hadoop"}), machine)
    assert got and all(t.cpu_group for t, _ in got.values())
    plain = configuration_params(
        exp(platforms=("native", "lxc"), rounds=2, factors={}, compare=("platform",)),
        tb,
        hp,
        TestbedSource(print),
        frozenset({"hadoop"}),
        machine,
    )
    assert not any(t.cpu_group for t, _ in plain.values())


def test_a_delay_on_a_kernel_without_netem_is_refused_before_anything_starts_naming_the_field():
    from vbench.campaign.hosts_source import TestbedSource
    from vbench.campaign.runner import configuration_params
    from vbench.machine_fit import MachineFacts

    machine = MachineFacts(mem_total_mb=1_000_000, cpus=64)
    tb, hp = make_testbed({}), HadoopParams()
    delayed = exp(
        factors={"testbed.slowdown.cpu_fraction": [1.0, 0.5], "testbed.slowdown.delay_ms": [0.0, 0.2]},
        compare=("slowdown.cpu_fraction", "slowdown.delay_ms"),
    )
    asked = []

    def no_netem() -> bool:
        asked.append(True)
        return False

    with pytest.raises(ParamsError) as info:
        configuration_params(delayed, tb, hp, TestbedSource(print), frozenset({"hadoop"}), machine, netem=no_netem)
    assert info.value.field == "testbed.slowdown.delay_ms"
    assert "no netem" in str(info.value) and "2 of 4 configurations" in str(info.value)
    assert asked == [True]  # asked once for the whole design, not per configuration
    got = configuration_params(
        delayed, tb, hp, TestbedSource(print), frozenset({"hadoop"}), machine, netem=lambda: True
    )
    assert len(got) == 4

    def never() -> bool:
        raise AssertionError("the kernel is asked only when a configuration delays")

    assert configuration_params(exp(), tb, hp, TestbedSource(print), frozenset({"hadoop"}), machine, netem=never)


# -- a testbed's CPUs (testbed.cpuset: a split duet's side on CPUs of its own) -----------------------


def test_a_testbed_cpuset_makes_the_parent_a_cpuset_cgroup_of_the_roots_cpus_and_pins_each_container():
    # The parent holds what the root holds (LXC would widen a narrower one); hosts hold the CPUs.
    assert S.cgroup_settings(SlowdownParams(), 2, None, cpuset_root=("0-1", "0")) == {
        "cpuset.cpus": "0-1",
        "cpuset.mems": "0",
    }
    tb = make_testbed(
        {"cpuset": "1", "hosts": [{"name": "m", "role": "master"}, {"name": "w", "role": "worker", "platform": "lxc"}]}
    )
    lim = {h.name: h.limits for h in tb.resolved_hosts()}
    assert lim["m"] is None and lim["w"] is not None and lim["w"].cpuset == "1"  # native: its own cgroup, at start
    assert slowdown_stamp([{"cpuset": "1"}, {"cpuset": "1"}]) == {"cpuset": "1"}
    assert S.parse_cpus_allowed("Name:\tsshd\nCpus_allowed:\t2\nCpus_allowed_list:\t1\n") == (1,)
    assert S.parse_cpus_allowed("Name:\tx\n") == ()


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"platform": "qemu", "cpuset": "0"}, "qemu"),
        ({"cpuset": "1-0"}, "reversed"),
        ({"cpuset": "one"}, "not a CPU list"),
        ({"platform": "lxc", "cpuset": "0", "limits": {"cpuset": "1"}}, "limits.cpuset"),
        ({"platform": "lxc", "cpuset": "0", "limits": {"cpus": 2}}, "do not fit"),
    ],
)
def test_a_testbed_cpuset_it_cannot_hold_is_refused_naming_the_field(data, why):
    err = refused(data)
    assert err.field == "testbed.cpuset" and why in str(err), str(err)

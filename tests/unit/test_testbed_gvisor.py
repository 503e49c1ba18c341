"""gVisor hosts (vbench.testbed.gvisor): runsc's answers parsed, the platform chosen or refused
before anything starts, runsc's command, the spec adapted from the OCI hosts', and what a running
sandbox shows read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from vbench.campaign.design import _check_factor
from vbench.errors import ParamsError, VbenchError
from vbench.machine_fit import MachineFacts, check_limits_fit
from vbench.params import testbed_params as make_testbed
from vbench.testbed import gvisor as G
from vbench.testbed import oci
from vbench.testbed.platforms import PROVISIONERS

DATA = Path(__file__).resolve().parents[1] / "data" / "platforms"
FLAGS = (DATA / "runsc_flags.txt").read_text()
VERSION = (DATA / "runsc_version.txt").read_text()


# -- runsc's answers (captured on this machine) -------------------------------------------------
def test_the_version_is_read_from_runsc_version():
    assert G.parse_version(VERSION) == "0.0~20221219.0"


def test_a_version_answer_without_a_version_is_an_error():
    with pytest.raises(VbenchError, match="printed no version"):
        G.parse_version("spec: 1.0.2-dev\n")


def test_the_platforms_this_runsc_knows_come_from_its_flag_help():
    assert G.parse_platforms(FLAGS) == ("ptrace", "kvm")


def test_a_later_runsc_listing_systrap_first_is_read_too():
    later = '  -platform string\n    \tspecifies which platform to use: systrap (default), ptrace, kvm. (default "systrap")\n'
    assert G.parse_platforms(later) == ("systrap", "ptrace", "kvm")


def test_flags_without_a_platform_flag_know_nothing():
    assert G.parse_platforms("  -network value\n    \tspecifies which network to use\n") == ()


# -- the platform: chosen, or refused with the reason -----------------------------------------------
def test_auto_is_ptrace_on_this_runsc_and_systrap_where_runsc_has_it():
    assert G.choose_platform("auto", ("ptrace", "kvm"), "0.0~20221219.0", None, "not probed") == "ptrace"
    assert G.choose_platform("auto", ("systrap", "ptrace", "kvm"), "20240101", None, "not probed") == "systrap"


def test_systrap_is_refused_on_a_runsc_without_it_naming_the_version_and_the_field():
    with pytest.raises(ParamsError) as err:
        G.choose_platform("systrap", G.parse_platforms(FLAGS), "0.0~20221219.0", None, "not probed")
    assert err.value.field == "testbed.gvisor.platform"
    assert "systrap is not a platform of runsc 0.0~20221219.0, which knows ptrace, kvm" in str(err.value)


def test_kvm_is_refused_where_kvm_runs_no_guest_saying_what_was_tried():
    detail = "a guest kernel printed 0 lines under KVM in 10 s and never reached its root mount"
    with pytest.raises(ParamsError) as err:
        G.choose_platform("kvm", ("ptrace", "kvm"), "0.0~20221219.0", False, detail)
    assert err.value.field == "testbed.gvisor.platform"
    assert detail in str(err.value) and "runsc --platform=kvm" in str(err.value)
    assert G.choose_platform("kvm", ("ptrace", "kvm"), "0.0~20221219.0", True, "booted") == "kvm"


def test_ptrace_is_taken_as_asked():
    assert G.choose_platform("ptrace", ("ptrace", "kvm"), "0.0~20221219.0", None, "not probed") == "ptrace"


# -- params ------------------------------------------------------------------------------------------
def test_the_gvisor_params_default_to_the_sandboxs_own_network_and_auto():
    tb = make_testbed({"platform": "gvisor"})
    assert (tb.gvisor.network, tb.gvisor.platform) == ("sandbox", "auto")
    assert {h.platform for h in tb.resolved_hosts()} == {"gvisor"}


def test_an_unknown_gvisor_network_is_refused_naming_the_field():
    with pytest.raises(ParamsError) as err:
        make_testbed({"platform": "gvisor", "gvisor": {"network": "bridge"}})
    assert err.value.field == "testbed.gvisor.network"
    assert "expected one of sandbox, host, got 'bridge'" in str(err.value)


def test_the_gvisor_network_is_a_factor_of_a_design_and_its_levels_are_checked():
    _check_factor("testbed.gvisor.network", ["sandbox", "host"])
    with pytest.raises(ValueError, match="level 1"):
        _check_factor("testbed.gvisor.network", ["sandbox", "none"])


def test_gvisor_hosts_take_limits_but_not_pids_max():
    tb = make_testbed({"platform": "gvisor", "limits": {"cpus": 1, "memory_mb": 1024}})
    assert tb.resolved_hosts()[1].limits.memory_mb == 1024
    with pytest.raises(ParamsError) as err:
        check_limits_fit(
            make_testbed({"platform": "gvisor", "limits": {"pids_max": 512}}), MachineFacts(mem_total_mb=24000, cpus=2)
        )
    assert err.value.field == "testbed.limits.pids_max" and "Sentry" in str(err.value)


def test_a_mixed_cluster_of_a_native_master_and_gvisor_workers_is_valid():
    tb = make_testbed(
        {
            "hosts": [
                {"name": "master", "role": "master", "platform": "native"},
                {"name": "worker1", "role": "worker", "platform": "gvisor"},
                {"name": "worker2", "role": "worker", "platform": "gvisor"},
            ]
        }
    )
    assert [h.platform for h in tb.resolved_hosts()] == ["native", "gvisor", "gvisor"]


@pytest.mark.parametrize(
    "sandboxed, platforms",
    [
        ("all", ["gvisor", "gvisor", "gvisor"]),
        ("master", ["gvisor", "native", "native"]),
        ("workers", ["native", "gvisor", "gvisor"]),
    ],
)
def test_which_hosts_of_a_gvisor_testbed_run_sandboxed_is_a_field(sandboxed, platforms):
    tb = make_testbed({"platform": "gvisor", "gvisor": {"sandboxed": sandboxed}})
    assert [(h.role, h.platform) for h in tb.resolved_hosts()] == list(zip(["master", "worker", "worker"], platforms))
    # Other platforms' testbeds have no sandbox to leave: the field changes nothing there.
    assert {
        h.platform for h in make_testbed({"platform": "lxc", "gvisor": {"sandboxed": sandboxed}}).resolved_hosts()
    } == {"lxc"}


def test_a_host_given_its_own_platform_keeps_it_whatever_is_sandboxed():
    tb = make_testbed(
        {
            "platform": "gvisor",
            "gvisor": {"sandboxed": "master"},
            "hosts": [
                {"name": "master", "role": "master"},
                {"name": "worker1", "role": "worker", "platform": "gvisor"},
                {"name": "worker2", "role": "worker"},
            ],
        }
    )
    assert [h.platform for h in tb.resolved_hosts()] == ["gvisor", "gvisor", "native"]


def test_which_hosts_are_sandboxed_is_a_factor_of_a_design_and_a_wrong_level_is_refused():
    _check_factor("testbed.gvisor.sandboxed", ["all", "master", "workers"])
    with pytest.raises(ValueError, match="level 1"):
        _check_factor("testbed.gvisor.sandboxed", ["all", "worker"])
    with pytest.raises(ParamsError) as err:
        make_testbed({"platform": "gvisor", "gvisor": {"sandboxed": "none"}})
    assert err.value.field == "testbed.gvisor.sandboxed"


# -- runsc's command -----------------------------------------------------------------------------------
OVERLAY = (Path("/c/rootfs"), Path("/h/upper"), Path("/h/work"), Path("/h/rootfs"))


def test_runsc_run_covers_proc_sys_net_for_the_sandbox_network_then_mounts_the_overlay():
    argv = G.runsc_argv(Path("/tb/runsc"), ["run", "--detach", "vb-w1"], "ptrace", "sandbox", OVERLAY)
    assert argv[:6] == ["unshare", "--mount", "--propagation", "private", "sh", "-c"]
    script = argv[6]
    assert (
        script.index("mount -t tmpfs -o ro,size=4k,mode=555 vbench-mask /proc/sys/net")
        < script.index("mount -t overlay")
        < script.index('exec runsc --root "$0" "$@"')
    )
    assert argv[7:] == [
        "/tb/runsc",
        "lowerdir=/c/rootfs,upperdir=/h/upper,workdir=/h/work",
        "/h/rootfs",
        "--platform=ptrace",
        "--network=sandbox",
        "run",
        "--detach",
        "vb-w1",
    ]


def test_runsc_run_on_the_hosts_network_leaves_proc_sys_net_alone():
    argv = G.runsc_argv(Path("/tb/runsc"), ["run", "x"], "ptrace", "host", OVERLAY)
    assert "/proc/sys/net" not in argv[6] and "--network=host" in argv


def test_runsc_delete_needs_neither_platform_nor_network():
    argv = G.runsc_argv(Path("/tb/runsc"), ["delete", "--force", "vb-w1"])
    assert argv[7:] == ["/tb/runsc", "delete", "--force", "vb-w1"]
    assert "mount" not in argv[6]
    with pytest.raises(VbenchError, match="needs the gVisor platform"):
        G.runsc_argv(Path("/tb/runsc"), ["run", "x"])


def test_a_path_with_shell_in_it_reaches_runsc_as_an_argument():
    bad = Path("/tb/$(touch x)'runsc")
    argv = G.runsc_argv(bad, ["delete", "x"])
    assert str(bad) not in argv[6] and argv[7] == str(bad)


# -- the spec: the OCI hosts', adapted ------------------------------------------------------------
def _spec():
    return oci.oci_config(
        hostname="worker1",
        rootfs=Path("/h/rootfs"),
        netns_path="/var/run/netns/vb-worker1",
        cgroups_path="/vbench-vb/worker1",
        limits_settings={"memory.limit_in_bytes": str(1024**3)},
        disk=None,
    )


def test_the_gvisor_spec_is_the_oci_hosts_with_its_own_container_name_and_no_cgroupfs():
    crun, runsc = _spec(), G.gvisor_config(_spec())
    assert "container=gvisor" in runsc["process"]["env"] and "container=oci" not in runsc["process"]["env"]
    assert [m for m in runsc["mounts"] if m["type"] == "cgroup"] == []
    assert len(runsc["mounts"]) == len(crun["mounts"]) - 1
    # Everything else, the limits and the host's namespace by path included, is the OCI hosts'.
    assert runsc["linux"] == crun["linux"] and runsc["root"] == crun["root"]
    assert runsc["process"]["args"] == crun["process"]["args"]


def test_the_gvisor_provisioner_is_the_oci_one_with_runsc():
    prov = PROVISIONERS["gvisor"]
    assert isinstance(prov, oci.OciProvisioner) and (prov.platform, prov.runtime) == ("gvisor", "runsc")
    assert type(PROVISIONERS["oci"]).bundle_config is not type(prov).bundle_config


# -- what a running sandbox shows ---------------------------------------------------------------------
def test_a_sandbox_whose_stubs_are_traced_by_its_threads_runs_on_ptrace():
    tasks = [G.SandboxTask(100, 0, False), G.SandboxTask(120, 100, False), G.SandboxTask(130, 105, False)]
    assert G.detect_platform({100, 105, 106}, tasks) == "ptrace"


def test_a_sandbox_holding_dev_kvm_runs_on_kvm():
    assert G.detect_platform({100}, [G.SandboxTask(100, 0, True)]) == "kvm"


def test_stubs_traced_by_someone_else_do_not_make_ptrace():
    assert G.detect_platform({100}, [G.SandboxTask(100, 0, False), G.SandboxTask(120, 999, False)]) == "unknown"


def test_the_network_stack_is_told_by_whether_eth0_still_holds_the_address():
    host = (DATA / "ip_addr_eth0_gvisor_host.txt").read_text()  # --network=host; with sandbox it printed nothing
    assert G.detect_network(host, "10.252.0.10") == "host"
    assert G.detect_network("", "10.252.0.10") == "sandbox"
    assert G.detect_network(host, "10.252.0.1") == "sandbox"  # 10.252.0.10 is not 10.252.0.1


def test_every_gvisor_host_gets_busyboxs_statx_free_ls_and_stat_in_its_own_overlay(tmp_path):
    # The Sentry of this runsc answers statx with EINVAL: coreutils' ls fails, BusyBox's does not.
    fake = tmp_path / "busybox"
    fake.write_bytes(b"\x7fELF not really")
    upper = tmp_path / "upper"
    links = G.install_statx_free_tools(upper, str(fake))
    where = upper / "usr" / "local" / "bin"
    assert (where / "busybox").read_bytes() == fake.read_bytes()
    assert sorted(p.name for p in links) == ["ls", "stat"]
    for link in links:
        assert link.is_symlink() and str(link.readlink()) == "busybox"  # relative: resolved in the guest
    # A host made again over the same upper directory gets the same, not an error.
    assert len(G.install_statx_free_tools(upper, str(fake))) == 2


def test_without_busybox_a_gvisor_host_is_refused_naming_the_package(tmp_path):
    with pytest.raises(VbenchError, match="busybox-static"):
        G.install_statx_free_tools(tmp_path / "upper", "")
    assert "busybox" in G.GvisorProvisioner.tools  # preflight asks for it before anything starts

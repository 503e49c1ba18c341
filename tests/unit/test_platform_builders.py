"""Pure builders of the platform provisioners: LXC config, OCI spec and crun command, QEMU command."""

from pathlib import Path

import pytest

from vbench.errors import VbenchError
from vbench.params import VM_DEFAULT_MEMORY_MB, testbed_params as make_testbed
from vbench.testbed import lxc, oci, qemu
from vbench.testbed.limits import BlockDevice, cgroup_v1_settings

DISK = BlockDevice(254, 0, "vda")


def _limits(**kw):
    return make_testbed({"platform": "lxc", "limits": kw}).resolved_hosts()[1].limits


def _lxc_config(settings):
    return lxc.lxc_config(
        name="vbp-worker1",
        hostname="worker1",
        lower=Path("/cache/rootfs"),
        upper=Path("/tb/hosts/worker1/upper"),
        bridge="vbpbr0",
        veth="vbph2",
        address_cidr="10.213.5.11/24",
        cgroup_dir="vbench-vbp/worker1",
        settings=settings,
        log_file=Path("/tb/lxc.log"),
        console_log=Path("/tb/console.log"),
    )


# --- LXC -------------------------------------------------------------------------------


def test_lxc_config_puts_the_host_on_the_bridge_with_its_address_and_name():
    text = _lxc_config({})
    lines = set(text.splitlines())
    assert "lxc.uts.name = worker1" in lines
    assert "lxc.net.0.link = vbpbr0" in lines and "lxc.net.0.veth.pair = vbph2" in lines
    assert "lxc.net.0.ipv4.address = 10.213.5.11/24" in lines and "lxc.net.0.name = eth0" in lines


def test_lxc_root_is_an_overlay_of_the_image_mounted_by_lxc():
    assert "lxc.rootfs.path = overlay:/cache/rootfs:/tb/hosts/worker1/upper" in _lxc_config({}).splitlines()


def test_lxc_init_is_tini_then_sshd_and_cgroups_are_named_after_the_testbed():
    lines = set(_lxc_config({}).splitlines())
    assert "lxc.init.cmd = /usr/bin/tini -- /usr/local/sbin/vbench-init" in lines
    assert "lxc.cgroup.dir.container = vbench-vbp/worker1" in lines
    assert "lxc.cgroup.dir.monitor = vbench-vbp/worker1.monitor" in lines
    # cgroup namespaces make LXC skip cgroup automounts unless forced; the JVM needs them to see its limits.
    assert "lxc.mount.auto = proc:mixed sys:mixed cgroup:mixed:force" in lines


def test_lxc_limits_are_cgroup_v1_keys():
    settings = cgroup_v1_settings(_limits(cpus=1, memory_mb=1024, cpuset="1", disk_read_bps="50MB"), DISK)
    lines = set(_lxc_config(settings).splitlines())
    assert "lxc.cgroup.cpu.cfs_quota_us = 100000" in lines
    assert "lxc.cgroup.cpu.cfs_period_us = 100000" in lines
    assert "lxc.cgroup.cpuset.cpus = 1" in lines
    assert "lxc.cgroup.memory.limit_in_bytes = 1073741824" in lines
    assert "lxc.cgroup.blkio.throttle.read_bps_device = 254:0 52428800" in lines


def test_a_container_host_is_ready_by_its_sshd_log_in_the_upper_dir_and_fails_with_its_logs(tmp_path, monkeypatch):
    """What LXC and OCI (and gVisor) hosts hand the testbed after create (lxc.container_created)."""
    upper = tmp_path / "upper"
    (upper / "var/log").mkdir(parents=True)
    (upper / "var/log/vbench-sshd.log").write_text("sshd: bind failed\n")
    (tmp_path / "console.log").write_text("tini: boot\n")
    created = lxc.container_created("HOST", "ssh-ed25519 AAAA", upper, 4242, tmp_path / "console.log")
    assert (created.host, created.host_key) == ("HOST", "ssh-ed25519 AAAA")
    assert created.sshd_log == upper / "var/log/vbench-sshd.log"
    monkeypatch.setattr(lxc.sysops, "alive", lambda pid: pid != 4242)
    assert created.failure() == "its init exited; console.log: tini: boot; vbench-sshd.log: sshd: bind failed"
    monkeypatch.setattr(lxc.sysops, "alive", lambda pid: pid == 4242)
    assert created.failure() is None


def test_a_container_hosts_limits_are_read_back_from_its_init_and_recorded(tmp_path, monkeypatch):
    """verify() of LXC, OCI and gVisor hosts (lxc.verify_container_limits): the settings of its
    limits checked against the cgroup of the pid the platform names, under the platform's name."""
    from vbench.testbed.provisioner import TestbedContext, TestbedPaths

    params = make_testbed({"name": "vbp", "platform": "lxc", "limits": {"cpus": 1, "memory_mb": 1024}})
    spec = params.resolved_hosts()[1]
    ctx = TestbedContext(params, TestbedPaths(tmp_path / "vbp"), lambda k, v: None, lambda m: None)
    checked = []
    monkeypatch.setattr(lxc, "verify_cgroup_limits", lambda *a: checked.append(a))

    class Gvisor:
        platform = "gvisor"

        def init_pid(self, spec, ctx):
            return 4242

    facts = lxc.verify_container_limits(Gvisor(), spec, ctx)
    assert checked == [(4242, cgroup_v1_settings(spec.limits, None), f"gvisor host {spec.name}")]
    assert facts == {"limits": lxc.limits_fact(spec.limits), "cgroup": f"vbench-vbp/{spec.name}"}


# --- OCI -------------------------------------------------------------------------------


def _oci(settings=None):
    return oci.oci_config(
        hostname="worker1",
        rootfs=Path("/tb/hosts/worker1/rootfs"),
        netns_path="/var/run/netns/vbp-worker1",
        cgroups_path="/vbench-vbp/worker1",
        limits_settings=settings or {},
        disk=DISK,
    )


def test_oci_spec_joins_the_testbeds_network_namespace_by_path():
    spec = _oci()
    assert {"type": "network", "path": "/var/run/netns/vbp-worker1"} in spec["linux"]["namespaces"]
    assert {n["type"] for n in spec["linux"]["namespaces"]} == {"pid", "ipc", "uts", "mount", "network"}
    assert spec["hostname"] == "worker1"
    assert spec["root"] == {"path": "/tb/hosts/worker1/rootfs", "readonly": False}
    assert spec["linux"]["cgroupsPath"] == "/vbench-vbp/worker1"


def test_oci_process_is_tini_then_sshd_with_what_sshd_needs():
    proc = _oci()["process"]
    assert proc["args"] == ["/usr/bin/tini", "--", "/usr/local/sbin/vbench-init"]
    assert "container=oci" in proc["env"]
    for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SYS_CHROOT", "CAP_CHOWN"):
        assert cap in proc["capabilities"]["bounding"]


def test_oci_spec_has_no_hugetlb_resources_and_carries_the_limits():
    settings = cgroup_v1_settings(_limits(cpus=1, memory_mb=1024, cpuset="0", disk_write_bps=1000), DISK)
    res = _oci(settings)["linux"]["resources"]
    assert "hugepageLimits" not in res
    assert res["cpu"] == {"quota": 100000, "period": 100000, "cpus": "0"}
    assert res["memory"] == {"limit": 1024**3}
    assert res["blockIO"] == {"throttleWriteBpsDevice": [{"major": 254, "minor": 0, "rate": 1000}]}


def test_oci_without_limits_only_restricts_devices():
    assert _oci()["linux"]["resources"] == {"devices": [{"allow": False, "access": "rwm"}]}


def test_crun_runs_in_a_private_mount_namespace_without_the_cgroup2_mount():
    argv = oci.crun_argv(Path("/tb/crun"), ["delete", "--force", "vbp-worker1"])
    assert argv[:4] == ["unshare", "--mount", "--propagation", "private"]
    script = argv[6]
    assert "umount /sys/fs/cgroup/unified" in script and "mountpoint -q" in script
    assert "--cgroup-manager=cgroupfs" in script
    assert argv[7:] == ["/tb/crun", "delete", "--force", "vbp-worker1"]
    assert "mount -t overlay" not in script


def test_crun_run_mounts_the_overlay_in_that_namespace_first():
    paths = (Path("/c/rootfs"), Path("/h/upper"), Path("/h/work"), Path("/h/rootfs"))
    argv = oci.crun_argv(Path("/tb/crun"), ["run"], mount_overlay=paths)
    script = argv[6]
    assert 'mount -t overlay overlay -o "$1" "$2" && shift 2' in script
    assert argv[7:] == ["/tb/crun", "lowerdir=/c/rootfs,upperdir=/h/upper,workdir=/h/work", "/h/rootfs", "run"]
    assert script.index("umount") < script.index("mount -t overlay") < script.index("exec crun")


def test_overlay_paths_that_mount_options_cannot_carry_are_refused():
    with pytest.raises(VbenchError):
        oci.crun_argv(Path("/r"), ["run"], mount_overlay=(Path("/a,b"), Path("/u"), Path("/w"), Path("/m")))


# --- QEMU ------------------------------------------------------------------------------


def _qemu(**kw):
    args = dict(
        name="vbp-worker2",
        accel="tcg",
        cpus=1,
        memory_mb=1024,
        kernel=Path("/img/vmlinuz"),
        initrd=Path("/img/initrd.img"),
        append=qemu.KERNEL_APPEND,
        disk=Path("/h/disk.qcow2"),
        seed=Path("/h/seed.img"),
        tap="vbph3",
        mac="52:54:00:0d:05:0c",
        qmp=Path("/h/qmp.sock"),
        pidfile=Path("/h/qemu.pid"),
        console=Path("/h/console.log"),
    )
    args.update(kw)
    return qemu.qemu_argv(**args)


def _after(argv, flag):
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


def test_qemu_vm_has_virtio_disk_and_a_tap_on_the_bridge():
    argv = _qemu()
    drives = _after(argv, "-drive")
    assert drives[0].startswith("file=/h/disk.qcow2,if=virtio,format=qcow2,id=root")
    assert drives[1] == "file=/h/seed.img,if=virtio,format=raw,readonly=on,id=seed"
    assert "tap,id=net0,ifname=vbph3,script=no,downscript=no" in _after(argv, "-netdev")
    assert "virtio-net-pci,netdev=net0,mac=52:54:00:0d:05:0c" in _after(argv, "-device")


def test_qemu_boots_the_image_kernel_from_the_virtio_root():
    argv = _qemu()
    assert _after(argv, "-kernel") == ["/img/vmlinuz"] and _after(argv, "-initrd") == ["/img/initrd.img"]
    append = _after(argv, "-append")[0]
    assert "root=/dev/vda" in append and "console=ttyS0" in append and "net.ifnames=0" in append
    assert _after(argv, "-serial") == ["file:/h/console.log"]


def test_qemu_limits_are_smp_m_and_drive_throttling():
    argv = _qemu(cpus=2, memory_mb=3072, bps_read=50 * 1024**2, bps_write=1000)
    assert _after(argv, "-smp") == ["2"] and _after(argv, "-m") == ["3072"]
    root = _after(argv, "-drive")[0]
    assert "throttling.bps-read=52428800" in root and "throttling.bps-write=1000" in root


def test_qemu_accelerator_flags():
    assert _after(_qemu(accel="kvm"), "-accel") == ["kvm"] and _after(_qemu(accel="kvm"), "-cpu") == ["host"]
    tcg = _qemu(accel="tcg")
    assert _after(tcg, "-accel")[0].startswith("tcg") and "-cpu" not in tcg


def test_a_cpuset_pins_qemu_with_taskset():
    assert _qemu(cpuset="1")[:3] == ["taskset", "-c", "1"]
    assert _qemu()[0] == "qemu-system-x86_64"


def test_qemu_starts_inside_its_cgroup():
    argv = qemu.in_cgroup_argv(Path("/sys/fs/cgroup/pids/vbench-vbp/w/cgroup.procs"), ["qemu-system-x86_64", "-m", "1"])
    assert argv[:2] == ["sh", "-c"] and "exec" in argv[2]
    assert argv[3] == "/sys/fs/cgroup/pids/vbench-vbp/w/cgroup.procs" and argv[4:] == ["qemu-system-x86_64", "-m", "1"]


def test_mac_addresses_follow_the_ip_address():
    assert qemu.mac_for("10.213.5.12") == "52:54:00:d5:05:0c"
    assert qemu.mac_for("10.213.5.12") != qemu.mac_for("10.213.5.13")


def test_vm_shape_defaults_and_limits():
    tb = make_testbed(
        {
            "platform": "qemu",
            "hosts": [
                {"name": "m", "role": "master"},
                {"name": "a", "role": "worker", "limits": {"cpus": 1, "memory_mb": 2048}},
                {"name": "b", "role": "worker", "limits": {"cpuset": "0-1"}},
            ],
        }
    )
    m, a, b = tb.resolved_hosts()
    assert qemu.vm_shape(m, 2) == (2, VM_DEFAULT_MEMORY_MB)
    assert qemu.vm_shape(m, 1) == (1, VM_DEFAULT_MEMORY_MB)
    assert qemu.vm_shape(a, 2) == (1, 2048)
    assert qemu.vm_shape(b, 2) == (2, VM_DEFAULT_MEMORY_MB)


# QMP answers as QEMU 7.2 gives them (trimmed to the fields read).
CPUS = [{"cpu-index": 0, "thread-id": 101}, {"cpu-index": 1, "thread-id": 102}]
MEMORY = {"base-memory": 3221225472, "plugged-memory": 0}
BLOCK = [
    {"device": "root", "inserted": {"file": "/h/disk.qcow2", "bps_rd": 52428800, "bps_wr": 0}},
    {"device": "seed", "inserted": {"file": "/h/seed.img", "bps_rd": 0, "bps_wr": 0}},
]


def test_qmp_readback_parsing():
    got = qemu.parse_qmp_readback(CPUS, MEMORY, BLOCK, {"enabled": False, "present": True})
    assert got == {"cpus": 2, "memory_mb": 3072, "bps_rd": 52428800, "bps_wr": None, "accelerator": "tcg"}
    assert qemu.parse_qmp_readback(CPUS, MEMORY, BLOCK, {"enabled": True})["accelerator"] == "kvm"


def test_readback_mismatches_compare_qemu_and_the_guest():
    want = {"cpus": 2, "memory_mb": 3072, "bps_rd": 52428800, "bps_wr": None, "accelerator": "tcg"}
    got = qemu.parse_qmp_readback(CPUS, MEMORY, BLOCK, {"enabled": False})
    assert qemu.readback_mismatches(want, got, 2, 3_000_000) == []
    bad = qemu.readback_mismatches({**want, "cpus": 1}, got, 2, 3_000_000)
    assert "cpus is 2, wanted 1" in bad and "the guest sees 2 CPUs, wanted 1" in bad
    assert any("memory" in b for b in qemu.readback_mismatches(want, got, 2, 1_000_000))


def test_the_guest_shape_reads_its_cpus_memory_and_emulated_cpu_model():
    text = "2\n3012345\nQEMU Virtual CPU version 2.5+\n"
    assert qemu.parse_guest_shape(text) == (2, 3012345, "QEMU Virtual CPU version 2.5+")
    assert qemu.parse_guest_shape("2\n3012345\n") == (2, 3012345, "")
    assert qemu.parse_guest_shape("nproc: not found\n") == (None, None, "")
    assert "model name" in qemu.GUEST_SHAPE_SCRIPT and "MemTotal" in qemu.GUEST_SHAPE_SCRIPT


def test_accelerator_choice():
    assert qemu.choose_accelerator("auto", True, "") == "kvm"
    assert qemu.choose_accelerator("auto", False, "") == "tcg"
    assert qemu.choose_accelerator("tcg", True, "") == "tcg"
    with pytest.raises(VbenchError) as err:
        qemu.choose_accelerator("kvm", False, "a guest kernel printed 0 lines under KVM")
    assert "testbed.accelerator" in str(err.value) and "printed 0 lines" in str(err.value)

"""Inventory (#10): params model, preflight messages, checks' parsers and verdict, prepare's
command builders, YARN kill parsing. Pure functions; real hosts in tests/integration."""

from __future__ import annotations

from pathlib import Path

import paramiko
import pytest
import yaml

from vbench.errors import ParamsError
from vbench.hadoop import yarn_apps
from vbench.inventory import checks
from vbench.inventory.model import CheckThresholds, inventory, load_inventory, proxy_for, to_hosts
from vbench.inventory.prepare import packages_line, parse_missing, workdir_line
from vbench.inventory.preflight import accept_command, check_files, describe_error, host_pattern, known_hosts_lines

DATA = Path(__file__).resolve().parents[1] / "data" / "inventory"
REPO = Path(__file__).resolve().parents[2]


def inv(**extra):
    hosts = extra.pop(
        "hosts",
        [
            {"name": "m", "address": "192.0.2.10", "key_file": "/k", "role": "master"},
            {"name": "w1", "address": "192.0.2.11", "key_file": "/k", "platform": "native"},
        ],
    )
    return inventory({"hosts": hosts, "known_hosts": "/kh", **extra})


# -- model ---------------------------------------------------------------------------------
def test_hosts_become_remote_host_records_with_their_labels():
    i = inv(
        work_root="/srv/vb/",
        hosts=[
            {
                "name": "m",
                "address": "192.0.2.10",
                "key_file": "/k",
                "role": "master",
                "platform": "xen",
                "physical_host": "box1",
                "rack": "/r1",
                "network": "sriov",
                "port": 2222,
            }
        ],
    )
    (h,) = to_hosts(i)
    assert (h.platform, h.role, h.work_dir, h.shares_controller_fs) == ("xen", "master", "/srv/vb/m", False)
    assert (h.ssh.port, h.ssh.known_hosts, h.ssh.proxy_command) == (2222, Path("/kh"), None)
    assert h.facts["physical_host"] == "box1" and h.facts["rack"] == "/r1" and h.facts["network"] == "sriov"


@pytest.mark.parametrize(
    "change, field",
    [
        (
            {"hosts": [{"name": "m", "address": "a", "key_file": "/k", "role": "master", "colour": 1}]},
            "inventory.hosts[0].colour",
        ),
        ({"hosts": [{"name": "m", "address": "a", "role": "master"}]}, "inventory.hosts[0].key_file"),
        ({"hosts": [{"name": "m", "address": "a", "key_file": "/k"}]}, "inventory.hosts"),
        ({"hosts": [{"name": "M_1", "address": "a", "key_file": "/k", "role": "master"}]}, "inventory.hosts[0].name"),
        (
            {"hosts": [{"name": "m", "address": "a", "key_file": "/k", "role": "master", "platform": "Xen!"}]},
            "inventory.hosts[0].platform",
        ),
        (
            {"hosts": [{"name": "m", "address": "a", "key_file": "/k", "role": "master", "sudo": True}]},
            "inventory.hosts[0].sudo",
        ),
        ({"jump_host": "me@bastion", "proxy_command": "nc %h %p"}, "inventory.proxy_command"),
        ({"work_root": "relative"}, "inventory.work_root"),
        ({"checks": {"max_load_per_cpu": -1}}, "inventory.checks.max_load_per_cpu"),
    ],
)
def test_bad_inventories_are_refused_naming_the_field(change, field):
    with pytest.raises(ParamsError) as err:
        inv(**change)
    assert err.value.field == field


def test_duplicate_names_and_two_masters_of_a_label_are_refused():
    h = {"name": "m", "address": "a", "key_file": "/k", "role": "master"}
    with pytest.raises(ParamsError, match="repeated: m"):
        inv(hosts=[h, h])
    with pytest.raises(ParamsError, match="exactly one master"):
        inv(hosts=[h, {**h, "name": "n"}])


def test_each_platform_label_is_one_cluster():
    h = {"address": "a", "key_file": "/k"}
    i = inv(
        hosts=[
            {**h, "name": "n0", "role": "master"},
            {**h, "name": "n1"},
            {**h, "name": "k0", "role": "master", "platform": "kvm"},
            {**h, "name": "k1", "platform": "kvm"},
        ]
    )
    assert i.platforms() == ("native", "kvm")
    assert [x.name for x in to_hosts(i, "kvm")] == ["k0", "k1"]


def test_load_names_the_file_and_resolves_paths_beside_it(tmp_path):
    p = tmp_path / "inventory.yaml"
    p.write_text(
        yaml.safe_dump(
            {
                "inventory": {
                    "known_hosts": "kh",
                    "hosts": [{"name": "m", "address": "a", "key_file": "keys/id", "role": "master", "port": 0}],
                }
            }
        )
    )
    with pytest.raises(ParamsError) as err:
        load_inventory(p)
    assert err.value.field == f"{p}: inventory.hosts[0].port"
    p.write_text(p.read_text().replace("port: 0", "port: 22"))
    i = load_inventory(p)
    assert i.known_hosts == tmp_path / "kh" and i.hosts[0].key_file == tmp_path / "keys/id"
    with pytest.raises(ParamsError, match="no such inventory file"):
        load_inventory(tmp_path / "missing.yaml")


def test_example_inventory_is_valid_and_uses_documentation_addresses():
    i = load_inventory(REPO / "params" / "examples" / "inventory.yaml")
    assert all(h.address.startswith(("192.0.2.", "198.51.100.", "203.0.113.")) for h in i.hosts)
    assert {"kvm", "native"} <= set(i.platforms())


def test_jump_host_becomes_a_checked_ssh_w_proxy():
    i = inv(jump_host="ops@198.51.100.7:2200", jump_key_file="/jk")
    p = proxy_for(i, i.hosts[0])
    assert "-W 192.0.2.10:22 ops@198.51.100.7" in p and "-p 2200" in p and "-i /jk" in p
    assert "StrictHostKeyChecking=yes" in p and "UserKnownHostsFile=/kh" in p


def test_proxy_command_gets_each_hosts_own_port():
    # fabric would expand %p to 22 for every host; a host on another port must get its own.
    i = inv(
        proxy_command="ip netns exec f5-ctl nc %h %p",
        hosts=[{"name": "m", "address": "10.205.0.10", "key_file": "/k", "role": "master", "port": 2222}],
    )
    assert proxy_for(i, i.hosts[0]) == "ip netns exec f5-ctl nc 10.205.0.10 2222"


# -- preflight -----------------------------------------------------------------------------
def test_known_hosts_lines_finds_plain_ported_and_hashed_entries():
    hashed = paramiko.HostKeys.hash_host("192.0.2.10")
    text = "\n".join(
        [
            "# comment",
            "192.0.2.11,w1 ssh-ed25519 AAAA",
            f"{hashed} ssh-ed25519 BBBB",
            "[192.0.2.10]:2222 ssh-ed25519 CCCC",
            "m,192.0.2.10 ssh-rsa DDDD",
        ]
    )
    assert known_hosts_lines(text, "192.0.2.10") == [3, 5]
    assert known_hosts_lines(text, "192.0.2.10", 2222) == [4]
    assert host_pattern("h", 2222) == "[h]:2222"


def test_missing_key_file_is_found_before_any_connection(tmp_path):
    kh = tmp_path / "kh"
    kh.write_text("")
    i = inv(
        known_hosts=str(kh),
        hosts=[{"name": "m", "address": "192.0.2.10", "key_file": str(tmp_path / "nope"), "role": "master"}],
    )
    (p,) = check_files(i)
    assert p.kind == "key_file" and "inventory.hosts[0].key_file" in p.message and "does not exist" in p.message
    assert {p.kind for p in check_files(inv())} == {"key_file", "known_hosts"}


def test_unknown_key_message_gives_the_command_that_accepts_it():
    i = inv(proxy_command="ip netns exec f5-ctl nc %h %p")
    p = describe_error(paramiko.SSHException("Server '192.0.2.10' not found in known_hosts"), i, i.hosts[0], 10)
    assert p.kind == "unknown_key"
    assert "ip netns exec f5-ctl ssh-keyscan -p 22 192.0.2.10 >> /kh" in p.message
    assert accept_command(i.hosts[0], Path("/kh"), None) == "ssh-keyscan -p 22 192.0.2.10 >> /kh"


def test_changed_key_names_the_host_and_the_known_hosts_line(tmp_path):
    kh = tmp_path / "known_hosts"
    kh.write_text("192.0.2.11 ssh-ed25519 AAAA\n192.0.2.10 ssh-ed25519 BBBB\n")
    i = inv(known_hosts=str(kh))
    key = paramiko.Ed25519Key.from_private_key_file(str(_keyfile(tmp_path)))
    p = describe_error(paramiko.BadHostKeyException("192.0.2.10", key, key), i, i.hosts[0], 10)
    assert p.kind == "changed_key" and "192.0.2.10:22 CHANGED" in p.message and f"{kh}:2" in p.message


def test_unreachable_says_where_and_how_long():
    i = inv()
    p = describe_error(TimeoutError(), i, i.hosts[0], 7)
    assert p.kind == "unreachable" and "root@192.0.2.10:22" in p.message and "7 s" in p.message


def _keyfile(tmp_path):
    import subprocess

    k = tmp_path / "k"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(k)], check=True)
    return k


# -- checks --------------------------------------------------------------------------------
def test_probe_of_a_real_namespace_host_parses():
    c = checks.parse_probe("master", (DATA / "probe-native-netns.txt").read_text())
    assert (c.governor, c.turbo, c.thp) == (checks.NOT_EXPOSED, checks.NOT_EXPOSED, "madvise")
    assert (c.swap_total_mb, c.swap_used_mb, c.cpus, c.load_1m) == (0, 0, 2, 13.37)
    assert c.free_disk_gb == {"/tmp/f5/inv-work/master": round(72160884 / 1024**2, 2)}
    assert (c.java_version, c.java_major, c.kernel, c.virt) == ("17.0.15", 17, "6.18.44-fc-v657", "docker")
    v = checks.judge(c, CheckThresholds())
    assert not v.fit and any("load average 13.37" in r for r in v.reasons)
    assert any("governor not exposed" in n for n in v.notes)


@pytest.mark.parametrize(
    "no_turbo, boost, want",
    [("1", "", "off"), ("0", "", "on"), ("", "1", "on"), ("", "0", "off"), ("", "", checks.NOT_EXPOSED)],
)
def test_turbo(no_turbo, boost, want):
    assert checks.parse_turbo(no_turbo, boost) == want


def test_small_parsers():
    assert checks.parse_governor("performance\nperformance\n") == "performance"
    assert checks.parse_governor("ondemand\nperformance") == "ondemand,performance"
    assert checks.parse_thp("[always] madvise never") == "always"
    swaps = "Filename Type Size Used Priority\n/swapfile file 2097148 524288 -2\n/dev/sdb2 partition 1048576 0 -3"
    assert checks.parse_swaps(swaps) == (3071, 512)
    assert checks.parse_java('java version "1.8.0_392"') == ("1.8.0_392", 8)
    assert checks.parse_java('openjdk version "21" 2023-09-19') == ("21", 21)
    assert checks.parse_java("bash: java: not found") == ("", None)
    assert checks.clock_offset(100.0, 100.7, 101.0) == (200.0, 500.0)


def healthy(**kw):
    base = dict(
        host="h",
        governor="performance",
        turbo="off",
        thp="never",
        swap_total_mb=0,
        swap_used_mb=0,
        load_1m=0.1,
        cpus=4,
        free_disk_gb={"/data": 50.0},
        java_version="17.0.9",
        java_major=17,
        kernel="6.1",
        virt="none",
        virt_kind="none",
        clock_offset_ms=1.0,
        clock_uncertainty_ms=0.5,
    )
    return checks.HostCheck(**{**base, **kw})


@pytest.mark.parametrize(
    "kw, reason",
    [
        ({"governor": "powersave"}, "governor powersave"),
        ({"thp": "always"}, "transparent huge pages"),
        ({"swap_used_mb": 10}, "swap in use"),
        ({"load_1m": 3.0}, "load average"),
        ({"free_disk_gb": {"/data": 0.2}}, "0.2 GiB free for /data"),
        ({"clock_offset_ms": 2000.0}, "clock +2000 ms"),
        ({"java_version": "", "java_major": None}, "no Java"),
        ({"java_major": 11, "java_version": "11.0.2"}, "Java 11.0.2"),
        ({"turbo": "on"}, "turbo boost is on"),
    ],
)
def test_each_check_can_make_a_host_unfit(kw, reason):
    t = CheckThresholds(thp=("never", "madvise"), require_turbo_off=True)
    assert checks.judge(healthy(), t).fit
    v = checks.judge(healthy(**kw), t)
    assert not v.fit and any(reason in r for r in v.reasons), v.reasons


def test_clock_offset_within_its_uncertainty_is_not_a_reason():
    v = checks.judge(healthy(clock_offset_ms=700.0, clock_uncertainty_ms=400.0), CheckThresholds())
    assert v.fit


def test_probe_script_checks_the_nearest_existing_parent_of_each_dir():
    s = checks.probe_script("/usr/lib/jvm/j17", ["/data/hdfs 1"])
    assert "p='/data/hdfs 1'" in s and "/usr/lib/jvm/j17/bin/java -version" in s


# -- prepare -------------------------------------------------------------------------------
def test_prepare_lines_use_sudo_only_for_sudo_users():
    root = inv().hosts[0]
    user = inv(
        hosts=[{"name": "m", "address": "a", "key_file": "/k", "role": "master", "user": "ops", "sudo": True}]
    ).hosts[0]
    assert workdir_line(root, "/var/lib/vbench/m") == "mkdir -p /var/lib/vbench/m"
    assert workdir_line(user, "/w") == "sudo -n mkdir -p /w && sudo -n chown ops /w"
    line = packages_line(user, ("openjdk-17-jre-headless", "fio"))
    assert "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install" in line
    assert "for p in openjdk-17-jre-headless fio" in line and "not a Debian/Ubuntu host" in line
    assert "sudo" not in packages_line(root, ("fio",))
    assert parse_missing("missing: fio sysbench\n") == ("fio", "sysbench")
    assert parse_missing("missing:\n") == ()
    assert packages_line(root, ()) == "echo missing:"  # nothing asked: no apt needed


def test_packages_line_installs_nothing_when_all_are_present():
    import subprocess

    h = inv().hosts[0]
    # Run for real on this machine with packages that are installed: the install branch is not taken.
    r = subprocess.run(
        ["bash", "-c", packages_line(h, ("bash", "coreutils")).replace("apt-get install", "false")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and parse_missing(r.stdout) == ()


# -- YARN --------------------------------------------------------------------------------
def test_active_apps_parse():
    assert yarn_apps.parse_active_apps('{"apps":null}') == []
    text = '{"apps":{"app":[{"id":"application_1_0001","state":"RUNNING"},{"id":"application_1_0002"}]}}'
    assert yarn_apps.parse_active_apps(text) == ["application_1_0001", "application_1_0002"]
    assert "states=NEW,NEW_SAVING,SUBMITTED,ACCEPTED,RUNNING" in yarn_apps.active_apps_url("master")
    assert yarn_apps.kill_args("application_1_0001") == ["application", "-kill", "application_1_0001"]

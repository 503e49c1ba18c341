"""Issue #22, item 1: the local testbed acts only on what it created. The state directory is
vbench's own and checked before it is read, a stale pid is never killed, a bridge that exists
before bring-up is refused (and never deleted later), one process at a time holds a testbed.

No bridge, namespace or testbed is created here: teardown runs against a hand-written state
file with the machine-facing calls replaced, and the only processes started are `sleep`s and a
Python that holds a lock."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vbench.errors import VbenchError
from vbench.params import TestbedParams
from vbench.params import testbed_params as make_params
from vbench.statedir import default_work_root
from vbench.testbed import local, owned, sysops
from vbench.testbed.local import Testbed

NAME = "ut22"


def params(work_root: Path, **extra) -> TestbedParams:
    return make_params({"name": NAME, "workers": 1, "work_root": str(work_root), **extra})


@pytest.fixture
def quiet_machine(monkeypatch):
    """Teardown with every call that would touch the machine's network or cgroups recorded, not run."""
    ran: list[list[str]] = []
    monkeypatch.setattr(
        sysops, "run", lambda cmd, check=True: ran.append(cmd) or subprocess.CompletedProcess(cmd, 0, "", "")
    )
    monkeypatch.setattr(sysops, "existing_netns", lambda: set())
    monkeypatch.setattr(sysops, "existing_links", lambda: set())
    monkeypatch.setattr(sysops, "link_exists", lambda name: True)  # as if every link named existed
    monkeypatch.setattr(local, "kill_cgroup", lambda rel: None)
    monkeypatch.setattr(local, "remove_cgroups", lambda rel: [])
    return ran


def write_state(tb: Testbed, **state) -> None:
    owned.make_state_dir(tb.paths.work_root)
    owned.make_own_dir(tb.paths.root)
    base = {"testbed": NAME, "bridge": tb.bridge, "root": str(tb.paths.root), "dirs": [str(tb.paths.root)]}
    tb.paths.state_file.write_text(json.dumps({**base, **state}))


@pytest.fixture
def sleeper():
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    proc.kill()
    proc.wait()


# -- the state directory ------------------------------------------------------------------------


def fake_stat(mode: int, uid: int = 0) -> os.stat_result:
    return os.stat_result((mode, 0, 0, 1, uid, 0, 0, 0, 0, 0))


@pytest.mark.parametrize(
    "st, why",
    [
        (fake_stat(stat.S_IFDIR | 0o700, uid=4242), "owned by uid 4242"),
        (fake_stat(stat.S_IFDIR | 0o777), "writable by its group or by others (mode 0777)"),
        (fake_stat(stat.S_IFDIR | 0o1777), "writable by its group or by others"),  # sticky /var/tmp style
        (fake_stat(stat.S_IFDIR | 0o770), "writable by its group"),
        (fake_stat(stat.S_IFLNK | 0o777), "symbolic link"),
        (fake_stat(stat.S_IFREG | 0o600), "not a directory"),
    ],
)
def test_a_state_dir_vbench_could_not_have_made_is_refused(st, why):
    assert why in owned.state_dir_problem(st, frozenset({0}))


def test_a_private_state_dir_of_root_or_the_user_is_trusted():
    assert owned.state_dir_problem(fake_stat(stat.S_IFDIR | 0o700), frozenset({0, 1000})) is None
    assert owned.state_dir_problem(fake_stat(stat.S_IFDIR | 0o755, uid=1000), frozenset({0, 1000})) is None


def test_the_state_dir_is_created_0700_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        owned.make_state_dir(tmp_path / "a" / "vbench")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a" / "vbench").st_mode) == 0o700


def test_a_world_writable_state_dir_is_refused_before_teardown_reads_it(tmp_path, quiet_machine, sleeper):
    tb = Testbed(params(tmp_path / "vb"), log=lambda _m: None)
    write_state(tb, pids=[owned.process_record(sleeper.pid)], links=["lxcbr0"])
    os.chmod(tb.paths.work_root, 0o777)
    with pytest.raises(
        VbenchError, match=f"state directory {tb.paths.work_root} is writable by its group or by others"
    ):
        tb.down(remove_kept=True)
    with pytest.raises(VbenchError, match="state directory"):
        Testbed(params(tmp_path / "vb")).attach()
    assert sleeper.poll() is None and quiet_machine == []  # nothing killed, nothing deleted
    assert tb.paths.root.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_a_foreign_owned_state_dir_is_refused(tmp_path, quiet_machine, sleeper):
    tb = Testbed(params(tmp_path / "vb"), log=lambda _m: None)
    write_state(tb, pids=[owned.process_record(sleeper.pid)])
    os.chown(tb.paths.root, 4242, 4242)
    with pytest.raises(VbenchError, match=f"{tb.paths.root} is owned by uid 4242"):
        tb.down(remove_kept=True)
    assert sleeper.poll() is None and tb.paths.root.exists()


def test_a_symlinked_state_dir_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    os.symlink(tmp_path / "elsewhere", tmp_path / "vb")
    with pytest.raises(VbenchError, match="is a symbolic link"):
        owned.check_state_dir(tmp_path / "vb")


def test_a_directory_in_the_testbeds_place_is_not_adopted(tmp_path):
    (tmp_path / "mine").mkdir()
    with pytest.raises(VbenchError, match="exists but no testbed state says vbench created it"):
        owned.make_own_dir(tmp_path / "mine")


def test_the_default_work_root_is_out_of_world_writable_trees():
    assert default_work_root(0, {}) == Path("/var/lib/vbench")
    assert default_work_root(1000, {"XDG_STATE_HOME": "/home/u/.st", "HOME": "/home/u"}) == Path("/home/u/.st/vbench")
    assert default_work_root(1000, {"XDG_STATE_HOME": "rel", "HOME": "/home/u"}) == Path("/home/u/.local/state/vbench")
    assert not str(TestbedParams().work_root).startswith(("/tmp", "/var/tmp"))


# -- pids ----------------------------------------------------------------------------------------


def test_the_start_time_is_field_22_even_with_spaces_and_parentheses_in_the_name():
    fields = " ".join(str(n) for n in range(4, 53))  # field 3 is the state; 4..52 hold their own numbers
    assert owned.parse_start_time(f"123 (a) b (c)) S {fields}") == 22
    assert owned.start_time(os.getpid()) == owned.parse_start_time(Path("/proc/self/stat").read_text())


@pytest.mark.parametrize(
    "record, now, same",
    [
        ({"pid": 7, "start": 100, "boot": "b1"}, (100, "b1"), True),
        ({"pid": 7, "start": 100, "boot": "b1"}, (101, "b1"), False),  # the number was reused
        ({"pid": 7, "start": 100, "boot": "b1"}, (100, "b2"), False),  # after a reboot
        ({"pid": 7, "start": 100, "boot": "b1"}, (None, "b1"), False),  # gone
        ({"pid": 7, "start": None, "boot": "b1"}, (100, "b1"), False),
        (7, (100, "b1"), False),  # a bare pid (old state files): unverifiable, never killed
    ],
)
def test_a_pid_is_ours_only_with_the_same_start_time_and_boot(record, now, same):
    assert owned.is_same_process(record, *now) is same


def test_a_stale_pid_is_not_killed(tmp_path, quiet_machine, sleeper):
    said = []
    tb = Testbed(params(tmp_path / "vb"), log=said.append)
    rec = owned.process_record(sleeper.pid)
    write_state(tb, pids=[{**rec, "start": rec["start"] + 1}])  # the same number, another process
    tb.down(remove_kept=True)
    time.sleep(0.2)
    assert sleeper.poll() is None
    assert any(f"pid {sleeper.pid} is no longer the process vbench started" in m for m in said)
    assert not tb.paths.root.exists()  # the rest of teardown went on


def test_the_process_vbench_started_is_killed(tmp_path, quiet_machine, sleeper):
    tb = Testbed(params(tmp_path / "vb"), log=lambda _m: None)
    write_state(tb, pids=[owned.process_record(sleeper.pid)])
    tb.down(remove_kept=True)
    assert sleeper.wait(timeout=10) is not None


# -- links, bridges, namespaces ---------------------------------------------------------------


def test_a_bridge_that_exists_before_bring_up_is_refused():
    why = owned.preexisting_problem("lxcbr0", ["vbh1"], ["vb-ctl"], {"lo", "lxcbr0"}, set(), False, "/r/vb", False)
    assert "cannot use bridge lxcbr0: it exists already and vbench did not create it" in why
    assert "neither adopts nor deletes it" in why


def test_links_namespaces_and_a_directory_in_the_way_are_refused_by_name():
    why = owned.preexisting_problem(
        "vbbr", ["vbh1", "vbp1"], ["vb-ctl", "vb-master"], {"vbp1"}, {"vb-master"}, False, "/r/vb", True
    )
    assert "namespace vb-master, link vbp1, directory /r/vb" in why
    assert owned.preexisting_problem("vbbr", ["vbh1"], ["vb-ctl"], {"lo"}, {"x"}, False, "/r/vb", False) is None
    assert "up already" in owned.preexisting_problem("vbbr", [], [], set(), set(), True, "/r/vb", True)


def test_preflight_refuses_a_foreign_bridge_before_creating_anything(tmp_path, monkeypatch):
    p = params(tmp_path / "vb", network={"bridge": "lxcbr0"})
    monkeypatch.setattr(local.os, "geteuid", lambda: 0)
    monkeypatch.setattr(local.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    monkeypatch.setattr(sysops, "existing_links", lambda: {"lo", "eth0", "lxcbr0"})
    monkeypatch.setattr(sysops, "existing_netns", lambda: set())
    with pytest.raises(VbenchError, match="testbed 'ut22' cannot use bridge lxcbr0: it exists already"):
        Testbed(p).preflight()


def test_bring_up_plans_every_link_name_it_may_create():
    links = Testbed(make_params({"name": "vb", "workers": 2, "vms_per_host": 2}))._planned_links()
    assert {"vbh0", "vbp0", "vbh3", "vbp3", "vbn1", "vbq1", "vbu1", "vbu1i", "vbu2", "vbu2i"} <= set(links)


def test_teardown_deletes_only_the_links_and_namespaces_its_state_lists(tmp_path, quiet_machine):
    tb = Testbed(params(tmp_path / "vb", network={"bridge": "lxcbr0"}), log=lambda _m: None)
    write_state(tb, links=["ut22h0", "ut22h1"], netns=[])  # no bridge: vbench did not create lxcbr0
    tb.down(remove_kept=True)
    deleted = [c[-1] for c in quiet_machine if c[:3] == ["ip", "link", "delete"]]
    assert deleted == ["ut22h0", "ut22h1"]
    assert not any(c[:3] == ["ip", "netns", "delete"] for c in quiet_machine)  # the hosts' names are not enough


def test_the_bridge_vbench_created_goes_last(tmp_path, quiet_machine):
    tb = Testbed(params(tmp_path / "vb", network={"bridge": "vbbr0"}), log=lambda _m: None)
    write_state(tb, links=["vbbr0", "ut22h0"])
    tb.down(remove_kept=True)
    assert [c[-1] for c in quiet_machine if c[:3] == ["ip", "link", "delete"]] == ["ut22h0", "vbbr0"]


def test_without_a_state_file_teardown_names_what_it_leaves(tmp_path, quiet_machine, monkeypatch):
    said = []
    monkeypatch.setattr(sysops, "existing_netns", lambda: {"ut22-ctl", "ut22-master"})
    monkeypatch.setattr(sysops, "existing_links", lambda: {"lo", "vbbr0"})
    tb = Testbed(params(tmp_path / "vb", network={"bridge": "vbbr0"}), log=said.append)
    (tmp_path / "vb" / NAME).mkdir(parents=True)
    tb.down(remove_kept=True)
    assert quiet_machine == []
    assert any("namespace ut22-ctl" in m and "link vbbr0" in m and "left in place" in m for m in said)
    assert (tmp_path / "vb" / NAME).exists()  # no state lists it


def test_the_sysops_link_parser_strips_peer_suffixes():
    text = "1: lo: <LOOPBACK,UP> mtu 65536\n7: vbh1@if6: <BROADCAST> mtu 1500 master vbbr0\n"
    assert sysops.parse_link_names(text) == {"lo", "vbh1"}


# -- a testbed kept up, and the lock ---------------------------------------------------------------


def test_a_testbed_kept_up_by_another_process_is_not_cleared_by_a_campaign(tmp_path, quiet_machine, sleeper):
    tb = Testbed(params(tmp_path / "vb"), log=lambda _m: None)
    gone = {"pid": 999999, "start": 1, "boot": owned.boot_id(), "cmd": "vbench testbed up"}
    write_state(tb, kept=True, holder=gone, pids=[owned.process_record(sleeper.pid)])
    with pytest.raises(VbenchError, match="brought up to stay up by pid 999999 .`vbench testbed up`."):
        Testbed(params(tmp_path / "vb")).down()  # what a campaign does first
    assert sleeper.poll() is None and tb.paths.root.exists()
    Testbed(params(tmp_path / "vb"), log=lambda _m: None).down(remove_kept=True)  # `vbench testbed down`
    assert sleeper.wait(timeout=10) is not None and not tb.paths.root.exists()


HOLDER = """
import sys, time
from pathlib import Path
from vbench.testbed import owned
owned.acquire(Path(sys.argv[1]), "testbed 'ut22'")
print("held", flush=True)
time.sleep(60)
"""


@pytest.fixture
def held_lock(tmp_path):
    work_root = tmp_path / "vb"
    owned.make_state_dir(work_root)
    lock = work_root / f"{NAME}.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock), "--campaign-x"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.stdout.readline().strip() == "held"
    yield proc, work_root, lock
    proc.kill()
    proc.wait()


def test_a_lock_held_by_another_process_is_refused_naming_it(held_lock):
    proc, _, lock = held_lock
    with pytest.raises(VbenchError, match=rf"testbed 'ut22' is in use by pid {proc.pid} \(.*--campaign-x\)"):
        owned.acquire(lock, "testbed 'ut22'")
    proc.kill()
    proc.wait()
    owned.acquire(lock, "testbed 'ut22'")  # its holder gone, the lock is free
    owned.release(lock)


def test_bring_up_and_teardown_are_refused_while_another_process_holds_the_testbed(held_lock, quiet_machine):
    proc, work_root, _ = held_lock
    with pytest.raises(VbenchError, match=f"in use by pid {proc.pid}"):
        Testbed(params(work_root)).up()
    with pytest.raises(VbenchError, match=f"in use by pid {proc.pid}"):
        Testbed(params(work_root)).down(remove_kept=True)
    assert quiet_machine == []


def test_one_process_holds_its_lock_once_and_teardown_releases_it(tmp_path, quiet_machine):
    p = params(tmp_path / "vb")
    a, b = Testbed(p, log=lambda _m: None), Testbed(p, log=lambda _m: None)
    assert a._lock() is True and b._lock() is False  # two objects of one process: one holder
    b.down(remove_kept=True)
    assert not owned.holds(a.paths.lock_file)

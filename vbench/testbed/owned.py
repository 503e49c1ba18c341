"""What a testbed owns, and proof of it (issue #22): vbench runs as root and must act only on
what it created itself.

- The state directory (`work_root`) is created 0700 and checked before anything is read from
  it: a directory someone else owns or can write could hold a `state.json` naming pids,
  namespaces and links of theirs for root to kill and delete.
- A pid is recorded with its start time (field 22 of /proc/<pid>/stat) and the boot it
  belongs to: after a reboot, or once the process is gone, the same number is someone else's.
- Links and namespaces are refused at bring-up when they exist already (never adopted, so
  never deleted later).
- One lock per testbed name (flock on `<work_root>/<name>.lock`): a second bring-up, campaign
  or teardown while a process works on the testbed is refused, naming that process.

The decisions are pure functions; the few that look at the machine are thin and separate.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import sys
from pathlib import Path

from vbench.errors import VbenchError

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


# -- the state directory ----------------------------------------------------------------------


def allowed_owners() -> frozenset[int]:
    """Root, or the user vbench runs as."""
    return frozenset({0, os.geteuid()})


def state_dir_problem(st: os.stat_result, owners: frozenset[int]) -> str | None:
    """Why a directory (its lstat) cannot be trusted with vbench's state; None when it can. Pure."""
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if st.st_uid not in owners:
        return f"is owned by uid {st.st_uid}, not by root or by the user vbench runs as"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"is writable by its group or by others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def check_state_dir(path: Path, owners: frozenset[int] | None = None) -> None:
    """Refuse to read from (or delete under) `path` unless vbench could have made it."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    why = state_dir_problem(st, allowed_owners() if owners is None else owners)
    if why:
        raise VbenchError(
            f"the testbed state directory {path} {why}; vbench runs as root and does not trust "
            "state it did not write (set testbed.work_root to a directory of its own, or remove it)"
        )


def make_state_dir(path: Path, owners: frozenset[int] | None = None) -> None:
    """Create `path` mode 0700 if it is missing (its parents as usual), then check it."""
    path = Path(path)
    if not os.path.lexists(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(path, 0o700)
            os.chmod(path, 0o700)  # whatever the umask
        except FileExistsError:
            pass  # made meanwhile: the check below judges it
    check_state_dir(path, owners)


def make_own_dir(path: Path) -> None:
    """Create a testbed's own directory, 0700; refuse one that exists already (not vbench's to take)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        raise VbenchError(
            f"{path} exists but no testbed state says vbench created it; vbench neither adopts nor "
            "deletes it: remove it yourself, or choose another testbed name or work_root"
        ) from None
    os.chmod(path, 0o700)


# -- processes --------------------------------------------------------------------------------


def parse_start_time(stat_text: str) -> int:
    """Field 22 (starttime, clock ticks after boot) of a /proc/<pid>/stat line. Pure.

    The command name (field 2) is in parentheses and may hold spaces and ')': fields are
    counted from after the last ')'."""
    rest = stat_text.rsplit(")", 1)[1].split()
    return int(rest[22 - 3])


def start_time(pid: int) -> int | None:
    try:
        return parse_start_time(Path(f"/proc/{pid}/stat").read_text())
    except (OSError, IndexError, ValueError):
        return None


def boot_id() -> str:
    try:
        return BOOT_ID.read_text().strip()
    except OSError:
        return ""


def process_record(pid: int) -> dict:
    """What is recorded of a process vbench started, to recognise it later."""
    return {"pid": pid, "start": start_time(pid), "boot": boot_id()}


def is_same_process(record: object, now_start: int | None, now_boot: str) -> bool:
    """Whether the process a record describes is the one that runs now under its pid. Pure.

    A bare pid (state written before start times were recorded) or one without a start time
    cannot be told from a later process with the same number: never ours."""
    if not isinstance(record, dict) or not isinstance(record.get("pid"), int):
        return False
    if record.get("start") is None or now_start is None:
        return False
    return record["start"] == now_start and record.get("boot", "") == now_boot


def still_ours(record: object) -> bool:
    pid = record.get("pid") if isinstance(record, dict) else None
    return isinstance(pid, int) and is_same_process(record, start_time(pid), boot_id())


# -- what exists before bring-up ---------------------------------------------------------------


def preexisting_problem(
    bridge: str,
    links: list[str],
    netns: list[str],
    existing_links: set[str],
    existing_netns: set[str],
    state_exists: bool,
    root: str,
    root_exists: bool,
) -> str | None:
    """Why bring-up must stop before creating anything; None when nothing it would make exists. Pure.

    A bridge, link, namespace or directory that exists already is not vbench's (or belongs to a
    testbed that is up): it is neither adopted nor, later, deleted."""
    if state_exists:
        return "is up already (its state file exists); run `vbench testbed down` first"
    if bridge in existing_links:
        return (
            f"cannot use bridge {bridge}: it exists already and vbench did not create it (another tool's "
            "bridge, or a testbed whose state is lost); vbench neither adopts nor deletes it: set "
            "network.bridge to a name of its own, or remove the bridge yourself"
        )
    clash = [f"namespace {n}" for n in netns if n in existing_netns]
    clash += [f"link {link}" for link in links if link in existing_links]
    if root_exists:
        clash.append(f"directory {root}")
    if clash:
        return (
            f"would create {', '.join(clash)}, which exist already and are in no vbench state; vbench "
            "neither adopts nor deletes them: remove them yourself, or choose another testbed name"
        )
    return None


# -- the lock ---------------------------------------------------------------------------------

#: Locks this process holds, by path: flock conflicts between two open files of one process,
#: and two Testbed objects of one name in one process (teardown of leftovers, then bring-up)
#: are one holder.
_HELD: dict[str, int] = {}


def holder_text(raw: str) -> str:
    """`pid N (command)` from a lock file's content. Pure."""
    try:
        h = json.loads(raw)
        return f"pid {h['pid']} ({h.get('cmd', '?')})"
    except (ValueError, KeyError, TypeError):
        return "a process that has not said who it is yet"


def acquire(path: Path, what: str) -> None:
    """Take the lock at `path` for this process, or refuse naming who holds it."""
    key = str(path)
    if key in _HELD:
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        raw = os.pread(fd, 4096, 0).decode(errors="replace")
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise VbenchError(
                f"{what} is in use by {holder_text(raw)}; wait for it to finish, or stop it (lock {path})"
            ) from None
        raise
    me = {"pid": os.getpid(), "start": start_time(os.getpid()), "cmd": " ".join(sys.argv)[:300]}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(me).encode(), 0)
    _HELD[key] = fd


def release(path: Path) -> None:
    fd = _HELD.pop(str(path), None)
    if fd is not None:
        os.close(fd)  # drops the flock; the file stays (removing it would race a waiting locker)


def holds(path: Path) -> bool:
    return str(path) in _HELD

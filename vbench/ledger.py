"""The campaign ledger: samples.jsonl as a sequence of whole appends, each closed by a record.

Every append `CampaignStore` makes (one cell with all its attempts, one configuration-failed
placeholder, one `bench`/`isolation` save) is its records followed by a closing record, written
in one write and fsync'd:

    {"kind": "commit", "records": 3, "cell_id": "b0/native/cpu", "cell_done": true, "timestamp": ...}

A record counts only when the closing record of its append is present and counts it; a cell is
done only when a closing record says so (`cell_done: false`: its configuration failed, it runs
again on resume; `cell_id: null`: an append outside a design). Whatever follows the last closing
record is an append that did not finish (disk full, power loss, kill -9 mid-write): readers
skip it, and the next append (a resume's first) cuts it off into `samples.jsonl.torn-<time>`,
so the cell runs again and its earlier lines are neither counted twice nor silently destroyed.

A ledger begins with a marker, `{"kind": "ledger", "format": 2}`. Lines before it (all of a
file without one) were written by older vbench: one fsync'd append per cell, no closing record.
They are read the old way (every whole line counts; a cell is done when any of its records is
not a configuration failure), because their cell boundaries cannot be recovered after the fact
and committed campaigns must not be rewritten. The marker is what tells a new ledger whose first
append tore (complete lines, no closing record) apart from such an old file. An old campaign
appended to (`--append`) gets the marker after its old lines; from there on the new rules hold.

Damage in the middle (a flipped byte, a line cut short, a line copied or lost: a bad disk, a
hand edit, a merge) is skipped, never counted: a closing record also carries `sha256`, the digest
of its append's record lines and of itself without that key, and an append whose lines do not
check out (unreadable, miscounted, another digest) is left out whole, its cell not done, so that
it runs again on resume. A closing record read a second time closes a copy of an append and is
left out too. A marker that was damaged or lost is known by the first closing record, which only
ever follows one. Lines left out are named (`LedgerView.skipped`, 1-based). Closing records
written before the digest (no `sha256`, and none with one before them) are checked by their count
alone; in an old file, a line that is a copy of an earlier one is left out, as an unreadable one is.

The closing and marker records have kinds other than "sample" and "failure": readers that go
through `read_ledger` (vbench.samples.read_records, vbench.stats.io) never see them.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from vbench import durable

MARKER_KIND = "ledger"
COMMIT_KIND = "commit"
FORMAT = 2
LEDGER_KINDS = frozenset({MARKER_KIND, COMMIT_KIND})
#: What vbench.samples writes: the records a ledger holds.
RECORD_KINDS = frozenset({"sample", "failure"})
#: The closing record's digest of its append (see the module doc).
DIGEST_KEY = "sha256"


@dataclass(frozen=True)
class _Line:
    number: int  # 1-based
    end: int  # byte offset just past the line
    raw: bytes
    data: dict[str, Any] | None  # None: torn (no newline) or not a JSON object


@dataclass
class LedgerView:
    """What a samples file holds, as the ledger rules read it."""

    #: The sample and failure records that count, in file order (as dicts).
    records: list[dict[str, Any]] = field(default_factory=list)
    done_cells: set[str] = field(default_factory=set)
    #: Bytes that are whole; past them is an append that did not finish (what a cut removes).
    end: int = 0
    size: int = 0
    #: The file carries the ledger marker (closing records rule after it).
    marked: bool = False
    #: Lines before the marker that were torn or not a JSON object: skipped, counted so that a
    #: reader can say so.
    skipped_lines: int = 0
    #: The line (1-based) of each record of `records`, so that a reader can name it.
    record_lines: list[int] = field(default_factory=list)
    #: Lines left out (1-based): unreadable, copies, the lines of an append that does not check
    #: out, a damaged marker. The torn tail past `end` is not listed.
    skipped: list[int] = field(default_factory=list)
    #: A closing record with a digest was read: every later one must have one.
    digests: bool = False


def _lines(path: Path) -> Iterator[_Line]:
    offset = 0
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            offset += len(raw)
            yield _Line(number, offset, raw, _parse(raw))


def _parse(raw: bytes) -> dict[str, Any] | None:
    # A line without its newline is torn even when it parses: the newline is written last.
    if not raw.endswith(b"\n"):
        return None
    try:
        d = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return d if isinstance(d, dict) else None


def _old_cell_done(d: dict[str, Any]) -> str | None:
    """The cell an old-format record finishes: any record of it, unless its configuration failed."""
    meta = d.get("metadata") or {}
    if isinstance(meta, dict) and "cell_id" in meta and not meta.get("configuration_failed"):
        return str(meta["cell_id"])
    return None


def read_ledger(path: Path) -> LedgerView:
    """Read a samples file by the ledger rules (FileNotFoundError if there is none)."""
    view = LedgerView()
    lines = list(_lines(path))
    marker, new_from = _marker(lines)
    pending: list[_Line] = []  # the lines of the append being read
    seen: set[bytes] = set()  # closing records read (marked part), whole record lines (old part)
    for i, line in enumerate(lines):
        view.size = line.end
        d = line.data
        if new_from is None or i < new_from:
            if i == marker and (d is None or d.get("kind") != MARKER_KIND):  # a damaged marker
                view.skipped.append(line.number)
            else:
                _read_old_line(view, line, seen)
            continue
        if not view.marked:
            view.marked, seen = True, set()
            view.end = lines[i - 1].end if i else 0
        if d is not None and d.get("kind") == COMMIT_KIND:
            _close_append(view, pending, line, seen)
            pending = []
            view.end = line.end
        elif not (d is not None and d.get("kind") == MARKER_KIND):
            pending.append(line)
    return view


def _marker(lines: list[_Line]) -> tuple[int | None, int | None]:
    """(index of the marker line, index of the first line the ledger rules hold for), or
    (None, None) for a file written before the ledger format. A closing record before any marker
    says that the marker was damaged (the line right before the closing record's append, which is
    then no record: unreadable, or of another kind) or lost: its append's records are the lines
    right before it."""
    for i, line in enumerate(lines):
        kind = line.data.get("kind") if line.data is not None else None
        if kind == MARKER_KIND:
            return i, i + 1
        if kind == COMMIT_KIND:
            n = line.data.get("records")  # type: ignore[union-attr]
            first = i - n if isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= i else i
            before = lines[first - 1].data if first > 0 else None
            if first > 0 and (before is None or before.get("kind") not in RECORD_KINDS):
                return first - 1, first
            return None, first
    return None, None


def _read_old_line(view: LedgerView, line: _Line, seen: set[bytes]) -> None:
    d = line.data
    if d is None:  # torn or unreadable: skipped, as the old reader did
        view.skipped_lines += 1
        if line.raw.endswith(b"\n"):
            view.skipped.append(line.number)
        return
    view.end = line.end
    if d.get("kind") == MARKER_KIND:
        view.marked = True
    elif d.get("kind") not in LEDGER_KINDS:
        if line.raw in seen:  # every record holds its own time stamp: a second one is a copy
            view.skipped_lines += 1
            view.skipped.append(line.number)
            return
        seen.add(line.raw)
        view.records.append(d)
        view.record_lines.append(line.number)
        cell = _old_cell_done(d)
        if cell is not None:
            view.done_cells.add(cell)


def _close_append(view: LedgerView, pending: list[_Line], commit: _Line, seen: set[bytes]) -> None:
    # An append whose lines are not all there and whole (its count or its digest disagrees), or
    # whose closing record was read already (a copy), is not trusted.
    c = commit.data or {}
    records = [line.data for line in pending]
    digest = c.get(DIGEST_KEY)
    trusted = (
        None not in records
        and len(records) == c.get("records")
        and commit.raw not in seen
        # Once closing records carry digests, one without is damaged (its key), not older.
        and (digest == _digest(b"".join(line.raw for line in pending), c) if digest or view.digests else True)
    )
    seen.add(commit.raw)
    view.digests = view.digests or digest is not None
    if not trusted:
        view.skipped += [line.number for line in (*pending, commit)]
        return
    view.records.extend(records)  # type: ignore[arg-type]
    view.record_lines += [line.number for line in pending]
    if c.get("cell_done") and c.get("cell_id") is not None:
        view.done_cells.add(str(c["cell_id"]))


def _digest(record_lines: bytes, commit: dict[str, Any]) -> str:
    """The digest a closing record carries: of its append's record lines as written, and of
    itself without the digest, so that neither can change unnoticed."""
    body = {k: v for k, v in commit.items() if k != DIGEST_KEY}
    return hashlib.sha256(record_lines + _json_line(body)).hexdigest()


def torn_path(path: Path) -> Path:
    """Where a cut-off tail is kept: beside the ledger, named by the time (UTC) of the cut."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    candidate = path.with_name(f"{path.name}.torn-{stamp}")
    n = 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.torn-{stamp}-{n}")
    return candidate


def cut_torn_tail(path: Path) -> Path | None:
    """Cut an unfinished append off the end of the ledger; the cut bytes are kept in a
    `.torn-<time>` file beside it (returned), never just dropped. None: nothing to cut."""
    if not path.exists():
        return None
    view = read_ledger(path)
    return _cut(path, view) if view.end < view.size else None


def _cut(path: Path, view: LedgerView) -> Path:
    with open(path, "rb") as fh:
        fh.seek(view.end)
        tail = fh.read()
    aside = torn_path(path)
    durable.write_bytes_new(aside, tail)  # kept (and on disk) before anything is cut
    with open(path, "r+b") as fh:
        fh.truncate(view.end)
        fh.flush()
        os.fsync(fh.fileno())
    return aside


def append_unit(
    path: Path, records: list[dict[str, Any]], cell_id: str | None = None, cell_done: bool = True
) -> Path | None:
    """Append `records` and their closing record as one fsync'd write. A torn tail left by an
    earlier append is cut off first (its path is returned), so that no closing record ever
    vouches for lines it did not write."""
    view = read_ledger(path) if path.exists() else LedgerView()
    aside = _cut(path, view) if view.end < view.size else None
    if not view.marked:
        _append_bytes(path, _json_line({"kind": MARKER_KIND, "format": FORMAT, "timestamp": time.time()}))
    body = b"".join(_json_line(r) for r in records)
    commit: dict[str, Any] = {
        "kind": COMMIT_KIND,
        "records": len(records),
        "cell_id": cell_id,
        "cell_done": cell_done,
        "timestamp": time.time(),
    }
    commit[DIGEST_KEY] = _digest(body, commit)
    _append_bytes(path, body + _json_line(commit))
    return aside


def _json_line(d: dict[str, Any]) -> bytes:
    return (json.dumps(d, sort_keys=True) + "\n").encode("utf-8")


def _append_bytes(path: Path, data: bytes) -> None:
    """Append and fsync; a write that fails half-way (disk full, Ctrl-C) is taken back, so this
    process's next append does not follow a torn one. A new file's name is made durable too.
    Unbuffered (os.write): a buffer left holding the failed bytes would be written at close."""
    new = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        start = os.lseek(fd, 0, os.SEEK_END)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except BaseException:
            _take_back(fd, start)
            raise
    finally:
        os.close(fd)
    if new:
        durable.fsync_dir(path.parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _take_back(fd: int, start: int) -> None:
    try:
        os.ftruncate(fd, start)
    except OSError:  # then the next append's cut removes it
        pass

"""The soak's own reading of a campaign ledger (samples.jsonl), strict and apart from vbench's.

The soak checks vbench, so it does not read the ledger through vbench.ledger: it reads the
format that module's doc states (a marker line, then appends of record lines each closed by a
`commit` record counting them and carrying the SHA-256 of the append) and, unlike vbench's
reader, which skips what it cannot trust, it names everything that is not exactly that. After a
resume the ledger must be whole: a fault may tear an append, but the resume cuts a torn tail off
(into samples.jsonl.torn-<time>) before it appends. Pure: bytes in, records out.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

MARKER_KIND = "ledger"
COMMIT_KIND = "commit"
RECORD_KINDS = ("sample", "failure")


@dataclass(frozen=True)
class Append:
    """One closed append: its records (as dicts) and what its closing record says."""

    first_line: int  # 1-based, of its first record (of its closing record when it has none)
    cell_id: str | None
    cell_done: bool
    records: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class LedgerReading:
    appends: tuple[Append, ...] = ()
    problems: tuple[str, ...] = ()
    #: Bytes through the last closing record (what a resume keeps of it).
    whole_bytes: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def done_counts(self) -> dict[str, int]:
        """cell id -> closing records that say it is done."""
        out: dict[str, int] = {}
        for a in self.appends:
            if a.cell_done and a.cell_id is not None:
                out[a.cell_id] = out.get(a.cell_id, 0) + 1
        return out


def digest(record_lines: bytes, commit: dict[str, Any]) -> str:
    """sha256 over the append's record lines as written and the closing record without its
    digest, as one sorted-keys JSON line (the format vbench.ledger's doc states)."""
    body = {k: v for k, v in commit.items() if k != "sha256"}
    return hashlib.sha256(record_lines + (json.dumps(body, sort_keys=True) + "\n").encode()).hexdigest()


@dataclass
class _Reader:
    problems: list[str] = field(default_factory=list)
    appends: list[Append] = field(default_factory=list)
    pending: list[tuple[int, bytes, dict[str, Any]]] = field(default_factory=list)
    whole: int = 0


def read(raw: bytes) -> LedgerReading:
    """The appends of a ledger and every way it is not exactly the format. Pure."""
    r = _Reader()
    offset = 0
    lines = raw.splitlines(keepends=True)
    for number, line in enumerate(lines, start=1):
        offset += len(line)
        if not line.endswith(b"\n"):
            r.problems.append(f"line {number}: torn (no newline at the end of the file)")
            continue
        try:
            doc = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            r.problems.append(f"line {number}: not JSON")
            continue
        if not isinstance(doc, dict):
            r.problems.append(f"line {number}: not a JSON object")
            continue
        kind = doc.get("kind")
        if number == 1:
            if kind != MARKER_KIND:
                r.problems.append(f"line 1: not the ledger marker (kind {kind!r})")
            else:
                r.whole = offset
                continue
        if kind == MARKER_KIND:
            r.problems.append(f"line {number}: a second ledger marker")
        elif kind == COMMIT_KIND:
            _close(r, number, line, doc)
            r.whole = offset
        elif kind in RECORD_KINDS:
            r.pending.append((number, line, doc))
        else:
            r.problems.append(f"line {number}: unknown kind {kind!r}")
    if r.pending:
        r.problems.append(f"lines {r.pending[0][0]}-{r.pending[-1][0]}: records after the last closing record")
    if not lines:
        r.problems.append("the ledger is empty")
    return LedgerReading(tuple(r.appends), tuple(r.problems), r.whole)


def _close(r: _Reader, number: int, line: bytes, commit: dict[str, Any]) -> None:
    records = r.pending
    r.pending = []
    first = records[0][0] if records else number
    if commit.get("records") != len(records):
        r.problems.append(
            f"line {number}: closing record counts {commit.get('records')!r}, the append has {len(records)}"
        )
    if commit.get("sha256") != digest(b"".join(raw for _, raw, _ in records), commit):
        r.problems.append(
            f"line {number}: the closing record's sha256 does not match its append (lines {first}-{number})"
        )
    done = commit.get("cell_done")
    if not isinstance(done, bool):
        r.problems.append(f"line {number}: cell_done is {done!r}, not true or false")
    cell = commit.get("cell_id")
    if cell is not None and not isinstance(cell, str):
        r.problems.append(f"line {number}: cell_id is {cell!r}")
        cell = str(cell)
    r.appends.append(Append(first, cell, done is True, tuple(doc for _, _, doc in records)))


def append_bytes(records: list[dict[str, Any]], cell_id: str | None, cell_done: bool, timestamp: float = 0.0) -> bytes:
    """An append as the format has it, for building ledgers in tests. Pure."""
    body = b"".join((json.dumps(rec, sort_keys=True) + "\n").encode() for rec in records)
    commit: dict[str, Any] = {
        "kind": COMMIT_KIND,
        "records": len(records),
        "cell_id": cell_id,
        "cell_done": cell_done,
        "timestamp": timestamp,
    }
    commit["sha256"] = digest(body, commit)
    return body + (json.dumps(commit, sort_keys=True) + "\n").encode()


def marker_bytes(timestamp: float = 0.0) -> bytes:
    return (json.dumps({"kind": MARKER_KIND, "format": 2, "timestamp": timestamp}, sort_keys=True) + "\n").encode()

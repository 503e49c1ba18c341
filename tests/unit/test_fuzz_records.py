"""Issue #52 item 4: the ledger (samples.jsonl) corrupted anywhere, not only at its tail.

A ledger of several cells (samples, a failure, a configuration that failed, an append outside a
design) is written by `CampaignStore` as the runner writes it; Hypothesis then flips a byte,
cuts a line short in the middle, duplicates a run of lines, deletes a line or tears the tail.
Read back by the ledger's rules (`read_ledger`, and through it `samples.read_records`, the
runner's `done_cells` and `stats.tidy.read_campaign`), the damage is skipped with the lines
named, or refused with vbench's error; never counted: no record more often than it was written,
none changed, no cell done that was not, and a done cell has every record it was written with.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vbench.errors import VbenchError
from vbench.ledger import read_ledger
from vbench.samples import Failure, Sample, append_records, read_records
from vbench.stats.tidy import read_campaign
from vbench.store import CampaignStore

FUZZ = settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _sample(cell: str | None, metric: str, value: float) -> Sample:
    meta = {"platform": "native", **({"cell_id": cell} if cell else {})}
    return Sample("cpu", metric, value, "events/s", meta, timestamp=1700000000.5)


def _ledger(root: Path) -> bytes:
    """A campaign's ledger as the runner writes it; the same bytes every time but the stamps."""
    store = CampaignStore(root)
    store.save_runs([("r0", [_sample("b0/native/cpu", "events", 101.25)], {})], {"cell_id": "b0/native/cpu"})
    store.save_runs(
        [("r1", [_sample("b0/native/dd", "events", 7.5), _sample("b0/native/dd", "latency", 2.0)], {})],
        {"cell_id": "b0/native/dd"},
    )
    fail = Failure("cpu", "testbed did not come up", {}, "", {"configuration_failed": True}, timestamp=1.0)
    store.save_runs([("r2", [fail], {})], {"cell_id": "b0/lxc/cpu"}, cell_done=False)
    store.save_runs(
        [("r3", [_sample("b1/native/cpu", "events", 99.0), Failure("cpu", "host busy", timestamp=2.0)], {})],
        {"cell_id": "b1/native/cpu"},
    )
    store.save_runs([("r4", [_sample(None, "events", 3.0)], {})], {})  # `bench run`: no cell
    store.save_runs([("r5", [_sample("b1/native/dd", "events", 55.0)], {})], {"cell_id": "b1/native/dd"})
    return store.samples_path.read_bytes()


def _clean_ledger(tmp_path: Path) -> tuple[Path, Path]:
    """The campaign directory `tmp_path/camp` and `tmp_path/clean`, a copy of its ledger as the
    runner writes it: written once, since the fixture's directory lasts for every example."""
    root, clean = tmp_path / "camp", tmp_path / "clean"
    if not clean.exists():
        clean.write_bytes(_ledger(root))
    return root, clean


def _key(record: dict) -> str:
    return json.dumps(record, sort_keys=True)


def _cell_records(records: list[dict]) -> Counter:
    return Counter((r.get("metadata") or {}).get("cell_id") for r in records)


@st.composite
def corrupted(draw, data: bytes) -> tuple[str, bytes]:
    """One corruption anywhere in `data`: (what was done, the bytes)."""
    lines = data.splitlines(keepends=True)
    kind = draw(st.sampled_from(["flip", "flip", "cut line", "duplicate", "delete line", "torn tail"]))
    if kind == "flip":
        i = draw(st.integers(0, len(data) - 1))
        b = draw(st.integers(0, 255).filter(lambda b: b != data[i]))
        return f"byte {i} -> {b}", data[:i] + bytes([b]) + data[i + 1 :]
    if kind == "cut line":
        n = draw(st.integers(0, len(lines) - 1))
        keep = draw(st.integers(0, max(0, len(lines[n]) - 2)))
        lines[n] = lines[n][:keep] + b"\n"
        return f"line {n + 1} cut to {keep} bytes", b"".join(lines)
    if kind == "duplicate":
        n = draw(st.integers(0, len(lines) - 1))
        k = draw(st.integers(1, 4))
        where = draw(st.integers(n + 1, len(lines)))
        copy = lines[n : n + k]
        return f"lines {n + 1}-{n + len(copy)} copied to {where + 1}", b"".join(lines[:where] + copy + lines[where:])
    if kind == "delete line":
        n = draw(st.integers(0, len(lines) - 1))
        return f"line {n + 1} deleted", b"".join(lines[:n] + lines[n + 1 :])
    cut = draw(st.integers(1, len(data) - 1))
    return f"torn at byte {cut}", data[:cut]


def _check_view(path: Path, clean, what: str) -> None:
    view = read_ledger(path)
    written = Counter(_key(r) for r in clean.records)
    counted = Counter(_key(r) for r in view.records)
    extra = counted - written
    assert not extra, f"{what}: counted records never written (or more often than written): {list(extra)[:2]}"
    forged = view.done_cells - clean.done_cells
    assert not forged, f"{what}: cells done that were not: {forged}"
    # A done cell has every record it was written with: its results are never a part passed off
    # as the whole.
    have, had = _cell_records(view.records), _cell_records(clean.records)
    for cell in view.done_cells:
        assert have[cell] == had[cell], f"{what}: cell {cell} done with {have[cell]} of its {had[cell]} records"
    lost = written - counted
    if lost and view.end == view.size:
        assert view.skipped, f"{what}: {sum(lost.values())} record(s) dropped without naming a line"
    n_lines = path.read_bytes().count(b"\n") + 1
    assert all(1 <= n <= n_lines for n in view.skipped), (what, view.skipped)


@FUZZ
@given(data=st.data())
def test_a_corrupted_ledger_is_skipped_with_its_lines_named_never_counted(tmp_path, data):
    root, clean = _clean_ledger(tmp_path)
    what, damaged = data.draw(corrupted(clean.read_bytes()))
    path = root / "samples.jsonl"
    path.write_bytes(damaged)
    _check_view(path, read_ledger(clean), what)
    # The readers built on the ledger see the same records, or refuse with vbench's error.
    try:
        records = list(read_records(path))
    except VbenchError:
        return
    assert len(records) == len(read_ledger(path).records), what


@settings(FUZZ, max_examples=40)
@given(data=st.data())
def test_the_campaign_reader_counts_what_the_ledger_counts(tmp_path, data):
    root, clean = _clean_ledger(tmp_path)
    what, damaged = data.draw(corrupted(clean.read_bytes()))
    (root / "samples.jsonl").write_bytes(damaged)
    try:
        tidy = read_campaign(root)
    except VbenchError:
        return
    assert len(tidy.samples) + len(tidy.failures) == len(read_ledger(root / "samples.jsonl").records), what


@settings(FUZZ, max_examples=80)
@given(data=st.data())
def test_two_or_three_corruptions_never_crash_a_reader_nor_count_a_record_twice(tmp_path, data):
    root, clean_path = _clean_ledger(tmp_path)
    clean = read_ledger(clean_path)
    damaged, whats = clean_path.read_bytes(), []
    for _ in range(data.draw(st.integers(2, 3))):
        if len(damaged) < 2:
            break
        what, damaged = data.draw(corrupted(damaged))
        whats.append(what)
    path = root / "samples.jsonl"
    path.write_bytes(damaged)
    view = read_ledger(path)
    # Several corruptions can forge a record (a flipped digit under a flipped checksum is
    # astronomically unlikely; a copy of a whole append is not): none is counted twice.
    written = Counter(_key(r) for r in clean.records)
    counted = Counter(_key(r) for r in view.records)
    assert all(counted[k] <= written[k] for k in counted if k in written), whats
    try:
        list(read_records(path))
        read_campaign(root)
    except VbenchError:
        pass


# -- a ledger written before the ledger format (no marker, no closing records) ---------------------


def _old_ledger(path: Path) -> bytes:
    append_records(
        path,
        [
            _sample("b0/native/cpu", "events", 1.5),
            _sample("b0/native/dd", "events", 2.5),
            Failure("cpu", "no testbed", {}, "", {"cell_id": "b0/lxc/cpu", "configuration_failed": True}, 3.0),
            _sample("b1/native/cpu", "events", 4.5),
        ],
    )
    return path.read_bytes()


@settings(FUZZ, max_examples=80)
@given(data=st.data())
def test_an_old_ledger_corrupted_anywhere_never_crashes_a_reader_nor_counts_a_copied_line(tmp_path, data):
    path = tmp_path / "camp" / "samples.jsonl"
    if not (tmp_path / "clean").exists():
        (tmp_path / "clean").write_bytes(_old_ledger(path))
    clean_bytes = (tmp_path / "clean").read_bytes()
    clean = read_ledger(tmp_path / "clean")
    what, damaged = data.draw(corrupted(clean_bytes))
    path.write_bytes(damaged)
    view = read_ledger(path)
    if what.startswith("lines") or what.endswith("deleted") or what.startswith("torn"):
        # Nothing forged: every line counted is one written, once.
        written = Counter(_key(r) for r in clean.records)
        assert not Counter(_key(r) for r in view.records) - written, what
        assert view.done_cells <= clean.done_cells, what
    try:
        assert len(list(read_records(path))) == len(view.records)
        read_campaign(path.parent)
    except VbenchError:
        pass

"""A campaign's progress as the person waiting for it sees it: cells done / total, the cell
running now, elapsed time, an ETA from the cells already run, and one line per finished cell.

On a terminal it is a live tqdm bar; anywhere else (a notebook executed by papermill for
`dvc repro`, a CI log, a pipe) it is plain lines, one when a cell starts and one when it
ends, so the record stays readable and nothing depends on carriage returns.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol, TextIO

from tqdm import tqdm


class CampaignProgress(Protocol):
    """What the campaign runner tells whoever watches it."""

    def begin(self, cell_ids: list[str]) -> None: ...

    def cell_started(self, cell_id: str) -> None: ...

    def cell_finished(self, cell_id: str, failure: str | None, together: int = 1) -> None: ...

    def cell_skipped(self, cell_id: str, why: str) -> None: ...

    def end(self) -> None: ...


def eta_seconds(finished: list[tuple[str, float]], remaining: list[str], elapsed: float | None = None) -> float | None:
    """Seconds left: each remaining cell takes the mean time of the finished cells of its kind
    (its benchmark variant), or of all finished cells when none of its kind has run. With
    `elapsed` (wall time since the start), the time spent between cells so far (bring-ups, the
    quiet gate's waits, teardowns) is added in the same proportion: cells alone made a campaign
    of 3 bring-ups per block say 36 min left when 51 were (this says 59). Pure.

    None until a cell has finished: an ETA from nothing would be a guess."""
    if not finished:
        return None
    by_key: dict[str, list[float]] = {}
    for key, seconds in finished:
        by_key.setdefault(key, []).append(seconds)
    in_cells = sum(s for _, s in finished)
    overall = in_cells / len(finished)
    left = sum(sum(by_key[k]) / len(by_key[k]) if k in by_key else overall for k in remaining)
    if elapsed is not None and in_cells > 0:
        left *= max(1.0, elapsed / in_cells)
    return left


def clock_text(seconds: float | None) -> str:
    """1h02m, 4m05s, 12s; '?' when unknown. Pure."""
    if seconds is None:
        return "?"
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


_BLOCK_ROUND = re.compile(r"b\d+/(?:r\d+/)?")


def variant_key(cell_id: str) -> str:
    """The part of a cell id that names what runs (configuration/benchmark), without the block
    and the round: the runs of one variant in every round take about as long."""
    return _BLOCK_ROUND.sub("", cell_id, count=1) if _BLOCK_ROUND.match(cell_id) else cell_id.split("/", 1)[-1]


@dataclass
class ProgressReport:
    """The one CampaignProgress of vbench: a tqdm bar on a terminal, lines elsewhere."""

    stream: TextIO = field(default_factory=lambda: sys.stderr)
    clock: Callable[[], float] = time.monotonic
    live: bool | None = None  # None: a bar when the stream is a terminal
    title: str = "campaign"
    unit: str = "cells"
    _keys: dict[str, str] = field(default_factory=dict)  # cell id -> variant key, of the cells to run
    _finished: list[tuple[str, float]] = field(default_factory=list)
    _failed: int = 0
    _unstarted: int = 0  # cells finished without having started (their configuration failed first)
    _t0: float = 0.0
    _started: dict[str, float] = field(default_factory=dict)  # cell id -> when it started, while it runs
    _bar: tqdm | None = None

    def begin(self, cell_ids: list[str]) -> None:
        self._keys = {c: variant_key(c) for c in cell_ids}
        self._t0 = self.clock()
        if self.live if self.live is not None else _is_terminal(self.stream):
            self._bar = tqdm(
                total=len(cell_ids),
                file=self.stream,
                dynamic_ncols=True,
                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]",
            )
        self._say(f"{self.title}: {len(cell_ids)} {self.unit} to run")

    @property
    def done(self) -> int:
        return len(self._finished) + self._unstarted

    def _eta(self) -> float | None:
        return eta_seconds(self._finished, self._remaining(), self.clock() - self._t0)

    def status(self) -> str:
        """`3/12 cells, 2m10s elapsed, ETA 6m30s`. The ETA counts every cell not finished yet."""
        eta = self._eta()
        return (
            f"{self.done}/{len(self._keys)} {self.unit}, {clock_text(self.clock() - self._t0)} elapsed, "
            f"ETA {clock_text(eta)}"
        )

    def cell_started(self, cell_id: str) -> None:
        self._started[cell_id] = self.clock()
        if self._bar is not None:
            self._bar.set_description_str(cell_id, refresh=False)
            self._bar.set_postfix_str(f"ETA {clock_text(self._eta())}")
        else:
            self._say(f"[{self.status()}] running {cell_id}")

    def cell_finished(self, cell_id: str, failure: str | None, together: int = 1) -> None:
        """`together`: cells that ran at the same moment (a duet); each counts for its share of
        the time in the ETA. A cell that never started (its configuration failed before it, or at
        its bring-up) has no time: it counts as done, says so, and is not in the ETA's means."""
        started = self._started.pop(cell_id, None)
        if started is None:
            self._unstarted += 1
            took_text = "not started"
        else:
            took = self.clock() - started
            self._finished.append((self._keys.get(cell_id, variant_key(cell_id)), took / together))
            took_text = clock_text(took)
        self._failed += failure is not None
        verdict = "ok" if failure is None else f"FAILED: {failure}"
        self._say(f"[{self.done}/{len(self._keys)}] {cell_id}: {verdict} ({took_text})")
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix_str(f"ETA {clock_text(self._eta())}")

    def cell_skipped(self, cell_id: str, why: str) -> None:
        self._keys.pop(cell_id, None)
        if self._bar is not None:
            self._bar.total = len(self._keys)
            self._bar.refresh()
        self._say(f"{cell_id}: skipped ({why})")

    def end(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        self._say(
            f"{self.title}: {self.done} {self.unit} run ({self._failed} failed) in "
            f"{clock_text(self.clock() - self._t0)}"
        )

    def note(self, line: str) -> None:
        """A log line of the campaign, timestamped, printed above the bar when there is one."""
        self._say(f"{time.strftime('%H:%M:%S')} {line}")

    def _remaining(self) -> list[str]:
        return list(self._keys.values())[self.done :]

    def _say(self, line: str) -> None:
        if self._bar is not None:
            self._bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class NoProgress:
    """For callers that watch nothing (tests, library use)."""

    def begin(self, cell_ids: list[str]) -> None: ...

    def cell_started(self, cell_id: str) -> None: ...

    def cell_finished(self, cell_id: str, failure: str | None, together: int = 1) -> None: ...

    def cell_skipped(self, cell_id: str, why: str) -> None: ...

    def end(self) -> None: ...

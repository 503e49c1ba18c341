"""While a stress runs: tenant B's task count (does pids.max hold?) and the machine's
responsiveness (can the controller still open an SSH session to tenant A and run `true`?).

Both are recorded as data for every stress, not only the fork bomb, so the baseline shows
what "responsive" means on this (shared, noisy) machine.
"""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass, field

from vbench.host import Host, connect
from vbench.isolation.pids import PidsCgroup


@dataclass(frozen=True)
class WatchSummary:
    """What one watch saw. Probe latencies are whole SSH sessions (connect + `true` + close)."""

    pids_max: int | None
    pids_peak: int
    pids_samples: int
    refused_forks: int
    probe_latencies_s: tuple[float, ...]
    probe_failures: int

    @property
    def probe_max_s(self) -> float | None:
        return max(self.probe_latencies_s) if self.probe_latencies_s else None

    @property
    def probe_median_s(self) -> float | None:
        return statistics.median(self.probe_latencies_s) if self.probe_latencies_s else None

    def responsive(self, within_s: float) -> bool:
        """Every probe answered, each within `within_s`."""
        return self.probe_failures == 0 and bool(self.probe_latencies_s) and self.probe_max_s <= within_s


def summarise(
    pids_max: int | None,
    counts: list[int],
    refused_before: int,
    refused_after: int,
    latencies: list[float],
    failures: int,
) -> WatchSummary:
    """Pure."""
    return WatchSummary(
        pids_max,
        max(counts, default=0),
        len(counts),
        max(0, refused_after - refused_before),
        tuple(round(x, 3) for x in latencies),
        failures,
    )


@dataclass
class Watch:
    """Background sampling of `cgroup` every `pids_every_s` and SSH probes of `probe` every
    `probe_every_s`, from `start()` to `stop()`."""

    cgroup: PidsCgroup | None
    probe: Host | None
    pids_every_s: float = 0.1
    probe_every_s: float = 2.0
    probe_timeout_s: float = 30.0
    _counts: list[int] = field(default_factory=list)
    _latencies: list[float] = field(default_factory=list)
    _failures: int = 0
    _refused0: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> "Watch":
        if self.cgroup is not None:
            self._refused0 = self.cgroup.refused_forks()
            self._threads.append(threading.Thread(target=self._sample_pids, daemon=True))
        if self.probe is not None:
            self._threads.append(threading.Thread(target=self._probe, daemon=True))
        for t in self._threads:
            t.start()
        return self

    def stop(self) -> WatchSummary:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=self.probe_timeout_s + 5)
        cg = self.cgroup
        limit = refused = None
        if cg is not None:
            try:
                limit, refused = cg.limit(), cg.refused_forks()
            except OSError:  # the tenant is already gone
                pass
        return summarise(
            limit,
            self._counts,
            self._refused0,
            refused if refused is not None else self._refused0,
            self._latencies,
            self._failures,
        )

    def _sample_pids(self) -> None:
        while not self._stop.is_set():
            try:
                self._counts.append(self.cgroup.current())
            except (OSError, ValueError):
                return
            self._stop.wait(self.pids_every_s)

    def _probe(self) -> None:
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                with connect(self.probe, connect_timeout=self.probe_timeout_s) as c:
                    c.run("true", hide=True, in_stream=False, timeout=self.probe_timeout_s)
                self._latencies.append(time.monotonic() - t0)
            except Exception:  # a probe that cannot connect or times out is the finding itself
                self._failures += 1
            self._stop.wait(self.probe_every_s)

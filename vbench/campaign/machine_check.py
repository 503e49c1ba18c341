"""Before a campaign: is this machine quiet, and as fast as on the days its earlier campaigns ran?

The quiet gate checks the machine before each round, but on a slow day of the machine every round
passes its own run's yardstick: `speculation-confirm` ran at 1.34 times this machine's CPU-probe
reference with three times the spread, and on 2026-11-27 the idle machine's probe took 1.5 times
its reference most of the morning. An hour of campaign on such a day buys far less precision. `vbench
campaign check NAME` reads the machine a few times, as the design's gate would, before anything
starts, compares the CPU probe with the reference from the campaigns beside NAME's
(vbench.campaign.machine_ref), and says whether to measure now; its exit status lets a script
wait for a good day (`vbench campaign check NAME && vbench campaign run NAME`).

One probe is noisy (on an idle machine single probes spread 40-75 ms), so the speed is judged on
the median of the readings, not reading by reading. `check` is pure given its `measure`.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Callable, Iterable

from vbench.campaign.machine_ref import ProbeReference
from vbench.campaign.quiet import FLAGGED, OK, QuietParams, QuietRecord, Readings, judge, measure
from vbench.wording import count, noun

#: How much slower than its reference the machine may be before `check` says "not now", when the
#: design sets no `quiet.max_machine_slowdown` (`speculation-confirm`'s slow day: x1.34).
DEFAULT_MAX_SLOWDOWN = 0.25


@dataclass(frozen=True)
class MachineCheck:
    records: tuple[QuietRecord, ...]
    reference: ProbeReference | None
    max_slowdown: float

    @property
    def probes(self) -> list[float]:
        return [r.readings.cpu_probe_ms for r in self.records if r.readings and r.readings.cpu_probe_ms is not None]

    @property
    def probe_ms(self) -> float | None:
        """The median CPU probe of the readings."""
        return statistics.median(self.probes) if self.probes else None

    @property
    def slowdown(self) -> float | None:
        """The median probe over this machine's reference (None: no reference or no probe)."""
        if self.reference is None or self.probe_ms is None:
            return None
        return self.probe_ms / self.reference.median_ms

    @property
    def noisy(self) -> list[QuietRecord]:
        """The readings that found the machine not quiet (outside CPU, steal, memory, ...)."""
        return [r for r in self.records if r.reasons]

    @property
    def slow(self) -> bool:
        return self.slowdown is not None and self.slowdown - 1 > self.max_slowdown

    @property
    def ready(self) -> bool:
        return not self.noisy and not self.slow

    def summary(self) -> list[str]:
        """The verdict, for the terminal."""
        n = len(self.records)
        lines = []
        if self.probe_ms is not None:
            probes = self.probes
            speed = (
                f"CPU probe median {self.probe_ms:.1f} ms over {count(len(probes), 'reading')}"
                f" ({min(probes):.1f}-{max(probes):.1f})"
            )
            if self.slowdown is not None:
                speed += f", x{self.slowdown:.2f} this machine's reference (max x{1 + self.max_slowdown:.2f}): " + (
                    "slower than on the days of the campaigns beside it; a campaign measured now will be "
                    "slower and likely noisier (speculation-confirm, at x1.34, had three times the spread)"
                    if self.slow
                    else "its usual speed"
                )
            else:
                speed += (
                    ": no campaign beside this one recorded a quiet probe on this CPU, so its usual speed is unknown"
                )
            lines.append(f"machine check: {speed}")
        lines.append(
            f"machine check: {n - len(self.noisy)} of {n} {noun(n, 'reading')} quiet"
            + (
                f"; not quiet: {'; '.join(dict.fromkeys(x for r in self.noisy for x in r.reasons))}"
                if self.noisy
                else ""
            )
        )
        lines.append("machine check: " + ("ready to measure" if self.ready else "not now"))
        return lines


def check(
    params: QuietParams,
    reference: ProbeReference | None,
    own: Iterable[int],
    *,
    readings: int = 10,
    max_slowdown: float | None = None,
    measure: Callable[[float, Iterable[int]], Readings] = measure,
    log: Callable[[str], None] = print,
) -> MachineCheck:
    """Read the machine `readings` times, each as the design's gate reads it, and judge each
    reading on everything but the probe's speed, which is judged once, on their median.
    `max_slowdown`: how much slower than the reference still counts as usual (default: the
    design's `max_machine_slowdown`, else DEFAULT_MAX_SLOWDOWN)."""
    if readings < 1:
        raise ValueError("readings: at least 1")
    limit = max_slowdown if max_slowdown is not None else params.max_machine_slowdown or DEFAULT_MAX_SLOWDOWN
    one_reading = _speed_not_judged(params)
    ref_ms = reference.median_ms if reference else None
    own = frozenset(own)
    records = []
    for i in range(readings):
        r = measure(params.window_s, own)
        reasons = judge(r, one_reading)
        rec = QuietRecord(FLAGGED if reasons else OK, r, reasons, machine_ref_ms=ref_ms)
        records.append(rec)
        log(f"machine check {i + 1}/{readings}: {rec.line()}")
    return MachineCheck(tuple(records), reference, limit)


def _speed_not_judged(params: QuietParams) -> QuietParams:
    """The design's gate without its CPU-probe limits: a single probe is too noisy to judge a
    day by, and a check has no run whose median it could be compared with."""
    return params.model_copy(update={"max_cpu_slowdown": None, "max_machine_slowdown": None})

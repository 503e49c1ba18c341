"""An SSH inventory as the campaign's hosts source: per configuration (platform label), the
inventory's hosts of that label, after the preflight (nothing touched when it fails) and the
checks before measuring (which block the configuration when the campaign asks for it, unless a
waiver is recorded). Nothing is torn down afterwards: the hosts are not ours to remove."""

from __future__ import annotations

import dataclasses
import json
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from vbench.errors import VbenchError
from vbench.hadoop import daemons as dm
from vbench.hadoop.config import HostLayout
from vbench.host import Host, connect
from vbench.inventory import checks
from vbench.inventory.model import Inventory, distinct_hosts, to_hosts
from vbench.inventory.preflight import require_usable
from vbench.params import TestbedParams

Log = Callable[[str], None]


class NotFitToMeasure(VbenchError):
    """The checks before measuring found hosts unfit and the campaign blocks on that."""


class InventorySource:
    local = False

    def __init__(
        self,
        inv: Inventory,
        facts_dir: Path | None = None,
        block_unfit: bool = False,
        waiver: str | None = None,
        log: Log = print,
        timeout_s: float = 10.0,
    ):
        self.inv = inv
        self.facts_dir = facts_dir
        self.block_unfit = block_unfit
        self.waiver = waiver
        self.log = log
        self.timeout_s = timeout_s
        self.hadoop_overrides = {"java_home": inv.java_home}
        self.ready_timeout_s = inv.ready_timeout_s
        self.reports: dict[str, list[checks.HostReport]] = {}

    def check(self, platforms: tuple[str, ...]) -> None:
        missing = [p for p in platforms if not self.inv.of_platform(p)]
        if missing:
            raise VbenchError(
                f"the inventory has no hosts labelled {', '.join(missing)} "
                f"(its platforms: {', '.join(self.inv.platforms())})"
            )

    def host_count(self, platform: str) -> int:
        """How many hosts a configuration of `platform` gets: the runner checks a design's
        calibrate `hosts` against it before anything starts."""
        return len(self.inv.of_platform(platform))

    def gate_hosts(self, platforms: tuple[str, ...]) -> list[Host]:
        """Every host of the campaign's platforms, each machine once: the quiet gate reads them all
        before each round, since an interleaved round runs on all of them."""
        return distinct_hosts(h for p in platforms for h in to_hosts(self.inv, p))

    def clear(self, testbed: TestbedParams) -> None:
        """Nothing: an inventory's leftover daemons are stopped when its hosts are next opened."""

    @contextmanager
    def open(self, platform: str, testbed: TestbedParams | None = None) -> Iterator[list[Host]]:
        ihosts = self.inv.of_platform(platform)
        require_usable(self.inv, self.timeout_s, ihosts)
        hosts = to_hosts(self.inv, platform)
        _stop_leftover_daemons(hosts)  # what a killed run left, as the testbed's down() would
        reports = checks.check_hosts(hosts, self.inv.java_home, checks.checked_dirs, self.inv.checks)
        self.reports[platform] = reports
        for line in checks.summary_lines(reports):
            self.log(line)
        unfit = [r for r in reports if not r.verdict.fit]
        if self.facts_dir is not None:
            out = self.facts_dir / platform
            checks.write_facts(reports, out)
            if unfit and self.waiver:
                _record_waiver(out, self.waiver, unfit)
        if unfit and self.block_unfit and not self.waiver:
            raise NotFitToMeasure(
                "not fit to measure: "
                + "; ".join(f"{r.check.host}: {', '.join(r.verdict.reasons)}" for r in unfit)
                + " (fix the hosts, or run with --waive 'why' to measure anyway, recorded)"
            )
        by_name = {r.check.host: r for r in reports}
        yield [dataclasses.replace(h, facts={**h.facts, **_fact_strings(by_name[h.name])}) for h in hosts]


def _fact_strings(rep: checks.HostReport) -> dict[str, str]:
    f = rep.facts()
    keep = ("governor", "turbo", "thp", "kernel", "virt", "virt_kind", "java_version", "clock_offset_ms", "fit")
    return {k: str(f[k]) for k in keep}


def _record_waiver(out: Path, why: str, unfit: list[checks.HostReport]) -> None:
    path = out / "waivers.json"
    old = json.loads(path.read_text()) if path.exists() else []
    old.append({"time": time.time(), "waiver": why, "hosts": {r.check.host: list(r.verdict.reasons) for r in unfit}})
    path.write_text(json.dumps(old, indent=1) + "\n")


def _stop_leftover_daemons(hosts: list[Host]) -> None:
    for h in hosts:
        lay = HostLayout(work_dir=h.work_dir, lib_dir="")
        with connect(h) as c:
            c.run(dm.stop_line([d for d in dm.DAEMONS if d.role == h.role], lay), hide=True, warn=True, in_stream=False)

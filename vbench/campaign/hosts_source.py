"""Where a configuration's hosts come from: the hook between the campaign runner and the
machines. Today's source is the local testbed (made and removed per configuration); a real
cluster's is an SSH inventory (vbench.inventory.source). The runner sees only `Host` records."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, ContextManager, Iterator, Protocol

from vbench.host import Host
from vbench.params import TestbedParams
from vbench.testbed import Testbed

Log = Callable[[str], None]


class HostsSource(Protocol):
    #: True when the hosts are made on this machine (so the machine-fit checks apply).
    local: bool
    #: How long a Hadoop cluster on these hosts may take to be ready (None: the cluster's default).
    ready_timeout_s: float | None

    def check(self, platforms: tuple[str, ...]) -> None:
        """Refuse (VbenchError/ParamsError) before anything starts, e.g. a platform with no hosts."""

    def open(self, platform: str, testbed: TestbedParams) -> ContextManager[list[Host]]:
        """The hosts of one configuration, ready for SSH; released on exit."""

    def gate_hosts(self, platforms: tuple[str, ...]) -> list[Host]:
        """The remote machines the quiet gate reads before each round (none: a local source's
        hosts share this machine, which the gate reads itself)."""

    def clear(self, testbed: TestbedParams) -> None:
        """Remove what a killed run left of this configuration's hosts (nothing for hosts that
        are not vbench's to remove)."""


class TestbedSource:
    """The local testbed: brought up for a configuration and torn down after it."""

    __test__ = False
    local = True

    def __init__(self, log: Log = print, ready_timeout_s: float | None = None):
        self.log = log
        self.ready_timeout_s = ready_timeout_s

    def check(self, platforms: tuple[str, ...]) -> None:
        return None

    def gate_hosts(self, platforms: tuple[str, ...]) -> list[Host]:
        return []

    def clear(self, testbed: TestbedParams) -> None:
        # What a killed run left is cleared; a testbed kept up by `vbench testbed up`, or in use by
        # another process (its lock), is refused, never destroyed.
        Testbed(testbed, log=self.log).down()

    @contextmanager
    def open(self, platform: str, testbed: TestbedParams) -> Iterator[list[Host]]:
        self.clear(testbed)
        with Testbed(testbed, log=self.log) as bed:
            yield bed.hosts

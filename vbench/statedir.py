"""Where the local testbed keeps its state, keys and guest trees by default (issue #22)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping


def default_work_root(euid: int | None = None, env: Mapping[str, str] | None = None) -> Path:
    """Never a world-writable tree such as /var/tmp, where anyone can create the directory
    first and hand root a state file of their own. Root: /var/lib/vbench; another user:
    $XDG_STATE_HOME/vbench, else ~/.local/state/vbench. Pure given `euid` and `env`."""
    euid = os.geteuid() if euid is None else euid
    env = os.environ if env is None else env
    if euid == 0:
        return Path("/var/lib/vbench")
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg.startswith("/"):  # the XDG spec: a relative value is invalid and ignored
        return Path(xdg) / "vbench"
    return Path(env.get("HOME") or Path.home()) / ".local" / "state" / "vbench"

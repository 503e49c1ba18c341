"""The cache outside the repository: Hadoop's jars, guest images, corpora, the KVM probe.

A core module of its own because hosts (testbed images), the cluster (Hadoop's jars) and the
benchmarks (corpora) all keep things there, and none of them may import the others for it.
"""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    base = os.environ.get("VBENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "vbench"
    )
    return Path(base)

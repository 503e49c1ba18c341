"""Column names, group keys and a deterministic ordering shared by the statistics modules."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from vbench.params import PLATFORMS

#: Columns every samples file must have.
REQUIRED_COLUMNS = ("experiment", "platform", "benchmark", "metric", "unit", "value", "repetition")

#: One group of repeated measurements (a "cell" of the design).
SAMPLE_KEY = ["experiment", "platform", "benchmark", "metric", "unit", "size"]

#: Platforms are compared within one of these (units are checked, not keyed: a unit that
#: differs between platforms is an error to report, not a reason to skip the baseline).
COMPARISON_KEY = ["experiment", "benchmark", "metric", "size"]


_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")


def natural_key(value: Any) -> tuple:
    """Order that reads naturally: "2" < "10", "1GB" < "10GB", "run2" < "run10"."""
    return _text_key(str(value))


@lru_cache(maxsize=65536)
def _text_key(text: str) -> tuple:
    """`natural_key` of a text, once per distinct text (a campaign's sort reads the same few
    hundred texts for thousands of samples)."""
    key = []
    for part in _NUMBER.split(text):
        if not part:
            continue
        key.append((0, float(part), part) if _NUMBER.fullmatch(part) else (1, 0.0, part))
    return tuple(key)


def platform_order(label: str) -> tuple[int, str]:
    """Where a compared label sorts: by its platform in vbench's order (`vbench.params.PLATFORMS`),
    then by its level ("gvisor/host" after "gvisor")."""
    order = {p: i for i, p in enumerate(PLATFORMS)}
    platform, _, level = label.partition("/")
    return order.get(platform, len(order)), level

"""Column names, group keys and a deterministic ordering shared by the statistics modules."""

from __future__ import annotations

import re
from typing import Any

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
    key = []
    for part in _NUMBER.split(str(value)):
        if not part:
            continue
        key.append((0, float(part), part) if _NUMBER.fullmatch(part) else (1, 0.0, part))
    return tuple(key)

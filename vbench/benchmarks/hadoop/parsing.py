"""Helpers shared by the Hadoop benchmark parsers. Pure."""

from __future__ import annotations

import re

from vbench.errors import JobFailed

# Hadoop's log4j prefix: "2026-11-22 01:15:38,041 INFO fs.TestDFSIO: "
_LOG_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ \w+ [\w.$]+: ?")


def strip_log_prefix(text: str) -> list[str]:
    return [_LOG_PREFIX.sub("", line) for line in text.splitlines()]


def labelled_values(text: str) -> dict[str, str]:
    """'label: value' lines of a Hadoop benchmark report (log prefixes removed)."""
    out = {}
    for line in strip_log_prefix(text):
        label, sep, value = line.rpartition(": ")
        if sep and label.strip():
            out[label.strip()] = value.strip()
    return out


def number_of(values: dict[str, str], label: str, what: str) -> float:
    if label not in values:
        raise JobFailed(f"{what}: no '{label}' in the output")
    try:
        return float(values[label].split()[0])
    except (ValueError, IndexError):
        raise JobFailed(f"{what}: '{label}' is not a number: {values[label]!r}") from None

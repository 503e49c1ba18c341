"""Helpers shared by the Hadoop benchmark parsers. Pure."""

from __future__ import annotations

import re

from vbench.errors import JobFailed

# Hadoop's log4j prefix: "2026-11-22 01:15:38,041 INFO fs.TestDFSIO: "
_LOG_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ \w+ [\w.$]+: ?")


#: A number as Hadoop's reports print one, and nothing else (float() would also take "nan",
#: "1_000" or " 12 ").
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


def whole_lines(text: str) -> list[str]:
    """The lines of `text` that end with their newline. A last line without one was cut off (a
    killed client, a dropped channel): "Throughput mb/sec: 19.4" of "19.44" is no number to keep."""
    return [line.removesuffix("\r") for line in text.split("\n")[:-1]]


def strip_log_prefix(text: str) -> list[str]:
    return [_LOG_PREFIX.sub("", line) for line in whole_lines(text)]


def labelled_values(text: str) -> dict[str, str]:
    """'label: value' lines of a Hadoop benchmark report (log prefixes removed; whole lines only)."""
    out = {}
    for line in strip_log_prefix(text):
        label, sep, value = line.rpartition(": ")
        if sep and label.strip():
            out[label.strip()] = value.strip()
    return out


def number_of(values: dict[str, str], label: str, what: str) -> float:
    if label not in values:
        raise JobFailed(f"{what}: no '{label}' in the output")
    # The whole value: "19 44" (a byte turned into a space) is not 19.
    if not _NUMBER.fullmatch(values[label]):
        raise JobFailed(f"{what}: '{label}' is not a number: {values[label]!r}")
    return float(values[label])

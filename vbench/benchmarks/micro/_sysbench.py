"""Reading sysbench 1.0's text report, shared by the cpu and membw modules.

sysbench 1.0 has no machine-readable report for these tests; its text layout is stable
("events per second:", "total time:") and LC_ALL=C keeps the decimal point a point.
"""

from __future__ import annotations

import re

from vbench.errors import JobFailed

from ._common import number


def field(text: str, label: str, what: str) -> float:
    """The number after `label:` ("total time: 2.0065s" -> 2.0065), the whole of it on a whole
    line: "2.0x65s" or a last line cut at "2.0" is no number."""
    m = re.search(rf"^[ \t]*{re.escape(label)}:[ \t]*([0-9]+(?:\.[0-9]+)?)s?[ \t]*\r?\n", text or "", re.M)
    if not m:
        raise JobFailed(f"{what}: no '{label}' in sysbench output")
    return number(f"{what} {label}", m[1])


def version(text: str) -> str:
    m = re.search(r"^sysbench (\S+)", text or "", re.M)
    return m[1] if m else ""

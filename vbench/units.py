"""Parsing of human sizes ("64MB", "1GiB") into bytes. Pure."""

from __future__ import annotations

import re
from typing import Any

_FACTORS = {
    "": 1,
    "B": 1,
    "K": 1024,
    "KB": 1024,
    "KIB": 1024,
    "M": 1024**2,
    "MB": 1024**2,
    "MIB": 1024**2,
    "G": 1024**3,
    "GB": 1024**3,
    "GIB": 1024**3,
    "T": 1024**4,
    "TB": 1024**4,
    "TIB": 1024**4,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


def parse_size(text: str | int) -> int:
    """Bytes in `text`. Binary multiples throughout, as Hadoop's own size suffixes are.

    >>> parse_size("64MB")
    67108864
    """
    if isinstance(text, bool):
        raise ValueError(f"not a size: {text!r}")
    if isinstance(text, int):
        if text < 0:
            raise ValueError(f"a size cannot be negative: {text}")
        return text
    m = _SIZE.match(str(text))
    if not m or m.group(2).upper() not in _FACTORS:
        raise ValueError(f"not a size: {text!r} (use e.g. 64MB, 1GiB, 512K)")
    return int(float(m.group(1)) * _FACTORS[m.group(2).upper()])


def mib_or_size(v: Any) -> Any:
    """A MiB count as given (2048), or a size with a unit ("1GB", "512MB") converted to MiB;
    for pydantic "before" validators of *_mb fields."""
    if isinstance(v, str) and not v.strip().isdigit():
        b = parse_size(v)
        if b % 1024**2:
            raise ValueError(f"{v!r} is not a whole number of MiB")
        return b // 1024**2
    return v


def format_size(n: int) -> str:
    """Shortest exact binary spelling of `n` bytes, e.g. 67108864 -> '64MB'."""
    for unit, factor in (("TB", 1024**4), ("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n >= factor and n % factor == 0:
            return f"{n // factor}{unit}"
    return f"{n}B"

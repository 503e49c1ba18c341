"""Counts in words that agree with them ("1 run", "3 runs"), for the notes the statistics write.

Those notes reach the paper's tables, where "run(s)" left the reader to do what the generator
knew: how many there were (issue #54). Pure.
"""

from __future__ import annotations


def noun(n: int | float, singular: str, plural: str | None = None) -> str:
    """`singular` for a count of exactly one, else `plural` (default: singular + "s")."""
    return singular if n == 1 else (plural or singular + "s")


def count(n: int | float, singular: str, plural: str | None = None) -> str:
    """ "1 run", "0 runs", "3 runs": the count and its noun."""
    return f"{n} {noun(n, singular, plural)}"

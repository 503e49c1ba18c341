"""Reading the statistics table back, as `compute_stats` returns it, the stage's parquet gives it
or its CSV: a cell as text, a number or a count whatever stands for missing there (None, NaN,
pd.NA), the comparison key as text, and the row a comparison prefers.
"""

from __future__ import annotations

import math

import pandas as pd

#: The columns that name one comparison of the table.
COMPARISON_ROW_KEY = ["experiment", "benchmark", "size", "metric", "platform", "baseline"]


def cell_text(v) -> str:
    """A cell as text; "" for a missing one."""
    return "" if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else str(v)


def cell_number(v) -> float | None:
    """A cell as a finite number, or None (missing, not a number, infinite)."""
    if v is None or v is pd.NA:
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def cell_count(v) -> int | None:
    """A cell as a whole number, or None."""
    x = cell_number(v)
    return None if x is None else int(x)


def key_as_text(table: pd.DataFrame, key: list[str] = COMPARISON_ROW_KEY) -> pd.DataFrame:
    """`table` with the columns of `key` it has as text, so that an empty size read back from CSV
    (NaN) neither drops nor splits a group."""
    return table.assign(**{c: table[c].map(cell_text) for c in key if c in table.columns})


def _preferred(rows: pd.DataFrame) -> list[bool]:
    return [cell_text(v).lower() == "true" for v in rows["preferred"]]


def preferred_row(rows: pd.DataFrame) -> pd.Series:
    """The row the table prefers among one comparison's `rows` (the paired interval where the runs
    are paired); the first listed where it prefers none, as for a comparison without numbers."""
    preferred = rows[_preferred(rows)]
    return (preferred if len(preferred) else rows).iloc[0]


def preferred_rows(rows: pd.DataFrame, key: list[str] = COMPARISON_ROW_KEY) -> pd.DataFrame:
    """`preferred_row` of each comparison of `rows` (grouped by `key`, as `groupby(key, sort=False)`
    groups them), in the order they first appear: one pass over the table, where a selection per
    comparison costs milliseconds each over a merged table's thousands."""
    if rows.empty:
        return rows
    groups = rows.groupby(key, sort=False).ngroup().tolist()
    preferred = _preferred(rows)
    chosen: dict[int, int] = {}
    for pos, (group, pref) in enumerate(zip(groups, preferred)):
        if group < 0:  # a key with a missing value, which groupby leaves out
            continue
        if group not in chosen or (pref and not preferred[chosen[group]]):
            chosen[group] = pos
    return rows.iloc[[chosen[g] for g in sorted(chosen)]]

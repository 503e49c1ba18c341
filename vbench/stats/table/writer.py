"""The statistics table as CSV text: a fixed float format, so that equal tables give equal bytes."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

FLOAT_FORMAT = "%.10g"


def format_table(table: pd.DataFrame) -> str:
    """CSV text with a fixed float format, so equal tables give equal bytes."""
    buf = io.StringIO()
    table.to_csv(buf, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    return buf.getvalue()


def write_table(table: pd.DataFrame, path: str | Path) -> None:
    Path(path).write_text(format_table(table), encoding="utf-8")

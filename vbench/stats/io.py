"""Read tidy samples (CSV, JSON lines, Parquet) and check them before any statistics run.

The JSON-lines reader also accepts what `vbench.samples.append_records` writes, through the
campaign reader (`vbench.stats.tidy.frames`): records with `kind: failure` are skipped (they are
not measurements) and the keys inside `metadata` (platform, repetition, ...) become columns.
Every JSON-lines file is read by the ledger's rules (vbench.ledger): only whole appends count,
its marker and closing records are not samples, an unreadable line (a torn one) is skipped.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from vbench.errors import ParamsError
from vbench.ledger import read_ledger
from vbench.stats.keys import REQUIRED_COLUMNS
from vbench.stats.tidy import value_text, frames

#: What vbench's own samples files hold (vbench.samples): read as the campaign reader reads them.
_RECORD_KINDS = frozenset({"sample", "failure"})

_TEXT_KEYS = ("experiment", "platform", "benchmark", "metric", "unit")
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f", ""}


def _read_jsonl(path: Path) -> pd.DataFrame:
    # One rule for a torn line, the ledger's (vbench.stats.tidy): what a crash leaves is skipped.
    ledger = read_ledger(path)
    df = _jsonl_frame(ledger.records)
    df.attrs["lines_skipped"] = ledger.skipped_lines
    return df


def _jsonl_frame(records: list[dict]) -> pd.DataFrame:
    if records and all(r.get("kind") in _RECORD_KINDS for r in records):
        samples, failures = frames(records)  # vbench's own records: the campaign reader's frames
        df = samples
        df.attrs["failures_skipped"] = len(failures)
        return df
    # Rows of someone else's tidy table as JSON lines: nested objects become dotted columns.
    failures = sum(1 for r in records if r.get("kind") == "failure")
    records = [r for r in records if r.get("kind") != "failure"]
    df = pd.json_normalize(records) if records else pd.DataFrame()
    renames = {
        c: c.split(".", 1)[1] for c in df.columns if c.startswith("metadata.") and c.split(".", 1)[1] not in df.columns
    }
    df = df.rename(columns=renames)
    df.attrs["failures_skipped"] = failures
    return df


def read_samples(path: str | Path) -> pd.DataFrame:
    """Read and validate a samples file; the format follows the file name's ending."""
    path = Path(path)
    if not path.is_file():
        raise ParamsError(str(path), "no such file")
    name = path.name.lower()
    try:
        if name.endswith((".csv", ".csv.gz")):
            df = pd.read_csv(path, keep_default_na=False, na_values=[""])
        elif name.endswith((".jsonl", ".ndjson", ".jsonl.gz")):
            df = _read_jsonl(path)
        elif name.endswith((".parquet", ".pq")):
            df = pd.read_parquet(path)
        else:
            raise ParamsError(str(path), "unknown format: use .csv, .jsonl/.ndjson or .parquet")
    except (ValueError, OSError) as exc:
        raise ParamsError(str(path), f"cannot read: {exc}") from None
    return validate_samples(df, source=str(path))


def _as_bool(series: pd.Series, source: str) -> pd.Series:
    def one(v):
        if isinstance(v, bool):
            return v
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return False
        s = str(v).strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
        raise ParamsError("warmup", f"{v!r} in {source} is not true/false")

    return series.map(one).astype(bool)


def validate_samples(df: pd.DataFrame, source: str = "samples") -> pd.DataFrame:
    """A cleaned copy: required columns present and filled, `value` finite, `size` text."""
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        found = ", ".join(map(str, df.columns)) or "none"
        raise ParamsError(source, f"missing required column(s) {', '.join(repr(c) for c in missing)} (found: {found})")
    if df.empty:
        raise ParamsError(source, "no samples")
    out = df.copy()
    for col in (*_TEXT_KEYS, "repetition"):
        empty = out[col].isna() | (out[col].astype(str).str.strip() == "")
        if empty.any():
            raise ParamsError(
                col,
                f"{int(empty.sum())} empty value(s) in {source}, first at data row {int(empty.to_numpy().argmax()) + 1}",
            )
    for col in _TEXT_KEYS:
        out[col] = out[col].astype(str)
    values = pd.to_numeric(out["value"], errors="coerce")
    bad = values.isna() | ~values.map(lambda v: math.isfinite(v) if pd.notna(v) else False)
    if bad.any():
        first = int(bad.to_numpy().argmax())
        raise ParamsError(
            "value",
            f"{int(bad.sum())} value(s) in {source} are not finite numbers, first at data row {first + 1}: "
            f"{df['value'].iloc[first]!r} (record failed runs as failures, not as samples)",
        )
    out["value"] = values.astype(float)
    out["size"] = out["size"].map(value_text) if "size" in out.columns else ""
    if "warmup" in out.columns:
        out["warmup"] = _as_bool(out["warmup"], source)
    out.attrs.update(df.attrs)
    out.attrs["source"] = source
    return out.reset_index(drop=True)

"""Read tidy samples (CSV, JSON lines, Parquet) and check them before any statistics run.

The JSON-lines reader also accepts what `vbench.samples.append_records` writes: records
with `kind: failure` are skipped (they are not measurements) and the keys inside
`metadata` (platform, repetition, ...) become columns. A campaign ledger (vbench.ledger) is
read by its rules: only whole appends count, its marker and closing records are not samples.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from vbench.errors import ParamsError
from vbench.ledger import read_ledger
from vbench.stats.keys import REQUIRED_COLUMNS

_TEXT_KEYS = ("experiment", "platform", "benchmark", "metric", "unit")
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f", ""}


def _read_jsonl(path: Path) -> pd.DataFrame:
    ledger = read_ledger(path)
    records = ledger.records if ledger.marked else _plain_jsonl(path)
    failures = sum(1 for r in records if isinstance(r, dict) and r.get("kind") == "failure")
    records = [r for r in records if not (isinstance(r, dict) and r.get("kind") == "failure")]
    df = pd.json_normalize(records) if records else pd.DataFrame()
    renames = {c: c.split(".", 1)[1] for c in df.columns if c.startswith("metadata.") and c.split(".", 1)[1] not in df.columns}
    df = df.rename(columns=renames)
    df.attrs["failures_skipped"] = failures
    return df


def _plain_jsonl(path: Path) -> list:
    """Records of a JSON-lines file that is not a ledger: a torn last line is tolerated, a bad
    line elsewhere is an error."""
    lines = path.read_text(encoding="utf-8").splitlines()
    records = []
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if i == len(lines):  # a torn last line is what a crash mid-append leaves
                continue
            raise ParamsError(str(path), f"line {i} is not valid JSON ({exc.msg})") from None
    return records


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


def _size_text(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


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
            raise ParamsError(col, f"{int(empty.sum())} empty value(s) in {source}, first at data row {int(empty.to_numpy().argmax()) + 1}")
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
    out["size"] = out["size"].map(_size_text) if "size" in out.columns else ""
    if "warmup" in out.columns:
        out["warmup"] = _as_bool(out["warmup"], source)
    out.attrs.update(df.attrs)
    out.attrs["source"] = source
    return out.reset_index(drop=True)

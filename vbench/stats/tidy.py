"""A campaign directory as tidy frames: the one reader of samples.jsonl.

`read_campaign(dir)` returns (samples, failures): one row per record, the record's fields
(benchmark, metric, value, unit, timestamp; for failures benchmark, reason, stderr_tail,
parameters, timestamp) beside every metadata key as a column. The pipeline's tidy stage, the
statistics reader (`vbench.stats.io`), the campaign view of the statistics and the paper
(`vbench.stats.campaign`) and the data-volume checks (`vbench.stats.volume`) all start here, so a
torn last line has one rule: the ledger's (`vbench.ledger.read_ledger`): only whole appends of a
ledger count, and in an old file (no ledger marker) an unreadable line is skipped, because that
is what a crash mid-append followed by a later append leaves.

Also here: the statistics' *cell*, `add_cells`, which makes runs with different parameters
(replication, stress, workers...) separate groups; the pipeline's tidy stage and the paper
label cells the same way.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from vbench.errors import ParamsError
from vbench.ledger import read_ledger
from vbench.samples import Failure, Sample, checked_record

#: Benchmark parameter standing for "data size" when the runner gave no `size`.
SIZE_PARAMS = {
    "terasort": "size_mb",
    "wordcount": "size_mb",
    "sort": "size_mb",
    "dfsio": "file_size_mb",
    "pi_digits": "digits",
}
#: Design factors that make different cells when they vary within an experiment.
FACTOR_COLUMNS = ("replication", "output_replication", "files", "stress", "workers", "vms_per_host", "interval")
#: Of those, the ones that index a time within one run (iperf3's reporting interval), not a level
#: a design chose.
TIME_INDEX_COLUMNS = ("interval",)


@dataclass(frozen=True)
class TidyCampaign:
    """What one campaign directory holds, as tables."""

    path: Path  # the campaign directory
    samples: pd.DataFrame
    failures: pd.DataFrame
    #: Bytes past the last whole append (a torn tail): not read; the next append cuts them aside.
    torn_bytes: int = 0


def samples_file(path: str | Path) -> Path:
    """`<path>/samples.jsonl`, or `path` itself when it names a file."""
    path = Path(path)
    f = path / "samples.jsonl" if path.is_dir() else path
    if not f.is_file():
        raise ParamsError(str(f), "no samples file (expected <campaign>/samples.jsonl)")
    return f


def sample_row(s: Sample) -> dict[str, Any]:
    # The record's own fields win over a metadata key of the same name.
    own = {"benchmark": s.benchmark, "metric": s.metric, "value": s.value, "unit": s.unit, "timestamp": s.timestamp}
    return {**own, **{k: v for k, v in s.metadata.items() if k not in own}}


def failure_row(f: Failure) -> dict[str, Any]:
    own = {
        "benchmark": f.benchmark,
        "reason": f.reason,
        "stderr_tail": f.stderr_tail,
        "parameters": dict(f.parameters),
        "timestamp": f.timestamp,
    }
    return {**own, **{k: v for k, v in f.metadata.items() if k not in own}}


def rows(
    records: list[dict[str, Any]], source: str | Path = "", lines: list[int] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(sample rows, failure rows) of record dicts as `Sample.to_dict` and `Failure.to_dict` write
    them, a row each with the keys its record has; one that is neither is refused naming `source`
    and its line (`lines`: each record's)."""
    samples, failures = [], []
    for i, d in enumerate(records):
        r = checked_record(d, source, lines[i] if lines else i + 1)
        if isinstance(r, Failure):
            failures.append(failure_row(r))
        else:
            samples.append(sample_row(r))
    return samples, failures


def frames(
    records: list[dict[str, Any]], source: str | Path = "", lines: list[int] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`rows` as frames: (samples, failures), a column per key any record has."""
    samples, failures = rows(records, source, lines)
    return pd.DataFrame(samples), pd.DataFrame(failures)


@dataclass(frozen=True)
class CampaignRows:
    """A campaign directory's records as `rows`, before they are a frame: a reader that reshapes
    each row (`vbench.stats.campaign.load_campaign`) starts here, not from a frame's records."""

    path: Path  # the campaign directory
    samples: list[dict[str, Any]]
    failures: list[dict[str, Any]]
    torn_bytes: int = 0


def read_rows(path: str | Path) -> CampaignRows:
    """The sample and failure rows of a campaign directory (or of a samples file), by the ledger's rules."""
    f = samples_file(path)
    view = read_ledger(f)
    samples, failures = rows(view.records, f, view.record_lines)
    return CampaignRows(f.parent, samples, failures, torn_bytes=view.size - view.end)


def read_campaign(path: str | Path) -> TidyCampaign:
    """`read_rows` as frames."""
    r = read_rows(path)
    return TidyCampaign(r.path, pd.DataFrame(r.samples), pd.DataFrame(r.failures), torn_bytes=r.torn_bytes)


def text_as_objects(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with its text columns as numpy object columns, as pandas before 3.0 held them: for the
    frames the statistics and the paper slice thousands of times (a campaign's samples, its
    statistics table). pandas 3's `str` columns are a block each, taken one by one; object
    columns are one block, taken at once (a campaign's samples: 105 blocks before, 4 after). The
    values are the same strings and NaN."""
    text = {c: object for c, t in df.dtypes.items() if isinstance(t, pd.StringDtype)}
    # astype leaves each converted column a block of its own: the copy joins them into one.
    return (df.astype(text) if text else df).copy()


def is_size_factor(column: str) -> bool:
    """Whether `column` is the runner's `factor.<size param>` (e.g. factor.size_mb): the data size,
    which a cell names once, as its size label ("160MB", not "160MB, size_mb=160")."""
    return column.startswith("factor.") and column.removeprefix("factor.") in SIZE_PARAMS.values()


def add_cells(df: pd.DataFrame) -> pd.DataFrame:
    """The `size` key: size label plus the factors varying within (experiment, benchmark, metric)."""
    df = df.copy()
    factors = [c for c in FACTOR_COLUMNS if c in df.columns]
    # Environment factors and benchmark-parameter factors of a design (the runner's factor.*).
    factors += [c for c in df.columns if c.startswith("factor.") and not is_size_factor(c) and c[7:] not in factors]
    cells = []
    for _, grp in df.groupby(["experiment", "benchmark", "metric"], sort=False):
        varying = [c for c in factors if grp[c].dropna().astype(str).nunique() > 1]
        # Column by column, not row by row (iterrows builds a Series per sample).
        labels = grp["size_label"].tolist()
        levels_of = [(c.removeprefix("factor."), grp[c].tolist()) for c in varying]
        for i, idx in enumerate(grp.index):
            levels = [f"{name}={plain(values[i])}" for name, values in levels_of if pd.notna(values[i])]
            cells.append((idx, size_key(labels[i], levels)))
    df["size"] = pd.Series(dict(cells))
    return df


def size_key(label: str, levels: list[str]) -> str:
    """A cell's `size` key: its size label (if any), then its `factor=level`s. Pure."""
    return ", ".join(([label] if label else []) + levels)


def split_size_key(key: str) -> tuple[str, str]:
    """(size label, the levels' text) of a `size_key`; the label is "" for a sizeless cell. Pure."""
    first, _, rest = key.partition(", ")
    return ("", key) if "=" in first else (first, rest)


def size_levels(key: str) -> tuple[str, dict[str, str]]:
    """(size label, {factor: level}) of a `size_key`. Pure."""
    label, rest = split_size_key(key)
    return label, dict(part.split("=", 1) for part in rest.split(", ") if "=" in part)


def plain(v) -> str:
    """A value as text, a whole float without its ".0" (1.0 and 1 are the same cell)."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def value_text(v) -> str:
    """A column's value as text (a size, a factor level, a block): missing is "", else `plain`."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return plain(v)


def value_number(v) -> float | None:
    """A column's value as a number: None where it is missing, not a number or not finite (a time,
    a skew or a ratio that is infinite was not measured)."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def stamp_mapping(v) -> dict:
    """A per-host stamp (`host_platforms`, `host_accelerators`) as a dict: as recorded, or from
    its JSON text after tidying."""
    return json.loads(v) if isinstance(v, str) else dict(v)


def stamp_list(v) -> list[str] | None:
    """A list-valued stamp (bonnie++'s `too_fast`) as a list of text: as recorded (a list, or the
    array a parquet round trip gives), or from its JSON text after tidying; None when it is
    neither."""
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except ValueError:
            return None
    if hasattr(v, "tolist"):
        v = v.tolist()
    return [str(x) for x in v] if isinstance(v, (list, tuple)) else None

"""The one reader of a campaign directory: samples and failures as frames, the ledger's torn-tail rule."""

from __future__ import annotations

import pandas as pd
import pytest

from vbench.errors import ParamsError
from vbench.ledger import append_unit
from vbench.samples import Failure, Sample, append_records
from vbench.stats.tidy import read_campaign, text_as_objects


def _records():
    return [
        Sample(
            "cpu",
            "events_per_s",
            100.0,
            "events/s",
            {"platform": "native", "repetition": 1, "metric": "shadowed"},
            timestamp=10.0,
        ),
        Failure(
            "cpu", "boom", parameters={"threads": 2}, stderr_tail="oops", metadata={"platform": "kvm"}, timestamp=11.0
        ),
    ]


def test_samples_and_failures_become_rows_with_metadata_as_columns(tmp_path):
    append_records(tmp_path / "samples.jsonl", _records())
    c = read_campaign(tmp_path)
    assert c.path == tmp_path and c.torn_bytes == 0
    row = c.samples.iloc[0].to_dict()
    # The record's own field wins over a metadata key of the same name.
    assert row == {
        "benchmark": "cpu",
        "metric": "events_per_s",
        "value": 100.0,
        "unit": "events/s",
        "timestamp": 10.0,
        "platform": "native",
        "repetition": 1,
    }
    f = c.failures.iloc[0].to_dict()
    assert f == {
        "benchmark": "cpu",
        "reason": "boom",
        "stderr_tail": "oops",
        "parameters": {"threads": 2},
        "timestamp": 11.0,
        "platform": "kvm",
    }


def test_a_ledger_torn_tail_is_not_read_and_is_measured(tmp_path):
    path = tmp_path / "samples.jsonl"
    append_unit(path, [r.to_dict() for r in _records()], cell_id="c0")
    whole = path.stat().st_size
    with open(path, "a") as fh:  # an append that did not finish: a record without its closing one
        fh.write(Sample("cpu", "events_per_s", 1.0, "events/s", timestamp=12.0).to_dict().__repr__()[:20])
    c = read_campaign(path)  # a samples file is accepted as well as its directory
    assert len(c.samples) == 1 and len(c.failures) == 1
    assert c.torn_bytes == path.stat().st_size - whole


def test_an_old_file_skips_a_torn_line_wherever_a_crash_left_it(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_text('{"benchmark": "cpu", "kind": "sam\n')  # torn, then a later append began a fresh line
    append_records(path, _records()[:1])
    assert list(read_campaign(tmp_path).samples["value"]) == [100.0]


def test_a_directory_without_samples_is_named(tmp_path):
    with pytest.raises(ParamsError, match="no samples file"):
        read_campaign(tmp_path)


def test_text_as_objects_keeps_the_values_and_joins_the_columns_in_few_blocks():
    df = pd.DataFrame({"a": ["x", None, "z"], "v": [1.0, 2.0, 3.0]})
    for i in range(120):  # added one by one, as the rows' keys are: a block each
        df[f"t{i}"] = pd.Series(["p", "q", None], dtype="str")
    out = text_as_objects(df)
    assert all(out[c].dtype == object for c in df.columns if c != "v") and out["v"].dtype == float
    assert out.astype(str).equals(df.astype(str)) and out["a"].isna().tolist() == [False, True, False]
    assert out._mgr.nblocks <= 2 < df._mgr.nblocks

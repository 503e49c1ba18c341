"""Reading samples: three formats, vbench's own records, and errors that name the problem."""

from pathlib import Path

import pandas as pd
import pytest

from vbench.errors import ParamsError, VbenchError
from vbench.stats import read_samples

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"


def test_csv_fixture_is_read_and_normalised():
    df = read_samples(DATA / "samples.csv")
    assert len(df) == 28
    assert df["warmup"].dtype == bool and df["warmup"].sum() == 3
    assert set(df["size"]) == {"10GB"}
    assert df["value"].dtype == float


def test_parquet_and_csv_give_the_same_frame(tmp_path):
    csv = read_samples(DATA / "samples.csv")
    raw = pd.read_csv(DATA / "samples.csv")
    raw.to_parquet(tmp_path / "s.parquet")
    pq = read_samples(tmp_path / "s.parquet")
    pd.testing.assert_frame_equal(csv[["platform", "value", "warmup"]], pq[["platform", "value", "warmup"]])


def test_jsonl_from_append_records_flattens_metadata_and_skips_failures():
    df = read_samples(DATA / "records.jsonl")
    assert len(df) == 12
    assert set(df["platform"]) == {"native", "kvm"}
    assert df.attrs["failures_skipped"] == 1
    assert "reason" not in df.columns  # no failure became a row


def test_jsonl_torn_lines_follow_the_ledger_rule_and_are_counted(tmp_path):
    # One rule with the campaign reader: a torn line is skipped wherever a crash and a later
    # append left it (append_records starts a fresh line after a torn one), and counted.
    good = (DATA / "records.jsonl").read_text().splitlines()
    (tmp_path / "torn.jsonl").write_text("\n".join(good[:3]) + '\n{"benchmark": "ter')
    torn = read_samples(tmp_path / "torn.jsonl")
    assert len(torn) == 3 and torn.attrs["lines_skipped"] == 1
    (tmp_path / "bad.jsonl").write_text(good[0] + '\n{"benchmark": "ter\n' + good[1] + "\n")
    bad = read_samples(tmp_path / "bad.jsonl")
    assert len(bad) == 2 and bad.attrs["lines_skipped"] == 1


def test_jsonl_rows_that_are_not_vbench_records_are_read_as_rows(tmp_path):
    p = tmp_path / "rows.jsonl"
    p.write_text(
        '{"experiment": "e", "platform": "n", "benchmark": "b", "metric": "t", "unit": "s", '
        '"value": 1.5, "repetition": 1}\n'
    )
    df = read_samples(p)
    assert list(df["value"]) == [1.5] and df.attrs["lines_skipped"] == 0


def test_missing_column_is_named():
    with pytest.raises(ParamsError, match=r"missing required column\(s\) 'unit'"):
        read_samples(DATA / "missing_unit.csv")


def test_non_numeric_value_is_reported_with_row(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text(
        "experiment,platform,benchmark,metric,unit,value,repetition\n"
        "e,native,b,t,s,1.0,0\ne,native,b,t,s,,1\ne,native,b,t,s,abc,2\n"
    )
    with pytest.raises(ParamsError, match=r"value: 2 value\(s\) .* not finite numbers, first at data row 2"):
        read_samples(p)


def test_empty_key_and_bad_warmup_are_errors(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("experiment,platform,benchmark,metric,unit,value,repetition\ne,,b,t,s,1.0,0\n")
    with pytest.raises(ParamsError, match="platform: 1 empty value"):
        read_samples(p)
    p.write_text("experiment,platform,benchmark,metric,unit,value,repetition,warmup\ne,n,b,t,s,1.0,0,maybe\n")
    with pytest.raises(ParamsError, match="warmup: 'maybe'"):
        read_samples(p)


def test_unknown_format_and_missing_file(tmp_path):
    (tmp_path / "s.xlsx").write_text("x")
    with pytest.raises(VbenchError, match="unknown format"):
        read_samples(tmp_path / "s.xlsx")
    with pytest.raises(VbenchError, match="no such file"):
        read_samples(tmp_path / "nope.csv")


def test_numeric_size_is_text_without_trailing_zero(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text(
        "experiment,platform,benchmark,metric,unit,value,repetition,size\ne,n,b,t,s,1.0,0,10\ne,n,b,t,s,1.0,1,\n"
    )
    assert read_samples(p)["size"].tolist() == ["10", ""]

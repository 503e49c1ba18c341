"""vbench.samples: validated immutable samples, failures, and their JSON-lines store."""

import dataclasses
import json
import math

import pytest

from vbench.samples import Failure, Sample, append_records, read_records


def _sample(**kw) -> Sample:
    base = dict(
        benchmark="smoke",
        metric="terasort_time",
        value=12.5,
        unit="s",
        metadata={"platform": "native"},
        timestamp=1_795_308_600.0,
    )
    return Sample(**{**base, **kw})


@pytest.mark.parametrize("field", ["benchmark", "metric"])
def test_empty_names_are_refused(field):
    with pytest.raises(ValueError, match=f"Sample.{field} must not be empty"):
        _sample(**{field: ""})


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_values_are_refused(value):
    with pytest.raises(ValueError, match="finite"):
        _sample(value=value)


@pytest.mark.parametrize("value", [True, False, "12.5", None])
def test_non_numbers_are_refused(value):
    with pytest.raises(ValueError, match="must be a number"):
        _sample(value=value)


@pytest.mark.parametrize("unit", ["MB/S", "sec", "", "Mbps"])
def test_unknown_units_are_refused(unit):
    with pytest.raises(ValueError, match="is not one of"):
        _sample(unit=unit)


def test_int_values_become_floats():
    s = _sample(value=3)
    assert s.value == 3.0 and type(s.value) is float


def test_sample_fields_cannot_be_reassigned():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _sample().value = 1.0


def test_metadata_cannot_be_mutated():
    s = _sample()
    with pytest.raises(TypeError):
        s.metadata["platform"] = "kvm"


def test_metadata_is_a_copy_of_the_callers_dict():
    meta = {"platform": "native"}
    s = _sample(metadata=meta)
    meta["platform"] = "kvm"
    assert s.metadata["platform"] == "native"


def test_with_metadata_merges_into_a_new_sample():
    s = _sample(metadata={"platform": "native", "rep": 1})
    t = s.with_metadata(rep=2, campaign="c1")
    assert dict(t.metadata) == {"platform": "native", "rep": 2, "campaign": "c1"}
    assert dict(s.metadata) == {"platform": "native", "rep": 1}
    assert (t.benchmark, t.metric, t.value, t.unit, t.timestamp) == (
        s.benchmark,
        s.metric,
        s.value,
        s.unit,
        s.timestamp,
    )
    with pytest.raises(TypeError):
        t.metadata["rep"] = 3


def test_failure_mappings_cannot_be_mutated():
    f = Failure(benchmark="smoke", reason="TeraSort failed", parameters={"size": 64})
    with pytest.raises(TypeError):
        f.parameters["size"] = 1


def test_append_then_read_round_trips_samples_and_failures(tmp_path):
    path = tmp_path / "raw" / "samples.jsonl"
    records = [
        _sample(),
        Failure(
            benchmark="smoke",
            reason="TeraSort failed (exit 1)",
            parameters={"size_bytes": 67108864},
            stderr_tail="java.io.IOException: boom",
            metadata={"platform": "native"},
            timestamp=1.5,
        ),
        _sample(metric="bringup_time", value=40, metadata={"workers": 2, "valid": True}),
    ]
    append_records(path, records[:2])
    append_records(path, records[2:])
    back = list(read_records(path))
    assert [type(r) for r in back] == [Sample, Failure, Sample]
    assert [r.to_dict() for r in back] == [r.to_dict() for r in records]
    assert back[1].stderr_tail == "java.io.IOException: boom"


def test_each_record_is_one_json_line(tmp_path):
    path = tmp_path / "s.jsonl"
    append_records(path, [_sample(), _sample(value=1)])
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0])["kind"] == "sample"


def test_a_torn_last_line_is_skipped(tmp_path):
    path = tmp_path / "s.jsonl"
    append_records(path, [_sample(value=1), _sample(value=2)])
    with open(path, "a") as fh:
        fh.write('{"benchmark": "smoke", "kind": "sam')
    assert [r.value for r in read_records(path)] == [1.0, 2.0]


def test_a_record_appended_after_a_torn_line_is_kept(tmp_path):
    path = tmp_path / "s.jsonl"
    append_records(path, [_sample(value=1)])
    with open(path, "a") as fh:
        fh.write('{"benchmark": "smoke", "kind": "sam')
    append_records(path, [_sample(value=3)])
    assert [r.value for r in read_records(path)] == [1.0, 3.0]

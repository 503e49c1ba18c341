"""Issue #52 item 4: the job output parsers fed truncated and garbled real outputs.

The outputs captured on this project's testbed (tests/data/, each with how it was made) are
cut at any point and have a byte replaced anywhere; every parser that turns a job's or a tool's
output into samples (the Hadoop benchmarks' `parse`, JobHistory's stream and records, the job
ids of a client's log, fsck's block list, the micro benchmarks' `parse_stdout`) then either
raises the job's failure (`JobFailed`, a `VbenchError`) or returns only numbers the intact
output gives: never another exception, never a wrong number passed off as a measurement.

A replaced byte that is itself a digit (or '.', '-', 'e') can make another valid number out of
one; no parser can tell, so the "no wrong number" property garbles with other characters, and
any byte at all is fed to the "no other exception" property.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vbench.benchmarks.hadoop import dfsio, mrbench, nnbench, pi, sort, terasort, wordcount
from vbench.benchmarks.hadoop.steps import StepOutput
from vbench.benchmarks.micro import bonnie, cpu, dd, fio, hdparm, iperf3, latency, membw, pi_digits
from vbench.errors import VbenchError
from vbench.hadoop import history, history_fetch, jobs, webhdfs

from tests.unit.builders import latency_capture, latency_capture_config
from tests.unit.test_history_one_trip import JOB, captured_job, stream

DATA = Path(__file__).resolve().parents[1] / "data"
SUITE = DATA / "hadoop" / "suite"
MICRO = DATA / "micro"

#: Texts -> (metric, value, unit) of what a parser made of them.
Parser = Callable[[dict[str, str]], list[tuple]]


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def _triples(samples) -> list[tuple]:
    return [(s.metric, s.value, s.unit) for s in samples]


def _hadoop(module, cfg, steps: dict[str, str], seconds: dict[str, float] | None = None, info=None):
    """A Hadoop benchmark's case: each step's captured stdout and stderr (SUITE/<capture>.*)."""
    texts = {}
    for step, capture in steps.items():
        texts[f"{step}.stdout"] = _read(SUITE / f"{capture}.stdout")
        texts[f"{step}.stderr"] = _read(SUITE / f"{capture}.stderr")

    def parse(t: dict[str, str]) -> list[tuple]:
        outputs = {
            step: StepOutput(
                t[f"{step}.stdout"], t[f"{step}.stderr"], (seconds or {}).get(step, 10.0), (info or {}).get(step, {})
            )
            for step in steps
        }
        return _triples(module.parse(outputs, cfg))

    return texts, parse


def _terasort():
    report = (DATA / "hadoop" / "teravalidate_report_valid.txt").read_text()
    texts = {"report": report}

    def parse(t):
        outputs = {s: StepOutput("", "", 20.0) for s in ("teragen", "terasort", "teravalidate")}
        outputs["report"] = StepOutput(t["report"], "", 1.0)
        return _triples(terasort.parse(outputs, terasort.Config(size_mb=64)))

    return texts, parse


def _terasort_sizes():
    cfg = terasort.Config(size_mb=1, gate="output_size", generate="once_per_cluster")
    half = jobs.teragen_rows(1024**2) * jobs.TERA_ROW_BYTES // 2
    entries = [
        webhdfs.FileEntry("_SUCCESS", 0, False),
        webhdfs.FileEntry("part-r-00000", half, False),
        webhdfs.FileEntry("part-r-00001", jobs.teragen_rows(1024**2) * jobs.TERA_ROW_BYTES - half, False),
    ]
    texts = {"sizes": webhdfs.listing_text(entries)}

    def parse(t):
        outputs = {"terasort": StepOutput("", "", 20.0), "sizes": StepOutput(t["sizes"], "", 0.1)}
        return _triples(terasort.parse(outputs, cfg))

    return texts, parse


def _history():
    texts = {"stream": stream(captured_job())}

    def parse(t):
        resources = history_fetch.split_stream(t["stream"], JOB)
        job = history_fetch.parse_job(resources, JOB)
        detail = history_fetch.parse_detail(resources, JOB)
        return _triples(history.job_samples("wordcount", "wordcount", job, detail.counters, detail.attempts, {}))

    return texts, parse


def _job_ids():
    texts = {"log": (DATA / "hadoop" / "terasort_client.log").read_text()}
    return texts, lambda t: [("job_id", j, "") for j in jobs.job_ids(t["log"])]


def _fsck():
    texts = {"fsck": (DATA / "hadoop" / "fsck_teragen.txt").read_text()}
    # The replicas are what the placement checks count; a garbled block id names no other block's.
    return texts, lambda t: [("block", tuple(n), "") for n in jobs.block_locations(t["fsck"]).values()]


def _micro(module, capture: str, cfg):
    texts = {"stdout": (MICRO / capture).read_text()}
    return texts, lambda t: _triples(module.parse_stdout(t["stdout"], cfg))


def _latency(name: str):
    text, doc = latency_capture(name)
    cfg = latency_capture_config(doc)
    return {"stdout": text}, lambda t: _triples(latency.parse_stdout(t["stdout"], cfg))


CASES = {
    "dfsio": _hadoop(dfsio, dfsio.Config(files=2, file_size_mb=8), {"write": "dfsio_write", "read": "dfsio_read"}),
    "nnbench": _hadoop(
        nnbench,
        nnbench.Config(),
        {"create_write": "nnbench_ok_create_write", "open_read": "nnbench_ok_open_read"},
    ),
    "mrbench": _hadoop(mrbench, mrbench.Config(runs=2, maps=2, reduces=1), {"mrbench": "mrbench"}),
    "pi": _hadoop(pi, pi.Config(maps=2, samples=1000), {"pi": "pi"}, {"pi": 33.0}),
    "sort": _hadoop(
        sort, sort.Config(size_mb=8), {"randomwriter": "randomwriter", "sort": "sort", "validate": "sortvalidate"}
    ),
    "wordcount": _hadoop(
        wordcount,
        wordcount.Config(size_mb=1),
        {"upload": "wc_put", "wordcount": "wordcount", "counts": "wordcount_output"},
        info={"upload": {"words": 22000, "bytes": 104000}},
    ),
    "terasort": _terasort(),
    "terasort-sizes": _terasort_sizes(),
    "jobhistory": _history(),
    "job-ids": _job_ids(),
    "fsck": _fsck(),
    "cpu": _micro(cpu, "cpu.txt", cpu.CpuConfig(time_s=2)),
    "membw": _micro(membw, "membw.txt", membw.MembwConfig(time_s=2)),
    "dd": _micro(dd, "dd.txt", dd.DdConfig(bs_mb=4, count=4, repeats=3)),
    "hdparm": _micro(hdparm, "hdparm_loop.txt", hdparm.HdparmConfig(device="/dev/loop1", repeats=2)),
    "fio": _micro(fio, "fio.json", fio.FioConfig(size_mb=16, runtime_s=2)),
    "iperf3": _micro(iperf3, "iperf3.json", iperf3.Iperf3Config(port=47239, server_bind="127.0.0.1")),
    "pi_digits": _micro(pi_digits, "pi_digits.txt", pi_digits.PiDigitsConfig(digits=(1000, 10000, 100000))),
    "bonnie": _micro(bonnie, "bonnie.csv", bonnie.BonnieConfig(files_k=1)),
    "latency": _latency("native"),
}
#: What each parser makes of the intact outputs (computed once; the first test checks it).
CLEAN = {name: parse(texts) for name, (texts, parse) in CASES.items()}

#: Not a digit, sign, point or exponent: replacing any character of a number by one of these
#: leaves no other valid number behind.
GARBLE = "x#~:,/ \t\n\x00\ufffd"

FUZZ = settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])


def _where(texts: dict[str, str]) -> st.SearchStrategy:
    """(key, position) in one of the non-empty texts, biased to the inside and the end of numbers,
    where a cut or a replaced byte changes a value rather than a label."""
    keys = sorted(k for k, v in texts.items() if v)

    @st.composite
    def pick(draw):
        key = draw(st.sampled_from(keys))
        text = texts[key]
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        anywhere = st.integers(0, len(text) - 1)
        pos = draw(st.one_of(anywhere, st.sampled_from(digits)) if digits else anywhere)
        return key, pos

    return pick()


def _outcome(parse: Parser, texts: dict[str, str]) -> list[tuple] | None:
    """What the parser makes of `texts`, or None when it raised vbench's error."""
    try:
        return parse(texts)
    except VbenchError:
        return None


def _significant(triples: list[tuple]) -> list[tuple]:
    """Each number to 12 significant digits: a garble of a float's 17th digit (iperf3's
    16861355343.804115 -> 16861355343.80411, still valid JSON) is not a wrong number."""
    return [tuple(float(f"{v:.12g}") if isinstance(v, float) else v for v in t) for t in triples]


def _no_wrong_number(name: str, got: list[tuple] | None, what: str) -> None:
    if got is None:
        return
    new = Counter(_significant(got)) - Counter(_significant(CLEAN[name]))
    assert not new, f"{name}, {what}: numbers the intact output does not give: {list(new)[:3]}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_intact_outputs_parse(name):
    assert CLEAN[name], name


@pytest.mark.parametrize("name", sorted(CASES))
@FUZZ
@given(data=st.data())
def test_a_truncated_output_fails_the_job_or_gives_only_its_numbers(name, data):
    texts, parse = CASES[name]
    key, cut = data.draw(_where(texts))
    # The output ends at the cut: what a killed client, a dropped SSH channel or a full disk leaves.
    got = _outcome(parse, {**texts, key: texts[key][:cut]})
    _no_wrong_number(name, got, f"{key} cut at {cut}")


@pytest.mark.parametrize("name", sorted(CASES))
@FUZZ
@given(data=st.data(), char=st.sampled_from(GARBLE))
def test_a_garbled_output_fails_the_job_or_gives_only_its_numbers(name, data, char):
    texts, parse = CASES[name]
    key, pos = data.draw(_where(texts))
    text = texts[key]
    got = _outcome(parse, {**texts, key: text[:pos] + char + text[pos + 1 :]})
    _no_wrong_number(name, got, f"{key}[{pos}] {text[pos]!r} -> {char!r}")


@pytest.mark.parametrize("name", sorted(CASES))
@FUZZ
@given(data=st.data(), char=st.characters(), drop=st.integers(0, 3))
def test_any_damage_fails_the_job_rather_than_another_exception(name, data, char, drop):
    texts, parse = CASES[name]
    key, pos = data.draw(_where(texts))
    text = texts[key]
    # A byte replaced (or a few lost) anywhere: whatever comes out, the run is a failure or samples.
    _outcome(parse, {**texts, key: text[:pos] + char + text[pos + 1 + drop :]})

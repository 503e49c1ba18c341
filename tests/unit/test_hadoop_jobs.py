"""vbench.hadoop.jobs: job arguments, and parsers run on real Hadoop 3.4.2 outputs."""

import re
from pathlib import Path

import pytest

from vbench.hadoop import jobs

DATA = Path(__file__).resolve().parents[1] / "data" / "hadoop"


def _text(name: str) -> str:
    return (DATA / name).read_text()


def test_teragen_rows_are_100_byte_rows():
    assert jobs.teragen_rows(100) == 1
    assert jobs.teragen_rows(30_000_000) == 300_000
    assert jobs.teragen_rows(64 * 1024**2) == 671_088


def test_teragen_rows_refuses_less_than_one_row():
    with pytest.raises(ValueError, match="at least 100 bytes"):
        jobs.teragen_rows(99)


def test_teragen_args_match_the_captured_command():
    # README: ExampleDriver teragen -Dmapreduce.job.maps=2 300000 /g
    assert jobs.teragen_args(300_000, "/g", maps=2) == ["teragen", "-Dmapreduce.job.maps=2", "300000", "/g"]


def test_terasort_and_teravalidate_args():
    assert jobs.terasort_args("/g", "/s", reduces=2) == ["terasort", "-Dmapreduce.job.reduces=2", "/g", "/s"]
    assert jobs.teravalidate_args("/s", "/v") == ["teravalidate", "/s", "/v"]


def test_teravalidate_verdict_on_a_valid_report():
    valid, why = jobs.teravalidate_verdict(_text("teravalidate_report_valid.txt"))
    assert valid is True
    assert why == "checksum 249cb083b2baa"


def test_teravalidate_verdict_on_a_misordered_report():
    text = _text("teravalidate_report_misorder.txt")
    n_errors = sum(1 for line in text.splitlines() if line.startswith("error"))
    assert n_errors == 22  # as read from the file
    valid, why = jobs.teravalidate_verdict(text)
    assert valid is False  # even though the report also carries a checksum line
    assert why.startswith(f"{n_errors} errors, e.g. misorder in part-m-00000 between 91 49 62 65")


def test_teravalidate_verdict_without_checksum_is_invalid():
    assert jobs.teravalidate_verdict("") == (False, "no checksum in the TeraValidate report")


@pytest.mark.parametrize(
    "log, expected",
    [
        ("teragen_client.log", "job_1795308525332_0001"),
        ("terasort_client.log", "job_1795308525332_0002"),
        ("teravalidate_client.log", "job_1795308525332_0003"),
    ],
)
def test_job_id_from_client_logs(log, expected):
    assert jobs.job_id(_text(log)) == expected


def test_job_id_absent():
    assert jobs.job_id("INFO client.RMProxy: Connecting to ResourceManager\n") is None


@pytest.fixture(scope="module")
def fsck() -> str:
    return _text("fsck_teragen.txt")


def test_block_locations_find_every_validated_block(fsck):
    total = int(re.search(r"Total blocks \(validated\):\s*(\d+)", fsck).group(1))
    assert total == 2  # as read from the file
    blocks = jobs.block_locations(fsck)
    assert len(blocks) == total
    assert "BP-1502236338-10.213.0.10-1795308501540:blk_1073741830_1006" in blocks
    assert "BP-1502236338-10.213.0.10-1795308501540:blk_1073741832_1008" in blocks


def test_every_block_has_two_replicas_on_both_workers(fsck):
    for nodes in jobs.block_locations(fsck).values():
        assert sorted(nodes) == ["10.213.0.11", "10.213.0.12"]


def test_replicas_per_node(fsck):
    assert jobs.replicas_per_node(jobs.block_locations(fsck)) == {"10.213.0.11": 2, "10.213.0.12": 2}


def test_block_locations_of_empty_output():
    assert jobs.block_locations("") == {}
    assert jobs.replicas_per_node({}) == {}

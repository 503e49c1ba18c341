"""Command lines and output parsers of the Hadoop jobs vbench submits. Pure."""

from __future__ import annotations

import re
from collections import defaultdict

from vbench.errors import JobFailed

EXAMPLES_DRIVER = "org.apache.hadoop.examples.ExampleDriver"
TERA_ROW_BYTES = 100  # TeraGen writes fixed 100-byte rows


def teragen_rows(size_bytes: int) -> int:
    if size_bytes < TERA_ROW_BYTES:
        raise ValueError(f"TeraGen size must be at least {TERA_ROW_BYTES} bytes, got {size_bytes}")
    return size_bytes // TERA_ROW_BYTES


def _conf_args(conf: dict[str, str | int]) -> list[str]:
    return [f"-D{k}={v}" for k, v in sorted(conf.items())]


def teragen_args(rows: int, out: str, maps: int) -> list[str]:
    return ["teragen", *_conf_args({"mapreduce.job.maps": maps}), str(rows), out]


def terasort_args(inp: str, out: str, reduces: int) -> list[str]:
    return ["terasort", *_conf_args({"mapreduce.job.reduces": reduces}), inp, out]


def teravalidate_args(sorted_dir: str, report_dir: str) -> list[str]:
    return ["teravalidate", sorted_dir, report_dir]


def teravalidate_verdict(report: str) -> tuple[bool, str]:
    """TeraValidate's report holds one `checksum <hex>` line on success; `error ...` lines
    (misorder, bad key partitioning) mean the sort is wrong. Returns (valid, explanation)."""
    checksum, errors = None, []
    for line in report.splitlines():
        key, _, value = line.strip().partition("\t")
        if key == "checksum":
            checksum = value.strip()
        elif key == "error":
            errors.append(value.strip())
    if errors:
        shown = "; ".join(errors[:2])
        return False, f"{len(errors)} errors, e.g. {shown}"
    if checksum is None:
        return False, "no checksum in the TeraValidate report"
    return True, f"checksum {checksum}"


# The whole id, on a whole line: a log cut at "job_1795308525332_00" names another job.
_JOB_ID = re.compile(r"Running job: (job_\d+_\d+)[ \t]*\r?\n")


def job_id(client_log: str) -> str | None:
    m = _JOB_ID.search(client_log)
    return m.group(1) if m else None


def job_ids(client_log: str) -> list[str]:
    """Every job a client submitted, in order (MRBench and Sort validation submit several)."""
    return list(dict.fromkeys(_JOB_ID.findall(client_log)))


_BLOCK_LINE = re.compile(r"^\d+\. (\S+) len=(\d+) .*?\[(.*)\]\s*$")
_DN = re.compile(r"DatanodeInfoWithStorage\[([0-9.]+):\d+")
#: One replica's entry in a block line: address:port, storage id, storage type.
_DN_ENTRY = r"DatanodeInfoWithStorage\[[0-9.]+:\d+,[^\],\[]*,[A-Z_]+\]"
_DN_LIST = re.compile(rf"{_DN_ENTRY}(?:, {_DN_ENTRY})*")


def block_locations(fsck_output: str) -> dict[str, list[str]]:
    """block id -> addresses of the DataNodes holding a replica, from `fsck -blocks -locations`.
    Whole lines only (a last line cut off is not read); a replica list that is not all entries
    is refused (JobFailed): read as far as it goes, it would show a block with fewer replicas."""
    blocks: dict[str, list[str]] = {}
    for line in fsck_output.split("\n")[:-1]:
        m = _BLOCK_LINE.match(line.strip())
        if m:
            if not _DN_LIST.fullmatch(m.group(3)):
                raise JobFailed(f"fsck: unreadable replica list of block {m.group(1)}: {m.group(3)[:120]!r}")
            blocks[m.group(1)] = _DN.findall(m.group(3))
    return blocks


def replicas_per_node(blocks: dict[str, list[str]]) -> dict[str, int]:
    """DataNode address -> number of block replicas it stores."""
    count: dict[str, int] = defaultdict(int)
    for nodes in blocks.values():
        for n in nodes:
            count[n] += 1
    return dict(count)

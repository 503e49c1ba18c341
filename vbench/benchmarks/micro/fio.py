"""fio: sequential write, sequential read and random-read IOPS on the work dir's disk.

None of the five studies ran fio; it gives the local-disk baseline that TestDFSIO's numbers
(Vasconcelos, Xavier, Liu) are read against, with direct I/O so the page cache of a 24 GiB
host does not stand in for the disk of a 2 GiB VM.
"""

from __future__ import annotations

import re
import shlex
from typing import Literal

from pydantic import Field

from vbench.benchmarks.base import BenchConfig, replace
from vbench.errors import JobFailed
from vbench.samples import Sample

from ._common import RUN_KWARGS, Runner, check, execute, json_document, one_step, sample, tail

NAME = "fio"
METRICS = {
    "seq_write_bw": "MiB/s",
    "seq_read_bw": "MiB/s",
    "randread_iops": "IOPS",
    "randread_lat_mean": "us",
}
TEST_FILE = "vbench-fio.dat"

# fio's own words when the file system refuses O_DIRECT (tmpfs before Linux 6.6, some FUSE
# and overlay set-ups); only then is a buffered retry a fallback rather than a cover-up.
_DIRECT_UNSUPPORTED = re.compile(r"does not support direct|does not support O_DIRECT|first direct IO errored", re.I)


class FioConfig(BenchConfig):
    size_mb: int = Field(32, ge=1)  # one test file, shared by the three jobs
    seq_bs_k: int = Field(1024, ge=1, le=1 << 20)
    rand_bs_k: int = Field(4, ge=1, le=1 << 20)
    runtime_s: int = Field(3, ge=1)  # cap per job; random read runs exactly this long
    direct: bool = True
    direct_fallback: bool = True  # retry buffered (metadata direct=False) if O_DIRECT is refused
    # psync, synchronous: present in every fio build, no libaio needed
    ioengine: Literal["psync", "sync", "libaio", "io_uring", "posixaio"] = "psync"
    iodepth: int = Field(1, ge=1, le=1024)


#: The registry and `vbench bench list` find every module's config under this name.
Config = FioConfig
PRESETS = {
    "cluster": FioConfig(size_mb=4096, runtime_s=30),  # a file larger than a 2 GiB VM's memory, 30 s per job
}


def _test_file(workdir: str) -> str:
    return f"{workdir.rstrip('/')}/{TEST_FILE}"


def argv(cfg: FioConfig, workdir: str) -> list[str]:
    # Options before the first --name hold for every job: one test file, shared by the three.
    shared = [f"--filename={_test_file(workdir)}", f"--size={cfg.size_mb}M", f"--direct={int(cfg.direct)}"]
    shared += [f"--ioengine={cfg.ioengine}", f"--iodepth={cfg.iodepth}", f"--runtime={cfg.runtime_s}"]
    args = ["fio", "--output-format=json", *shared]
    # end_fsync: a buffered write is not done until it reaches the disk.
    args += ["--name=seq_write", "--rw=write", f"--bs={cfg.seq_bs_k}k", "--end_fsync=1"]
    # stonewall: each job starts after the previous one, so they do not share the disk.
    args += ["--name=seq_read", "--stonewall", "--rw=read", f"--bs={cfg.seq_bs_k}k"]
    args += ["--name=randread", "--stonewall", "--rw=randread", f"--bs={cfg.rand_bs_k}k", "--time_based"]
    return args


def command(cfg: FioConfig, workdir: str) -> str:
    # The test file goes even when fio fails, and fio's exit status stays the command's.
    return f"{shlex.join(argv(cfg, workdir))}; rc=$?; rm -f {shlex.quote(_test_file(workdir))}; exit $rc"


def load_json(text: str) -> dict:
    doc = json_document("fio", text)
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise JobFailed("fio: JSON output has no 'jobs' list")
    return doc


def parse_stdout(text: str, cfg: FioConfig) -> list[Sample]:
    doc = load_json(text)
    jobs = {j.get("jobname"): j for j in doc["jobs"]}
    # The truth about direct I/O is what fio ran with, not what was asked for.
    direct = str(doc.get("global options", {}).get("direct", int(cfg.direct))) == "1"
    meta = {"direct": direct, "fio_version": doc.get("fio version", "")}
    wanted = (("seq_write", "write"), ("seq_read", "read"), ("randread", "read"))
    for job, _ in wanted:
        if job not in jobs:
            raise JobFailed(f"fio: job {job!r} missing from output")
        if jobs[job].get("error"):
            raise JobFailed(f"fio: job {job!r} failed with error {jobs[job]['error']}")
    try:
        w, r, rr = (jobs[job][side] for job, side in wanted)
        return [
            sample(NAME, "seq_write_bw", w["bw_bytes"] / 2**20, "MiB/s", cfg, **meta),
            sample(NAME, "seq_read_bw", r["bw_bytes"] / 2**20, "MiB/s", cfg, **meta),
            sample(NAME, "randread_iops", rr["iops"], "IOPS", cfg, **meta),
            sample(NAME, "randread_lat_mean", rr["lat_ns"]["mean"] / 1000, "us", cfg, **meta),
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise JobFailed(f"fio: unexpected JSON layout: {exc!r}") from None


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: FioConfig, workdir: str) -> tuple[list[Sample], str]:
    cmd = command(cfg, workdir)
    result = c.run(cmd, **RUN_KWARGS)
    refused = _DIRECT_UNSUPPORTED.search(f"{result.stderr or ''}\n{result.stdout or ''}")
    if result.exited != 0 and cfg.direct and cfg.direct_fallback and refused:
        buffered = replace(cfg, direct=False)
        samples, raw = execute(c, NAME, command(buffered, workdir), parse, buffered)
        why = tail(result.stderr or result.stdout, 3)
        return [s.with_metadata(direct_fallback=why) for s in samples], raw
    return check(NAME, cmd, result, parse, cfg)

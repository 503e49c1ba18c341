"""bonnie++: block I/O, file metadata operations and their CPU % (Vasconcelos Tables 1-3).

Read from the CSV line bonnie++ 2.x prints on stdout under -q. Small sizes finish some tests
too fast to time ("+++++"); those give no sample and are listed in metadata `too_fast`.
"""

from __future__ import annotations

import re
import shlex
from pydantic import Field, field_validator, model_validator

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed, ParamsError
from vbench.samples import Sample

from ._common import Runner, execute, number, one_step, sample

NAME = "bonnie"

#: CSV format this parser was checked against (bonnie++ 2.00a; bon_csv2txt expects it too).
CSV_VERSION = "1.98"

# The tests in CSV format 1.98 (as bon_csv2txt 2.00a reads it): (column, test, metric, unit).
# Each rate column is followed by its CPU % column, and columns 38-49 hold the latency of
# the same twelve tests in the same order ("3983us"). Block throughput is KiB/s (the
# paper's "KB/s"); the metadata tests count files per second.
_TESTS = (
    (9, "seq_write_chr", "seq_write_chr_bw", "KiB/s"),  # per-character putc(); skipped by -f
    (11, "seq_write", "seq_write_bw", "KiB/s"),
    (13, "rewrite", "rewrite_bw", "KiB/s"),
    (15, "seq_read_chr", "seq_read_chr_bw", "KiB/s"),  # per-character getc(); skipped by -f
    (17, "seq_read", "seq_read_bw", "KiB/s"),
    (19, "random_seeks", "random_seeks", "ops/s"),
    (26, "seq_create", "seq_create", "files/s"),
    (28, "seq_stat", "seq_stat", "files/s"),
    (30, "seq_delete", "seq_delete", "files/s"),
    (32, "random_create", "random_create", "files/s"),
    (34, "random_stat", "random_stat", "files/s"),
    (36, "random_delete", "random_delete", "files/s"),
)
_LATENCY_FIRST_COLUMN = 38
_COLUMNS = 50  # also with -s 0 or -n 0: skipped tests leave their columns empty
_LATENCY = re.compile(r"^([0-9.]+)(ns|us|ms|s)$")
_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}

#: metric -> the bonnie++ test it comes from (what `too_fast` names).
TEST_OF_METRIC = {
    **{metric: test for _, test, metric, _ in _TESTS},
    **{f"{test}_cpu": test for _, test, _, _ in _TESTS},
    **{f"{test}_latency": test for _, test, _, _ in _TESTS},
}

METRICS = {
    **{metric: unit for _, _, metric, unit in _TESTS},
    **{f"{test}_cpu": "%" for _, test, _, _ in _TESTS},
    **{f"{test}_latency": "us" for _, test, _, _ in _TESTS},
}


class BonnieConfig(BenchConfig):
    size_mb: int | None = Field(64, ge=1)  # None: bonnie++'s default, twice the host's RAM
    ram_mb: int | None = Field(32, ge=1)  # bonnie++ refuses size_mb < 2 x RAM, so a small size needs this
    files_k: int = Field(2, ge=0)  # -n: thousands of files for the metadata tests (1 is mostly too fast to time)
    fast: bool = True  # -f: skip the per-character tests the paper does not report
    direct: bool = True  # -D: O_DIRECT bulk I/O, or a small file is measured in the page cache
    sync_writes: bool = True  # -b: fsync after every write, so creates reach the disk
    user: str = "root"  # -u: bonnie++ refuses to run as root without it

    @field_validator("user")
    @classmethod
    def _user(cls, v: str) -> str:
        if not re.fullmatch(r"\w[\w.-]*(:\w[\w.-]*)?", v, re.ASCII):
            raise ValueError(f"must be a user name (optionally user:group), got {v!r}")
        return v

    @model_validator(mode="after")
    def _size_needs_ram(self) -> "BonnieConfig":
        # bonnie++ refuses a size under twice the RAM it sees, so a small size needs -r.
        if self.size_mb is not None:
            if self.ram_mb is None:
                raise ParamsError("size_mb", "a set size_mb needs ram_mb (bonnie++ wants size >= 2 x RAM)")
            if self.size_mb < 2 * self.ram_mb:
                raise ParamsError("size_mb", f"must be at least 2 x ram_mb = {2 * self.ram_mb}, got {self.size_mb}")
        return self


#: The registry and `vbench bench list` find every module's config under this name.
Config = BonnieConfig
PRESETS = {
    # The paper ran bonnie++ with its defaults: size twice the RAM, 16k files, all tests.
    "vasconcelos": BonnieConfig(size_mb=None, ram_mb=None, files_k=16, fast=False, direct=False, sync_writes=False),
}


def argv(cfg: BonnieConfig, workdir: str) -> list[str]:
    # -q: the CSV line alone on stdout, the human table on stderr.
    args = ["bonnie++", "-d", workdir, "-u", cfg.user, "-m", "vbench", "-q"]
    if cfg.size_mb is not None:
        args += ["-s", str(cfg.size_mb)]
    if cfg.ram_mb is not None:
        args += ["-r", str(cfg.ram_mb)]
    args += ["-n", str(cfg.files_k)]
    args += [flag for flag, on in (("-f", cfg.fast), ("-D", cfg.direct), ("-b", cfg.sync_writes)) if on]
    return args


def command(cfg: BonnieConfig, workdir: str) -> str:
    return "LC_ALL=C " + shlex.join(argv(cfg, workdir))


def _csv_line(text: str) -> list[str]:
    for line in (text or "").splitlines():
        cols = line.strip().split(",")
        if re.fullmatch(r"\d+\.\d+", cols[0]) and len(cols) > 20:
            if cols[0] != CSV_VERSION or len(cols) != _COLUMNS:
                raise JobFailed(
                    f"bonnie++: CSV format {cols[0]} with {len(cols)} columns is not the "
                    f"{CSV_VERSION} with {_COLUMNS} columns this parser knows"
                )
            return cols
    raise JobFailed("bonnie++: no CSV result line in output (was -q given?)")


def _measured(cell: str) -> bool:
    # "+++++" / "+++": the test finished too fast to time; "": the test was skipped (-f, -n 0).
    return bool(cell) and not cell.startswith("+")


def parse_stdout(text: str, cfg: BonnieConfig) -> list[Sample]:
    cols = _csv_line(text)
    # Tests too fast to time yield no sample; say which, so a missing value is explained.
    too_fast = [test for col, test, _, _ in _TESTS if cols[col].startswith("+")]
    meta = {"bonnie_version": cols[1], "file_size": cols[5], "files": cols[21], "too_fast": too_fast}
    samples = []
    for k, (col, test, metric, unit) in enumerate(_TESTS):
        if _measured(cols[col]):
            samples.append(sample(NAME, metric, number(metric, cols[col]), unit, cfg, **meta))
        if _measured(cols[col + 1]):
            samples.append(sample(NAME, f"{test}_cpu", number(test, cols[col + 1]), "%", cfg, **meta))
        latency = cols[_LATENCY_FIRST_COLUMN + k]
        m = _LATENCY.match(latency)
        if m:
            samples.append(sample(NAME, f"{test}_latency", float(m[1]) * _TO_US[m[2]], "us", cfg, **meta))
        elif latency:
            raise JobFailed(f"bonnie++: {test} latency is {latency!r}, expected e.g. 120us")
    if not any(s.unit != "us" and not s.metric.endswith("_cpu") for s in samples):
        raise JobFailed("bonnie++: every test finished too fast to time (+++++); raise size_mb / files_k")
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: BonnieConfig, workdir: str) -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)

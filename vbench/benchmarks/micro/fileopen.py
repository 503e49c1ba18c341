"""fileopen: the cost of opening a file by its name, reading it to its end and closing it (us per
file), in the host's work directory.

None of the studies measured it, but an HDFS DataNode pays it for every block it serves or
writes (a block file and its checksum file opened by name), and a task for every spill, shuffle
and jar file. It was built to test whether a call naming a file costs gVisor more than its calls
(through the gofer), as gVisor's under-predicted NNBench open/read suggested: it does not, an
open, fstat, read and close costs what about four of its one-byte calls cost, gofer or memory
(selfbench/gvisor_call_paths.py; docs/results.md, "The levels' fit at a barrier every level
reaches"). `testbed.slowdown.syscall_stops: file` plants the same kind of cost on native hosts
(vbench.testbed.syscall_stops).

One empty file is made in the work directory; `cat` is then given it `count` times, and once,
each between two `date +%s%N` stamps of the same shell (the argument list is built before the
first): per file, cat's openat, fstat, fadvise, read (at its end at once) and close. The
difference of the two windows over `count - 1` is the cost of one more file, without cat's own
start and exit, the stamps' `date`s or the shell's. A repeat is `windows` such pairs, and its
value their median: on this VM one 60-ms window in twenty ran 15 % short or long (2026-12-05),
which a median leaves out. One window's files are opened untimed first: on gVisor a host's first
repeats ran 2-3x its last (costs-fileopen). The file is removed on the way out.
"""

from __future__ import annotations

import shlex

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.samples import Sample

from ._common import Runner, execute, one_step, sample
from .spawn import elapsed_s, median_of_windows, tagged_lines

NAME = "fileopen"
METRICS = {"fileopen_us": "us", "elapsed": "s"}
#: The file opened, in the work directory: short, so `count` copies of its name stay below the
#: kernel's limit on a command's arguments and environment (a quarter of an 8 MiB stack, 2 MiB),
#: which counts each argument's pointer too: 16 + 8 bytes a copy. 100,000 copies (2.4 MB) got
#: "Argument list too long" here (2026-12-02); `MAX_COUNT` (1.44 MB) leaves the environment room.
TEST_FILE = "vbench-fileopen"
MAX_COUNT = 60_000


class FileopenConfig(BenchConfig):
    count: int = Field(4000, ge=100, le=MAX_COUNT)  # files opened by one cat per window
    repeats: int = Field(5, ge=1, le=1000)  # one sample of each metric per repeat
    windows: int = Field(5, ge=1, le=99)  # pairs of windows per repeat, whose median is the repeat's


#: The registry and `vbench bench list` find every module's config under this name.
Config = FileopenConfig
PRESETS: dict[str, FileopenConfig] = {}
#: Each setting added after samples were recorded -> what those samples were measured with
#: (one window before 3719756): how vbench.stats.bench_settings reads a sample without it.
SETTINGS_BEFORE_RECORDED = {"windows": 1}


def command(cfg: FileopenConfig, workdir: str) -> str:
    """The shell script: per repeat and window, a `fileopen repeat= window= count= many_start=
    many_end= one_start= one_end=` line (`parse_stdout` reads them); cat's first failure stops it,
    saying so on stderr, and is its exit status."""
    d = shlex.quote(workdir.rstrip("/") or "/")
    f = TEST_FILE
    failed = 'echo "vbench: fileopen: cat exited $rc in repeat $r" >&2'
    window = "s{0}=$(date +%s%N); cat {1} >/dev/null || {{ rc=$?; {2}; break 2; }}; e{0}=$(date +%s%N)"
    return (
        f"cd {d} || exit 1; : > {f} || exit 1; trap 'rm -f {f}' EXIT; "
        # `count` newline-separated copies of the name, split by the shell into cat's arguments.
        f"files=$(yes {f} | head -n {cfg.count}); rc=0; "
        # One untimed window first (the module's docstring says why).
        f'cat $files >/dev/null || {{ rc=$?; echo "vbench: fileopen: cat exited $rc warming up" >&2; exit $rc; }}; '
        f"for r in $(seq 1 {cfg.repeats}); do for w in $(seq 1 {cfg.windows}); do "
        f"{window.format('m', '$files', failed)}; {window.format('o', f, failed)}; "
        f'echo "{NAME} repeat=$r window=$w count={cfg.count} many_start=$sm many_end=$em one_start=$so one_end=$eo"; '
        f"done; done; exit $rc"
    )


_FIELDS = ("repeat", "window", "count", "many_start", "many_end", "one_start", "one_end")


def parse_stdout(text: str, cfg: FileopenConfig) -> list[Sample]:
    def per_file_s(p: dict[str, str], what: str) -> tuple[float, float]:
        many = elapsed_s(p["many_start"], p["many_end"], what)
        return (many - elapsed_s(p["one_start"], p["one_end"], what)) / (cfg.count - 1), many

    # cat's start alone outlasting count files in most windows: windows disturbed, not a cost.
    no_cost = f"{cfg.count} files took no longer than one in most of its {cfg.windows} windows"
    found = tagged_lines(NAME, text, _FIELDS)
    samples = []
    for i, median, many_s in median_of_windows(
        NAME, found, cfg.count, cfg.repeats, cfg.windows, "files", per_file_s, no_cost
    ):
        meta = {"repeat": i, "files": cfg.count}
        samples.append(sample(NAME, "fileopen_us", median * 1e6, "us", cfg, **meta))
        samples.append(sample(NAME, "elapsed", many_s, "s", cfg, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: FileopenConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)

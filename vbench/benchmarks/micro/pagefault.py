"""pagefault: the cost of faulting in a page of fresh anonymous memory (us per 4 KiB page).

None of the studies measured it. Under QEMU/TCG a process costs x34.6 native's, but a system call
only x5.8 and memory bandwidth x5.3 (costs-qemu-kernel-amd, issue #53): neither its calls nor its
bytes explain what a process costs there. The hypothesis is the guest kernel's memory management,
the address space a new process gets and the pages it faults in, each fault a trap and page-table
walks that TCG's soft MMU runs instruction by instruction. Hadoop pays it wherever memory is new:
every task's JVM faults in its heap, code and class metadata, every map its sort buffer. `spawn`
holds a process's faults together with its creation, exec and exit; this takes one page's fault
apart from them, so a platform's process cost can be read as pages faulted in and the rest.

Two loops of `dd if=/dev/zero of=/dev/null count=1`, one with `bs=<size_mb>M`, one with `bs=4K`,
each `count` runs in one of spawn's timed windows (`spawn.timed_window`), alternate window by
window in one shell, so drift on the host falls on both alike. Both pay the same process, which
cancels: a page's cost is the big run less the small one, over the pages of the big buffer,
from each repeat's median window of each loop (`spawn.parse_lines`). dd mallocs its `bs`-byte
buffer, above glibc's mmap threshold fresh anonymous memory, and its one read from /dev/zero writes
it through page by page. So a page's cost is its whole life: the fault, the kernel zeroing the new
page, the read writing it again (8 KiB written a page, so memory bandwidth is a part), and its
unmapping and freeing when dd exits.

Transparent huge pages change what this measures. Under `always` the kernel faults most of the
buffer in 2 MiB at a time (one fault for 512 pages) and the cost is mostly zeroing; under
`madvise` (the AMD EPYC machine's, 2026-12-08) or `never`, glibc's malloc asks for none and each
4 KiB page is a fault of its own. Each sample records the host's setting as `thp`: the bracketed
word of /sys/kernel/mm/transparent_hugepage/enabled, read by the same script, or `unknown` where
the host has no such file (a sandbox's own sysfs may not).
"""

from __future__ import annotations

import re

from pydantic import Field

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed
from vbench.samples import Sample

from ._common import Runner, execute, one_step, sample
from .spawn import parse_lines, timed_window

NAME = "pagefault"
METRICS = {"pagefault_us": "us", "elapsed": "s"}
PAGE_BYTES = 4096
#: The small run's buffer: one page, below glibc's mmap threshold, so its dd faults in nothing new
#: worth counting; its run is the process the big run also pays.
SMALL_BS = "4K"
#: The tags of the big and small runs' window lines, and of the line saying the host's THP setting.
BIG_TAG = "pagefault-big"
SMALL_TAG = "pagefault-small"
THP_TAG = "pagefault-thp"
THP_FILE = "/sys/kernel/mm/transparent_hugepage/enabled"
#: What `thp` reads where the host has no THP setting to read.
THP_UNKNOWN = "unknown"


class PagefaultConfig(BenchConfig):
    size_mb: int = Field(64, ge=1, le=1024)  # MiB of fresh memory each big dd run faults in
    count: int = Field(50, ge=1, le=100_000)  # dd runs per window, of each size
    repeats: int = Field(5, ge=1, le=1000)  # one sample of each metric per repeat
    windows: int = Field(1, ge=1, le=99)  # pairs of windows per repeat, whose medians are the repeat's


#: The registry and `vbench bench list` find every module's config under this name.
Config = PagefaultConfig
PRESETS: dict[str, PagefaultConfig] = {}


def dd_run(bs: str) -> str:
    """One dd run that mallocs a `bs`-byte buffer and fills it once from /dev/zero; silent."""
    return f"dd if=/dev/zero of=/dev/null bs={bs} count=1 status=none"


def pages(size_mb: int) -> int:
    """The 4 KiB pages a `size_mb` MiB buffer holds."""
    return size_mb * 2**20 // PAGE_BYTES


def command(cfg: PagefaultConfig, workdir: str = "") -> str:
    """The shell script: a `pagefault-thp <the THP file's text>` line, then per repeat and window a
    big run's window and a small run's, each printing its `timed_window` line; dd's first failure
    stops it, saying so on stderr, and is its exit status."""
    # workdir is unused (nothing is written), kept so every module has the same signature.
    big = timed_window(BIG_TAG, dd_run(f"{cfg.size_mb}M"), cfg.count)
    small = timed_window(SMALL_TAG, dd_run(SMALL_BS), cfg.count)
    return (
        f'echo "{THP_TAG} $(cat {THP_FILE} 2>/dev/null)"; '
        f"rc=0; for r in $(seq 1 {cfg.repeats}); do for w in $(seq 1 {cfg.windows}); do "
        f"{big}; {small}; done; done; exit $rc"
    )


def thp_setting(text: str) -> str:
    """The host's THP setting from the script's `pagefault-thp` line: the word the kernel brackets
    ("always [madvise] never" -> "madvise"), THP_UNKNOWN when the line holds none. JobFailed when
    there is no such line: the script did not run as written."""
    for line in (text or "").splitlines():
        words = line.split()
        if words and words[0] == THP_TAG:
            chosen = re.search(r"\[(\w+)\]", line)
            return chosen.group(1) if chosen else THP_UNKNOWN
    raise JobFailed(f"{NAME}: no '{THP_TAG} ...' line in output")


def per_page_us(big_s: float, small_s: float, count: int, size_mb: int) -> float:
    """Microseconds a page: `count` big runs' seconds less `count` small runs', per run, over
    the big buffer's pages."""
    return (big_s - small_s) / count / pages(size_mb) * 1e6


def parse_stdout(text: str, cfg: PagefaultConfig) -> list[Sample]:
    thp = thp_setting(text)
    try:
        big = parse_lines(BIG_TAG, text, cfg.count, cfg.repeats, cfg.windows)
        small = parse_lines(SMALL_TAG, text, cfg.count, cfg.repeats, cfg.windows)
    except JobFailed as exc:
        # Named after the benchmark, as every failure is; the tag says which loop.
        raise JobFailed(f"{NAME}: {exc}") from None
    samples = []
    for (i, big_s, big_took), (_, small_s, small_took) in zip(big, small):
        value = per_page_us(big_s, small_s, cfg.count, cfg.size_mb)
        if value <= 0:
            raise JobFailed(
                f"{NAME}: repeat {i}: {cfg.count} runs with a {cfg.size_mb} MiB buffer took no longer "
                f"than {cfg.count} with a {SMALL_BS} one"
            )
        meta = {"repeat": i, "pages": pages(cfg.size_mb), "thp": thp}
        samples.append(sample(NAME, "pagefault_us", value, "us", cfg, **meta))
        samples.append(sample(NAME, "elapsed", big_took + small_took, "s", cfg, **meta))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: PagefaultConfig, workdir: str = "") -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)

"""What each kind of system call a Hadoop JVM makes costs gVisor (ptrace) on a busy machine, and
what native's mix of them costs a call on average (issue #53).

Native Hadoop's calls, counted by name with `perf stat -a -e 'syscalls:sys_enter_*'` over a native
run of the suite (by hand, 2026-12-05 07:48-07:51 UTC; the same in both blocks of
costs-callnames-gvisor, `python -m selfbench.call_names read`), are the same mix on every step: gettid 26 %, futex 15 %, read 11 %, newfstatat 9 %, close 7 %, lseek 7 %, rt_sigaction 4 %,
sysinfo, readlink, mmap, mprotect, openat, write and getrusage 1.5-2.4 % each. On a busy machine a
one-byte call costs gVisor 22.6 us of machine CPU (selfbench.gvisor_call_gap, held to one CPU), and
native's calls at that price explain about a third of gVisor's extra CPU on a job. This says
whether the kinds Hadoop makes cost more than that one-byte call.

One payload (Python, the same file natively and in the sandbox) times each kind in a loop, in one
process, per call in microseconds: most are the call itself through ctypes' `syscall` or the os
module; `open_close`, `mmap_munmap` are pairs (per pair); `pingpong` is a one-byte round trip
through two pipes between two processes (4 calls and 2 blocking wake-ups, per round trip);
`fault` is a first write to each page of a fresh anonymous mapping (per page). Files live in the
payload's directory on the host's file system, through the sandbox's gofer (`-force-overlay=false`,
as a testbed's root is). The whole run is held to CPU 0 (`taskset -c 0`) unless `--spread`: on one
CPU a gVisor call's wall time is its machine CPU (gvisor_call_gap: 1.00 CPUs busy), as on a busy
cluster.

The mix's price: each kind's gVisor price less native's, weighted by its share of native's calls
(`--mix`, the reading above; pairs split evenly between their two calls, futex priced both as a
wake with no waiter and as a quarter of a pingpong, the two ends), the kinds not timed at the
one-byte call's price.

Needs root and runsc; run it on an idle machine. ~1 min at the defaults.

    cd <repository> && sudo .venv/bin/python -m selfbench.gvisor_call_kinds [--rounds 5] [--count 2000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from selfbench.runsc_do import ON_CPU0, RUNSC_DO

#: The payload: prints one JSON object of microseconds per kind.
PAYLOAD = r"""
import ctypes, json, mmap, os, resource, sys, time

n = int(sys.argv[1])
work = sys.argv[2]
ns = time.perf_counter_ns
libc = ctypes.CDLL(None, use_errno=True)
sysc = libc.syscall
sysc.restype = ctypes.c_long
out = {}

def timed(name, fn, k=n, per=1):
    fn()
    t = ns()
    for _ in range(k):
        fn()
    out[name] = (ns() - t) / k / per / 1000

path = os.path.join(work, "blk")
with open(path, "wb") as f:
    f.write(b"x" * 4096)
link = os.path.join(work, "link")
os.symlink(path, link)
fd = os.open(path, os.O_RDONLY)
word = ctypes.c_int(0)
buf = ctypes.create_string_buffer(256)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
page = libc.mmap(None, 4096, 3, 0x22, -1, 0)
prot = [1]

def mprotect():
    prot[0] ^= 2
    libc.mprotect(page, 4096, prot[0])

def mmap_munmap():
    p = libc.mmap(None, 4096, 3, 0x22, -1, 0)
    libc.munmap(p, 4096)

def open_close():
    os.close(os.open(path, os.O_RDONLY))

timed("gettid", lambda: sysc(186))
timed("futex", lambda: sysc(202, ctypes.byref(word), 129, 1, 0, 0, 0))
timed("read", lambda: os.pread(fd, 512, 0))
timed("newfstatat", lambda: os.stat(path))
timed("lseek", lambda: os.lseek(fd, 0, os.SEEK_SET))
timed("open_close", open_close)
timed("rt_sigaction", lambda: sysc(13, 10, None, buf, 8))
timed("sysinfo", lambda: sysc(99, buf))
timed("readlink", lambda: os.readlink(link))
timed("mmap_munmap", mmap_munmap)
timed("mprotect", mprotect)
timed("getrusage", lambda: resource.getrusage(resource.RUSAGE_THREAD))

pages = max(n, 256)
t = ns()
m = mmap.mmap(-1, pages * 4096)
for i in range(0, pages * 4096, 4096):
    m[i] = 1
out["fault"] = (ns() - t) / pages / 1000
m.close()

k = max(n // 10, 10)
r1, w1 = os.pipe()
r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    for _ in range(k):
        os.read(r1, 1)
        os.write(w2, b"x")
    os._exit(0)
t = ns()
for _ in range(k):
    os.write(w1, b"x")
    os.read(r2, 1)
out["pingpong"] = (ns() - t) / k / 1000
os.waitpid(pid, 0)
os.close(fd)
print(json.dumps(out), flush=True)
"""

WAYS = ("native", "gvisor")
KINDS = (
    "gettid",
    "futex",
    "read",
    "newfstatat",
    "lseek",
    "open_close",
    "rt_sigaction",
    "sysinfo",
    "readlink",
    "mmap_munmap",
    "mprotect",
    "getrusage",
    "fault",
    "pingpong",
)
#: Kinds timed as a pair of calls: the price of each of the two names is half the pair's.
PAIRS = {"open_close": ("openat", "close"), "mmap_munmap": ("mmap", "munmap")}
#: Native Hadoop's calls by name, % of all its calls over the suite's job steps (perf stat -a, by
#: hand, 2026-12-05 07:48-07:51 UTC, the Intel Xeon machine; costs-callnames-gvisor's steps agree
#: within a point or two, docs/results.md).
NATIVE_MIX = {
    "gettid": 25.9,
    "futex": 15.2,
    "read": 10.6,
    "newfstatat": 8.8,
    "close": 7.3,
    "lseek": 7.2,
    "rt_sigaction": 3.6,
    "sysinfo": 2.4,
    "readlink": 2.4,
    "mmap": 2.2,
    "mprotect": 2.2,
    "openat": 1.8,
    "write": 1.8,
    "getrusage": 1.5,
}
#: A one-byte call on a busy machine under gVisor (ptrace), us: selfbench.gvisor_call_gap held to
#: one CPU (2026-12-05 07:44 UTC), the price of a name this payload does not time.
ONE_BYTE_CALL_US = 22.5


@dataclass(frozen=True)
class MixPrice:
    """The mix's average extra per call, us: futex as a wake with no waiter, and as a blocking
    quarter of a pingpong; the share of the mix priced by its own kind."""

    wake_us: float
    blocking_us: float
    timed_share: float


def argv_of(way: str, payload: Path, count: int, work: Path, spread: bool = False) -> list[str]:
    """The command that runs the payload `way`, held to CPU 0 unless `spread`. Pure."""
    py = ["python3", "-u", str(payload), str(count), str(work)]
    if way == "gvisor":
        py = [*RUNSC_DO, "-force-overlay=false", *py]
    elif way != "native":
        raise ValueError(f"unknown way {way!r}: one of {', '.join(WAYS)}")
    return py if spread else [*ON_CPU0, *py]


def parse(stdout: str) -> dict[str, float]:
    """The payload's JSON line (the last line that is one), every kind present. Pure."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            got = {k: float(v) for k, v in json.loads(line).items()}
            missing = [k for k in KINDS if k not in got]
            if missing:
                raise ValueError(f"the payload's line lacks {', '.join(missing)}")
            return got
    raise ValueError(f"no result line in {stdout[-300:]!r}")


def per_name(extra: Mapping[str, float], futex_us: float) -> dict[str, float]:
    """The extra price of each call name the kinds time: a pair's half each, futex as given. Pure."""
    out = {k: v for k, v in extra.items() if k in KINDS and k not in PAIRS and k not in ("fault", "pingpong")}
    for kind, names in PAIRS.items():
        for name in names:
            out[name] = extra[kind] / len(names)
    out["futex"] = futex_us
    return out


def mix_price(extra: Mapping[str, float], mix: Mapping[str, float], untimed_us: float) -> MixPrice:
    """The mix's average extra per call, from each kind's extra (gVisor's median less native's),
    names the kinds do not time at `untimed_us`; the mix's shares need not sum to 100. Pure."""
    total = sum(mix.values())
    if total <= 0:
        raise ValueError("the mix has no calls")

    def average(futex_us: float) -> float:
        prices = per_name(extra, futex_us)
        return sum(share * prices.get(name, untimed_us) for name, share in mix.items()) / total

    timed = per_name(extra, 0.0)
    return MixPrice(
        average(extra["futex"]),
        average(extra["pingpong"] / 4),
        sum(share for name, share in mix.items() if name in timed) / total,
    )


def medians(rounds: Sequence[Mapping[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in rounds) for k in KINDS}


def summary(rounds: Mapping[str, Sequence[Mapping[str, float]]], mix: Mapping[str, float], untimed_us: float) -> str:
    """Per kind: each way's median (min-max) over rounds, gVisor's extra and it in one-byte calls;
    then the mix's price. Pure."""
    med = {w: medians(rs) for w, rs in rounds.items()}
    extra = {k: med["gvisor"][k] - med["native"][k] for k in KINDS}
    lines = [f"{'kind':<14}" + "".join(f"{w:>24}" for w in WAYS) + f"{'extra':>10}{'calls':>8}"]
    for k in KINDS:
        cells = []
        for w in WAYS:
            vals = [r[k] for r in rounds[w]]
            cells.append(f"{med[w][k]:8.2f} ({min(vals):.1f}-{max(vals):.1f})")
        lines.append(
            f"{k:<14}" + "".join(f"{c:>24}" for c in cells) + f"{extra[k]:>10.2f}{extra[k] / untimed_us:>8.2f}"
        )
    p = mix_price(extra, mix, untimed_us)
    lines.append(
        "us per call (pairs: per pair; fault: per page; pingpong: per round trip), median (min-max) over rounds; "
        f"calls: the extra in one-byte calls ({untimed_us:g} us)"
    )
    lines.append(
        f"native's mix at these prices: {p.wake_us:.1f} us extra per call with futex a wake, {p.blocking_us:.1f} us with "
        f"futex a blocking quarter of a pingpong; {p.timed_share:.0%} of the mix timed by its own kind"
    )
    return "\n".join(lines)


def parse_mix(items: Sequence[str]) -> dict[str, float]:
    """NAME=PERCENT items. Pure."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--mix wants NAME=PERCENT, got {item!r}")
        out[name] = float(value)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--count", type=int, default=2000, help="calls of each kind a round (round trips: a tenth)")
    ap.add_argument("--spread", action="store_true", help="do not hold the runs to CPU 0")
    ap.add_argument("--mix", nargs="+", default=None, help="native's calls as NAME=PERCENT (default: NATIVE_MIX)")
    ap.add_argument("--untimed-us", type=float, default=ONE_BYTE_CALL_US, help="the price of a name not timed")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a round's run may take")
    args = ap.parse_args(argv)
    mix = parse_mix(args.mix) if args.mix else NATIVE_MIX
    missing = [t for t in ("runsc", "taskset") if shutil.which(t) is None]
    if missing:
        print(f"needs {', '.join(missing)}", file=sys.stderr)
        return 2
    rounds: dict[str, list[dict[str, float]]] = {w: [] for w in WAYS}
    with tempfile.TemporaryDirectory(prefix="vbench-gvisor-kinds-") as tmp:
        payload = Path(tmp, "payload.py")
        payload.write_text(PAYLOAD)
        for i in range(args.rounds):
            for way in WAYS if i % 2 == 0 else tuple(reversed(WAYS)):
                work = Path(tmp, f"{way}-{i}")
                work.mkdir()
                r = subprocess.run(
                    argv_of(way, payload, args.count, work, args.spread),
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    cwd=tmp,
                )
                if r.returncode != 0:
                    print(f"{way} round {i}: exit {r.returncode}: {r.stderr.strip()[-300:]}", file=sys.stderr)
                    return 1
                rounds[way].append(parse(r.stdout))
                print(f"round {i + 1}/{args.rounds} {way}: {rounds[way][-1]}", file=sys.stderr, flush=True)
    print(summary(rounds, mix, args.untimed_us))
    return 0


if __name__ == "__main__":
    sys.exit(main())

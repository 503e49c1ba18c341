"""What a gVisor sandbox charges for the operations a DataNode serving a read makes, beside a
one-byte call, on this machine (issue #53: why NNBench open/read costs gVisor more than the
levels' fit predicts).

One payload (Python, the same file natively and in the sandbox) times, in one process:

- `call_us`: a one-byte write to /dev/null (the cost vector's system call);
- `open_us`: open, fstat, read and close of one small file by name (a block file's open; fileopen's
  calls without cat), in a directory of the payload's root file system;
- `thread_us`: a thread started and joined (a DataNode's DataXceiver per connection);
- `connect_us`: a loopback TCP connect, accept and both closes (a client's connection to a DataNode);
- `pingpong_us`: a one-byte round trip through two pipes between two processes (a wake-up each way).

Run natively, in `runsc do` with the payload's directory on the host's file system through the
sandbox's gofer (`do -force-overlay=false`), and with `runsc do`'s own default, a tmpfs overlay over
the host's root (files the payload creates live in the Sentry's memory; no gofer for them). Rounds alternate the three, so a drift of
the machine falls on each alike; each value is the median over rounds, with the min and max.

It starts a sandbox per run with `runsc --network=none --platform=ptrace do` (no testbed, no
network; the host's root read-only through the gofer, but the payload's directory); the payload and its files are in
a temporary directory this script makes and removes. Needs root and runsc. ~1 min at the defaults.

    cd <repository> && sudo python3 -m selfbench.gvisor_call_paths [--rounds 5] [--count 2000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from selfbench.runsc_do import RUNSC_DO

#: The payload: prints one JSON object of per-operation costs in microseconds.
PAYLOAD = r"""
import json, os, socket, sys, threading, time

n = int(sys.argv[1])
work = sys.argv[2]
ns = time.perf_counter_ns

def per_op(t0, t1, k):
    return (t1 - t0) / k / 1000

out = {}
fd = os.open("/dev/null", os.O_WRONLY)
t = ns()
for _ in range(n):
    os.write(fd, b"x")
out["call_us"] = per_op(t, ns(), n)
os.close(fd)

path = os.path.join(work, "blk_0")
with open(path, "wb") as f:
    f.write(b"x" * 512)
t = ns()
for _ in range(n):
    f = os.open(path, os.O_RDONLY)
    os.fstat(f)
    os.read(f, 4096)
    os.close(f)
out["open_us"] = per_op(t, ns(), n)
os.unlink(path)

k = max(n // 10, 10)
t = ns()
for _ in range(k):
    th = threading.Thread(target=lambda: None)
    th.start()
    th.join()
out["thread_us"] = per_op(t, ns(), k)

srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
port = srv.getsockname()[1]
t = ns()
for _ in range(k):
    c = socket.create_connection(("127.0.0.1", port))
    a, _ = srv.accept()
    c.close()
    a.close()
out["connect_us"] = per_op(t, ns(), k)
srv.close()

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
out["pingpong_us"] = per_op(t, ns(), k)
os.waitpid(pid, 0)
print(json.dumps(out), flush=True)
"""

WAYS = ("native", "gvisor", "gvisor-memory")
OPS = ("call_us", "open_us", "thread_us", "connect_us", "pingpong_us")


def argv_of(way: str, payload: Path, count: int, work: Path) -> list[str]:
    """The command that runs the payload `way`. Pure."""
    py = ["python3", "-u", str(payload), str(count), str(work)]
    if way == "native":
        return py
    # `runsc do` lays a tmpfs overlay over the host's root unless told not to; without it the
    # payload's files are the host's, reached through the gofer (as a testbed's overlay root is).
    overlay = [] if way == "gvisor-memory" else ["-force-overlay=false"]
    return [*RUNSC_DO, *overlay, *py]


def parse(stdout: str) -> dict[str, float]:
    """The payload's JSON line (the last line that is one). Pure."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            return {k: float(v) for k, v in json.loads(line).items()}
    raise ValueError(f"no result line in {stdout[-300:]!r}")


def summary(rounds: Mapping[str, Sequence[Mapping[str, float]]]) -> str:
    """Per operation and way: median (min-max) over rounds, its ratio to native's median, and the
    operation's cost in one-byte calls of the same way. Pure."""
    med = {w: {op: statistics.median(r[op] for r in rs) for op in OPS} for w, rs in rounds.items()}
    lines = [f"{'operation':<12}" + "".join(f"{w:>34}" for w in rounds)]
    for op in OPS:
        cells = []
        for w, rs in rounds.items():
            vals = [r[op] for r in rs]
            ratio = med[w][op] / med["native"][op] if "native" in med else float("nan")
            calls = med[w][op] / med[w]["call_us"]
            cells.append(f"{med[w][op]:9.2f} ({min(vals):.1f}-{max(vals):.1f}) x{ratio:6.1f} ={calls:6.1f}c")
        lines.append(f"{op:<12}" + "".join(f"{c:>34}" for c in cells))
    lines.append(
        "us a operation, median (min-max) over rounds; x: ratio to native's median; c: in one-byte calls of the same way"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--count",
        type=int,
        default=2000,
        help="one-byte calls and opens a round (threads, connects, round trips: a tenth)",
    )
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a round's run may take")
    args = ap.parse_args(argv)
    if shutil.which("runsc") is None:
        print("needs runsc", file=sys.stderr)
        return 2
    rounds: dict[str, list[dict[str, float]]] = {w: [] for w in WAYS}
    with tempfile.TemporaryDirectory(prefix="vbench-gvisor-paths-") as tmp:
        payload = Path(tmp, "payload.py")
        payload.write_text(PAYLOAD)
        for i in range(args.rounds):
            for way in WAYS if i % 2 == 0 else tuple(reversed(WAYS)):
                work = Path(tmp, f"{way}-{i}")
                work.mkdir()
                r = subprocess.run(
                    argv_of(way, payload, args.count, work),
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
    print(summary(rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())

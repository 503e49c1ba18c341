"""What the monitoring sampler costs: its own CPU time, and a TeraSort's time with and without it.

Two measurements, both printed with their method:

1. CPU cost of the sampler itself: run the guest-side sh loop (vbench.monitor.sampler) alone on
   this machine for --seconds at --interval, then read the CPU time its session used (the
   loop's utime+stime plus its reaped children's, cat and sleep: cutime+cstime from
   /proc/<pid>/stat just before it is stopped). Quoted as % of one CPU per sampled host.
2. Effect on a job: on one native cluster (--params-dir), --pairs rounds of TeraSort
   (--size-mb) with and without monitoring of every host at --interval, in ABBA order against
   drift; the ratio of mean TeraSort job times (with / without) with its 95 % Fieller interval.
   On a machine shared with other work this is noisy; the interval says how noisy.

    python3 selfbench/sampler_overhead.py [--params-dir DIR] [--pairs 3] [--size-mb 32] [--interval 1]
    python3 selfbench/sampler_overhead.py --cpu-only
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vbench.monitor import sampler  # noqa: E402

HZ = os.sysconf("SC_CLK_TCK")


def session_cpu_s(pid: int) -> float:
    """CPU seconds of a process and its reaped children, from /proc/<pid>/stat."""
    rest = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in rest[11:15])
    return (utime + stime + cutime + cstime) / HZ


def sampler_cpu(seconds: float, interval: float) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as d:
        out, pidf = f"{d}/s.txt", f"{d}/s.pid"
        subprocess.run(["sh", "-c", sampler.start_line(out, pidf, interval)], check=True, capture_output=True)
        pid = int(Path(pidf).read_text())
        t0 = time.monotonic()
        time.sleep(seconds)
        cpu = session_cpu_s(pid)
        wall = time.monotonic() - t0
        subprocess.run(["sh", "-c", sampler.stop_line(pidf)], check=True)
        n = len(sampler.parse(Path(out).read_text()).snapshots)
    return 100.0 * cpu / wall, n


def job_effect(params_dir: Path, pairs: int, size_mb: int, interval: float) -> None:
    from vbench.benchmarks.hadoop import terasort
    from vbench.hadoop.artifacts import fetch
    from vbench.hadoop.cluster import HadoopCluster
    from vbench.params import load_hadoop, load_testbed
    from vbench.stats.ratio import fieller_interval
    from vbench.testbed import Testbed

    tb = load_testbed(params_dir / "testbed.yaml")
    hp = load_hadoop(params_dir / "hadoop.yaml")
    dist = fetch(hp.version, hp.examples_version)
    cfg = terasort.Config(size_mb=size_mb)
    times: dict[bool, list[float]] = {False: [], True: []}
    quiet = lambda m: None  # noqa: E731
    with Testbed(tb, log=quiet) as bed:
        cluster = HadoopCluster(bed.hosts, hp, dist, log=quiet)
        try:
            cluster.up(timeout_s=600)  # a shared, loaded machine can take longer than the default 120 s
            _pairs(cluster, bed, tb, pairs, cfg, interval, times, quiet)
        finally:
            cluster.down()
    ratio = fieller_interval(times[True], times[False])
    mean = lambda x: sum(x) / len(x)  # noqa: E731
    print(
        f"TeraSort job time without: mean {mean(times[False]):.1f} s (n={len(times[False])}), "
        f"with: {mean(times[True]):.1f} s (n={len(times[True])})"
    )
    lo = f"{(ratio.low - 1) * 100:+.1f}" if ratio.low is not None else "?"
    hi = f"{(ratio.high - 1) * 100:+.1f}" if ratio.high is not None else "?"
    print(
        f"effect of monitoring on the job time: {(ratio.estimate - 1) * 100:+.1f} % (95 % Fieller interval {lo} .. {hi} %)"
        + (f"; {ratio.note}" if ratio.note else "")
    )


def _pairs(cluster, bed, tb, pairs, cfg, interval, times, quiet) -> None:
    from vbench.benchmarks.hadoop import terasort
    from vbench.benchmarks.hadoop.execute import execute
    from vbench.monitor.monitor import Monitor

    order = [b for i in range(pairs) for b in ((False, True) if i % 2 == 0 else (True, False))]
    for monitored in order:
        mon = Monitor(bed.hosts, tb.name, interval, log=print).start() if monitored else None
        run = execute(cluster, terasort, cfg, log=quiet)
        if mon:
            mon.stop()
        if not run.ok:
            print(f"run failed: {run.failure.reason}")
            continue
        t = next(s.value for s in run.samples if s.metric == "terasort_job_time")
        times[monitored].append(t)
        print(f"  terasort {cfg.size_mb} MB {'with' if monitored else 'without'} monitoring: job {t:.1f} s", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--params-dir", type=Path, default=Path("params"))
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--size-mb", type=int, default=32)
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--seconds", type=float, default=30.0, help="length of the sampler CPU measurement")
    ap.add_argument("--cpu-only", action="store_true")
    args = ap.parse_args()
    pct, n = sampler_cpu(args.seconds, args.interval)
    print(
        f"sampler CPU cost: {pct:.3f} % of one CPU per sampled host at {args.interval:g} s "
        f"({n} snapshots in {args.seconds:g} s; loop + cat/sleep children, from /proc/<pid>/stat)"
    )
    if not args.cpu_only:
        job_effect(args.params_dir, args.pairs, args.size_mb, args.interval)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

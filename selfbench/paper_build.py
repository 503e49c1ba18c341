"""How long rebuilding the paper from the committed campaigns takes (issue 54: at most 30 s,
touching no host): `vbench paper build` with the inputs `invoke paper` gives it (params/paper.yaml,
`vbench.paper.inputs.committed_inputs`), into a temporary directory, `--repeat` times in a row.
Prints each build's wall time, the part before LaTeX ("generated in") and LaTeX's, then the
median against the target, with the load average and this machine's CPU probe (the quiet gate's)
before and after: a slow day shows in the probe. Run from the repository's root, nothing else
running:

    .venv/bin/python selfbench/paper_build.py [--repeat 3] [--campaign reference]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vbench.campaign.quiet import cpu_probe_ms
from vbench.paper.inputs import committed_inputs, paper_build_args
from vbench.wording import count

#: The paper issue's target (#54; #20 asked for under a minute).
TARGET_S = 30.0
GENERATED = re.compile(r"generated in ([0-9.]+)s")
LATEX = re.compile(r"LaTeX ([0-9.]+)s")


def build_argv(campaign: str, out: Path) -> list[str]:
    """`vbench paper build` of data/raw/<campaign> with the committed inputs, into `out`."""
    inputs = committed_inputs(Path("params"), Path("data/raw"))
    return [sys.executable, "-m", "vbench.cli", *paper_build_args(campaign, inputs), "--out", str(out)]


def seconds(pattern: re.Pattern, text: str) -> float | None:
    m = pattern.search(text)
    return float(m.group(1)) if m else None


def machine() -> str:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"load average {load}; CPU probe {cpu_probe_ms():.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--campaign", default="reference")
    args = ap.parse_args()
    print(f"before: {machine()}")
    walls = []
    with tempfile.TemporaryDirectory(prefix="vbench-paper-bench-") as tmp:
        for i in range(args.repeat):
            argv = build_argv(args.campaign, Path(tmp) / f"paper{i}")
            t0 = time.monotonic()
            run = subprocess.run(argv, capture_output=True, text=True)
            wall = time.monotonic() - t0
            if run.returncode != 0:
                print(run.stdout[-2000:], run.stderr[-2000:], sep="\n", file=sys.stderr)
                print(f"build {i + 1}: failed (exit {run.returncode})")
                return 1
            walls.append(wall)
            gen, tex = seconds(GENERATED, run.stdout + run.stderr), seconds(LATEX, run.stdout + run.stderr)
            print(f"build {i + 1}/{args.repeat}: {wall:.1f} s (generated in {gen} s, LaTeX {tex} s)")
    print(f"after: {machine()}")
    median = statistics.median(walls)
    verdict = "met" if median < TARGET_S else "MISSED"
    print(
        f"median {median:.1f} s over {count(len(walls), 'build')} (range {min(walls):.1f}-{max(walls):.1f}); target < {TARGET_S:.0f} s: {verdict}"
    )
    return 0 if median < TARGET_S else 2


if __name__ == "__main__":
    sys.exit(main())

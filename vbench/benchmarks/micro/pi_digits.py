"""pi_digits: seconds to compute N decimal digits of pi (Vasconcelos & Freitas, Table 5).

The paper used systester, which Debian does not package. Debian's `pi` (package `pi`, the
CLN library's example program) prints N digits and takes about a second for 1M digits here,
so the paper's 1M..8M range stays practical (`bc -l` took 11 s for 4000 digits here and
grows faster than n^2: weeks for 1M). Absolute times are not comparable with the paper's;
the native/container/VM ratio is what is reproduced. `pi` must be installed on each host.
"""

from __future__ import annotations

import re
import shlex
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import Field, field_validator

from vbench.benchmarks.base import BenchConfig
from vbench.errors import JobFailed
from vbench.samples import Sample

from ._common import Runner, execute, one_step, sample

NAME = "pi_digits"
METRICS = {"time": "s"}
OUT_FILE = "vbench-pi.txt"
_PI_PREFIX = "3.14159265358979"

# One line per size, written by the command below.
_LINE = re.compile(r"^digits=(\d+) start=([0-9.]+) end=([0-9.]+) head=(\S*) count=(\d+)\s*$", re.M)


class PiDigitsConfig(BenchConfig):
    digits: tuple[Annotated[int, Field(ge=10, le=1_000_000_000)], ...] = Field((100_000,), min_length=1)

    @field_validator("digits", mode="before")
    @classmethod
    def _as_tuple(cls, v: Any) -> Any:
        # A single size or a list (from YAML) is accepted; the frozen value is a tuple.
        if isinstance(v, int) and not isinstance(v, bool):
            return (v,)
        return tuple(v) if isinstance(v, list) else v


#: The registry and `vbench bench list` find every module's config under this name.
Config = PiDigitsConfig
PRESETS = {
    "vasconcelos": PiDigitsConfig(digits=(1_000_000, 2_000_000, 4_000_000, 8_000_000)),  # Table 5: 1M..8M digits
}


def command(cfg: PiDigitsConfig, workdir: str) -> str:
    out = shlex.quote(f"{workdir.rstrip('/')}/{OUT_FILE}")
    sizes = " ".join(str(n) for n in cfg.digits)
    # Digits go to a file, not a pipe, so pi's own exit status is the one checked. The
    # stamps are taken in the shell: the time includes process start-up (milliseconds).
    return (
        f"rc=0; for n in {sizes}; do s=$(date +%s.%N); pi $n > {out} || {{ rc=$?; break; }}; "
        f'e=$(date +%s.%N); echo "digits=$n start=$s end=$e head=$(head -c {len(_PI_PREFIX)} {out}) '
        f'count=$(tr -cd 0-9 < {out} | wc -c)"; done; rm -f {out}; exit $rc'
    )


def parse_stdout(text: str, cfg: PiDigitsConfig) -> list[Sample]:
    found = _LINE.findall(text or "")
    got = [int(n) for n, *_ in found]
    if got != list(cfg.digits):
        raise JobFailed(f"pi_digits: expected results for {list(cfg.digits)}, got {got}")
    samples = []
    for n, start, end, head, count in found:
        # A wrong or truncated result must not pass for a fast one.
        if int(count) != int(n) or not _PI_PREFIX.startswith(head):
            raise JobFailed(f"pi_digits: output for {n} digits is wrong ({count} digits, starts {head!r})")
        try:
            # Decimal: an epoch with nanoseconds has more digits than a double keeps.
            seconds = float(Decimal(end) - Decimal(start))
        except InvalidOperation:
            raise JobFailed(f"pi_digits: bad timestamps {start!r} {end!r}") from None
        if seconds < 0:
            raise JobFailed(f"pi_digits: clock went backwards for {n} digits")
        samples.append(sample(NAME, "time", seconds, "s", cfg, digits=int(n)))
    return samples


#: The contract's parse(outputs, cfg): one step, named after the benchmark.
parse = one_step(NAME, parse_stdout)


def run(c: Runner, cfg: PiDigitsConfig, workdir: str) -> tuple[list[Sample], str]:
    return execute(c, NAME, command(cfg, workdir), parse, cfg)

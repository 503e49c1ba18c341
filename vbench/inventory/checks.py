"""Checks before measuring (after pyperf's `system show` and BenchExec's warnings): what on a host
spoils a measurement, read in one SSH round trip, parsed by pure functions, judged against
thresholds from params, and recorded as host facts with a verdict "fit to measure" or not.
"""

from __future__ import annotations

import json
import re
import shlex
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from vbench.each_host import INVENTORY_WORKERS, on_each
from vbench.host import Host, connect
from vbench.inventory.model import CheckThresholds
from vbench.testbed.facts import FACTS_SCRIPT, parse_facts

NOT_EXPOSED = "not exposed"


def probe_script(java_home: str, dirs: list[str]) -> str:
    """One shell script whose output is `@@section` blocks; every probe tolerates absence. Pure.
    Every value from params is quoted: it is data to the shell, never code."""
    df = "".join(
        f'p={shlex.quote(d)}; while [ ! -e "$p" ]; do p=$(dirname "$p"); done; '
        f'echo {shlex.quote(d)} "$(df -Pk "$p" | tail -n1)"\n'
        for d in dirs
    )
    return "\n".join(
        [
            "echo @@governor; cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor 2>/dev/null",
            "echo @@no_turbo; cat /sys/devices/system/cpu/intel_pstate/no_turbo 2>/dev/null",
            "echo @@boost; cat /sys/devices/system/cpu/cpufreq/boost 2>/dev/null",
            "echo @@thp; cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null",
            "echo @@swaps; cat /proc/swaps 2>/dev/null",
            "echo @@loadavg; cat /proc/loadavg",
            "echo @@nproc; nproc",
            "echo @@df",
            df.rstrip("\n"),
            f"echo @@java; {shlex.quote(java_home + '/bin/java')} -version 2>&1 || echo 'java: not found'",
            "echo @@facts",
            FACTS_SCRIPT.strip(),
        ]
    )


def sections(text: str) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    cur = None
    for line in text.splitlines():
        if line.startswith("@@"):
            cur = line[2:].strip()
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return {k: "\n".join(v).strip() for k, v in out.items()}


def parse_governor(text: str) -> str:
    """The governors of all CPUs ("performance", or "ondemand,performance" when mixed)."""
    govs = sorted({l.strip() for l in text.splitlines() if l.strip()})
    return ",".join(govs) if govs else NOT_EXPOSED


def parse_turbo(no_turbo: str, boost: str) -> str:
    """ "on", "off" or not exposed: intel_pstate's no_turbo (1 = off) first, else cpufreq boost."""
    if no_turbo.strip() in ("0", "1"):
        return "off" if no_turbo.strip() == "1" else "on"
    if boost.strip() in ("0", "1"):
        return "on" if boost.strip() == "1" else "off"
    return NOT_EXPOSED


def parse_thp(text: str) -> str:
    m = re.search(r"\[(\w+)\]", text)
    return m.group(1) if m else NOT_EXPOSED


def parse_swaps(text: str) -> tuple[int, int]:
    """(total MiB, used MiB) from /proc/swaps (sizes in KiB)."""
    total = used = 0
    for line in text.splitlines()[1:]:
        f = line.split()
        if len(f) >= 4 and f[2].isdigit() and f[3].isdigit():
            total += int(f[2])
            used += int(f[3])
    return total // 1024, used // 1024


def parse_loadavg(text: str) -> float:
    return float(text.split()[0])


def parse_df(text: str) -> dict[str, float]:
    """dir -> free GiB, from lines `DIR <df -Pk line>`."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        # DIR Filesystem 1024-blocks Used Available Capacity Mounted-on
        if len(f) >= 7 and f[4].isdigit():
            out[f[0]] = round(int(f[4]) / 1024**2, 2)
    return out


def parse_java(text: str) -> tuple[str, int | None]:
    """(version string, feature version) from `java -version`; ("", None) when absent."""
    m = re.search(r'version "([^"]+)"', text)
    if not m:
        return "", None
    v = m.group(1)
    major = v.split(".")[1] if v.startswith("1.") else re.split(r"[.+-]", v)[0]
    return v, int(major) if major.isdigit() else None


def clock_offset(t_before: float, remote: float, t_after: float) -> tuple[float, float]:
    """(offset ms, uncertainty ms) of a remote clock read between two controller readings:
    compared with the midpoint, bounded by half the round trip (Cristian's algorithm). Pure."""
    mid = (t_before + t_after) / 2
    return round((remote - mid) * 1000, 3), round((t_after - t_before) / 2 * 1000, 3)


@dataclass(frozen=True)
class HostCheck:
    host: str
    governor: str
    turbo: str
    thp: str
    swap_total_mb: int
    swap_used_mb: int
    load_1m: float
    cpus: int
    free_disk_gb: dict[str, float]
    java_version: str
    java_major: int | None
    kernel: str
    virt: str
    virt_kind: str
    clock_offset_ms: float | None = None
    clock_uncertainty_ms: float | None = None


@dataclass(frozen=True)
class Verdict:
    fit: bool
    reasons: tuple[str, ...] = ()
    #: Worth knowing, not disqualifying (e.g. a governor not exposed inside a VM).
    notes: tuple[str, ...] = ()


def parse_probe(host: str, text: str) -> HostCheck:
    s = sections(text)
    total, used = parse_swaps(s.get("swaps", ""))
    jv, jmajor = parse_java(s.get("java", ""))
    facts = parse_facts(s.get("facts", ""))
    nproc = s.get("nproc", "1").strip()
    return HostCheck(
        host=host,
        governor=parse_governor(s.get("governor", "")),
        turbo=parse_turbo(s.get("no_turbo", ""), s.get("boost", "")),
        thp=parse_thp(s.get("thp", "")),
        swap_total_mb=total,
        swap_used_mb=used,
        load_1m=parse_loadavg(s.get("loadavg", "0")),
        cpus=int(nproc) if nproc.isdigit() else 1,
        free_disk_gb=parse_df(s.get("df", "")),
        java_version=jv,
        java_major=jmajor,
        kernel=facts.get("kernel", ""),
        virt=facts.get("virt", ""),
        virt_kind=facts.get("virt_kind", ""),
    )


def judge(c: HostCheck, t: CheckThresholds) -> Verdict:
    """Whether a host is fit to measure, with every reason it is not. Pure."""
    reasons, notes = [], []
    if c.governor == NOT_EXPOSED:
        notes.append("CPU frequency governor not exposed (usual in VMs and containers)")
    elif any(g not in t.governors for g in c.governor.split(",")):
        reasons.append(f"CPU frequency governor {c.governor} (want {'/'.join(t.governors)})")
    if c.turbo == "on" and t.require_turbo_off:
        reasons.append("turbo boost is on")
    elif c.turbo == NOT_EXPOSED:
        notes.append("turbo state not exposed")
    if c.thp != NOT_EXPOSED and c.thp not in t.thp:
        reasons.append(f"transparent huge pages '{c.thp}' (accepted: {', '.join(t.thp)})")
    if c.swap_used_mb > t.max_swap_used_mb:
        reasons.append(f"{c.swap_used_mb} MiB of swap in use (max {t.max_swap_used_mb})")
    elif c.swap_total_mb:
        notes.append(f"swap enabled ({c.swap_total_mb} MiB)")
    per_cpu = c.load_1m / max(1, c.cpus)
    if per_cpu > t.max_load_per_cpu:
        reasons.append(f"load average {c.load_1m:.2f} on {c.cpus} CPUs ({per_cpu:.2f}/CPU, max {t.max_load_per_cpu})")
    for d, gb in sorted(c.free_disk_gb.items()):
        if gb < t.min_free_disk_gb:
            reasons.append(f"{gb} GiB free for {d} (min {t.min_free_disk_gb})")
    if c.clock_offset_ms is not None and abs(c.clock_offset_ms) - (c.clock_uncertainty_ms or 0) > t.max_clock_offset_ms:
        reasons.append(f"clock {c.clock_offset_ms:+.0f} ms off the controller's (max {t.max_clock_offset_ms:.0f})")
    if not c.java_version:
        reasons.append("no Java at java_home")
    elif t.java_major is not None and c.java_major != t.java_major:
        reasons.append(f"Java {c.java_version}, Hadoop is run on Java {t.java_major} here")
    return Verdict(not reasons, tuple(reasons), tuple(notes))


@dataclass(frozen=True)
class HostReport:
    check: HostCheck
    verdict: Verdict
    #: The raw probe output, kept for audit.
    raw: str = field(repr=False, default="")

    def facts(self) -> dict:
        return {
            **asdict(self.check),
            "fit": self.verdict.fit,
            "reasons": list(self.verdict.reasons),
            "notes": list(self.verdict.notes),
        }


def measure_clock(c, tries: int = 3) -> tuple[float, float]:
    """The offset with the smallest round trip of a few `date` calls."""
    best = None
    for _ in range(tries):
        t0 = time.time()
        out = c.run("date +%s.%N", hide=True, in_stream=False).stdout.strip()
        t1 = time.time()
        off = clock_offset(t0, float(out), t1)
        best = off if best is None or off[1] < best[1] else best
    return best


def checked_dirs(h: Host) -> list[str]:
    """The directories whose free space is checked: the one Hadoop writes (its HDFS blocks, logs
    and jars are all under the work dir), not `hdfs_dirs`, which Hadoop does not use."""
    return [h.work_dir]


def check_host(host: Host, java_home: str, dirs: list[str], thresholds: CheckThresholds) -> HostReport:
    with connect(host) as c:
        r = c.run(probe_script(java_home, dirs), hide=True, warn=True, in_stream=False)
        check = parse_probe(host.name, r.stdout)
        off, unc = measure_clock(c)
    check = HostCheck(**{**asdict(check), "clock_offset_ms": off, "clock_uncertainty_ms": unc})
    return HostReport(check, judge(check, thresholds), r.stdout)


def check_hosts(
    hosts: list[Host], java_home: str, dirs_of: Callable[[Host], list[str]], thresholds: CheckThresholds
) -> list[HostReport]:
    return on_each(lambda h: check_host(h, java_home, dirs_of(h), thresholds), hosts, workers=INVENTORY_WORKERS)


def write_facts(reports: list[HostReport], out_dir: Path) -> Path:
    """hosts/<name>/facts.json per host, and checks.json with every verdict (as provision does)."""
    for rep in reports:
        d = out_dir / "hosts" / rep.check.host
        d.mkdir(parents=True, exist_ok=True)
        (d / "facts.json").write_text(json.dumps(rep.facts(), indent=1, sort_keys=True) + "\n")
        (d / "probe.txt").write_text(rep.raw)
    path = out_dir / "checks.json"
    path.write_text(json.dumps([rep.facts() for rep in reports], indent=1, sort_keys=True) + "\n")
    return path


def summary_lines(reports: list[HostReport]) -> list[str]:
    out = []
    for rep in reports:
        c, v = rep.check, rep.verdict
        head = "fit" if v.fit else "NOT FIT to measure"
        out.append(
            f"{c.host}: {head}: governor={c.governor} turbo={c.turbo} thp={c.thp} swap={c.swap_used_mb}/"
            f"{c.swap_total_mb}MiB load={c.load_1m} clock={c.clock_offset_ms:+.1f}±{c.clock_uncertainty_ms:.1f}ms "
            f"java={c.java_version or '-'} kernel={c.kernel} virt={c.virt}"
        )
        out += [f"  reason: {r}" for r in v.reasons] + [f"  note: {n}" for n in v.notes]
    return out

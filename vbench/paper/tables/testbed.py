"""The testbed table: per platform, what the hosts were and which software ran, from the host facts
and the provenance every sample carries."""

from __future__ import annotations

import re

import pandas as pd

from vbench.stats.compare import sample_platforms
from vbench.stats.keys import natural_key

from vbench.paper.fmt import NOT_MEASURED, configuration_tex, tex_escape
from vbench.paper.tables.grid import Grid, absent_note, campaign_platforms, render


_TESTBED_FROM_SAMPLES = (
    ("Kernel", "kernel"),
    ("Java", "java_version"),
    ("Hadoop", "hadoop_version"),
    ("Hadoop config hash", "hadoop_config_hash"),
    ("Hosts", "hosts"),
    ("Workers", "workers"),
    ("Image hash", "image_hash"),
    ("vbench commit", "vbench_commit"),
)
_TESTBED_FROM_FACTS = (
    ("Virtualisation seen", "virt"),
    ("Accelerator", "accelerator"),
    ("CPU model", "cpu_model"),
    ("vCPUs", "vcpus"),
    ("Memory (MiB)", "mem_total_mb"),
    ("Memory limit (MiB)", "memory_limit_mb"),
    ("Limits", "limits"),
)


def _distinct(values) -> str:
    vals = sorted(
        {_plain_text(v) for v in values if v is not None and str(v) not in ("", "nan", "None")}, key=natural_key
    )
    return ", ".join(vals)


def testbed_rows(
    samples: pd.DataFrame, facts: list[dict], baseline: str
) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(platforms, [(attribute, value per platform)]) from the samples' provenance and host facts;
    `samples` with `platform` the platform each ran on (_on_platforms)."""
    platforms = campaign_platforms(samples, baseline)
    for f in facts:
        p = str(f.get("platform", ""))
        if p and p not in platforms:
            platforms.append(p)

    def of_facts(p: str, key: str) -> str:
        return _distinct(f.get(key) for f in facts if str(f.get("platform", "")) == p)

    def facts_first(name: str, key: str) -> tuple[str, list[str]]:
        return name, [of_facts(p, key) or _from_samples(samples, p, key) for p in platforms]

    def samples_first(name: str, key: str) -> tuple[str, list[str]]:
        return name, [_from_samples(samples, p, key) or of_facts(p, key) for p in platforms]

    out = [facts_first(name, key) for name, key in _TESTBED_FROM_FACTS[:2]]
    out += [samples_first(name, key) for name, key in _TESTBED_FROM_SAMPLES]
    out += [facts_first(name, key) for name, key in _TESTBED_FROM_FACTS[2:]]
    out.append(
        (
            "Samples",
            [
                str(int((samples["platform"] == p).sum())) if samples is not None and not samples.empty else "0"
                for p in platforms
            ],
        )
    )
    out = [(n, v) for n, v in out if any(v)]
    return platforms, out


def _on_platforms(samples: pd.DataFrame | None) -> pd.DataFrame | None:
    """The samples with `platform` the platform each ran on (sample_platforms). Pure."""
    if samples is None or samples.empty or "platform" not in samples.columns:
        return samples
    return samples.assign(platform=sample_platforms(samples))


def _plain_text(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _from_samples(samples, platform, key) -> str:
    if samples is None or samples.empty or key not in samples.columns:
        return ""
    values = samples.loc[samples["platform"] == platform, key].dropna()
    if key == "java_version":
        values = values.map(java_short)
    return _distinct(values)


def java_short(text) -> str:
    """`openjdk version "17.0.15" 2025-04-15` -> `OpenJDK 17.0.15`."""
    m = re.search(r'(\w+) version "([^"]+)"', str(text))
    return f"{'OpenJDK' if m[1].lower() == 'openjdk' else m[1]} {m[2]}" if m else str(text)


def table_testbed(stats, samples, baseline="native", facts: list[dict] | None = None) -> str:
    """The testbed: per platform (a row each), what the hosts were and which software ran (host
    facts + provenance). An attribute with one value on every platform that recorded it is said
    once, in the note, so that the table fits its page; hashes and commits are printed with their
    first 7 characters, as git abbreviates them."""
    # A row per platform the hosts ran, not per compared level: a campaign comparing VMs per host
    # or network modes adds its samples to its platform's row (its levels "1", "2", "bridge" were
    # rows of their own before).
    samples = _on_platforms(samples)
    platforms, attrs = testbed_rows(samples, facts or [], baseline)
    attrs = [(name, [_short_hashes(name, v) for v in vals]) for name, vals in attrs]
    common = [
        (n, vals) for n, vals in attrs if n != "Samples" and len({v for v in vals if v}) == 1 and len(platforms) > 1
    ]
    columns = [(n, vals) for n, vals in attrs if (n, vals) not in common]
    header = ["Platform"] + [_TESTBED_HEADERS.get(n, tex_escape(n)) for n, _ in columns]
    body = [
        [configuration_tex(p)] + [_breakable(name, vals[i]) if vals[i] else NOT_MEASURED for name, vals in columns]
        for i, p in enumerate(platforms)
    ]
    # The platform column wraps and the columns sit 2.5 pt apart: "native (A/A copy)" on one line
    # pushed the table 19 pt past the page.
    colspec = r">{\raggedright\arraybackslash}p{0.09\linewidth}" + "".join(
        "r"
        if n in ("Samples", "vCPUs")
        else r">{\raggedright\arraybackslash}p{%.2f\linewidth}" % _TESTBED_WIDTHS.get(n, 0.08)
        for n, _ in columns
    )
    said_once = "; ".join(
        f"{tex_escape(n)} {_breakable(n, next(v for v in vals if v))}"
        + (
            " (not recorded for " + ", ".join(configuration_tex(p) for p, v in zip(platforms, vals) if not v) + ")"
            if not all(vals)
            else ""
        )
        for n, vals in common
    )
    notes = [
        "From the provenance every sample carries"
        + (
            " and the hosts' facts (\\texttt{facts.json})."
            if facts
            else "; no host facts (\\texttt{facts.json}) in this campaign."
        ),
        (rf"The same on every platform: {said_once}." if said_once else ""),
        r"Virt.\ seen: the virtualisation the hosts detected. Hashes and commits: their first 7 characters.",
        r"\textemdash~not recorded.",
        absent_note(samples, baseline),
    ]
    return render(
        Grid(
            header,
            body,
            colspec,
            "Testbed per platform, as recorded with the samples.",
            "tab:testbed",
            notes,
            size=r"\footnotesize\setlength{\tabcolsep}{2.5pt}",
        )
    )


#: The testbed table's column headers where the attribute's name is too wide for its column.
_TESTBED_HEADERS = {
    "Virtualisation seen": r"Virt.\ seen",
    "Hadoop config hash": "Hadoop config",
    "vbench commit": "vbench commit",
}
#: The testbed table's column widths (fractions of the line), for the attributes that need more or
#: less than the others' 0.08.
_TESTBED_WIDTHS = {
    "Virtualisation seen": 0.06,
    "Kernel": 0.10,
    "Java": 0.07,
    "Hosts": 0.10,
    "Workers": 0.06,
    "Image hash": 0.07,
    "vbench commit": 0.09,
    "CPU model": 0.09,
    "Hadoop config hash": 0.08,
}
_TESTBED_HASHES = ("Hadoop config hash", "Image hash", "vbench commit")


def _short_hashes(name: str, value: str) -> str:
    """A hash or commit attribute's values cut to their first 7 characters (distinct, in order)."""
    if name not in _TESTBED_HASHES or not value:
        return value
    out: list[str] = []
    for v in value.split(", "):
        short = v[:7] if re.fullmatch(r"[0-9a-f]{8,}", v) else v
        if short not in out:
            out.append(short)
    return ", ".join(out)


def _hosts(value: str) -> str:
    """`master, worker1, worker2, master, worker1` -> `master, worker1--2`: the distinct host names,
    numbered ones as a range."""
    names = list(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    numbered: dict[str, list[int]] = {}
    plain = []
    for n in names:
        m = re.fullmatch(r"(\D+)(\d+)", n)
        if m:
            numbered.setdefault(m[1], []).append(int(m[2]))
        else:
            plain.append(n)
    out = [tex_escape(n) for n in plain]
    for stem, nums in numbered.items():
        nums = sorted(set(nums))
        if len(nums) > 2 and nums == list(range(nums[0], nums[-1] + 1)):
            out.append(f"{tex_escape(stem)}{nums[0]}--{nums[-1]}")
        else:
            out += [f"{tex_escape(stem)}{k}" for k in nums]
    return r",\allowbreak{} ".join(out)


def _breakable(name: str, v: str) -> str:
    """Escaped text that may break after commas; hashes in typewriter type."""
    if name == "Hosts":
        return _hosts(v)
    if name in _TESTBED_HASHES:
        return r",\allowbreak{} ".join(r"\texttt{" + tex_escape(x) + "}" for x in v.split(", "))
    return tex_escape(v).replace(",", r",\allowbreak ")

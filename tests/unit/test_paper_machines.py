"""The paper says which CPU each campaign it reads ran on: the machine behind a session is not
always the same one, and the same design's precision differed between two of them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from vbench.paper.machines import campaigns_table_tex, jvm_sentence, machines_sentence
from vbench.paper.macros import machine_sentence, quoted_sentence
from vbench.stats.campaign import Campaign


def _campaign(name: str, cpu: list | None = None, facts: list[dict] | None = None) -> Campaign:
    samples = pd.DataFrame({"platform": ["native"] * len(cpu or [None]), **({"cpu_model": cpu} if cpu else {})})
    return Campaign(Path(name), name, samples, facts=facts or [])


def _five() -> list[Campaign]:
    return [
        _campaign("b-new", cpu=["AMD EPYC", "AMD EPYC", None]),
        _campaign("a-pipeline", facts=[{"cpu_model": "Intel(R) Xeon(R) Processor", "vcpus": "2"}]),
        _campaign("c-old"),
        _campaign("d-mixed", cpu=["AMD EPYC; Intel(R) Xeon(R) Processor"]),
        _campaign("e-new", cpu=["AMD EPYC"]),
        _campaign("e-new", cpu=["AMD EPYC"]),  # read twice (an extra campaign and a section's): counted once
    ]


def test_the_text_counts_campaigns_by_the_cpu_their_samples_or_facts_name_and_the_table_names_them():
    text = machines_sentence(_five())
    assert text.startswith(
        "Of the 5 campaigns with samples, the hosts of 2 reported AMD EPYC, 1 reported AMD EPYC; Intel(R) Xeon(R) "
        "Processor and 1 reported Intel(R) Xeon(R) Processor; 1 recorded no CPU model (measured before"
    )
    assert r"Table~\ref{tab:campaigns}" in text and "texttt" not in text  # no campaign id in the prose
    rows = {r.split(" & ")[0]: r.split(" & ")[1] for r in campaigns_table_tex(_five()).splitlines() if " & " in r}
    assert rows == {
        "Campaign": "CPU model",
        r"\texttt{a-pipeline}": "Intel(R) Xeon(R) Processor",
        r"\texttt{b-new}": "AMD EPYC",
        r"\texttt{c-old}": r"\emph{not recorded}",
        # A campaign whose hosts were two machines names both, not merged into either.
        r"\texttt{d-mixed}": "AMD EPYC; Intel(R) Xeon(R) Processor",
        r"\texttt{e-new}": "AMD EPYC",
    }
    assert list(rows)[1:] == sorted(list(rows)[1:])
    assert r"not listed: \texttt{monitoring}" in campaigns_table_tex(_five(), ("monitoring",))


def test_each_campaigns_median_cpu_probe_follows_each_reading_counted_once():
    def probed(name, probes):
        rows = [
            {"block": b, "round": 0, "quiet.verdict": v, "quiet.cpu_probe_ms": ms} for b, (ms, v) in enumerate(probes)
        ]
        # Every sample of a round carries its gate's reading: the second copy must not count twice.
        samples = pd.DataFrame(rows + rows[:1]).assign(platform="native", cpu_model="AMD EPYC")
        return Campaign(Path(name), name, samples, facts=[])

    three = [
        probed("usual", [(43.0, "ok"), (44.0, "waited"), (99.0, "flagged")]),
        probed("slow-day", [(56.0, "ok"), (58.0, "ok"), (57.0, "ok")]),
        _campaign("no-gate", cpu=["AMD EPYC"]),
    ]
    text = machines_sentence(three)
    assert (
        r"had a median from \qty{43.5}{\milli\second} to \qty{57.0}{\milli\second} by campaign (not taken in 1 campaign)."
        in text
    )
    probes = {r.split(" & ")[0]: r.split(" & ")[2] for r in campaigns_table_tex(three).splitlines() if " & " in r}
    assert probes[r"\texttt{usual}"] == r"\num{43.5} \\" and probes[r"\texttt{slow-day}"] == r"\num{57.0} \\"
    assert probes[r"\texttt{no-gate}"] == r"\textemdash \\"
    # No campaign with a probe: the sentence is the CPU models' alone.
    assert "probe" not in machines_sentence([_campaign("no-gate", cpu=["AMD EPYC"])]).split("Table")[0]


def test_one_campaigns_machine_comes_from_its_samples_when_it_has_no_facts_file():
    assert machine_sentence(_campaign("x", cpu=["AMD EPYC"])) == "one machine (AMD EPYC)"
    assert "not recorded" in machine_sentence(_campaign("y"))
    facts = [{"cpu_model": "Intel(R) Xeon(R) Processor", "vcpus": "2"}] * 3
    assert machine_sentence(_campaign("z", facts=facts)) == "one machine (2 vCPUs per host, Intel(R) Xeon(R) Processor)"


def test_a_campaign_resumed_on_another_machine_says_so_and_names_the_blocks_that_span_two(tmp_path):
    from vbench.stats.campaign import load_campaign

    from tests.unit.builders import time_record, write_samples

    def rec(platform, block, cpu):
        meta = {"experiment": "platforms", "platform": platform, "block": block, "round": 0, "repetition": block}
        meta.update({"size_mb": 128, "run_id": f"{platform}-{block}", **({"cpu_model": cpu} if cpu else {})})
        value = {"native": 21.0, "lxc": 20.5}[platform]
        return time_record("terasort", "terasort_time", value, block, meta)

    # Blocks 0-1 in one session, block 2 half in it and half in the next, block 3 in the next;
    # an old record without the stamp counts for neither.
    cpus = {0: ("A", "A"), 1: ("A", "A"), 2: ("A", "B"), 3: ("B", "B"), 4: (None, None)}
    d = tmp_path / "resumed"
    d.mkdir()
    recs = [rec(p, b, cpus[b][i]) for b in cpus for i, p in enumerate(("native", "lxc"))]
    write_samples(d, recs)
    notes = load_campaign(d).notes
    assert notes == [
        "samples measured on 2 machines (A; B); blocks spanning two machines, whose ratios compare machines too: 2"
    ]
    # One machine throughout: no note.
    write_samples(d, [rec(p, 0, "A") for p in ("native", "lxc")])
    assert load_campaign(d).notes == []
    # A cell whose hosts ran on two machines names both in one field: two machines, not three,
    # and its block spans them.
    one = [rec("native", 0, "A"), rec("lxc", 0, "A; B"), rec("native", 1, "B"), rec("lxc", 1, "B")]
    write_samples(d, one)
    assert load_campaign(d).notes == [
        "samples measured on 2 machines (A; B); blocks spanning two machines, whose ratios compare machines too: 0"
    ]


def test_several_hosts_values_are_joined_and_split_back_alike():
    from vbench.provenance import machine_stamp
    from vbench.samples import join_values, split_values

    stamp = machine_stamp([{"cpu_model": " B "}, {"cpu_model": "A"}, {"cpu_model": "A"}, {"vcpus": 2}])
    assert stamp == {"cpu_model": "A; B", "vcpus": "2"}
    assert split_values(stamp["cpu_model"]) == ["A", "B"]
    assert join_values([]) == "" and split_values(None) == [] and split_values(float("nan")) == []


def test_the_campaigns_the_abstract_quotes_are_marked_in_the_table_and_not_named_in_the_prose():
    tex = campaigns_table_tex(_five(), (), {"b-new": ["LXC"], "e-new": ["OCI", "gVisor"]})
    marked = [r.split(" & ")[0] for r in tex.splitlines() if r"$^\dagger$ &" in r]
    assert marked == [r"\texttt{b-new}$^\dagger$", r"\texttt{e-new}$^\dagger$"]
    assert r"LXC from \texttt{b-new}; OCI and gVisor from \texttt{e-new}." in tex
    assert "dagger" not in campaigns_table_tex(_five())

    class Q:  # the fields of a Quote that quoted_sentence reads
        def __init__(self, platform, experiment):
            self.platform, self.experiment = platform, experiment

    two = quoted_sentence([Q("lxc", "platforms@b-new"), Q("oci", "platforms@e-new")], "a-pipeline")
    one = quoted_sentence([Q("lxc", "platforms"), Q("oci", "platforms")], "a-pipeline")
    assert "for LXC and OCI from the campaigns marked" in two and "from the campaign marked" in one
    assert "texttt" not in two + one and r"Table~\ref{tab:campaigns}" in two


def _native_beside(d: Path, platform: str, cpu_model: str) -> Campaign:
    """A campaign in `d` of native (its hosts on machine "A") and `platform`, whose samples stamp
    `cpu_model`, two blocks of one time each, read as the statistics read it."""
    from vbench.stats.campaign import load_campaign

    from tests.unit.builders import time_record, write_samples

    def rec(p, block, cpu):
        meta = {"experiment": "platforms", "platform": p, "block": block, "round": 0, "repetition": block}
        meta.update({"run_id": f"{p}-{block}", "cpu_model": cpu})
        return time_record("terasort", "terasort_time", 21.0 if p == "native" else 60.0, block, meta)

    d.mkdir()
    write_samples(d, [rec(p, b, cpu) for b in (0, 1) for p, cpu in (("native", "A"), (platform, cpu_model))])
    return load_campaign(d)


def test_a_sandbox_s_cpu_placeholder_names_no_machine(tmp_path):
    """gVisor's Sentry reports the CPU model "unknown": campaigns before 2026-12-01 stamped it on
    gVisor's samples beside the machine's on the others'. It is no second machine: not in the
    campaign's notes, not in the paper's table or count, not in the quiet gate's references."""
    from vbench.campaign.machine_ref import quiet_probes
    from vbench.samples import SANDBOX_CPU_MODEL, cpu_models

    assert cpu_models(f"AMD EPYC; {SANDBOX_CPU_MODEL}") == ["AMD EPYC"] and cpu_models(SANDBOX_CPU_MODEL) == []
    campaign = _native_beside(tmp_path / "sandboxed", "gvisor", SANDBOX_CPU_MODEL)
    assert campaign.notes == []
    assert machines_sentence([campaign]).startswith("Of the 1 campaign with samples, the hosts of 1 reported A")
    assert "unknown" not in campaigns_table_tex([campaign])
    # A sandbox's own facts file says the same.
    assert machine_sentence(_campaign("g", facts=[{"cpu_model": SANDBOX_CPU_MODEL}])) == machine_sentence(
        _campaign("none")
    )
    probe = {"quiet.verdict": "ok", "quiet.cpu_probe_ms": 30.0, "block": 0, "round": 0}
    assert quiet_probes([{**probe, "cpu_model": f"A; {SANDBOX_CPU_MODEL}"}]) == {"A": [30.0]}


def test_an_emulated_cpu_names_no_machine(tmp_path):
    """A QEMU guest under TCG names QEMU's emulated model in /proc/cpuinfo, which its samples stamp
    (costs-qemu-calib-amd): the guest runs on this machine, so `vbench predict` must not warn that
    such a calibration ran on another machine than the fit, nor the paper count a second machine."""
    from vbench.samples import cpu_models
    from vbench.stats.machines import CPU_MODEL, recorded

    emulated = "QEMU Virtual CPU version 2.5+"
    assert cpu_models(f"AMD EPYC; {emulated}") == ["AMD EPYC"] and cpu_models(emulated) == []
    # A model that merely mentions QEMU elsewhere is still a machine's.
    assert cpu_models("Intel Xeon (QEMU Virtual CPU host)") == ["Intel Xeon (QEMU Virtual CPU host)"]
    campaign = _native_beside(tmp_path / "emulated", "qemu", emulated)
    assert campaign.notes == [] and recorded(campaign, CPU_MODEL) == ["A"]
    assert machines_sentence([campaign]).startswith("Of the 1 campaign with samples, the hosts of 1 reported A")
    assert "QEMU" not in campaigns_table_tex([campaign])


def _jvms(name: str, builds: dict[str, str]) -> Campaign:
    samples = pd.DataFrame(
        {"platform": list(builds), "java_version": [f'openjdk version "{v}" 2026-04-21' for v in builds.values()]}
    )
    return Campaign(Path(name), name, samples)


def test_the_threats_count_the_campaigns_whose_compared_hosts_ran_different_jvm_builds():
    campaigns = [
        _jvms("a", {"native": "17.0.15", "lxc": "17.0.19"}),
        _jvms("b", {"native": "17.0.15", "gvisor": "17.0.21"}),
        _jvms("c", {"native": "17.0.15", "native~aa": "17.0.15"}),
        _campaign("d"),  # recorded no JVM
    ]
    assert jvm_sentence(campaigns) == (
        "In 2 of the 4 campaigns the compared hosts ran different JVM builds (openjdk 17.0.15, openjdk 17.0.19 "
        "and openjdk 17.0.21): a native host runs the machine's JDK, a container or a sandbox the one in vbench's "
        "guest image, so each of those ratios holds the difference between the builds as well as the platform's; "
        "it was not measured apart."
    )
    assert jvm_sentence(campaigns[2:]) == ""
    # A campaign that varied the build on purpose (hadoop.jdk a factor) measured it: not counted.
    varied = Campaign(
        Path("e"),
        "e",
        pd.DataFrame(
            {
                "platform": ["native", "native"],
                "factor.jdk": ["host", "image"],
                "java_version": ['openjdk version "17.0.15"', 'openjdk version "17.0.19"'],
            }
        ),
    )
    assert jvm_sentence([varied, *campaigns[2:]]) == ""
    assert jvm_sentence([varied, *campaigns]).startswith("In 2 of the 5 campaigns")

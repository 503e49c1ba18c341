"""The JVM builds' difference measured apart (paper.jvm_campaign): the ratios image / host read from a
campaign that varied `hadoop.jdk` on native hosts, and the threats' sentence that quotes them (#53)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from vbench.errors import ParamsError
from vbench.paper.jvm_builds import JvmRatio, JvmReading, jvm_build_note, jvm_reading
from vbench.paper.machines import jvm_sentence, measured_clause
from vbench.stats.campaign import Campaign, load_campaign
from vbench.stats.campaign_stats import StatsConfig

import pandas as pd

from tests.unit.builders import block_campaign_dir

#: TeraSort per block under each build: the image's about 5 % faster in every block.
TIMES = {"host": [20.0, 21.0, 19.5, 20.5, 20.2], "image": [19.0, 20.1, 18.4, 19.6, 19.1]}
BUILDS = {"host": "17.0.15", "image": "17.0.19"}


def _varied(root: Path, name: str = "jvm", factor: bool = True) -> Campaign:
    def meta(level: str) -> dict:
        m = {
            "experiment": "platforms",
            "platform": "native",
            "java_version": f'openjdk version "{BUILDS[level]}" 2026-04-21',
        }
        return {**m, "factor.jdk": level} if factor else {**m, "platform": f"native-{level}"}

    d = block_campaign_dir(root, name, TIMES, meta, metrics={"terasort.job_time": 1})
    design = {"compare": ["jdk"], "baseline": "host"} if factor else {"compare": ["platform"]}
    (d / "campaign.json").write_text(json.dumps({"experiment": design}))
    return load_campaign(d)


def test_the_reading_is_the_preferred_ratio_image_over_host_with_the_builds_and_blocks(tmp_path):
    reading = jvm_reading(_varied(tmp_path), StatsConfig(n_resamples=200))
    assert (reading.name, reading.blocks) == ("jvm", 5)
    assert (reading.host_build, reading.image_build) == ("openjdk 17.0.15", "openjdk 17.0.19")
    (ratio,) = reading.ratios  # the campaign timed TeraSort alone: the other jobs are left out
    assert ratio.label == "TeraSort"
    paired = math.exp(sum(math.log(i / h) for h, i in zip(TIMES["host"], TIMES["image"])) / 5)
    assert ratio.estimate == pytest.approx(paired, rel=0.01)
    assert ratio.low < ratio.estimate < ratio.high < 1.0 and not ratio.holds_one
    note = jvm_build_note(reading)
    assert note.startswith(
        "JVM builds: jvm (5 blocks), openjdk 17.0.19 / openjdk 17.0.15 on native hosts: TeraSort 0.9"
    )


def test_a_campaign_that_did_not_vary_the_build_is_refused_naming_the_key(tmp_path):
    with pytest.raises(ParamsError) as err:
        jvm_reading(_varied(tmp_path, factor=False), StatsConfig(n_resamples=200))
    assert err.value.field == "paper.jvm_campaign" and "did not vary the JVM build" in err.value.message


def _two_builds() -> list[Campaign]:
    samples = pd.DataFrame(
        {"platform": ["native", "lxc"], "java_version": ['openjdk version "17.0.15"', 'openjdk version "17.0.19"']}
    )
    return [Campaign(Path("a"), "a", samples)]


def test_the_threats_quote_the_measured_ratios_or_say_they_were_not_measured():
    assert jvm_sentence(_two_builds()).endswith("it was not measured apart.")
    reading = JvmReading(
        "costs-jvm-native-amd",
        5,
        "openjdk 17.0.15",
        "openjdk 17.0.19",
        (JvmRatio("TeraSort", 0.97, 0.94, 1.01), JvmRatio("a JVM's start", 0.90, 0.88, 0.93)),
    )
    said = jvm_sentence(_two_builds(), reading)
    assert said.endswith(
        r"measured apart on native hosts (\texttt{costs-jvm-native-amd}, 5 blocks: the image's openjdk 17.0.19 "
        r"against the machine's openjdk 17.0.15), the ratio of the two was \num{0.970} [\num{0.940}, \num{1.010}] for "
        r"TeraSort and \num{0.900} [\num{0.880}, \num{0.930}] for a JVM's start, and 1 of the 2 intervals hold 1 "
        "(not a JVM's start's)."
    )
    # A reading without ratios says nothing it did not measure.
    assert measured_clause(JvmReading("x", 3, "", "", ())) == "it was not measured apart"

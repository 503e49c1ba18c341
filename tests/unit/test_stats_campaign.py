"""vbench.stats.campaign: a campaign as the statistics read it: metric qualification, cells, derived repetitions, facts."""

from __future__ import annotations

import json

import pandas as pd

from vbench.stats.campaign import load_campaign
from vbench.samples import Failure, Sample, append_records


def _meta(run_id, **kw):
    return {"platform": "native", "run_id": run_id, "size_mb": 64, "replication": 2, **kw}


def test_job_phases_and_attempts_are_not_pooled(tmp_path):
    records = []
    for i, run in enumerate(("r1", "r2")):
        t = 1000.0 + 100 * i
        records += [
            Sample("terasort", "terasort_time", 56.0 + i, "s", _meta(run), timestamp=t),
            Sample("terasort", "reduce_merge_time", 4.0, "s", _meta(run, step="terasort", job_id="j"), timestamp=t + 1),
            Sample(
                "terasort",
                "reduce_merge_time",
                0.8,
                "s",
                _meta(run, step="terasort", node="worker1", attempt_id=f"a{i}", task_type="REDUCE"),
                timestamp=t + 2,
            ),
        ]
    records.append(Failure("terasort", "boom", metadata={"platform": "native"}, timestamp=2000.0))
    append_records(tmp_path / "samples.jsonl", records)
    (tmp_path / "facts.json").write_text(json.dumps({"worker1": {"platform": "native", "vcpus": "2"}}))

    c = load_campaign(tmp_path)
    metrics = sorted(set(c.samples["metric"]))
    assert metrics == ["terasort.attempt.reduce_merge_time", "terasort.reduce_merge_time", "terasort_time"]
    assert set(c.samples["size"]) == {"64MB"} and set(c.samples["experiment"]) == {"campaign"}
    reps = c.samples[c.samples["metric"] == "terasort_time"].set_index("run_id")["repetition"].to_dict()
    assert reps == {"r1": 1, "r2": 2}
    assert len(c.failures) == 1 and c.facts == [{"host": "worker1", "platform": "native", "vcpus": "2"}]
    assert any("repetitions derived" in n for n in c.notes)


def test_varying_factor_enters_the_cell(tmp_path):
    records = [
        Sample(
            "terasort",
            "teragen_time",
            20.0 + r,
            "s",
            {"platform": "native", "experiment": "replication", "repetition": k, "size_mb": 128, "replication": r},
            timestamp=1000.0 + 10 * r + k,
        )
        for r in (1, 3)
        for k in (1, 2)
    ]
    append_records(tmp_path / "samples.jsonl", records)
    c = load_campaign(tmp_path)
    assert sorted(set(c.samples["size"])) == ["128MB, replication=1", "128MB, replication=3"]
    assert c.notes == []


def test_nnbench_maps_that_began_late_after_the_barrier_are_noted_per_platform(tmp_path):
    """A step's last map beginning its operations more than 2 s after the barrier (gVisor's did, by
    1.6 to 9.7 s in costs-oneday) is noted per platform, each step counted once whatever its
    samples; a wait within the client's polling (native's 0.2-0.6 s) or a step without the reading
    (campaigns before it) is not."""
    from tests.unit.builders import time_record, write_samples
    from vbench.benchmarks.hadoop.nnbench import BARRIER_KEY
    from vbench.stats.campaign import load_campaign

    def step(platform, block, op, late):
        meta = {"experiment": "e", "platform": platform, "block": block, "repetition": block}
        meta.update({"run_id": f"{platform}-{block}", **({BARRIER_KEY: late} if late is not None else {})})
        metrics = [
            f"{op}_avg_exec_time",
            f"{op}_tps",
            "close_avg_latency" if op == "create_write" else "open_avg_latency",
        ]
        return [time_record("nnbench", m, 1.0, block, meta) for m in metrics]  # three samples, one reading

    # Both steps of a run may read the same lateness: still two steps.
    late = {("native", 0): 0.3, ("native", 1): 0.56, ("gvisor", 0): 9.66, ("gvisor", 1): 1.6, ("lxc", 0): None}
    recs = [r for (p, b), v in late.items() for op in ("create_write", "open_read") for r in step(p, b, op, v)]
    write_samples(tmp_path, recs)
    note = (
        "NNBench on gvisor: the last map began its operations more than 2 s after the barrier in 2 of 4 steps "
        "(up to 9.7 s): the maps that began in time ran their operations beside the late ones' start-up, "
        "which can inflate and scatter the time per operation (gVisor's create/write: x1.27 [1.00, 1.60], twice the spread)"
    )
    assert load_campaign(tmp_path).notes == [note]
    # Samples that say their barrier (the runner stamps the config's barrier_s) name the one that would
    # have covered the latest late step: 20 + 9.66 + 2 s of margin, up to the next 10 s; the step
    # 1.6 s late at a 60 s barrier (not late) does not count.
    barrier = {("gvisor", 0): 20, ("gvisor", 1): 60}
    for r in recs:
        m = r["metadata"] = dict(r["metadata"])
        m["barrier_s"] = barrier.get((m["platform"], m["block"]), 20)
    write_samples(tmp_path, recs)
    assert load_campaign(tmp_path).notes == [
        note + "; a barrier_s of 40 s or more would have let every map wait in these runs"
    ]


def test_configurations_on_different_jvm_builds_are_noted_once_each_build_with_its_platforms(tmp_path):
    """Every committed campaign to 2026-12-06 compared native's JVM (the machine's openjdk 17.0.15)
    with the guest image's (17.0.19) on LXC, OCI and gVisor: the note says which ran which; a
    campaign whose configurations name one build, or that recorded none, says nothing."""
    from vbench.stats.campaign import jvm_note

    def run(platform, version):
        meta = {"platform": platform, "repetition": 1, "run_id": platform}
        if version is not None:
            meta["java_version"] = f'openjdk version "{version}" 2026-04-21'
        return Sample("terasort", "terasort_time", 20.0, "s", meta, timestamp=1000.0)

    append_records(tmp_path / "samples.jsonl", [run("native", "17.0.15"), run("lxc", "17.0.19"), run("oci", "17.0.19")])
    (note,) = [n for n in load_campaign(tmp_path).notes if "JVM" in n]
    assert note.startswith(
        "the configurations ran different JVM builds (lxc, oci openjdk 17.0.19; native openjdk 17.0.15): each "
        "ratio between them holds the JVM's difference as well as the platform's"
    )
    same = pd.DataFrame({"platform": ["native", "lxc"], "java_version": ['openjdk version "17.0.19"'] * 2})
    assert jvm_note(same) == []
    assert jvm_note(pd.DataFrame({"platform": ["native"], "value": [1.0]})) == []
    assert jvm_note(same.assign(java_version=['openjdk version "17.0.19"', ""])) == []  # an empty field: no build
    # A configuration whose runs named two builds lists both; a value not shaped so is shown as it is.
    mixed = pd.DataFrame(
        {
            "platform": ["gvisor", "gvisor", "native"],
            "java_version": ['openjdk version "17.0.15"', 'openjdk version "17.0.19"', "unknown"],
        }
    )
    (said,) = jvm_note(mixed)
    assert "(gvisor openjdk 17.0.15 and openjdk 17.0.19; native unknown)" in said


def test_a_design_that_varies_the_jvm_build_on_purpose_is_not_noted_as_confounded():
    """costs-jvm-native-amd ran native hosts under hadoop.jdk host and image: its ratio is the build's."""
    from vbench.stats.campaign import jvm_compared, jvm_note

    builds = ['openjdk version "17.0.15"', 'openjdk version "17.0.19"']
    varied = pd.DataFrame({"platform": ["native", "native"], "factor.jdk": ["host", "image"], "java_version": builds})
    assert jvm_compared(varied) and jvm_note(varied) == []
    one_level = varied.assign(**{"factor.jdk": ["image", "image"]})  # the same builds, the factor not varied
    assert not jvm_compared(one_level) and len(jvm_note(one_level)) == 1
    assert not jvm_compared(varied.drop(columns="factor.jdk"))

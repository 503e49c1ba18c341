"""The Hadoop params presets (vbench.hadoop.presets): VMware's Appendix A under Hadoop 3 names,
applied between params/hadoop.yaml and a design's own keys (issue #20 item 3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vbench.campaign.design import Configuration, Experiment
from vbench.campaign.runner import hadoop_for
from vbench.campaign.study import load_study
from vbench.errors import ParamsError
from vbench.hadoop.config import HostLayout, site_properties
from vbench.hadoop.presets import PRESETS, VMWARE2015, preset_params
from vbench.params import HadoopParams

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "benchmarks.md"


def rendered(hp: HadoopParams) -> dict[str, dict[str, str]]:
    return site_properties(hp, "master", HostLayout("/w", "/lib"))


def with_preset(**hadoop) -> HadoopParams:
    exp = Experiment(name="x", hadoop={"preset": "vmware2015", **hadoop})
    return hadoop_for(exp, Configuration("native"), HadoopParams())


def test_vmware_preset_renders_appendix_a_under_hadoop_3_names():
    files = rendered(with_preset())
    assert files["hdfs-site"]["dfs.blocksize"] == str(256 * 1024 * 1024)
    assert files["hdfs-site"]["dfs.replication"] == "3"
    assert files["hdfs-site"]["dfs.namenode.handler.count"] == "1"
    assert files["hdfs-site"]["dfs.namenode.redundancy.interval.seconds"] == "1"
    assert files["core-site"]["io.file.buffer.size"] == "131072"
    mapred = files["mapred-site"]
    assert mapred["mapreduce.map.java.opts"] == "-Xmx800m -Xms800m -Xmn256m"
    assert mapred["mapreduce.reduce.java.opts"] == "-Xmx1200m -Xmn256m"
    assert mapred["mapreduce.task.io.sort.mb"] == "400"
    assert mapred["mapreduce.task.timeout"] == "300000"
    assert mapred["mapreduce.map.output.compress.codec"] == "org.apache.hadoop.io.compress.SnappyCodec"
    assert mapred["mapreduce.map.speculative"] == mapred["mapreduce.reduce.speculative"] == "false"
    assert with_preset().speculative is False  # through the field a design sets, not a second way
    assert files["yarn-site"]["yarn.resourcemanager.scheduler.class"].endswith(".scheduler.fair.FairScheduler")


def test_the_fair_scheduler_queues_root_s_jobs_in_a_leaf_queue():
    # Measured: every job of the first vmware2015 campaign was refused at submission, "root is not
    # a leaf queue" (the Fair Scheduler names a job's queue after its user, and vbench's is root).
    assert rendered(with_preset())["yarn-site"]["yarn.scheduler.fair.user-as-default-queue"] == "false"
    assert "yarn.scheduler.fair.user-as-default-queue" not in rendered(HadoopParams())["yarn-site"]


def test_no_hadoop_1_name_is_written():
    """Hadoop 3 ignores most of the old names silently; a renamed key must appear only renamed."""
    written = {k for props in rendered(with_preset()).values() for k in props}
    renamed = [c for c in VMWARE2015.carried if c.file is not None and c.study != c.hadoop3]
    assert len(renamed) >= 15
    for c in renamed:
        assert c.study not in written and c.hadoop3 in written, c


def test_every_appendix_a_setting_is_carried_or_said_why_not():
    """The appendix's mapred/hdfs/core settings, each in exactly one of the two lists."""
    appendix = {
        "HADOOP_HEAPSIZE", "io.file.buffer.size", "terasort.partitions.sample", "topology.script.file.name",
        "dfs.datanode.max.transfer.threads", "dfs.replication", "dfs.blocksize", "dfs.datanode.readahead.bytes",
        "dfs.datanode.drop.cache.behind.writes", "dfs.datanode.sync.behind.writes",
        "dfs.datanode.drop.cache.behind.reads", "dfs.permissions.enabled", "dfs.namenode.handler.count",
        "dfs.heartbeat.interval", "dfs.namenode.replication.interval", "dfs.blockreport.intervalMsec",
        "mapreduce.framework.name", "mapred.local.dir", "mapred.system.dir", "mapred.{map,reduce}.tasks",
        "mapred.tasktracker.{map,reduce}.tasks.maximum", "mapred.map.child.java.opts",
        "mapred.reduce.child.java.opts", "mapred.child.ulimit", "mapred.jobtracker.taskScheduler",
        "mapred.fairscheduler.locality.delay", "mapred.map.tasks.speculative.execution",
        "mapred.reduce.tasks.speculative.execution", "mapred.job.reuse.jvm.num.tasks",
        "mapred.reduce.parallel.copies", "mapred.reduce.slowstart.completed.maps",
        "mapred.job.tracker.handler.count", "io.sort.factor", "io.sort.mb", "io.sort.record.percent",
        "mapred.task.timeout", "mapred.tasktracker.shuffle.fadvise", "mapreduce.ifile.readahead.bytes",
        "tasktracker.http.threads", "mapred.inmem.merge.threshold", "mapred.job.shuffle.merge.percent",
        "mapred.job.shuffle.input.buffer.percent", "mapreduce.tasktracker.outofband.heartbeat",
        "mapred.task.cache.levels", "mapred.job.reduce.input.buffer.percent", "mapred.compress.map.output",
        "mapred.map.output.compression.codec", "mapred.jobtracker.completeuserjobs.maximum",
    }  # fmt: skip
    carried = [c.study for c in VMWARE2015.carried]
    dropped = [d.study.removesuffix(" final = true") for d in VMWARE2015.not_carried]
    assert len(set(carried)) == len(carried)
    assert set(carried) | set(dropped) == appendix
    assert set(carried) & set(dropped) == {"dfs.replication"}  # its value carried, its `final` flag not
    assert all(d.why for d in VMWARE2015.not_carried)


def test_docs_list_every_setting_of_both_lists():
    text = DOC.read_text(encoding="utf-8")
    for c in VMWARE2015.carried:
        assert re.search(rf"`{re.escape(c.study)}`.*`{re.escape(c.hadoop3)}`", text), c.study
    for d in VMWARE2015.not_carried:
        assert f"`{d.study}`" in text, d.study


def test_a_designs_own_keys_and_factor_levels_come_after_the_preset():
    exp = Experiment(
        name="x",
        hadoop={
            "preset": "vmware2015",
            "block_size": "32MB",
            "extra": {"mapred-site": {"mapreduce.task.io.sort.mb": "200"}},
        },
        factors={"hadoop.replication": [1, 3]},
    )
    one = next(c for c in exp.configurations() if c.overrides("hadoop") == {"replication": 1})
    hp = hadoop_for(exp, one, HadoopParams())
    assert (hp.block_size, hp.replication) == (32 * 1024 * 1024, 1)
    assert hp.extra["mapred-site"]["mapreduce.task.io.sort.mb"] == "200"
    assert hp.extra["mapred-site"]["mapreduce.task.io.sort.factor"] == "64"  # the rest of the preset stays


def test_without_a_preset_nothing_changes():
    exp = Experiment(name="x", hadoop={"replication": 1})
    assert hadoop_for(exp, Configuration("native"), HadoopParams()) == HadoopParams(replication=1)


def test_an_unknown_preset_is_refused_naming_the_file_and_field(tmp_path):
    (tmp_path / "e.yaml").write_text("experiment: {name: e, hadoop: {preset: vmware2051}}\n")
    with pytest.raises(ParamsError) as err:
        load_study(ROOT / "params", tmp_path / "e.yaml")
    assert "hadoop.preset" in str(err.value) and "vmware2015" in str(err.value)
    with pytest.raises(ParamsError, match="hadoop.preset"):
        preset_params("nope")


def test_every_preset_validates_as_hadoop_params():
    for name in PRESETS:
        HadoopParams.model_validate({**HadoopParams().model_dump(), **preset_params(name)})

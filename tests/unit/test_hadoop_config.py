"""vbench.hadoop.config: the rendered conf/ directory of a host."""

import xml.etree.ElementTree as ET

import pytest

from vbench.hadoop.config import HostLayout, config_hash, render_conf
from vbench.params import hadoop_params

LAYOUT = HostLayout(work_dir="/var/tmp/vbench/vb/hosts/worker1/work", lib_dir="/cache/hadoop/3.4.2-abc/lib")


def _props(xml_text: str) -> dict[str, str]:
    root = ET.fromstring(xml_text)
    assert root.tag == "configuration"
    return {p.findtext("name"): p.findtext("value") for p in root.findall("property")}


def _render(**params) -> dict[str, str]:
    return render_conf(hadoop_params(params), "master", LAYOUT)


@pytest.fixture(scope="module")
def conf() -> dict[str, dict[str, str]]:
    files = _render(replication=3, block_size="64MB")
    return {name: _props(text) for name, text in files.items() if name.endswith(".xml")}


def test_render_conf_gives_every_file():
    assert set(_render()) == {
        "core-site.xml",
        "hdfs-site.xml",
        "yarn-site.xml",
        "mapred-site.xml",
        "capacity-scheduler.xml",
        "log4j.properties",
    }


def test_every_xml_file_parses(conf):
    assert set(conf) == {"core-site.xml", "hdfs-site.xml", "yarn-site.xml", "mapred-site.xml", "capacity-scheduler.xml"}
    assert all(conf.values())


def test_hdfs_replication_and_block_size(conf):
    assert conf["hdfs-site.xml"]["dfs.replication"] == "3"
    assert conf["hdfs-site.xml"]["dfs.blocksize"] == str(64 * 1024**2)
    assert conf["hdfs-site.xml"]["dfs.bytes-per-checksum"] == "512"


def test_default_fs_points_to_the_master_on_8020(conf):
    assert conf["core-site.xml"]["fs.defaultFS"] == "hdfs://master:8020"
    assert conf["hdfs-site.xml"]["dfs.namenode.rpc-address"] == "master:8020"
    assert conf["yarn-site.xml"]["yarn.resourcemanager.hostname"] == "master"


def test_data_directories_are_under_the_hosts_work_dir(conf):
    assert conf["hdfs-site.xml"]["dfs.datanode.data.dir"] == f"{LAYOUT.work_dir}/data/dfs/data"
    assert conf["hdfs-site.xml"]["dfs.namenode.name.dir"] == f"{LAYOUT.work_dir}/data/dfs/name"
    assert conf["core-site.xml"]["hadoop.tmp.dir"] == f"{LAYOUT.work_dir}/data/tmp"


@pytest.mark.parametrize(
    "file, prop",
    [("yarn-site.xml", "yarn.application.classpath"), ("mapred-site.xml", "mapreduce.application.classpath")],
)
def test_application_classpaths_name_the_running_nodes_dirs_not_the_submitters(conf, file, prop):
    # A mixed cluster's hosts keep Hadoop in different places: a literal path of the
    # submitting host made tasks on an LXC worker die with ClassNotFoundException YarnChild.
    entries = conf[file][prop].split(",")
    assert entries == ["$HADOOP_CONF_DIR", "$VBENCH_HADOOP_LIB/*"]
    assert LAYOUT.lib_dir not in conf[file][prop]


def test_node_managers_pass_the_classpath_variables_to_task_containers(conf):
    whitelist = conf["yarn-site.xml"]["yarn.nodemanager.env-whitelist"].split(",")
    assert {"HADOOP_CONF_DIR", "VBENCH_HADOOP_LIB"} <= set(whitelist)


def test_task_heaps_are_the_fraction_of_the_container_memory():
    mapred = _props(
        _render(map_memory_mb=1000, reduce_memory_mb=768, am_memory_mb=640, task_heap_fraction=0.8)["mapred-site.xml"]
    )
    assert mapred["mapreduce.map.memory.mb"] == "1000"
    assert mapred["mapreduce.map.java.opts"] == "-Xmx800m"
    assert mapred["mapreduce.reduce.java.opts"] == "-Xmx614m"  # 768 x 0.8 = 614.4
    assert mapred["yarn.app.mapreduce.am.resource.mb"] == "640"
    assert mapred["yarn.app.mapreduce.am.command-opts"] == "-Xmx512m"


def test_job_jvm_flags_follow_the_heap_of_the_am_and_every_task():
    mapred = _props(_render(map_memory_mb=1000, job_jvm_flags=("-XX:TieredStopAtLevel=1", "-Xss1m"))["mapred-site.xml"])
    assert mapred["mapreduce.map.java.opts"] == "-Xmx750m -XX:TieredStopAtLevel=1 -Xss1m"
    for key in ("mapreduce.reduce.java.opts", "yarn.app.mapreduce.am.command-opts"):
        assert mapred[key].split()[1:] == ["-XX:TieredStopAtLevel=1", "-Xss1m"]


def test_hadoop_3_3s_application_master_opens_java_lang_and_3_4s_runs_as_it_ran():
    """3.3.6's MRAppMaster exits 1 on Java 17 without it (selfbench/capture_history.py, 2026-12-07);
    3.4.2's configuration, which every committed campaign ran, is not changed by it."""
    opens = "--add-opens=java.base/java.lang=ALL-UNNAMED"
    old = _props(_render(version="3.3.6", job_jvm_flags=("-Xss1m",))["mapred-site.xml"])
    assert old["yarn.app.mapreduce.am.command-opts"].split()[1:] == [opens, "-Xss1m"]
    for task in ("mapreduce.map.java.opts", "mapreduce.reduce.java.opts"):
        assert old[task].split()[1:] == ["-Xss1m"]  # the tasks' JVMs ran without it
    new = _props(_render(version="3.4.2")["mapred-site.xml"])
    assert all(opens not in v for v in new.values())


def test_task_timeout_is_in_milliseconds():
    assert _props(_render(task_timeout_s=90)["mapred-site.xml"])["mapreduce.task.timeout"] == "90000"


def test_speculative_execution_is_written_only_when_turned_off():
    on, off = _render(), _render(speculative=False)
    assert "speculative" not in on["mapred-site.xml"]  # Hadoop's default: the files (and hash) as before
    mapred = _props(off["mapred-site.xml"])
    assert mapred["mapreduce.map.speculative"] == mapred["mapreduce.reduce.speculative"] == "false"
    assert config_hash(on) != config_hash(off)


def test_nodemanager_resources(conf):
    yarn = conf["yarn-site.xml"]
    assert yarn["yarn.nodemanager.resource.memory-mb"] == "2048"
    assert yarn["yarn.scheduler.maximum-allocation-mb"] == "2048"
    assert yarn["yarn.nodemanager.aux-services"] == "mapreduce_shuffle"


def test_capacity_scheduler_allows_half_the_cluster_to_application_masters(conf):
    cs = conf["capacity-scheduler.xml"]
    assert cs["yarn.scheduler.capacity.maximum-am-resource-percent"] == "0.5"
    assert cs["yarn.scheduler.capacity.root.queues"] == "default"


def test_log4j_properties_logs_to_stderr():
    text = _render()["log4j.properties"]
    assert "log4j.rootLogger=INFO,console" in text.splitlines()
    assert "log4j.appender.console.target=System.err" in text.splitlines()


def test_extra_properties_override_and_merge():
    files = _render(
        replication=2,
        extra={
            "hdfs-site": {"dfs.replication": "1", "dfs.custom.key": "v"},
            "mapred-site": {"mapreduce.task.io.sort.mb": "100"},
        },
    )
    hdfs = _props(files["hdfs-site.xml"])
    assert hdfs["dfs.replication"] == "1"
    assert hdfs["dfs.custom.key"] == "v"
    assert hdfs["dfs.blocksize"] == str(32 * 1024**2)  # untouched properties stay
    assert _props(files["mapred-site.xml"])["mapreduce.task.io.sort.mb"] == "100"
    assert "dfs.custom.key" not in _props(files["core-site.xml"])


def test_topology_script_appears_only_when_set():
    without = _render()
    assert not any("net.topology.script.file.name" in text for text in without.values())
    core = _props(_render(topology_script="/opt/topology.sh")["core-site.xml"])
    assert core["net.topology.script.file.name"] == "/opt/topology.sh"


def test_special_characters_in_values_are_escaped():
    text = _render(extra={"core-site": {"vbench.odd": "a<b & c>d"}})["core-site.xml"]
    assert "a&lt;b &amp; c&gt;d" in text
    assert _props(text)["vbench.odd"] == "a<b & c>d"


def test_same_params_give_byte_identical_files():
    a = _render(extra={"core-site": {"x.a": "1", "x.b": "2"}})
    b = _render(extra={"core-site": {"x.b": "2", "x.a": "1"}})
    assert a == b


def test_config_hash_is_stable_for_the_same_params():
    assert config_hash(_render()) == config_hash(_render())
    assert len(config_hash(_render())) == 16


@pytest.mark.parametrize(
    "change",
    [{"block_size": "64MB"}, {"replication": 1}, {"task_heap_fraction": 0.5}, {"extra": {"yarn-site": {"a": "b"}}}],
)
def test_config_hash_changes_when_a_param_changes(change):
    assert config_hash(_render(**change)) != config_hash(_render())


def test_config_hash_changes_with_the_master():
    hp = hadoop_params()
    assert config_hash(render_conf(hp, "master", LAYOUT)) != config_hash(render_conf(hp, "nn", LAYOUT))


def test_every_local_directory_a_daemon_writes_is_under_the_hosts_data_or_logs():
    """Nothing of a cluster's goes to /tmp, where it is shared by every cluster and outlives them."""
    files = _render()
    for name in ("core-site.xml", "hdfs-site.xml", "yarn-site.xml"):
        for key, value in _props(files[name]).items():
            if key.endswith(("dir", "dirs", "root-dir")) and "/" in value:
                assert "/tmp/" not in value.replace(LAYOUT.work_dir, ""), (key, value)
    assert _props(files["yarn-site.xml"])["yarn.node-attribute.fs-store.root-dir"].startswith(
        f"file://{LAYOUT.work_dir}"
    )

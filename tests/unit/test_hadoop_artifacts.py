"""vbench.hadoop.artifacts: the POM that assembles Hadoop, and finding jars in it. No Maven run."""

import xml.etree.ElementTree as ET

import pytest

from vbench.errors import VbenchError
from vbench.hadoop.artifacts import HADOOP_ARTIFACTS, JUNIT, HadoopDist, dist_for, render_pom

NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def _deps(pom: str) -> list[tuple[str, str, str, str | None]]:
    root = ET.fromstring(pom)
    return [
        (
            d.findtext("m:groupId", namespaces=NS),
            d.findtext("m:artifactId", namespaces=NS),
            d.findtext("m:version", namespaces=NS),
            d.findtext("m:classifier", namespaces=NS),
        )
        for d in root.findall("m:dependencies/m:dependency", NS)
    ]


def test_pom_is_valid_xml_naming_the_version():
    root = ET.fromstring(render_pom("3.4.2", "3.4.1"))
    assert root.findtext("m:artifactId", namespaces=NS) == "hadoop-3.4.2-runtime"
    assert root.findtext("m:packaging", namespaces=NS) == "pom"


def test_pom_lists_every_hadoop_artifact_with_its_classifier():
    deps = _deps(render_pom("3.4.2", "3.4.1"))
    for artifact, classifier in HADOOP_ARTIFACTS:
        assert ("org.apache.hadoop", artifact, "3.4.2", classifier) in deps


def test_pom_has_the_tests_classifiers():
    tests = {a for _, a, _, c in _deps(render_pom("3.4.2", "3.4.2")) if c == "tests"}
    assert tests == {"hadoop-common", "hadoop-hdfs", "hadoop-mapreduce-client-jobclient"}


def test_pom_uses_the_examples_version_for_the_examples_jar_and_adds_junit():
    deps = _deps(render_pom("3.4.2", "3.4.1"))
    assert ("org.apache.hadoop", "hadoop-mapreduce-examples", "3.4.1", None) in deps
    assert (*JUNIT, None) in deps
    assert JUNIT == ("junit", "junit", "4.13.2")
    assert len(deps) == len(HADOOP_ARTIFACTS) + 2


def test_dist_for_differs_between_versions(tmp_path):
    a = dist_for("3.4.2", "3.4.2", cache=tmp_path)
    b = dist_for("3.4.1", "3.4.1", cache=tmp_path)
    c = dist_for("3.4.2", "3.4.1", cache=tmp_path)
    assert len({a.home, b.home, c.home}) == 3
    assert a.home.parent == tmp_path / "hadoop"
    assert a.home.name.startswith("3.4.2-")
    assert a.lib == a.home / "lib"


def test_dist_for_is_stable(tmp_path):
    assert dist_for("3.4.2", "3.4.2", cache=tmp_path) == dist_for("3.4.2", "3.4.2", cache=tmp_path)


@pytest.fixture
def dist(tmp_path) -> HadoopDist:
    d = HadoopDist(version="3.4.2", home=tmp_path / "h")
    d.lib.mkdir(parents=True)
    for name in (
        "hadoop-mapreduce-examples-3.4.2.jar",
        "hadoop-mapreduce-client-jobclient-3.4.2.jar",
        "hadoop-mapreduce-client-jobclient-3.4.2-tests.jar",
        "hadoop-hdfs-3.4.2.jar",
        "hadoop-hdfs-3.4.2-tests.jar",
        "hadoop-hdfs-client-3.4.2.jar",
        "junit-4.13.2.jar",
    ):
        (d.lib / name).write_bytes(b"")
    return d


def test_jar_finds_the_plain_jar(dist):
    assert dist.jar("hadoop-mapreduce-examples").name == "hadoop-mapreduce-examples-3.4.2.jar"
    assert dist.jar("hadoop-mapreduce-client-jobclient").name == "hadoop-mapreduce-client-jobclient-3.4.2.jar"


def test_jar_does_not_mistake_a_longer_artifact_for_a_shorter_one(dist):
    assert dist.jar("hadoop-hdfs").name == "hadoop-hdfs-3.4.2.jar"


def test_jar_finds_the_tests_jar(dist):
    assert dist.jar("hadoop-mapreduce-client-jobclient", tests=True).name == (
        "hadoop-mapreduce-client-jobclient-3.4.2-tests.jar"
    )


def test_jar_absent_raises(dist):
    with pytest.raises(VbenchError, match="hadoop-yarn-client"):
        dist.jar("hadoop-yarn-client")
    with pytest.raises(VbenchError):
        dist.jar("hadoop-mapreduce-examples", tests=True)


def test_jar_ambiguous_raises(dist):
    (dist.lib / "hadoop-mapreduce-examples-3.4.1.jar").write_bytes(b"")
    with pytest.raises(VbenchError, match="expected one jar"):
        dist.jar("hadoop-mapreduce-examples")


def test_jars_lists_names_sorted(dist):
    assert dist.jars()[0] == "hadoop-hdfs-3.4.2-tests.jar"
    assert len(dist.jars()) == 7

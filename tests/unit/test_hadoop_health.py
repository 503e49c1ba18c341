"""vbench.hadoop.health on real endpoint outputs captured from Hadoop 3.4.2 (tests/data/hadoop)."""

import json
from pathlib import Path

import pytest

from vbench.hadoop import health

DATA = Path(__file__).resolve().parents[1] / "data" / "hadoop"


def _text(name: str) -> str:
    return (DATA / name).read_text()


def test_namenode_info_lists_the_live_datanodes_by_hostname():
    assert health.parse_namenode_info(_text("namenode_info.json")).live_datanodes == ("worker1", "worker2")


def test_namenode_info_safemode_is_off_when_the_bean_says_empty():
    assert health.parse_namenode_info(_text("namenode_info.json")).safemode is False


def test_namenode_info_safemode_is_on_when_the_bean_has_a_message():
    doc = json.loads(_text("namenode_info.json"))
    doc["beans"][0]["Safemode"] = "Safe mode is ON. The reported blocks 0 needs additional 2 blocks."
    assert health.parse_namenode_info(json.dumps(doc)).safemode is True


def test_namenode_info_without_live_nodes():
    doc = json.loads(_text("namenode_info.json"))
    doc["beans"][0]["LiveNodes"] = "{}"
    assert health.parse_namenode_info(json.dumps(doc)).live_datanodes == ()


def test_namenode_info_without_beans_means_not_ready():
    h = health.parse_namenode_info('{"beans": []}')
    assert h.live_datanodes == () and h.safemode is True


def test_rm_nodes_lists_running_nodemanagers():
    assert health.parse_rm_nodes(_text("rm_nodes.json")) == ("worker1", "worker2")


def test_rm_nodes_skips_nodes_not_running():
    doc = json.loads(_text("rm_nodes.json"))
    for node in doc["nodes"]["node"]:
        if node["nodeHostName"] == "worker2":
            node["state"] = "LOST"
    assert health.parse_rm_nodes(json.dumps(doc)) == ("worker1",)


def test_rm_nodes_with_no_nodes():
    assert health.parse_rm_nodes('{"nodes": null}') == ()
    assert health.parse_rm_nodes("{}") == ()


def test_jhs_info_is_up():
    assert health.parse_jhs_info(_text("jhs_info.json")) is True


def test_jhs_info_without_history_info_is_down():
    assert health.parse_jhs_info('{"RemoteException": {}}') is False


@pytest.mark.parametrize("parse", [health.parse_namenode_info, health.parse_rm_nodes, health.parse_jhs_info])
@pytest.mark.parametrize("text", ["", "<html><body>503</body></html>", '{"beans": '])
def test_empty_or_garbage_output_raises_value_error(parse, text):
    # HadoopCluster.health() maps ValueError to "not ready".
    with pytest.raises(ValueError):
        parse(text)


def test_urls_point_at_the_masters_http_ports():
    assert health.namenode_url("master") == ("http://master:9870/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo")
    assert health.rm_nodes_url("master") == "http://master:8088/ws/v1/cluster/nodes"
    assert health.jhs_url("master") == "http://master:19888/ws/v1/history/info"


@pytest.mark.parametrize("doc", ["null", "[]", "3"])
def test_health_parsers_treat_non_objects_as_not_ready(doc):
    assert health.parse_namenode_info(doc).live_datanodes == ()
    assert health.parse_rm_nodes(doc) == ()
    assert health.parse_jhs_info(doc) is False

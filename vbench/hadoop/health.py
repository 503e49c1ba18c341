"""Readiness of a cluster from the daemons' own HTTP endpoints. Pure parsers."""

from __future__ import annotations

import json
from dataclasses import dataclass

from vbench.hadoop.config import JHS_HTTP_PORT, NAMENODE_HTTP_PORT, RM_HTTP_PORT


def namenode_url(master: str) -> str:
    return f"http://{master}:{NAMENODE_HTTP_PORT}/jmx?qry=Hadoop:service=NameNode,name=NameNodeInfo"


def rm_nodes_url(master: str) -> str:
    return f"http://{master}:{RM_HTTP_PORT}/ws/v1/cluster/nodes"


def jhs_url(master: str) -> str:
    return f"http://{master}:{JHS_HTTP_PORT}/ws/v1/history/info"


@dataclass(frozen=True)
class HdfsHealth:
    live_datanodes: tuple[str, ...]
    safemode: bool


#: What a NameNode that has not answered yet (or answered nothing usable) is taken to say.
HDFS_NOT_UP = HdfsHealth((), True)


def parse_namenode_info(text: str) -> HdfsHealth:
    """NameNodeInfo JMX bean: LiveNodes is itself a JSON string keyed by 'host:port'."""
    doc = json.loads(text)
    beans = (doc.get("beans") if isinstance(doc, dict) else None) or []
    if not beans:
        return HDFS_NOT_UP
    bean = beans[0]
    live = json.loads(bean.get("LiveNodes") or "{}")
    names = tuple(sorted(k.split(":")[0] for k in live))
    return HdfsHealth(names, bool(bean.get("Safemode")))


def parse_rm_nodes(text: str) -> tuple[str, ...]:
    """Hostnames of NodeManagers the ResourceManager has in state RUNNING."""
    doc = json.loads(text)
    nodes = ((doc.get("nodes") if isinstance(doc, dict) else None) or {}).get("node") or []
    return tuple(sorted(n["nodeHostName"] for n in nodes if n.get("state") == "RUNNING"))


def parse_jhs_info(text: str) -> bool:
    doc = json.loads(text)
    return isinstance(doc, dict) and "historyInfo" in doc

"""Finding and killing a cluster's active YARN applications: what a job timeout does, so a job
that ran too long stops consuming the cluster before the next cell. Pure builders/parsers."""

from __future__ import annotations

import json

from vbench.hadoop.health import RM_HTTP_PORT

ACTIVE_STATES = ("NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED", "RUNNING")
#: `yarn application -kill ID` without the yarn script (the script only sets this class and
#: puts the subcommand first).
APPLICATION_CLI = "org.apache.hadoop.yarn.client.cli.ApplicationCLI"


def active_apps_url(master: str) -> str:
    return f"http://{master}:{RM_HTTP_PORT}/ws/v1/cluster/apps?states={','.join(ACTIVE_STATES)}"


def parse_active_apps(text: str) -> list[str]:
    """Application ids from the ResourceManager's /apps answer ({"apps": null} when none)."""
    apps = (json.loads(text).get("apps") or {}).get("app") or []
    return [a["id"] for a in apps]


def kill_args(app_id: str) -> list[str]:
    return ["application", "-kill", app_id]

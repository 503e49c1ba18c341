"""Per-node task times and the straggler verdict (Liu et al.: one slow node holds a cluster back). Pure.

Input: the task-attempt samples every Hadoop run records from JobHistory (`map_attempt_time`,
`reduce_attempt_time`, each with its `node`, `step` and `run_id`), as a DataFrame of tidy
samples (vbench.stats.campaign.load_campaign, or vbench.stats.volume.samples_frame). Which platform each node is comes from the runs'
`host_platforms` stamp, or is passed in (runs recorded before that stamp existed).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Mapping

import pandas as pd

from vbench.stats.tidy import stamp_mapping
from vbench.wording import count

ATTEMPT_METRICS = {"map_attempt_time": "MAP", "reduce_attempt_time": "REDUCE"}
#: One sample per failed or killed attempt (value 1), with `attempt_state` and `diagnostics`.
UNSUCCESSFUL_METRICS = {"map_attempt_unsuccessful": "MAP", "reduce_attempt_unsuccessful": "REDUCE"}
#: How the MapReduce AM words the kill of an attempt whose speculative twin finished first.
SPECULATION_LOST = "Speculation:"


def lost_to_speculation(samples: pd.DataFrame) -> pd.Series:
    """Per unsuccessful-attempt sample: whether the AM killed it because its speculative twin
    finished first (state KILLED, diagnostics opening with SPECULATION_LOST). Missing columns read
    as empty. Pure."""
    blank = pd.Series("", index=samples.index)
    state = samples.get("attempt_state", blank).fillna("").astype(str)
    why = samples.get("diagnostics", blank).fillna("").astype(str)
    return state.eq("KILLED") & why.str.startswith(SPECULATION_LOST)


@dataclass(frozen=True)
class NodeRow:
    #: The run's testbed platform stamp: runs on different clusters are never pooled.
    cluster: str
    step: str
    task_type: str
    node: str
    platform: str
    #: Attempts that succeeded here, and their times (None when none did).
    tasks: int
    mean_s: float | None
    max_s: float | None
    #: This node's mean over the median of the other nodes' means (1 = typical).
    vs_others: float | None
    #: Attempts sent here that failed (e.g. a container launch timed out) or were killed.
    failed: int = 0
    killed: int = 0
    #: Of the killed: attempts that lost the race to a speculative copy of the same task on
    #: another attempt (Hadoop's own verdict that this node was slower for that task).
    lost_races: int = 0

    @property
    def slow_evidence(self) -> int:
        """Attempts that say something about this node's speed: finished, failed, or outrun."""
        return self.tasks + self.failed + self.lost_races


@dataclass(frozen=True)
class Straggler:
    cluster: str
    step: str
    task_type: str
    node: str | None
    platform: str
    ratio: float | None
    verdict: str


def platforms_from_samples(samples: pd.DataFrame) -> dict[str, str]:
    """node -> platform from the `host_platforms` stamp (a dict, or its JSON text after tidying)."""
    out: dict[str, str] = {}
    if "host_platforms" not in samples.columns:
        return out
    for v in samples["host_platforms"].dropna().unique():
        out.update(stamp_mapping(v))
    return out


def node_table(samples: pd.DataFrame, platforms: Mapping[str, str] | None = None) -> list[NodeRow]:
    """Per (step, task type, node), over every run given: succeeded attempts with their mean and
    max time, and the attempts that failed or were killed there. A node that finished nothing
    but was sent attempts still has its row: being routed around is the strongest straggling."""
    col = "raw_metric" if "raw_metric" in samples.columns else "metric"  # tidied samples rename metrics
    kinds = {**ATTEMPT_METRICS, **UNSUCCESSFUL_METRICS}
    d = samples[samples[col].isin(list(kinds))] if col in samples.columns else samples.iloc[0:0]
    if d.empty or "node" not in d.columns:
        return []
    plat = {**platforms_from_samples(samples), **(platforms or {})}
    blank = pd.Series("", index=d.index)
    state = d.get("attempt_state", blank).fillna("")
    d = d.assign(
        task_type=d[col].map(kinds),
        step=d.get("step", blank).fillna(""),
        cluster=d.get("platform", blank).fillna("").astype(str),
        ok=d[col].isin(list(ATTEMPT_METRICS)),
        state=state,
        outrun=lost_to_speculation(d),
    )
    rows: list[NodeRow] = []
    for (cluster, step, tt), g in d.groupby(["cluster", "step", "task_type"], sort=True):
        per = g[g["ok"]].groupby("node")["value"].agg(["count", "mean", "max"])
        bad = g[~g["ok"]]
        for node in sorted(set(g["node"].astype(str))):
            failed = int((bad["node"].astype(str).eq(node) & bad["state"].ne("KILLED")).sum())
            killed = int((bad["node"].astype(str).eq(node) & bad["state"].eq("KILLED")).sum())
            lost = int((bad["node"].astype(str).eq(node) & bad["outrun"]).sum())
            if node in per.index:
                r = per.loc[node]
                others = per.drop(index=node)["mean"]
                vs = float(r["mean"] / others.median()) if len(others) and others.median() > 0 else None
                count, mean, mx = int(r["count"]), float(r["mean"]), float(r["max"])
            else:
                count, mean, mx, vs = 0, None, None, None
            # Without a per-host stamp, a node is of its cluster's platform (true unless mixed).
            rows.append(
                NodeRow(
                    str(cluster),
                    str(step),
                    str(tt),
                    node,
                    plat.get(node, str(cluster) or "unknown"),
                    count,
                    mean,
                    mx,
                    vs,
                    failed,
                    killed,
                    lost,
                )
            )
    return rows


def stragglers(rows: list[NodeRow], factor: float = 1.5, min_tasks: int = 3) -> list[Straggler]:
    """Per (cluster, step, task type): the straggler, if any.

    A node that finished none of the tasks sent to it while others finished theirs (its attempts
    failed, or lost the race to a speculative copy elsewhere) is one; otherwise the node whose
    mean task time is at least `factor` times the other nodes' median, if at least `min_tasks`
    attempts speak for it (finished, failed or outrun: two slow tasks on a busy 2-core machine
    are noise). One node alone cannot be a straggler: nothing to compare."""
    out = []
    keys = sorted({(r.cluster, r.step, r.task_type) for r in rows})
    for cluster, step, tt in keys:
        everyone = [r for r in rows if (r.cluster, r.step, r.task_type) == (cluster, step, tt)]
        found, ratio, verdict = _group_verdict(tt, everyone, factor, min_tasks)
        node, platform = (found.node, found.platform) if found else (None, "")
        out.append(Straggler(cluster, step, tt, node, platform, ratio, verdict))
    return out


def _group_verdict(
    tt: str, everyone: list[NodeRow], factor: float, min_tasks: int
) -> tuple[NodeRow | None, float | None, str]:
    """One (cluster, step, task type)'s nodes: (the straggler or None, the ratio behind the
    verdict, the verdict), by the rules `stragglers` states."""
    routed = [r for r in everyone if r.tasks == 0 and r.failed + r.lost_races > 0]
    if routed and any(r.tasks > 0 for r in everyone):
        worst = max(routed, key=lambda r: r.failed + r.lost_races)
        return (
            worst,
            None,
            f"{worst.node} ({worst.platform}) is the straggler: it finished no {tt.lower()} task; {_why(worst)}",
        )
    group = [r for r in everyone if r.vs_others is not None]
    if not group:
        return None, None, "one node ran these tasks: no comparison"
    worst = max(group, key=lambda r: r.vs_others)
    if worst.vs_others >= factor and worst.slow_evidence < min_tasks:
        return (
            None,
            worst.vs_others,
            f"undecided: {worst.node} at {worst.vs_others:.2f}x but only {count(worst.tasks, 'task')} (< {min_tasks})",
        )
    if worst.vs_others >= factor:
        extra = f"; {_why(worst)}" if worst.failed + worst.lost_races else ""
        return (
            worst,
            worst.vs_others,
            f"{worst.node} ({worst.platform}) is the straggler: mean {tt.lower()} task "
            f"{worst.mean_s:.1f} s over {count(worst.tasks, 'task')}, {worst.vs_others:.2f}x the "
            f"other nodes' median{extra}",
        )
    return None, worst.vs_others, f"no straggler: slowest node {worst.node} at {worst.vs_others:.2f}x (< {factor}x)"


def _why(r: NodeRow) -> str:
    parts = []
    if r.failed:
        parts.append(f"{count(r.failed, 'attempt')} sent there failed")
    if r.lost_races:
        parts.append(f"{count(r.lost_races, 'attempt')} lost the race to a speculative copy")
    return " and ".join(parts) + " (re-run or finished elsewhere)"


def table_frame(rows: list[NodeRow]) -> pd.DataFrame:
    return pd.DataFrame([asdict(r) for r in rows], columns=[f for f in NodeRow.__dataclass_fields__])

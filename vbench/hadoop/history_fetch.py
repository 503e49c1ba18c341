"""Everything JobHistory knows about one job in one SSH round trip. Pure.

A job's record, counters, task list and every task's attempts are separate REST resources; one
`curl` per SSH call cost N+3 round trips per job (issue #24), seconds per TeraSort. Instead one
shell script, run on the master, fetches them all and prints one stream that `split_stream` cuts
back into resources. The attempts' URLs need the task ids, known only once the task list is in:
the script pulls them out with grep and sed, since the guest image has no python3 (curl, which
the health probes need already, grep and sed are on every host). The JSON itself is parsed here,
by `vbench.hadoop.history`.

Stream: each resource's body, then a trailer line `@@vbench-jobhistory <HTTP status> <URL>`
written by curl's `--write-out` (status 000: no answer). A resource with no trailer was never
fetched: curl stops at the first failure (`--fail-early`), as the per-resource path did, so a
history server that does not answer costs one timeout, not one per resource.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from vbench.errors import JobFailed
from vbench.hadoop import history

MARKER = "@@vbench-jobhistory"
#: Per transfer: the per-resource path allowed each request 10 s too.
CURL = "curl -sf --fail-early --max-time 10"
#: Task ids as JobHistory writes them ("id":"task_<cluster>_<job>_m_000003"); anything else
#: (attempt ids, the job's own id) does not match, so only the task list yields ids.
_TASK_ID_GREP = r'"id" *: *"task_[A-Za-z0-9_]*"'
_TASK_ID_SED = r's/.*"\(task_[A-Za-z0-9_]*\)"$/\1/'
#: curl's trailer after each body (it expands \n and %{...} itself).
_WRITE_OUT = rf"\n{MARKER} %{{http_code}} %{{url_effective}}\n"
#: One curl config line per task id.
_ATTEMPT_URLS = r"""for t in $ids; do printf 'url = "%s/tasks/%s/attempts"\n' "$base" "$t"; done"""
#: Suffixes of a job's URL fetched before its tasks' attempts, in the order read.
HEAD = ("", "/counters", "/tasks")


def attempts_suffix(task_id: str) -> str:
    return f"/tasks/{task_id}/attempts"


def fetch_script(base_url: str) -> str:
    """POSIX sh fetching the job at `base_url` (its REST URL), its counters, tasks and attempts."""
    q = shlex.quote
    head = " ".join(f'"$base{s}"' for s in HEAD)
    return (
        "\n".join(
            [
                f"base={q(base_url)}",
                f"w={q(_WRITE_OUT)}",
                f'head=$({CURL} -w "$w" {head})',
                "printf '%s\\n' \"$head\"",
                f"""ids=$(printf '%s\\n' "$head" | grep -o {q(_TASK_ID_GREP)} | sed {q(_TASK_ID_SED)})""",
                # The attempts' URLs go to curl as a config on stdin (-K -), not as arguments: a large
                # job's thousands of tasks would pass the limit on an argument list's length.
                f'[ -z "$ids" ] || {_ATTEMPT_URLS} | {CURL} -w "$w" -K -',
            ]
        )
        + "\n"
    )


def fetch_command(master: str, job_id: str) -> str:
    """The one line run over SSH on the master; `sh -c` whatever the login shell is."""
    return f"sh -c {shlex.quote(fetch_script(history.job_url(master, job_id)))}"


@dataclass(frozen=True)
class Resource:
    url: str
    status: int  # HTTP status; 0 when the server did not answer
    body: str


def split_stream(text: str, job_id: str) -> dict[str, Resource]:
    """The fetched resources by their suffix of the job's URL ('' for the job, '/counters', ...)."""
    out: dict[str, Resource] = {}
    lines: list[str] = []
    anchor = f"/jobs/{job_id}"
    for line in text.split("\n"):
        if not line.startswith(MARKER + " "):
            # A JSON body cannot hold such a line: raw newlines in JSON sit between tokens only.
            lines.append(line)
            continue
        status, _, url = line[len(MARKER) + 1 :].partition(" ")
        suffix = url.split(anchor, 1)[1] if anchor in url else None
        if suffix is not None and (suffix == "" or suffix.startswith("/")):
            out[suffix] = Resource(url, int(status) if status.isdigit() else 0, "\n".join(lines).strip())
        lines = []
    return out


def body(resources: dict[str, Resource], suffix: str, job_id: str) -> str:
    """A resource's JSON, or JobFailed saying why JobHistory did not give it."""
    r = resources.get(suffix)
    what = f"JobHistory has no {suffix or 'record'} for {job_id}"
    if r is None:
        raise JobFailed(f"{what} (not fetched: the fetch stopped before it)")
    if r.status == 0:
        raise JobFailed(f"{what} (no answer from {r.url})")
    if r.status != 200:
        raise JobFailed(f"{what} (HTTP {r.status} from {r.url})")
    return r.body


def parse_job(resources: dict[str, Resource], job_id: str) -> history.JobInfo:
    return history.parse_job(body(resources, "", job_id))


@dataclass(frozen=True)
class JobDetail:
    counters: dict[str, int]
    attempts: list[history.Attempt]


def parse_detail(resources: dict[str, Resource], job_id: str) -> JobDetail:
    """Counters and every task's attempts, in the task list's order (as read one by one before)."""
    counters = history.parse_counters(body(resources, "/counters", job_id))
    attempts: list[history.Attempt] = []
    for task in history.parse_task_ids(body(resources, "/tasks", job_id)):
        attempts += history.parse_attempts(body(resources, attempts_suffix(task), job_id))
    return JobDetail(counters, attempts)

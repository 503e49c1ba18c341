"""A job's JobHistory data in one SSH round trip (issue #24, item 5), from the captured REST
answers in tests/data/hadoop/suite (jh_*.json), grown into a job of several maps and reduces.

The fake cluster counts its `sh` calls and runs each line on this machine with the real `sh` and
`curl`, against a small HTTP server standing in for the history server on the master: the
remote script itself is exercised, not a model of it."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from vbench.benchmarks.hadoop import execute
from vbench.errors import JobFailed
from vbench.hadoop import history, history_fetch
from vbench.hadoop.cluster import CommandResult
from vbench.hadoop.config import JHS_HTTP_PORT

DATA = Path(__file__).resolve().parents[1] / "data" / "hadoop" / "suite"
JOB = "job_1795310100381_0011"
PATH = f"/ws/v1/history/mapreduce/jobs/{JOB}"
MAPS, REDUCES = 3, 2

needs_curl = pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl (scripts/setup.sh installs it)")


def task_id(kind: str, i: int) -> str:
    return f"task_1795310100381_0011_{kind}_{i:06d}"


def captured_job() -> dict[str, str]:
    """REST path -> JSON of a WordCount job grown to 3 maps and 2 reduces; the second map's
    attempts are the captured failed/succeeded/killed trio."""
    job = (
        (DATA / "jh_job.json")
        .read_text()
        .replace('"mapsTotal":1', f'"mapsTotal":{MAPS}')
        .replace('"reducesTotal":1', f'"reducesTotal":{REDUCES}')
    )
    tasks_doc = (DATA / "jh_tasks.json").read_text()
    reduce_task, map_task = tasks_doc[len('{"tasks":{"task":[') : -len("]}}")].split("},{")
    reduce_task, map_task = reduce_task + "}", "{" + map_task
    entries = [reduce_task.replace("_r_000000", f"_r_{i:06d}") for i in range(REDUCES)]
    entries += [map_task.replace("_m_000000", f"_m_{i:06d}") for i in range(MAPS)]
    out = {
        PATH: job,
        f"{PATH}/counters": (DATA / "jh_counters.json").read_text(),
        f"{PATH}/tasks": '{"tasks":{"task":[' + ",".join(entries) + "]}}",
    }
    for i in range(REDUCES):
        out[f"{PATH}/tasks/{task_id('r', i)}/attempts"] = (
            (DATA / "jh_attempts_reduce.json").read_text().replace("_r_000000", f"_r_{i:06d}")
        )
    for i in range(MAPS):
        text = (
            (DATA / "jh_attempts_map.json").read_text()
            if i != 1
            else (DATA / "jh_attempts_failed.json").read_text().replace("0012_m_000001", "0011_m_000001")
        )
        out[f"{PATH}/tasks/{task_id('m', i)}/attempts"] = text.replace("_m_000000", f"_m_{i:06d}")
    return out


class FakeHistoryServer:
    """The JobHistory REST API answering from `resources` (path -> JSON); 404 for anything else,
    as the real one does for a job it has not loaded yet."""

    def __init__(self, resources: dict[str, str]):
        self.resources = dict(resources)
        self.hits: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                server.hits.append(self.path)
                body = server.resources.get(self.path)
                code, data = (200, body.encode()) if body is not None else (404, b'{"RemoteException":{}}')
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass
class Host:
    name: str


class CountingCluster:
    """Stands in for HadoopCluster: counts `sh` calls (one per SSH round trip) and runs each line
    here, with the master's history server address pointed at the fake server."""

    def __init__(self, port: int):
        self.master = Host("master")
        self.port = port
        self.calls: list[str] = []

    def sh(self, host, line: str, timeout: float | None = None) -> CommandResult:
        assert host is self.master
        self.calls.append(line)
        here = line.replace(f"http://master:{JHS_HTTP_PORT}/", f"http://127.0.0.1:{self.port}/")
        t0 = time.monotonic()
        r = subprocess.run(["sh", "-c", here], check=False, capture_output=True, text=True, timeout=60)
        return CommandResult(line, r.returncode, r.stdout, r.stderr, time.monotonic() - t0)


@pytest.fixture
def served():
    servers = []

    def start(resources: dict[str, str]) -> tuple[FakeHistoryServer, CountingCluster]:
        srv = FakeHistoryServer(resources)
        servers.append(srv)
        return srv, CountingCluster(srv.port)

    yield start
    for srv in servers:
        srv.close()


def per_resource_path(cluster, job_id: str):
    """The path this replaced (execute.job_detail_samples before issue #24), kept as the reference:
    one curl per SSH call for the job, its counters, its tasks, then each task's attempts."""

    def get(suffix: str) -> str:
        r = cluster.sh(
            cluster.master, f"curl -sf --max-time 10 '{history.job_url(cluster.master.name, job_id, suffix)}'"
        )
        if not r.ok:
            raise JobFailed(f"JobHistory has no {suffix or 'record'} for {job_id}")
        return r.stdout

    job = history.parse_job(get(""))
    counters = history.parse_counters(get("/counters"))
    attempts = []
    for task in history.parse_task_ids(get("/tasks")):
        attempts += history.parse_attempts(get(f"/tasks/{task}/attempts"))
    return job, counters, attempts


def comparable(samples):
    return [(s.benchmark, s.metric, s.value, s.unit, dict(s.metadata)) for s in samples]


CLIENT_LOG = f"INFO mapreduce.Job: Running job: {JOB}\nINFO mapreduce.Job: Job {JOB} completed successfully\n"


# -- over the counting fake -----------------------------------------------------------------
@needs_curl
def test_one_ssh_round_trip_per_job_of_several_maps_and_reduces(served):
    srv, cluster = served(captured_job())
    samples = execute.job_detail_samples(cluster, "wordcount", "wordcount", CLIENT_LOG)
    assert len(cluster.calls) == 1
    # ...and in it every resource was read: the job, counters, tasks and all 5 tasks' attempts.
    assert sorted(set(srv.hits)) == sorted(captured_job())
    attempts = [s for s in samples if "attempt_id" in s.metadata]
    assert {s.metadata["task_type"] for s in attempts} == {"MAP", "REDUCE"}
    assert len({s.metadata["attempt_id"] for s in attempts}) == MAPS + REDUCES + 2  # + the failed and killed


@needs_curl
def test_the_same_samples_as_the_per_resource_path(served):
    _, cluster = served(captured_job())
    job, counters, attempts = per_resource_path(cluster, JOB)
    assert len(cluster.calls) == MAPS + REDUCES + 3  # what it cost
    old = history.job_samples("wordcount", "wordcount", job, counters, attempts, {})
    new = execute.job_detail_samples(cluster, "wordcount", "wordcount", CLIENT_LOG)
    assert comparable(new) == comparable(old)
    # Everything recorded before is still there: unsuccessful attempts with node, state and why;
    # reducer phases; counters; the job's start and finish.
    metrics = {s.metric for s in new}
    assert {
        "map_attempt_unsuccessful",
        "reducer_shuffle_time",
        "reducer_merge_time",
        "reducer_reduce_time",
        "wordcount_map_shuffle_phase_time",
        "counter.wordcount.TaskCounter.REDUCE_SHUFFLE_BYTES",
    } <= metrics
    bad = [s.metadata for s in new if s.metric == "map_attempt_unsuccessful"]
    assert [(m["node"], m["attempt_state"]) for m in bad] == [("worker2", "FAILED"), ("worker1", "KILLED")]
    assert "socket timeout" in bad[0]["diagnostics"]
    assert {(s.metadata["job_start_ms"], s.metadata["job_finish_ms"]) for s in new} == {(job.start_ms, job.finish_ms)}


@needs_curl
def test_a_job_not_yet_loaded_is_retried_one_round_trip_at_a_time(served, monkeypatch):
    srv, cluster = served({})
    full = captured_job()

    real_sleep, me = time.sleep, threading.current_thread()

    def sleep(s):  # the history server loads the .jhist file during the first pause
        # time.sleep is patched for the whole worker process: a thread left by another test that
        # sleeps now must neither load the job early (one call, not two) nor lose its pause.
        if threading.current_thread() is not me:
            return real_sleep(s)
        srv.resources.update(full)

    monkeypatch.setattr(execute.time, "sleep", sleep)
    samples = execute.job_detail_samples(cluster, "wordcount", "wordcount", CLIENT_LOG)
    assert len(cluster.calls) == 2 and samples
    # The first try stopped at the job's 404: counters and tasks were not asked for.
    assert srv.hits[0] == PATH and srv.hits[1] == PATH


@needs_curl
def test_a_missing_resource_is_named_with_its_http_status(served):
    resources = captured_job()
    gone = f"{PATH}/tasks/{task_id('m', 2)}/attempts"
    del resources[gone]
    _, cluster = served(resources)
    with pytest.raises(
        JobFailed,
        match=rf"JobHistory has no /tasks/{task_id('m', 2)}/attempts for {JOB} "
        rf"\(HTTP 404 from http://\S+{gone}\)",
    ):
        execute.job_detail_samples(cluster, "wordcount", "wordcount", CLIENT_LOG)
    assert len(cluster.calls) == 1


@needs_curl
def test_a_history_server_that_does_not_answer_is_said_so(served, monkeypatch):
    srv, cluster = served({})
    srv.close()  # nothing listens on its port any more
    monkeypatch.setattr(execute.time, "sleep", lambda _s: None)
    with pytest.raises(JobFailed, match=rf"JobHistory has no record for {JOB} \(no answer from http://"):
        execute.job_detail_samples(cluster, "wordcount", "wordcount", CLIENT_LOG)
    assert len(cluster.calls) == 10  # _retry's tries, one round trip each


# -- the pure parts -------------------------------------------------------------------------
def stream(resources: dict[str, str], statuses: dict[str, int] | None = None) -> str:
    """What the remote script prints: each body, then curl's trailer line."""
    statuses = statuses or {}
    return "".join(
        f"{body}\n{history_fetch.MARKER} {statuses.get(p, 200):03d} http://master:19888{p}\n"
        for p, body in resources.items()
    )


def test_split_stream_gives_back_each_resource_by_its_suffix():
    resources = captured_job()
    split = history_fetch.split_stream(stream(resources), JOB)
    assert {s: r.body for s, r in split.items()} == {p[len(PATH) :]: b.strip() for p, b in resources.items()}
    assert {r.status for r in split.values()} == {200}
    # Another job's resources (an id this one's is a prefix of) are not taken for this job's.
    assert history_fetch.split_stream(stream({PATH + "0/counters": "{}"}), JOB) == {}


def test_parsed_from_the_stream_equals_parsed_resource_by_resource():
    resources = captured_job()
    split = history_fetch.split_stream(stream(resources), JOB)
    detail = history_fetch.parse_detail(split, JOB)
    assert history_fetch.parse_job(split, JOB) == history.parse_job(resources[PATH])
    assert detail.counters == history.parse_counters(resources[f"{PATH}/counters"])
    want = []
    for t in history.parse_task_ids(resources[f"{PATH}/tasks"]):
        want += history.parse_attempts(resources[f"{PATH}/tasks/{t}/attempts"])
    assert detail.attempts == want and len(want) == MAPS + REDUCES + 2


def test_pretty_printed_json_and_a_body_ending_in_a_newline_split_alike():
    pretty = (DATA / "jh_attempts_failed.json").read_text()  # several lines, ends with a newline
    split = history_fetch.split_stream(stream({f"{PATH}/tasks/t/attempts": pretty}), JOB)
    assert history.parse_attempts(split["/tasks/t/attempts"].body) == history.parse_attempts(pretty)


def test_errors_say_which_resource_and_why():
    split = history_fetch.split_stream(
        stream({PATH: "", f"{PATH}/counters": ""}, {PATH: 0, f"{PATH}/counters": 404}), JOB
    )
    with pytest.raises(JobFailed, match=rf"^JobHistory has no record for {JOB} \(no answer from http://master"):
        history_fetch.parse_job(split, JOB)
    with pytest.raises(JobFailed, match=rf"^JobHistory has no /counters for {JOB} \(HTTP 404 from "):
        history_fetch.body(split, "/counters", JOB)
    with pytest.raises(
        JobFailed, match=rf"^JobHistory has no /tasks for {JOB} \(not fetched: the fetch stopped before it\)$"
    ):
        history_fetch.body(split, "/tasks", JOB)


def test_the_command_quotes_what_it_is_given():
    line = history_fetch.fetch_command("master", JOB)
    assert line.startswith("sh -c '") and f"base=http://master:{JHS_HTTP_PORT}{PATH}\n" in line
    odd = history_fetch.fetch_script("http://m:1/jobs/x'; rm -rf /; '")
    assert "base='http://m:1/jobs/x'\"'\"'; rm -rf /; '\"'\"''" in odd

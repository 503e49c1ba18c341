"""HDFS file operations over the NameNode's WebHDFS REST API, by curl on the master. Pure builders
and parsers.

Why not `hdfs dfs`: every FsShell call is a JVM started on the master, 3-5 s on this 2-core
machine, and a TeraSort run made three of them (is the reused input there, how large is the
output, remove the run's directory) around a job of 15-25 s (issue #51: runs per hour are
precision). A curl answers in milliseconds. The NameNode serves WebHDFS on its HTTP port by
default (`dfs.webhdfs.enabled`); with simple authentication `user.name` says who acts, the user
the daemons run as, so a removal has the rights `hdfs dfs -rm` had.
"""

from __future__ import annotations

import fnmatch
import json
import shlex
import urllib.parse
from dataclasses import asdict, dataclass

from vbench.hadoop.config import NAMENODE_HTTP_PORT

#: Bounds one WebHDFS call; a recursive delete of a run's directory takes well under a second.
MAX_TIME_S = 60
#: What curl prints after the body, so a caller tells "absent" (404) from "not answered" (000).
STATUS_MARK = "\nhttp_status="


@dataclass(frozen=True)
class FileEntry:
    name: str
    length: int
    is_dir: bool


def url(master: str, path: str, op: str, user: str, **params: str) -> str:
    """The WebHDFS URL of `op` on `path`. Pure."""
    if not path.startswith("/"):
        raise ValueError(f"WebHDFS needs an absolute HDFS path, got {path!r}")
    query = urllib.parse.urlencode({"op": op, "user.name": user, **params})
    return f"http://{master}:{NAMENODE_HTTP_PORT}/webhdfs/v1{urllib.parse.quote(path)}?{query}"


def curl_line(method: str, target: str) -> str:
    """A curl command line that prints the body, then the HTTP status after STATUS_MARK. Pure."""
    write_out = STATUS_MARK.replace("\n", "\\n") + "%{http_code}"
    return shlex.join(["curl", "-s", "--max-time", str(MAX_TIME_S), "-X", method, "-w", write_out, target])


def split_status(stdout: str) -> tuple[str, int]:
    """(body, HTTP status) of what curl_line printed; status 0 when curl printed none. Pure."""
    body, mark, status = stdout.rpartition(STATUS_MARK)
    if not mark:
        return stdout, 0
    try:
        return body, int(status.strip())
    except ValueError:
        return body, 0


def parse_listing(body: str) -> list[FileEntry]:
    """A LISTSTATUS answer's entries. Pure; raises ValueError on anything but a listing."""
    doc = json.loads(body)
    statuses = doc["FileStatuses"]["FileStatus"]
    return [FileEntry(s["pathSuffix"], int(s["length"]), s["type"] == "DIRECTORY") for s in statuses]


def listing_text(entries: list[FileEntry]) -> str:
    """A listing as a step's output text (JSON), which `listing_from_text` reads back. Pure."""
    return json.dumps([asdict(e) for e in entries])


def listing_from_text(text: str) -> list[FileEntry]:
    """The entries `listing_text` wrote. Pure; raises ValueError on anything else."""
    try:
        return [FileEntry(str(d["name"]), int(d["length"]), bool(d["is_dir"])) for d in json.loads(text)]
    except (TypeError, KeyError) as exc:
        raise ValueError(f"not a listing: {text[:120]!r}") from exc


def total_length(entries: list[FileEntry], pattern: str) -> int:
    """The total size of the files whose names match the glob `pattern`. Pure."""
    return sum(e.length for e in entries if not e.is_dir and fnmatch.fnmatchcase(e.name, pattern))


def parse_boolean(body: str) -> bool:
    """A DELETE answer, `{"boolean": true}`. Pure; raises ValueError on anything else."""
    value = json.loads(body).get("boolean")
    if not isinstance(value, bool):
        raise ValueError(f"not a WebHDFS boolean answer: {body[:120]!r}")
    return value

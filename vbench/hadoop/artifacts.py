"""Apache Hadoop's published jars, assembled with Maven into a cache outside the repository.

Maven Central has no binary tarball, so the daemons run as `java -cp conf:lib/* <main>` over
the jars that `dependency:copy-dependencies` collects from a generated POM.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from vbench.cache import default_cache_dir
from vbench.errors import VbenchError
from vbench.path_below import PathBelow

#: (artifactId, classifier) of what a cluster and the benchmark suite need. Beyond the obvious:
#: hadoop-hdfs:tests carries webapps/ that NameNode and DataNode die without; the timeline
#: service is loaded by the ResourceManager; hadoop-common:tests and junit are needed by
#: MapredTestDriver; jobclient:tests holds TestDFSIO, NNBench and MRBench.
HADOOP_ARTIFACTS: tuple[tuple[str, str | None], ...] = (
    ("hadoop-common", None),
    ("hadoop-common", "tests"),
    ("hadoop-hdfs", None),
    ("hadoop-hdfs", "tests"),
    ("hadoop-hdfs-client", None),
    ("hadoop-yarn-client", None),
    ("hadoop-yarn-server-resourcemanager", None),
    ("hadoop-yarn-server-nodemanager", None),
    ("hadoop-yarn-server-timelineservice", None),
    ("hadoop-mapreduce-client-app", None),
    ("hadoop-mapreduce-client-hs", None),
    ("hadoop-mapreduce-client-shuffle", None),
    ("hadoop-mapreduce-client-jobclient", None),
    ("hadoop-mapreduce-client-jobclient", "tests"),
)
JUNIT = ("junit", "junit", "4.13.2")
#: How long Maven may take to fetch the jars (~100 MB and Maven's own plugins on a first run,
#: minutes on a slow link) before it is taken to be stalled; VBENCH_MVN_TIMEOUT_S overrides it.
MVN_TIMEOUT_S = 20 * 60
_TARBALL_LOCK = threading.Lock()


def dependencies(version: str, examples_version: str) -> list[tuple[str, str, str, str | None]]:
    """(groupId, artifactId, version, classifier) of every jar a Hadoop `version` cluster needs."""
    deps = [("org.apache.hadoop", a, version, c) for a, c in HADOOP_ARTIFACTS]
    deps.append(("org.apache.hadoop", "hadoop-mapreduce-examples", examples_version, None))
    deps.append((*JUNIT, None))
    return deps


def coordinates(version: str, examples_version: str) -> list[str]:
    """The dependencies as Maven writes them in its output: g:a:v, or g:a:jar:classifier:v."""
    return [f"{g}:{a}:jar:{c}:{v}" if c else f"{g}:{a}:{v}" for g, a, v, c in dependencies(version, examples_version)]


def render_pom(version: str, examples_version: str) -> str:
    """A POM whose dependencies are exactly the jars a Hadoop `version` cluster needs."""
    deps = dependencies(version, examples_version)
    body = "\n".join(
        "    <dependency><groupId>{}</groupId><artifactId>{}</artifactId><version>{}</version>{}</dependency>".format(
            escape(g), escape(a), escape(v), f"<classifier>{escape(c)}</classifier>" if c else ""
        )
        for g, a, v, c in deps
    )
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>vbench</groupId>
  <artifactId>hadoop-{escape(version)}-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
{body}
  </dependencies>
</project>
"""


@dataclass(frozen=True)
class HadoopDist:
    """An assembled Hadoop: `lib/` holds every jar; `manifest` names them, for provenance."""

    version: str
    home: Path

    lib = PathBelow[Path]("home", "lib")
    marker = PathBelow[Path]("home", "COMPLETE")

    def jars(self) -> list[str]:
        return sorted(p.name for p in self.lib.glob("*.jar"))

    def jar(self, artifact: str, tests: bool = False) -> Path:
        """The jar of `artifact` (e.g. 'hadoop-mapreduce-examples'), or its `tests` classifier."""
        pattern = f"{artifact}-[0-9]*-tests.jar" if tests else f"{artifact}-[0-9]*[0-9].jar"
        hits = sorted(self.lib.glob(pattern))
        if len(hits) != 1:
            raise VbenchError(f"expected one jar {pattern} in {self.lib}, found {[h.name for h in hits]}")
        return hits[0]

    def tarball(self) -> Path:
        """lib/ as one uncompressed tar (jars are already compressed), made once, for pushing to hosts."""
        path = self.home / "lib.tar"
        with _TARBALL_LOCK:  # install() pushes to several hosts at once; make it once
            if not path.exists():
                tmp = path.with_suffix(f".tmp{os.getpid()}")
                subprocess.run(["tar", "-cf", str(tmp), "-C", str(self.home), "lib"], check=True)
                tmp.replace(path)
        return path


def dist_for(version: str, examples_version: str, cache: Path | None = None) -> HadoopDist:
    pom_hash = hashlib.sha256(render_pom(version, examples_version).encode()).hexdigest()[:12]
    return HadoopDist(version=version, home=(cache or default_cache_dir()) / "hadoop" / f"{version}-{pom_hash}")


def mvn_timeout_s() -> float:
    """How long Maven may take: MVN_TIMEOUT_S, or VBENCH_MVN_TIMEOUT_S when set."""
    text = os.environ.get("VBENCH_MVN_TIMEOUT_S", "").strip()
    if not text:
        return MVN_TIMEOUT_S
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise VbenchError(f"VBENCH_MVN_TIMEOUT_S: expected a positive number of seconds, got {text!r}")
    return value


def mvn_log(dist: HadoopDist) -> Path:
    """Where Maven's output of the last fetch of `dist` is kept (beside it in the cache)."""
    return dist.home.with_name(f"{dist.home.name}.mvn.log")


def fetch(
    version: str, examples_version: str, cache: Path | None = None, log=print, timeout_s: float | None = None
) -> HadoopDist:
    """Assemble Hadoop `version` into the cache (idempotent: a complete one is reused).

    Maven is stopped after `timeout_s` (default `mvn_timeout_s()`): a stalled download would
    otherwise hang a cluster's setup for good."""
    dist = dist_for(version, examples_version, cache)
    if dist.marker.exists():
        return dist
    if shutil.which("mvn") is None:
        raise VbenchError("Maven (mvn) is not installed; run the README's setup command")
    timeout_s = mvn_timeout_s() if timeout_s is None else timeout_s
    log(f"fetching Apache Hadoop {version} from Maven Central into {dist.home} ...")
    t0 = time.monotonic()
    dist.home.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dist.home.parent) as tmp:
        staging = Path(tmp)
        (staging / "pom.xml").write_text(render_pom(version, examples_version))
        # --strict-checksums: a jar whose checksum does not match fails the fetch (Maven's
        # default only warns, and the jars run as root on every host).
        argv = [
            "mvn",
            "-B",
            "-q",
            "--strict-checksums",
            "-f",
            str(staging / "pom.xml"),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={staging / 'lib'}",
            "-DincludeScope=runtime",
        ]
        code = _run_logged(argv, mvn_log(dist), timeout_s)
        if code is None:
            raise VbenchError(
                f"Maven did not finish in {timeout_s:g} s fetching Hadoop {version}: "
                f"{', '.join(coordinates(version, examples_version))}. "
                f"Its log: {mvn_log(dist)}; its last lines:\n{_tail(mvn_log(dist))}"
            )
        if code != 0:
            raise VbenchError(
                f"Maven could not fetch Hadoop {version} (exit {code}); its log: {mvn_log(dist)}; "
                f"its last lines:\n{_tail(mvn_log(dist))}"
            )
        (staging / "pom.xml").rename(staging / "lib" / "vbench-runtime.pom")
        if dist.home.exists():
            shutil.rmtree(dist.home)
        dist.home.mkdir(parents=True)
        (staging / "lib").rename(dist.lib)
    dist.marker.write_text("\n".join(dist.jars()) + "\n")
    log(f"Hadoop {version}: {len(dist.jars())} jars in {time.monotonic() - t0:.0f} s")
    return dist


def _run_logged(argv: list[str], log_path: Path, timeout_s: float) -> int | None:
    """Run `argv` with its output in `log_path`; its exit code, or None if it ran out of time.

    The output goes to a file, not a pipe: a child left holding a pipe (Maven's JVM) would keep
    a reader waiting past the limit. Its own session lets every process of it be stopped."""
    with open(log_path, "w") as out:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            return proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _stop_group(proc)
            return None
        except BaseException:
            # Ctrl-C: in a session of its own, Maven does not get the terminal's SIGINT.
            _stop_group(proc)
            raise


def _stop_group(proc: subprocess.Popen, grace_s: float = 5.0) -> None:
    """SIGTERM to every process of `proc`'s session, SIGKILL to what is left after `grace_s`."""
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    _signal_group(proc.pid, signal.SIGKILL)
    proc.wait()


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass  # every process of the group has exited


def _tail(path: Path, lines: int = 15) -> str:
    return "\n".join(path.read_text(errors="replace").strip().splitlines()[-lines:])

"""The page cache before a run: dropped on every host when the design says so (`drop_caches`),
and what was done recorded on every sample the runner stores (`page_cache`):

- `kept`: the design did not ask (micro cells are never preceded by a drop);
- `dropped`: every host dropped it;
- `not-permitted`: no host could (a container without write access to /proc/sys);
- `partly-dropped`: some hosts could not; `page_cache_kept_on` names them.

Hosts that share the kernel (namespaces, containers) share one page cache, so one host's drop
empties it for all of them; the record still says which hosts refused.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from vbench.host import Host

KEPT, DROPPED, NOT_PERMITTED, PARTLY = "kept", "dropped", "not-permitted", "partly-dropped"


def drop_caches_line() -> str:
    # A host without write access to /proc/sys says so instead of failing the run.
    return "sync && (echo 3 > /proc/sys/vm/drop_caches) 2>/dev/null && echo dropped || echo not-permitted"


def kept() -> dict[str, str]:
    return {"page_cache": KEPT}


def page_cache_stamp(answers: Mapping[str, str]) -> dict[str, str]:
    """host -> what `drop_caches_line` printed there, as the stamp of the run that follows. Pure."""
    refused = sorted(h for h, out in answers.items() if out.strip() != DROPPED)
    if not refused:
        return {"page_cache": DROPPED}
    if len(refused) == len(answers):
        return {"page_cache": NOT_PERMITTED}
    return {"page_cache": PARTLY, "page_cache_kept_on": ",".join(refused)}


def drop_page_cache(hosts: Sequence[Host], sh: Callable[[Host, str], Any]) -> dict[str, str]:
    """Drop the page cache on every host (through `sh`, e.g. HadoopCluster.sh); the stamp."""
    return page_cache_stamp({h.name: sh(h, drop_caches_line()).stdout for h in hosts})

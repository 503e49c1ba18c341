"""What was done about the page cache is recorded, host by host, never assumed."""

from types import SimpleNamespace

from vbench.campaign.pagecache import drop_caches_line, drop_page_cache, kept, page_cache_stamp


def test_every_host_dropped():
    assert page_cache_stamp({"master": "dropped\n", "worker1": "dropped"}) == {"page_cache": "dropped"}


def test_no_host_could():
    assert page_cache_stamp({"master": "not-permitted\n", "worker1": "not-permitted"}) == {
        "page_cache": "not-permitted"
    }


def test_some_hosts_could_not_and_are_named():
    got = page_cache_stamp({"master": "dropped", "worker2": "not-permitted", "worker1": ""})
    assert got == {"page_cache": "partly-dropped", "page_cache_kept_on": "worker1,worker2"}


def test_not_asked_is_kept():
    assert kept() == {"page_cache": "kept"}


def test_the_line_runs_on_every_host_and_its_answers_decide():
    asked = []

    def sh(host, line):
        asked.append((host.name, line))
        return SimpleNamespace(stdout="not-permitted\n" if host.name == "c1" else "dropped\n")

    hosts = [SimpleNamespace(name="m"), SimpleNamespace(name="c1")]
    assert drop_page_cache(hosts, sh) == {"page_cache": "partly-dropped", "page_cache_kept_on": "c1"}
    assert asked == [("m", drop_caches_line()), ("c1", drop_caches_line())]
    # The write is guarded: a host that may not write /proc/sys answers, it does not fail.
    assert "2>/dev/null" in drop_caches_line() and drop_caches_line().endswith("|| echo not-permitted")

"""Failure records say why in one line."""

from vbench.campaign.measure import default_iperf_pairs, failure_reason
from vbench.errors import JobFailed


def test_reason_is_the_tools_last_words_not_the_command_line():
    exc = JobFailed(
        'hdparm: command exited 1: wd=/x; dev=$(findmnt ...); hdparm -t "$dev"\n/dev/vda: Operation not permitted'
    )
    assert failure_reason(exc) == "hdparm: exit 1: /dev/vda: Operation not permitted"


def test_reason_of_a_parse_failure_is_its_first_line():
    assert failure_reason(JobFailed("fio: no JSON in output\nstderr tail")) == "fio: no JSON in output"


def test_iperf_pairs_form_a_ring():
    class H:
        def __init__(self, name):
            self.name = name

    a, b, c = H("a"), H("b"), H("c")
    assert [(x.name, y.name) for x, y in default_iperf_pairs([a, b, c])] == [("a", "b"), ("b", "c"), ("c", "a")]
    assert [(x.name, y.name) for x, y in default_iperf_pairs([a, b])] == [("a", "b")]
    assert default_iperf_pairs([a]) == []

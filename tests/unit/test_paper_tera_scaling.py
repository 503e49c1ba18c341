"""VMware's Table 4 (dataset scaling) from a design that also varies replication: before, any
size key carrying a factor was dropped, so vmware2015's 16/48/160 MB cells left the table empty."""

from __future__ import annotations

from vbench.paper.tables.terasort import scaling_sizes

R1 = "replication=1, output_replication=1"
R3 = "replication=3, output_replication=3"


def test_plain_sizes_come_first():
    assert scaling_sizes(["16MB", "64MB", f"16MB, {R1}"]) == (["16MB", "64MB"], "")


def test_a_series_of_one_factor_combination_the_study_s_replication_on_a_tie():
    sizes = [f"{s}MB, {r}" for s in (16, 48, 160) for r in (R1, R3)]
    assert scaling_sizes(sizes) == ([f"16MB, {R3}", f"48MB, {R3}", f"160MB, {R3}"], R3)


def test_no_series_of_two_sizes_is_no_table():
    assert scaling_sizes(["16MB", f"16MB, {R1}", f"32MB, {R3}"]) == ([], "")
    assert scaling_sizes([]) == ([], "")

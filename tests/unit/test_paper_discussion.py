"""The discussion's generated sentences (vbench.paper.discussion): each count is the statistics
table's own verdicts, counted; the texts on small planted tables."""

from __future__ import annotations

import pandas as pd

from vbench.paper import discussion as D
from vbench.paper.fmt import sig_digits
from vbench.paper.results import lookup_of
from vbench.stats.paired import FIELLER, PAIRED_T


def _row(experiment, platform, benchmark, metric, statistic, method, est, low, high, **kw):
    row = {
        "experiment": experiment,
        "platform": platform,
        "benchmark": benchmark,
        "metric": metric,
        "unit": "s",
        "size": "128MB",
        "statistic": statistic,
        "method": method,
        "estimate": est,
        "ci_low": low,
        "ci_high": high,
        "n": 8,
        "baseline": "native",
        "n_baseline": 8,
        "n_pairs": 4,
        "p_value": None,
        "p_adjusted": None,
        "verdict": "",
        "preferred": True,
        "note": "",
    }
    return {**row, **kw}


def _ratio(experiment, platform, metric, est, low, high, p_adjusted, benchmark="terasort", method=PAIRED_T):
    return _row(
        experiment, platform, benchmark, metric, "ratio_to_baseline", method, est, low, high, p_value=p_adjusted,
        p_adjusted=p_adjusted,
    )  # fmt: skip


def _equivalent(experiment, platform, metric, p_adjusted, benchmark="terasort"):
    return _row(
        experiment, platform, benchmark, metric, "equivalence", PAIRED_T, 1.0, 0.98, 1.02, p_value=p_adjusted,
        p_adjusted=p_adjusted,
    )  # fmt: skip


def test_the_tally_counts_the_tables_verdicts_for_the_containers_only():
    stats = pd.DataFrame(
        [
            _ratio("platforms", "lxc", "terasort_time", 1.30, 1.20, 1.40, 0.01),  # differs
            _ratio("platforms", "lxc", "teragen_time", 1.00, 0.99, 1.01, 0.9),  # shown near native
            _equivalent("platforms", "lxc", "teragen_time", 0.01),
            _ratio("platforms", "lxc", "teravalidate_time", 1.00, 0.80, 1.25, 0.9),  # neither
            _ratio("platforms@x", "oci", "write_throughput", 0.50, 0.40, 0.60, 0.001, benchmark="dfsio"),
            _ratio("platforms@x", "oci", "read_throughput", 0.50, 0.40, 0.60, 0.001, benchmark="dfsio"),
            _ratio("platforms", "lxc", "job_wall_time", 2.0, 1.5, 2.5, None, benchmark="pi", method=FIELLER),
            _ratio("platforms", "native~aa", "terasort_time", 1.3, 1.2, 1.4, 0.01),  # not a container
            _ratio("platforms", "qemu", "terasort_time", 9.0, 8.0, 10.0, 0.001),  # not a container
        ]
    )
    t = D.container_tally(lookup_of(stats), "native", 5.0)
    assert (t.platforms, t.compared, t.differ, t.equivalent, t.neither) == (("lxc", "oci"), 5, 3, 1, 1)
    assert t.differ_by_benchmark == (("dfsio", 2), ("terasort", 1))
    assert D.tally_sentence(t, "native", "5") == (
        "Across the campaigns, LXC and OCI were compared with native hosts, paired by block, on 5 metrics "
        "and cells: 3 differed after Holm's correction (2 in TestDFSIO and 1 in TeraSort), 1 was shown "
        r"within $\pm$5\,\% of native hosts, and the other 1 was neither."
    )
    lxc = D.container_tally(lookup_of(stats), "native", 5.0, platforms=("lxc",))
    assert D.tally_sentence(lxc, "native", "5").startswith("Across the campaigns, LXC was compared")
    none = D.container_tally(lookup_of(stats.iloc[0:0]), "native", 5.0)
    assert none.compared == 0 and D.tally_sentence(none, "native", "5") == ""


def test_the_aa_sentence_sets_the_failures_beside_what_chance_lets_through():
    def aa(metric, low, high):
        return _row("platforms", "native~aa", "terasort", metric, "aa_check", PAIRED_T, 1.0, low, high)

    stats = pd.DataFrame(
        [aa("a", 0.9, 1.1), aa("b", 0.95, 1.05), aa("c", 1.01, 1.2), aa("d", 0.8, 1.3), aa("e", None, None)]
    )
    assert D.aa_sentence(lookup_of(stats), "native", 0.95) == (
        "Native hosts measured again as a configuration of their own differed from themselves (an interval "
        r"excluding 1) on 1 of 4 metrics, about the 0.2 that 95\,\% intervals let through by chance."
    )
    assert D.aa_sentence(lookup_of(stats.iloc[0:0]), "native", 0.95) == ""
    assert [D.expected_by_chance(n, 0.95) for n in (39, 20, 10, 4)] == ["2", "1", "0.5", "0.2"]


def _campaign(experiment, est, low, high, p_adjusted, pairs):
    common = ("terasort", "terasort_time")
    means = [_row(experiment, p, *common, "mean", "t", 20.0, 19.0, 21.0, baseline="") for p in ("native", "lxc")]
    ratio = _ratio(experiment, "lxc", "terasort_time", est, low, high, p_adjusted)
    return [*means, {**ratio, "n_pairs": pairs}]


def test_the_spread_says_how_far_apart_the_campaigns_landed():
    stats = pd.DataFrame(
        _campaign("platforms", 0.969, 0.913, 1.027, 0.9, 4)
        + _campaign("platforms@a", 1.009, 0.971, 1.049, 0.9, 16)
        + _campaign("platforms@b", 0.956, 0.927, 0.987, 0.2, 10)  # excludes 1, not after Holm
        + _campaign("platforms@c", 0.857, 0.732, 1.004, 0.9, 10)
    )
    said = D.spread_sentence(lookup_of(stats), "lxc", "native")
    assert said == (
        rf"The 4 campaigns that compared LXC with native hosts on TeraSort gave ratios from \num{{{sig_digits(0.857)}}}"
        rf" to \num{{{sig_digits(1.009)}}}; 1 of their 4 intervals excluded 1, and none differed after Holm's correction."
    )
    differs = pd.DataFrame(
        _campaign("platforms", 1.3, 1.2, 1.4, 0.01, 4) + _campaign("platforms@a", 1.0, 0.9, 1.1, 0.9, 4)
    )
    assert D.spread_sentence(lookup_of(differs), "lxc", "native").endswith(
        "; 1 of their 2 intervals excluded 1, and 1 of 2 differed after Holm's correction."
    )
    assert (
        D.spread_sentence(lookup_of(pd.DataFrame(_campaign("platforms", 1.0, 0.9, 1.1, 0.9, 4))), "lxc", "native") == ""
    )
    assert D.spread_sentence(lookup_of(stats), "oci", "native") == ""


def test_a_quoted_ratio_says_what_holms_correction_made_of_it():
    def row(low, high, p_adjusted, method=PAIRED_T):
        return pd.Series({"estimate": 1.5, "ci_low": low, "ci_high": high, "p_adjusted": p_adjusted, "method": method})

    assert D.holm_clause(row(0.9, 1.8, 0.5)) == "its interval holds 1"
    assert D.holm_clause(row(1.16, 2.63, 0.2)) == (
        "its interval excludes 1, but not after Holm's correction over its campaign's comparisons"
    )
    assert D.holm_clause(row(1.16, 2.63, 0.01)).endswith(
        "and so does Holm's correction over its campaign's comparisons"
    )
    assert "not paired" in D.holm_clause(row(1.16, 2.63, None, FIELLER))
    assert D.holm_clause(None) == D.holm_clause(row(None, None, None)) == ""


def test_the_hypervisor_as_a_reader_writes_it():
    assert D.hypervisor_text(["kvm", "kvm ", "KVM"]) == "KVM"
    assert D.hypervisor_text(["kvm", "xen"]) == "KVM and Xen"
    assert D.hypervisor_text([]) == D.hypervisor_text(["none", ""]) == ""

"""The explore notebook's controls (vbench.explore.widgets) without a browser: what each change
reloads, and the parameters that fall back. The browser test (tests/integration/test_explore.py)
checks what JupyterLab shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from vbench.errors import ParamsError
from vbench.explore import widgets
from vbench.stats.campaign_stats import StatsConfig

DATA = Path(__file__).resolve().parents[2] / "data"


#: These tests are about what a change of control reloads, not about the numbers (test_explore_compare
#: checks those with the stage's settings): fewer bootstrap resamples, and no figure rendered.
QUICK = StatsConfig(n_resamples=199)


@pytest.fixture(autouse=True, scope="module")
def no_rendering():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(widgets.figures, "png", lambda fig: b"")
        yield


def explore(*args, **kw):
    return widgets.explore(*args, settings=QUICK, **kw)


@pytest.fixture(scope="module")
def explorer(no_rendering):
    return explore(DATA, "reference", "terasort", "terasort_time")


def test_the_parameters_become_the_controls_values(explorer):
    assert (explorer.campaign.value, explorer.benchmark.value, explorer.metric.value) == (
        "reference",
        "terasort",
        "terasort_time",
    )
    assert explorer.compare.options == ("platform",) and explorer.baseline.value == "native"
    # The A/A copy is a level of its own: its ratio to native is the campaign's false-positive check.
    assert [r.level for r in explorer.ratios] == ["lxc", "native~aa"] and explorer.notes == []
    assert explorer.run.value in {r for _, r in explorer.run.options}


def test_changing_the_metric_redraws_with_that_metric_s_ratio(explorer):
    before, drawn = explorer.ratios, explorer.redraws
    explorer.metric.value = "terasort.job_time"
    assert explorer.redraws == drawn + 1 and explorer.ratios != before
    explorer.metric.value = "terasort_time"
    assert explorer.ratios == before


def test_changing_the_campaign_refills_every_control():
    e = explore(DATA, "poll-interval", "terasort", "terasort_time")
    assert e.compare.options == ("client_poll_ms",) and e.baseline.value == "5000"
    e.campaign.value = "netmodes"
    assert e.compare.options == ("network.mode", "vms_per_host") and e.baseline.value == "bridge"
    assert e.benchmark.options == ("terasort",) and e.metric.value == "terasort_time"
    assert {r.level for r in e.ratios} == {"bridge+nat", "nat"}
    e.compare.value = "vms_per_host"
    assert e.baseline.options == ("1", "2") and {r.level for r in e.ratios} == {"2"}
    e.baseline.value = "2"
    assert {r.level for r in e.ratios} == {"1"}


def test_parameters_a_campaign_lacks_fall_back_with_a_note():
    e = explore(DATA, "monitoring", "dfsio", "nosuch", baseline="x", run_id="y")
    assert (e.benchmark.value, e.metric.value) == ("terasort", "terasort_time")
    assert e.run.value == e.run.options[0][1]
    joined = " | ".join(e.notes)
    for part in ("benchmark 'dfsio' is not in campaign monitoring", "metric 'nosuch'", "run 'y'", "baseline 'x'"):
        assert part in joined
    assert e.ratios == [] and e.statistics().problem == ""  # one level: nothing to compare


def test_the_first_run_with_a_timeline_is_shown_first():
    e = explore(DATA, "liu2012-terasort", "terasort", "terasort_time")
    assert e.run.value == "terasort-20261122T092623-47b599"


def test_an_unknown_campaign_is_refused_before_any_widget():
    with pytest.raises(ParamsError, match="campaign: .*nosuch holds no samples.jsonl"):
        explore(DATA, "nosuch", "terasort", "terasort_time")

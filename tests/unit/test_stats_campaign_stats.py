"""vbench.stats.campaign_stats: the campaign's statistics table, written once by the statistics
stage and read back by the paper only when it is the table of these samples and these settings."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from vbench.errors import ParamsError
from vbench.samples import Sample, append_records
from vbench.stats import format_table
from vbench.stats.campaign import load_campaign
from vbench.stats.campaign_stats import (
    STATS_CSV,
    STATS_META,
    StatsConfig,
    campaign_stats,
    concat_stats,
    read_campaign_stats,
    wanted_metric,
    write_campaign_stats,
)

CFG = StatsConfig(n_resamples=200)


def _campaign(d: Path, times=(10.0, 10.4, 9.8, 10.1), slower=1.2) -> Path:
    recs = []
    for rep, t in enumerate(times):
        for platform, factor in (("native", 1.0), ("lxc", slower)):
            meta = {
                "experiment": "platforms",
                "platform": platform,
                "repetition": rep,
                "size_mb": 16,
                "run_id": f"{platform}{rep}",
                "replication": 2,
            }
            recs += [
                Sample("terasort", "terasort_time", t * factor, "s", meta, timestamp=1000.0 + rep),
                Sample("terasort", "counter.terasort.x", 5.0, "count", meta, timestamp=1000.0 + rep),
            ]
    d.mkdir(parents=True)
    append_records(d / "samples.jsonl", recs)
    return d


def test_the_table_compares_the_wanted_metrics_with_the_cells_factors(tmp_path):
    table = campaign_stats(load_campaign(_campaign(tmp_path / "c")), CFG)
    assert set(table["metric"]) == {"terasort_time"}  # counters are left out
    ratio = table[(table["statistic"] == "ratio_to_baseline") & (table["method"] == "fieller")].iloc[0]
    assert (ratio["platform"], ratio["baseline"]) == ("lxc", "native") and ratio["estimate"] == pytest.approx(1.2)
    assert set(table["size_label"]) == {"16MB"} and set(table["replication"]) == {"2"}
    assert not wanted_metric("terasort.attempt.map_attempt_time") and wanted_metric(
        "terasort.attempt.reduce_merge_time"
    )


def test_written_and_read_back_the_table_is_the_same_table(tmp_path):
    raw = _campaign(tmp_path / "raw" / "c")
    table = campaign_stats(load_campaign(raw), CFG)
    out = tmp_path / "processed" / "c"
    write_campaign_stats(table, CFG, raw, out)
    back = read_campaign_stats(out, CFG, raw)
    pd.testing.assert_frame_equal(back, table)  # every column with its type (Int64, boolean, text)
    assert format_table(back) == (out / STATS_CSV).read_text() == format_table(table)
    meta = json.loads((out / STATS_META).read_text())
    assert meta["settings"]["n_resamples"] == 200 and set(meta["inputs"]) == {"samples.jsonl"}


def test_no_output_is_none_and_a_campaign_without_compared_metrics_reads_back_empty(tmp_path):
    raw = _campaign(tmp_path / "raw" / "c")
    assert read_campaign_stats(tmp_path / "nothing", CFG, raw) is None
    write_campaign_stats(pd.DataFrame(), CFG, raw, tmp_path / "empty")
    assert read_campaign_stats(tmp_path / "empty", CFG, raw).empty


def test_other_settings_or_other_samples_are_refused_naming_the_file(tmp_path):
    raw = _campaign(tmp_path / "raw" / "c")
    out = tmp_path / "processed" / "c"
    write_campaign_stats(campaign_stats(load_campaign(raw), CFG), CFG, raw, out)
    with pytest.raises(ParamsError) as err:
        read_campaign_stats(out, StatsConfig(n_resamples=999, seed=7), raw)
    assert err.value.field == str(out / STATS_META)
    assert "n_resamples=200 (asked: 999), seed=20141 (asked: 7)" in err.value.message
    append_records(
        raw / "samples.jsonl",
        [Sample("terasort", "terasort_time", 11.0, "s", {"platform": "native", "experiment": "platforms"})],
    )
    with pytest.raises(ParamsError, match=r"computed from another samples.jsonl than .* holds now; re-run"):
        read_campaign_stats(out, CFG, raw)
    (raw / "campaign.json").write_text("{}")  # a design that appeared since: another input too
    with pytest.raises(ParamsError, match="campaign.json and samples.jsonl"):
        read_campaign_stats(out, CFG, raw)
    (out / STATS_META).write_text("[]")
    with pytest.raises(ParamsError, match="not the statistics stage's record"):
        read_campaign_stats(out, CFG, raw)


def test_tables_of_several_campaigns_fill_a_factor_one_lacks_with_nothing():
    a = pd.DataFrame({"experiment": ["a"], "estimate": [1.0], "size_label": ["16MB"], "replication": ["2"]})
    b = pd.DataFrame({"experiment": ["b"], "estimate": [2.0], "size_label": [""], "vms_per_host": ["4"]})
    both = concat_stats([a, pd.DataFrame(), b])
    assert list(both.columns) == ["experiment", "estimate", "size_label", "replication", "vms_per_host"]
    assert both[["replication", "vms_per_host"]].values.tolist() == [["2", ""], ["", "4"]]
    assert concat_stats([pd.DataFrame()]).empty and concat_stats([a]) is a

"""Duet runs in the statistics (issue #51 item 1): a pair with one failed side is never half-counted
(vbench.stats.warmup), how together the sides ran (vbench.stats.duet), and the summary's line."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from vbench.report import summary as S
from vbench.report.text import markdown, terminal_lines
from vbench.samples import Sample, append_records
from vbench.stats.campaign import load_campaign
from vbench.stats.campaign_stats import StatsConfig, campaign_stats
from vbench.stats.duet import DuetSummary, duet_jobs, duet_steps, duet_summary
from vbench.stats.table import compute_stats
from vbench.stats.warmup import DUET_PARTNER_MISSING, apply_exclusions, duet_orphans, measured_samples

SIDES = ("native", "native~aa", "lxc")
VARIANT = "terasort[size_mb=128]"


def cell(block: int, rnd: int | str, platform: str) -> str:
    return f"b{block}/r{rnd}/{platform}/{VARIANT}" if rnd != "warmup" else f"b{block}/{platform}/{VARIANT}/warmup"


def duet_row(block, rnd, platform, value, *, metric="terasort_job_time", start_ms=0.0, finish_ms=None, **extra):
    """One sample of a duet run as the runner stamps it: its group, its partners' cells, its skew."""
    group = f"b{block}/r{rnd}" if rnd != "warmup" else f"b{block}/warmup"
    return {
        "experiment": "platforms",
        "platform": platform,
        "benchmark": "terasort",
        "metric": metric,
        "unit": "s",
        "value": value,
        "repetition": block * 10 + (0 if rnd == "warmup" else rnd),
        "size": "128MB",
        "block": block,
        "round": 0 if rnd == "warmup" else rnd,
        "warmup": rnd == "warmup",
        "step": metric.split("_")[0],
        "cell_id": cell(block, rnd, platform),
        "duet_group": group,
        "duet_partners": [cell(block, rnd, p) for p in SIDES if p != platform],
        "duet_cpus": "shared",
        "duet_release_skew_s": 0.02,
        "job_start_ms": start_ms,
        "job_finish_ms": start_ms + 1000 * value if finish_ms is None else finish_ms,
        **extra,
    }


def duet_frame(missing: set[tuple[int, int, str]] = frozenset(), blocks=3, rounds=2) -> pd.DataFrame:
    """Every side of every round (and each block's warm-up), TeraGen and TeraSort job times; the
    (block, round, platform) in `missing` measured no TeraSort (its side failed)."""
    rows = []
    for b in range(blocks):
        for rnd in ("warmup", *range(1, rounds + 1)):
            for i, p in enumerate(SIDES):
                rows.append(duet_row(b, rnd, p, 10.0 + i * 0.1, metric="teragen_job_time"))
                if (b, rnd, p) not in missing:
                    rows.append(duet_row(b, rnd, p, 30.0 + i + b * 0.5))
    return pd.DataFrame(rows)


# --- a pair with one failed side is never half-counted -------------------------------------------


def test_the_sides_of_a_duet_whose_partner_failed_are_excluded_with_the_reason():
    df = duet_frame(missing={(1, 2, "lxc")})
    kept, excluded, rule = apply_exclusions(df)
    orphans = excluded[excluded["exclusion_reason"] == DUET_PARTNER_MISSING]
    assert sorted(orphans["platform"]) == ["native", "native~aa"]
    assert set(orphans["cell_id"]) == {cell(1, 2, "native"), cell(1, 2, "native~aa")}
    assert set(orphans["metric"]) == {"terasort_job_time"}  # the failed side's TeraGen ran: its pair counts
    assert (excluded["exclusion_reason"] == "warmup=true").sum() == 3 * 3 * 2  # warm-ups keep their reason
    assert rule.whole_duets and "duet partner missing" in rule.describe()
    counts = kept[kept["metric"] == "terasort_job_time"].groupby("platform").size().to_dict()
    assert counts == {"lxc": 5, "native": 5, "native~aa": 5}  # whole rounds only


def test_a_partner_whose_only_value_was_a_warm_up_is_missing():
    df = duet_frame()
    # The round's lxc side marked warm-up (a warm-up block's run): it does not count, so its pair does not.
    df.loc[df["cell_id"] == cell(0, 1, "lxc"), "warmup"] = True
    _, excluded, _ = apply_exclusions(df)
    assert set(excluded.loc[excluded["exclusion_reason"] == DUET_PARTNER_MISSING, "cell_id"]) == {
        cell(0, 1, "native"),
        cell(0, 1, "native~aa"),
    }


def test_partners_read_as_the_campaign_frame_holds_them_json_text():
    df = duet_frame(missing={(2, 1, "native")})
    as_text = df.assign(duet_partners=df["duet_partners"].map(json.dumps))
    assert duet_orphans(as_text, pd.Series(True, index=df.index)).equals(
        duet_orphans(df, pd.Series(True, index=df.index))
    )


def test_an_event_only_one_side_had_is_kept_while_every_side_ran_the_job():
    """A killed attempt is recorded only where it happened: the partner without one did not fail."""
    df = duet_frame()
    killed = duet_row(0, 1, "lxc", 1.0, metric="terasort.attempt.map_attempt_unsuccessful", step="terasort")
    df = pd.concat([df, pd.DataFrame([killed])], ignore_index=True)
    _, excluded, _ = apply_exclusions(df)
    assert DUET_PARTNER_MISSING not in set(excluded["exclusion_reason"])
    # Once a partner's TeraSort failed, the event goes too: its job's pair does not count.
    gone = df[~((df["cell_id"] == cell(0, 1, "native")) & (df["metric"] == "terasort_job_time"))]
    _, excluded, _ = apply_exclusions(gone)
    assert killed["metric"] in set(excluded.loc[excluded["exclusion_reason"] == DUET_PARTNER_MISSING, "metric"])


def test_frames_without_duets_are_untouched():
    df = duet_frame(missing={(1, 2, "lxc")})
    plain = df.drop(columns=["duet_group", "duet_partners", "duet_cpus", "duet_release_skew_s"])
    kept, excluded, rule = apply_exclusions(plain)
    assert not rule.whole_duets and rule.describe() == "excluded rows with warmup=true"
    assert set(excluded["exclusion_reason"]) == {"warmup=true"} and len(kept) == len(plain) - len(excluded)
    # An empty duet_group column (a campaign measured before duets, merged beside one) is no duet.
    empty = plain.assign(duet_group=None, duet_partners=None)
    assert not apply_exclusions(empty)[2].whole_duets
    assert measured_samples(empty).equals(measured_samples(plain).assign(duet_group=None, duet_partners=None))


def test_measured_samples_drop_warm_ups_and_half_duets():
    df = duet_frame(missing={(0, 1, "native~aa")})
    measured = measured_samples(df)
    assert not measured["warmup"].any()
    tera = measured[measured["metric"] == "terasort_job_time"]
    assert len(tera) == 3 * 2 * 3 - 3 and cell(0, 1, "native") not in set(tera["cell_id"])


def test_the_statistics_count_whole_duets_only():
    df = duet_frame(missing={(1, 2, "lxc")})
    table = compute_stats(df, n_resamples=99)
    mean = table[(table["statistic"] == "mean") & (table["method"] == "t") & (table["metric"] == "terasort_job_time")]
    assert set(zip(mean["platform"], mean["n"])) == {("lxc", 5), ("native", 5), ("native~aa", 5)}
    excluded = table[(table["statistic"] == "excluded_runs") & (table["metric"] == "terasort_job_time")]
    assert (excluded["platform"] == "native").any() and "duet partner missing" in excluded["note"].iloc[0]


def _write_duet_campaign(d, missing=frozenset()):
    recs = []
    for r in duet_frame(missing=missing).to_dict("records"):
        meta = {k: v for k, v in r.items() if k not in ("benchmark", "metric", "unit", "value", "size")}
        meta["size_mb"] = 128
        recs.append(Sample(r["benchmark"], r["metric"], r["value"], r["unit"], meta, timestamp=1000.0))
    d.mkdir(parents=True)
    append_records(d / "samples.jsonl", recs)
    return d


def test_a_campaign_s_statistics_table_counts_whole_duets(tmp_path):
    campaign = load_campaign(_write_duet_campaign(tmp_path / "c", missing={(2, 1, "native")}))
    table = campaign_stats(campaign, StatsConfig(n_resamples=99))
    # The runs (method t); the `t_block_means` row counts the blocks they fall in.
    mean = table[(table["statistic"] == "mean") & (table["method"] == "t") & (table["metric"] == "terasort.job_time")]
    assert set(mean["n"]) == {5}


# --- how together the sides ran ----------------------------------------------------------------


def test_start_skew_and_overlap_of_one_duet():
    rows = [
        duet_row(0, 1, "native", 40.0, start_ms=1_000.0),  # 1.0 s to 41.0 s
        duet_row(0, 1, "native~aa", 38.0, start_ms=1_500.0),  # 1.5 s to 39.5 s
        duet_row(0, 1, "lxc", 42.0, start_ms=3_000.0, duet_release_skew_s=0.05),  # 3.0 s to 45.0 s
    ]
    (job,) = duet_jobs(pd.DataFrame(rows))
    assert job.group == "b0/r1" and job.step == "terasort" and job.complete
    assert job.sides == tuple(sorted(cell(0, 1, p) for p in SIDES))
    assert job.start_skew_s == pytest.approx(2.0)
    assert job.overlap_share == pytest.approx((39.5 - 3.0) / 42.0)  # all three at once, of the longest
    assert job.release_skew_s == pytest.approx(0.05)


def test_sides_that_never_ran_together_overlap_zero():
    rows = [duet_row(0, 1, "native", 10.0, start_ms=0.0), duet_row(0, 1, "lxc", 10.0, start_ms=20_000.0)]
    df = pd.DataFrame(rows).assign(duet_partners=[[cell(0, 1, "lxc")], [cell(0, 1, "native")]])
    (job,) = duet_jobs(df)
    assert job.overlap_share == 0.0 and job.start_skew_s == pytest.approx(20.0)


def test_the_campaign_summary_of_the_duets():
    df = duet_frame(missing={(1, 2, "lxc")})
    jobs = duet_jobs(df)
    assert duet_steps(jobs) == ["terasort", "teragen"]  # the quoted step first; warm-ups not counted
    s = duet_summary(jobs)
    assert (s.step, s.groups, s.sides, s.incomplete) == ("terasort", 5, 3, 1)
    assert s.median_skew_s == 0.0 and s.max_skew_s == 0.0
    assert s.median_overlap == pytest.approx(30.0 / 32.0, abs=0.02) and s.min_overlap <= s.median_overlap
    assert s.median_release_skew_s == pytest.approx(0.02)
    assert duet_summary(jobs, "teragen").groups == 6
    assert duet_summary(duet_jobs(df.drop(columns=["duet_group"]))) is None  # not a duet campaign


def test_duets_read_from_a_campaign_directory(tmp_path):
    campaign = load_campaign(_write_duet_campaign(tmp_path / "c"))
    s = duet_summary(duet_jobs(campaign.samples))  # step-qualified metrics, partners as JSON text
    assert (s.step, s.groups, s.sides, s.incomplete) == ("terasort", 6, 3, 0)


# --- the summary's line --------------------------------------------------------------------------


DUET = DuetSummary("terasort", 12, 3, 0.8, 2.1, 0.93, 0.80, 0.04, incomplete=1)


def _summary(**kw) -> S.CampaignSummary:
    fields = dict(
        campaign="c",
        path="data/raw/c",
        compare=("platform",),
        settings=S.Settings("native", 5.0, 9999, 20141, "computed now"),
        ratios=(),
        aa=(),
    )
    return S.CampaignSummary(**{**fields, **kw})


def test_the_duet_line_follows_the_quiet_gate_only_in_a_duet_campaign():
    lines = [line for line, _ in terminal_lines(_summary(duet=DUET))]
    gate = next(i for i, line in enumerate(lines) if line.startswith("Quiet gate:"))
    assert lines[gate + 1] == (
        "Duet: 12 groups of 3 sides; TeraSort jobs started within 0.8 s (median, max 2.1 s), ran together "
        "93 % of the longest (median, min 80 %); barrier released the sides within 0.04 s (median); "
        "1 group with a side that measured nothing left out"
    )
    assert "## Duet" in markdown(_summary(duet=DUET), figure=False)
    assert not any(line.startswith("Duet:") for line, _ in terminal_lines(_summary()))
    assert "## Duet" not in markdown(_summary(), figure=False)

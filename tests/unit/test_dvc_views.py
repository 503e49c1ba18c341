"""DVC's own views of the results: the metrics file (`dvc metrics show|diff`), the plot rows
(`dvc plots show`), and dvc.yaml declaring what the statistics stage writes."""

import json
import re
import sys
import types
from pathlib import Path

import pandas as pd
import pytest
import yaml

from vbench.stats import compute_stats
from vbench.stats.campaign_stats import STATS_FILE
from vbench.stats.dvc_views import (
    PLOT_COLUMNS,
    benchmark_key,
    headline_metrics,
    rounded,
    run_plot_rows,
    write_metrics,
    write_plot_rows,
)
from vbench.stats.headlines import quoted_headlines

from tests.unit.builders import KVM, NATIVE, samples_frame

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "data" / "raw" / "reference"
ENTRY_KEYS = ["ratio", "ci_low", "ci_high", "method", "n", "n_baseline", "n_pairs"]

LXC = [101.0, 102.3, 100.4, 101.9]


def _samples(groups, **kw):
    """Blocked samples of the platforms experiment: platform -> values."""
    return samples_frame(groups, experiment="platforms", blocks=True, **kw)


def _entries(metrics):
    """(flattened key, entry) for every comparison in a metrics dict."""
    for experiment, benchmarks in metrics.items():
        for bench, by_metric in benchmarks.items():
            for metric, comparisons in by_metric.items():
                for pair, entry in comparisons.items():
                    yield f"{experiment}.{bench}.{metric}.{pair}", entry


# --- the metrics file ---------------------------------------------------------------------------


def test_rounded_keeps_four_significant_digits_and_drops_what_json_cannot_hold():
    assert rounded(1.040025) == 1.04
    assert rounded(0.37936612) == 0.3794
    assert rounded(2.1220849) == 2.122
    assert rounded(123456.7) == 123500.0
    assert rounded(0.000123456) == 0.0001235
    assert rounded(float("nan")) is None and rounded(None) is None and rounded(pd.NA) is None
    assert rounded(float("inf")) is None


def test_headline_metrics_gives_ratio_interval_method_and_n_per_side():
    table = compute_stats(_samples({"native": NATIVE, "kvm": KVM}))
    metrics = headline_metrics(table)
    entry = metrics["platforms"]["terasort"]["job_time"]["kvm/native"]
    assert list(entry) == ENTRY_KEYS
    row = table[(table.statistic == "ratio_to_baseline") & (table.preferred == True)].iloc[0]  # noqa: E712
    assert entry["method"] == row.method
    assert entry["ratio"] == pytest.approx(row.estimate, rel=5e-4)
    assert entry["ci_low"] == pytest.approx(row.ci_low, rel=5e-4) and entry["ci_high"] == pytest.approx(
        row.ci_high, rel=5e-4
    )
    assert entry["ci_low"] < entry["ratio"] < entry["ci_high"]
    assert (entry["n"], entry["n_baseline"]) == (6, 6)
    for value in (entry["ratio"], entry["ci_low"], entry["ci_high"]):
        assert value == float(f"{value:.4g}")


def test_every_entry_has_the_same_keys_and_the_file_is_strict_json(tmp_path):
    # A comparison without a baseline still appears, with its numbers null rather than NaN.
    samples = pd.concat(
        [_samples({"native": NATIVE, "kvm": KVM}), _samples({"kvm": KVM}, benchmark="pi", metric="job_wall_time")]
    )
    metrics = headline_metrics(compute_stats(samples))
    entries = dict(_entries(metrics))
    assert set(entries) == {"platforms.terasort.job_time.kvm/native", "platforms.pi.job_wall_time.kvm/native"}
    assert all(list(e) == ENTRY_KEYS for e in entries.values())
    missing = entries["platforms.pi.job_wall_time.kvm/native"]
    assert missing["ratio"] is None and missing["ci_low"] is None and missing["n_baseline"] is None
    assert missing["method"] == "fieller" and missing["n"] == len(KVM)
    text = write_metrics(metrics, tmp_path / "m" / "c.json").read_text()
    assert json.loads(text) == metrics
    json.dumps(metrics, allow_nan=False)


def test_keys_and_numbers_are_stable_when_other_platforms_are_added():
    alone = headline_metrics(compute_stats(_samples({"native": NATIVE, "kvm": KVM})))
    more = headline_metrics(compute_stats(_samples({"native": NATIVE, "kvm": KVM, "lxc": LXC})))
    key = ("platforms", "terasort", "job_time")
    assert more[key[0]][key[1]][key[2]]["kvm/native"] == alone[key[0]][key[1]][key[2]]["kvm/native"]
    assert list(more[key[0]][key[1]][key[2]]) == ["kvm/native", "lxc/native"]


def test_the_cell_belongs_to_the_benchmark_key():
    assert benchmark_key("terasort", "32MB") == "terasort[32MB]"
    assert benchmark_key("dd", "") == "dd"
    table = compute_stats(_samples({"native": NATIVE, "kvm": KVM}, size="1GB"))
    assert list(headline_metrics(table)["platforms"]) == ["terasort[1GB]"]


def test_headlines_select_benchmark_metric_pairs():
    samples = pd.concat(
        [_samples({"native": NATIVE, "kvm": KVM}), _samples({"native": NATIVE, "kvm": KVM}, metric="map_time")]
    )
    table = compute_stats(samples)
    assert set(headline_metrics(table)["platforms"]["terasort"]) == {"job_time", "map_time"}
    kept = headline_metrics(table, {("terasort", "job_time")})
    assert set(kept["platforms"]["terasort"]) == {"job_time"}
    assert headline_metrics(table, {("pi", "job_time")}) == {}


def test_any_ratio_row_counts_so_an_a_a_comparison_appears_too():
    table = compute_stats(_samples({"native": NATIVE, "kvm": KVM}))
    ratio = table[table.statistic == "ratio_to_baseline"].copy()
    ratio["platform"] = "native"  # what an A/A row (the baseline against itself) would look like
    metrics = headline_metrics(pd.concat([table, ratio], ignore_index=True))
    assert set(metrics["platforms"]["terasort"]["job_time"]) == {"kvm/native", "native/native"}


def test_a_table_read_back_from_csv_gives_the_same_metrics(tmp_path):
    table = compute_stats(_samples({"native": NATIVE, "kvm": KVM}))
    table.to_csv(tmp_path / "stats.csv", index=False)
    again = pd.read_csv(tmp_path / "stats.csv", keep_default_na=False, na_values=[""])
    assert headline_metrics(again) == headline_metrics(table)


# --- the plot rows ------------------------------------------------------------------------------


def test_run_plot_rows_number_each_platforms_runs_in_the_order_they_ran(tmp_path):
    samples = _samples({"native": NATIVE[:3], "kvm": KVM[:3]})
    samples = samples.iloc[::-1].reset_index(drop=True)  # file order must not matter
    rows = run_plot_rows(samples)
    assert list(rows.columns) == PLOT_COLUMNS
    assert len(rows) == 6
    for platform, values in (("native", NATIVE[:3]), ("kvm", KVM[:3])):
        mine = rows[rows.platform == platform]
        assert mine["run"].tolist() == [1, 2, 3]
        assert mine["value"].tolist() == values
        assert mine["block"].tolist() == [0, 1, 2]
    assert set(rows["panel"]) == {"terasort job_time (s)"}
    text = write_plot_rows(rows, tmp_path / "p" / "c.csv").read_text()
    assert text.splitlines()[0] == ",".join(PLOT_COLUMNS)


def test_run_plot_rows_keep_only_headlines_and_name_cells_and_experiments():
    samples = pd.concat(
        [
            _samples({"native": NATIVE[:2]}, size="32MB"),
            _samples({"native": NATIVE[:2]}, metric="map_time", size="32MB"),
            _samples({"native": NATIVE[:2]}, benchmark="pi", metric="job_wall_time").assign(experiment="micro"),
        ]
    )
    rows = run_plot_rows(samples, {("terasort", "job_time"), ("pi", "job_wall_time")})
    assert set(rows["metric"]) == {"job_time", "job_wall_time"}
    assert set(rows["panel"]) == {"platforms: terasort[32MB] job_time (s)", "micro: pi job_wall_time (s)"}
    assert run_plot_rows(samples, {("sort", "sort_time")}).columns.tolist() == PLOT_COLUMNS


# --- the committed reference campaign through the real statistics stage -------------------------


@pytest.mark.skipif(not (REFERENCE / "samples.jsonl").exists(), reason="no committed reference campaign")
def test_reference_campaign_gives_headline_ratios_with_intervals_and_their_runs(tmp_path):
    from vbench import pipeline

    processed = tmp_path / "processed" / "reference"
    table = pipeline.statistics(REFERENCE, processed)
    metrics_path, plots_path = pipeline.dvc_views(
        REFERENCE, table, tmp_path / "metrics" / "reference.json", tmp_path / "plots" / "reference.csv"
    )
    metrics = json.loads(metrics_path.read_text())
    entries = dict(_entries(metrics))
    terasort = entries["platforms.terasort[128MB].terasort_time.lxc/native"]
    assert terasort["ci_low"] < terasort["ratio"] < terasort["ci_high"]
    # Its four blocks each ran every configuration: the interval is the paired one (vbench.stats.paired).
    assert terasort["method"] == "paired-t (blocks)" and terasort["n"] == terasort["n_baseline"] == 4
    assert terasort["n_pairs"] == 4
    # The A/A copy of native is compared like a platform: the campaign's own false-positive check.
    aa = entries["platforms.terasort[128MB].terasort_time.native~aa/native"]
    assert aa["ci_low"] < 1 < aa["ci_high"] and aa["n_pairs"] == 4
    assert all(key.split(".")[2] in {m for _, m in quoted_headlines()} for key in entries)
    assert all(list(e) == ENTRY_KEYS for e in entries.values())
    assert sum(e["ci_low"] is not None for e in entries.values()) >= len(entries) - 1

    rows = pd.read_csv(plots_path, keep_default_na=False)
    runs = rows[rows.metric == "terasort_time"]
    assert sorted(runs.platform.unique()) == ["lxc", "native", "native~aa"]
    assert runs.groupby("platform")["run"].apply(list).tolist() == [[1, 2, 3, 4]] * 3
    assert set(zip(rows.benchmark, rows.metric)) <= quoted_headlines()


# --- dvc.yaml declares what the stage writes ------------------------------------------------------


def _campaign() -> str:
    return yaml.safe_load((ROOT / "params" / "pipeline.yaml").read_text())["pipeline"]["analysis_campaign"]


def _resolved(text: str, campaign: str) -> str:
    return text.replace("${pipeline.analysis_campaign}", campaign)


def _declared(stage: dict, kind: str) -> dict[str, dict]:
    out = {}
    for item in stage.get(kind, []):
        path, props = next(iter(item.items())) if isinstance(item, dict) else (item, {})
        out[_resolved(path, _campaign())] = props or {}
    return out


def _statistics_stage() -> dict:
    return _stage("statistics")


def _stage(name: str) -> dict:
    return yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"][name]


def test_the_paper_stage_depends_on_the_table_it_reads_with_the_statistics_settings():
    from vbench.pipeline import processed_of

    campaign = _campaign()
    paper, statistics = _stage("paper"), _stage("statistics")
    deps = [_resolved(d, campaign) for d in paper["deps"]]
    read = processed_of(ROOT / "data" / "raw" / campaign) / STATS_FILE
    assert str(read.relative_to(ROOT)) in deps
    # ... inside the directory the statistics stage writes
    (out,) = [_resolved(o, campaign) for o in statistics["outs"]]
    assert read.relative_to(ROOT).is_relative_to(out)
    # The paper asks for the settings the table was computed with: the same params reach both notebooks.
    for setting in ("baseline", "resamples", "seed", "equivalence_pct"):
        flag = f"-p {setting} ${{pipeline.{setting}}}"
        assert flag in statistics["cmd"] and flag in paper["cmd"], setting


def _notebook_writes(monkeypatch, tmp_path, campaign: str) -> tuple[Path, Path]:
    """Runs the statistics notebook's code with the pipeline functions stubbed: the paths it hands
    to `dvc_views`."""
    return _notebook_calls(monkeypatch, tmp_path, campaign)["paths"]


def _notebook_calls(monkeypatch, tmp_path, campaign: str) -> dict:
    """Runs the statistics notebook's code with the pipeline functions stubbed: what it hands to
    `statistics` ("statistics": raw, out), `dvc_views` ("paths") and `predictions` ("predictions":
    raw, out, fit campaign), the parameters cell's defaults but `data_dir` and `campaign`."""
    import vbench

    seen = {}

    def dvc_views(raw, table, metrics_path, plots_path):
        seen["paths"] = (Path(metrics_path), Path(plots_path))
        (tmp_path / "m.json").write_text("{}")
        return tmp_path / "m.json", tmp_path / "p.csv"

    def statistics(raw, out, **kwargs):
        seen["statistics"] = (Path(raw), Path(out))
        return pd.DataFrame({"statistic": ["mean"]})

    def predictions(raw, out, fit_campaign):
        seen["predictions"] = (Path(raw), Path(out), fit_campaign)
        return pd.DataFrame({"skipped": ["stubbed"]})

    fake = types.SimpleNamespace(
        write_tidy=lambda raw, out: Path(out) / "samples.parquet",
        statistics=statistics,
        dvc_views=dvc_views,
        predictions=predictions,
    )
    monkeypatch.setattr(vbench, "pipeline", fake, raising=False)
    monkeypatch.setitem(sys.modules, "vbench.pipeline", fake)
    # The summary the notebook shows first (vbench.report) is not what this test reads.
    monkeypatch.setitem(sys.modules, "vbench.report.campaign", types.SimpleNamespace(stage_summary=lambda *a, **k: ()))
    nb = json.loads((ROOT / "notebooks" / "04-statistics.ipynb").read_text())
    scope = {"display": lambda *objs: None}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        exec("".join(cell["source"]), scope)  # noqa: S102 - the repository's own notebook
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            scope.update(data_dir="data", campaign=campaign)
    return seen


def test_dvc_yaml_declares_the_metrics_and_plots_the_statistics_stage_writes(monkeypatch, tmp_path):
    campaign = _campaign()
    stage = _statistics_stage()
    metrics, plots = _declared(stage, "metrics"), _declared(stage, "plots")
    metrics_path, plots_path = _notebook_writes(monkeypatch, tmp_path, campaign)
    assert str(metrics_path) in metrics and metrics[str(metrics_path)].get("cache") is False
    assert str(plots_path) in plots and plots[str(plots_path)].get("cache") is False


def test_dvc_plot_definition_names_columns_the_rows_have_and_a_template_that_exists():
    (props,) = _declared(_statistics_stage(), "plots").values()
    assert props["x"] in PLOT_COLUMNS and props["y"] in PLOT_COLUMNS
    template = json.loads((ROOT / ".dvc" / "plots" / f"{props['template']}.json").read_text())
    text = json.dumps(template)
    for anchor in ("<DVC_METRIC_DATA>", "<DVC_METRIC_X>", "<DVC_METRIC_Y>"):
        assert anchor in text
    fields = set(re.findall(r'"field": "([a-z_]+)"', text)) - {"rev"}
    assert fields <= set(PLOT_COLUMNS)


def test_declared_views_do_not_overlap_the_stages_directory_outputs():
    # DVC refuses an output inside another output.
    stage = _statistics_stage()
    outs = list(_declared(stage, "outs"))
    for path in [*_declared(stage, "metrics"), *_declared(stage, "plots")]:
        assert not any(Path(path).is_relative_to(Path(out)) for out in outs), (path, outs)

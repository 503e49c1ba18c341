"""`vbench predict --compare platform --where factor=level`: a campaign that ran every platform at two
levels of a factor (costs-containers-grouped-amd: each with and without testbed.cpu_group) read in
the configurations at one level, as the cost model reads one cell; and vbench.stats.cell_select's
parsing and selection. The synthetic worlds are test_predict_cmd's: a fit with known shares and
platforms with known costs, here a platform whose costs differ between the two levels."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.unit.builders import cli_runner
from tests.unit.test_predict_cmd import (
    BLOCKS,
    DRAWS,
    PLATFORMS,
    _run_samples,
    calibration_campaign,
    fit_campaign,
    platform_meta,
    true_ratio,
)
from vbench.errors import ParamsError
from vbench.samples import append_records
from vbench.stats import cell_select
from vbench.stats.tidy import add_cells

#: The factor's level -> the sandboxed platform's costs there: grouped, its round trip twice as dear.
GROUPED = {False: PLATFORMS["sandboxed"], True: {**PLATFORMS["sandboxed"], "round_trip": 14.6}}


def grouped_campaign(d, *, jobs: bool = False, seed: int = 300):
    """A campaign whose design compared `testbed.grouped` [false, true] on native and sandboxed (its
    baseline native's False), each configuration in every block, as costs-containers-grouped-amd ran."""
    d.mkdir(parents=True)
    design = {
        "compare": ["grouped"],
        "baseline": "False",
        "platforms": ["native", "sandboxed"],
        "factors": {"testbed.grouped": [False, True]},
    }
    (d / "campaign.json").write_text(json.dumps({"experiment": design}))
    rng = np.random.default_rng(seed)
    records = []
    for block in range(BLOCKS):
        for level, costs in GROUPED.items():
            for platform in ("native", "sandboxed"):
                meta = platform_meta(platform, block, f"g-{platform}-{level}-{block}", grouped=level)
                records += _run_samples(rng, meta, costs if platform == "sandboxed" else {}, jobs=jobs)
    append_records(d / "samples.jsonl", records)
    return d


@pytest.fixture
def data(tmp_path):
    fit_campaign(tmp_path / "raw" / "costs-fit")
    grouped_campaign(tmp_path / "raw" / "grouped", jobs=True)
    return tmp_path


@pytest.fixture
def vbench_cli(capsys):
    return cli_runner(capsys)


def _predict(capsys, data, *extra):
    from vbench import cli

    argv = ["predict", "grouped", "--fit", "costs-fit", "--data", str(data), "--draws", str(DRAWS), "--json"]
    assert cli.main([*argv, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_each_level_of_the_factor_is_predicted_with_its_own_costs(data, capsys):
    by_level = {}
    for level in ("false", "true"):
        doc = _predict(capsys, data, "--compare", "platform", "--where", f"grouped={level}")
        by_level[level] = {(p["platform"], p["job"]): p for p in doc["predictions"]}
        assert any(f"read at grouped={level.capitalize()}" in n for n in doc["notes"]), doc["notes"]
    for level, costs in (("false", GROUPED[False]), ("true", GROUPED[True])):
        rows = by_level[level]
        assert {p for p, _ in rows} == {"sandboxed"}
        for (_, job), row in rows.items():
            truth = true_ratio(job, costs)
            assert row["predicted"]["estimate"] == pytest.approx(truth, rel=0.06), (level, job)
            # The campaign timed the jobs: each level's measured ratio is its own.
            assert row["measured"]["estimate"] == pytest.approx(truth, rel=0.1), (level, job)
    # TeraSort pays the round trip: the dearer level is predicted dearer.
    terasort = {lv: by_level[lv][("sandboxed", "terasort")]["predicted"]["estimate"] for lv in by_level}
    assert terasort["true"] > 1.1 * terasort["false"]


def test_a_design_that_compared_a_factor_alone_is_refused_naming_compare(data, vbench_cli):
    rc, err = vbench_cli("predict", "grouped", "--fit", "costs-fit", "--data", str(data))
    assert rc == 2 and "--compare" in err and "compared grouped, not the platform" in err and "--where" in err


def test_two_levels_read_at_once_are_refused_naming_where(data, vbench_cli):
    rc, err = vbench_cli("predict", "grouped", "--fit", "costs-fit", "--data", str(data), "--compare", "platform")
    assert rc == 2 and "several cells" in err and "--where" in err


def test_a_level_or_a_factor_not_run_is_refused_before_any_fit(data, vbench_cli):
    base = ("predict", "grouped", "--fit", "costs-fit", "--data", str(data), "--compare", "platform")
    rc, err = vbench_cli(*base, "--where", "grouped=maybe")
    assert rc == 2 and "--where" in err and "grouped at ['False', 'True'], not 'maybe'" in err
    rc, err = vbench_cli(*base, "--where", "groupd=false")
    assert rc == 2 and "--where" in err and "groupd: no campaign read varies it" in err and "grouped" in err
    rc, err = vbench_cli(*base, "--where", "grouped")
    assert rc == 2 and "is not factor=level" in err
    rc, err = vbench_cli(*base, "--compare", "nosuch")
    assert rc == 2 and "--compare" in err


def test_measured_campaigns_are_read_at_the_level_and_one_without_the_factor_whole(tmp_path, capsys):
    """A calibration-only campaign, its jobs pooled over a campaign that varied the factor (read at its
    level) and one that did not (read whole): both pooled rows are the False level's platform."""
    fit_campaign(tmp_path / "raw" / "costs-fit")
    calibration_campaign(tmp_path / "raw" / "newplat", platforms=("native", "sandboxed"))
    grouped_campaign(tmp_path / "raw" / "grouped", jobs=True)
    calibration_campaign(tmp_path / "raw" / "plain", platforms=("native", "sandboxed"), jobs=True, seed=400)
    from vbench import cli

    argv = ["predict", "newplat", "--fit", "costs-fit", "--data", str(tmp_path), "--draws", str(DRAWS), "--json"]
    argv += ["--measured", "grouped,plain", "--compare", "platform", "--where", "testbed.grouped=false"]
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert any("plain did not vary grouped: read whole" in n for n in doc["notes"]), doc["notes"]
    assert any("grouped: read at grouped=False (True left out)" in n for n in doc["notes"]), doc["notes"]
    for row in doc["predictions"]:
        truth = true_ratio(row["job"], GROUPED[False])
        assert row["measured"]["estimate"] == pytest.approx(truth, rel=0.1), row["job"]


# --- vbench.stats.cell_select, pure ------------------------------------------------------------------


def test_levels_are_parsed_as_typed_and_refused_naming_the_option():
    assert cell_select.parse_levels(None) == {}
    assert cell_select.parse_levels(" cpu_group = false , testbed.rate=1000") == {
        "cpu_group": "false",
        "testbed.rate": "1000",
    }
    for bad, said in (("cpu_group", "not factor=level"), ("=x", "not factor=level"), ("a=1,a=2", "named twice")):
        with pytest.raises(ParamsError) as e:
            cell_select.parse_levels(bad)
        assert e.value.field == "--where" and said in str(e.value)


def test_a_full_name_resolves_to_its_label_even_with_dots_in_it():
    labels = ["cpu_group", "gvisor.network"]
    assert cell_select.resolved("cpu_group", labels) == "cpu_group"
    assert cell_select.resolved("testbed.cpu_group", labels) == "cpu_group"
    assert cell_select.resolved("testbed.gvisor.network", labels) == "gvisor.network"
    assert cell_select.resolved("gvisor.network", labels) == "gvisor.network"
    assert cell_select.resolved("network", labels) is None


def test_a_level_is_read_as_the_designs_yaml_reads_it():
    assert cell_select.level_text("false") == "False" and cell_select.level_text("True") == "True"
    assert cell_select.level_text("1000") == "1000" and cell_select.level_text("1000.0") == "1000"
    assert cell_select.level_text("0.5") == "0.5" and cell_select.level_text("bridge+nat") == "bridge+nat"


def _frame(values) -> pd.DataFrame:
    n = len(values)
    return add_cells(
        pd.DataFrame(
            {
                "experiment": ["e"] * n,
                "platform": ["native", "oci"] * (n // 2),
                "benchmark": ["rpc"] * n,
                "metric": ["call_us"] * n,
                "size_label": [""] * n,
                "value": np.arange(n, dtype=float),
                "factor.rate": values,
            }
        )
    )


def test_a_float_column_with_gaps_matches_its_whole_level_and_the_cells_lose_the_factor():
    """The gaps are configurations without the factor (native's rows of a factor scoped to gVisor):
    at no other level, so kept, as the baseline a scoped level is compared with."""
    samples = _frame([1000.0, 1000.0, 200.0, 200.0, np.nan, np.nan])
    assert set(samples["size"]) == {"rate=1000", "rate=200", ""}
    out, notes = cell_select.samples_at(samples, {"rate": "1000"}, "camp")
    assert list(out["value"]) == [0.0, 1.0, 4.0, 5.0] and set(out["size"]) == {""}
    assert notes == ["camp: read at rate=1000 (200 left out)"]
    same, notes = cell_select.samples_at(_frame([5.0] * 4), {"rate": "5"}, "camp")
    assert len(same) == 4 and notes == ["camp did not vary rate: read whole"]

"""vbench.explore.paths: the repository's data found from notebooks/, the root, or elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from vbench.errors import ParamsError
from vbench.explore import paths

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("start", [ROOT, ROOT / "notebooks", ROOT / "data" / "raw" / "reference"])
def test_the_data_directory_is_found_from_the_root_and_below_it(start):
    assert paths.data_dir(start) == ROOT / "data"


def test_outside_the_repository_the_package_checkout_is_used(tmp_path):
    assert paths.data_dir(tmp_path) == ROOT / "data"


def test_without_a_repository_anywhere_the_error_says_what_to_pass(tmp_path):
    with pytest.raises(ParamsError, match="data_dir: no vbench repository"):
        paths.data_dir(tmp_path, package_dir=tmp_path / "vbench")


def test_a_directory_with_only_one_marker_is_not_the_repository(tmp_path):
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    assert not paths.is_repository(tmp_path)
    (tmp_path / "data" / "raw").mkdir(parents=True)
    assert paths.is_repository(tmp_path) and paths.data_dir(tmp_path / "data") == tmp_path / "data"


def test_campaigns_are_the_directories_with_samples():
    names = paths.campaigns(ROOT / "data")
    assert {"reference", "netmodes", "poll-interval", "liu2012-terasort", "monitoring", "isolation"} <= set(names)
    assert names == sorted(names)
    assert all((ROOT / "data" / "raw" / n / "samples.jsonl").is_file() for n in names)


def test_an_unknown_campaign_is_refused_with_the_ones_there():
    with pytest.raises(ParamsError, match=r"campaign: .*nosuch holds no samples.jsonl \(campaigns under .*reference"):
        paths.campaign_dir(ROOT / "data", "nosuch")

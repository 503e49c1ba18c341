"""The paper stage end to end on a small synthetic campaign: same data, same bytes; the PDF builds."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("seaborn")

from vbench.paper.build import SOURCES, generate, latex_available, page_count, run_latex  # noqa: E402
from vbench.paper.synthetic import write_synthetic_campaign  # noqa: E402

RESAMPLES = 200  # enough for the code paths; the byte-identity does not depend on the count


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    return write_synthetic_campaign(
        tmp_path_factory.mktemp("campaign") / "synthetic", platforms=("native", "lxc", "qemu"), repetitions=2
    )


@pytest.fixture(scope="module")
def first(campaign, tmp_path_factory):
    out = tmp_path_factory.mktemp("paper-a")
    return generate(campaign, out, n_resamples=RESAMPLES)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_rebuild_from_the_same_data_is_byte_identical(campaign, first, tmp_path):
    second = generate(campaign, tmp_path, n_resamples=RESAMPLES)
    a, b = _files(first.out_dir / "generated"), _files(second.out_dir / "generated")
    assert sorted(a) == sorted(b)
    tex = [name for name in a if name.endswith(".tex")]
    assert {"macros.tex", "testbed.tex", "delta.tex", "tables/tera_elapsed.tex"} <= set(tex)
    for name in tex + [n for n in a if n.endswith((".csv", ".pdf", ".png"))]:
        assert a[name] == b[name], f"{name} differs between two builds from the same data"


def test_generated_content(first):
    gen = first.out_dir / "generated"
    macros = (gen / "macros.tex").read_text()
    assert r"\newcommand{\vbTeraSortOverheadLxc}{\num{" in macros
    assert r"\newcommand{\vbTeraSortOverheadOci}{\emph{not measured}}" in macros  # oci absent, no NaN
    assert r"\newcommand{\vbSynthetic}{1}" in macros
    assert not re.search(r"\bnan\b", macros.lower())
    for tex in gen.rglob("*.tex"):
        text = tex.read_text()
        assert r"\num{nan" not in text.lower() and "inf}" not in text, tex
    # no monitoring samples and no study of environment factors in the synthetic campaign
    assert set(first.figures_absent) == {"timeseries", "factors", "sandbox"}
    assert "fbox" in (gen / "figures" / "timeseries.tex").read_text()
    # the per-node table and the sandbox section draw only from their own campaigns, the iperf3
    # matrix, the guests per host and the racks from studies of environment factors: none given here
    assert set(first.tables_absent) == {"pernode", "sandbox", "netmatrix", "vms_per_host", "racks"}
    assert sum(first.delta_counts.values()) >= 10


def test_cell_of_a_known_table(first):
    # qemu's synthetic slowdown is 1.6x: its TeraSort ratio to native must show it in the table and macros.
    macros = (first.out_dir / "generated" / "macros.tex").read_text()
    line = next(ln for ln in macros.splitlines() if ln.startswith(r"\newcommand{\vbTeraSortRatioQemu}"))
    ratio = float(line.split(r"\num{")[1].split("}")[0])
    assert 1.4 < ratio < 1.8


def test_the_findings_summary_is_written_from_the_delta_rows_and_counted_as_a_table(first):
    import pandas as pd

    from vbench.paper.delta import VERDICT_TEX

    gen = first.out_dir / "generated"
    delta = pd.read_csv(gen / "delta.csv")
    verdict_of = {tex: v for v, tex in VERDICT_TEX.items()}

    def rows(tex: str) -> dict[str, list[str]]:
        split = (re.split(r"(?<!\\)&", ln[:-2]) for ln in tex.splitlines() if ln.endswith(r"\\"))
        return {c[0].strip(): [x.strip() for x in c] for c in split if c[0].strip() in set(delta["id"])}

    summary = rows((gen / "tables" / "findings_summary.tex").read_text())
    long = rows((gen / "delta.tex").read_text())
    assert list(summary) == list(delta["id"]) == list(long)
    for fid, verdict in zip(delta["id"], delta["verdict"]):
        assert verdict_of[summary[fid][-1].split(r"\newline")[0].strip()] == verdict, fid
        assert summary[fid][4] == long[fid][5], fid
    assert "findings_summary" in first.tables_with_data
    macros = (gen / "macros.tex").read_text()
    assert r"\newcommand{\vbHasTableFindingsSummary}{1}" in macros
    n_tables = len(first.tables_with_data) + len(first.tables_absent)
    assert rf"\newcommand{{\vbNumTables}}{{{n_tables}}}" in macros


@pytest.mark.skipif(
    not latex_available(), reason="latexmk/pdflatex/bibtex not installed (scripts/setup.sh installs TeX)"
)
def test_pdf_builds_with_latexmk(first):
    for name in ("main.tex", "references.bib"):
        shutil.copyfile(SOURCES / name, first.out_dir / name)
    pdf, seconds = run_latex(first.out_dir, first.source_date_epoch, force=True)
    pages = page_count(pdf)
    if pages is None:
        pytest.skip("pdfinfo (poppler-utils) not installed")
    assert pages >= 2
    log = (first.out_dir / "build" / "paper.log").read_text(errors="replace")
    assert "Citation" not in log or "undefined" not in log.split("Citation", 1)[1][:200]
    assert "There were undefined references" not in log


def test_warmup_runs_change_neither_the_delta_nor_the_tables(campaign, first, tmp_path):
    import json

    # A warm-up run beside every measured TeraSort of the platforms experiment, ten times slower:
    # stored in the campaign, it must not reach a verdict or a table cell.
    warm = tmp_path / "warm"
    shutil.copytree(campaign, warm)
    lines = (warm / "samples.jsonl").read_text().splitlines()
    extra = []
    for line in lines:
        rec = json.loads(line)
        md = rec.get("metadata", {})
        if rec.get("kind") == "sample" and rec["benchmark"] == "terasort" and md.get("experiment") == "platforms":
            md = {**md, "warmup": True, "run_id": md["run_id"] + "-warmup"}
            extra.append(json.dumps({**rec, "metadata": md, "value": rec["value"] * 10}))
    assert extra
    (warm / "samples.jsonl").write_text("\n".join(lines + extra) + "\n")
    gen = generate(warm, tmp_path / "out", n_resamples=RESAMPLES).out_dir / "generated"
    ref = first.out_dir / "generated"
    assert (gen / "delta.csv").read_text() == (ref / "delta.csv").read_text()
    tables = sorted(p.name for p in (ref / "tables").glob("*.tex"))
    assert len(tables) > 5
    for table in tables:
        text = (gen / "tables" / table).read_text()
        if table == "campaigns.tex":  # names the campaign, whose copy here is called "warm"
            text = text.replace(r"\texttt{warm}", r"\texttt{synthetic}")
        assert text == (ref / "tables" / table).read_text(), table

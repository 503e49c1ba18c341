"""The cost-model section's subsection "Costs priced in the machine's CPU" (vbench.paper.costs_cpu, issue
#53), on synthetic campaigns with a known answer, and its three keys of params/paper.yaml.

As params/experiments/costs-cpu-levels-amd.yaml and costs-cpu-sameday-amd.yaml read them: a fit of
system-call levels (test_paper_costs_syscalls' `planted_levels_campaign`: native with no call stopped,
the process level and every call, 5 blocks) whose jobs give each job's share of a JVM's loopback RPC
(test_paper_costs_rpc_level's costs and shares); the same levels calibrated again, each micro-benchmark
run stamped with the machine's CPU (`machine_cpu_s`, `machine_wall_s`, as the runner stamps them) and
keeping BUSY_PLANT CPUs busy at every level; and campaigns shaped like costs-cpu-sameday-amd (native, LXC
and gVisor, the costs and the jobs in the same blocks, stamped alike) whose gVisor RPC runs keep
BUSY["gvisor"] CPUs busy against native's BUSY["native"], and whose gVisor jobs pay the RPC's cost priced
in CPU: a job's true ratio is 1 + its share times (the RPC's cost ratio times the busy CPUs' ratio - 1).
So priced in CPU the predictions recover the truth, and priced in wall time they fall short of gVisor's
by a known amount. The section's first part is test_paper_costs': a fit shaped like costs-fit-nodelay
and `sandbox` as its calibration.

A further replication (params/paper.yaml's `cpu_replications`), as costs-nospec-fit-amd and
costs-nospec-sameday-amd read: a fit of the same levels whose own calibration carries the machine
reading, so no campaign of its costs, and a campaign shaped like the first's tests, both designs with
`hadoop.speculative: false`; the same known answer. And the committed replication against `vbench
predict --json` on the committed campaigns.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pandas as pd
import pytest
import yaml

import tests.unit.test_predict_cmd as P
from tests.unit.test_paper_costs_rpc_level import AT_LEVELS, RPC_MICRO, RPC_PLATFORMS, RPC_SHARES
from tests.unit.test_paper_costs_rpc_level import _true_ratio as rpc_true_ratio
from tests.unit.test_paper_costs_syscalls import (
    FIT,
    SANDBOX,
    _committed,
    _measured,
    planted_levels_campaign,
    section_base,
)
from tests.unit.test_predict_cmd import DRAWS, MICRO, PLATFORMS, calibration_campaign
from vbench.errors import ParamsError
from vbench.paper import costs as C
from vbench.paper import costs_cpu as CC
from vbench.paper.inputs import (
    CpuReplicationDirs,
    ReplicationFields,
    campaign_list,
    check_cpu_priced,
    check_cpu_replications,
    cpu_replications_of,
)
from vbench.samples import MACHINE_CPU_FIELD, MACHINE_WALL_FIELD
from vbench.stats.campaign import load_campaign

ROOT = Path(__file__).resolve().parents[2]
CPU_FIT, CPU_FIT_COSTS = "costs-fit-memory-amd", "costs-cpu-levels-amd"
#: Two campaigns priced in CPU, each with a design seed of its own, and one calibrated without the reading.
CPU_TEST, CPU_TEST_AGAIN, UNREAD = "costs-cpu-sameday-amd", "costs-cpu-sameday-amd-confirm", "costs-sameday-amd"
SEEDS = {CPU_TEST: 53039, CPU_TEST_AGAIN: 53040, UNREAD: 53035}
#: A further replication: a fit whose own calibration has the machine reading, and its test, both designs
#: with Hadoop's speculative execution off.
NOSPEC_FIT, NOSPEC_TEST = "costs-nospec-fit-amd", "costs-nospec-sameday-amd"
SEEDS[NOSPEC_TEST] = 53041
NOSPEC = {"speculative": False}
KEYS = ("cpu_fit_campaign", "cpu_fit_costs_campaign", "cpu_tests")
FLAGS = ("cpu-fit", "cpu-fit-costs", "cpu-test")
#: The CPUs each run kept busy: every planted level's RPC runs alike (a stopped call is a wait), gVisor's a
#: third of a core more than native's (its Sentry), as costs-cpu-sameday-amd measured them (0.74, 1.04).
BUSY_PLANT = 0.75
BUSY = {"native": 0.75, "lxc": 0.75, "gvisor": 1.05}
#: A run's wall seconds in the stamp.
WALL_S = 10.0


def _cpu_true_ratio(job: str, costs: dict[str, float]) -> float:
    """`rpc_true_ratio` with gVisor's RPC priced in CPU (the only platform whose call costs x8)."""
    busy = BUSY["gvisor"] / BUSY["native"] if costs.get("rpc", 1.0) > 2 else 1.0
    return rpc_true_ratio(job, {**costs, "rpc": costs.get("rpc", 1.0) * busy})


def _stamped(d: Path, busy: Callable[[dict], float]) -> Path:
    """Each micro-benchmark sample of `d` stamped with its run's machine CPU, as the runner stamps a
    one-host run on the local testbed: `busy(metadata)` CPUs over a run of WALL_S seconds."""
    path = d / "samples.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for r in records:
        meta = r.get("metadata", {})
        if meta.get("benchmark_kind") == "micro":
            meta[MACHINE_CPU_FIELD], meta[MACHINE_WALL_FIELD] = WALL_S * busy(meta), WALL_S
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    return d


def _sameday(d: Path, seed: int, design_seed: int) -> Path:
    """Native, LXC and gVisor calibrated and timed in the same blocks, the design seeded `design_seed`."""
    others = tuple(r for r in MICRO if r not in RPC_MICRO)
    calibration_campaign(d, ("native", *RPC_PLATFORMS), jobs=True, seed=seed, drop=others)
    design = {"experiment": {"compare": ["platform"], "baseline": None, "seed": design_seed}}
    (d / "campaign.json").write_text(json.dumps(design))
    return d


def _hadoop(d: Path, settings: dict) -> Path:
    """`d`'s design (campaign.json) with `settings` as its Hadoop overrides, as a design's `hadoop:` writes them."""
    path = d / "campaign.json"
    doc = json.loads(path.read_text())
    doc["experiment"]["hadoop"] = settings
    path.write_text(json.dumps(doc))
    return d


@pytest.fixture(scope="module")
def raw(tmp_path_factory) -> Path:
    """DATA/raw with the section's first fit and `sandbox`, the fit priced in CPU, its configurations'
    costs with the machine reading, and the campaigns it predicts."""
    raw = tmp_path_factory.mktemp("data") / "raw"
    section_base(raw)
    with pytest.MonkeyPatch.context() as mp:
        for resource, spec in RPC_MICRO.items():
            mp.setitem(MICRO, resource, spec)
        for platform, costs in RPC_PLATFORMS.items():
            mp.setitem(PLATFORMS, platform, costs)
        mp.setattr(P, "true_ratio", rpc_true_ratio)
        planted_levels_campaign(raw / CPU_FIT, AT_LEVELS, seed=53036, prefix="fit")
        _stamped(
            planted_levels_campaign(raw / CPU_FIT_COSTS, AT_LEVELS, seed=53037, prefix="levels"), lambda _m: BUSY_PLANT
        )
        mp.setattr(P, "true_ratio", _cpu_true_ratio)
        _stamped(_sameday(raw / CPU_TEST, 3, SEEDS[CPU_TEST]), lambda m: BUSY[m["platform"]])
        _stamped(_sameday(raw / CPU_TEST_AGAIN, 5, SEEDS[CPU_TEST_AGAIN]), lambda m: BUSY[m["platform"]])
        _sameday(raw / UNREAD, 6, SEEDS[UNREAD])
        # The replication: its fit's own micro-benchmark runs stamped, its test as the first's.
        mp.setattr(P, "true_ratio", rpc_true_ratio)
        nospec_fit = planted_levels_campaign(raw / NOSPEC_FIT, AT_LEVELS, seed=53040, prefix="nospec")
        _hadoop(_stamped(nospec_fit, lambda _m: BUSY_PLANT), NOSPEC)
        mp.setattr(P, "true_ratio", _cpu_true_ratio)
        _hadoop(_stamped(_sameday(raw / NOSPEC_TEST, 8, SEEDS[NOSPEC_TEST]), lambda m: BUSY[m["platform"]]), NOSPEC)
    return raw


def _priced(raw: Path, tests: tuple[str, ...] = (CPU_TEST,), fit_costs: str = CPU_FIT_COSTS) -> CC.CpuPriced:
    return CC.cpu_priced(
        load_campaign(raw / CPU_FIT), load_campaign(raw / fit_costs), [load_campaign(raw / t) for t in tests], DRAWS
    )


@pytest.fixture(scope="module")
def priced(raw) -> CC.CpuPriced:
    return _priced(raw, (CPU_TEST, CPU_TEST_AGAIN))


@pytest.fixture(scope="module")
def replicated(raw, priced) -> list[CC.CpuPriced]:
    """The first replication (`priced`) and the one without a campaign of its costs."""
    nospec = CC.cpu_priced(load_campaign(raw / NOSPEC_FIT), None, [load_campaign(raw / NOSPEC_TEST)], DRAWS)
    return [priced, nospec]


@pytest.fixture(scope="module")
def study(raw) -> C.CostStudy:
    return C.cost_study(load_campaign(raw / FIT), load_campaign(raw / SANDBOX), n_draws=DRAWS)


# --- the record ----------------------------------------------------------------------------------------


def test_priced_in_cpu_the_predictions_recover_the_truth_and_in_wall_time_gvisor_s_fall_short(priced):
    assert priced.fit_name == CPU_FIT and priced.fit_costs_name == CPU_FIT_COSTS and not priced.own_costs
    assert priced.resources == CC.CPU_PRICED_RESOURCES == ("rpc",)
    assert [t.name for t in priced.tests] == [CPU_TEST, CPU_TEST_AGAIN]
    _recovers_the_truth(priced)
    # No design set a Hadoop setting: none is said.
    assert [d.campaign for d in priced.designs] == [CPU_FIT, CPU_FIT_COSTS, CPU_TEST, CPU_TEST_AGAIN]
    assert priced.shared_settings == priced.own_settings == () and CC.settings_clause(priced) == ""


def test_a_replication_without_a_campaign_of_its_costs_reads_the_fit_s_own_and_recovers_the_truth(replicated):
    """As `vbench predict` without --fit-costs: the fit's own calibration, priced in CPU, gives its
    configurations' costs; its designs' Hadoop setting is read as both sides'."""
    _, nospec = replicated
    assert (nospec.fit_name, nospec.fit_costs_name, nospec.own_costs) == (NOSPEC_FIT, NOSPEC_FIT, True)
    assert [t.name for t in nospec.tests] == [NOSPEC_TEST]
    _recovers_the_truth(nospec)
    assert {b.configuration: b.median for b in nospec.levels_busy} == pytest.approx(
        {level: BUSY_PLANT for level in ("False", "True", "process")}
    )
    assert [d.campaign for d in nospec.designs] == [NOSPEC_FIT, NOSPEC_TEST]
    assert nospec.shared_settings == (("speculative", False),) and nospec.own_settings == ()
    # What it ran with; the first's, which set nothing, ran with vbench's default.
    assert nospec.designs[0].value("speculative") is False and replicated[0].designs[0].value("speculative") is True


def _recovers_the_truth(priced: CC.CpuPriced) -> None:
    """Priced in CPU each prediction is the planted truth; in wall time gVisor's fall short by the
    busy CPUs' ratio it does not price."""
    for test in priced.tests:
        assert test.cpu.study.seed == test.wall.study.seed == SEEDS[test.name]  # the test's design seed
        assert test.cpu.study.fit_name == priced.fit_name and test.cpu.study.resources == ("rpc",)
        pairs = test.pairs()
        assert [(c.platform, c.job) for c, _ in pairs] == [
            (p, j) for p in ("lxc", "gvisor") for j in ("nnbench_create_write", "terasort")
        ]
        for cpu, wall in pairs:
            assert (wall.job, wall.platform) == (cpu.job, cpu.platform) and wall.measured == cpu.measured
            truth = _cpu_true_ratio(cpu.job, RPC_PLATFORMS[cpu.platform])
            assert cpu.measured.estimate == pytest.approx(truth, rel=0.1), cpu
            assert cpu.predicted.estimate == pytest.approx(truth, rel=0.05), cpu
            # In wall time gVisor's RPC is x8.16, not the x8.16 x 1.4 its jobs pay: the known shortfall.
            in_wall = rpc_true_ratio(cpu.job, RPC_PLATFORMS[cpu.platform])
            assert wall.predicted.estimate == pytest.approx(in_wall, rel=0.05), wall
        gvisor = {r.job: r.error.estimate for r in test.wall.gvisor_rows}
        shortfall = {
            j: _cpu_true_ratio(j, RPC_PLATFORMS["gvisor"]) / rpc_true_ratio(j, RPC_PLATFORMS["gvisor"]) - 1
            for j in RPC_SHARES
        }
        assert gvisor == pytest.approx(shortfall, abs=0.1) and min(shortfall.values()) > 0.15
        assert all(abs(r.error.estimate) < 0.1 for r in test.cpu.study.rows)
        # Against the same measured ratio, the wall-time prediction of gVisor's jobs is the lower one.
        for cpu, wall in pairs:
            if cpu.platform == "gvisor":
                assert wall.error.estimate > cpu.error.estimate + 0.1, (cpu, wall)


def test_the_busy_cpus_are_the_fit_s_levels_and_each_test_s_platforms(priced):
    assert {b.configuration: (b.resource, b.median, b.runs) for b in priced.levels_busy} == {
        level: ("rpc", pytest.approx(BUSY_PLANT), P.BLOCKS) for level in ("False", "True", "process")
    }
    assert dict(priced.stop_levels) == {"False": "False", "True": "True", "process": "process"}
    for test in priced.tests:
        assert {b.configuration: b.median for b in test.busy} == pytest.approx(BUSY)


def test_the_record_s_numbers_are_vbench_predict_s_in_both_pricings(raw, replicated, capsys):
    """`vbench predict TEST --fit FIT --fit-costs FIT_COSTS --resources rpc --costs cpu|wall --seed <TEST's
    design seed> --json` gives the rows' predictions, their prediction intervals, the measured ratios and
    the busy CPUs; of a replication without a campaign of its costs, the same command without
    --fit-costs."""
    first, nospec = replicated
    assert _same_as_predict(raw.parent, first, capsys, draws=DRAWS) == 2 * 2 * 4
    assert _same_as_predict(raw.parent, nospec, capsys, draws=DRAWS) == 2 * 4


def _same_as_predict(data: Path, priced: CC.CpuPriced, capsys, draws: int | None = None) -> int:
    """Assert each row of each test of `priced`, in both pricings, is the one `vbench predict --json`
    gives for it from DATA `data` (and, priced in CPU, the busy CPUs it prints); the rows compared."""
    from vbench import cli

    compared = 0
    for test in priced.tests:
        seed = SEEDS.get(test.name, test.cpu.study.seed)
        for pricing, told in (("cpu", test.cpu), ("wall", test.wall)):
            argv = ["predict", test.name, "--fit", priced.fit_name, "--resources", ",".join(priced.resources)]
            argv += [] if priced.own_costs else ["--fit-costs", priced.fit_costs_name]
            argv += ["--costs", pricing, "--seed", str(seed)] + (["--draws", str(draws)] if draws else [])
            assert cli.main([*argv, "--data", str(data), "--json"]) == 0
            doc = json.loads(capsys.readouterr().out)
            assert doc["costs"] == pricing and doc["seed"] == seed == told.study.seed
            command = {(p["job"], p["platform"]): p for p in doc["predictions"]}
            assert len(command) == len(told.study.rows) > 0
            for r in told.study.rows:
                said = command[r.job, r.platform]
                for iv, theirs in (
                    (r.predicted, said["predicted"]),
                    (r.measurement, said["prediction_interval"]),
                    (r.measured, said["measured"]),
                ):
                    assert (iv.estimate, iv.low, iv.high) == pytest.approx(
                        (theirs["estimate"], theirs["low"], theirs["high"])
                    ), (pricing, r)
                assert r.error.estimate == pytest.approx(
                    said["measured"]["estimate"] / said["predicted"]["estimate"] - 1
                )
                compared += 1
            if pricing == "cpu":
                busy = doc["busy_cpus"]
                assert [b["median"] for b in busy[test.name]] == pytest.approx([b.median for b in test.busy])
                assert [b["median"] for b in busy[priced.fit_costs_name]] == pytest.approx(
                    [b.median for b in priced.levels_busy]
                )
    return compared


def test_a_campaign_without_the_machine_reading_is_refused_naming_its_samples(raw):
    with pytest.raises(ParamsError) as err:
        _priced(raw, (CPU_TEST, UNREAD))
    assert err.value.field == str(raw / UNREAD / "samples.jsonl") and "no machine CPU reading" in err.value.message
    # The fit's configurations' costs are priced too: read from a campaign without it, refused alike.
    with pytest.raises(ParamsError) as err:
        _priced(raw, fit_costs=CPU_FIT)
    assert err.value.field == str(raw / CPU_FIT / "samples.jsonl") and "no machine CPU reading" in err.value.message


# --- the LaTeX ---------------------------------------------------------------------------------------


def _subsection(tex: str) -> str:
    """The subsection priced in the machine's CPU: from its heading to the next one, or the end."""
    start = tex.index(rf"\subsection{{{CC.TITLE}}}\label{{{CC.LABEL}}}")
    end = tex.find(r"\subsection", start + 1)
    return tex[start : end if end >= 0 else len(tex)]


def _expected_cells(cpu, wall) -> list[str]:
    """A table row's cells as the subsection should print a platform and job priced in CPU and in wall time."""
    return [
        C.platform_cell(cpu.platform),
        C.job_name(cpu.job),
        C.interval_cell(cpu.measured),
        C.interval_cell(cpu.pi),
        C.pct_text(cpu.error.estimate, signed=True).removesuffix(r"\,\%"),
        C.pct_text(wall.error.estimate, signed=True).removesuffix(r"\,\%"),
    ]


def test_the_table_has_a_group_per_test_and_a_row_per_platform_and_job(priced):
    table = CC.table_cpu([priced])
    assert rf"\label{{{CC.TABLE_LABEL}}}" in table and "_" not in table.replace(r"\_", "")
    body = table[table.index(r"\midrule") : table.index(r"\bottomrule")]
    rows = [line.removesuffix(r" \\") for line in body.splitlines() if line.endswith(r" \\")]
    assert rows[0] == rf"\multicolumn{{6}}{{l}}{{Campaign \texttt{{{C.tex_escape(CPU_TEST)}}} (5 blocks)}}"
    assert rows[5] == rf"\multicolumn{{6}}{{l}}{{Campaign \texttt{{{C.tex_escape(CPU_TEST_AGAIN)}}} (5 blocks)}}"
    assert body.count(r"\midrule") == 2  # under the header, and between the two tests
    for test, lines in zip(priced.tests, (rows[1:5], rows[6:10])):
        for (cpu, wall), line in zip(test.pairs(), lines):
            assert line.split(" & ") == _expected_cells(cpu, wall)
    assert (
        rf"campaign \texttt{{{C.tex_escape(CPU_FIT)}}}" in table
        and rf"\texttt{{{C.tex_escape(CPU_FIT_COSTS)}}}" in table
    )


def test_the_subsection_says_the_method_the_busy_cpus_and_each_test_in_both_pricings(study, priced):
    barrier = [r"\subsection{NNBench}\label{sec:costs-barrier}", "After."]
    tex = C.section_tex(study, after=[*CC.cpu_tex([priced]), "", *barrier])
    part = _subsection(tex)
    assert tex.index(part) < tex.index(r"\label{sec:costs-barrier}")
    assert part.rstrip().endswith(rf"\input{{generated/tables/{CC.NAME}.tex}}")
    method, tests = part.split("\n\n")[:2]
    assert r"reads the machine's busy CPU time from \texttt{/proc/stat} before and after it" in method
    assert "a time per operation is multiplied by its run's busy CPUs and a throughput divided by them" in method
    assert (
        r"Median over the runs, the CPUs the runs of a loopback RPC of a JVM kept busy were \num{0.75} with no call "
        r"stopped, \num{0.75} with only the process and thread calls stopped and \num{0.75} with every call stopped "
        rf"in campaign \texttt{{{C.tex_escape(CPU_FIT_COSTS)}}}; \num{{0.75}} on native, \num{{0.75}} on LXC and "
        rf"\num{{1.05}} on gVisor in campaign \texttt{{{C.tex_escape(CPU_TEST)}}}; and "
    ) in method
    first, second = priced.tests
    assert tests.startswith(rf"Table~\ref{{{CC.TABLE_LABEL}}} gives each prediction. " + CC.prediction_sentence(first))
    assert CC.prediction_sentence(second) in tests
    sentence = CC.prediction_sentence(first)
    terasort = next(r for r in first.cpu.gvisor_rows if r.job == "terasort")
    wall = next(r for r in first.wall.gvisor_rows if r.job == "terasort")
    assert (
        rf"TeraSort measured {C.interval_cell(terasort.measured)} against a predicted "
        rf"\num{{{C.sig_digits(terasort.predicted.estimate, 3)}}} ({C.pct_text(terasort.error.estimate, signed=True)})"
    ) in sentence
    assert (
        "; priced in wall time, their errors were " in sentence
        and C.pct_text(wall.error.estimate, signed=True) in sentence
    )
    held = sum(C.measured_holds(r) for r in first.cpu.other_rows)
    assert f"The measured intervals held {held} of the 2 LXC predictions priced in the machine's CPU and " in sentence
    assert "within" not in sentence  # no target is said met or missed: the errors are given


def test_the_build_log_gives_gvisor_s_errors_to_a_tenth_of_a_per_cent(priced):
    first, _ = CC.build_note([priced])
    terasort = next(r for r in priced.tests[0].cpu.gvisor_rows if r.job == "terasort")
    assert first.startswith(
        f"cost model priced in the machine's CPU: fitted on {CPU_FIT} with {CPU_FIT_COSTS}'s costs (rpc), predicted "
        f"for {CPU_TEST}'s platforms (seed {SEEDS[CPU_TEST]}): "
    )
    assert f"gvisor terasort {100 * terasort.error.estimate:+.1f} % in CPU" in first


def _table_rows(table: str) -> list[str]:
    body = table[table.index(r"\midrule") : table.index(r"\bottomrule")]
    return [line.removesuffix(r" \\") for line in body.splitlines() if line.endswith(r" \\")]


def test_a_replication_is_a_paragraph_after_the_first_s_and_a_group_of_rows_headed_by_its_fit(study, replicated):
    first, nospec = replicated
    part = _subsection(C.section_tex(study, after=CC.cpu_tex(replicated)))
    # The first's paragraphs as they are without a replication; then the replication's; then the table.
    alone = _subsection(C.section_tex(study, after=CC.cpu_tex([first])))
    paragraphs = part.rstrip().split("\n\n")
    assert paragraphs[:2] == alone.rstrip().split("\n\n")[:2] and len(paragraphs) == 4
    assert paragraphs[3].strip() == rf"\input{{generated/tables/{CC.NAME}.tex}}"
    said = paragraphs[2]
    assert said == CC.replication_paragraph(nospec, first)
    assert said.startswith(
        r"The same model was fitted and tested again on campaigns of their own, with Hadoop's speculative "
        r"execution off on both sides (\texttt{hadoop.speculative: false} in the design of the fit and of each "
        r"test; the first fit and its tests ran with Hadoop's speculative execution on, the default): "
    )
    assert (
        rf"fitted on the jobs campaign \texttt{{{C.tex_escape(NOSPEC_FIT)}}} timed on native hosts in 2 planted" in said
    )
    assert "its configurations' costs read from its own calibration, each run with the machine's CPU read" in said
    assert r"kept busy were \num{0.75} with no call stopped" in said
    assert rf"in campaign \texttt{{{C.tex_escape(NOSPEC_FIT)}}}; and \num{{0.75}} on native" in said
    assert said.endswith(CC.prediction_sentence(nospec.tests[0]))
    terasort = next(r for r in nospec.tests[0].cpu.gvisor_rows if r.job == "terasort")
    assert rf"TeraSort measured {C.interval_cell(terasort.measured)} against a predicted " in said
    held = sum(C.measured_holds(r) for r in nospec.tests[0].cpu.other_rows)
    assert f"The measured intervals held {held} of the 2 LXC predictions priced in the machine's CPU" in said
    # Not said of the first: none of its designs set anything.
    assert "speculative" not in paragraphs[0] + paragraphs[1]


def test_the_table_heads_each_replication_s_rows_with_its_fit(replicated):
    first, nospec = replicated
    table = CC.table_cpu(replicated)
    rows = _table_rows(table)
    heads = [i for i, row in enumerate(rows) if row.startswith(r"\multicolumn{6}{l}{\emph{Fitted on")]
    assert heads == [0, 11]  # the first's head, two tests of 1 + 4 rows; then the replication's
    assert rows[0] == (
        rf"\multicolumn{{6}}{{l}}{{\emph{{Fitted on \texttt{{{C.tex_escape(CPU_FIT)}}}, its configurations' costs "
        rf"from \texttt{{{C.tex_escape(CPU_FIT_COSTS)}}}}}}}"
    )
    assert rows[11] == (
        rf"\multicolumn{{6}}{{l}}{{\emph{{Fitted on \texttt{{{C.tex_escape(NOSPEC_FIT)}}}, its configurations' costs "
        r"from its own calibration; Hadoop's speculative execution off on both sides}}"
    )
    assert rows[12] == rf"\multicolumn{{6}}{{l}}{{Campaign \texttt{{{C.tex_escape(NOSPEC_TEST)}}} (5 blocks)}}"
    for (cpu, wall), line in zip(nospec.tests[0].pairs(), rows[13:], strict=True):
        assert line.split(" & ") == _expected_cells(cpu, wall)
    # A rule between the two tests and before the replication's head, none between a head and its test.
    assert table.count(r"\midrule") == 3
    # The note says each fit and where its costs came from; one replication's note is as it was.
    assert (
        rf"(campaign \texttt{{{C.tex_escape(CPU_FIT)}}}), the configurations' costs from campaign "
        rf"\texttt{{{C.tex_escape(CPU_FIT_COSTS)}}}; and on 2 planted configurations of native hosts in 5 blocks "
        rf"(campaign \texttt{{{C.tex_escape(NOSPEC_FIT)}}}), the configurations' costs from its own calibration."
    ) in table
    assert r"\emph{Fitted on" not in CC.table_cpu([first])
    frame = CC.cpu_frame(replicated)
    assert len(frame) == 2 * (2 * 4 + 4)
    assert set(zip(frame["fit_campaign"], frame["fit_costs_campaign"], frame["calibration_campaign"])) == {
        (CPU_FIT, CPU_FIT_COSTS, CPU_TEST),
        (CPU_FIT, CPU_FIT_COSTS, CPU_TEST_AGAIN),
        (NOSPEC_FIT, NOSPEC_FIT, NOSPEC_TEST),
    }


def test_the_build_log_has_a_line_per_test_of_each_replication(replicated):
    lines = CC.build_note(replicated)
    assert len(lines) == 3 and lines[:2] == CC.build_note(replicated[:1])
    assert lines[2].startswith(
        f"cost model priced in the machine's CPU: fitted on {NOSPEC_FIT} with its own costs (rpc, hadoop.speculative: "
        f"false on both sides), predicted for {NOSPEC_TEST}'s platforms (seed {SEEDS[NOSPEC_TEST]}): "
    )
    for r in replicated[1].tests[0].cpu.gvisor_rows:
        assert f"gvisor {r.job} {100 * r.error.estimate:+.1f} % in CPU" in lines[2]


def test_a_setting_one_side_alone_set_is_said_with_its_campaign_and_a_setting_the_first_shares_is_not(replicated):
    first, nospec = replicated
    one_side = replace(
        nospec, designs=(CC.DesignSettings(NOSPEC_FIT, (("speculative", False),)), CC.DesignSettings(NOSPEC_TEST))
    )
    assert one_side.shared_settings == () and one_side.own_settings == ((NOSPEC_FIT, "speculative", False),)
    assert CC.settings_clause(one_side, first) == (
        rf"with \texttt{{hadoop.speculative: false}} in the design of \texttt{{{C.tex_escape(NOSPEC_FIT)}}} alone"
    )
    # Both replications with speculation off: said on both sides, no contrast with the first, no word in the head.
    off = replace(first, designs=tuple(replace(d, hadoop=(("speculative", False),)) for d in first.designs))
    assert CC.settings_clause(nospec, off) == (
        r"with Hadoop's speculative execution off on both sides (\texttt{hadoop.speculative: false} in the design of "
        r"the fit and of each test)"
    )
    assert "speculative" not in _table_rows(CC.table_cpu([off, nospec]))[11]
    assert "Hadoop's speculative execution off on both sides" in _table_rows(CC.table_cpu([off, nospec]))[0]
    # A setting the words do not know is said as its key and value.
    assert CC.setting_words("block_size", 64) == "Hadoop's block size set to 64"


# --- the keys and the build -----------------------------------------------------------------------------

#: The campaigns test_paper_costs_syscalls' `_committed` names beside the three keys.
BESIDE = (SANDBOX, FIT, "costs-fit-syscalls", "costs")
NAMES = (CPU_FIT, CPU_FIT_COSTS, CPU_TEST)


def _given(**given: str) -> dict[str, str]:
    return {**dict(zip(KEYS, NAMES)), **given}


def test_the_committed_rebuild_passes_the_fit_its_costs_and_each_test_on(tmp_path):
    raw = _measured(tmp_path / "raw", *BESIDE, *NAMES, CPU_TEST_AGAIN)
    listed = _given(cpu_tests=f"{CPU_TEST}, {CPU_TEST_AGAIN}")
    assert _committed(tmp_path, raw, **listed)[-4:] == [
        ("cpu-fit", CPU_FIT),
        ("cpu-fit-costs", CPU_FIT_COSTS),
        ("cpu-test", CPU_TEST),
        ("cpu-test", CPU_TEST_AGAIN),
    ]
    # None set: the subsection is omitted, nothing refused.
    assert not any(flag in FLAGS for flag, _ in _committed(tmp_path, raw))


def test_a_key_set_without_the_others_or_the_cost_model_s_fit_is_refused_naming_the_key(tmp_path):
    raw = _measured(tmp_path / "raw", *BESIDE, *NAMES)
    fields = {key: f"{tmp_path / 'params' / 'paper.yaml'}: paper.{key}" for key in KEYS}
    for unset in KEYS:
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **_given(**{unset: ""}))
        assert err.value.field == fields[next(k for k in KEYS if k != unset)], unset
        assert f"needs {fields[unset]} set too" in err.value.message and "set all three, or none" in err.value.message
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, cpu_tests=CPU_TEST)
    assert err.value.field == fields["cpu_tests"]
    assert f"needs {fields['cpu_fit_campaign']} and {fields['cpu_fit_costs_campaign']} set too" in err.value.message
    without_fit = {"cost_fit_campaign": "", "syscall_fit_campaign": "", "syscall_calibration_campaign": ""}
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **without_fit, **_given())
    assert (
        err.value.field == fields["cpu_fit_campaign"] and "needs paper.cost_fit_campaign set too" in err.value.message
    )


@pytest.mark.parametrize("key", KEYS)
def test_a_campaign_not_measured_or_listed_twice_is_refused_naming_the_key(tmp_path, key):
    raw = _measured(tmp_path / "raw", *BESIDE, *NAMES)
    field = f"{tmp_path / 'params' / 'paper.yaml'}: paper.{key}"
    named = ("gone", f"{CPU_TEST},gone") if key == "cpu_tests" else ("gone",)
    for name in named:
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **_given(**{key: name}))
        assert err.value.field == field and str(raw / "gone" / "samples.jsonl") in err.value.message, name
        assert "(`vbench campaign run gone`)" in err.value.message
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **_given(**{key: "../x"}))
    assert err.value.field == field
    if key == "cpu_tests":
        # Twice, one campaign would be two groups of the table.
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **_given(cpu_tests=f"{CPU_TEST},{CPU_TEST}"))
        assert err.value.field == field and f"lists {CPU_TEST!r} twice" in err.value.message


def test_the_build_s_check_names_its_arguments_or_the_options_it_is_told(tmp_path):
    raw = _measured(tmp_path / "raw", FIT, *NAMES)
    check_cpu_priced(None, None, [], None)  # omitted
    check_cpu_priced(raw / CPU_FIT, raw / CPU_FIT_COSTS, [raw / CPU_TEST], raw / FIT)
    with pytest.raises(ParamsError) as err:
        check_cpu_priced(raw / CPU_FIT, None, [], raw / FIT)
    assert err.value.field == "cpu_fit_dir" and "needs cpu_fit_costs_dir and cpu_test_dirs set too" in err.value.message
    flags = ("--cpu-fit", "--cpu-fit-costs", "--cpu-test", "--cost-fit")
    with pytest.raises(ParamsError) as err:
        check_cpu_priced(raw / CPU_FIT, raw / CPU_FIT_COSTS, [raw / CPU_TEST, raw / "gone"], raw / FIT, *flags)
    assert err.value.field == "--cpu-test" and str(raw / "gone" / "samples.jsonl") in err.value.message
    with pytest.raises(ParamsError) as err:
        check_cpu_priced(raw / CPU_FIT, raw / CPU_FIT_COSTS, [raw / CPU_TEST], None, *flags)
    assert err.value.field == "--cpu-fit" and "needs --cost-fit set too" in err.value.message


#: A replication as params/paper.yaml writes it: no fit_costs, the fit's own.
NOSPEC_RECORD = {"fit": NOSPEC_FIT, "tests": [NOSPEC_TEST]}


def test_the_committed_rebuild_passes_each_replication_on_after_the_first_its_fit_first(tmp_path):
    raw = _measured(tmp_path / "raw", *BESIDE, *NAMES, NOSPEC_FIT, NOSPEC_TEST, "other-fit", "other-costs", "t1", "t2")
    other = {"fit": "other-fit", "fit_costs": "other-costs", "tests": "t1, t2"}  # a comma list, as cpu_tests
    flags = _committed(tmp_path, raw, **_given(), cpu_replications=[NOSPEC_RECORD, other])
    assert flags[-9:] == [
        ("cpu-fit", CPU_FIT),
        ("cpu-fit-costs", CPU_FIT_COSTS),
        ("cpu-test", CPU_TEST),
        ("cpu-replication-fit", NOSPEC_FIT),
        ("cpu-replication-test", NOSPEC_TEST),
        ("cpu-replication-fit", "other-fit"),
        ("cpu-replication-fit-costs", "other-costs"),
        ("cpu-replication-test", "t1"),
        ("cpu-replication-test", "t2"),
    ]
    # Absent, empty or null: none, nothing refused.
    for none in ([], "", None):
        assert _committed(tmp_path, raw, **_given(), cpu_replications=none)[-1] == ("cpu-test", CPU_TEST)


@pytest.mark.parametrize(
    ("value", "field", "said"),
    [
        (NOSPEC_FIT, "", "a list of records {fit: <campaign>, tests: [<campaign>, ...]}"),
        ([NOSPEC_FIT], "[0]", f"this one is {NOSPEC_FIT!r}"),
        ([{**NOSPEC_RECORD, "test": [NOSPEC_TEST]}], "[0].test", "not a field of a replication"),
        ([{"tests": [NOSPEC_TEST]}], "[0].fit", "names no campaign"),
        ([{"fit": NOSPEC_FIT}], "[0].tests", "lists no campaign"),
        ([{"fit": NOSPEC_FIT, "tests": []}], "[0].tests", "lists no campaign"),
        ([{"fit": NOSPEC_FIT, "tests": [NOSPEC_TEST, None]}], "[0].tests", "lists an empty name"),
        ([{"fit": NOSPEC_FIT, "tests": [3]}], "[0].tests", "a campaign's name, not 3"),
        ([{"fit": NOSPEC_FIT, "tests": {"a": 1}}], "[0].tests", "a list of campaigns, not {'a': 1}"),
        ([{"fit": "../x", "tests": [NOSPEC_TEST]}], "[0].fit", ""),
        ([{**NOSPEC_RECORD, "fit_costs": True}], "[0].fit_costs", "a campaign's name, not True"),
        ([{**NOSPEC_RECORD, "tests": [NOSPEC_TEST, "a;b"]}], "[0].tests", ""),
        ([NOSPEC_RECORD, {"fit": NOSPEC_FIT}], "[1].tests", "lists no campaign"),
    ],
)
def test_a_replication_not_shaped_as_a_record_is_refused_naming_the_file_and_the_field(tmp_path, value, field, said):
    raw = _measured(tmp_path / "raw", *BESIDE, *NAMES, NOSPEC_FIT, NOSPEC_TEST)
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **_given(), cpu_replications=value)
    assert err.value.field == f"{tmp_path / 'params' / 'paper.yaml'}: paper.cpu_replications{field}"
    assert said in err.value.message and "\n" not in str(err.value)
    # The notebook's reading of the same record refuses it alike, naming the file it is told.
    with pytest.raises(ParamsError) as err:
        cpu_replications_of(value, "p.yaml")
    assert err.value.field == f"p.yaml: paper.cpu_replications{field}"


def test_a_replication_not_measured_twice_or_without_the_first_is_refused_naming_the_field(tmp_path):
    raw = _measured(tmp_path / "raw", *BESIDE, *NAMES, NOSPEC_FIT, NOSPEC_TEST)
    key = f"{tmp_path / 'params' / 'paper.yaml'}: paper.cpu_replications"
    for record, field, said in (
        ({**NOSPEC_RECORD, "fit": "gone"}, "[0].fit", str(raw / "gone" / "samples.jsonl")),
        ({**NOSPEC_RECORD, "fit_costs": "gone"}, "[0].fit_costs", str(raw / "gone" / "samples.jsonl")),
        ({**NOSPEC_RECORD, "tests": [NOSPEC_TEST, "gone"]}, "[0].tests", str(raw / "gone" / "samples.jsonl")),
        ({**NOSPEC_RECORD, "tests": [NOSPEC_TEST, NOSPEC_TEST]}, "[0].tests", f"lists {NOSPEC_TEST!r} twice"),
        # The first's fit and costs again: one replication read twice, two groups with one head.
        ({"fit": CPU_FIT, "fit_costs": CPU_FIT_COSTS, "tests": [NOSPEC_TEST]}, "[0].fit", "again"),
    ):
        with pytest.raises(ParamsError) as err:
            _committed(tmp_path, raw, **_given(), cpu_replications=[record])
        assert err.value.field == key + field and said in err.value.message, record
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, **_given(), cpu_replications=[NOSPEC_RECORD, NOSPEC_RECORD])
    assert err.value.field == f"{key}[1].fit" and f"fits {NOSPEC_FIT!r} with the costs of {NOSPEC_FIT!r} again" in (
        err.value.message
    )
    # Another fit of the same campaign with other costs is another replication: read.
    other = {**NOSPEC_RECORD, "fit_costs": CPU_FIT_COSTS}
    assert _committed(tmp_path, raw, **_given(), cpu_replications=[NOSPEC_RECORD, other])[-3:] == [
        ("cpu-replication-fit", NOSPEC_FIT),
        ("cpu-replication-fit-costs", CPU_FIT_COSTS),
        ("cpu-replication-test", NOSPEC_TEST),
    ]
    # Without the first's three keys: refused naming the key, and the three it needs.
    fields = [f"{tmp_path / 'params' / 'paper.yaml'}: paper.{k}" for k in KEYS]
    with pytest.raises(ParamsError) as err:
        _committed(tmp_path, raw, cpu_replications=[NOSPEC_RECORD])
    assert err.value.field == key
    assert f"needs {fields[0]}, {fields[1]} and {fields[2]} set too" in err.value.message


def test_the_build_s_replication_check_names_its_arguments_or_the_options_it_is_told(tmp_path, capsys):
    raw = _measured(tmp_path / "raw", *NAMES, NOSPEC_FIT, NOSPEC_TEST)
    given = [CpuReplicationDirs(raw / NOSPEC_FIT, (raw / NOSPEC_TEST,))]
    check_cpu_replications([], None, None)  # none
    check_cpu_replications(given, raw / CPU_FIT, raw / CPU_FIT_COSTS)
    with pytest.raises(ParamsError) as err:
        check_cpu_replications(given, None, None)
    assert err.value.field == "cpu_replications"
    assert "needs cpu_fit_dir, cpu_fit_costs_dir and cpu_test_dirs set too" in err.value.message
    with pytest.raises(ParamsError) as err:
        check_cpu_replications([*given, CpuReplicationDirs(raw / "gone", (raw / NOSPEC_TEST,))], raw / CPU_FIT, None)
    assert err.value.field == "cpu_replications[1].fit" and str(raw / "gone" / "samples.jsonl") in err.value.message
    from vbench.commands.paper_cmd import REPLICATION_OPTIONS

    assert REPLICATION_OPTIONS.at(1) == (
        "--cpu-replication-fit (replication 2)",
        "--cpu-replication-fit-costs (replication 2)",
        "--cpu-replication-test (replication 2)",
    )
    with pytest.raises(ParamsError) as err:
        check_cpu_replications(
            [CpuReplicationDirs(raw / NOSPEC_FIT, ())], raw / CPU_FIT, raw / CPU_FIT_COSTS, fields=REPLICATION_OPTIONS
        )
    assert err.value.field == "--cpu-replication-test (replication 1)" and "lists no campaign" in err.value.message
    assert ReplicationFields().at(0)[2] == "cpu_replications[0].tests"


def test_the_command_groups_each_replication_s_options_after_the_fit_that_starts_it(tmp_path, capsys):
    from vbench.cli import build_parser

    parser = build_parser("paper")
    base = ["paper", "build", "--campaign", "main"]
    args = parser.parse_args(
        [
            *base,
            *("--cpu-replication-fit", "f1", "--cpu-replication-test", "t1", "--cpu-replication-test", "t2"),
            *("--cpu-replication-fit", "f2", "--cpu-replication-test", "t3", "--cpu-replication-fit-costs", "c2"),
        ]
    )
    assert args.cpu_replications == [
        CpuReplicationDirs(Path("f1"), (Path("t1"), Path("t2"))),
        CpuReplicationDirs(Path("f2"), (Path("t3"),), Path("c2")),
    ]
    assert build_parser("paper").parse_args(base).cpu_replications == []
    for argv, said in (
        (["--cpu-replication-test", "t1"], "give --cpu-replication-fit first"),
        (["--cpu-replication-fit-costs", "c1"], "give --cpu-replication-fit first"),
        (["--cpu-replication-fit", "f1", *["--cpu-replication-fit-costs", "c"] * 2], "given twice for one replication"),
    ):
        with pytest.raises(SystemExit) as exit_:
            build_parser("paper").parse_args([*base, *argv])
        assert exit_.value.code == 2 and said in capsys.readouterr().err, argv


def test_the_committed_keys_are_set_all_three_or_none_and_the_paper_stage_passes_and_depends_on_them():
    """Set, the stage passes each key to the notebook and depends on the fit's and its costs' samples and
    on each test's, a line each (a dependency on the list itself would be data/raw/<a>,<b>/samples.jsonl),
    no path twice; unset (absent from params/paper.yaml), the stage names them nowhere."""
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]
    assert len({bool(paper.get(key)) for key in KEYS}) == 1, "set all three or none"
    for key in KEYS:
        assert (f"-p {key} ${{paper.{key}}}" in stage["cmd"]) == (key in paper), key
    for key in KEYS[:2]:
        assert (f"data/raw/${{paper.{key}}}/samples.jsonl" in deps) == bool(paper.get(key)), key
    assert not any("cpu_tests" in d for d in deps)
    tests = campaign_list(paper.get("cpu_tests"))
    assert len(set(tests)) == len(tests)
    for name in (*(str(paper[k]) for k in KEYS[:2] if paper.get(k)), *tests):
        assert (ROOT / "data" / "raw" / name / "samples.jsonl").is_file(), name
    for name in tests:
        assert f"data/raw/{name}/samples.jsonl" in deps, f"dvc.yaml's paper stage lacks data/raw/{name}"
        assert (ROOT / "params" / "experiments" / f"{name}.yaml").is_file(), f"no design named {name}"
        assert paper["cost_fit_campaign"] and name not in (
            paper.get("cpu_fit_campaign"),
            paper.get("cpu_fit_costs_campaign"),
        )


def test_the_committed_replications_are_records_the_stage_reads_from_the_params_file_and_depends_on():
    """Each committed replication: after the three keys, measured, each campaign a design of its own and
    a line of the paper stage's dependencies (no path twice, the first's three not again); the stage
    passes params/paper.yaml, whose paper section it tracks, and the notebook reads the records from it."""
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["paper"]
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage["deps"]]
    records = cpu_replications_of(paper.get("cpu_replications"))
    assert [(r.fit, r.fit_costs, r.tests) for r in records] == [(NOSPEC_FIT, "", (NOSPEC_TEST,))]
    assert all(paper.get(k) for k in KEYS), "a replication needs the first's three keys"
    assert "-p paper_params params/paper.yaml" in stage["cmd"] and {"params/paper.yaml": ["paper"]} in stage["params"]
    named = [n for r in records for n in (r.fit, r.fit_costs, *r.tests) if n]
    for name in named:
        assert (ROOT / "data" / "raw" / name / "samples.jsonl").is_file(), name
        assert (ROOT / "params" / "experiments" / f"{name}.yaml").is_file(), f"no design named {name}"
        assert deps.count(f"data/raw/{name}/samples.jsonl") == 1, f"dvc.yaml's paper stage lacks data/raw/{name}"
        assert name not in (
            paper["cpu_fit_campaign"],
            paper["cpu_fit_costs_campaign"],
            *campaign_list(paper["cpu_tests"]),
        )
    # What the subsection says of them is what their designs set: speculation off, on both sides.
    for name in named:
        design = yaml.safe_load((ROOT / "params" / "experiments" / f"{name}.yaml").read_text())["experiment"]
        recorded = json.loads((ROOT / "data" / "raw" / name / "campaign.json").read_text())["experiment"]
        assert design["hadoop"] == recorded["hadoop"] == NOSPEC, name


@pytest.fixture(scope="module")
def committed_replications() -> list[CC.CpuPriced]:
    """The committed replications as the build reads them: the first's three keys, then each record."""
    from vbench.paper.inputs import PaperInputs

    if not (ROOT / "data" / "raw" / NOSPEC_TEST / "samples.jsonl").is_file():
        pytest.skip("the committed campaigns are not checked out")
    paper = yaml.safe_load((ROOT / "params" / "paper.yaml").read_text())["paper"]
    args = PaperInputs.from_params(paper).build_arguments(ROOT / "data" / "raw")

    def read(d: Path | None):
        return load_campaign(d) if d is not None else None

    first = CC.cpu_priced(
        read(args["cpu_fit_dir"]), read(args["cpu_fit_costs_dir"]), list(map(read, args["cpu_test_dirs"]))
    )
    further = [
        CC.cpu_priced(read(r.fit), read(r.fit_costs), list(map(read, r.tests))) for r in args["cpu_replications"]
    ]
    return [first, *further]


def test_the_committed_replications_rows_are_vbench_predict_s_for_them(committed_replications, capsys):
    """The table's rows of each committed replication, the first's and costs-nospec-fit-amd's, are `vbench
    predict --json`'s on the committed campaigns (the seeds their designs name, the default draws)."""
    first, nospec = committed_replications
    assert (nospec.fit_name, nospec.own_costs, [t.name for t in nospec.tests]) == (NOSPEC_FIT, True, [NOSPEC_TEST])
    assert nospec.tests[0].cpu.study.seed == 53041 and nospec.shared_settings == (("speculative", False),)
    for priced in committed_replications:
        assert _same_as_predict(ROOT / "data", priced, capsys) == 2 * sum(len(t.cpu.study.rows) for t in priced.tests)
    # docs/results.md's reading of costs-nospec-sameday-amd: gVisor's TeraSort under-predicted by a third
    # priced in CPU and more in wall time, its WordCount within 10 %, both LXC rows inside their intervals.
    cpu = {r.job: r for r in nospec.tests[0].cpu.gvisor_rows}
    wall = {r.job: r for r in nospec.tests[0].wall.gvisor_rows}
    assert round(cpu["terasort"].predicted.estimate, 2) == 2.49 and round(cpu["terasort"].error.estimate, 2) == 0.35
    assert round(cpu["wordcount"].predicted.estimate, 2) == 2.28 and round(cpu["wordcount"].error.estimate, 2) == -0.07
    assert (round(wall["terasort"].error.estimate, 2), round(wall["wordcount"].error.estimate, 2)) == (0.58, 0.08)
    assert [C.measured_holds(r) for r in nospec.tests[0].cpu.other_rows] == [True, True]


def _generated(main: Path, raw: Path, out: Path, **cpu) -> tuple[str, list[str], Path]:
    from vbench.paper.build import generate

    res = generate(main, out, n_resamples=200, sandbox_dir=raw / SANDBOX, cost_fit_dir=raw / FIT, **cpu)
    gen = out / "generated"
    return (gen / "costs.tex").read_text(), res.notes, gen


def test_the_build_writes_the_subsection_its_table_and_rows_and_omits_it_when_the_keys_are_empty(
    main_campaign, raw, tmp_path
):
    tests = [raw / CPU_TEST, raw / CPU_TEST_AGAIN]
    cpu = {"cpu_fit_dir": raw / CPU_FIT, "cpu_fit_costs_dir": raw / CPU_FIT_COSTS, "cpu_test_dirs": tests}
    tex, notes, gen = _generated(main_campaign, raw, tmp_path / "with", **cpu)
    part = _subsection(tex)
    assert part.rstrip().endswith(rf"\input{{generated/tables/{CC.NAME}.tex}}")
    assert rf"\label{{{CC.TABLE_LABEL}}}" in (gen / "tables" / f"{CC.NAME}.tex").read_text()
    rows = pd.read_csv(gen / f"{CC.NAME}.csv")
    assert len(rows) == 2 * 2 * 4 and set(rows["pricing"]) == {"cpu", "wall"}
    assert set(rows["calibration_campaign"]) == {CPU_TEST, CPU_TEST_AGAIN} and set(rows["fit_costs_campaign"]) == {
        CPU_FIT_COSTS
    }
    said = [n for n in notes if n.startswith("cost model priced in the machine's CPU")]
    assert [line.split(" predicted for ")[1].split("'s platforms")[0] for line in said] == [CPU_TEST, CPU_TEST_AGAIN]
    assert CC.OMITTED_NOTE not in notes
    campaigns = (gen / "tables" / "campaigns.tex").read_text()
    assert all(rf"\texttt{{{C.tex_escape(n)}}}" in campaigns for n in (CPU_FIT, CPU_FIT_COSTS, CPU_TEST_AGAIN))
    # Empty keys: no subsection, no table, and the build's notes say so once.
    tex, notes, gen = _generated(main_campaign, raw, tmp_path / "without")
    assert CC.LABEL not in tex and not (gen / "tables" / f"{CC.NAME}.tex").exists()
    assert sum(n == CC.OMITTED_NOTE for n in notes) == 1


def test_the_build_writes_each_replication_s_rows_and_lines_and_reads_its_campaigns(main_campaign, raw, tmp_path):
    cpu = {"cpu_fit_dir": raw / CPU_FIT, "cpu_fit_costs_dir": raw / CPU_FIT_COSTS, "cpu_test_dirs": [raw / CPU_TEST]}
    replication = CpuReplicationDirs(raw / NOSPEC_FIT, (raw / NOSPEC_TEST,))
    tex, notes, gen = _generated(main_campaign, raw, tmp_path / "with", **cpu, cpu_replications=[replication])
    part = _subsection(tex)
    assert "The same model was fitted and tested again" in part and r"\texttt{hadoop.speculative: false}" in part
    assert part.index(rf"\texttt{{{C.tex_escape(NOSPEC_TEST)}}} (5 blocks), priced") > part.index(
        rf"\texttt{{{C.tex_escape(CPU_TEST)}}} (5 blocks), priced"
    )
    table = (gen / "tables" / f"{CC.NAME}.tex").read_text()
    assert rf"Fitted on \texttt{{{C.tex_escape(NOSPEC_FIT)}}}" in table
    rows = pd.read_csv(gen / f"{CC.NAME}.csv")
    assert len(rows) == 2 * (4 + 4) and set(rows["fit_campaign"]) == {CPU_FIT, NOSPEC_FIT}
    said = [n for n in notes if n.startswith("cost model priced in the machine's CPU")]
    assert [line.split(" predicted for ")[1].split("'s platforms")[0] for line in said] == [CPU_TEST, NOSPEC_TEST]
    campaigns = (gen / "tables" / "campaigns.tex").read_text()
    assert all(rf"\texttt{{{C.tex_escape(n)}}}" in campaigns for n in (NOSPEC_FIT, NOSPEC_TEST))
    # Refused before anything is written, naming the record's field, where a campaign is not measured.
    gone = CpuReplicationDirs(raw / NOSPEC_FIT, (raw / "gone",))
    with pytest.raises(ParamsError) as err:
        _generated(main_campaign, raw, tmp_path / "gone", **cpu, cpu_replications=[replication, gone])
    assert err.value.field == "cpu_replications[1].tests" and not (tmp_path / "gone" / "generated").exists()

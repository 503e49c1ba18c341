"""Each study preset builds the command its study describes (issue #20 item 3).

The expected argv is written from the studies' text (/work/shared/seeds), not from the presets:
a preset that drifts from its study fails here.
"""

from __future__ import annotations

import pytest

from vbench.benchmarks.hadoop import dfsio, mrbench, nnbench, pi, terasort
from vbench.benchmarks.micro import dd, hdparm
from vbench.hadoop import jobs


def _args(steps, name):
    return next(s.args for s in steps if s.name == name)


def test_pi_vasconcelos_is_ten_billion_samples_over_six_maps():
    # Fig 6: "10 billion samples spread across 6 maps tasks"; Hadoop's pi takes samples per map.
    (step,) = pi.steps(pi.PRESETS["vasconcelos"], "/r")
    assert step.args[:2] == ("pi", "-Dmapreduce.output.fileoutputformat.outputdir=/r")
    maps, per_map = int(step.args[2]), int(step.args[3])
    assert maps == 6
    assert 10**10 <= maps * per_map < 10**10 + maps  # the fewest samples that reach 10^10


def test_mrbench_xavier_is_table_two():
    # Table II: 50 runs, 24 maps / 8 reduces, input "in the order of 1 million" lines.
    (step,) = mrbench.steps(mrbench.PRESETS["xavier2014"], "/r")
    assert step.main_class == "org.apache.hadoop.mapred.MRBench"
    assert step.args == (
        "-numRuns", "50", "-maps", "24", "-reduces", "8", "-inputLines", "1000000", "-baseDir", "/r/mrbench",
    )  # fmt: skip


def test_mrbench_vasconcelos_is_fifty_loops_of_mrbenchs_defaults():
    (step,) = mrbench.steps(mrbench.PRESETS["vasconcelos"], "/r")
    assert step.args == (
        "-numRuns", "50", "-maps", "2", "-reduces", "1", "-inputLines", "1", "-baseDir", "/r/mrbench",
    )  # fmt: skip


@pytest.mark.parametrize(
    "preset, files, size, ops",
    [
        ("xavier2014", "10", "3000MB", ["write"]),  # Figs 1-2: write only, up to 3000 MB
        ("vasconcelos", "10", "100MB", ["write", "read"]),  # Fig 3: 10 x 100 MB
        ("liu2012", "3", "1000MB", ["write", "read"]),  # Figs 4-5: 1000 MB files, 3 (6, 8) maps
    ],
)
def test_dfsio_presets_write_the_studies_files_with_three_replicas(preset, files, size, ops):
    steps = dfsio.steps(dfsio.PRESETS[preset], "/r")
    assert [s.name for s in steps] == ops
    for op in ops:
        assert _args(steps, op) == (
            "-Dtest.build.data=/r/dfsio", "-Ddfs.replication=3", f"-{op}", "-nrFiles", files, "-size", size,
            "-resFile", "/dev/null",
        )  # fmt: skip


def test_nnbench_presets_make_a_thousand_files():
    for preset, maps, reduces in (("vasconcelos", "6", "2"), ("xavier2014", "2", "1")):
        args = _args(nnbench.steps(nnbench.PRESETS[preset], "/r"), "create_write")
        at = {a: args[i + 1] for i, a in enumerate(args[:-1]) if a.startswith("-")}
        assert (at["-numberOfFiles"], at["-maps"], at["-reduces"]) == ("1000", maps, reduces), preset


@pytest.mark.parametrize("preset, size_mb", [("vasconcelos", 2048), ("xavier2014", 30 * 1024)])
def test_terasort_presets_generate_the_studies_size_with_three_replicas(preset, size_mb):
    steps = terasort.steps(terasort.PRESETS[preset], "/r")
    gen = _args(steps, "teragen")
    assert gen[:2] == ("teragen", "-Ddfs.replication=3")
    assert gen[-2:] == (str(jobs.teragen_rows(size_mb * 1024**2)), "/r/gen")
    assert "-Dmapreduce.terasort.output.replication=1" in _args(steps, "terasort")


def test_dd_liu_writes_32_mb_a_hundred_times_with_fdatasync_six_times():
    cmd = dd.command(dd.PRESETS["liu2012"], "/w")
    assert "dd if=/dev/zero of=/w/vbench-dd.dat bs=32M count=100 conv=fdatasync" in cmd
    assert "$(seq 1 6)" in cmd


def test_hdparm_liu_is_plain_dash_t_repeated_on_the_nodes_own_device():
    cfg = hdparm.PRESETS["liu2012"]
    cmd = hdparm.command(cfg, "/w")
    assert cmd.count('hdparm -t "$dev"') == cfg.repeats == 6
    assert "--direct" not in cmd  # the study's `hdparm -t`: buffered device reads
    assert "findmnt -no SOURCE -T" in cmd  # each node's own disk, found where it runs

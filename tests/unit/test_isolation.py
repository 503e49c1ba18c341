"""vbench.isolation: stress builders, the pids guard, tenants, plan, watch, degradation."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vbench.benchmarks.hadoop.steps import ReadStep, StepOutput
from vbench.errors import JobFailed, ParamsError, VbenchError
from vbench.isolation import params as P
from vbench.isolation import pids as PI
from vbench.isolation import stress as S
from vbench.isolation import workload as W
from vbench.isolation.run import condition_stamp, plan, watch_samples
from vbench.isolation.watch import summarise
from vbench.machine_fit import MachineFacts, check_limits_fit
from vbench.params import testbed_params as make_testbed
from vbench.samples import Sample
from vbench.stats.slowdown import slowdown_rows, slowdown_stats
from vbench.testbed import limits as L
from vbench.testbed.oci import oci_config

DATA = Path(__file__).resolve().parents[1] / "data"
PRESET = Path(__file__).resolve().parents[2] / "params" / "experiments" / "xavier2014.yaml"


# -- stress commands -------------------------------------------------------------------------
def test_each_stress_builds_its_stress_ng_command_and_the_baseline_none():
    load = S.StressLoad(workers=2, vm_bytes=600 * 1024**2, hdd_bytes=128 * 1024**2, timeout_s=60)
    assert S.command("none", load) is None
    assert S.command("cpu", load) == "stress-ng --cpu 2 --cpu-method all --timeout 60s --metrics-brief"
    assert "--vm 2 --vm-bytes 629145600 --vm-keep" in S.command("memory", load)
    io = S.command("io", load)
    assert "--hdd 2 --hdd-bytes 134217728" in io and "--hdd-opts dsync" in io and "--temp-path /var/tmp/vbench-stress" in io


def test_fork_bomb_is_a_real_unbounded_fork_bomb():
    cmd = S.command("forkbomb", S.StressLoad())
    assert cmd == "bash -c 'bomb() { bomb | bomb & }; bomb'"


def test_unknown_stress_is_refused():
    with pytest.raises(ValueError, match="unknown stress 'disk'"):
        S.command("disk", S.StressLoad())


def test_launch_line_detaches_and_prints_the_pid():
    line = S.launch_line("stress-ng --cpu 1 --timeout 5s")
    assert line.startswith("setsid sh -c 'stress-ng --cpu 1 --timeout 5s' > /var/tmp/vbench-stress.log 2>&1 < /dev/null &")
    assert line.endswith("echo $!")


def test_memory_stress_stays_below_the_neighbours_limit():
    load = S.load_for(cpus=1, memory_mb=1024, timeout_s=30)
    assert load.workers == 1 and load.vm_bytes < 1024 * 1024**2 and load.vm_bytes % 4096 == 0
    assert S.load_for(cpus=2, memory_mb=1024, timeout_s=30).vm_bytes * 2 < 1024 * 1024**2


# -- pids guard ------------------------------------------------------------------------------
def test_pids_files_captured_during_a_fork_bomb_are_parsed():
    d = DATA / "platforms"
    assert PI.parse_pids_max((d / "pids_max_forkbomb.txt").read_text()) == 256
    assert PI.parse_pids_max((d / "pids_max_unlimited.txt").read_text()) is None
    assert PI.parse_pids_events((d / "pids_events_forkbomb.txt").read_text()) > 0
    assert int((d / "pids_current_forkbomb.txt").read_text()) <= 256


def test_pids_files_are_parsed():
    assert PI.parse_pids_max("max\n") is None
    assert PI.parse_pids_max("256\n") == 256
    assert PI.parse_pids_events("max 4711\n") == 4711
    assert PI.parse_pids_events("") == 0


def test_fork_bomb_refused_without_a_limit_or_with_a_larger_one():
    assert "no limit" in PI.refusal(None, 256)
    assert "above the 256" in PI.refusal(1024, 256)
    assert PI.refusal(256, 256) is None and PI.refusal(128, 256) is None


def test_require_pids_limit_reads_the_cgroup_file(tmp_path):
    (tmp_path / "pids.max").write_text("max\n")
    with pytest.raises(VbenchError, match="refusing to start the fork bomb"):
        PI.require_pids_limit(PI.PidsCgroup(tmp_path), 256)
    (tmp_path / "pids.max").write_text("256\n")
    assert PI.require_pids_limit(PI.PidsCgroup(tmp_path), 256) == 256


def test_pids_max_is_a_cgroup_setting_an_oci_limit_and_refused_for_vms():
    lim = make_testbed({"platform": "lxc", "limits": {"pids_max": 256}}).resolved_hosts()[0].limits
    assert L.cgroup_v1_settings(lim, None) == {"pids.max": "256"}
    spec = oci_config(hostname="h", rootfs=Path("/r"), netns_path="/n", cgroups_path="/c",
                      limits_settings={"pids.max": "256"}, disk=None)
    assert spec["linux"]["resources"]["pids"] == {"limit": 256}
    with pytest.raises(ParamsError, match="pids_max applies to lxc and oci"):
        check_limits_fit(make_testbed({"platform": "qemu", "limits": {"pids_max": 256}}),
                         MachineFacts(mem_total_mb=24000, cpus=2))


# -- params and tenants ----------------------------------------------------------------------
def test_preset_describes_the_experiment():
    iso = P.load_isolation(PRESET)
    assert iso.stresses == ("none", "cpu", "memory", "io", "forkbomb")
    assert iso.tenant_b.limits.pids_max == 256
    # The two tenants share no CPU.
    assert not set(iso.tenant_a.limits.cpuset_cpus) & set(iso.tenant_b.limits.cpuset_cpus)


def test_fork_bomb_without_pids_max_is_refused_in_params():
    with pytest.raises(ParamsError, match="pids_max is required"):
        P.isolation_params({"tenant_b": {"limits": {"cpuset": "1"}}})
    with pytest.raises(ParamsError, match="must be listed"):
        P.isolation_params({"stresses": ["cpu"]})


def test_tenants_get_their_own_testbeds_limits_and_subnets():
    base = make_testbed({"name": "i4", "network": {"bridge": "i4br", "subnet": "10.204.0.0/24"}})
    iso = P.IsolationParams(workers=1)
    a, b = P.tenant_a_testbed(base, iso), P.tenant_b_testbed(base, iso)
    assert [h.name for h in a.resolved_hosts()] == ["master", "worker1"]
    assert all(h.limits.cpuset == "0" and h.platform == "lxc" for h in a.resolved_hosts())
    (nb,) = b.resolved_hosts()
    assert (b.name, b.network.bridge, str(b.network.subnet)) == ("i4n", "i4nbr", "10.204.0.128/25")
    assert nb.limits.pids_max == 256 and nb.limits.cpuset == "1"
    assert P.neighbour_name("abcdef") == "abcden"


# -- plan and stamps -------------------------------------------------------------------------
def test_plan_runs_every_stress_once_per_repetition_in_a_seeded_order():
    iso = P.IsolationParams(repetitions=3)
    p = plan(iso)
    assert len(p) == 15
    for rep in (1, 2, 3):
        assert sorted(c.stress for c in p if c.repetition == rep) == sorted(S.STRESSES)
    assert p == plan(iso)
    assert [c.stress for c in p] != [c.stress for c in plan(P.IsolationParams(repetitions=3, seed=1))]


def test_stamp_carries_what_the_paper_table_groups_by():
    st = condition_stamp(plan(P.IsolationParams())[0], P.IsolationParams(size_mb=16), "lxc")
    assert st["experiment"] == "isolation" and st["size"] == "16MB" and st["stress"] in S.STRESSES
    assert "pids_max=256" in st["tenant_b_limits"]


# -- workload --------------------------------------------------------------------------------
def test_workload_sorts_the_shared_input_and_validates():
    cfg = W.Config(size_mb=16)
    gen = W.generate_step(cfg)
    assert gen.args[-1] == W.INPUT_DIR and gen.args[-2] == str(16 * 1024**2 // 100)
    steps = W.steps(cfg, "/vbench/r1")
    assert [s.name for s in steps] == ["terasort", "teravalidate", "report"]
    assert steps[0].args[-2:] == (W.INPUT_DIR, "/vbench/r1/sorted")
    assert isinstance(steps[2], ReadStep) and steps[2].hdfs_glob == "/vbench/r1/validate/part-r-*"


def test_workload_parse_gates_on_teravalidate():
    ok = (DATA / "hadoop" / "teravalidate_report_valid.txt").read_text()
    bad = (DATA / "hadoop" / "teravalidate_report_misorder.txt").read_text()
    outs = {"terasort": StepOutput("", "", 40.0), "teravalidate": StepOutput("", "", 20.0)}
    samples = {s.metric: s for s in W.parse({**outs, "report": StepOutput(ok, "", 1.0)}, W.Config(size_mb=16))}
    assert samples["terasort_time"].value == 40.0 and samples["terasort_throughput"].value == 0.4
    with pytest.raises(JobFailed, match="misorder"):
        W.parse({**outs, "report": StepOutput(bad, "", 1.0)}, W.Config())


# -- watch -----------------------------------------------------------------------------------
def test_watch_summary_and_samples():
    w = summarise(256, [3, 120, 256, 255], refused_before=10, refused_after=5010, latencies=[0.5, 1.5, 0.7], failures=0)
    assert (w.pids_peak, w.refused_forks, w.probe_max_s, w.probe_median_s) == (256, 5000, 1.5, 0.7)
    assert w.responsive(2.0) and not w.responsive(1.0)
    assert not summarise(256, [], 0, 0, [0.1], failures=1).responsive(10)
    m = {s.metric: s.value for s in watch_samples(w, stress_tasks=250, responsive_within_s=2.0)}
    assert m["pids_peak"] == 256 and m["pids_max"] == 256 and m["responsive"] == 1.0 and m["refused_forks"] == 5000


# -- the slowdown (vbench.stats.slowdown: one computation for `vbench isolation` and the paper) ---
def _frame(times: dict[str, list[float]], platform: str = "lxc") -> pd.DataFrame:
    return pd.DataFrame([{"experiment": "isolation", "platform": platform, "benchmark": "terasort",
                          "metric": "terasort_time", "unit": "s", "value": v, "repetition": i + 1, "size": "16MB",
                          "stress": k} for k, vs in times.items() for i, v in enumerate(vs)])


def test_slowdown_is_the_ratio_to_the_idle_neighbour_with_a_fieller_ci():
    t = {"none": [40.0, 42.0, 41.0], "cpu": [41.0, 43.0, 42.0], "memory": [48.0, 50.0, 49.0]}
    rows = {r.stress: r for r in slowdown_rows(slowdown_stats(_frame(t), n_resamples=2000), S.STRESSES)}
    assert list(rows) == ["none", "cpu", "memory"]
    assert rows["none"].pct is None and rows["none"].mean_s == pytest.approx(41.0) and rows["none"].n == 3
    assert rows["memory"].pct == pytest.approx((49.0 / 41.0 - 1) * 100)
    low, high = rows["memory"].fieller
    assert 0.0 < low < rows["memory"].pct < high  # clearly slower
    assert rows["cpu"].fieller[0] < 0.0 < rows["cpu"].fieller[1]  # not distinguishable
    assert not any(np.isnan(rows["memory"].bootstrap))
    assert rows["memory"].text().startswith("+19.5 % [")


def test_the_terminal_table_and_the_paper_table_are_one_computation():
    from vbench.paper.tables import isolation_stats
    from vbench.stats.campaign_stats import StatsConfig
    df = _frame({"none": [40.0, 42.0, 41.0, 40.5], "io": [44.0, 45.5, 43.0, 44.2]})
    # The paper's frame holds the cell in `size` (stress included) and the size in `size_label`.
    paper = isolation_stats(df.assign(size="16MB, stress=x", size_label="16MB"), StatsConfig(n_resamples=500))
    pd.testing.assert_frame_equal(paper, slowdown_stats(df, n_resamples=500))


def test_a_slowdown_from_one_run_says_why_there_is_no_interval():
    [none, cpu] = slowdown_rows(slowdown_stats(_frame({"none": [40.0], "cpu": [44.0]})), S.STRESSES)
    assert cpu.pct == pytest.approx(10.0) and none.text() == "-"
    assert cpu.text() == "+10.0 % (no CI: fewer than 2 runs of this stress or of the baseline)"


# -- the paper reads the isolation campaign --------------------------------------------------
def test_paper_table_iii_comes_from_the_isolation_campaign(tmp_path):
    pytest.importorskip("matplotlib")
    from vbench.paper.build import generate
    from vbench.paper.synthetic import write_synthetic_campaign
    from vbench.samples import append_records

    main = write_synthetic_campaign(tmp_path / "main", platforms=("native", "lxc"), with_isolation=False)
    rng = np.random.default_rng(3)
    recs = [Sample("terasort", "terasort_time", float(40 * k * (1 + 0.02 * rng.standard_normal())), "s",
                   {"experiment": "isolation", "platform": "lxc", "stress": stress, "repetition": rep, "size": "16MB"})
            for stress, k in (("none", 1.0), ("cpu", 1.0), ("memory", 1.2), ("io", 1.1), ("forkbomb", 1.0))
            for rep in (1, 2, 3)]
    (tmp_path / "iso").mkdir()
    append_records(tmp_path / "iso" / "samples.jsonl", recs)
    without = generate(main, tmp_path / "a", n_resamples=200)
    with_iso = generate(main, tmp_path / "b", n_resamples=200, isolation_dir=tmp_path / "iso")
    assert "isolation" in without.tables_absent and "isolation" in with_iso.tables_with_data
    tex = (tmp_path / "b" / "generated" / "tables" / "isolation.tex").read_text()
    assert "lxc" in tex and "not measured" not in tex
    # The isolation samples do not leak into the platform statistics.
    assert (tmp_path / "a" / "generated" / "stats.csv").read_text() == (tmp_path / "b" / "generated" / "stats.csv").read_text()


COMMITTED = Path(__file__).resolve().parents[2] / "data" / "raw"


@pytest.mark.skipif(not (COMMITTED / "isolation" / "samples.jsonl").exists(), reason="no committed isolation campaign")
def test_committed_isolation_run_fills_table_iii_without_hosts(tmp_path, fresh_clone_campaign):
    pytest.importorskip("matplotlib")
    from vbench.paper.build import generate
    from vbench.samples import read_records

    recs = [r for r in read_records(COMMITTED / "isolation" / "samples.jsonl") if isinstance(r, Sample)]
    bomb = [r for r in recs if r.benchmark == "isolation_watch" and r.metadata.get("stress") == "forkbomb"]
    m = {r.metric: r.value for r in bomb}
    # The committed fork bomb hit its limit and never passed it; the machine kept answering.
    assert m["pids_peak"] <= m["pids_max"] == 256 and m["refused_forks"] > 0 and m["responsive"] == 1.0
    res = generate(fresh_clone_campaign("reference"), tmp_path, n_resamples=200, isolation_dir=COMMITTED / "isolation")
    assert "isolation" in res.tables_with_data

"""vbench.isolation: stress builders, the pids guard, tenants, the design the runner runs, the
neighbour hook, the watch, the slowdown."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vbench.benchmarks.hadoop import HADOOP_BENCHMARKS
from vbench.campaign.design import design_hash, expand
from vbench.campaign.hooks import condition_level
from vbench.campaign.runner import params_for, run_campaign
from vbench.errors import ParamsError, VbenchError
from vbench.host import Host, SshEndpoint
from vbench.isolation import params as P
from vbench.isolation import pids as PI
from vbench.isolation import stress as S
from vbench.isolation.experiment import isolation_experiment
from vbench.isolation.neighbour import neighbour_stamp, watch_samples
from vbench.isolation.watch import summarise
from vbench.machine_fit import MachineFacts, check_limits_fit
from vbench.params import testbed_params as make_testbed
from vbench.params import HadoopParams
from vbench.samples import Failure, Sample, read_records
from vbench.stats.slowdown import slowdown_rows, slowdown_stats
from vbench.stats.tidy import read_campaign
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
    assert (
        "--hdd 2 --hdd-bytes 134217728" in io
        and "--hdd-opts dsync" in io
        and "--temp-path /var/tmp/vbench-stress" in io
    )


def test_fork_bomb_is_a_real_unbounded_fork_bomb():
    cmd = S.command("forkbomb", S.StressLoad())
    assert cmd == "bash -c 'bomb() { bomb | bomb & }; bomb'"


def test_unknown_stress_is_refused():
    with pytest.raises(ValueError, match="unknown stress 'disk'"):
        S.command("disk", S.StressLoad())


def test_launch_line_detaches_and_prints_the_pid():
    line = S.launch_line("stress-ng --cpu 1 --timeout 5s")
    assert line.startswith(
        "setsid sh -c 'stress-ng --cpu 1 --timeout 5s' > /var/tmp/vbench-stress.log 2>&1 < /dev/null &"
    )
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
    spec = oci_config(
        hostname="h",
        rootfs=Path("/r"),
        netns_path="/n",
        cgroups_path="/c",
        limits_settings={"pids.max": "256"},
        disk=None,
    )
    assert spec["linux"]["resources"]["pids"] == {"limit": 256}
    with pytest.raises(ParamsError, match="pids_max applies to lxc and oci"):
        check_limits_fit(
            make_testbed({"platform": "qemu", "limits": {"pids_max": 256}}), MachineFacts(mem_total_mb=24000, cpus=2)
        )


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


# -- the design the runner runs ---------------------------------------------------------------
def _cells(iso: P.IsolationParams, hadoop: HadoopParams | None = None):
    return expand(isolation_experiment(iso, hadoop or HadoopParams()))


def test_every_stress_runs_once_per_block_in_a_seeded_order():
    iso = P.IsolationParams(repetitions=3)
    cells = _cells(iso)
    assert len(cells) == 15
    for block in (0, 1, 2):
        assert sorted(condition_level(c, "stress") for c in cells if c.block == block) == sorted(S.STRESSES)
    order = [c.cell_id for c in cells]
    assert order == [c.cell_id for c in _cells(iso)]
    assert order != [c.cell_id for c in _cells(P.IsolationParams(repetitions=3, seed=1))]


def test_the_workload_is_the_registrys_terasort_at_the_experiments_scale():
    iso = P.IsolationParams(size_mb=16, maps=2, reduces=1, workers=1)
    exp = isolation_experiment(iso, HadoopParams(replication=3))
    cells = expand(exp)
    assert {c.variant.benchmark for c in cells} == {"terasort"}
    assert all(type(c.variant.config) is HADOOP_BENCHMARKS["terasort"].Config for c in cells)
    cfg = cells[0].variant.config
    # Replication cannot exceed tenant A's workers.
    assert (cfg.size_mb, cfg.maps, cfg.reduces, cfg.replication) == (16, 2, 1, 1)
    assert exp.hadoop == {"replication": 1} and exp.testbed["limits"] == iso.tenant_a.limits.as_dict()
    assert exp.experiment == "isolation" and exp.platforms == ("lxc",) and exp.seed == iso.seed


def test_the_neighbours_settings_are_part_of_the_design():
    base = isolation_experiment(P.IsolationParams(), HadoopParams())
    other = isolation_experiment(P.IsolationParams(warmup_s=9), HadoopParams())
    assert design_hash(base) != design_hash(other)
    assert other.condition.settings["warmup_s"] == 9 and "tenant_b" in other.condition.settings


def test_tenant_a_is_the_runners_configuration_with_tenant_a_limits():
    base = make_testbed({"name": "i4", "network": {"bridge": "i4br", "subnet": "10.204.0.0/24"}})
    iso = P.IsolationParams(workers=1)
    exp = isolation_experiment(iso, HadoopParams())
    tb, _ = params_for(exp, exp.configurations()[0], P.tenant_a_testbed(base, iso), HadoopParams())
    assert tb == P.tenant_a_testbed(base, iso)


def test_stamp_carries_what_the_paper_table_groups_by():
    st = neighbour_stamp("cpu", P.IsolationParams(size_mb=16))
    assert st["stress"] == "cpu" and "pids_max=256" in st["tenant_b_limits"] and "cpuset=0" in st["tenant_a_limits"]


# -- watch -----------------------------------------------------------------------------------
def test_watch_summary_and_samples():
    w = summarise(256, [3, 120, 256, 255], refused_before=10, refused_after=5010, latencies=[0.5, 1.5, 0.7], failures=0)
    assert (w.pids_peak, w.refused_forks, w.probe_max_s, w.probe_median_s) == (256, 5000, 1.5, 0.7)
    assert w.responsive(2.0) and not w.responsive(1.0)
    assert not summarise(256, [], 0, 0, [0.1], failures=1).responsive(10)
    m = {s.metric: s.value for s in watch_samples(w, stress_tasks=250, responsive_within_s=2.0)}
    assert m["pids_peak"] == 256 and m["pids_max"] == 256 and m["responsive"] == 1.0 and m["refused_forks"] == 5000
    assert m["pids_samples"] == 4


# -- the neighbour hook, run by the campaign runner ----------------------------------------------
class FakeNeighbour:
    """Tenant B without containers: its testbed, pids cgroup, stress and watch, all recorded in
    `fake_hadoop.events` beside the runner's own events."""

    def __init__(self, events: list[str], pids_limit: int | None = 256, silent: tuple[str, ...] = ()):
        self.events, self.pids_limit, self.silent = events, pids_limit, silent
        self.stress: str | None = None

    def testbed(self, params, log=print):
        fake = self

        class Bed:
            hosts = [
                Host(
                    "neighbour",
                    "master",
                    "lxc",
                    "10.213.0.200",
                    "/w",
                    SshEndpoint("10.213.0.200", "root", Path("/k"), Path("/kh")),
                )
            ]
            ctx = None

            def down(self):
                fake.events.append("B cleared")

            def __enter__(self):
                fake.events.append("B up")
                return self

            def __exit__(self, *exc):
                fake.events.append("B down")
                fake.stress = None

        return Bed()

    def cgroup(self, tenant_b, bed):
        fake = self

        class Cgroup:
            path = Path("/sys/fs/cgroup/pids/vbench-i/neighbour")

            def limit(self):
                return fake.pids_limit

            def current(self):
                return 1 + (40 if fake.stress not in (None, "none", *fake.silent) else 0)

            def refused_forks(self):
                return 0

        return Cgroup()

    def start(self, host, kind, load):
        self.stress = kind
        self.events.append(f"B stress {kind}")
        return "123"

    def watch(self, cg, probe):
        fake = self

        class W:
            def start(self):
                return self

            def stop(self):
                fake.events.append("watch stopped")
                return summarise(fake.pids_limit, [41, 41], 0, 0, [0.2], 0)

        return W()


@pytest.fixture
def isolation(fake_hadoop, monkeypatch, tmp_path):
    from vbench.isolation import neighbour as N

    fake = FakeNeighbour(fake_hadoop.events)
    monkeypatch.setattr(N, "Testbed", fake.testbed)
    monkeypatch.setattr(N, "pids_cgroup", fake.cgroup)
    monkeypatch.setattr(N, "start_stress", fake.start)
    monkeypatch.setattr(N, "stress_log", lambda host: "stress-ng: info: successful run completed")
    monkeypatch.setattr(N, "Watch", fake.watch)
    monkeypatch.setattr(N.time, "sleep", lambda s: None)
    times = {"none": 40.0, "cpu": 41.0, "memory": 49.0, "io": 44.0, "forkbomb": 40.5}

    def terasort(module, cfg, run_dir):
        return [Sample("terasort", "terasort_time", times[fake.stress], "s", {"verdict": "checksum 1"})]

    fake_hadoop.execute = terasort
    iso = P.IsolationParams(repetitions=2, warmup_s=0)
    base = make_testbed({"name": "it", "network": {"bridge": "itbr", "subnet": "10.213.0.0/24"}})
    tb_b = P.tenant_b_testbed(base, iso)

    def run(**kw):
        return run_campaign(
            isolation_experiment(iso, HadoopParams()),
            P.tenant_a_testbed(base, iso),
            HadoopParams(),
            tmp_path / "iso",
            log=lambda _l: None,
            hosts_source=fake_hadoop.source(),
            hook=N.Neighbour(iso, tb_b),
            **kw,
        )

    return fake, run, tmp_path / "iso"


def test_each_terasort_runs_beside_a_fresh_neighbour_running_its_stress(isolation, fake_hadoop):
    fake, run, camp = isolation
    result = run()
    assert result.failures == 0 and len(result.ran) == 10
    ev = fake_hadoop.events
    runs = [i for i, e in enumerate(ev) if e == "execute terasort"]
    assert len(runs) == 10
    for i in runs:  # B brought up with the stress started before, torn down after, every time
        stress = ev[i - 1].removeprefix("B stress ")
        assert ev[i - 3 : i] == ["B cleared", "B up", f"B stress {stress}"]
        assert ev[i + 1 : i + 3] == ["watch stopped", "B down"]
    records = list(read_records(camp / "samples.jsonl"))
    sorts = [r for r in records if r.metric == "terasort_time"]
    for r in sorts:
        m = r.metadata
        assert m["stress"] == m["factor.stress"] and m["experiment"] == "isolation" and m["platform"] == "lxc"
        assert m["run_id"] and m["vbench_commit"] == "0123abcd" and m["design_hash"] and m["page_cache"] == "kept"
        watch = {
            w.metric: w.value
            for w in records
            if w.benchmark == "isolation_watch" and w.metadata["run_id"] == m["run_id"]
        }
        assert watch["stress_tasks"] == (0 if m["stress"] == "none" else 40) and watch["pids_max"] == 256
    # The stress's log is kept with the run it stressed.
    logs = list(camp.glob("raw/*/stress_log.txt"))
    assert len(logs) == 2 * 3
    # The terminal's table and the paper's come from these samples.
    rows = {r.stress: r for r in slowdown_rows(slowdown_stats(read_campaign(camp).samples), S.STRESSES)}
    assert rows["memory"].pct == pytest.approx((49.0 / 40.0 - 1) * 100) and rows["memory"].n == 2
    # The paper reads the same campaign to the same table (Table III).
    from vbench.paper.tables.jobs import isolation_stats
    from vbench.stats.campaign import load_campaign
    from vbench.stats.campaign_stats import StatsConfig

    paper = isolation_stats(load_campaign(camp).samples, StatsConfig(n_resamples=200))
    terminal = slowdown_stats(read_campaign(camp).samples, n_resamples=200)
    pd.testing.assert_frame_equal(paper, terminal)


def test_a_bomb_without_a_limit_read_back_fails_its_run_only_and_b_is_torn_down(isolation, fake_hadoop):
    fake, run, camp = isolation
    fake.pids_limit = None  # the params asked for one; the cgroup says "max"
    result = run()
    failures = [r for r in read_records(camp / "samples.jsonl") if isinstance(r, Failure)]
    assert result.failures == 2 and len(failures) == 2
    assert all(f.metadata["factor.stress"] == "forkbomb" and "no limit in force" in f.reason for f in failures)
    assert "B stress forkbomb" not in fake_hadoop.events
    assert fake_hadoop.events.count("B up") == fake_hadoop.events.count("B down") == 10


def test_a_stress_that_did_not_start_fails_its_run(isolation, fake_hadoop):
    fake, run, camp = isolation
    fake.silent = ("io",)
    run()
    (f1, f2) = [r for r in read_records(camp / "samples.jsonl") if isinstance(r, Failure)]
    assert "the io stress is not running in neighbour" in f1.reason and f1.metadata["factor.stress"] == "io"
    assert fake_hadoop.events.count("execute terasort") == 8


# -- the slowdown (vbench.stats.slowdown: one computation for `vbench isolation` and the paper) ---
def _frame(times: dict[str, list[float]], platform: str = "lxc") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "experiment": "isolation",
                "platform": platform,
                "benchmark": "terasort",
                "metric": "terasort_time",
                "unit": "s",
                "value": v,
                "repetition": i + 1,
                "size": "16MB",
                "stress": k,
            }
            for k, vs in times.items()
            for i, v in enumerate(vs)
        ]
    )


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
    from vbench.paper.tables.jobs import isolation_stats
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
    recs = [
        Sample(
            "terasort",
            "terasort_time",
            float(40 * k * (1 + 0.02 * rng.standard_normal())),
            "s",
            {"experiment": "isolation", "platform": "lxc", "stress": stress, "repetition": rep, "size": "16MB"},
        )
        for stress, k in (("none", 1.0), ("cpu", 1.0), ("memory", 1.2), ("io", 1.1), ("forkbomb", 1.0))
        for rep in (1, 2, 3)
    ]
    (tmp_path / "iso").mkdir()
    append_records(tmp_path / "iso" / "samples.jsonl", recs)
    without = generate(main, tmp_path / "a", n_resamples=200)
    with_iso = generate(main, tmp_path / "b", n_resamples=200, isolation_dir=tmp_path / "iso")
    assert "isolation" in without.tables_absent and "isolation" in with_iso.tables_with_data
    tex = (tmp_path / "b" / "generated" / "tables" / "isolation.tex").read_text()
    assert "lxc" in tex and "not measured" not in tex
    # The isolation samples do not leak into the platform statistics.
    assert (tmp_path / "a" / "generated" / "stats.csv").read_text() == (
        tmp_path / "b" / "generated" / "stats.csv"
    ).read_text()


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

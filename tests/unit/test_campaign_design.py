"""Experiment designs: validation, expansion into cells, blocked and seeded randomised order."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from vbench.campaign.design import BenchmarkSpec, Experiment, design_hash, expand, load_experiment, sessions
from vbench.campaign.runner import duet_label
from vbench.errors import ParamsError

PRESETS = Path(__file__).resolve().parents[2] / "params" / "experiments"


def exp(**kw) -> Experiment:
    base = dict(
        name="t",
        platforms=("native",),
        repetitions=3,
        calibrate=(BenchmarkSpec(benchmark="cpu"),),
        suite=(BenchmarkSpec(benchmark="terasort", config={"size_mb": [16, 32]}), BenchmarkSpec(benchmark="pi")),
    )
    return Experiment(**{**base, **kw})


def test_every_cell_appears_once_per_block():
    cells = expand(exp())
    ids = [c.cell_id for c in cells]
    assert len(ids) == len(set(ids)) == 3 * 4
    assert Counter(c.block for c in cells) == {0: 4, 1: 4, 2: 4}
    assert {c.variant.key for c in cells} == {"cpu", "pi", "terasort[size_mb=16]", "terasort[size_mb=32]"}


def test_factor_levels_become_configs():
    cells = [c for c in expand(exp()) if c.variant.benchmark == "terasort"]
    assert sorted({c.variant.config.size_mb for c in cells}) == [16, 32]


def test_blocks_run_in_sequence_and_calibration_precedes_the_suite_within_a_platform():
    cells = expand(exp(platforms=("native",)))
    assert [c.block for c in cells] == sorted(c.block for c in cells)
    for b in range(3):
        kinds = [c.variant.kind for c in cells if c.block == b]
        assert kinds == sorted(kinds, key=lambda k: k != "micro")


def test_order_is_seeded_random_within_blocks():
    a = [c.cell_id for c in expand(exp(seed=1, repetitions=6))]
    b = [c.cell_id for c in expand(exp(seed=1, repetitions=6))]
    c = [c.cell_id for c in expand(exp(seed=2, repetitions=6))]
    assert a == b and a != c
    # Not the same order in every block: the point of randomising against drift.
    orders = {tuple(x.variant.key for x in expand(exp(seed=1, repetitions=6)) if x.block == k) for k in range(6)}
    assert len(orders) > 1


def test_warmup_blocks_are_marked():
    cells = expand(exp(warmup_blocks=1))
    assert all(c.warmup == (c.block == 0) for c in cells)


def test_design_hash_changes_with_the_design():
    assert design_hash(exp()) == design_hash(exp())
    assert design_hash(exp()) != design_hash(exp(repetitions=4))


@pytest.mark.parametrize(
    "data, field",
    [
        ({"name": "x", "platforms": ["xen"]}, "experiment.platforms"),
        ({"name": "x", "repetitions": 0}, "experiment.repetitions"),
        ({"name": "x", "suite": [{"benchmark": "nosuch"}]}, "experiment.suite[0].benchmark"),
        ({"name": "x", "suite": [{"benchmark": "pi", "config": {"maps": 0}}]}, "experiment.suite[0].config.maps"),
        ({"name": "x", "suite": [{"benchmark": "pi", "config": {"bogus": 1}}]}, "experiment.suite[0].config.bogus"),
        # The same benchmark twice without a level that tells them apart: one cell id for both.
        (
            {"name": "x", "calibrate": [{"benchmark": "cpu"}, {"benchmark": "cpu", "config": {"time_s": 2}}]},
            "experiment.calibrate[1]",
        ),
    ],
)
def test_bad_designs_name_the_file_and_field(tmp_path, data, field):
    path = tmp_path / "e.yaml"
    path.write_text(yaml.safe_dump({"experiment": data}))
    with pytest.raises(ParamsError) as err:
        load_experiment(path)
    assert err.value.field == f"{path}: {field}"


@pytest.mark.parametrize("preset", sorted(p.stem for p in PRESETS.glob("*.yaml")))
def test_every_preset_validates_and_expands(preset):
    e = load_experiment(PRESETS / f"{preset}.yaml")
    assert e.name == preset
    assert len(expand(e)) >= e.repetitions


# --- environment factors (issue #8) ----------------------------------------------------


def test_environment_factors_make_configurations_each_with_its_own_cells():
    e = exp(factors={"testbed.network.mode": ["bridge", "nat"], "hadoop.replication": [1, 2]}, repetitions=2)
    keys = {c.config.key for c in expand(e)}
    assert keys == {
        "native[replication=1,network.mode=bridge]",
        "native[replication=1,network.mode=nat]",
        "native[replication=2,network.mode=bridge]",
        "native[replication=2,network.mode=nat]",
    }
    cells = expand(e)
    assert len(cells) == 2 * 4 * 4 and len({c.cell_id for c in cells}) == len(cells)
    one = next(c for c in cells if c.config.key == "native[replication=2,network.mode=nat]")
    assert one.config.overrides("testbed") == {"network": {"mode": "nat"}}
    assert one.config.overrides("hadoop") == {"replication": 2}
    assert one.config.stamp() == {"platform": "native", "factor.network.mode": "nat", "factor.replication": 2}


def test_a_factor_scoped_to_one_platform_is_crossed_with_that_platform_only():
    e = exp(
        platforms=("native", "gvisor"),
        factors={"testbed.gvisor.network": ["sandbox", "host"], "hadoop.replication": [1, 2]},
        compare=("platform", "gvisor.network"),
        repetitions=2,
    )
    keys = [c.key for c in e.configurations()]
    assert keys == [
        "native[replication=1]",
        "native[replication=2]",
        "gvisor[replication=1,gvisor.network=sandbox]",
        "gvisor[replication=1,gvisor.network=host]",
        "gvisor[replication=2,gvisor.network=sandbox]",
        "gvisor[replication=2,gvisor.network=host]",
    ]
    native = next(c for c in e.configurations() if c.platform == "native")
    assert native.stamp() == {"platform": "native", "factor.replication": 1}
    assert native.overrides("testbed") == {}
    assert {c.config.key for c in expand(e)} == set(keys)


def test_which_gvisor_hosts_are_sandboxed_crosses_gvisor_only_and_reaches_each_host():
    from vbench.params import testbed_params

    e = exp(
        platforms=("native", "gvisor"),
        factors={"testbed.gvisor.sandboxed": ["all", "master", "workers"]},
        compare=("platform", "gvisor.sandboxed"),
    )
    hosts = {
        c.key: [h.platform for h in testbed_params({"platform": c.platform, **c.overrides("testbed")}).resolved_hosts()]
        for c in e.configurations()
    }
    assert hosts == {
        "native": ["native"] * 3,
        "gvisor[gvisor.sandboxed=all]": ["gvisor"] * 3,
        "gvisor[gvisor.sandboxed=master]": ["gvisor", "native", "native"],
        "gvisor[gvisor.sandboxed=workers]": ["native", "gvisor", "gvisor"],
    }


def test_a_scoped_factor_needs_its_platform_and_is_compared_with_the_platforms():
    with pytest.raises(ValueError, match="changes gvisor hosts only, and gvisor is not among"):
        exp(platforms=("native", "lxc"), factors={"testbed.gvisor.network": ["sandbox", "host"]})
    with pytest.raises(ValueError, match=r"compare: \[platform, gvisor.network\]"):
        exp(platforms=("native", "gvisor"), factors={"testbed.gvisor.network": ["sandbox", "host"]})
    # One platform, or one level: nothing is left unpaired.
    assert (
        len(exp(platforms=("gvisor",), factors={"testbed.gvisor.network": ["sandbox", "host"]}).configurations()) == 2
    )
    assert len(exp(platforms=("native", "gvisor"), factors={"testbed.gvisor.network": ["host"]}).configurations()) == 2


def test_a_design_without_factors_keeps_its_cell_ids_and_hash():
    e = exp()
    assert all(c.cell_id.startswith(f"b{c.block}/native/") for c in expand(e))
    assert "factors" not in e.model_dump(mode="json") or design_hash(e) == design_hash(exp(factors={}))


def test_configurations_are_shuffled_within_blocks_and_every_block_has_all():
    e = exp(factors={"testbed.vms_per_host": [1, 2, 4]}, platforms=("native", "lxc"), repetitions=4, seed=3)
    per_block = {}
    for c in expand(e):
        per_block.setdefault(c.block, []).append(c.config.key)
    assert all(len(set(v)) == 6 for v in per_block.values())
    orders = {tuple(dict.fromkeys(v)) for v in per_block.values()}
    assert len(orders) > 1


@pytest.mark.parametrize(
    "factors, field, words",
    [
        ({"testbed.network.mode": ["bridge", "sriov"]}, "factors", "SR-IOV"),
        ({"testbed.network.mode": ["bridge", "wifi"]}, "factors", "level 1"),
        ({"testbed.nosuch": [1]}, "factors", "no field"),
        ({"replication": [1]}, "factors", "testbed or Hadoop"),
        ({"testbed.platform": ["lxc"]}, "factors", "platforms"),
        ({"hadoop.replication": []}, "factors", "non-empty"),
        ({"testbed.vms_per_host": [0]}, "factors", "level 0"),
    ],
)
def test_bad_factors_are_refused_naming_the_field(tmp_path, factors, field, words):
    f = tmp_path / "e.yaml"
    f.write_text(yaml.safe_dump({"experiment": {"name": "x", "factors": factors, "suite": [{"benchmark": "pi"}]}}))
    with pytest.raises(ParamsError) as err:
        load_experiment(f)
    assert f"experiment.{field}" in str(err.value) and words.lower() in str(err.value).lower(), str(err.value)


def test_compare_must_name_a_factor(tmp_path):
    with pytest.raises(ValueError, match="compare"):
        exp(factors={"testbed.network.mode": ["bridge", "nat"]}, compare=("network.modes",))
    e = exp(factors={"testbed.network.mode": ["bridge", "nat"]}, compare=("network.mode",), baseline="bridge")
    assert e.compare == ("network.mode",)


def test_the_baseline_must_be_a_compared_level_and_defaults_to_the_first_levels():
    from vbench.campaign.design import compared_baseline

    grouped = {"testbed.cpu_group": [False, True]}
    with pytest.raises(ValueError, match=r"baseline: 'native' is not a compared level.*'native/False'"):
        exp(platforms=("native", "oci"), factors=grouped, compare=("platform", "cpu_group"), baseline="native")
    with pytest.raises(
        ValueError, match=r"baseline: 'false' is not a compared level of this design; its levels: \['False', 'True'\]"
    ):
        exp(platforms=("native", "oci"), factors=grouped, compare=("cpu_group",), baseline="false")
    assert exp(
        platforms=("native", "oci"), factors=grouped, compare=("cpu_group",), baseline="False"
    ).compared_levels() == ["False", "True"]
    # Unnamed: native at each compared factor's first level, a level native lacks left out.
    assert compared_baseline(("oci", "native"), grouped, ("platform", "cpu_group"), None) == "native/False"
    beats = {"hadoop.am_heartbeat_ms": [1000, 100], "hadoop.nodemanager_heartbeat_ms": [1000, 200]}
    assert compared_baseline(("native",), beats, ("am_heartbeat_ms", "nodemanager_heartbeat_ms"), None) == "1000/1000"
    network = {"testbed.gvisor.network": ["sandbox", "host"]}
    assert compared_baseline(("native", "gvisor"), network, ("platform", "gvisor.network"), None) == "native"
    assert compared_baseline(("lxc", "oci"), grouped, ("platform", "cpu_group"), None) == "lxc/False"
    # A platform comparison keeps the statistics' own default; a named baseline is kept.
    assert compared_baseline(("native", "lxc"), {}, ("platform",), None) is None
    assert compared_baseline(("native",), grouped, ("cpu_group",), "True") == "True"
    # Every committed design's baseline is one of its compared levels.
    for path in sorted(PRESETS.glob("*.yaml")):
        e = load_experiment(path)
        b = compared_baseline(e.platforms, e.factors, e.compare, e.baseline)
        assert b is None or b in e.compared_levels(), path.name


def test_params_for_applies_experiment_then_factor_levels_without_losing_the_network():
    from vbench.campaign.runner import params_for
    from vbench.params import hadoop_params, testbed_params

    e = exp(
        factors={"testbed.network.mode": ["nat"], "hadoop.topology": ["rack"]},
        testbed={"network": {"link": {"rate_mbit": 100}}},
        hadoop={"replication": 1},
    )
    config = e.configurations()[0]
    tb, hp = params_for(
        e, config, testbed_params({"network": {"bridge": "xbr", "subnet": "10.9.0.0/24"}}), hadoop_params({})
    )
    assert (tb.network.bridge, str(tb.network.subnet), tb.network.mode) == ("xbr", "10.9.0.0/24", "nat")
    assert tb.network.link.rate_mbit == 100
    assert (hp.topology, hp.replication) == ("rack", 1)


# --- rounds: randomised multiple interleaved trials (issue #18) ----------------------------

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


def _committed():
    return sorted(p.parent.name for p in RAW.glob("*/campaign.json"))


@pytest.mark.parametrize("campaign", _committed())
def test_committed_campaigns_keep_their_design_hash_cell_ids_and_order(campaign):
    # What a design expands to is pinned by the campaigns already measured: the
    # hash they recorded, and the cells their ledgers hold, in the order each stage ran them.
    import json

    from vbench.ledger import read_ledger

    recorded = json.loads((RAW / campaign / "campaign.json").read_text())
    e = Experiment.model_validate(recorded["experiment"])
    assert design_hash(e) == recorded["design_hash"]
    records = read_ledger(RAW / campaign / "samples.jsonl").records
    # With rounds or warm-up runs, each session runs its warm-up runs and cells in the order its plan gives.
    session_runs = [r for s in sessions(e, expand(e)) for r in s.runs]
    planned = session_runs if e.rounds > 1 or any(r.warms_up for r in session_runs) else expand(e)
    for kind in ("micro", "hadoop"):
        ran = list(
            dict.fromkeys(r["metadata"]["cell_id"] for r in records if r["metadata"].get("benchmark_kind") == kind)
        )
        want = [c for c in planned if c.variant.kind == kind]
        if e.duet is not None and kind == "hadoop":
            # A duet's sides run at once and append as each ends: the order is the groups'.
            group = {c.cell_id: duet_label(c) for c in want}
            ran_groups = _in_groups(ran, group)
            want_groups = _in_groups([c.cell_id for c in want], group)
            # A campaign stopped part-way (lean-duet: interrupted on purpose) holds the plan's first groups.
            assert ran_groups == want_groups[: len(ran_groups)] and ran_groups, (ran_groups, want_groups)
            assert len(ran_groups) == len(want_groups) or campaign == "lean-duet"
        else:
            # A campaign run in parts holds its plan's first blocks, and its budget's skipped.json
            # names every cell of the rest; any other campaign holds its whole plan.
            ids = [c.cell_id for c in want]
            assert ran == ids[: len(ran)]
            if len(ran) < len(ids):
                skipped = json.loads((RAW / campaign / "skipped.json").read_text())["cells"]
                assert set(ids[len(ran) :]) <= set(skipped) and not set(ran) & set(skipped)


def _in_groups(cell_ids: list[str], group: dict[str, str]) -> list[frozenset[str]]:
    """Consecutive cells of one duet group, as sets, in order."""
    out: list[tuple[str, set[str]]] = []
    for c in cell_ids:
        if not out or out[-1][0] != group[c]:
            out.append((group[c], set()))
        out[-1][1].add(c)
    return [frozenset(members) for _, members in out]


def test_rounds_and_interleave_change_the_design_hash():
    # At their defaults they leave it alone (test_campaign_faults.py); given, they make another design.
    assert (
        len({design_hash(exp()), design_hash(exp(rounds=2)), design_hash(exp(rounds=2, interleave="alternating"))}) == 3
    )


def test_one_round_is_the_design_without_rounds():
    assert expand(exp(rounds=1)) == expand(exp())
    assert all(c.round is None and "/r" not in c.cell_id for c in expand(exp()))


def _two_platforms(**kw) -> Experiment:
    return exp(**{"platforms": ("native", "lxc"), "repetitions": 2, "rounds": 3, **kw})


@pytest.mark.parametrize("interleave", ["concurrent", "alternating"])
def test_every_cell_runs_once_per_round(interleave):
    e = _two_platforms(interleave=interleave)
    cells = expand(e)
    ids = [c.cell_id for c in cells]
    assert len(ids) == len(set(ids)) == 2 * 3 * 2 * 4
    per_round = Counter((c.block, c.round) for c in cells)
    assert per_round == {(b, r): 8 for b in range(2) for r in range(3)}
    for b in range(2):
        for r in range(3):
            assert {(c.config.key, c.variant.key) for c in cells if (c.block, c.round) == (b, r)} == {
                (p, v) for p in ("native", "lxc") for v in ("cpu", "pi", "terasort[size_mb=16]", "terasort[size_mb=32]")
            }
    assert ids[0] == f"b0/r0/{cells[0].config.key}/{cells[0].variant.key}"
    assert [c.block for c in cells] == sorted(c.block for c in cells)


def test_concurrent_rounds_are_seeded_permutations_of_every_configuration_and_benchmark():
    def orders(seed):
        cells = expand(_two_platforms(seed=seed, repetitions=4))
        return {
            (b, r, k): [(c.config.key, c.variant.key) for c in cells if (c.block, c.round, c.variant.kind) == (b, r, k)]
            for b in range(4)
            for r in range(3)
            for k in ("micro", "hadoop")
        }

    a, again, other = orders(1), orders(1), orders(2)
    assert a == again and a != other
    hadoop = [tuple(v) for (b, r, k), v in a.items() if k == "hadoop"]
    assert len(set(hadoop)) > len(hadoop) // 2  # a fresh order in (nearly) every round
    # Platforms are interleaved within a round, not run one after the other.
    assert any(len({p for p, _ in v[: len(v) // 2]}) == 2 for v in hadoop)


def test_concurrent_blocks_calibrate_every_round_before_any_suite_round():
    cells = expand(_two_platforms())
    for b in range(2):
        kinds = [c.variant.kind for c in cells if c.block == b]
        assert kinds == sorted(kinds, key=lambda k: k != "micro")
        rounds = [c.round for c in cells if c.block == b and c.variant.kind == "hadoop"]
        assert rounds == sorted(rounds)


def test_alternating_runs_one_configuration_at_a_time_in_reversed_order_every_other_round():
    cells = expand(_two_platforms(interleave="alternating", rounds=4))
    for b in range(2):
        order = [tuple(dict.fromkeys(c.config.key for c in cells if (c.block, c.round) == (b, r))) for r in range(4)]
        assert order[0] == order[2] and order[1] == order[3] == order[0][::-1] and len(order[0]) == 2
        for r in range(4):
            keys = [c.config.key for c in cells if (c.block, c.round) == (b, r)]
            assert keys == sorted(keys, key=order[r].index)  # one configuration, then the other


def test_alternating_needs_rounds():
    with pytest.raises(ValueError, match="rounds > 1"):
        exp(interleave="alternating")


def test_sessions_without_rounds_are_one_per_block_and_configuration_without_warmup_runs():
    from vbench.campaign.design import sessions

    e = exp(platforms=("native", "lxc"))
    ss = sessions(e, expand(e))
    assert [(s.block, [c.key for c in s.configs]) for s in ss] == [(s.block, [s.runs[0].config.key]) for s in ss]
    assert len(ss) == 3 * 2 and [r for s in ss for r in s.runs] == expand(e)


def test_a_concurrent_session_holds_the_blocks_configurations_and_warms_each_benchmark_up_first():
    from vbench.campaign.design import sessions

    e = _two_platforms()
    ss = sessions(e, expand(e))
    assert [s.block for s in ss] == [0, 1] and all({c.key for c in s.configs} == {"native", "lxc"} for s in ss)
    for s in ss:
        assert [c for c in s.runs if not c.warms_up] == s.cells == [c for c in expand(e) if c.block == s.block]
        for kind in ("micro", "hadoop"):
            runs = [r for r in s.runs if r.variant.kind == kind]
            n_warm = len({(r.config.key, r.variant.key) for r in runs})
            assert all(r.warms_up and r.warmup for r in runs[:n_warm]) and not any(r.warms_up for r in runs[n_warm:])
        warm = [r.cell_id for r in s.runs if r.warms_up]
        assert len(warm) == len(set(warm)) == 2 * 4 and all(w.endswith("/warmup") and "/r0/" in w for w in warm)


def test_alternating_sessions_are_one_configuration_per_round_each_warmed_up():
    from vbench.campaign.design import sessions

    e = _two_platforms(interleave="alternating")
    ss = sessions(e, expand(e))
    assert len(ss) == 2 * 3 * 2 and all(len(s.configs) == 1 for s in ss)
    for s in ss:
        warm = [r for r in s.runs if r.warms_up]
        assert len(warm) == 4 and {r.round for r in s.runs} == {s.runs[0].round}


def test_a_resumed_session_warms_up_only_what_it_still_runs():
    from vbench.campaign.design import sessions

    e = _two_platforms()
    block0 = [c for c in expand(e) if c.block == 0]
    todo = [c for c in block0 if c.variant.kind == "hadoop" and (c.round, c.config.key) != (0, "lxc")][5:]
    (s,) = sessions(e, todo)
    assert s.cells == todo
    assert {(r.config.key, r.variant.key) for r in s.runs if r.warms_up} == {
        (c.config.key, c.variant.key) for c in todo
    }


def test_one_benchmark_at_several_sizes_is_one_entry_with_a_list_and_gets_one_cell_per_size():
    e = exp(calibrate=(BenchmarkSpec(benchmark="cpu", config={"time_s": [1, 2]}),), suite=())
    ids = {c.cell_id for c in expand(e)}
    assert {"b0/native/cpu[time_s=1]", "b0/native/cpu[time_s=2]"} <= ids


def test_warmup_runs_first_opens_each_session_of_a_design_without_rounds_with_its_first_cell():
    from vbench.campaign.design import design_hash, sessions

    plain = exp(platforms=("native", "lxc"))
    e = exp(platforms=("native", "lxc"), warmup_runs="first")
    assert expand(e) == expand(plain) and design_hash(plain) != design_hash(e)
    ss = sessions(e, expand(e))
    assert len(ss) == 3 * 2
    for s in ss:
        for kind in ("micro", "hadoop"):
            runs = [r for r in s.runs if r.variant.kind == kind]
            if not runs:
                continue
            warm, rest = runs[0], runs[1:]
            assert warm.warms_up and warm.warmup and warm.cell_id.endswith("/warmup")
            assert (warm.config, warm.variant) == (rest[0].config, rest[0].variant)
            assert not any(r.warms_up for r in rest)
        assert s.cells == [c for c in expand(e) if (c.block, c.config.key) == (s.block, s.configs[0].key)]


def test_warmup_runs_none_and_each_override_the_default_by_rounds():
    from vbench.campaign.design import sessions

    e = _two_platforms(warmup_runs="none")
    assert not any(r.warms_up for s in sessions(e, expand(e)) for r in s.runs)
    e = exp(platforms=("native", "lxc"), warmup_runs="each")
    for s in sessions(e, expand(e)):
        warm = {(r.config.key, r.variant.key) for r in s.runs if r.warms_up}
        assert warm == {(c.config.key, c.variant.key) for c in s.cells}


@pytest.mark.parametrize("campaign", ["xavier2014", "vmware2015-teragen"])
def test_committed_campaigns_keep_their_design_hash_with_warmup_runs_unset(campaign):
    import json
    from pathlib import Path

    from vbench.campaign.design import design_hash

    rec = json.loads((Path(__file__).parents[2] / "data" / "raw" / campaign / "campaign.json").read_text())
    assert "warmup_runs" not in rec["experiment"]
    assert design_hash(Experiment.model_validate(rec["experiment"])) == rec["design_hash"]

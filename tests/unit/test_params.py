"""vbench.params: every bad input is refused before anything starts, naming the field."""

from ipaddress import IPv4Address
from pathlib import Path

import pytest

from vbench.errors import ParamsError
from vbench.machine_fit import MachineFacts, check_cluster_fits
from vbench.params import (
    hadoop_params,
    load_hadoop,
    load_testbed,
    testbed_params as make_testbed,
)

REPO = Path(__file__).resolve().parents[2]
BIG_MACHINE = MachineFacts(mem_total_mb=1_000_000, cpus=64)


def _refused(fn, data, **kw) -> ParamsError:
    with pytest.raises(ParamsError) as info:
        fn(data, **kw)
    return info.value


def _assert_refused(fn, data, field: str, words: list[str]) -> None:
    """`fn(data)` raises ParamsError naming `field`, with every one of `words` in its message."""
    err = _refused(fn, data)
    assert err.field == field
    for word in words:
        assert word in str(err)


def _written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _hosts(*specs):
    """Host dicts from (name, role[, address]) tuples."""
    return [dict(zip(("name", "role", "address"), s)) for s in specs]


# --- testbed: refusals -------------------------------------------------------------------


#: Test id -> (testbed data, the field named, words of the message).
BAD_TESTBEDS = {
    "zero_workers": ({"workers": 0}, "testbed.workers", ["must be at least 1, got 0"]),
    # The message lists what is known.
    "unknown_platform": ({"platform": "kvm"}, "testbed.platform", ["unknown platform 'kvm'", "native"]),
    "host_address_outside_the_bridge_subnet": (
        {"hosts": _hosts(("m", "master", "10.213.1.5"))},
        "testbed.hosts[0].address",
        ["outside the bridge subnet 10.213.0.0/24"],
    ),
    "host_address_equal_to_the_subnets_network_address": (
        {"hosts": _hosts(("m", "master", "10.213.0.0"))},
        "testbed.hosts[0].address",
        ["outside"],
    ),
    "host_address_of_the_controller": (
        {"hosts": _hosts(("m", "master", "10.213.0.1"))},
        "testbed.hosts[0].address",
        ["reserved for the controller"],
    ),
    "duplicate_host_names": ({"hosts": _hosts(("node", "master"), ("node", "worker"))}, "testbed.hosts", ["unique"]),
    "duplicate_host_addresses_naming_the_second_host": (
        {"hosts": _hosts(("m", "master", "10.213.0.20"), ("w", "worker", "10.213.0.20"))},
        "testbed.hosts[1].address",
        ["10.213.0.20 is also used by m"],
    ),
    "hosts_without_a_master": (
        {"hosts": _hosts(("w1", "worker"), ("w2", "worker"))},
        "testbed.hosts",
        ["exactly one host must have role 'master'"],
    ),
    "hosts_with_two_masters": ({"hosts": _hosts(("m1", "master"), ("m2", "master"))}, "testbed.hosts", ["exactly one"]),
    "public_subnet": ({"network": {"subnet": "8.8.8.0/24"}}, "testbed.network.subnet", ["private"]),
    # YAML's true is an int to Python, and ipaddress read it as 0.0.0.1 (a deprecated conversion):
    # refused as what it is, before ipaddress sees it.
    "boolean_subnet": ({"network": {"subnet": True}}, "testbed.network.subnet", ["expected an IPv4 network", "true"]),
    "boolean_nat_subnet": (
        {"network": {"nat_subnet": False}},
        "testbed.network.nat_subnet",
        ["expected an IPv4 network", "got false"],
    ),
    "boolean_host_address": (
        {"hosts": _hosts(("m", "master", True), ("w", "worker"))},
        "testbed.hosts[0].address",
        ["expected an IPv4 address such as 10.0.0.5, got true"],
    ),
    "bridge_name_longer_than_15_characters": (
        {"network": {"bridge": "b" * 16}},
        "testbed.network.bridge",
        ["at most 15 characters"],
    ),
    "testbed_name_of_7_characters": ({"name": "abcdefg"}, "testbed.name", ["1-6"]),
    "unknown_testbed_key": ({"wrkers": 3}, "testbed.wrkers", []),
}


@pytest.mark.parametrize("data, field, words", BAD_TESTBEDS.values(), ids=BAD_TESTBEDS.keys())
def test_bad_testbed_is_refused_naming_the_field(data, field, words):
    _assert_refused(make_testbed, data, field, words)


def test_bridge_name_of_exactly_15_characters_is_accepted():
    assert make_testbed({"network": {"bridge": "b" * 15}}).network.bridge == "b" * 15


def test_testbed_name_of_6_characters_is_accepted():
    assert make_testbed({"name": "abcdef"}).name == "abcdef"


# --- testbed: host addresses -------------------------------------------------------------


def test_default_hosts_are_master_and_numbered_workers_from_dot_10():
    hosts = make_testbed({"workers": 3}).resolved_hosts()
    assert [(h.name, h.role, str(h.address)) for h in hosts] == [
        ("master", "master", "10.213.0.10"),
        ("worker1", "worker", "10.213.0.11"),
        ("worker2", "worker", "10.213.0.12"),
        ("worker3", "worker", "10.213.0.13"),
    ]


def test_default_hosts_follow_the_configured_subnet_and_platform():
    tb = make_testbed({"workers": 1, "network": {"subnet": "192.168.77.0/24"}})
    assert [str(h.address) for h in tb.resolved_hosts()] == ["192.168.77.10", "192.168.77.11"]
    assert {h.platform for h in tb.resolved_hosts()} == {"native"}
    assert tb.controller_address == IPv4Address("192.168.77.1")


def test_hosts_without_address_get_free_ones_skipping_explicit_addresses():
    hosts = _hosts(("m", "master", "10.213.0.10"), ("w1", "worker"), ("w2", "worker", "10.213.0.11"), ("w3", "worker"))
    resolved = make_testbed({"hosts": hosts}).resolved_hosts()
    assert {h.name: str(h.address) for h in resolved} == {
        "m": "10.213.0.10",
        "w1": "10.213.0.12",
        "w2": "10.213.0.11",
        "w3": "10.213.0.13",
    }


def test_explicit_hosts_ignore_the_workers_count():
    tb = make_testbed({"workers": 5, "hosts": _hosts(("m", "master"), ("w", "worker"))})
    assert [h.name for h in tb.resolved_hosts()] == ["m", "w"]


def test_small_subnet_with_room_is_either_accepted_or_refused_naming_the_subnet():
    data = {"workers": 5, "network": {"subnet": "10.1.0.0/28"}}
    try:
        tb = make_testbed(data)
    except ParamsError as err:
        assert err.field == "testbed.network.subnet"
    else:
        addresses = [h.address for h in tb.resolved_hosts()]
        assert len(set(addresses)) == len(addresses) == 6


def test_more_explicit_hosts_than_the_subnet_holds_is_a_params_error():
    hosts = [{"name": f"h{i}", "role": "master" if i == 0 else "worker"} for i in range(6)]
    err = _refused(make_testbed, {"network": {"subnet": "10.1.0.0/29"}, "hosts": hosts})
    assert err.field == "testbed.network.subnet"


# --- hadoop ------------------------------------------------------------------------------


#: Test id -> (hadoop data, the field named, words of the message).
BAD_HADOOP_PARAMS = {
    # The known versions are listed.
    "unknown_hadoop_version": ({"version": "9.9"}, "hadoop.version", ["unknown Hadoop version '9.9'", "3.4.2"]),
    "block_size_not_a_multiple_of_bytes_per_checksum": (
        {"block_size": 1_000_000},
        "hadoop.block_size",
        ["not a multiple", "bytes_per_checksum=512"],
    ),
    "block_size_checked_against_a_custom_bytes_per_checksum": (
        {"block_size": "16MB", "bytes_per_checksum": 3000},
        "hadoop.block_size",
        [],
    ),
    "block_size_below_1mb": ({"block_size": "512K"}, "hadoop.block_size", ["at least 1MB"]),
    "block_size_that_is_not_a_size": ({"block_size": "banana"}, "hadoop.block_size", ["not a size"]),
    "map_memory_larger_than_nodemanager_memory": (
        {"map_memory_mb": 4096, "nodemanager_memory_mb": 2048},
        "hadoop.map_memory_mb",
        ["exceeds nodemanager_memory_mb=2048"],
    ),
}


@pytest.mark.parametrize("data, field, words", BAD_HADOOP_PARAMS.values(), ids=BAD_HADOOP_PARAMS.keys())
def test_bad_hadoop_params_are_refused_naming_the_field(data, field, words):
    _assert_refused(hadoop_params, data, field, words)


def test_block_size_string_is_parsed_to_bytes():
    assert hadoop_params({"block_size": "64MB"}).block_size == 64 * 1024**2


def test_extra_properties_for_an_unknown_file_are_refused():
    err = _refused(hadoop_params, {"extra": {"foo-site": {"a": "b"}}})
    assert err.field.startswith("hadoop.extra")


# --- loading files -----------------------------------------------------------------------


def test_load_testbed_error_names_the_file_and_field(tmp_path):
    path = _written(tmp_path / "testbed.yaml", "testbed:\n  workers: 0\n")
    err = _refused(load_testbed, path)
    assert err.field == f"{path}: testbed.workers"
    assert str(err).startswith(f"{path}: testbed.workers: ")


def test_load_hadoop_error_names_the_file_and_field(tmp_path):
    path = _written(tmp_path / "hadoop.yaml", "hadoop:\n  block_size: 1000000\n")
    err = _refused(load_hadoop, path)
    assert err.field == f"{path}: hadoop.block_size"
    assert "not a multiple" in str(err)


def test_load_testbed_overrides_win_over_the_file(tmp_path):
    path = _written(tmp_path / "testbed.yaml", "testbed:\n  workers: 3\n  name: abc\n")
    tb = load_testbed(path, workers=1)
    assert tb.workers == 1
    assert tb.name == "abc"


def test_load_testbed_none_override_keeps_the_file_value(tmp_path):
    path = _written(tmp_path / "testbed.yaml", "testbed:\n  workers: 3\n")
    assert load_testbed(path, workers=None, platform=None).workers == 3


def test_load_hadoop_overrides_win_over_the_file(tmp_path):
    path = _written(tmp_path / "hadoop.yaml", "hadoop:\n  replication: 1\n  block_size: 16MB\n")
    hp = load_hadoop(path, replication=2)
    assert hp.replication == 2
    assert hp.block_size == 16 * 1024**2


def test_load_hadoop_override_is_validated_and_names_the_file(tmp_path):
    path = _written(tmp_path / "hadoop.yaml", "hadoop:\n  replication: 1\n")
    err = _refused(load_hadoop, path, version="9.9")
    assert err.field == f"{path}: hadoop.version"


def test_yaml_that_is_not_a_mapping_is_refused_naming_the_file(tmp_path):
    path = _written(tmp_path / "testbed.yaml", "- 1\n- 2\n")
    err = _refused(load_testbed, path)
    assert err.field == str(path)


def test_section_that_is_not_a_mapping_is_a_params_error(tmp_path):
    path = _written(tmp_path / "testbed.yaml", "testbed: [1, 2]\n")
    err = _refused(load_testbed, path)
    assert str(path) in err.field


def test_yaml_syntax_error_is_a_params_error(tmp_path):
    path = _written(tmp_path / "testbed.yaml", "testbed: {workers: 2\n")
    err = _refused(load_testbed, path)
    assert str(path) in err.field


def test_repository_params_load():
    tb = load_testbed(REPO / "params" / "testbed.yaml")
    hp = load_hadoop(REPO / "params" / "hadoop.yaml")
    assert tb.name == "vb" and tb.workers == 2 and str(tb.network.subnet) == "10.213.0.0/24"
    assert hp.version == "3.4.2" and hp.block_size == 32 * 1024**2 and hp.replication == 2
    check_cluster_fits(tb, hp, BIG_MACHINE)


def test_link_local_subnet_is_refused():
    with pytest.raises(ParamsError) as err:
        make_testbed({"network": {"subnet": "169.254.0.0/24"}})
    assert err.value.field == "testbed.network.subnet"


def test_list_positions_are_spelled_with_brackets():
    with pytest.raises(ParamsError) as err:
        make_testbed({"hosts": [{"name": "m", "role": "master", "platform": "xen"}]})
    assert err.value.field == "testbed.hosts[0].platform"


def test_small_subnet_assigns_consecutive_addresses_after_the_controller():
    tb = make_testbed({"workers": 1, "network": {"subnet": "10.1.0.0/29"}})
    assert [str(h.address) for h in tb.resolved_hosts()] == ["10.1.0.2", "10.1.0.3"]

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


def _refused(fn, data) -> ParamsError:
    with pytest.raises(ParamsError) as info:
        fn(data)
    return info.value


def _hosts(*specs):
    """Host dicts from (name, role[, address]) tuples."""
    return [dict(zip(("name", "role", "address"), s)) for s in specs]


# --- testbed: refusals -------------------------------------------------------------------


def test_zero_workers_is_refused():
    err = _refused(make_testbed, {"workers": 0})
    assert err.field == "testbed.workers"
    assert "must be at least 1, got 0" in str(err)


def test_unknown_platform_is_refused():
    err = _refused(make_testbed, {"platform": "kvm"})
    assert err.field == "testbed.platform"
    assert "unknown platform 'kvm'" in str(err)
    assert "native" in str(err)  # the message lists what is known


def test_host_address_outside_the_bridge_subnet_is_refused():
    err = _refused(make_testbed, {"hosts": _hosts(("m", "master", "10.213.1.5"))})
    assert err.field == "testbed.hosts[0].address"
    assert "outside the bridge subnet 10.213.0.0/24" in str(err)


def test_host_address_equal_to_the_subnets_network_address_is_refused():
    err = _refused(make_testbed, {"hosts": _hosts(("m", "master", "10.213.0.0"))})
    assert err.field == "testbed.hosts[0].address"
    assert "outside" in str(err)


def test_host_address_of_the_controller_is_refused():
    err = _refused(make_testbed, {"hosts": _hosts(("m", "master", "10.213.0.1"))})
    assert err.field == "testbed.hosts[0].address"
    assert "reserved for the controller" in str(err)


def test_duplicate_host_names_are_refused():
    err = _refused(make_testbed, {"hosts": _hosts(("node", "master"), ("node", "worker"))})
    assert err.field == "testbed.hosts"
    assert "unique" in str(err)


def test_duplicate_host_addresses_are_refused_naming_the_second_host():
    hosts = _hosts(("m", "master", "10.213.0.20"), ("w", "worker", "10.213.0.20"))
    err = _refused(make_testbed, {"hosts": hosts})
    assert err.field == "testbed.hosts[1].address"
    assert "10.213.0.20 is also used by m" in str(err)


def test_hosts_without_a_master_are_refused():
    err = _refused(make_testbed, {"hosts": _hosts(("w1", "worker"), ("w2", "worker"))})
    assert err.field == "testbed.hosts"
    assert "exactly one host must have role 'master'" in str(err)


def test_hosts_with_two_masters_are_refused():
    err = _refused(make_testbed, {"hosts": _hosts(("m1", "master"), ("m2", "master"))})
    assert err.field == "testbed.hosts"
    assert "exactly one" in str(err)


def test_public_subnet_is_refused():
    err = _refused(make_testbed, {"network": {"subnet": "8.8.8.0/24"}})
    assert err.field == "testbed.network.subnet"
    assert "private" in str(err)


def test_bridge_name_longer_than_15_characters_is_refused():
    err = _refused(make_testbed, {"network": {"bridge": "b" * 16}})
    assert err.field == "testbed.network.bridge"
    assert "at most 15 characters" in str(err)


def test_bridge_name_of_exactly_15_characters_is_accepted():
    assert make_testbed({"network": {"bridge": "b" * 15}}).network.bridge == "b" * 15


def test_testbed_name_of_7_characters_is_refused():
    err = _refused(make_testbed, {"name": "abcdefg"})
    assert err.field == "testbed.name"
    assert "1-6" in str(err)


def test_testbed_name_of_6_characters_is_accepted():
    assert make_testbed({"name": "abcdef"}).name == "abcdef"


def test_unknown_testbed_key_is_refused():
    err = _refused(make_testbed, {"wrkers": 3})
    assert err.field == "testbed.wrkers"


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


def test_unknown_hadoop_version_is_refused():
    err = _refused(hadoop_params, {"version": "9.9"})
    assert err.field == "hadoop.version"
    assert "unknown Hadoop version '9.9'" in str(err)
    assert "3.4.2" in str(err)  # the known versions are listed


def test_block_size_not_a_multiple_of_bytes_per_checksum_is_refused():
    err = _refused(hadoop_params, {"block_size": 1_000_000})
    assert err.field == "hadoop.block_size"
    assert "not a multiple" in str(err) and "bytes_per_checksum=512" in str(err)


def test_block_size_checked_against_a_custom_bytes_per_checksum():
    err = _refused(hadoop_params, {"block_size": "16MB", "bytes_per_checksum": 3000})
    assert err.field == "hadoop.block_size"


def test_block_size_below_1mb_is_refused():
    err = _refused(hadoop_params, {"block_size": "512K"})
    assert err.field == "hadoop.block_size"
    assert "at least 1MB" in str(err)


def test_block_size_string_is_parsed_to_bytes():
    assert hadoop_params({"block_size": "64MB"}).block_size == 64 * 1024**2


def test_block_size_that_is_not_a_size_is_refused():
    err = _refused(hadoop_params, {"block_size": "banana"})
    assert err.field == "hadoop.block_size"
    assert "not a size" in str(err)


def test_map_memory_larger_than_nodemanager_memory_is_refused():
    err = _refused(hadoop_params, {"map_memory_mb": 4096, "nodemanager_memory_mb": 2048})
    assert err.field == "hadoop.map_memory_mb"
    assert "exceeds nodemanager_memory_mb=2048" in str(err)


def test_extra_properties_for_an_unknown_file_are_refused():
    err = _refused(hadoop_params, {"extra": {"foo-site": {"a": "b"}}})
    assert err.field.startswith("hadoop.extra")


# --- loading files -----------------------------------------------------------------------


def test_load_testbed_error_names_the_file_and_field(tmp_path):
    path = tmp_path / "testbed.yaml"
    path.write_text("testbed:\n  workers: 0\n")
    with pytest.raises(ParamsError) as info:
        load_testbed(path)
    assert info.value.field == f"{path}: testbed.workers"
    assert str(info.value).startswith(f"{path}: testbed.workers: ")


def test_load_hadoop_error_names_the_file_and_field(tmp_path):
    path = tmp_path / "hadoop.yaml"
    path.write_text("hadoop:\n  block_size: 1000000\n")
    with pytest.raises(ParamsError) as info:
        load_hadoop(path)
    assert info.value.field == f"{path}: hadoop.block_size"
    assert "not a multiple" in str(info.value)


def test_load_testbed_overrides_win_over_the_file(tmp_path):
    path = tmp_path / "testbed.yaml"
    path.write_text("testbed:\n  workers: 3\n  name: abc\n")
    tb = load_testbed(path, workers=1)
    assert tb.workers == 1
    assert tb.name == "abc"


def test_load_testbed_none_override_keeps_the_file_value(tmp_path):
    path = tmp_path / "testbed.yaml"
    path.write_text("testbed:\n  workers: 3\n")
    assert load_testbed(path, workers=None, platform=None).workers == 3


def test_load_hadoop_overrides_win_over_the_file(tmp_path):
    path = tmp_path / "hadoop.yaml"
    path.write_text("hadoop:\n  replication: 1\n  block_size: 16MB\n")
    hp = load_hadoop(path, replication=2)
    assert hp.replication == 2
    assert hp.block_size == 16 * 1024**2


def test_load_hadoop_override_is_validated_and_names_the_file(tmp_path):
    path = tmp_path / "hadoop.yaml"
    path.write_text("hadoop:\n  replication: 1\n")
    with pytest.raises(ParamsError) as info:
        load_hadoop(path, version="9.9")
    assert info.value.field == f"{path}: hadoop.version"


def test_yaml_that_is_not_a_mapping_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "testbed.yaml"
    path.write_text("- 1\n- 2\n")
    with pytest.raises(ParamsError) as info:
        load_testbed(path)
    assert info.value.field == str(path)


def test_section_that_is_not_a_mapping_is_a_params_error(tmp_path):
    path = tmp_path / "testbed.yaml"
    path.write_text("testbed: [1, 2]\n")
    with pytest.raises(ParamsError) as info:
        load_testbed(path)
    assert str(path) in info.value.field


def test_yaml_syntax_error_is_a_params_error(tmp_path):
    path = tmp_path / "testbed.yaml"
    path.write_text("testbed: {workers: 2\n")
    with pytest.raises(ParamsError) as info:
        load_testbed(path)
    assert str(path) in info.value.field


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

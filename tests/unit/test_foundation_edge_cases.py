"""Edge cases found while reviewing the foundation: each was once wrong."""
import pytest

from vbench.errors import ParamsError
from vbench.hadoop import daemons, health
from vbench.params import testbed_params as make_testbed
from vbench.units import parse_size


def test_link_local_subnet_is_refused():
    with pytest.raises(ParamsError) as err:
        make_testbed({"network": {"subnet": "169.254.0.0/24"}})
    assert err.value.field == "testbed.network.subnet"


def test_list_positions_are_spelled_with_brackets():
    with pytest.raises(ParamsError) as err:
        make_testbed({"hosts": [{"name": "m", "role": "master", "platform": "xen"}]})
    assert err.value.field == "testbed.hosts[0].platform"


@pytest.mark.parametrize("bad", [True, -5])
def test_parse_size_refuses_booleans_and_negative_numbers(bad):
    with pytest.raises(ValueError):
        parse_size(bad)


def test_parse_alive_ignores_lines_it_did_not_print():
    text = "Welcome to Debian\nnamenode up\nresourcemanager down\n"
    assert daemons.parse_alive(text) == {"namenode": True, "resourcemanager": False}


@pytest.mark.parametrize("doc", ["null", "[]", "3"])
def test_health_parsers_treat_non_objects_as_not_ready(doc):
    assert health.parse_namenode_info(doc).live_datanodes == ()
    assert health.parse_rm_nodes(doc) == ()
    assert health.parse_jhs_info(doc) is False


def test_small_subnet_assigns_consecutive_addresses_after_the_controller():
    tb = make_testbed({"workers": 1, "network": {"subnet": "10.1.0.0/29"}})
    assert [str(h.address) for h in tb.resolved_hosts()] == ["10.1.0.2", "10.1.0.3"]

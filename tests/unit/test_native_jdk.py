"""hadoop.jdk: native hosts running the guest image's JDK, and JVM micro-benchmarks following the
cluster's java_home (issue #53: the JVM build confound of every platform comparison)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vbench.benchmarks.micro import jvmstart, rpc
from vbench.benchmarks.micro._common import following_java_home
from vbench.benchmarks.micro.cpu import Config as CpuConfig
from vbench.campaign.design import BenchmarkSpec, Experiment
from vbench.campaign.runner import params_for
from vbench.testbed.native_jdk import native_jdk
from vbench.errors import ParamsError, VbenchError
from vbench import params as vparams
from vbench.params import HadoopParams, TestbedParams
from vbench.testbed import image

GUEST = "/usr/lib/jvm/java-17-openjdk-amd64"


def _image_home(guest: str) -> Path:
    return Path("/cache/images/abc/rootfs") / guest.strip("/")


def test_the_default_runs_the_machines_jdk_and_never_looks_for_the_image():
    def refuse(_guest: str) -> Path:
        raise AssertionError("the image was looked for")

    hp = native_jdk(HadoopParams(), TestbedParams(), image_home=refuse)
    assert str(hp.java_home) == GUEST


def test_image_on_native_hosts_names_the_images_tree():
    hp = native_jdk(HadoopParams(jdk="image"), TestbedParams(platform="native"), image_home=_image_home)
    assert hp.java_home == Path("/cache/images/abc/rootfs/usr/lib/jvm/java-17-openjdk-amd64")
    assert hp.jdk == "image"


def test_guest_hosts_keep_the_guest_path_under_either_setting():
    for platform in ("lxc", "oci", "gvisor", "qemu"):
        tb = TestbedParams(platform=platform)
        assert str(native_jdk(HadoopParams(jdk="image"), tb, image_home=_image_home).java_home) == GUEST


def test_a_cluster_of_native_and_guest_hosts_is_refused_naming_the_param():
    tb = TestbedParams(hosts=[{"name": "m", "role": "master"}, {"name": "w", "role": "worker", "platform": "lxc"}])
    with pytest.raises(ParamsError) as err:
        native_jdk(HadoopParams(jdk="image"), tb, image_home=_image_home)
    assert err.value.field == "hadoop.jdk" and "lxc, native" in err.value.message


def test_params_for_resolves_a_jdk_factor_per_configuration(monkeypatch):
    import vbench.testbed.native_jdk as chosen

    monkeypatch.setattr(chosen, "image_java_home", _image_home)
    e = Experiment(
        name="t",
        platforms=("native", "lxc"),
        repetitions=2,
        factors={"hadoop.jdk": ["host", "image"]},
        suite=(BenchmarkSpec(benchmark="pi"),),
    )
    homes = {
        c.key: str(params_for(e, c, vparams.testbed_params({}), vparams.hadoop_params({}))[1].java_home)
        for c in e.configurations()
    }
    assert homes == {
        "native[jdk=host]": GUEST,
        "native[jdk=image]": "/cache/images/abc/rootfs" + GUEST,
        "lxc[jdk=host]": GUEST,
        "lxc[jdk=image]": GUEST,
    }


def test_image_java_home_is_refused_when_the_image_is_not_built(tmp_path, monkeypatch):
    monkeypatch.setattr(image, "default_cache_dir", lambda: tmp_path)
    with pytest.raises(VbenchError, match="hadoop.jdk: image.*not built yet"):
        image.image_java_home(GUEST)


def test_image_java_home_is_refused_when_the_image_has_no_java_there(tmp_path, monkeypatch):
    monkeypatch.setattr(image, "default_cache_dir", lambda: tmp_path)
    img = image.image_for()
    img.home.mkdir(parents=True)
    img.info_file.write_text("{}")
    with pytest.raises(VbenchError, match="no java at /usr/lib/jvm/x/bin/java"):
        image.image_java_home("/usr/lib/jvm/x")
    java = img.rootfs / "usr/lib/jvm/x/bin/java"
    java.parent.mkdir(parents=True)
    java.write_text("")
    assert image.image_java_home("/usr/lib/jvm/x") == img.rootfs / "usr/lib/jvm/x"


def test_jvm_micro_benchmarks_follow_the_clusters_java_unless_the_design_named_one():
    other = "/cache/images/abc/rootfs" + GUEST
    for module in (jvmstart, rpc):
        assert following_java_home(module.Config(), other).java_home == other
        own = module.Config(java_home="/opt/jdk")
        assert following_java_home(own, other) is own
        default = module.Config()
        assert following_java_home(default, GUEST) is default
    cpu = CpuConfig()
    assert following_java_home(cpu, other) is cpu


def test_hosts_from_an_inventory_are_refused_the_images_jdk():
    from types import SimpleNamespace

    from vbench.campaign.runner import _params

    e = Experiment(name="t", platforms=("native",), repetitions=2, hadoop={"jdk": "image"})
    inventory = SimpleNamespace(local=False, hadoop_overrides={"java_home": "/opt/jdk"})
    with pytest.raises(ParamsError) as err:
        _params(e, e.configurations()[0], TestbedParams(), HadoopParams(), inventory)
    assert err.value.field == "hadoop.jdk" and "local testbed only" in err.value.message
    e = Experiment(name="t", platforms=("native",), repetitions=2)
    assert str(_params(e, e.configurations()[0], TestbedParams(), HadoopParams(), inventory)[1].java_home) == "/opt/jdk"


def test_vbench_cluster_resolves_the_jdk_before_any_host_is_touched(tmp_path, capsys):
    """`vbench cluster up/status/down` apply `hadoop.jdk` as a campaign's configurations do: a
    mixed cluster under `image` is refused naming the param, before a testbed is read or made."""
    from vbench import cli

    (tmp_path / "testbed.yaml").write_text(
        "testbed:\n  name: jdkt\n  hosts:\n    - {name: m, role: master}\n"
        "    - {name: w, role: worker, platform: lxc}\n"
    )
    (tmp_path / "hadoop.yaml").write_text("hadoop:\n  jdk: image\n")
    for action in ("up", "status", "down"):
        assert cli.main(["cluster", action, "--params-dir", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert "hadoop.jdk" in err and "one java_home cannot name" in err, err
    assert not Path("/var/lib/vbench/jdkt").exists()

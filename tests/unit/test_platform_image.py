"""vbench.testbed.image: the recipe hash, the apt mirror, the chroot script."""

import dataclasses

import pytest

from vbench.errors import VbenchError
from vbench.testbed import image


def test_the_recipe_hash_is_stable_and_short():
    assert image.DEFAULT_RECIPE.hash() == image.ImageRecipe().hash()
    assert len(image.DEFAULT_RECIPE.hash()) == 16


def test_the_hash_ignores_package_order_but_not_packages():
    r = image.DEFAULT_RECIPE
    assert dataclasses.replace(r, packages=tuple(reversed(r.packages))).hash() == r.hash()
    assert dataclasses.replace(r, packages=r.packages + ("strace",)).hash() != r.hash()


def test_the_hash_covers_the_files_written_into_the_image():
    r = image.DEFAULT_RECIPE
    files = dict(r.files)
    files["/etc/initramfs-tools/modules"] += "virtio_scsi\n"
    assert dataclasses.replace(r, files=files).hash() != r.hash()
    assert dataclasses.replace(r, suite="trixie").hash() != r.hash()
    assert dataclasses.replace(r, masked_units=()).hash() != r.hash()


def test_the_image_has_what_hosts_need():
    pk = set(image.PACKAGES)
    assert {"openjdk-17-jre-headless", "openssh-server", "iproute2", "curl", "tar", "tini"} <= pk
    assert {"linux-image-amd64", "initramfs-tools", "systemd-sysv"} <= pk
    assert {"fio", "iperf3", "sysbench", "bonnie++", "hdparm", "stress-ng", "pi"} <= pk


def test_the_initramfs_can_mount_a_virtio_root():
    modules = image.FILES["/etc/initramfs-tools/modules"].split()
    assert {"virtio_pci", "virtio_blk", "virtio_net", "ext4"} <= set(modules)


def test_sshd_in_the_image_takes_the_per_instance_key_and_root_key_login():
    cfg = image.FILES["/etc/ssh/sshd_config"]
    assert f"HostKey {image.GUEST_HOST_KEY}" in cfg
    assert f"AuthorizedKeysFile {image.GUEST_AUTHORIZED_KEYS}" in cfg
    assert "PermitRootLogin prohibit-password" in cfg and "PasswordAuthentication no" in cfg


def test_the_chroot_script_installs_the_packages_without_starting_services_and_drops_host_keys():
    script = image.chroot_install_script(image.DEFAULT_RECIPE)
    assert "policy-rc.d" in script and "exit 101" in script
    assert "--no-install-recommends " + " ".join(image.PACKAGES) in script
    assert 'rm -rf "$R"/var/lib/apt/lists/* "$R/usr/sbin/policy-rc.d" "$R"/etc/ssh/ssh_host_*' in script
    assert "systemctl enable vbench-seed.service" in script
    for unit in image.MASKED_UNITS:
        assert unit in script
    # Mounts happen inside the private mount namespace the build runs in, and are undone.
    assert script.index('mount -t proc proc "$R/proc"') < script.index('umount "$R/dev" "$R/sys" "$R/proc"')


DEB822 = """Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
"""


def test_mirror_from_this_machines_deb822_sources():
    assert image.mirror_from_sources({"debian.sources": DEB822}) == "http://deb.debian.org/debian"


def test_mirror_from_one_line_sources_skipping_others():
    text = (
        "deb https://packages.cloud.google.com/apt cloud-sdk-bookworm main\n"
        "# deb http://old.example/debian bookworm main\n"
        "deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main contrib\n"
    )
    assert image.mirror_from_sources({"sources.list": text}) == "http://mirror.example/debian"


def test_disabled_or_foreign_stanzas_are_not_mirrors():
    text = "Types: deb\nURIs: http://x/debian\nSuites: bookworm\nComponents: main\nEnabled: no\n"
    assert image.mirror_from_sources({"a.sources": text}) is None
    assert image.mirror_from_sources({"b.sources": DEB822.replace("bookworm bookworm-updates", "trixie")}) is None


def test_a_missing_image_is_refused_naming_the_build_command(tmp_path, monkeypatch):
    monkeypatch.setenv("VBENCH_CACHE", str(tmp_path))
    with pytest.raises(VbenchError) as err:
        image.require_image("qemu host worker2")
    assert "qemu host worker2 needs the guest image" in str(err.value)
    assert "vbench image build" in str(err.value)
    assert str(tmp_path) in str(err.value)


def test_images_live_in_the_cache_under_their_hash(tmp_path):
    img = image.image_for(image.DEFAULT_RECIPE, tmp_path)
    assert img.home == tmp_path / "images" / image.DEFAULT_RECIPE.hash()
    assert not img.exists()


APT_DUMP = """Acquire "";
Acquire::Check-Valid-Until "false";
Acquire::Check-Date "false";
Acquire::http "";
Acquire::http::Proxy "http://proxy.example:3142";
Acquire::https::Proxy "DIRECT";
APT::Architecture "amd64";
"""


def test_the_hosts_proxy_and_date_checks_are_carried_into_the_build():
    settings = image.apt_settings_from_dump(APT_DUMP)
    assert settings == {
        "Acquire::Check-Valid-Until": "false",
        "Acquire::Check-Date": "false",
        "Acquire::http::Proxy": "http://proxy.example:3142",
        "Acquire::https::Proxy": "DIRECT",
    }
    conf = image.apt_conf_text(settings)
    assert 'Acquire::http::Proxy "http://proxy.example:3142";\n' in conf
    assert 'Acquire::Check-Valid-Until "false";\n' in conf
    # debootstrap fetches with wget: it gets the proxy as environment, DIRECT means none
    assert image.proxy_environment(settings) == {"http_proxy": "http://proxy.example:3142"}


def test_no_apt_settings_no_snippet_no_proxy():
    assert image.apt_settings_from_dump('APT::Architecture "amd64";\n') == {}
    assert image.apt_conf_text({}) == ""
    assert image.proxy_environment({}) == {}


def test_the_host_settings_leave_the_image_after_the_install():
    script = image.chroot_install_script(image.DEFAULT_RECIPE)
    assert f'"$R/etc/apt/apt.conf.d/{image.HOST_APT_CONF}"' in script

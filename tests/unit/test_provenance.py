"""The commit every sample records: '+dirty' for changed code, not for the campaign's own data
or the pipeline's own dvc.lock."""

from __future__ import annotations

import subprocess

from vbench.provenance import machine_stamp, vbench_commit


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_changed_code_is_dirty_and_a_campaign_growing_under_data_is_not(tmp_path):
    repo = tmp_path / "checkout"
    (repo / "vbench").mkdir(parents=True)
    (repo / "data" / "raw" / "c").mkdir(parents=True)
    (repo / "vbench" / "x.py").write_text("x = 1\n")
    (repo / "data" / "raw" / "c" / "samples.jsonl").write_text("{}\n")
    (repo / "dvc.lock").write_text("schema: '2.0'\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "c")
    clean = vbench_commit(repo)
    assert len(clean) == 12 and not clean.endswith("+dirty")
    # A committed campaign that is resumed or extended appends to its own ledger as it runs.
    (repo / "data" / "raw" / "c" / "samples.jsonl").write_text("{}\n{}\n")
    assert vbench_commit(repo) == clean
    # `dvc repro` records each finished stage in dvc.lock while the next one measures.
    (repo / "dvc.lock").write_text("schema: '2.0'\nstages: {}\n")
    assert vbench_commit(repo) == clean
    (repo / "vbench" / "x.py").write_text("x = 2\n")
    assert vbench_commit(repo) == clean + "+dirty"


def test_the_machine_stamp_names_what_the_hosts_reported_once_each_and_leaves_out_what_none_did():
    same = {"cpu_model": "AMD EPYC", "vcpus": "2", "mem_total_mb": "24000", "platform": "lxc"}
    assert machine_stamp([same, dict(same)]) == {"cpu_model": "AMD EPYC", "vcpus": "2", "mem_total_mb": "24000"}
    # Hosts of an inventory may be different machines: every model is named, in order.
    other = {**same, "cpu_model": "Intel(R) Xeon(R) Processor", "vcpus": "8"}
    assert machine_stamp([same, other]) == {
        "cpu_model": "AMD EPYC; Intel(R) Xeon(R) Processor",
        "vcpus": "2; 8",
        "mem_total_mb": "24000",
    }
    # A fact no host reported is absent (the paper says "not recorded"), not an empty string.
    assert machine_stamp([{"cpu_model": " ", "platform": "native"}, {}]) == {}


def test_a_vm_guest_does_not_name_the_machine_when_a_host_beside_it_can():
    native = {"cpu_model": "AMD EPYC", "vcpus": "2", "mem_total_mb": "24000", "virt_kind": "none"}
    guest = {"cpu_model": "QEMU Virtual CPU version 2.5+", "vcpus": "1", "mem_total_mb": "2000", "virt_kind": "vm"}
    assert machine_stamp([native, guest]) == {"cpu_model": "AMD EPYC", "vcpus": "2", "mem_total_mb": "24000"}
    # Hosts that are all VMs (an inventory of guests) name what they see: it is all there is.
    assert machine_stamp([guest])["cpu_model"] == "QEMU Virtual CPU version 2.5+"

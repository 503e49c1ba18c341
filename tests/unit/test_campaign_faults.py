"""Design fields of issue #10 (retries, on_failure, job_timeout_s, inventory platform labels)."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from vbench.campaign.design import Experiment, design_hash, load_experiment
from vbench.errors import ParamsError


def exp(**kw):
    return Experiment.model_validate({"name": "x", "suite": [{"benchmark": "pi"}], **kw})


def test_new_fields_at_their_defaults_leave_the_design_hash_alone():
    # Campaigns recorded before these fields existed must still resume.
    import hashlib
    import json

    d = exp().model_dump(mode="json")
    for k in (
        "retries",
        "on_failure",
        "job_timeout_s",
        "factors",
        "compare",
        "baseline",
        "monitor_interval_s",
        "count_syscalls",
        "rounds",
        "interleave",
        "condition",
        "quiet",
        "precision",
        "aa",
        "warmup_runs",
        "idle",
        "duet",
    ):
        d.pop(k)
    for spec in d["suite"]:  # a benchmark entry's late fields (issue #51: hosts)
        spec.pop("hosts")
    assert design_hash(exp()) == hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:12]
    assert design_hash(exp(retries=2)) != design_hash(exp())
    assert design_hash(exp(on_failure="stop")) != design_hash(exp())


@pytest.mark.parametrize("kw", [{"retries": -1}, {"retries": 11}, {"on_failure": "ignore"}, {"job_timeout_s": 0}])
def test_fault_fields_are_bounded(kw):
    with pytest.raises(ValidationError):
        exp(**kw)


def test_inventory_labels_are_platforms_only_when_an_inventory_is_given(tmp_path):
    p = tmp_path / "d.yaml"
    p.write_text(
        yaml.safe_dump({"experiment": {"name": "x", "platforms": ["native", "xen"], "suite": [{"benchmark": "pi"}]}})
    )
    with pytest.raises(ParamsError) as err:
        load_experiment(p)
    assert err.value.field == f"{p}: experiment.platforms" and "unknown platform(s) ['xen']" in str(err.value)
    assert load_experiment(p, ("native", "xen")).platforms == ("native", "xen")

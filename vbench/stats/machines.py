"""Which machine (CPU model) each campaign `vbench predict` reads ran on, and the warning when the
fit's machine is not the one whose platforms it predicts. Pure.

Every sample since the machine stamp (vbench.provenance.machine_stamp) names its hosts' CPU model
(`cpu_model`); older campaigns name none. A fit's shares have not been shown to carry from one
machine to another: costs-fit-threads, fitted on an AMD EPYC, predicted that machine's gVisor jobs
within 7 % but an Intel Xeon's 55-60 % under (costs-rpc-sameday; docs/results.md, issue #53). So
the command names each campaign's machine and says when the fit's differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pandas as pd

from vbench.samples import cpu_models, split_values
from vbench.stats.campaign import Campaign
from vbench.stats.keys import natural_key

#: The samples' column (and the hosts' fact) naming the CPU model.
CPU_MODEL = "cpu_model"
#: What a campaign measured before the stamp shows in place of its CPU model.
NOT_RECORDED = "not recorded"

#: The parts a campaign plays in `vbench predict`.
FIT, FIT_COSTS, CALIBRATION, MEASURED = "fit", "fit costs", "calibration", "measured"
#: How the text names each part.
_SAID = {
    FIT: "the fit",
    FIT_COSTS: "the fit's costs",
    CALIBRATION: "the calibration",
    MEASURED: "the measured jobs",
}
#: The parts the fit is carried to: the platforms' costs it predicts from, the jobs it is judged
#: against. The fit's costs calibrate the fit's own configurations, so they are not among them.
CARRIED_TO = (CALIBRATION, MEASURED)


@dataclass(frozen=True)
class CampaignMachines:
    """A campaign `vbench predict` read, the part it plays (FIT, FIT_COSTS, CALIBRATION,
    MEASURED) and the CPU models its samples name (none where not recorded)."""

    role: str
    #: The campaign's directory, as the command's other mentions of it.
    campaign: str
    cpu_models: tuple[str, ...]

    @property
    def said(self) -> str:
        """The models as the text names them ("not recorded" where none)."""
        return " and ".join(self.cpu_models) or NOT_RECORDED


def _samples_values(samples: pd.DataFrame, key: str) -> set[str]:
    """The distinct values of machine fact `key` stamped on a campaign's samples; a field naming
    several hosts' values names each (vbench.samples.join_values); a CPU model is a machine's, a
    sandbox's placeholder is not one (vbench.samples.cpu_models)."""
    if key not in samples.columns:
        return set()
    read = cpu_models if key == CPU_MODEL else split_values
    # Each distinct field once: a campaign holds thousands of samples and a value or two.
    return {v for f in samples[key].dropna().unique() for v in read(f)}


def recorded(campaign: Campaign, key: str) -> list[str]:
    """The distinct values of a machine fact (vbench.provenance.MACHINE_FACTS) a campaign recorded,
    sorted: in its hosts' facts.json (the pipeline's provisioning) or stamped on its samples (every
    campaign since the stamp). `vbench predict` and the paper's table of campaigns read them so."""
    read = cpu_models if key == CPU_MODEL else split_values
    values = {v for f in campaign.facts for v in read(f.get(key))} | _samples_values(campaign.samples, key)
    return sorted(values, key=natural_key)


def samples_cpu_models(samples: pd.DataFrame) -> tuple[str, ...]:
    """The distinct CPU models a campaign's samples name, sorted; none where its samples have no
    `cpu_model` (measured before the stamp) or every one is missing."""
    return tuple(sorted(_samples_values(samples, CPU_MODEL), key=natural_key))


def campaign_machines(role: str, campaign: Campaign) -> CampaignMachines:
    """The CPU models `campaign` ran on (`recorded`), with the part it plays."""
    return CampaignMachines(role, str(campaign.path), tuple(recorded(campaign, CPU_MODEL)))


def machine_warning(machines: Sequence[CampaignMachines]) -> str | None:
    """Why the predictions may not hold, where the fit's CPU models and those of a campaign it is
    carried to (CARRIED_TO) are both recorded and differ; None otherwise. A campaign without a
    recorded model is not taken for another machine: nothing says it was one."""
    fit = next((m for m in machines if m.role == FIT), None)
    if fit is None or not fit.cpu_models:
        return None
    elsewhere = [
        m for m in machines if m.role in CARRIED_TO and m.cpu_models and set(m.cpu_models) != set(fit.cpu_models)
    ]
    if not elsewhere:
        return None
    where = ", ".join(f"{_SAID[m.role]} on {m.said}" for m in elsewhere)
    return (
        f"the fit ran on {fit.said}, {where}: a fit made on one machine has not been shown to carry to "
        "another (issue #53: costs-fit-threads on AMD EPYC predicted an Intel machine's gVisor jobs 55-60 % "
        "under); fit and calibrate on the machine the jobs run on"
    )


def machines_lines(machines: Sequence[CampaignMachines]) -> list[str]:
    """The text's line per campaign read, naming its CPU model(s), then the warning, if any."""
    # The directory's name: the header's line already gives each campaign's whole path.
    lines = [f"CPU of {_SAID[m.role]} ({Path(m.campaign).name}): {m.said}" for m in machines]
    warning = machine_warning(machines)
    return lines + ([f"WARNING: {warning}"] if warning else [])


def machines_json(machines: Sequence[CampaignMachines]) -> list[dict]:
    """The JSON's list: JSON has no tuple, so each campaign's models as the list a round trip gives."""
    return [{"role": m.role, "campaign": m.campaign, "cpu_models": list(m.cpu_models)} for m in machines]

"""A study: an experiment design with the testbed and Hadoop params it runs on, all loaded and
checked before anything starts, so that a typo in any params file is one clear line naming the
file and the field instead of a failure an hour into a campaign."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from pydantic import ValidationError

from vbench.campaign.design import Configuration, Experiment, load_experiment
from vbench.campaign.measure import check_calibrate_hosts
from vbench.campaign.runner import hadoop_for, params_for
from vbench.testbed.gvisor import refused_benchmarks
from vbench.errors import ParamsError
from vbench.params import (
    HadoopParams,
    TestbedParams,
    describe_validation_error,
    load_hadoop,
    load_testbed,
    params_file,
    prefixed,
)

#: Model name (a ValidationError's title) -> the params section it validates, and the model.
_SECTIONS = {
    model.__name__: (section, model) for section, model in (("testbed", TestbedParams), ("hadoop", HadoopParams))
}


@dataclass(frozen=True)
class Study:
    """Everything a design needs, validated: the experiment and the params files it overrides."""

    experiment: Experiment
    testbed: TestbedParams
    hadoop: HadoopParams
    experiment_path: Path


def load_study(
    params_dir: Path,
    experiment: str | Path,
    platform_labels: tuple[str, ...] = (),
    *,
    local: bool | None = None,
    testbed_overrides: Mapping[str, Any] | None = None,
    hadoop_overrides: Mapping[str, Any] | None = None,
    note: Callable[[str], None] | None = None,
) -> Study:
    """Load and check params_dir/testbed.yaml, params_dir/hadoop.yaml and the experiment (a preset
    name in params_dir/experiments/ or a path), then every configuration of the design.

    A missing testbed.yaml or hadoop.yaml means built-in defaults, said through `note`.
    `platform_labels` are an inventory's, accepted as platforms; on an inventory (`local` False,
    the default when labels are given) the testbed params do not describe the hosts, so only each
    configuration's Hadoop params are checked. Overrides (None values ignored) are the command
    line's, e.g. --platform and --workers."""
    path = experiment_path(params_dir, experiment)
    testbed = load_testbed(params_file(params_dir, "testbed.yaml", note), **dict(testbed_overrides or {}))
    hadoop = load_hadoop(params_file(params_dir, "hadoop.yaml", note), **dict(hadoop_overrides or {}))
    exp = load_experiment(path, platform_labels)
    on_testbed = not platform_labels if local is None else local
    for config in exp.configurations():
        _check_configuration(exp, config, testbed, hadoop, on_testbed, path)
    return Study(exp, testbed, hadoop, path)


def experiment_path(params_dir: Path, name: str | Path) -> Path:
    """A preset name's file in params_dir/experiments/, or the YAML file named."""
    path = Path(name)
    return path if path.suffix in (".yaml", ".yml") else params_dir / "experiments" / f"{name}.yaml"


def _check_configuration(
    exp: Experiment, config: Configuration, testbed: TestbedParams, hadoop: HadoopParams, on_testbed: bool, path: Path
) -> None:
    """Refuse a configuration whose merged params are invalid (a factor level or an experiment
    override that does not fit the files' params), naming the experiment file and the configuration."""
    where = f"{path}: configuration {config.key}"
    try:
        if on_testbed:
            tb, _ = params_for(exp, config, testbed, hadoop)
            check_calibrate_hosts(exp.calibrate, len(tb.resolved_hosts()))
            refused = refused_benchmarks(tb)
            for spec in (*exp.calibrate, *exp.suite):
                if spec.benchmark in refused:
                    raise ParamsError("experiment", f"{spec.benchmark} cannot run here: {refused[spec.benchmark]}")
        else:  # as the runner does for hosts from an inventory: only the Hadoop params apply
            hadoop_for(exp, config, hadoop)
    except ValidationError as exc:
        section, model = _SECTIONS.get(exc.title, (exc.title, None))
        raise describe_validation_error(exc, f"{where}: {section}", model) from None
    except ParamsError as exc:
        raise prefixed(exc, where) from None

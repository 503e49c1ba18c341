"""The campaigns the paper reads besides the analysed one, from params/paper.yaml's `paper` section.

One reading for both ways of building the paper: the DVC stage (notebooks/05-paper.ipynb, whose
parameters are that section's keys) and `invoke paper`, so the quick rebuild is the stage's paper
by construction. Pure: names in, names out; `build_paper` turns them into directories.
`committed_inputs` reads the params files for the rebuild from committed data (`invoke paper`,
selfbench/paper_build.py), and looks under data/raw/ for the campaigns it passes on.

Twenty-four keys differ from the others: `cost_fit_campaign` may be empty (as it was until the cost
model's fit campaign, `vbench campaign run costs-fit-nodelay`, was measured), and its section is
built only when it is set, where the others' sections say "not measured"; so may
`syscall_fit_campaign` and `syscall_calibration_campaign`, the section's system-call level (its fit,
costs-fit-syscalls, and the calibration whose costs it predicts from, `costs`; the measured jobs
are `sandbox_campaign`'s), set both or neither, and only with `cost_fit_campaign`; and so may
`syscall_fit_superseded`, a first run of the system-call level's fit design that failed its rule 1
(said in one sentence), only with `syscall_fit_campaign`; and so may `syscall_levels_campaign`, a
second campaign that stopped only the process and thread calls beside every call (costs-fit-process:
the part of each job's cost that level gives, in one sentence), only with `syscall_fit_campaign`;
and so may `syscall_levels_heldout`, a comma-separated list of campaigns that calibrated and timed
platforms in runs of their own, which the levels' fit predicts (in a subsection each), only with
`syscall_levels_campaign`; and so may `file_levels_campaign`, `file_levels_calibration_campaign` and
`file_levels_measured_campaign`, the subsection on the calls that name a file (its fit of three
levels of stops, costs-fit-file; the calibration whose platforms it predicts, costs-calibration-file;
the campaign whose jobs they are compared with, costs-oneday-confirm), set all three or none, and
only with `cost_fit_campaign`; and so may `rpc_levels_campaign`, `rpc_levels_calibration_campaign` and
`rpc_levels_measured_campaign`, the subsection priced by a JVM's call (its fit of the two levels with
the process level fixed for threads, costs-fit-threads; the calibration whose platforms it predicts,
costs-rpc-platforms; the campaign whose jobs they are compared with, costs-oneday-confirm), set all
three or none, and only with `cost_fit_campaign`; and so may `memory_levels_campaign`,
`memory_levels_calibration_campaign` and `memory_levels_measured_campaign`, the subsection on a JVM's
start apart from its calls (its fit of three levels with the calls that map memory stopped,
costs-fit-memory; the calibration whose platforms it predicts and the campaign whose jobs they are
compared with, both costs-jvm-sameday), set all three or none, and only with `cost_fit_campaign`;
and so may `memory_levels_tests`, a comma-separated list of campaigns that calibrated and timed the
platforms in the same blocks after that fit was read, each predicted by it (a later test of it, said
in its subsection), only with `memory_levels_campaign`; and so may `cpu_fit_campaign`,
`cpu_fit_costs_campaign` and `cpu_tests`, the subsection priced in the machine's CPU (the fit whose
jobs give the shares, costs-fit-memory-amd; the campaign its configurations' costs are read from with
each run's machine CPU, costs-cpu-levels-amd; a comma-separated list of campaigns predicted from their
own costs against their own jobs, costs-cpu-sameday-amd), set all three or none, and only with
`cost_fit_campaign`; and so may `cpu_replications`, further replications of that subsection (a list of
records, `CpuReplication`: a fit, the campaign its configurations' costs are read from, absent for the
fit's own, and the campaigns it predicts; costs-nospec-fit-amd predicting costs-nospec-sameday-amd),
only with those three; and so may `pooled_tests`, predictions judged against each job's ratio pooled
over several campaigns (a list of records, `PooledTest`: a fit, its configurations' costs' campaign,
absent for the fit's own, a calibration, two or more measured campaigns, the resources, the seed and
the pricing its design fixed; costs-fit-memory-nospec against gVisor's Intel campaigns,
costs-nospec-fit-amd against its AMD ones), only with `cost_fit_campaign`; and so may `rest_tests`,
predictions with the native time no fitted resource explains priced at a resource's cost (a list of
records, `RestTest`: a fit, a calibration, one measured campaign, the resources, the seed, the rests and
the pricing; costs-fit-sixblocks-amd predicting QEMU's TeraSort from costs-qemu-cpu-amd), only with
`cost_fit_campaign`; and so may
`barrier_campaign`, `barrier_fit_campaign` and
`barrier_calibration_campaign`, the subsection on NNBench's barrier (NNBench timed at two barriers,
costs-nnbench-barrier; the levels' refit at a longer one, costs-fit-barrier; the calibration both
fits predict from, costs-oneday-confirm), set all three or none, and only with
`syscall_levels_campaign`. So a set key that names no measured campaign is refused, naming
params/paper.yaml and the key (`cost_fit_fields`, `syscall_fit_fields`, `superseded_fit_fields`,
`levels_fields`, `heldout_fields`, `memory_tests_fields`, `cpu_fields`, `cpu_replication_fields`,
`pooled_test_fields`, `rest_test_fields`, `barrier_fields`, and the three-campaign subsections' `LevelsPart.fields`), by
both ways of building, before anything is read: silently dropped, it would drop a result asked for; a
record of `cpu_replications`, `pooled_tests` or `rest_tests` not shaped as one is refused as it is read
(`cpu_replications_of`, `pooled_tests_of`, `rest_tests_of`), naming the file and the field; a rest
test whose calibration lacks a rest's cost is refused by the build as it reads the test, naming its
`rests` as the build was told it (`vbench.paper.costs_rest.rest_tests`): the stage's notebook tells it
the file; `invoke paper` tells `vbench paper build` the file too (`--records-from`, `RECORDS_FROM_FLAG`),
so both name params/paper.yaml's record, not the option it was passed as. The checks are here
(`check_cost_fit`, `check_syscall_fit`, `check_superseded_fit`, `check_levels`, `check_heldout`,
`LevelsPart.check` of `FILE_LEVELS_INPUTS`, `RPC_LEVELS_INPUTS` and `MEMORY_LEVELS_INPUTS`,
`check_memory_tests`, `check_cpu_priced`, `check_cpu_replications`, `check_pooled_tests`,
`check_rest_tests` and `check_barrier`: paths only, so `invoke paper` need not import the build,
which loads matplotlib): `build_arguments` passes the keys' names through to them,
`committed_inputs` calls them before it passes the campaigns on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vbench.errors import ParamsError
from vbench.params import load_yaml_section
from vbench.validate import campaign_name

#: Where the `paper` section is written: what a refusal of one of its keys names.
PAPER_PARAMS = Path("params/paper.yaml")

#: The keys of params/paper.yaml's `paper` section that name campaigns under data/raw/.
PAPER_CAMPAIGN_KEYS = (
    "isolation_campaign",
    "network_campaign",
    "study_campaigns",
    "pernode_campaign",
    "sandbox_campaign",
    "cost_fit_campaign",
    "syscall_fit_campaign",
    "syscall_calibration_campaign",
    "syscall_fit_superseded",
    "syscall_levels_campaign",
    "syscall_levels_heldout",
    "file_levels_campaign",
    "file_levels_calibration_campaign",
    "file_levels_measured_campaign",
    "rpc_levels_campaign",
    "rpc_levels_calibration_campaign",
    "rpc_levels_measured_campaign",
    "memory_levels_campaign",
    "memory_levels_calibration_campaign",
    "memory_levels_measured_campaign",
    "memory_levels_tests",
    "cpu_fit_campaign",
    "cpu_fit_costs_campaign",
    "cpu_tests",
    "barrier_campaign",
    "barrier_fit_campaign",
    "barrier_calibration_campaign",
    "jvm_campaign",
)


#: The keys of the `paper` section whose value is a list of records naming campaigns, not a name or a
#: comma-separated list: read by `PaperInputs.from_params` (`cpu_replications_of`). DVC puts no list
#: on a command line, so the paper stage passes the params file instead (`-p paper_params
#: params/paper.yaml`) and its notebook reads them from it.
PAPER_RECORD_KEYS = ("cpu_replications", "pooled_tests", "rest_tests")


def cost_fit_fields(where: Path | str = PAPER_PARAMS) -> tuple[str, str]:
    """What a refusal of `cost_fit_campaign` names (`check_cost_fit`): the key in
    `where`, then the sandbox campaign's key it needs. Pure."""
    return f"{where}: paper.cost_fit_campaign", "paper.sandbox_campaign"


def syscall_fit_fields(where: Path | str = PAPER_PARAMS) -> tuple[str, str, str]:
    """What a refusal of the system-call level names (`check_syscall_fit`): its fit's key and its
    calibration's in `where`, then the cost model's fit key it needs. Pure."""
    return (
        f"{where}: paper.syscall_fit_campaign",
        f"{where}: paper.syscall_calibration_campaign",
        "paper.cost_fit_campaign",
    )


def superseded_fit_fields(where: Path | str = PAPER_PARAMS) -> tuple[str, str]:
    """What a refusal of `syscall_fit_superseded` names (`check_superseded_fit`): the key in `where`,
    then the system-call level's fit key it needs. Pure."""
    return f"{where}: paper.syscall_fit_superseded", "paper.syscall_fit_campaign"


def levels_fields(where: Path | str = PAPER_PARAMS) -> tuple[str, str]:
    """What a refusal of `syscall_levels_campaign` names (`check_levels`): the key in `where`, then
    the system-call level's fit key it needs. Pure."""
    return f"{where}: paper.syscall_levels_campaign", "paper.syscall_fit_campaign"


def heldout_fields(where: Path | str = PAPER_PARAMS) -> tuple[str, str]:
    """What a refusal of any campaign `syscall_levels_heldout` lists names (`check_heldout`): the key
    in `where`, then the levels campaign's key it needs. Pure."""
    return f"{where}: paper.syscall_levels_heldout", "paper.syscall_levels_campaign"


def memory_tests_fields(where: Path | str = PAPER_PARAMS) -> tuple[str, str]:
    """What a refusal of any campaign `memory_levels_tests` lists names (`check_memory_tests`): the
    key in `where`, then the memory level's fit key it needs. Pure."""
    return f"{where}: paper.memory_levels_tests", "paper.memory_levels_campaign"


def cpu_fields(where: Path | str = PAPER_PARAMS) -> tuple[str, str, str, str]:
    """What a refusal of the subsection priced in the machine's CPU names (`check_cpu_priced`): its
    fit's, its fit's costs' and its tests' keys in `where`, then the cost model's fit key it needs. Pure."""
    return (
        f"{where}: paper.cpu_fit_campaign",
        f"{where}: paper.cpu_fit_costs_campaign",
        f"{where}: paper.cpu_tests",
        "paper.cost_fit_campaign",
    )


@dataclass(frozen=True)
class CpuReplicationDirs:
    """A further replication of the subsection priced in the machine's CPU as the build reads it: the
    fit's campaign directory, each test's, and the directory its configurations' costs are read from
    (None: the fit's own, as `vbench predict` reads them without `--fit-costs`)."""

    fit: Path
    tests: tuple[Path, ...]
    fit_costs: Path | None = None


@dataclass(frozen=True)
class CpuReplication:
    """A further replication of the subsection priced in the machine's CPU, one record of
    params/paper.yaml's `cpu_replications`: the same model's shares fitted on `fit`'s jobs, its
    configurations' costs read from `fit_costs` ("": from `fit`'s own calibration), predicting each of
    `tests` from its own costs against its own jobs, in both pricings. Names under data/raw/."""

    fit: str
    tests: tuple[str, ...]
    fit_costs: str = ""

    def dirs(self, raw: Path) -> CpuReplicationDirs:
        """Its campaigns' directories under `raw` (data/raw). Pure."""
        return CpuReplicationDirs(
            raw / self.fit, tuple(raw / t for t in self.tests), raw / self.fit_costs if self.fit_costs else None
        )

    def flags(self) -> list[tuple[str, str]]:
        """(`vbench paper build` flag, campaign) of its campaigns: the fit's flag starts a replication,
        the others add to the one it started."""
        return [
            ("cpu-replication-fit", self.fit),
            *([("cpu-replication-fit-costs", self.fit_costs)] if self.fit_costs else []),
            *(("cpu-replication-test", t) for t in self.tests),
        ]


#: A record's fields in params/paper.yaml's `cpu_replications`: `fit_costs` may be left out.
CPU_REPLICATION_KEYS = ("fit", "fit_costs", "tests")


@dataclass(frozen=True)
class ReplicationFields:
    """What a refusal of a further replication names: the key giving them all, then a record's fit,
    fit costs and tests, each a template of the record's index `{i}` (from 0, as a YAML list counts)
    or number `{n}` (from 1, as a command line's options count)."""

    key: str = "cpu_replications"
    fit: str = "cpu_replications[{i}].fit"
    fit_costs: str = "cpu_replications[{i}].fit_costs"
    tests: str = "cpu_replications[{i}].tests"

    def at(self, i: int) -> tuple[str, str, str]:
        """The fit's, its costs' and its tests' fields of record `i` (from 0). Pure."""
        return (
            self.fit.format(i=i, n=i + 1),
            self.fit_costs.format(i=i, n=i + 1),
            self.tests.format(i=i, n=i + 1),
        )


def cpu_replication_fields(where: Path | str = PAPER_PARAMS) -> ReplicationFields:
    """What a refusal of `cpu_replications` names (`check_cpu_replications`): the key in `where`, and
    each record's fields under it. Pure."""
    key = f"{where}: paper.cpu_replications"
    template = key.replace("{", "{{").replace("}", "}}") + "[{i}]"
    return ReplicationFields(key, f"{template}.fit", f"{template}.fit_costs", f"{template}.tests")


def cpu_replications_of(value: Any, where: Path | str = PAPER_PARAMS) -> tuple[CpuReplication, ...]:
    """params/paper.yaml's `cpu_replications` as records: absent or empty, none; else a list of
    mappings, each with `fit` (a campaign), `tests` (a list of campaigns, or one comma-separated
    string) and, optionally, `fit_costs` (a campaign; absent, the fit's own costs). Anything else is
    refused, naming `where` and the field. Pure: whether the campaigns are measured is
    `check_cpu_replications`'."""
    key = f"{where}: paper.cpu_replications"
    if value is None or value == "" or value == []:
        return ()
    shape = "a list of records {fit: <campaign>, tests: [<campaign>, ...]}, fit_costs: <campaign> optional"
    if not isinstance(value, list):
        raise ParamsError(key, f"{shape}, not {_shown(value)}")
    records = []
    for i, record in enumerate(value):
        field = f"{key}[{i}]"
        if not isinstance(record, dict):
            raise ParamsError(field, f"{shape}: this one is {_shown(record)}")
        unknown = [k for k in record if k not in CPU_REPLICATION_KEYS]
        if unknown:
            raise ParamsError(f"{field}.{unknown[0]}", "not a field of a replication: fit, tests and fit_costs are")
        fit = _record_name(record.get("fit"), f"{field}.fit")
        if not fit:
            raise ParamsError(f"{field}.fit", "names no campaign: a replication is fitted on the jobs of one")
        costs = _record_name(record.get("fit_costs"), f"{field}.fit_costs")
        names = _record_names(record.get("tests"), f"{field}.tests")
        if not names:
            raise ParamsError(f"{field}.tests", "lists no campaign: a replication predicts one at least")
        records.append(CpuReplication(fit, names, costs))
    return tuple(records)


def _record_name(value: Any, field: str) -> str:
    """A campaign a record names: "" where none is, else a plain name, refused naming `field`."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise ParamsError(field, f"a campaign's name, not {_shown(value)}")
    return campaign_name(value.strip(), field)


def _record_names(value: Any, field: str) -> tuple[str, ...]:
    """The campaigns a record lists: a list of names, or one comma-separated string; refused
    naming `field` where one is empty or not a name."""
    if isinstance(value, list):
        names = tuple(_record_name(v, field) for v in value)
        if not all(names):
            raise ParamsError(field, "lists an empty name: each is a campaign")
        return names
    if isinstance(value, str) or value is None:
        names = campaign_list(value)
        for name in names:
            campaign_name(name, field)
        return names
    raise ParamsError(field, f"a list of campaigns, not {_shown(value)}")


def _shown(value: Any) -> str:
    """A value a refusal quotes: its repr, on one line and short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --- paper.pooled_tests: predictions judged against ratios pooled over campaigns -------------------

#: How `vbench predict --costs` prices the micro-benchmarks (`cost_prediction.PRICINGS`, not imported:
#: this module reads names, not campaigns).
POOLED_PRICINGS = ("wall", "cpu")
#: What a pooled test's `fixed_pricing` may name: one pricing, or both where its design fixed a rule
#: for each before it ran.
BOTH_PRICINGS = "both"
FIXED_PRICINGS = (*POOLED_PRICINGS, BOTH_PRICINGS)
#: How a pooled test's shares are fitted (`vbench predict --shares`): free, or bounded at 0.
FREE_SHARES, NONNEGATIVE_SHARES = "free", "nonnegative"
POOLED_SHARES = (FREE_SHARES, NONNEGATIVE_SHARES)


@dataclass(frozen=True)
class PooledTestDirs:
    """A test against pooled ratios as the build reads it: the fit's campaign directory, the
    calibration's, each measured campaign's, the resources, the seed, the directory the fit's
    configurations' costs are read from (None: the fit's own, as `vbench predict` reads them without
    `--fit-costs`) and the pricing its design fixed ("": none). The command line fills one option at
    a time, so a part may be missing until `check_pooled_tests` refuses it."""

    fit: Path
    calibration: Path | None = None
    measured: tuple[Path, ...] = ()
    resources: tuple[str, ...] = ()
    seed: int | None = None
    fit_costs: Path | None = None
    fixed_pricing: str = ""
    #: Its shares are fitted bounded at 0 (`vbench predict --shares nonnegative`), not free.
    nonnegative: bool = False


@dataclass(frozen=True)
class PooledTest:
    """One record of params/paper.yaml's `pooled_tests`: `fit`'s shares on `resources` ("rpc",
    "jvmstart"), its configurations' costs read from `fit_costs` ("": from `fit`'s own calibration),
    predicting each platform `calibration` calibrated, seeded `seed`, each job judged against its
    ratio pooled over the `measured` campaigns (two or more), in both pricings, as `vbench predict
    CALIBRATION --fit FIT [--fit-costs FIT_COSTS] --resources ... --seed SEED --measured A,B,...
    --costs wall|cpu` reads it. `fixed_pricing`: the pricing its design fixed before it ran ("": none
    fixed, both read after). `nonnegative`: its shares fitted bounded at 0 (`vbench predict --shares
    nonnegative`; the record's `shares` field), else free. Names under data/raw/."""

    fit: str
    calibration: str
    measured: tuple[str, ...]
    resources: tuple[str, ...]
    seed: int
    fit_costs: str = ""
    fixed_pricing: str = ""
    nonnegative: bool = False

    def dirs(self, raw: Path) -> PooledTestDirs:
        """Its campaigns' directories under `raw` (data/raw). Pure."""
        return PooledTestDirs(
            raw / self.fit,
            raw / self.calibration,
            tuple(raw / m for m in self.measured),
            self.resources,
            self.seed,
            raw / self.fit_costs if self.fit_costs else None,
            self.fixed_pricing,
            self.nonnegative,
        )

    def flags(self) -> list[tuple[str, str]]:
        """(`vbench paper build` flag, value) of it: the fit's flag starts a test, the others add to
        the one it started; the resources', seed's and fixed pricing's values are no campaigns
        (`POOLED_VALUE_FLAGS`)."""
        return [
            ("pooled-fit", self.fit),
            *([("pooled-fit-costs", self.fit_costs)] if self.fit_costs else []),
            ("pooled-calibration", self.calibration),
            *(("pooled-measured", m) for m in self.measured),
            *(("pooled-resource", r) for r in self.resources),
            ("pooled-seed", str(self.seed)),
            *([("pooled-fixed-pricing", self.fixed_pricing)] if self.fixed_pricing else []),
            *([("pooled-shares", NONNEGATIVE_SHARES)] if self.nonnegative else []),
        ]


#: The `vbench paper build` flags of a pooled test whose value is not a campaign: passed on as they
#: are, not as a directory under data/raw (`paper_build_args`, `committed_inputs`).
POOLED_VALUE_FLAGS = ("pooled-resource", "pooled-seed", "pooled-fixed-pricing", "pooled-shares")
#: A record's fields in params/paper.yaml's `pooled_tests`: `fit_costs`, `fixed_pricing` and `shares`
#: may be left out.
POOLED_TEST_KEYS = ("fit", "fit_costs", "calibration", "measured", "resources", "seed", "fixed_pricing", "shares")


@dataclass(frozen=True)
class PooledFields:
    """What a refusal of a pooled test names: the key giving them all, each record's fields, each a
    template of the record's index `{i}` (from 0, as a YAML list counts) or number `{n}` (from 1, as a
    command line's options count), then the cost model's fit's field, which the tests need."""

    key: str = "pooled_tests"
    fit: str = "pooled_tests[{i}].fit"
    fit_costs: str = "pooled_tests[{i}].fit_costs"
    calibration: str = "pooled_tests[{i}].calibration"
    measured: str = "pooled_tests[{i}].measured"
    resources: str = "pooled_tests[{i}].resources"
    seed: str = "pooled_tests[{i}].seed"
    fixed_pricing: str = "pooled_tests[{i}].fixed_pricing"
    shares: str = "pooled_tests[{i}].shares"
    cost_fit: str = "cost_fit_dir"

    def at(self, i: int, part: str) -> str:
        """Record `i`'s (from 0) field `part` ("fit", "measured", ...). Pure."""
        return getattr(self, part).format(i=i, n=i + 1)


def pooled_test_fields(where: Path | str = PAPER_PARAMS) -> PooledFields:
    """What a refusal of `pooled_tests` names (`check_pooled_tests`): the key in `where`, each
    record's fields under it, and the cost model's fit key. Pure."""
    key = f"{where}: paper.pooled_tests"
    template = key.replace("{", "{{").replace("}", "}}") + "[{i}]"
    parts = {part: f"{template}.{part}" for part in POOLED_TEST_KEYS}
    return PooledFields(key, **parts, cost_fit="paper.cost_fit_campaign")


def _record_mappings(
    value: Any, key: str, shape: str, keys: Sequence[str], what: str
) -> Iterator[tuple[int, str, dict]]:
    """Each record of a list of records under `key` (its index, its field, the mapping), refused,
    naming the field, where `value` is no list, a record no mapping, or a record has a key not in
    `keys` (`what` names such a record: "a pooled test")."""
    if not isinstance(value, list):
        raise ParamsError(key, f"{shape}, not {_shown(value)}")
    for i, record in enumerate(value):
        field = f"{key}[{i}]"
        if not isinstance(record, dict):
            raise ParamsError(field, f"{shape}: this one is {_shown(record)}")
        unknown = [k for k in record if k not in keys]
        if unknown:
            raise ParamsError(f"{field}.{unknown[0]}", f"not a field of {what}: {', '.join(keys)} are")
        yield i, field, record


def pooled_tests_of(value: Any, where: Path | str = PAPER_PARAMS) -> tuple[PooledTest, ...]:
    """params/paper.yaml's `pooled_tests` as records: absent or empty, none; else a list of mappings,
    each with `fit`, `calibration` (campaigns), `measured` (two campaigns or more, a list or one
    comma-separated string, none twice), `resources` (a list or a comma-separated string of the cost
    model's resources), `seed` (an integer) and, optionally, `fit_costs` (a campaign),
    `fixed_pricing` (wall or cpu) and `shares` (free or nonnegative). Anything else is refused, naming
    `where` and the field. Pure:
    whether the campaigns are measured is `check_pooled_tests`'."""
    fields = pooled_test_fields(where)
    if value is None or value == "" or value == []:
        return ()
    shape = (
        "a list of records {fit: <campaign>, calibration: <campaign>, measured: [<campaign>, ...], "
        "resources: [<resource>, ...], seed: <integer>}, fit_costs, fixed_pricing and shares optional"
    )
    records: list[PooledTest] = []
    for i, field, record in _record_mappings(value, fields.key, shape, POOLED_TEST_KEYS, "a pooled test"):
        names = {}
        for part, why in (
            ("fit", "a pooled test's shares are fitted on the jobs of one"),
            ("calibration", "a pooled test predicts the platforms one calibrated"),
        ):
            names[part] = _record_name(record.get(part), fields.at(i, part))
            if not names[part]:
                raise ParamsError(fields.at(i, part), f"names no campaign: {why}")
        measured = _record_names(record.get("measured"), fields.at(i, "measured"))
        _check_pooled_measured(measured, fields.at(i, "measured"))
        resources = _pooled_resources(record.get("resources"), fields.at(i, "resources"))
        seed = record.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ParamsError(fields.at(i, "seed"), f"an integer, the bootstrap's seed, not {_shown(seed)}")
        pricing = _fixed_pricing(record.get("fixed_pricing") or "", fields.at(i, "fixed_pricing"))
        test = PooledTest(
            names["fit"],
            names["calibration"],
            measured,
            resources,
            seed,
            _record_name(record.get("fit_costs"), fields.at(i, "fit_costs")),
            pricing,
            _pooled_shares(record.get("shares") or FREE_SHARES, fields.at(i, "shares")),
        )
        if test in records:
            raise ParamsError(field, f"is record {records.index(test)}'s test again: each is one table")
        records.append(test)
    return tuple(records)


def _check_pooled_measured(names: Sequence[str], field: str) -> None:
    """A pooled test's measured campaigns: two or more (one campaign's ratio is its hour's, not
    pooled: `vbench predict --measured` with one reads it alone), none twice (a campaign pooled with
    itself would count its hour twice)."""
    if not names:
        raise ParamsError(field, "lists no campaign: a pooled ratio is read over two campaigns or more")
    twice = sorted({n for n in names if list(names).count(n) > 1})
    if twice:
        raise ParamsError(field, f"lists {twice[0]!r} twice: each campaign is one reading of the pooled ratio")
    if len(names) < 2:
        raise ParamsError(field, f"lists only {names[0]!r}: a pooled ratio is read over two campaigns or more")


def _fixed_pricing(value: Any, field: str) -> str:
    """A pooled test's fixed pricing: "" (none fixed) or one `vbench predict --costs` takes, refused
    naming `field` otherwise."""
    if value and value not in FIXED_PRICINGS:
        raise ParamsError(field, f"the pricing its design fixed, {' or '.join(FIXED_PRICINGS)}, not {_shown(value)}")
    return value


def _pooled_shares(value: Any, field: str) -> bool:
    """Whether a pooled test's shares are bounded at 0, from how `vbench predict --shares` names them
    (free or nonnegative), refused naming `field` otherwise."""
    if value not in POOLED_SHARES:
        raise ParamsError(field, f"how its shares are fitted, {' or '.join(POOLED_SHARES)}, not {_shown(value)}")
    return value == NONNEGATIVE_SHARES


def _pooled_resources(value: Any, field: str) -> tuple[str, ...]:
    """A pooled test's resources, as `vbench predict --resources` names them: refused naming `field`
    where none is named, one is unknown to the cost model or named twice (`checked_resources`)."""
    # Imported here: the cost model's names are the statistics layer's, which `invoke paper` need not
    # load until a record names resources.
    from vbench.stats.cost_prediction import checked_resources

    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ParamsError(field, f"a list of the cost model's resources, not {_shown(value)}")
    return checked_resources(value, field)


# --- paper.rest_tests: the native time no fitted resource explains, priced at a resource's cost ---------

#: A record's fields in params/paper.yaml's `rest_tests`: none may be left out.
REST_TEST_KEYS = ("fit", "calibration", "measured", "resources", "seed", "rests", "pricing")


@dataclass(frozen=True)
class RestTestDirs:
    """A test of the rest priced as the build reads it: the fit's campaign directory, the
    calibration's, the measured campaign's, the fitted resources, the seed, the resources each priced
    as the rest and the pricing. The command line fills one option at a time, so a part may be missing
    until `check_rest_tests` refuses it."""

    fit: Path
    calibration: Path | None = None
    measured: Path | None = None
    resources: tuple[str, ...] = ()
    seed: int | None = None
    rests: tuple[str, ...] = ()
    pricing: str = ""


@dataclass(frozen=True)
class RestTest:
    """One record of params/paper.yaml's `rest_tests`: `fit`'s shares on `resources` predicting each
    platform `calibration` calibrated, seeded `seed`, priced `pricing` (wall or cpu), each job judged
    against its ratio measured by the one campaign `measured` over its blocks; read once with the rest
    of native time at native's cost and once per resource of `rests` priced as the rest, as `vbench
    predict CALIBRATION --fit FIT --resources ... --seed SEED --costs PRICING --measured MEASURED
    [--rest REST]` reads it. Names under data/raw/."""

    fit: str
    calibration: str
    measured: str
    resources: tuple[str, ...]
    seed: int
    rests: tuple[str, ...]
    pricing: str

    def dirs(self, raw: Path) -> RestTestDirs:
        """Its campaigns' directories under `raw` (data/raw). Pure."""
        return RestTestDirs(
            raw / self.fit,
            raw / self.calibration,
            raw / self.measured,
            self.resources,
            self.seed,
            self.rests,
            self.pricing,
        )

    def flags(self) -> list[tuple[str, str]]:
        """(`vbench paper build` flag, value) of it: the fit's flag starts a test, the others add to
        the one it started; the resources', seed's, rests' and pricing's values are no campaigns
        (`REST_VALUE_FLAGS`)."""
        return [
            ("rest-fit", self.fit),
            ("rest-calibration", self.calibration),
            ("rest-measured", self.measured),
            *(("rest-resource", r) for r in self.resources),
            ("rest-seed", str(self.seed)),
            *(("rest-at", r) for r in self.rests),
            ("rest-pricing", self.pricing),
        ]


#: The `vbench paper build` flags of a rest test whose value is not a campaign.
REST_VALUE_FLAGS = ("rest-resource", "rest-seed", "rest-at", "rest-pricing")
#: The `vbench paper build` flag naming the params file its records' options were read from
#: (`committed_inputs`): the build refuses a rest test's calibration without a rest's cost only as it
#: reads the campaigns (`costs_rest.rest_tests`), long after the file was read; told the file, it names
#: the record's field there, not the option `invoke paper` passed the record as.
RECORDS_FROM_FLAG = "records-from"
#: Every flag whose value is passed on as it is, not as a directory under data/raw (`paper_build_args`,
#: `committed_inputs`).
VALUE_FLAGS = (*POOLED_VALUE_FLAGS, *REST_VALUE_FLAGS, RECORDS_FROM_FLAG)


@dataclass(frozen=True)
class RestFields:
    """What a refusal of a rest test names: the key giving them all, a record's field as a template of
    its index `{i}` (from 0, as a YAML list counts) or number `{n}` (from 1, as a command line's
    options count) and the field `{part}` ("fit", "rests", ...) as `spelled` writes it (a command
    line's options) or as itself, then the cost model's fit's field, which the tests need."""

    key: str = "rest_tests"
    field: str = "rest_tests[{i}].{part}"
    cost_fit: str = "cost_fit_dir"
    spelled: tuple[tuple[str, str], ...] = ()

    def at(self, i: int, part: str) -> str:
        """Record `i`'s (from 0) field `part`. Pure."""
        return self.field.format(i=i, n=i + 1, part=dict(self.spelled).get(part, part))


def rest_test_fields(where: Path | str = PAPER_PARAMS) -> RestFields:
    """What a refusal of `rest_tests` names (`check_rest_tests`, `costs_rest.rest_tests`): the key in
    `where`, each record's fields under it, and the cost model's fit key. Pure."""
    key = f"{where}: paper.rest_tests"
    template = key.replace("{", "{{").replace("}", "}}") + "[{i}].{part}"
    return RestFields(key, template, "paper.cost_fit_campaign")


def rest_tests_of(value: Any, where: Path | str = PAPER_PARAMS) -> tuple[RestTest, ...]:
    """params/paper.yaml's `rest_tests` as records: absent or empty, none; else a list of mappings,
    each with `fit`, `calibration` and `measured` (one campaign each), `resources` (a list or a
    comma-separated string of the cost model's resources), `seed` (an integer), `rests` (resources not
    fitted, one at least, each priced as the rest in a column of its own) and `pricing` (wall or cpu).
    Anything else is refused, naming `where` and the field. Pure: whether the campaigns are measured,
    is `check_rest_tests`'; whether each calibrated its rests, `costs_rest.rest_tests`'."""
    fields = rest_test_fields(where)
    if value is None or value == "" or value == []:
        return ()
    shape = (
        "a list of records {fit: <campaign>, calibration: <campaign>, measured: <campaign>, "
        "resources: [<resource>, ...], seed: <integer>, rests: [<resource>, ...], pricing: wall|cpu}"
    )
    records: list[RestTest] = []
    for i, field, record in _record_mappings(value, fields.key, shape, REST_TEST_KEYS, "a rest test"):
        names = {}
        for part, why in (
            ("fit", "its shares are fitted on the jobs of one"),
            ("calibration", "it predicts the platforms one calibrated"),
            ("measured", "its predictions are judged against the jobs one timed, over its blocks"),
        ):
            given = record.get(part)
            if isinstance(given, list):
                raise ParamsError(fields.at(i, part), f"one campaign, not a list: {why}")
            names[part] = _record_name(given, fields.at(i, part))
            if not names[part]:
                raise ParamsError(fields.at(i, part), f"names no campaign: {why}")
        resources = _pooled_resources(record.get("resources"), fields.at(i, "resources"))
        seed = record.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ParamsError(fields.at(i, "seed"), f"an integer, the bootstrap's seed, not {_shown(seed)}")
        test = RestTest(
            names["fit"],
            names["calibration"],
            names["measured"],
            resources,
            seed,
            _rests(record.get("rests"), resources, fields.at(i, "rests")),
            _pricing(record.get("pricing"), fields.at(i, "pricing")),
        )
        if test in records:
            raise ParamsError(field, f"is record {records.index(test)}'s test again: each is one table")
        records.append(test)
    return tuple(records)


def _rests(value: Any, resources: Sequence[str], field: str) -> tuple[str, ...]:
    """A rest test's rests, as `vbench predict --rest` names each: one at least, none unknown or named
    twice, none fitted (its share is fitted; the rest is the native time the fitted ones leave),
    refused naming `field`."""
    if value is None or value == "" or value == []:
        raise ParamsError(field, "names no resource: each is priced as the rest in a column of its own, one at least")
    rests = _pooled_resources(value, field)
    fitted = [r for r in rests if r in resources]
    if fitted:
        raise ParamsError(
            field,
            f"{fitted[0]} is a fitted resource: its share is fitted, the rest is the native time no fitted resource "
            "explains",
        )
    return rests


def _pricing(value: Any, field: str) -> str:
    """A rest test's pricing, as `vbench predict --costs` names it, refused naming `field` otherwise."""
    if value not in POOLED_PRICINGS:
        pricings = " or ".join(POOLED_PRICINGS)
        raise ParamsError(field, f"how the costs are priced, {pricings} (the one reading shown), not {_shown(value)}")
    return value


@dataclass(frozen=True)
class LevelsPart:
    """A subsection of the cost model's section made of three campaigns: a fit of planted levels,
    the calibration whose platforms it predicts and the campaign whose jobs they are compared with,
    set all three or none, and only with the cost model's fit (`cost_fit_campaign`). `key` names its
    params keys (`paper.<key>_campaign`, `paper.<key>_calibration_campaign`,
    `paper.<key>_measured_campaign`) and `generate`'s arguments (`<key>_dir`, ...); the rest is what
    a refusal says: why the three go together, how to build without them, whose subsection it is."""

    key: str
    together: str
    omit: str
    part_of: str

    @property
    def arguments(self) -> tuple[str, str, str, str]:
        """What a refusal names by default: `generate`'s arguments, then the cost model's fit's."""
        return (f"{self.key}_dir", f"{self.key}_calibration_dir", f"{self.key}_measured_dir", "cost_fit_dir")

    def fields(self, where: Path | str = PAPER_PARAMS) -> tuple[str, str, str, str]:
        """What a refusal names when read from params: its three keys in `where`, then the cost
        model's fit key it needs. Pure."""
        return (
            f"{where}: paper.{self.key}_campaign",
            f"{where}: paper.{self.key}_calibration_campaign",
            f"{where}: paper.{self.key}_measured_campaign",
            "paper.cost_fit_campaign",
        )

    def check(
        self,
        fit_dir: Path | str | None,
        calibration_dir: Path | str | None,
        measured_dir: Path | str | None,
        cost_fit_dir: Path | str | None,
        where: str | None = None,
        calibration: str | None = None,
        measured: str | None = None,
        cost_fit: str | None = None,
    ) -> None:
        """Refuse the subsection given in part, or without samples, or without the cost model's fit,
        before anything is read, as `check_syscall_fit` refuses the system-call level (and after the
        checks before it). The same ways in call it. `where`, `calibration` and `measured` name its
        fit's, its calibration's and its measured campaign's fields as the caller was given them,
        `cost_fit` the cost model's fit's (by default `arguments`); all three None passes: the part
        is omitted."""
        named = [where, calibration, measured, cost_fit]
        where, calibration, measured, cost_fit = (n if n is not None else d for n, d in zip(named, self.arguments))
        _check_set_together(
            ((fit_dir, where), (calibration_dir, calibration), (measured_dir, measured)),
            self.together,
            self.omit,
            (cost_fit_dir, cost_fit, self.part_of),
        )


#: The calls that name a file (costs-fit-file, costs-calibration-file, costs-oneday-confirm).
FILE_LEVELS_INPUTS = LevelsPart(
    "file_levels",
    "the calls that name a file are fitted on the one campaign, whose fit predicts the platforms the second "
    "calibrated against the jobs the third timed; set all three, or none to build the paper without them",
    "or leave it and the file level's other campaigns unset to build the paper without them",
    "the calls that name a file are a subsection of the cost model's section",
)
#: Priced by a JVM's call (costs-fit-threads, costs-rpc-platforms, costs-oneday-confirm).
RPC_LEVELS_INPUTS = LevelsPart(
    "rpc_levels",
    "a JVM's call is priced by the fit of the one campaign, which predicts the platforms the second calibrated "
    "against the jobs the third timed; set all three, or none to build the paper without it",
    "or leave it and the other campaigns priced by a JVM's call unset to build the paper without them",
    "the fit priced by a JVM's call is a subsection of the cost model's section",
)
#: A JVM's start apart from its calls (costs-fit-memory, costs-jvm-sameday twice).
MEMORY_LEVELS_INPUTS = LevelsPart(
    "memory_levels",
    "a JVM's start and its calls are told apart by the fit of the one campaign, which predicts the platforms "
    "the second calibrated against the jobs the third timed; set all three, or none to build the paper "
    "without it",
    "or leave it and the memory level's other campaigns unset to build the paper without them",
    "the memory level's fit is a subsection of the cost model's section",
)


def barrier_fields(where: Path | str = PAPER_PARAMS) -> tuple[str, str, str, str]:
    """What a refusal of the subsection on NNBench's barrier names (`check_barrier`): its measured
    campaign's, its refit's and its calibration's keys in `where`, then the levels campaign's key it
    needs. Pure."""
    return (
        f"{where}: paper.barrier_campaign",
        f"{where}: paper.barrier_fit_campaign",
        f"{where}: paper.barrier_calibration_campaign",
        "paper.syscall_levels_campaign",
    )


def campaign_list(text: Any) -> tuple[str, ...]:
    """The names of a comma-separated list (`paper.study_campaigns`), blanks dropped. Pure."""
    return tuple(n.strip() for n in str(text or "").split(",") if n.strip())


@dataclass(frozen=True)
class PaperInputs:
    """Campaign names under data/raw/ ("" = not read)."""

    isolation: str = ""
    monitoring: str = ""
    network: str = ""
    studies: tuple[str, ...] = ()
    pernode: str = ""
    sandbox: str = ""
    #: The cost model's fit (native under planted slowdowns); its section predicts `sandbox`'s platforms.
    cost_fit: str = ""
    #: The section's system-call level: its fit (native under system-call stops) and the calibration
    #: whose platforms it predicts, compared with `sandbox`'s jobs.
    syscall_fit: str = ""
    syscall_calibration: str = ""
    #: A first run of `syscall_fit`'s design that failed its rule 1: that, and nothing else, is read.
    syscall_fit_superseded: str = ""
    #: A second campaign that stopped only the process and thread calls beside every call: the part
    #: of each job's cost that level gives.
    syscall_levels: str = ""
    #: Campaigns that calibrated and timed platforms in runs of their own, in the paper's order: each
    #: one's platforms predicted by the levels' fit from its own costs, against its own jobs.
    syscall_levels_heldout: tuple[str, ...] = ()
    #: The calls that name a file: the fit of three levels of stops, the calibration whose platforms it
    #: predicts and the campaign whose jobs they are compared with.
    file_levels: str = ""
    file_levels_calibration: str = ""
    file_levels_measured: str = ""
    #: Priced by a JVM's call: the fit of the two levels with the process level fixed for threads, the
    #: calibration whose platforms it predicts and the campaign whose jobs they are compared with.
    rpc_levels: str = ""
    rpc_levels_calibration: str = ""
    rpc_levels_measured: str = ""
    #: A JVM's start apart from its calls: the fit of three levels with the calls that map memory
    #: stopped, the calibration whose platforms it predicts and the campaign whose jobs they are
    #: compared with.
    memory_levels: str = ""
    memory_levels_calibration: str = ""
    memory_levels_measured: str = ""
    #: Campaigns that calibrated and timed the platforms in the same blocks after the memory level's fit
    #: was read, in the paper's order: each predicted by that fit from its own costs, against its own
    #: jobs, a later test of it said in its subsection.
    memory_levels_tests: tuple[str, ...] = ()
    #: Priced in the machine's CPU: the fit whose jobs give the shares, the campaign its configurations'
    #: costs are read from (each run's machine CPU read), and the campaigns predicted, in the paper's order.
    cpu_fit: str = ""
    cpu_fit_costs: str = ""
    cpu_tests: tuple[str, ...] = ()
    #: Further replications of it, in the paper's order: each a fit, its configurations' costs and the
    #: campaigns it predicts (`cpu_replications`).
    cpu_replications: tuple[CpuReplication, ...] = ()
    #: Predictions judged against each job's ratio pooled over several campaigns, in the paper's order:
    #: each a fit, a calibration, the measured campaigns, the resources and the seed (`pooled_tests`).
    pooled_tests: tuple[PooledTest, ...] = ()
    #: Predictions with the native time no fitted resource explains priced at a resource's cost, in the
    #: paper's order: each a fit, a calibration, one measured campaign, the resources, the seed, the rests
    #: and the pricing (`rest_tests`).
    rest_tests: tuple[RestTest, ...] = ()
    #: NNBench's barrier: the campaign that timed it at two barriers, the levels' refit at a barrier
    #: every level reaches, and the calibration both fits predict from.
    barrier: str = ""
    barrier_fit: str = ""
    barrier_calibration: str = ""
    #: Native hosts under the machine's JDK and the guest image's (`hadoop.jdk` a factor): the size of
    #: the JVM builds' difference the threats to validity quote beside the campaigns that ran two.
    jvm: str = ""

    @classmethod
    def from_params(
        cls, paper: Mapping[str, Any], monitoring: str = "", where: Path | str = PAPER_PARAMS
    ) -> PaperInputs:
        """From params/paper.yaml's `paper` section and the pipeline's monitoring campaign; a record of
        `cpu_replications` or `pooled_tests` not shaped as one is refused naming `where` and its field."""
        return cls(
            isolation=str(paper.get("isolation_campaign") or ""),
            monitoring=str(monitoring or ""),
            network=str(paper.get("network_campaign") or ""),
            studies=campaign_list(paper.get("study_campaigns")),
            pernode=str(paper.get("pernode_campaign") or ""),
            sandbox=str(paper.get("sandbox_campaign") or ""),
            cost_fit=str(paper.get("cost_fit_campaign") or ""),
            syscall_fit=str(paper.get("syscall_fit_campaign") or ""),
            syscall_calibration=str(paper.get("syscall_calibration_campaign") or ""),
            syscall_fit_superseded=str(paper.get("syscall_fit_superseded") or ""),
            syscall_levels=str(paper.get("syscall_levels_campaign") or ""),
            syscall_levels_heldout=campaign_list(paper.get("syscall_levels_heldout")),
            file_levels=str(paper.get("file_levels_campaign") or ""),
            file_levels_calibration=str(paper.get("file_levels_calibration_campaign") or ""),
            file_levels_measured=str(paper.get("file_levels_measured_campaign") or ""),
            rpc_levels=str(paper.get("rpc_levels_campaign") or ""),
            rpc_levels_calibration=str(paper.get("rpc_levels_calibration_campaign") or ""),
            rpc_levels_measured=str(paper.get("rpc_levels_measured_campaign") or ""),
            memory_levels=str(paper.get("memory_levels_campaign") or ""),
            memory_levels_calibration=str(paper.get("memory_levels_calibration_campaign") or ""),
            memory_levels_measured=str(paper.get("memory_levels_measured_campaign") or ""),
            memory_levels_tests=campaign_list(paper.get("memory_levels_tests")),
            cpu_fit=str(paper.get("cpu_fit_campaign") or ""),
            cpu_fit_costs=str(paper.get("cpu_fit_costs_campaign") or ""),
            cpu_tests=campaign_list(paper.get("cpu_tests")),
            cpu_replications=cpu_replications_of(paper.get("cpu_replications"), where),
            pooled_tests=pooled_tests_of(paper.get("pooled_tests"), where),
            rest_tests=rest_tests_of(paper.get("rest_tests"), where),
            barrier=str(paper.get("barrier_campaign") or ""),
            barrier_fit=str(paper.get("barrier_fit_campaign") or ""),
            barrier_calibration=str(paper.get("barrier_calibration_campaign") or ""),
            jvm=str(paper.get("jvm_campaign") or ""),
        )

    @property
    def extra(self) -> tuple[str, ...]:
        """The campaigns merged into the analysed one: the network study, then the studies'."""
        return tuple(n for n in (self.network, *self.studies) if n)

    def flags(self) -> list[tuple[str, str]]:
        """(`vbench paper build` flag, campaign) of every input given, in the stage's order."""
        pairs = [
            ("isolation", self.isolation),
            ("monitoring", self.monitoring),
            *(("extra-campaign", n) for n in self.extra),
            ("pernode", self.pernode),
            ("sandbox", self.sandbox),
            ("cost-fit", self.cost_fit),
            ("syscall-fit", self.syscall_fit),
            ("syscall-calibration", self.syscall_calibration),
            ("syscall-fit-superseded", self.syscall_fit_superseded),
            ("syscall-levels", self.syscall_levels),
            *(("syscall-levels-heldout", n) for n in self.syscall_levels_heldout),
            ("file-levels", self.file_levels),
            ("file-levels-calibration", self.file_levels_calibration),
            ("file-levels-measured", self.file_levels_measured),
            ("rpc-levels", self.rpc_levels),
            ("rpc-levels-calibration", self.rpc_levels_calibration),
            ("rpc-levels-measured", self.rpc_levels_measured),
            ("memory-levels", self.memory_levels),
            ("memory-levels-calibration", self.memory_levels_calibration),
            ("memory-levels-measured", self.memory_levels_measured),
            *(("memory-levels-test", n) for n in self.memory_levels_tests),
            ("cpu-fit", self.cpu_fit),
            ("cpu-fit-costs", self.cpu_fit_costs),
            *(("cpu-test", n) for n in self.cpu_tests),
            *(pair for r in self.cpu_replications for pair in r.flags()),
            *(pair for t in self.pooled_tests for pair in t.flags()),
            *(pair for t in self.rest_tests for pair in t.flags()),
            ("barrier", self.barrier),
            ("barrier-fit", self.barrier_fit),
            ("barrier-calibration", self.barrier_calibration),
            ("jvm", self.jvm),
        ]
        return [(flag, name) for flag, name in pairs if name]

    def build_arguments(self, raw: Path, where: Path | str = PAPER_PARAMS) -> dict[str, Any]:
        """`build_paper`'s keyword arguments for these campaigns under `raw` (data/raw). Pure: a set
        `cost_fit_campaign`, `syscall_fit_campaign`, `syscall_calibration_campaign`,
        `syscall_fit_superseded`, `syscall_levels_campaign`, `syscall_levels_heldout`, a
        `file_levels_*`, an `rpc_levels_*`, a `memory_levels_*` (`memory_levels_tests` among them) or
        a `cpu_*` key, the keys whose campaigns must exist, is refused here only if it is not a plain
        name; the build looks for their samples, naming the key in `where` (`cost_fit_fields`,
        `syscall_fit_fields`, `superseded_fit_fields`, `levels_fields`, `heldout_fields`,
        `memory_tests_fields`, `cpu_fields`, `cpu_replication_fields`, and each `LevelsPart.fields`)."""
        syscall_fields, file_fields = syscall_fit_fields(where), FILE_LEVELS_INPUTS.fields(where)
        rpc_fields, memory_fields = RPC_LEVELS_INPUTS.fields(where), MEMORY_LEVELS_INPUTS.fields(where)
        nnbench_fields, priced_fields = barrier_fields(where), cpu_fields(where)
        replication_fields = cpu_replication_fields(where)
        replicated = [
            (name, field)
            for i, r in enumerate(self.cpu_replications)
            for name, field in zip((r.fit, r.fit_costs), replication_fields.at(i))
        ] + [(t, replication_fields.at(i)[2]) for i, r in enumerate(self.cpu_replications) for t in r.tests]
        for name, field in (
            (self.cost_fit, cost_fit_fields(where)[0]),
            (self.syscall_fit, syscall_fields[0]),
            (self.syscall_calibration, syscall_fields[1]),
            (self.syscall_fit_superseded, superseded_fit_fields(where)[0]),
            (self.syscall_levels, levels_fields(where)[0]),
            *((n, heldout_fields(where)[0]) for n in self.syscall_levels_heldout),
            *zip((self.file_levels, self.file_levels_calibration, self.file_levels_measured), file_fields),
            *zip((self.rpc_levels, self.rpc_levels_calibration, self.rpc_levels_measured), rpc_fields),
            *zip((self.memory_levels, self.memory_levels_calibration, self.memory_levels_measured), memory_fields),
            *((n, memory_tests_fields(where)[0]) for n in self.memory_levels_tests),
            *zip((self.cpu_fit, self.cpu_fit_costs), priced_fields),
            *((n, priced_fields[2]) for n in self.cpu_tests),
            *replicated,
            *zip((self.barrier, self.barrier_fit, self.barrier_calibration), nnbench_fields),
        ):
            if name:
                campaign_name(name, field)

        def one(name: str) -> Path | None:
            return raw / name if name else None

        return {
            "isolation_dir": one(self.isolation),
            "monitoring_dir": one(self.monitoring),
            "extra_campaigns": [raw / n for n in self.extra],
            "pernode_dir": one(self.pernode),
            "sandbox_dir": one(self.sandbox),
            "cost_fit_dir": one(self.cost_fit),
            "cost_fit_fields": cost_fit_fields(where),
            "syscall_fit_dir": one(self.syscall_fit),
            "syscall_calibration_dir": one(self.syscall_calibration),
            "syscall_fit_fields": syscall_fields,
            "syscall_fit_superseded_dir": one(self.syscall_fit_superseded),
            "syscall_fit_superseded_fields": superseded_fit_fields(where),
            "syscall_levels_dir": one(self.syscall_levels),
            "syscall_levels_fields": levels_fields(where),
            "syscall_levels_heldout_dirs": [raw / n for n in self.syscall_levels_heldout],
            "syscall_levels_heldout_fields": heldout_fields(where),
            "file_levels_dir": one(self.file_levels),
            "file_levels_calibration_dir": one(self.file_levels_calibration),
            "file_levels_measured_dir": one(self.file_levels_measured),
            "file_levels_fields": file_fields,
            "rpc_levels_dir": one(self.rpc_levels),
            "rpc_levels_calibration_dir": one(self.rpc_levels_calibration),
            "rpc_levels_measured_dir": one(self.rpc_levels_measured),
            "rpc_levels_fields": rpc_fields,
            "memory_levels_dir": one(self.memory_levels),
            "memory_levels_calibration_dir": one(self.memory_levels_calibration),
            "memory_levels_measured_dir": one(self.memory_levels_measured),
            "memory_levels_fields": memory_fields,
            "memory_levels_test_dirs": [raw / n for n in self.memory_levels_tests],
            "memory_levels_tests_fields": memory_tests_fields(where),
            "cpu_fit_dir": one(self.cpu_fit),
            "cpu_fit_costs_dir": one(self.cpu_fit_costs),
            "cpu_test_dirs": [raw / n for n in self.cpu_tests],
            "cpu_fields": priced_fields,
            "cpu_replications": [r.dirs(raw) for r in self.cpu_replications],
            "cpu_replications_fields": replication_fields,
            # Each record's names were checked as it was read (`pooled_tests_of`).
            "pooled_tests": [t.dirs(raw) for t in self.pooled_tests],
            "pooled_tests_fields": pooled_test_fields(where),
            # As the pooled tests': each record's names were checked as it was read (`rest_tests_of`).
            "rest_tests": [t.dirs(raw) for t in self.rest_tests],
            "rest_tests_fields": rest_test_fields(where),
            "barrier_dir": one(self.barrier),
            "barrier_fit_dir": one(self.barrier_fit),
            "barrier_calibration_dir": one(self.barrier_calibration),
            "barrier_fields": nnbench_fields,
            "jvm_dir": one(self.jvm),
        }


#: What a refusal of the fit campaign names by default (`check_cost_fit`): `generate`'s arguments.
COST_FIT_FIELDS = ("cost_fit_dir", "sandbox_dir")


def check_cost_fit(
    cost_fit_dir: Path | str | None,
    sandbox_dir: Path | str | None,
    where: str = COST_FIT_FIELDS[0],
    sandbox: str = COST_FIT_FIELDS[1],
) -> None:
    """Refuse a fit campaign given without samples, or without the sandbox campaign whose platforms
    it predicts, before anything is read: unlike the other sections', the cost model's is built only
    when asked for, so a fit that reads nothing would drop the section the build was asked for.
    The one check of every way in: `generate` (`build_paper`, the DVC stage's notebook and `vbench
    paper build` pass their own `where` and `sandbox` through it) and `committed_inputs` (`invoke
    paper`). `where` names the fit's field as the caller was given it, `sandbox` the sandbox
    campaign's; None passes: the section is omitted."""
    if cost_fit_dir is None:
        return
    _require_samples(
        cost_fit_dir,
        where,
        "measure the fit first (`vbench campaign run costs-fit-nodelay`), or leave it unset to build the paper "
        "without the cost model's section",
    )
    if sandbox_dir is None or not (Path(sandbox_dir) / "samples.jsonl").is_file():
        raise ParamsError(
            where,
            f"needs {sandbox} naming a measured campaign too: the sandbox study's platforms are what "
            "the fitted model predicts, and its jobs what the predictions are compared with",
        )


#: What a refusal of the system-call level names by default (`check_syscall_fit`): `generate`'s
#: arguments.
SYSCALL_FIT_FIELDS = ("syscall_fit_dir", "syscall_calibration_dir", "cost_fit_dir")


def check_syscall_fit(
    syscall_fit_dir: Path | str | None,
    syscall_calibration_dir: Path | str | None,
    cost_fit_dir: Path | str | None,
    where: str = SYSCALL_FIT_FIELDS[0],
    calibration: str = SYSCALL_FIT_FIELDS[1],
    cost_fit: str = SYSCALL_FIT_FIELDS[2],
) -> None:
    """Refuse the cost model's system-call level given in part, or without samples, or without the
    cost model's fit, before anything is read, as `check_cost_fit` refuses the fit (and after it:
    the fit's own check decides first): the level is built only when asked for, and is a part of
    that section, whose sandbox campaign timed the jobs it compares its predictions with. The same
    ways in call it. `where` and `calibration` name the level's fit and calibration fields as the
    caller was given them, `cost_fit` the cost model's fit's; both None passes: the part is
    omitted."""
    _check_set_together(
        ((syscall_fit_dir, where), (syscall_calibration_dir, calibration)),
        "the system-call level fits its shares on the one campaign and predicts from the costs the other "
        "calibrated; set both, or neither to build the paper without it",
        "or leave it and the system-call level's other campaign unset to build the paper without it",
        (
            cost_fit_dir,
            cost_fit,
            "the system-call level is a part of the cost model's section, whose sandbox campaign timed the jobs "
            "its predictions are compared with",
        ),
    )


#: What a refusal of the subsection on NNBench's barrier names by default (`check_barrier`):
#: `generate`'s arguments.
BARRIER_FIELDS = ("barrier_dir", "barrier_fit_dir", "barrier_calibration_dir", "syscall_levels_dir")


def check_barrier(
    barrier_dir: Path | str | None,
    barrier_fit_dir: Path | str | None,
    calibration_dir: Path | str | None,
    levels_dir: Path | str | None,
    where: str = BARRIER_FIELDS[0],
    fit: str = BARRIER_FIELDS[1],
    calibration: str = BARRIER_FIELDS[2],
    levels: str = BARRIER_FIELDS[3],
) -> None:
    """Refuse the subsection on NNBench's barrier given in part, or without samples, or without the
    campaign of system-call levels whose fit it tests, before anything is read, as `FILE_LEVELS_INPUTS.check`
    refuses the file level (and after the checks before it). The same ways in call it. `where`, `fit`
    and `calibration` name its measured campaign's, its refit's and its calibration's fields as the
    caller was given them, `levels` the levels campaign's; all three None passes: no subsection."""
    _check_set_together(
        ((barrier_dir, where), (barrier_fit_dir, fit), (calibration_dir, calibration)),
        "NNBench timed at two barriers is compared with the levels' fit and its refit at a longer barrier, both "
        "predicting from the costs the third calibrated; set all three, or none to build the paper without them",
        "or leave it and the barrier's other campaigns unset to build the paper without them",
        (levels_dir, levels, "the barrier's subsection tests the levels' fit, whose subsection it follows"),
    )


#: What a refusal of the subsection priced in the machine's CPU names by default (`check_cpu_priced`):
#: `generate`'s arguments.
CPU_FIELDS = ("cpu_fit_dir", "cpu_fit_costs_dir", "cpu_test_dirs", "cost_fit_dir")


def check_cpu_priced(
    fit_dir: Path | str | None,
    fit_costs_dir: Path | str | None,
    test_dirs: Sequence[Path | str],
    cost_fit_dir: Path | str | None,
    where: str = CPU_FIELDS[0],
    fit_costs: str = CPU_FIELDS[1],
    tests: str = CPU_FIELDS[2],
    cost_fit: str = CPU_FIELDS[3],
) -> None:
    """Refuse the subsection priced in the machine's CPU given in part, or without samples, or with a
    test listed twice, or without the cost model's fit, before anything is read, as `LevelsPart.check`
    refuses a fit of levels (and after `check_memory_tests`). The same ways in call it. `where`,
    `fit_costs` and `tests` name its fit's, its fit's costs' and its tests' fields as the caller was
    given them, `cost_fit` the cost model's fit's; none set passes: no subsection."""
    first = test_dirs[0] if test_dirs else None
    _check_set_together(
        ((fit_dir, where), (fit_costs_dir, fit_costs), (first, tests)),
        "the campaigns listed are predicted by the fit of the one campaign, its configurations' costs read from "
        "the second, all priced in the machine's CPU; set all three, or none to build the paper without them",
        "or leave it and the other campaigns priced in the machine's CPU unset to build the paper without them",
        (cost_fit_dir, cost_fit, "the subsection priced in the machine's CPU is a part of the cost model's section"),
    )
    # Each listed campaign, the first too: measured, and said once (its group of the table).
    _check_campaign_list(
        test_dirs,
        fit_dir,
        tests,
        where,
        "each campaign is one group of the subsection's table",
        "its platforms are predicted by that fit",
        without="that test priced in the machine's CPU",
    )


def check_cpu_replications(
    replications: Sequence[CpuReplicationDirs],
    fit_dir: Path | str | None,
    fit_costs_dir: Path | str | None,
    needs: Sequence[str] = CPU_FIELDS[:3],
    fields: ReplicationFields = ReplicationFields(),
) -> None:
    """Refuse a further replication of the subsection priced in the machine's CPU given without the
    first (`fit_dir` and `fit_costs_dir`, whose fields are `needs`: the first's fit, fit costs and
    tests), or with a campaign not measured, or with no test or a test listed twice, or with the fit
    and costs of the first or of an earlier one again, before anything is read, after
    `check_cpu_priced` (the first's own check decides first). The same ways in call it. `fields`
    names the key and each record's fields as the caller was given them; none passes."""
    if not replications:
        return
    if fit_dir is None:
        raise ParamsError(
            fields.key,
            f"needs {', '.join(needs[:-1])} and {needs[-1]} set too: a further replication is said after the "
            "first, in its subsection and table",
        )
    first_costs = fit_costs_dir if fit_costs_dir is not None else fit_dir
    read = {(Path(fit_dir).name, Path(first_costs).name)}
    for i, r in enumerate(replications):
        fit, fit_costs, tests = fields.at(i)
        unset = f"or take its record out of {fields.key} to build the paper without it"
        _require_samples(r.fit, fit, f"measure it first (`vbench campaign run {Path(r.fit).name}`), {unset}")
        if r.fit_costs is not None:
            _require_samples(
                r.fit_costs, fit_costs, f"measure it first (`vbench campaign run {Path(r.fit_costs).name}`), {unset}"
            )
        if not r.tests:
            raise ParamsError(tests, "lists no campaign: a replication predicts one at least")
        _check_campaign_list(
            r.tests,
            r.fit,
            tests,
            fit,
            "each campaign is one group of the replication's rows",
            "its platforms are predicted by that fit",
            without="that test of the replication",
        )
        pair = (Path(r.fit).name, Path(r.fit_costs if r.fit_costs is not None else r.fit).name)
        if pair in read:
            raise ParamsError(
                fit,
                f"fits {pair[0]!r} with the costs of {pair[1]!r} again: the subsection reads that replication "
                "already, and each is one group of the table",
            )
        read.add(pair)


def check_pooled_tests(
    tests: Sequence[PooledTestDirs],
    cost_fit_dir: Path | str | None,
    fields: PooledFields = PooledFields(),
) -> None:
    """Refuse a test against pooled ratios given without the cost model's fit (`cost_fit_dir`), or
    with a campaign not measured, no calibration, fewer than two measured campaigns or one listed
    twice, no resource or an unknown one, no seed, or a fixed pricing `vbench predict --costs` does not
    take, every record checked before anything is read, after `check_cpu_replications`. The same ways
    in call it. `fields` names the key and each record's fields as the caller was given them; none
    passes: no subsection."""
    if not tests:
        return
    if cost_fit_dir is None:
        raise ParamsError(
            fields.key,
            f"needs {fields.cost_fit} set too: the tests against pooled ratios are a subsection of the cost "
            "model's section",
        )
    for i, t in enumerate(tests):
        unset = f"or take its record out of {fields.key} to build the paper without it"
        if t.calibration is None:
            raise ParamsError(
                fields.at(i, "calibration"), "names no campaign: a pooled test predicts the platforms one calibrated"
            )
        _check_pooled_measured([Path(m).name for m in t.measured], fields.at(i, "measured"))
        named = [("fit", t.fit), *([("fit_costs", t.fit_costs)] if t.fit_costs is not None else [])]
        named += [("calibration", t.calibration), *(("measured", m) for m in t.measured)]
        for part, campaign_dir in named:
            name = Path(campaign_dir).name
            _require_samples(
                campaign_dir, fields.at(i, part), f"measure it first (`vbench campaign run {name}`), {unset}"
            )
        _pooled_resources(list(t.resources), fields.at(i, "resources"))
        if t.seed is None:
            raise ParamsError(fields.at(i, "seed"), "names no seed: each test is read with the bootstrap seed it names")
        _fixed_pricing(t.fixed_pricing, fields.at(i, "fixed_pricing"))


def check_rest_tests(
    tests: Sequence[RestTestDirs],
    cost_fit_dir: Path | str | None,
    fields: RestFields = RestFields(),
) -> None:
    """Refuse a test of the rest priced given without the cost model's fit (`cost_fit_dir`), or with a
    campaign not measured, no calibration or measured campaign, no resource or an unknown one, no seed,
    no rest or one unknown, named twice or fitted, or a pricing `vbench predict --costs` does not take,
    every record checked before anything is read, after `check_pooled_tests`. The same ways in call it.
    `fields` names the key and each record's fields as the caller was given them; none passes: no
    subsection. Whether each calibration measured its rests is the build's to refuse as it reads the test
    (`costs_rest.rest_tests`): that takes the campaign's costs, which `vbench predict --rest` reads anyway."""
    if not tests:
        return
    if cost_fit_dir is None:
        raise ParamsError(
            fields.key,
            f"needs {fields.cost_fit} set too: the tests of the rest priced are a subsection of the cost model's "
            "section",
        )
    for i, t in enumerate(tests):
        unset = f"or take its record out of {fields.key} to build the paper without it"
        for part, campaign_dir in (("fit", t.fit), ("calibration", t.calibration), ("measured", t.measured)):
            if campaign_dir is None:
                raise ParamsError(fields.at(i, part), "names no campaign: a rest test reads one")
            name = Path(campaign_dir).name
            _require_samples(
                campaign_dir, fields.at(i, part), f"measure it first (`vbench campaign run {name}`), {unset}"
            )
        resources = _pooled_resources(list(t.resources), fields.at(i, "resources"))
        if t.seed is None:
            raise ParamsError(fields.at(i, "seed"), "names no seed: each test is read with the bootstrap seed it names")
        _rests(list(t.rests), resources, fields.at(i, "rests"))
        _pricing(t.pricing, fields.at(i, "pricing"))


#: What a refusal of the superseded fit names by default (`check_superseded_fit`): `generate`'s
#: arguments.
SUPERSEDED_FIT_FIELDS = ("syscall_fit_superseded_dir", "syscall_fit_dir")


def check_superseded_fit(
    superseded_dir: Path | str | None,
    syscall_fit_dir: Path | str | None,
    where: str = SUPERSEDED_FIT_FIELDS[0],
    syscall_fit: str = SUPERSEDED_FIT_FIELDS[1],
) -> None:
    """Refuse a superseded fit given without samples, or without the system-call level whose
    subsection says it, before anything is read, as `check_syscall_fit` refuses the level (and after
    it). The same ways in call it. `where` names its field as the caller was given it,
    `syscall_fit` the level's fit's; None passes: no sentence on it."""
    _check_campaign_beside(
        superseded_dir,
        syscall_fit_dir,
        where,
        syscall_fit,
        "a first run that failed its rule 1 is said in the system-call level's subsection, beside the fit that "
        "superseded it",
    )


#: What a refusal of the second campaign of system-call levels names by default (`check_levels`):
#: `generate`'s arguments.
LEVELS_FIELDS = ("syscall_levels_dir", "syscall_fit_dir")


def check_levels(
    levels_dir: Path | str | None,
    syscall_fit_dir: Path | str | None,
    where: str = LEVELS_FIELDS[0],
    syscall_fit: str = LEVELS_FIELDS[1],
) -> None:
    """Refuse a campaign of system-call levels given without samples, or without the system-call
    level whose subsection says it, before anything is read, as `check_superseded_fit` refuses a
    superseded fit (and after it). The same ways in call it. `where` names its field as the caller
    was given it, `syscall_fit` the level's fit's; None passes: no sentence on it."""
    _check_campaign_beside(
        levels_dir,
        syscall_fit_dir,
        where,
        syscall_fit,
        "the part of a job's cost a lesser level of stops gives is said in the system-call level's subsection, "
        "beside its fit",
    )


#: What a refusal of the levels' held-out campaigns names by default (`check_heldout`): `generate`'s
#: arguments.
HELDOUT_FIELDS = ("syscall_levels_heldout_dirs", "syscall_levels_dir")


def check_heldout(
    heldout_dirs: Sequence[Path | str],
    levels_dir: Path | str | None,
    where: str = HELDOUT_FIELDS[0],
    levels: str = HELDOUT_FIELDS[1],
) -> None:
    """Refuse a held-out campaign given without samples, or twice, or any without the campaign of
    system-call levels whose fit predicts them, before anything is read, as `check_levels` refuses
    that campaign (and after it). The same ways in call it. `where` names their field as the caller
    was given it, `levels` the levels campaign's; none passes: no subsection on them."""
    # A campaign's subsection and table are labelled by its name: twice, two would share them.
    _check_campaign_list(
        heldout_dirs,
        levels_dir,
        where,
        levels,
        "each held-out campaign has one subsection",
        "its platforms are predicted by the fit of the campaign of system-call levels, in a subsection after "
        "that fit's",
        without="its subsection",
    )


#: What a refusal of the memory level's later tests names by default (`check_memory_tests`):
#: `generate`'s arguments.
MEMORY_TESTS_FIELDS = ("memory_levels_test_dirs", "memory_levels_dir")


def check_memory_tests(
    test_dirs: Sequence[Path | str],
    memory_levels_dir: Path | str | None,
    where: str = MEMORY_TESTS_FIELDS[0],
    levels: str = MEMORY_TESTS_FIELDS[1],
) -> None:
    """Refuse a later test of the memory level's fit given without samples, or twice, or any without
    that fit, before anything is read, as `check_heldout` refuses a held-out campaign (and after
    `MEMORY_LEVELS_INPUTS.check`: the fit's own check decides first). The same ways in call it.
    `where` names their field as the caller was given it, `levels` the memory level's fit's; none
    passes: no later test is said."""
    # A test is said by its campaign's name: twice, the subsection would count one test as two.
    _check_campaign_list(
        test_dirs,
        memory_levels_dir,
        where,
        levels,
        "each later test is said once",
        "its platforms are predicted by the memory level's fit, a later test of it said in that fit's subsection",
        without="that later test of the memory level's fit",
    )


def _check_campaign_list(
    campaign_dirs: Sequence[Path | str],
    needed_dir: Path | str | None,
    where: str,
    needed: str,
    once: str,
    why: str,
    without: str,
) -> None:
    """A list of campaigns the cost model's section reads beside another (`_check_campaign_beside`
    on each), none listed twice (`once`: why not)."""
    seen: set[str] = set()
    for campaign_dir in campaign_dirs:
        name = Path(campaign_dir).name
        if name in seen:
            raise ParamsError(where, f"lists {name!r} twice: {once}")
        seen.add(name)
        _check_campaign_beside(campaign_dir, needed_dir, where, needed, why, without=without)


def _check_campaign_beside(
    campaign_dir: Path | str | None,
    needed_dir: Path | str | None,
    where: str,
    needed: str,
    why: str,
    without: str = "the sentence on it",
) -> None:
    """A campaign the cost model's section reads beside another: measured, and beside that other
    campaign (`needed_dir`, named `needed`: the system-call level's fit, the levels campaign, or the
    memory level's fit; `why` it needs it; `without`: what the paper then lacks); None passes."""
    if campaign_dir is None:
        return
    _require_samples(
        campaign_dir,
        where,
        f"measure it first (`vbench campaign run {Path(campaign_dir).name}`), or leave it unset to build the "
        f"paper without {without}",
    )
    if needed_dir is None:
        raise ParamsError(where, f"needs {needed} set too: {why}")


def _check_set_together(
    given: Sequence[tuple[Path | str | None, str]],
    why: str,
    unset: str,
    needed: tuple[Path | str | None, str, str],
) -> None:
    """Campaigns one part reads together (`given`: each directory with the field naming it): none set
    passes (the part is omitted); some set and some not, refused naming the first set field and those
    unset (`why` they go together); else each must be measured (`unset`: how to build without the
    part instead), and the part's section must be asked for (`needed`: its campaign's directory, its
    field, why the part needs it), refused naming the first field."""
    missing = [key for directory, key in given if directory is None]
    if len(missing) == len(given):
        return
    first = next(key for directory, key in given if directory is not None)
    if missing:
        raise ParamsError(first, f"needs {' and '.join(missing)} set too: {why}")
    # The hint runs the campaign the key names: a fit has had more than one run (costs-fit-syscalls,
    # then costs-fit-syscalls-confirm), and a name typed here would go stale with the key.
    for directory, key in given:
        _require_samples(directory, key, f"measure it first (`vbench campaign run {Path(directory).name}`), {unset}")
    needed_dir, needed_key, needed_why = needed
    if needed_dir is None:
        raise ParamsError(first, f"needs {needed_key} set too: {needed_why}")


def _require_samples(campaign_dir: Path | str, where: str, otherwise: str) -> None:
    """Refuse a campaign directory a key names that holds no samples.jsonl, naming `where`;
    `otherwise`: what to do instead."""
    samples = Path(campaign_dir) / "samples.jsonl"
    if not samples.is_file():
        raise ParamsError(where, f"names {Path(campaign_dir).name!r}, but {samples} does not exist: {otherwise}")


def committed_inputs(params_dir: Path, raw: Path) -> list[tuple[str, str]]:
    """(`vbench paper build` flag, campaign) of every input params/paper.yaml and the pipeline's
    monitoring campaign name that is a directory under `raw`: what the paper is rebuilt from
    without a host (`invoke paper`, selfbench/paper_build.py). A set `cost_fit_campaign`,
    `syscall_fit_campaign`, `syscall_calibration_campaign`, `syscall_fit_superseded`,
    `syscall_levels_campaign`, `syscall_levels_heldout`, `file_levels_*`, `rpc_levels_*`,
    `memory_levels_*` (`memory_levels_tests` too), `cpu_*` (`cpu_replications` too), `pooled_tests`,
    `rest_tests` or `barrier*` key that is not measured there is refused (`check_cost_fit`,
    `check_syscall_fit`, `check_superseded_fit`, `check_levels`, `check_heldout`, each
    `LevelsPart.check`, `check_memory_tests`, `check_cpu_priced`, `check_cpu_replications`,
    `check_pooled_tests`, `check_rest_tests`, `check_barrier`), not left out; so is a record of
    `cpu_replications`, `pooled_tests` or `rest_tests` not shaped as one (`cpu_replications_of`,
    `pooled_tests_of`, `rest_tests_of`): paths and shapes only, no campaign read (a rest test whose
    calibration lacks a rest's cost is the build's to refuse). A pooled or rest test's resources, seed,
    pricing, shares and rests are passed on as values (`VALUE_FLAGS`); where there are records, the
    params file first (`RECORDS_FROM_FLAG`), so a refusal the build makes of one names its field there."""
    paper_path, pipeline_path = params_dir / "paper.yaml", params_dir / "pipeline.yaml"
    paper = load_yaml_section(paper_path, "paper", required=True)
    monitoring = load_yaml_section(pipeline_path, "pipeline", required=True).get("monitoring_campaign")
    # Each name becomes data/raw/<name>: a name that is a path is refused, naming where it is written.
    for where, key, value in (
        *((paper_path, f"paper.{k}", paper.get(k)) for k in PAPER_CAMPAIGN_KEYS),
        (pipeline_path, "pipeline.monitoring_campaign", monitoring),
    ):
        for name in campaign_list(value):
            campaign_name(name, f"{where}: {key}")
    inputs = PaperInputs.from_params(paper, monitoring, paper_path)
    if (
        inputs.cost_fit
        or inputs.syscall_fit
        or inputs.syscall_calibration
        or inputs.syscall_fit_superseded
        or inputs.syscall_levels
        or inputs.syscall_levels_heldout
        or inputs.file_levels
        or inputs.file_levels_calibration
        or inputs.file_levels_measured
        or inputs.rpc_levels
        or inputs.rpc_levels_calibration
        or inputs.rpc_levels_measured
        or inputs.memory_levels
        or inputs.memory_levels_calibration
        or inputs.memory_levels_measured
        or inputs.memory_levels_tests
        or inputs.cpu_fit
        or inputs.cpu_fit_costs
        or inputs.cpu_tests
        or inputs.cpu_replications
        or inputs.pooled_tests
        or inputs.rest_tests
        or inputs.barrier
        or inputs.barrier_fit
        or inputs.barrier_calibration
    ):
        args = inputs.build_arguments(raw, paper_path)
        check_cost_fit(args["cost_fit_dir"], args["sandbox_dir"], *args["cost_fit_fields"])
        check_syscall_fit(
            args["syscall_fit_dir"], args["syscall_calibration_dir"], args["cost_fit_dir"], *args["syscall_fit_fields"]
        )
        check_superseded_fit(
            args["syscall_fit_superseded_dir"], args["syscall_fit_dir"], *args["syscall_fit_superseded_fields"]
        )
        check_levels(args["syscall_levels_dir"], args["syscall_fit_dir"], *args["syscall_levels_fields"])
        check_heldout(
            args["syscall_levels_heldout_dirs"], args["syscall_levels_dir"], *args["syscall_levels_heldout_fields"]
        )
        FILE_LEVELS_INPUTS.check(
            args["file_levels_dir"],
            args["file_levels_calibration_dir"],
            args["file_levels_measured_dir"],
            args["cost_fit_dir"],
            *args["file_levels_fields"],
        )
        RPC_LEVELS_INPUTS.check(
            args["rpc_levels_dir"],
            args["rpc_levels_calibration_dir"],
            args["rpc_levels_measured_dir"],
            args["cost_fit_dir"],
            *args["rpc_levels_fields"],
        )
        MEMORY_LEVELS_INPUTS.check(
            args["memory_levels_dir"],
            args["memory_levels_calibration_dir"],
            args["memory_levels_measured_dir"],
            args["cost_fit_dir"],
            *args["memory_levels_fields"],
        )
        check_memory_tests(
            args["memory_levels_test_dirs"], args["memory_levels_dir"], *args["memory_levels_tests_fields"]
        )
        check_cpu_priced(
            args["cpu_fit_dir"],
            args["cpu_fit_costs_dir"],
            args["cpu_test_dirs"],
            args["cost_fit_dir"],
            *args["cpu_fields"],
        )
        check_cpu_replications(
            args["cpu_replications"],
            args["cpu_fit_dir"],
            args["cpu_fit_costs_dir"],
            args["cpu_fields"][:3],
            args["cpu_replications_fields"],
        )
        check_pooled_tests(args["pooled_tests"], args["cost_fit_dir"], args["pooled_tests_fields"])
        check_rest_tests(args["rest_tests"], args["cost_fit_dir"], args["rest_tests_fields"])
        check_barrier(
            args["barrier_dir"],
            args["barrier_fit_dir"],
            args["barrier_calibration_dir"],
            args["syscall_levels_dir"],
            *args["barrier_fields"],
        )
    # A pooled or rest test's resources, seed, pricing, shares and rests are values, not campaigns: always
    # passed on.
    passed = [(flag, name) for flag, name in inputs.flags() if flag in VALUE_FLAGS or (raw / name).is_dir()]
    # Every record was checked above, so each is passed on, in the file's order: the build's record i is
    # the file's, and its refusals can name the file's field.
    if inputs.cpu_replications or inputs.pooled_tests or inputs.rest_tests:
        return [(RECORDS_FROM_FLAG, str(paper_path)), *passed]
    return passed


def paper_build_args(campaign: str, inputs: list[tuple[str, str]]) -> list[str]:
    """`vbench paper build`'s arguments for data/raw/<campaign> and (flag, campaign) inputs, a flag
    of `VALUE_FLAGS` with its value as it is. Pure."""
    args = ["paper", "build", "--campaign", f"data/raw/{campaign}"]
    for flag, name in inputs:
        args += [f"--{flag}", name if flag in VALUE_FLAGS else f"data/raw/{name}"]
    return args

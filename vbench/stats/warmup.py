"""Warm-up exclusion by rule, with the rule recorded.

Warm-up runs (JIT, page cache, HDFS block placement) are identified by the design, not by
looking at the values: either the input marks them (`warmup` column, true/false) or the
caller asks to drop the first N repetitions of every group. Excluded rows are returned
beside the kept ones so the table can say exactly what was dropped and why.

Duet runs (issue #51: every configuration of a round runs the same job at the same moment) are
counted as whole groups: a row of a duet group whose other side (its `duet_partners`) measured no
value of the same metric is excluded, "duet partner missing", so that a pair with one failed side
never counts as half a pair: its surviving side ran beside a partner that failed (and maybe
hogged the machine, or left it idle), which no other run of that configuration did. Frames
without a `duet_group` column are untouched.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from vbench.stats.keys import SAMPLE_KEY, natural_key
from vbench.stats.tidy import stamp_list
from vbench.wording import count

#: The stamps a duet run's samples carry (the campaign runner's, issue #51).
DUET_GROUP = "duet_group"
DUET_PARTNERS = "duet_partners"
CELL_ID = "cell_id"
DUET_PARTNER_MISSING = "duet partner missing"
#: Metrics recording an event, not a value every run measures: a failed or killed task attempt
#: (vbench.hadoop.history.unsuccessful_attempt_sample). A side without one did not fail, so for
#: these a side counts as present when it measured anything of the same job step.
EVENT_METRIC_SUFFIXES = ("_attempt_unsuccessful",)


@dataclass(frozen=True)
class ExclusionRule:
    use_warmup_column: bool
    drop_first_n: int
    #: Rows of a duet group are counted only with every side's (see the module doc).
    whole_duets: bool = False

    @property
    def active(self) -> bool:
        return self.use_warmup_column or self.drop_first_n > 0 or self.whole_duets

    def describe(self) -> str:
        parts = []
        if self.use_warmup_column:
            parts.append("rows with warmup=true")
        if self.drop_first_n:
            parts.append(f"the first {count(self.drop_first_n, 'repetition')} of each group")
        if self.whole_duets:
            parts.append("duet runs whose partner measured no value (duet partner missing)")
        return "excluded " + " and ".join(parts) if parts else "no exclusion rule"


def apply_exclusions(df: pd.DataFrame, drop_first_n: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, ExclusionRule]:
    """Split samples into (kept, excluded, rule). `excluded` has an `exclusion_reason` column."""
    if drop_first_n < 0:
        raise ValueError("drop_first_n must be >= 0")
    rule = ExclusionRule("warmup" in df.columns, int(drop_first_n), is_duet_frame(df))
    reason = pd.Series("", index=df.index, dtype=object)
    if rule.use_warmup_column:
        reason[df["warmup"].astype(bool)] = "warmup=true"
    if drop_first_n:
        keys = [c for c in SAMPLE_KEY if c in df.columns]  # `size` is optional
        for _, grp in df.groupby(keys, sort=False, dropna=False):
            reps = sorted(grp["repetition"].unique(), key=natural_key)[:drop_first_n]
            hit = grp.index[grp["repetition"].isin(reps)]
            reason[hit] = reason[hit].where(reason[hit] != "", f"among first {drop_first_n} repetitions")
    if rule.whole_duets:
        # Judged on what the rules above kept: a side whose only value was a warm-up is missing.
        reason[duet_orphans(df, counted=reason == "")] = DUET_PARTNER_MISSING
    excluded_mask = reason != ""
    excluded = df[excluded_mask].assign(exclusion_reason=reason[excluded_mask])
    return df[~excluded_mask], excluded, rule


def measured_samples(df: pd.DataFrame) -> pd.DataFrame:
    """The samples the statistics count: every row not marked `warmup` (warm-up runs, warm-up
    blocks) and, in a duet campaign, not a side whose partner measured nothing (`duet_orphans`),
    for readers of the samples themselves (the paper's delta and tables). Pure."""
    if df is None or df.empty:
        return df
    if "warmup" in df.columns:
        df = df[~df["warmup"].astype("boolean").fillna(False).astype(bool)]
    if is_duet_frame(df):
        df = df[~duet_orphans(df, counted=pd.Series(True, index=df.index))]
    return df


def is_duet_frame(df: pd.DataFrame) -> bool:
    """Whether the samples hold duet runs: a filled `duet_group` column beside the `cell_id` that
    names each side. Pure."""
    return DUET_GROUP in df.columns and CELL_ID in df.columns and bool(_texts(df, DUET_GROUP).ne("").any())


def duet_sides(cell_id, partners) -> frozenset[str]:
    """The cells of one duet: the row's own and its partners' (a list, the JSON text a campaign
    frame holds, or the array parquet gives). Pure."""
    return frozenset([str(cell_id), *(stamp_list(partners) or ())])


def _texts(df: pd.DataFrame, column: str) -> pd.Series:
    """A column as text, "" where missing (and all "" when the frame has no such column)."""
    if column not in df.columns:
        return pd.Series("", index=df.index, dtype=object)
    return df[column].map(lambda v: "" if v is None or (isinstance(v, float) and v != v) else str(v))


def _is_event(metric: str) -> bool:
    return metric.endswith(EVENT_METRIC_SUFFIXES)


def duet_orphans(df: pd.DataFrame, counted: pd.Series) -> pd.Series:
    """True for each `counted` row of a duet group one of whose sides has no `counted` row of the
    same experiment, benchmark and metric. Keyed by cell id, not by `size`: the cell id names the
    variant (size, the design's factors) and every side of a duet runs the same one, while `size`
    can hold a side's own levels (factor.platform in a factor study) that differ between sides.
    An event row (`EVENT_METRIC_SUFFIXES`) asks only that every side measured the same job step.
    Rows outside a duet (no `duet_group`) are never True. Pure."""
    out = pd.Series(False, index=df.index)
    if not is_duet_frame(df) or df.empty:
        return out
    partners = df[DUET_PARTNERS] if DUET_PARTNERS in df.columns else pd.Series(None, index=df.index)
    rows = list(
        zip(
            df.index,
            counted.reindex(df.index, fill_value=False),
            *(_texts(df, c) for c in (DUET_GROUP, CELL_ID, "experiment", "benchmark", "metric", "step")),
            partners,
        )
    )
    measured, stepped = set(), set()
    for _, ok, _, cell, exp, bench, metric, st, _ in rows:
        if ok and cell:
            measured.add((cell, exp, bench, metric))
            if st and not _is_event(metric):
                stepped.add((cell, exp, bench, st))
    orphans = []
    for idx, ok, group, cell, exp, bench, metric, st, partner_cells in rows:
        if not (ok and group and cell):
            continue
        if _is_event(metric) and st:
            present = all((side, exp, bench, st) in stepped for side in duet_sides(cell, partner_cells))
        else:
            present = all((side, exp, bench, metric) in measured for side in duet_sides(cell, partner_cells))
        if not present:
            orphans.append(idx)
    out[orphans] = True
    return out

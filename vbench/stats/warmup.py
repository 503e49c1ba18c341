"""Warm-up exclusion by rule, with the rule recorded.

Warm-up runs (JIT, page cache, HDFS block placement) are identified by the design, not by
looking at the values: either the input marks them (`warmup` column, true/false) or the
caller asks to drop the first N repetitions of every group. Excluded rows are returned
beside the kept ones so the table can say exactly what was dropped and why.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from vbench.stats.keys import SAMPLE_KEY, natural_key
from vbench.wording import count


@dataclass(frozen=True)
class ExclusionRule:
    use_warmup_column: bool
    drop_first_n: int

    @property
    def active(self) -> bool:
        return self.use_warmup_column or self.drop_first_n > 0

    def describe(self) -> str:
        parts = []
        if self.use_warmup_column:
            parts.append("rows with warmup=true")
        if self.drop_first_n:
            parts.append(f"the first {count(self.drop_first_n, 'repetition')} of each group")
        return "excluded " + " and ".join(parts) if parts else "no exclusion rule"


def apply_exclusions(df: pd.DataFrame, drop_first_n: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, ExclusionRule]:
    """Split samples into (kept, excluded, rule). `excluded` has an `exclusion_reason` column."""
    if drop_first_n < 0:
        raise ValueError("drop_first_n must be >= 0")
    rule = ExclusionRule("warmup" in df.columns, int(drop_first_n))
    reason = pd.Series("", index=df.index, dtype=object)
    if rule.use_warmup_column:
        reason[df["warmup"].astype(bool)] = "warmup=true"
    if drop_first_n:
        keys = [c for c in SAMPLE_KEY if c in df.columns]  # `size` is optional
        for _, grp in df.groupby(keys, sort=False, dropna=False):
            reps = sorted(grp["repetition"].unique(), key=natural_key)[:drop_first_n]
            hit = grp.index[grp["repetition"].isin(reps)]
            reason[hit] = reason[hit].where(reason[hit] != "", f"among first {drop_first_n} repetitions")
    excluded_mask = reason != ""
    excluded = df[excluded_mask].assign(exclusion_reason=reason[excluded_mask])
    return df[~excluded_mask], excluded, rule


def measured_samples(df: pd.DataFrame) -> pd.DataFrame:
    """The samples the statistics count: every row not marked `warmup` (warm-up runs, warm-up
    blocks), for readers of the samples themselves (the paper's delta and tables). Pure."""
    if df is None or df.empty or "warmup" not in df.columns:
        return df
    return df[~df["warmup"].astype("boolean").fillna(False).astype(bool)]

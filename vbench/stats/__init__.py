"""Statistics over tidy samples: descriptions with CIs, overhead ratios, tests, precision.

Entry points: `read_samples` (CSV/JSONL/Parquet, validated) and `compute_stats`, which
returns one tidy table; `vbench stats` (vbench.commands.stats_cmd) wraps both. The
methods and when each is used are explained in docs/statistics.md.

The analyses of a vbench campaign live here too: the campaign as the statistics name it
(`campaign`), its statistics table as the statistics stage writes it and the paper reads it
(`campaign_stats`), the comparison of factor levels (`compare`), the headline metrics
(`headlines`), the per-node table (`pernode`), the data-volume checks (`volume`) and each Hadoop
job's resource profile with its per-platform medians and ratios (`profile`).
"""

import pandas as pd

from vbench.stats.adaptive import PrecisionAssessment, assess_mean, assess_ratio
from vbench.stats.io import read_samples, validate_samples
from vbench.stats.table import annotate_samples, compute_stats
from vbench.stats.table.rows import COLUMNS, DEFAULT_SEED
from vbench.stats.table.writer import format_table, write_table

# Set when the statistics are imported, before any of their frames is built. pandas 3 backs its
# `str` dtype with pyarrow by default, whose `take` costs ~30 us a column a call; the statistics and
# the paper slice small frames of ~50 text columns tens of thousands of times, so that take was
# half the paper's build (88 s -> 43 s on one core). The python storage is the same `str` dtype
# (NaN for missing, the same methods and results), held as a numpy array of objects.
pd.set_option("mode.string_storage", "python")

__all__ = [
    "COLUMNS",
    "DEFAULT_SEED",
    "PrecisionAssessment",
    "annotate_samples",
    "assess_mean",
    "assess_ratio",
    "compute_stats",
    "format_table",
    "read_samples",
    "validate_samples",
    "write_table",
]

"""The study's headline numbers: the (benchmark, metric) comparisons the paper's text quotes.

Defined here, on the statistics side, because two stages use them: the statistics stage picks the
comparisons of DVC's metrics and plots files by them (`vbench.pipeline.dvc_views`), and the paper
writes a macro family per entry (`vbench.paper.macros`). Both import them downwards.
"""

from __future__ import annotations

#: (benchmark, metric, macro stem, preferred experiments): the numbers the text quotes per platform.
HEADLINES = (
    ("terasort", "terasort_time", "TeraSort", ("platforms",)),
    ("terasort", "teragen_time", "TeraGen", ("platforms",)),
    ("terasort", "teravalidate_time", "TeraValidate", ("platforms",)),
    ("wordcount", "job_wall_time", "WordCount", ("platforms",)),
    ("dfsio", "write_throughput", "DfsioWrite", ("platforms",)),
    ("dfsio", "read_throughput", "DfsioRead", ("platforms",)),
    ("nnbench", "create_write_avg_latency", "NNBenchCreate", ("platforms",)),
    ("nnbench", "open_avg_latency", "NNBenchOpen", ("platforms",)),
    ("mrbench", "avg_job_time", "MRBench", ("platforms",)),
    ("pi", "job_wall_time", "Pi", ("platforms",)),
    ("sort", "sort_time", "Sort", ("platforms",)),
    ("pi_digits", "time", "PiDigits", ("micro", "platforms")),
    ("iperf3", "throughput_mean", "Iperf", ("micro", "platforms")),
    ("bonnie", "seq_write_bw", "BonnieWrite", ("micro", "platforms")),
    ("bonnie", "seq_read_bw", "BonnieRead", ("micro", "platforms")),
    ("dd", "write_bw", "DdWrite", ("micro", "platforms")),
    ("hdparm", "buffered_read_bw", "HdparmRead", ("micro", "platforms")),
)


def quoted_headlines() -> frozenset[tuple[str, str]]:
    """The (benchmark, metric) pairs the paper's text quotes: the study's headline numbers."""
    return frozenset((benchmark, metric) for benchmark, metric, *_ in HEADLINES)

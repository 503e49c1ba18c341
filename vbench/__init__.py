"""vbench: what virtualisation costs Apache Hadoop MapReduce, measured reproducibly."""

__version__ = "0.1.0"

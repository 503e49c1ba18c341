"""Apache Hadoop from its published artifacts: fetch, configure, run, drive."""

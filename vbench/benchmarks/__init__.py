"""Benchmarks vbench runs: `micro` holds the single-host tools the studies use as baselines."""

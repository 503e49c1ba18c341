"""One campaign explored as a researcher would (notebooks/explore.ipynb, docs/exploring.md).

The frames behind the notebook's views, each a pure function of a campaign as the statistics read it:
`design` (factors and levels, blocks and rounds, runs per cell, failures, quiet-machine verdicts),
`compare` (the statistics stage's own ratios to the baseline, `vbench.stats.campaign_stats`), `order`
(values in run order, per block and round), `timeline` (a run's task attempts per node from its
JobHistory samples), `run` (one execution: its values, counters beside the same benchmark's other
runs, time series, failure and log excerpt) and `cost_split` (one run's JobHistory phases beside the
baseline's run of its block, and the cost model's split of the prediction by resource). `figures`
draws them; `widgets` wires them to ipywidgets controls; `paths` finds the repository's data
whatever the kernel's directory.
"""

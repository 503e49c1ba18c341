"""The paper stage: tables, figures, macros and the reproduction delta, generated from a campaign.

`build_paper(campaign_dir, out_dir)` (vbench.paper.build) is the entry point; `vbench paper build`
wraps it. Modules: `data` (campaign -> tidy samples), `results` (statistics via vbench.stats),
`tables`, `figures` (+ `style`), `macros`, `delta` (published findings vs this campaign),
`fmt` (number formatting), `sandbox` (the rows and sentences of the sandboxed-kernel section),
`costs` (the cost model's section: its rows, table, figure and sentences, built only with a fit campaign),
`parallel` (campaigns read and their statistics computed on every core),
`synthetic` (a test campaign, never a measurement).

Importing the package does not import matplotlib; only `figures`, `style` and `build` need it.
"""

from __future__ import annotations

__all__ = ["BuildResult", "build_paper", "generate"]


def __getattr__(name: str):
    if name in __all__:
        from vbench.paper import build

        return getattr(build, name)
    raise AttributeError(f"module 'vbench.paper' has no attribute {name!r}")

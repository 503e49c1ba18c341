"""`vbench stats`: defined in the statistics layer (vbench/stats/__main__.py), which also serves
`python3 -m vbench.stats`; the parser is written once and the statistics never import the CLI."""

from vbench.stats.__main__ import register, run

__all__ = ["register", "run"]

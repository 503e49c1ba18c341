"""The closing summary of a campaign: what was compared, the answer, how sure, where to look next.

`summary` holds the records and what each says in words (the verdict of each headline comparison
follows the table's own rows: TOST after Holm, the interval, the A/A check), `rows` reads them from
the statistics stage's table and the samples, `text` renders a summary for the terminal and as
Markdown (all three pure), `forest` draws its comparisons, and `campaign`
gathers what a summary needs from a campaign directory (the cached statistics, or the one
statistics pass when there are none; the stage timings; the quiet gate's counts), writes the files
beside the campaign and prints it. `vbench campaign summary NAME`, the end of `vbench campaign run`
and `vbench bench run`, the statistics notebook and `scripts/setup.sh run` all call `campaign`.
"""

"""The paper's tables, one function each, in the layouts of the studies they revisit.

Every function takes the statistics table as the paper looks rows up in it (a
`vbench.paper.results.StatisticsLookup`, made once by `paper_statistics`), the tidy samples and the
baseline, and returns the LaTeX of one `table` environment (booktabs rules, siunitx numbers). Cells
are "mean +/- half-width of the 95 % Student-t CI" from the statistics table; a cell with no data
is an em dash, a cell with one run is the bare mean with a dagger, and a table with no data at all
still compiles, as one "not measured in this campaign" row. Nothing here formats a number by hand:
`vbench.paper.fmt` does.

Modules, bottom up (each imports only those above it in this list, and `TABLES` here imports
the tables): `grid` (a table's content and its LaTeX, the cells and notes every table shares),
`columns` (tables with a column per platform; `MetricRows`), then one module per kind of table:
`micro` (micro-benchmarks), `jobs` (Hadoop jobs), `terasort` (the TeraSort suite, by platform,
replication, size and design factor), `comparisons` (every platform against the baseline, the
sandbox study) and `testbed` (the hosts and software).
"""

from __future__ import annotations

from typing import Callable

from vbench.paper.tables.comparisons import table_overheads, table_sandbox
from vbench.paper.tables.jobs import (
    table_hadoop_pi,
    table_isolation,
    table_mrbench,
    table_nnbench,
    table_pernode,
    table_reducer_phases,
)
from vbench.paper.tables.micro import (
    table_bonnie_block,
    table_bonnie_cpu,
    table_bonnie_metadata,
    table_iperf,
    table_netmatrix,
    table_node_disks,
    table_pi_digits,
)
from vbench.paper.tables.terasort import (
    table_racks,
    table_tera_elapsed,
    table_tera_replication,
    table_tera_scaling,
    table_vms_per_host,
)
from vbench.paper.tables.testbed import table_testbed


#: Every table: name -> (function, label, what it follows). docs/paper-map.md follows it (a test checks).
TABLES: dict[str, tuple[Callable, str, str]] = {
    "testbed": (table_testbed, "tab:testbed", "host facts and sample provenance"),
    "bonnie_block": (table_bonnie_block, "tab:bonnie-block", "Vasconcelos & Freitas, Table 1"),
    "bonnie_metadata": (table_bonnie_metadata, "tab:bonnie-metadata", "Vasconcelos & Freitas, Table 2"),
    "bonnie_cpu": (table_bonnie_cpu, "tab:bonnie-cpu", "Vasconcelos & Freitas, Table 3"),
    "iperf": (table_iperf, "tab:iperf", "Vasconcelos & Freitas, Table 4"),
    "pi_digits": (table_pi_digits, "tab:pi-digits", "Vasconcelos & Freitas, Table 5"),
    "nnbench": (table_nnbench, "tab:nnbench", "Xavier et al., Table I"),
    "mrbench": (table_mrbench, "tab:mrbench", "Xavier et al., Table II"),
    "isolation": (table_isolation, "tab:isolation", "Xavier et al., Table III"),
    "hadoop_pi": (table_hadoop_pi, "tab:hadoop-pi", "Vasconcelos & Freitas, Fig. 6"),
    "reducer_phases": (table_reducer_phases, "tab:reducer-phases", "Liu et al., Tables 1-2"),
    "pernode": (table_pernode, "tab:pernode", "Liu et al., heterogeneous cluster"),
    "node_disks": (table_node_disks, "tab:node-disks", "Liu et al., Figs. 2-3"),
    "netmatrix": (table_netmatrix, "tab:netmatrix", "Jeong et al., Fig. 4"),
    "tera_elapsed": (table_tera_elapsed, "tab:tera-elapsed", "VMware, Table 2"),
    "vms_per_host": (table_vms_per_host, "tab:vms-per-host", "VMware, Table 2 (VMs per host)"),
    "racks": (table_racks, "tab:racks", "Jeong et al., Fig. 7"),
    "tera_replication": (table_tera_replication, "tab:tera-replication", "VMware, Table 3"),
    "tera_scaling": (table_tera_scaling, "tab:tera-scaling", "VMware, Table 4"),
    "overheads": (table_overheads, "tab:overheads", "every headline comparison with its method"),
    "sandbox": (table_sandbox, "tab:sandbox", "the sandbox study (issue #21): a sandboxed kernel's cost"),
}

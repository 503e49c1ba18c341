"""Performance isolation (Xavier et al., Table III): TeraSort in tenant A, a stress in tenant B.

`stress` builds the stress commands, `pids` reads and enforces the fork-bomb guard (pids.max),
`watch` records pids and the machine's responsiveness while a stress runs, `tenants` derives
both tenants' testbeds from params, `workload` is TeraSort on input generated once,
`run` drives the experiment. The slowdown table is `vbench.stats.slowdown`'s, the paper's Table III
computation, which `vbench isolation table` prints too.
"""

"""Performance isolation (Xavier et al., Table III): TeraSort in tenant A, a stress in tenant B.

`stress` builds the stress commands, `pids` reads and enforces the fork-bomb guard (pids.max),
`watch` records pids and the machine's responsiveness while a stress runs, `params` derives
both tenants' testbeds from params, `neighbour` is the runner's hook that runs tenant B's stress
around each TeraSort, and `experiment` is the design (the registry's TeraSort once per stress
level per block) that the campaign runner runs. The slowdown table is `vbench.stats.slowdown`'s,
the paper's Table III computation, which `vbench isolation table` prints too.
"""

"""`vbench testbed up|down|status|netmatrix`."""

from __future__ import annotations

import json
from pathlib import Path

from vbench.commands.common import add_params_options, testbed_from_args
from vbench.errors import VbenchError
from vbench.lifecycle import interrupts_unwind
from vbench.params import TestbedParams, testbed_params
from vbench.testbed import Testbed, testbed_status


def register(sub) -> None:
    p = sub.add_parser("testbed", help="emulated hosts on this machine, reached over SSH")
    p.add_argument(
        "action",
        choices=("up", "down", "status", "netmatrix"),
        help="netmatrix: bring the testbed up, measure the iperf3 matrix, tear it down",
    )
    add_params_options(p)
    g = p.add_argument_group("network (override params: network.mode, vms_per_host, network.link)")
    g.add_argument("--mode", help="network.mode: bridge, nat, bridge+nat (sriov: SSH inventories only)")
    g.add_argument("--vms-per-host", type=int, help="testbed.vms_per_host")
    g.add_argument("--rate-mbit", type=float, help="network.link.rate_mbit (uplink of each physical host)")
    g.add_argument("--delay-ms", type=float, help="network.link.delay_ms (needs netem in the kernel)")
    g.add_argument("--duration", type=int, default=5, help="netmatrix: seconds per iperf3 pair (default 5)")
    g.add_argument("--json", type=Path, help="netmatrix: also write the rows here as JSON")
    p.set_defaults(func=run)


def with_network(
    params: TestbedParams,
    mode: str | None = None,
    vms_per_host: int | None = None,
    rate_mbit: float | None = None,
    delay_ms: float | None = None,
) -> TestbedParams:
    """`params` with the network options of the command line applied, validated again. Pure."""
    data = params.model_dump(mode="json", exclude_none=True)
    net = data.setdefault("network", {})
    if mode is not None:
        net["mode"] = mode
    link = net.setdefault("link", {})
    if rate_mbit is not None:
        link["rate_mbit"] = rate_mbit
    if delay_ms is not None:
        link["delay_ms"] = delay_ms
    if vms_per_host is not None:
        data["vms_per_host"] = vms_per_host
    return testbed_params(data)


def run(args) -> int:
    params = with_network(testbed_from_args(args), args.mode, args.vms_per_host, args.rate_mbit, args.delay_ms)
    if args.action in ("up", "netmatrix"):
        tb = Testbed(params)
        with interrupts_unwind():
            try:
                hosts = tb.up()
                if args.action == "netmatrix":
                    return _netmatrix(tb, hosts, args)
            except BaseException:
                tb.down()
                raise
        for h in hosts:
            print(
                f"{h.name:10s} {h.role:7s} {h.platform:8s} {h.address:15s} ssh {h.ssh.user}@{h.address}"
                f"  physical host {h.facts.get('physical_host', '-')}"
            )
        print(f"state in {tb.paths.root}; `vbench testbed down` removes everything")
        return 0
    if args.action == "down":
        Testbed(params).down(remove_kept=True)  # asked by name: also a testbed kept up by `testbed up`
        st = testbed_status(params)
        print(f"testbed '{params.name}' {'REMAINS' if st.exists else 'removed'}")
        return 1 if st.exists else 0
    st = testbed_status(params)
    print(
        f"testbed '{st.name}': {'up' if st.exists else 'down'}; namespaces: {', '.join(st.namespaces) or '-'}; "
        f"bridge {params.network.bridge} {'present' if st.bridge_up else 'absent'}; processes: {st.processes}"
    )
    return 0


def _netmatrix(tb: Testbed, hosts, args) -> int:
    from vbench.benchmarks import netmatrix, netmatrix_measure

    lay = tb.ctx.layout
    if lay is None:
        raise VbenchError(
            "netmatrix needs emulated physical hosts: set --mode nat/bridge+nat, --vms-per-host > 1 or --rate-mbit"
        )
    try:
        rows = netmatrix_measure.measure(hosts, lay, tb.params.vms_per_host, duration_s=args.duration)
    finally:
        tb.down()
    print(netmatrix.table(rows), end="")
    if args.json:
        args.json.write_text(json.dumps(netmatrix.as_dicts(rows), indent=1) + "\n")
    return 0

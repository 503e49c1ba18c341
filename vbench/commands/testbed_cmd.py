"""`vbench testbed up|down|status`."""
from __future__ import annotations

from vbench.commands.common import add_params_options, testbed_from_args
from vbench.lifecycle import interrupts_unwind
from vbench.testbed import Testbed, testbed_status


def register(sub) -> None:
    p = sub.add_parser("testbed", help="emulated hosts on this machine, reached over SSH")
    p.add_argument("action", choices=("up", "down", "status"))
    add_params_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    params = testbed_from_args(args)
    if args.action == "up":
        tb = Testbed(params)
        with interrupts_unwind():
            try:
                hosts = tb.up()
            except BaseException:
                tb.down()
                raise
        for h in hosts:
            print(f"{h.name:10s} {h.role:7s} {h.platform:8s} {h.address:15s} ssh {h.ssh.user}@{h.address}")
        print(f"state in {tb.paths.root}; `vbench testbed down` removes everything")
        return 0
    if args.action == "down":
        Testbed(params).down()
        st = testbed_status(params)
        print(f"testbed '{params.name}' {'REMAINS' if st.exists else 'removed'}")
        return 1 if st.exists else 0
    st = testbed_status(params)
    print(
        f"testbed '{st.name}': {'up' if st.exists else 'down'}; namespaces: {', '.join(st.namespaces) or '-'}; "
        f"bridge {params.network.bridge} {'present' if st.bridge_up else 'absent'}; processes: {st.processes}"
    )
    return 0

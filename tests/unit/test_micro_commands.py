"""The command strings of the micro benchmarks, pinned: building them from an argv (shlex.join) or
any later refactoring must not change what runs on a host for the default Config or a preset.

The literals are the strings `command` returned before the argv builders existed (issue 17 item 3),
but spawn's, jvmstart's and fileopen's, changed on purpose since (issue #53: their windows), and
those of modules that came later.
"""

from __future__ import annotations

import shlex

import pytest

from vbench.benchmarks.micro import MICRO_BENCHMARKS, iperf3, jvmcpu, rpc
from vbench.benchmarks.micro import latency as L

W = "/var/tmp/vbench/w1/micro"  # a work dir as the campaign makes them: nothing to quote
SPACED = "/data/work dir"  # one that needs quoting

_FIO_JOBS = (
    "--ioengine=psync --iodepth=1 --runtime={rt} --name=seq_write --rw=write --bs=1024k --end_fsync=1 "
    "--name=seq_read --stonewall --rw=read --bs=1024k --name=randread --stonewall --rw=randread --bs=4k --time_based"
)
_HDPARM_FIND = (
    'dev=$(findmnt -no SOURCE -T "$wd" 2>/dev/null | tail -n 1); '
    '[ -n "$dev" ] || dev=$(df --output=source "$wd" | tail -n 1); '
    'dev="${dev%%\\[*}"; '
    'if [ ! -b "$dev" ]; then echo "vbench: no block device under $wd: it is on '
    "'$dev', not a block device (container or shared file system?); "
    'name one with HdparmConfig(device=...)" >&2; exit 64; fi; '
)
_PI = (
    "rc=0; for n in {sizes}; do s=$(date +%s.%N); pi $n > {out} || {{ rc=$?; break; }}; "
    'e=$(date +%s.%N); echo "digits=$n start=$s end=$e head=$(head -c 16 {out}) '
    'count=$(tr -cd 0-9 < {out} | wc -c)"; done; rm -f {out}; exit $rc'
)
_DD = (
    "export LC_ALL=C; rc=0; for i in $(seq 1 {n}); do dd if=/dev/zero of={out} bs={bs} conv=fdatasync 2>&1 "
    "|| {{ rc=$?; break; }}; rm -f {out}; done; rm -f {out}; exit $rc"
)
# Since the gVisor host-network hang (2026-11-24) the client runs under `timeout`: warm-up +
# duration + 30 s, then KILL 5 s later.
_LATENCY = (
    "timeout -k 5 {limit} fio --output-format=json --name=latency --ioengine=net --protocol=tcp --port=8765 --bs=64 --size=1G "
    "--pingpong=1 --hostname=127.0.0.1 --rw=write --time_based --runtime={rt} --ramp_time={ramp} "
    "--lat_percentiles=1 --percentile_list=50:99"
)
# The platform cost vector (issue #53): a system call, a process, a JVM's start.
_SYSCALL = (
    "export LC_ALL=C; rc=0; for i in $(seq 1 5); do dd if=/dev/zero of=/dev/null bs=1 count=2000000 2>&1 "
    "|| { rc=$?; break; }; done; exit $rc"
)
# Since the windows (issue #53, 2026-12-05): an untimed warm-up, then per repeat `windows` windows,
# each after an empty one (two stamps), so a window's runs are its time less the empty window's.
_TIMED = (
    "rc=0; {warm}for r in $(seq 1 {n}); do for w in $(seq 1 {windows}); do z=$(date +%s%N); s=$(date +%s%N); "
    "n=0; while [ $n -lt {count} ]; do {program} || "
    '{{ rc=$?; echo "vbench: {tag}: run $((n + 1)) of repeat $r exited $rc" >&2; break 3; }}; n=$((n + 1)); done; '
    'e=$(date +%s%N); echo "{tag} repeat=$r window=$w count=$n empty=$z start=$s end=$e"; done; done; exit $rc'
)
_WARM = (
    "n=0; while [ $n -lt {warmup} ]; do {program} || "
    '{{ rc=$?; echo "vbench: {tag}: warm-up run $((n + 1)) exited $rc" >&2; exit $rc; }}; n=$((n + 1)); done; '
)
_FIND_JAVA = (
    'export LC_ALL=C; jh=/usr/lib/jvm/java-17-openjdk-amd64; java=""; '
    'for j in "$jh/bin/java" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java 2>/dev/null)"; do '
    'if [ -n "$j" ] && [ -x "$j" ]; then java=$j; break; fi; done; '
    'if [ -z "$java" ]; then echo "vbench: jvmstart: no java on this host '
    '(not $jh/bin/java, not \\$JAVA_HOME/bin/java, none on the PATH)" >&2; exit 127; fi; '
    'echo "jvmstart java=$java version=$("$java" -version 2>&1 | head -n 1)"; '
)

_FILEOPEN = (
    "cd {d} || exit 1; : > vbench-fileopen || exit 1; trap 'rm -f vbench-fileopen' EXIT; "
    "files=$(yes vbench-fileopen | head -n 4000); rc=0; "
    'cat $files >/dev/null || { rc=$?; echo "vbench: fileopen: cat exited $rc warming up" >&2; exit $rc; }; '
    "for r in $(seq 1 5); do for w in $(seq 1 5); do "
    'sm=$(date +%s%N); cat $files >/dev/null || { rc=$?; echo "vbench: fileopen: cat exited $rc in repeat $r" >&2; '
    "break 2; }; em=$(date +%s%N); "
    'so=$(date +%s%N); cat vbench-fileopen >/dev/null || { rc=$?; echo "vbench: fileopen: cat exited $rc in repeat '
    '$r" >&2; break 2; }; eo=$(date +%s%N); '
    'echo "fileopen repeat=$r window=$w count=4000 many_start=$sm many_end=$em one_start=$so one_end=$eo"; '
    "done; done; exit $rc"
)

# spawn's timed window (after its empty one) of one dd run's size, then the other's, in one repeat's loops.
_PAGEFAULT_WINDOW = (
    "z=$(date +%s%N); s=$(date +%s%N); n=0; while [ $n -lt 50 ]; do "
    "dd if=/dev/zero of=/dev/null bs={bs} count=1 status=none || "
    '{{ rc=$?; echo "vbench: {tag}: run $((n + 1)) of repeat $r exited $rc" >&2; break 3; }}; n=$((n + 1)); done; '
    'e=$(date +%s%N); echo "{tag} repeat=$r window=$w count=$n empty=$z start=$s end=$e"'
)
_PAGEFAULT = (
    'echo "pagefault-thp $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"; '
    "rc=0; for r in $(seq 1 5); do for w in $(seq 1 1); do "
    + _PAGEFAULT_WINDOW.format(bs="64M", tag="pagefault-big")
    + "; "
    + _PAGEFAULT_WINDOW.format(bs="4K", tag="pagefault-small")
    + "; done; done; exit $rc"
)

#: The program itself is its file's text (tests/unit/test_micro_rpc.py runs it); the shell around it is pinned.
_RPC = (
    _FIND_JAVA.replace("jvmstart", "rpc")
    + "cd {d} || exit 1; trap 'rm -f RpcPingPong.java' EXIT; "
    + "printf '%s' "
    + shlex.quote(rpc.program_source())
    + " > RpcPingPong.java || exit 1; "
    + '"$java" -Xshare:auto -XX:+UseSerialGC -Xms64m -Xmx64m RpcPingPong.java 3 3 3 64'
)
#: As rpc's: its program's text is the file beside the module (tests/unit/test_micro_jvmcpu.py runs it).
_JVMCPU = (
    _FIND_JAVA.replace("jvmstart", "jvmcpu")
    + "cd {d} || exit 1; trap 'rm -f JvmCompute.java' EXIT; "
    + "printf '%s' "
    + shlex.quote(jvmcpu.program_source())
    + " > JvmCompute.java || exit 1; "
    + '"$java" -Xshare:auto -XX:+UseSerialGC -Xms64m -Xmx64m JvmCompute.java 3 3 5 10000 0'
)

# (benchmark, preset or None for the default Config, work dir) -> the command string before argv.
BEFORE = {
    ("cpu", None, W): "LC_ALL=C sysbench cpu --cpu-max-prime=10000 --threads=1 --time=5 run",
    ("cpu", "cluster", W): "LC_ALL=C sysbench cpu --cpu-max-prime=20000 --threads=2 --time=30 run",
    ("membw", None, W): "LC_ALL=C sysbench memory --memory-block-size=1024K --memory-total-size=102400M "
    "--memory-oper=write --memory-access-mode=seq --threads=1 --time=5 run",
    ("iperf3", None, W): "iperf3 -c 127.0.0.1 -p 5201 -t 10 -i 1 -J --connect-timeout 5000",
    ("iperf3", "vasconcelos", W): "iperf3 -c 127.0.0.1 -p 5201 -t 10 -i 1 -J --connect-timeout 5000",
    ("latency", None, W): _LATENCY.format(rt=5, ramp=1, limit=36),
    ("latency", "tail", W): _LATENCY.format(rt=30, ramp=2, limit=62),
    ("bonnie", None, W): f"LC_ALL=C bonnie++ -d {W} -u root -m vbench -q -s 64 -r 32 -n 2 -f -D -b",
    ("bonnie", None, SPACED): "LC_ALL=C bonnie++ -d '/data/work dir' -u root -m vbench -q -s 64 -r 32 -n 2 -f -D -b",
    ("bonnie", "vasconcelos", W): f"LC_ALL=C bonnie++ -d {W} -u root -m vbench -q -n 16",
    ("fio", None, W): f"fio --output-format=json --filename={W}/vbench-fio.dat --size=32M --direct=1 "
    + _FIO_JOBS.format(rt=3)
    + f"; rc=$?; rm -f {W}/vbench-fio.dat; exit $rc",
    ("fio", "cluster", W): f"fio --output-format=json --filename={W}/vbench-fio.dat --size=4096M --direct=1 "
    + _FIO_JOBS.format(rt=30)
    + f"; rc=$?; rm -f {W}/vbench-fio.dat; exit $rc",
    ("dd", None, W): _DD.format(n=3, bs="4M count=8", out=f"{W}/vbench-dd.dat"),
    ("dd", None, SPACED): _DD.format(n=3, bs="4M count=8", out="'/data/work dir/vbench-dd.dat'"),
    ("dd", "liu2012", W): _DD.format(n=6, bs="32M count=100", out=f"{W}/vbench-dd.dat"),
    ("hdparm", None, W): f"wd={W}; {_HDPARM_FIND}" + " && ".join(['hdparm -t "$dev"'] * 3),
    ("hdparm", None, SPACED): f"wd='/data/work dir'; {_HDPARM_FIND}" + " && ".join(['hdparm -t "$dev"'] * 3),
    ("hdparm", "liu2012", W): f"wd={W}; {_HDPARM_FIND}" + " && ".join(['hdparm -t "$dev"'] * 6),
    ("pi_digits", None, W): _PI.format(sizes="100000", out=f"{W}/vbench-pi.txt"),
    ("pi_digits", None, SPACED): _PI.format(sizes="100000", out="'/data/work dir/vbench-pi.txt'"),
    ("syscall", None, W): _SYSCALL,
    ("spawn", None, W): _TIMED.format(warm="", n=5, windows=1, count=2000, program="/bin/true", tag="spawn"),
    ("jvmstart", None, W): _FIND_JAVA
    + _TIMED.format(
        warm=_WARM.format(warmup=3, program='"$java" -Xshare:auto -version > /dev/null 2>&1', tag="jvmstart"),
        n=3,
        windows=7,
        count=2,
        program='"$java" -Xshare:auto -version > /dev/null 2>&1',
        tag="jvmstart",
    ),
    ("fileopen", None, W): _FILEOPEN.replace("{d}", W),
    ("fileopen", None, SPACED): _FILEOPEN.replace("{d}", "'/data/work dir'"),
    ("pagefault", None, W): _PAGEFAULT,
    ("pagefault", None, SPACED): _PAGEFAULT,  # nothing written: the work dir is not in it
    ("rpc", None, W): _RPC.replace("{d}", W),
    ("rpc", None, SPACED): _RPC.replace("{d}", "'/data/work dir'"),
    ("jvmcpu", None, W): _JVMCPU.replace("{d}", W),
    ("pi_digits", "vasconcelos", W): _PI.format(sizes="1000000 2000000 4000000 8000000", out=f"{W}/vbench-pi.txt"),
}

#: The one string that changed: shlex.join quotes fio's whole `--filename=...` word where the
#: path alone was quoted before. The shell reads the same words from both.
FIO_SPACED_BEFORE = (
    "fio --output-format=json --filename='/data/work dir/vbench-fio.dat' --size=32M --direct=1 "
    + _FIO_JOBS.format(rt=3)
    + "; rc=$?; rm -f '/data/work dir/vbench-fio.dat'; exit $rc"
)


def _config(name, preset):
    module = MICRO_BENCHMARKS[name]
    return module.Config() if preset is None else module.PRESETS[preset]


def test_every_module_default_and_preset_is_pinned():
    wanted = {(name, None) for name in MICRO_BENCHMARKS}
    wanted |= {(name, p) for name, module in MICRO_BENCHMARKS.items() for p in module.PRESETS}
    assert {(name, preset) for name, preset, _ in BEFORE} == wanted


@pytest.mark.parametrize("name, preset, workdir", sorted(BEFORE, key=str))
def test_command_is_byte_identical_to_before(name, preset, workdir):
    assert MICRO_BENCHMARKS[name].command(_config(name, preset), workdir) == BEFORE[name, preset, workdir]


def test_fio_quotes_the_whole_filename_word_now_which_the_shell_reads_the_same():
    cmd = MICRO_BENCHMARKS["fio"].command(_config("fio", None), SPACED)
    assert "'--filename=/data/work dir/vbench-fio.dat'" in cmd
    # shlex.split reads the command up to the `;` as the shell does: the same words as before.
    assert shlex.split(cmd) == shlex.split(FIO_SPACED_BEFORE)


@pytest.mark.parametrize("name", sorted(n for n, m in MICRO_BENCHMARKS.items() if hasattr(m, "argv")))
def test_the_command_runs_the_argv(name):
    module = MICRO_BENCHMARKS[name]
    cfgs = [module.Config(), *module.PRESETS.values()]
    for cfg in cfgs:
        argv = module.argv(cfg, SPACED)
        assert isinstance(argv, list) and all(isinstance(a, str) for a in argv)
        assert shlex.join(argv) in module.command(cfg, SPACED)


def test_which_modules_have_an_argv():
    # The others are shell scripts: loops, device lookup, clean-up between runs (vbench.benchmarks.base).
    assert sorted(n for n, m in MICRO_BENCHMARKS.items() if hasattr(m, "argv")) == [
        "bonnie",
        "cpu",
        "fio",
        "iperf3",
        "latency",
        "membw",
    ]


def test_the_servers_command_lines_are_pinned_too():
    assert iperf3.server_command(iperf3.Config()) == "iperf3 -s -1 -p 5201"
    assert iperf3.server_command(iperf3.Config(server_bind="10.0.0.1")) == "iperf3 -s -1 -p 5201 -B 10.0.0.1"
    server = (
        "fio --name=vbench-latency-server --ioengine=net --protocol=tcp --port=8765 --bs=64 --size=1G --pingpong=1 "
        "--listen --rw=read"
    )
    assert L.server_command(L.Config()) == server
    assert L.server_start_line(L.Config()) == f"nohup timeout 66 {server} > /dev/null 2>&1 < /dev/null & echo $!"
    assert L.server_stop_line(4242, L.Config()) == (
        "tr '\\0' ' ' < /proc/4242/cmdline 2>/dev/null | grep -qF -- "
        "'--name=vbench-latency-server --ioengine=net --protocol=tcp --port=8765' && kill 4242 2>/dev/null; true"
    )

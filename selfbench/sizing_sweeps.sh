#!/usr/bin/env bash
# The sizing sweeps behind the designs' sizes (issue #19 item 2), one after another, each into
# data/raw/sizing/<benchmark>-<knob>/ with its table (sizing.md) and samples. Run alone on a quiet
# machine from a clean committed tree; between sweeps it waits for the 1-minute load average to
# fall below 1 again (the previous sweep's own load), as sizing.py refuses to start otherwise.
#
#   bash selfbench/sizing_sweeps.sh [OUT_ROOT]      # default: data/raw/sizing (~25 min here)
set -euo pipefail
cd "$(dirname "$0")/.."
out_root=${1:-data/raw/sizing}
py=${PYTHON:-.venv/bin/python}
[ -x "$py" ] || py=python3

wait_quiet() {
    for _ in $(seq 90); do
        awk '{exit !($1 < 1)}' /proc/loadavg && return 0
        sleep 2
    done
    echo "sizing_sweeps: load average stayed >= 1 for 3 min: $(cat /proc/loadavg)" >&2
    return 1
}

sweep() {  # benchmark knob levels runs [--set k=v ...]
    local bench=$1 knob=$2 levels=$3 runs=$4
    shift 4
    local out="$out_root/$bench-$knob"
    if [ -f "$out/sizing.md" ]; then
        echo "sizing_sweeps: $out done already"
        return 0
    fi
    rm -rf "$out"
    wait_quiet
    "$py" selfbench/sizing.py "$bench" "$knob" "$levels" --runs "$runs" --out "$out" "$@" \
        || echo "sizing_sweeps: the $bench sweep had failed runs (see $out)" >&2
}

sweep cpu time_s 2,5,10 4
sweep membw time_s 2,5 4
sweep dd count 8,64 4
sweep fio runtime_s 3,10 4
sweep iperf3 duration_s 3,10 4 --set omit_s=1
sweep dfsio file_size_mb 16,64 3 --workers 2
sweep terasort size_mb 32,128 3 --workers 2

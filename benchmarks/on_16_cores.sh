#!/usr/bin/env bash
# Issue 41's 16-core goals in one prepared device run (~4-6 minutes), from the project root:
#
#   . .dev/on-device.sh && OUT=$OUT bash benchmarks/on_16_cores.sh
#
# (`../shared/scale-machine/README.md` makes .dev; the device tool's `carry` must name it.)
# Each case is one bench_scale_out.py invocation under its own time limit, so one that runs
# long costs only itself; its table rows (share of the ceiling, CPU µs per evaluation of every
# process) are printed as it ends, its full log and JSON lines are left in $OUT.
#   W = 128, t = 2 ms, lambda = 2,048: islands >= 0.90 of the ceiling
#   W = 64, t = 20 ms, sigma = 1: islands >= 0.95
#   W = 64, t = 2 ms: every algorithm's default >= 0.90 where the driver is not the limit
# QUICK=1 runs the same cases shrunk to 8 workers (a check of this script on a small machine).
set -u
OUT=${OUT:-/tmp/on_16_cores}
mkdir -p "$OUT"
PYTHON=${PYTHON:-python3}

case_run() {  # name, time limit (s), then bench_scale_out.py's arguments
    local name=$1 limit=$2
    shift 2
    local started=$SECONDS
    timeout "$limit" "$PYTHON" benchmarks/bench_scale_out.py "$@" --out "$OUT/$name.jsonl" > "$OUT/$name.log" 2>&1
    echo "== $name: exit $? after $((SECONDS - started)) s: $*"
    grep -E '^\| [0-9]|^  - CPU' "$OUT/$name.log"
}

if [ "${QUICK:-0}" = 1 ]; then
    case_run quick 300 --workers 8 --cases 256:2:0 --algorithms islands islands+steady --generations 4 --nodes 1 --cpus 8
    exit 0
fi
nproc
case_run w128-2ms 200 --workers 128 --cases 2048:2:0 --algorithms islands islands+steady --generations 20
case_run w64-20ms 150 --workers 64 --cases 1024:20:1 --algorithms islands islands+steady --generations 20
case_run w64-2ms 150 --workers 64 --cases 1024:2:0 --algorithms mu+lambda steady-state islands --generations 20

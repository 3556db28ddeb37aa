#!/usr/bin/env bash
# Every figure `homing simulate` and `homing compare` give for three workloads and every policy, seed 1, with the
# wall-clock times taken out, written to OUT_DIR. Two builds route identically when their fingerprints are equal:
# bench/simulate-identity.sh compares this checkout's with another revision's.
#
#   bench/simulate-fingerprint.sh OUT_DIR [HOMING]     (HOMING: the launcher, default bin/homing of this checkout)
#
# MOONCAKE_TRACE points at the Mooncake conversation trace (default: the shared data folder beside the repo); without
# it the Mooncake run is skipped and says so.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: simulate-fingerprint.sh OUT_DIR [HOMING]}
homing=${2:-$repo/bin/homing}
trace=${MOONCAKE_TRACE:-$repo/../shared/data/mooncake/conversation_trace.jsonl}
mkdir -p "$out"

# run NAME ARGS...: the simulate summary (branches, holds; wall time removed) and compare's JSON and table.
run() {
  local name=$1
  shift
  HOMING_AOT=off "$homing" simulate --seed 1 "$@" 2>&1 | sed -E 's/, [0-9.]+ s wall//' >"$out/$name.simulate.txt"
  HOMING_AOT=off "$homing" compare --seed 1 "$@" --output "$out/$name.report" >/dev/null 2>&1
  rm -f "$out/$name.report"/*.svg
}

run multi-turn --workload multi-turn --workers 8
run generated-shared-prefix --workload generated-shared-prefix --workers 8
if [ -f "$trace" ]; then
  run mooncake --trace "$trace" --workers 8 --kv-tokens 1000000
else
  echo "no Mooncake trace at $trace (set MOONCAKE_TRACE): its run is skipped" >&2
fi
echo "fingerprint written to $out"

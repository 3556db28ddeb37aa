#!/usr/bin/env bash
# Data-parallel ranks, live (issue 17, target 3's live half): one `homing sim-engine --dp-size 4` engine behind the
# gateway, routed to its ranks (--dp-aware, url@0..3, the gateway's policy choosing the rank) against the same engine
# seen whole (one URL: the engine's own round robin chooses), on multi-turn chat driven by `homing bench`: the cached
# share of prompt tokens and TTFT side by side. See docs/BENCHMARKS.md, "Data-parallel ranks".
#
#   bench/live-dp.sh [OUT_DIR]         (default OUT_DIR: results/live-dp)
#
# Each run has a fresh engine (empty caches) and a duration cap; every process started here is stopped by PID on exit.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

POLICY=${POLICY:-load_aware_affinity}
RANKS=${RANKS:-4}
TIME_SCALE=${TIME_SCALE:-10}
CONVERSATIONS=${CONVERSATIONS:-64}
BASE_PORT=${BASE_PORT:-18800}
MAX_SECONDS=${MAX_SECONDS:-900}

. "$repo/bench/processes.sh"
needs_homing "$repo"
out=$(out_dir "${1:-$repo/results/live-dp}")
engine_url="http://127.0.0.1:$BASE_PORT"
gateway_port=$((BASE_PORT + 100)); metrics_port=$((BASE_PORT + 101))

# run NAME HEALTHY WORKER_FLAGS...: a fresh engine and gateway, the multi-turn run.
run() {
  local name=$1 healthy=$2
  shift 2
  local run_pids=()
  "$homing" sim-engine --host 127.0.0.1 --port "$BASE_PORT" --dp-size "$RANKS" --time-scale "$TIME_SCALE" \
    >"$out/logs/$name-engine.log" 2>&1 &
  pids+=($!); run_pids+=($!)
  wait_ok "$engine_url/health" 60
  "$homing" launch --host 127.0.0.1 --port "$gateway_port" --prometheus-host 127.0.0.1 \
    --prometheus-port "$metrics_port" --policy "$POLICY" "$@" >"$out/logs/$name-gateway.log" 2>&1 &
  pids+=($!); run_pids+=($!)
  ready "$gateway_port" "$healthy"
  log "$name: multi-turn chat, $CONVERSATIONS conversations"
  "$homing" bench --url "http://127.0.0.1:$gateway_port" --engine-urls "$engine_url" --workload multi-turn \
    --rate 2 --max-requests $((CONVERSATIONS * 4)) --duration "$MAX_SECONDS" --output "$out/$name.json" \
    >"$out/logs/$name-bench.log" 2>&1
  for pid in "${run_pids[@]}"; do stop "$pid"; done
}

ranks=$(for ((r = 0; r < RANKS; r++)); do printf '%s@%d,' "$engine_url" "$r"; done)
run ranks "$RANKS" --dp-aware --worker-urls "${ranks%,}"
run engine-round-robin 1 --worker-urls "$engine_url"

{
  printf '| Routing | Hit rate | TTFT p50 / p99 (ms) | Requests/s |\n|---|---:|---:|---:|\n'
  for name in ranks engine-round-robin; do
    jq -r --arg n "$name" --argjson t "$TIME_SCALE" '
      "| \($n) | \(.cacheHitRate.fromUsage * 10000 | round / 100)% | "
      + "\(.timeToFirstToken.p50Ms * $t | round) / \(.timeToFirstToken.p99Ms * $t | round) | "
      + "\(.throughput.requestsPerSecond / $t * 1000 | round / 1000) |"' "$out/$name.json"
  done
} | tee "$out/table.md"

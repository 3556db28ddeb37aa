#!/usr/bin/env bash
# The Mooncake conversation trace replayed live: the gateway in front of simulated engines, driven by `homing bench`,
# one policy after the other, each with freshly started engines (empty caches). See docs/BENCHMARKS.md,
# "Mooncake, live".
#
#   bench/live-mooncake.sh TRACE [OUT_DIR]         (default OUT_DIR: results/live-mooncake)
#
# TRACE is the Mooncake conversation_trace.jsonl. The engines run TIME_SCALE times faster than real time and the
# trace is replayed RATE_SCALE x TIME_SCALE times faster, so the engines see the load of `homing simulate --rate-scale
# RATE_SCALE`; the latencies the load tool prints are real time, the table below multiplies them back to engine time.
# Every process started here is stopped by PID on exit; each replay has a duration cap.
set -euo pipefail

trace=${1:?usage: bench/live-mooncake.sh TRACE [OUT_DIR]}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
POLICIES=${POLICIES:-"load_aware_affinity cache_aware"}
WORKERS=${WORKERS:-8}
KV_TOKENS=${KV_TOKENS:-1000000}
# 5: the trace's hour in 12 minutes. Faster makes the engines' streaming (every output token is an event) and the
# gateway compete for the cores, and every millisecond of real delay counts TIME_SCALE milliseconds of engine time.
TIME_SCALE=${TIME_SCALE:-5}
RATE_SCALE=${RATE_SCALE:-1}
BASE_PORT=${BASE_PORT:-18600}
MAX_SECONDS=${MAX_SECONDS:-3600}   # cap of one replay, real seconds

. "$repo/bench/processes.sh"
needs_homing "$repo"
out=$(out_dir "${2:-$repo/results/live-mooncake}")

gateway_port=$((BASE_PORT + 100)); metrics_port=$((BASE_PORT + 101))
urls=()
for ((i = 0; i < WORKERS; i++)); do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
worker_urls=$(IFS=,; echo "${urls[*]}")
replay_rate=$(awk -v t="$TIME_SCALE" -v r="$RATE_SCALE" 'BEGIN { print t * r }')

for policy in $POLICIES; do
  log "$policy: starting $WORKERS engines and the gateway"
  run_pids=()
  for ((i = 0; i < WORKERS; i++)); do
    "$homing" sim-engine --host 127.0.0.1 --port $((BASE_PORT + i)) --kv-tokens "$KV_TOKENS" \
      --time-scale "$TIME_SCALE" >"$out/logs/$policy-engine-$i.log" 2>&1 &
    pids+=($!); run_pids+=($!)
  done
  for url in "${urls[@]}"; do wait_ok "$url/health" 60; done
  "$homing" launch --host 127.0.0.1 --port "$gateway_port" --prometheus-host 127.0.0.1 \
    --prometheus-port "$metrics_port" --worker-urls "$worker_urls" --policy "$policy" \
    >"$out/logs/$policy-gateway.log" 2>&1 &
  pids+=($!); run_pids+=($!)
  ready "$gateway_port" "$WORKERS"

  log "$policy: replaying $trace at $replay_rate x"
  "$homing" bench --url "http://127.0.0.1:$gateway_port" --workload mooncake --trace "$trace" \
    --rate-scale "$replay_rate" --max-requests 100000 --duration "$MAX_SECONDS" --engine-urls "$worker_urls" \
    --output "$out/$policy.json" >"$out/logs/$policy-bench.log" 2>&1
  curl -s "http://127.0.0.1:$metrics_port/metrics" >"$out/$policy.metrics"
  for pid in "${run_pids[@]}"; do stop "$pid"; done
done

# One row per policy, in engine time: latencies are real ms x TIME_SCALE, requests/s are real ones / TIME_SCALE.
{
  printf '| Policy | Requests answered | Hit rate | TTFT p50 (ms) | TTFT p90 (ms) | TTFT p99 (ms) | Requests/s | Busiest worker share of prompt tokens |\n'
  printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
  for policy in $POLICIES; do
    jq -r --arg p "$policy" --argjson t "$TIME_SCALE" --argjson r "$RATE_SCALE" '
      "| \($p) | \(.requests.succeeded) of \(.requests.sent) | \(.cacheHitRate.fromEngines * 10000 | round / 100)% | "
      + "\(.timeToFirstToken.p50Ms * $t | round) | \(.timeToFirstToken.p90Ms * $t | round) | "
      + "\(.timeToFirstToken.p99Ms * $t | round) | \(.throughput.requestsPerSecond / $t * 1000 | round / 1000) | "
      + "\([.workers[].tokenShare] | max * 1000 | round / 10)% |"' "$out/$policy.json"
  done
} | tee "$out/table.md"

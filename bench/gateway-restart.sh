#!/usr/bin/env bash
# A gateway restarted beside engines that keep their caches: what its first requests find. See docs/BENCHMARKS.md,
# "A gateway started beside running engines".
#
#   bench/gateway-restart.sh TRACE [OUT_DIR]         (default OUT_DIR: results/gateway-restart)
#
# For each row, WORKERS simulated engines publish their KV events on loopback (engines and gateway on the demo
# tokenizer). A first gateway replays the first MAX_REQUESTS requests of TRACE (the Mooncake conversation trace) and is
# stopped; a second gateway is started on the same engines and replays the same requests again, so every prompt it
# gets was computed on some engine before. Rows: `catch-up` (the engines offer a replay socket: the new gateway first
# applies what each still buffers), `no replay` (the same without a replay socket: its views start empty) and `tree`
# (the second gateway on its prefix tree alone, --kv-events off, which starts empty too). The engines hold the whole
# first pass (KV_TOKENS each). Every process started here is stopped by PID on exit; each replay has a duration cap.
set -euo pipefail

trace=${1:?usage: bench/gateway-restart.sh TRACE [OUT_DIR]}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
POLICY=${POLICY:-load_aware_affinity}
WORKERS=${WORKERS:-4}
KV_TOKENS=${KV_TOKENS:-2000000}
TIME_SCALE=${TIME_SCALE:-20}
RATE_SCALE=${RATE_SCALE:-0.1}
BASE_PORT=${BASE_PORT:-18700}
MAX_SECONDS=${MAX_SECONDS:-900}   # cap of one replay, real seconds
MAX_REQUESTS=${MAX_REQUESTS:-300}
SEED=${SEED:-1}
ROWS=${ROWS:-"catch-up no-replay tree"}

. "$repo/bench/processes.sh"
needs_homing "$repo"
out=$(out_dir "${2:-$repo/results/gateway-restart}")

gateway_port=$((BASE_PORT + 100)); metrics_port=$((BASE_PORT + 101))
urls=()
for ((i = 0; i < WORKERS; i++)); do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
worker_urls=$(IFS=,; echo "${urls[*]}")
replay_rate=$(awk -v t="$TIME_SCALE" -v r="$RATE_SCALE" 'BEGIN { print t * r }')

# One gateway over the engines, replaying the trace's first MAX_REQUESTS requests; $1 names the pass, the rest are
# the gateway's flags.
pass() {
  local name=$1; shift
  "$homing" launch --host 127.0.0.1 --port "$gateway_port" --prometheus-host 127.0.0.1 \
    --prometheus-port "$metrics_port" --worker-urls "$worker_urls" --policy "$POLICY" --tokenizer-path demo \
    "$@" >"$out/logs/$name-gateway.log" 2>&1 &
  local gateway=$!; pids+=("$gateway")
  ready "$gateway_port" "$WORKERS"
  log "$name: replaying the first $MAX_REQUESTS requests at $replay_rate x"
  "$homing" bench --url "http://127.0.0.1:$gateway_port" --workload mooncake --trace "$trace" \
    --rate-scale "$replay_rate" --seed "$SEED" --max-requests "$MAX_REQUESTS" --duration "$MAX_SECONDS" \
    --engine-urls "$worker_urls" --output "$out/$name.json" >"$out/logs/$name-bench.log" 2>&1
  curl -s "http://127.0.0.1:$metrics_port/metrics" >"$out/$name.metrics"
  stop "$gateway"
}

for row in $ROWS; do
  events='{"publisher":"zmq","endpoint":"tcp://127.0.0.1:*","topic":"kv-events"'
  [ "$row" = no-replay ] || events+=',"replay_endpoint":"tcp://127.0.0.1:*"'
  events+='}'
  log "$row: starting $WORKERS engines"
  run_pids=()
  for ((i = 0; i < WORKERS; i++)); do
    "$homing" sim-engine --host 127.0.0.1 --port $((BASE_PORT + i)) --kv-tokens "$KV_TOKENS" --page-size 16 \
      --time-scale "$TIME_SCALE" --tokenizer-path demo --kv-events-config "$events" \
      >"$out/logs/$row-engine-$i.log" 2>&1 &
    pids+=($!); run_pids+=($!)
  done
  for url in "${urls[@]}"; do wait_ok "$url/health" 60; done
  pass "$row-first" --kv-events auto
  second=(--kv-events auto); [ "$row" = tree ] && second=(--kv-events off)
  pass "$row-second" "${second[@]}"
  for pid in "${run_pids[@]}"; do stop "$pid"; done
done

# One row per pass, in engine time (real ms x TIME_SCALE). Views: decisions on each, and the mean |predicted -
# cached| / prompt tokens.
{
  printf '| Pass | Requests answered | Hit rate | TTFT p50 (ms) | TTFT p99 (ms) | Routing view: decisions (gap) |\n'
  printf '|---|---:|---:|---:|---:|---|\n'
  for row in $ROWS; do
    for name in "$row-first" "$row-second"; do
      jq -r --arg p "$name" --argjson t "$TIME_SCALE" '
        "| \($p) | \(.requests.succeeded) of \(.requests.sent) | \(.cacheHitRate.fromEngines * 10000 | round / 100)% | "
        + "\(.timeToFirstToken.p50Ms * $t | round) | \(.timeToFirstToken.p99Ms * $t | round) | "
        + ([.routingViews | to_entries[] | "\(.key) \(.value.requests) (\(.value.meanGap * 10000 | round / 100)%)"]
           | join(", ")) + " |"' "$out/$name.json"
    done
  done
} | tee "$out/table.md"

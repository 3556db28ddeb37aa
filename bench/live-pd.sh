#!/usr/bin/env bash
# Prefill/decode, live (issue 17, target 2): 2 prefill + 2 decode simulated engines behind the gateway in
# --pd-disaggregation mode, beside 4 regular engines behind it in regular mode, on two workloads driven by
# `homing bench`:
#   - multi-turn chat: the cached share of prompt tokens the answers report, TTFT and inter-token gap;
#   - 32,000-token prompts with one output token (the reference's PR #27547 case): how evenly the prefill work (prompt
#     tokens computed, not cached) spreads over the engines that prefill, max over mean.
# See docs/BENCHMARKS.md, "Prefill/decode, live".
#
#   bench/live-pd.sh [OUT_DIR]         (default OUT_DIR: results/live-pd)
#
# PREFILL_POLICIES lists the prefill legs' policies to run (each with fresh engines); the decode leg keeps its
# default, decode_balance. VIEWS="tree exact" runs each twice: on the gateway's prefix tree alone (--kv-events off),
# then on the exact view (the engines that compute prompts, prefill or regular, publish their KV events on loopback;
# every engine and the gateway tokenize with the demo tokenizer in both runs). ENGINE_FLAGS adds flags to every engine
# (split on spaces), e.g. "--page-size 16 --kv-tokens 16000". Every process started here is stopped by PID on exit;
# each run has a duration cap.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

PREFILL_POLICIES=${PREFILL_POLICIES:-"load_aware_affinity cache_aware"}
TIME_SCALE=${TIME_SCALE:-10}
CONVERSATIONS=${CONVERSATIONS:-64}
LONG_PROMPTS=${LONG_PROMPTS:-40}
BASE_PORT=${BASE_PORT:-18700}
MAX_SECONDS=${MAX_SECONDS:-900}   # cap of one run, real seconds
VIEWS=${VIEWS:-tree}
ENGINE_FLAGS=${ENGINE_FLAGS:-}

. "$repo/bench/processes.sh"
needs_homing "$repo"
out=$(out_dir "${1:-$repo/results/live-pd}")
gateway_port=$((BASE_PORT + 100)); metrics_port=$((BASE_PORT + 101))
read -r -a engine_args <<<"$ENGINE_FLAGS"; gateway_args=()
if [ "$VIEWS" != tree ]; then
  # The same tokens in every run; the events only where the view is exact.
  engine_args+=(--tokenizer-path demo); gateway_args+=(--tokenizer-path demo)
fi
events='{"publisher":"zmq","endpoint":"tcp://127.0.0.1:*","topic":"kv-events"}'
view_engine=(); view_gateway=()

# engine NAME PORT FLAGS...: starts a simulated engine in the background.
engine() {
  local name=$1 port=$2
  shift 2
  "$homing" sim-engine --host 127.0.0.1 --port "$port" --time-scale "$TIME_SCALE" "${engine_args[@]}" "$@" \
    >"$out/logs/$name.log" 2>&1 &
  pids+=($!); run_pids+=($!)
}

# bench NAME ENGINES ARGS...: one `homing bench` run against the gateway, its engines' counters read too.
bench() {
  local name=$1 engines=$2
  shift 2
  "$homing" bench --url "http://127.0.0.1:$gateway_port" --engine-urls "$engines" --duration "$MAX_SECONDS" \
    --output "$out/$name.json" "$@" >"$out/logs/$name-bench.log" 2>&1
}

# run_name FLEET POLICY VIEW: a run's name, the view named only when VIEWS has more than the tree.
run_name() {
  if [ "$VIEWS" = tree ]; then echo "$1-$2"; else echo "$1-$2-$3"; fi
}

# run FLEET POLICY VIEW: one fleet (pd or regular) on one view, fresh engines and gateway, both workloads.
run() {
  local fleet=$1 policy=$2 name prefill_urls gateway_flags=()
  name=$(run_name "$1" "$2" "$3")
  view_engine=(); view_gateway=(--kv-events off)
  [ "$3" = exact ] && { view_engine=(--kv-events-config "$events"); view_gateway=(--kv-events auto); }
  run_pids=()
  if [ "$fleet" = pd ]; then
    engine "$name-prefill-0" $((BASE_PORT)) --disaggregation-mode prefill --disaggregation-bootstrap-port 0 \
      "${view_engine[@]}"
    engine "$name-prefill-1" $((BASE_PORT + 1)) --disaggregation-mode prefill --disaggregation-bootstrap-port 0 \
      "${view_engine[@]}"
    engine "$name-decode-0" $((BASE_PORT + 2)) --disaggregation-mode decode
    engine "$name-decode-1" $((BASE_PORT + 3)) --disaggregation-mode decode
    gateway_flags=(--pd-disaggregation --prefill-policy "$policy"
      --prefill "http://127.0.0.1:$BASE_PORT" --prefill "http://127.0.0.1:$((BASE_PORT + 1))"
      --decode "http://127.0.0.1:$((BASE_PORT + 2))" --decode "http://127.0.0.1:$((BASE_PORT + 3))")
    prefill_urls="http://127.0.0.1:$BASE_PORT,http://127.0.0.1:$((BASE_PORT + 1))"
  else
    for i in 0 1 2 3; do engine "$name-engine-$i" $((BASE_PORT + i)) "${view_engine[@]}"; done
    prefill_urls=$(for i in 0 1 2 3; do printf 'http://127.0.0.1:%d,' $((BASE_PORT + i)); done)
    prefill_urls=${prefill_urls%,}
    gateway_flags=(--policy "$policy" --worker-urls "$prefill_urls")
  fi
  for i in 0 1 2 3; do wait_ok "http://127.0.0.1:$((BASE_PORT + i))/health" 60; done
  "$homing" launch --host 127.0.0.1 --port "$gateway_port" --prometheus-host 127.0.0.1 \
    --prometheus-port "$metrics_port" "${gateway_flags[@]}" "${gateway_args[@]}" "${view_gateway[@]}" \
    >"$out/logs/$name-gateway.log" 2>&1 &
  pids+=($!); run_pids+=($!)
  ready "$gateway_port" 4
  log "$name: multi-turn chat, $CONVERSATIONS conversations"
  bench "$name-multi-turn" "$prefill_urls" --workload multi-turn --rate 2 --max-requests $((CONVERSATIONS * 4))
  log "$name: $LONG_PROMPTS prompts of 32,000 tokens, one output token each"
  bench "$name-long" "$prefill_urls" --workload generated-shared-prefix --gsp-num-groups "$LONG_PROMPTS" \
    --gsp-prompts-per-group 1 --gsp-system-prompt-len 32000 --gsp-question-len 16 --gsp-output-len 1 \
    --concurrency 8 --max-requests "$LONG_PROMPTS"
  curl -s "http://127.0.0.1:$metrics_port/metrics" >"$out/$name.metrics"
  for pid in "${run_pids[@]}"; do stop "$pid"; done
}

for policy in $PREFILL_POLICIES; do
  for view in $VIEWS; do
    run pd "$policy" "$view"
    run regular "$policy" "$view"
  done
done

# One row per fleet, policy and view, in engine time: latencies are real ms x TIME_SCALE. Prefill max/mean: the
# busiest prefilling engine's uncached prompt tokens over the mean of them (2 prefill engines, or the 4 regular ones).
# The last column (multi-turn): decisions on each view the gateway reported, and the mean |predicted - cached| /
# prompt tokens.
{
  printf '| Fleet | Prefill policy | View | Hit rate (multi-turn) | TTFT p50 / p99 (ms) | Inter-token gap p50 / p99 (ms) '
  printf '| Requests/s | Prefill max/mean (32k prompts) | Routing view: decisions (gap) |\n'
  printf '|---|---|---|---:|---:|---:|---:|---:|---|\n'
  for policy in $PREFILL_POLICIES; do
    for view in $VIEWS; do
      for fleet in pd regular; do
        name=$(run_name "$fleet" "$policy" "$view")
        spread=$(jq '[.workers[] | .promptTokens - .cachedTokens] | (max / (add / length) * 100 | round / 100)' \
          "$out/$name-long.json")
        jq -r --arg f "$fleet" --arg p "$policy" --arg v "$view" --argjson t "$TIME_SCALE" --arg s "$spread" '
          "| \($f) | \($p) | \($v) | \(.cacheHitRate.fromUsage * 10000 | round / 100)% | "
          + "\(.timeToFirstToken.p50Ms * $t | round) / \(.timeToFirstToken.p99Ms * $t | round) | "
          + "\(.interTokenGap.p50Ms * $t | round) / \(.interTokenGap.p99Ms * $t | round) | "
          + "\(.throughput.requestsPerSecond / $t * 1000 | round / 1000) | \($s) | "
          + ([(.routingViews // {}) | to_entries[] | "\(.key) \(.value.requests) (\(.value.meanGap * 10000 | round / 100)%)"]
             | join(", ")) + " |"' "$out/$name-multi-turn.json"
      done
    done
  done
} | tee "$out/table.md"

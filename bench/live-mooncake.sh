#!/usr/bin/env bash
# The Mooncake conversation trace replayed live: the gateway in front of simulated engines, driven by `homing bench`,
# one policy (and routing view) after the other, each with freshly started engines (empty caches). See
# docs/BENCHMARKS.md, "Mooncake, live" and "Exact view from KV events".
#
#   bench/live-mooncake.sh TRACE [OUT_DIR]         (default OUT_DIR: results/live-mooncake)
#   bench/live-mooncake.sh multi-turn [OUT_DIR]
#
# TRACE is the Mooncake conversation_trace.jsonl. The engines run TIME_SCALE times faster than real time and the
# trace is replayed RATE_SCALE x TIME_SCALE times faster, so the engines see the load of `homing simulate --rate-scale
# RATE_SCALE`; the latencies the load tool prints are real time, the table below multiplies them back to engine time.
# multi-turn instead of a trace drives the simulator's multi-turn chat (`homing simulate --workload multi-turn`: 2
# conversations a second x RATE_SCALE, 5 s of thinking between turns, both in engine time; seed SEED).
# VIEWS="tree exact" runs each policy twice: on the gateway's prefix tree alone (--kv-events off), then on the exact
# view (the engines publish their KV events on loopback; engines and gateway tokenize with the demo tokenizer in both
# runs, so the engines see the same tokens). Every process started here is stopped by PID on exit; each replay has a
# duration cap and MAX_REQUESTS a count cap.
set -euo pipefail

trace=${1:?usage: bench/live-mooncake.sh TRACE|multi-turn [OUT_DIR]}
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
MAX_REQUESTS=${MAX_REQUESTS:-100000}
SEED=${SEED:-1}
VIEWS=${VIEWS:-tree}
# Extra flags, split on spaces: e.g. ENGINE_FLAGS="--page-size 16" (vLLM's block size; SGLang's default page of one
# token makes one engine block a token, which a small --kv-index-max-blocks cannot hold for long prompts).
ENGINE_FLAGS=${ENGINE_FLAGS:-}
GATEWAY_FLAGS=${GATEWAY_FLAGS:-}

. "$repo/bench/processes.sh"
needs_homing "$repo"
out=$(out_dir "${2:-$repo/results/live-mooncake}")

gateway_port=$((BASE_PORT + 100)); metrics_port=$((BASE_PORT + 101))
urls=()
for ((i = 0; i < WORKERS; i++)); do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
worker_urls=$(IFS=,; echo "${urls[*]}")
replay_rate=$(awk -v t="$TIME_SCALE" -v r="$RATE_SCALE" 'BEGIN { print t * r }')
if [ "$trace" = multi-turn ]; then
  workload=(--workload multi-turn --rate "$(awk -v r="$replay_rate" 'BEGIN { print 2 * r }')"
            --think-seconds "$(awk -v t="$TIME_SCALE" 'BEGIN { print 5 / t }')")
else
  workload=(--workload mooncake --trace "$trace" --rate-scale "$replay_rate")
fi

read -r -a engine_args <<<"$ENGINE_FLAGS"; read -r -a gateway_args <<<"$GATEWAY_FLAGS"
if [ "$VIEWS" != tree ]; then
  # The same tokens in every run; the events only where the view is exact.
  engine_args+=(--tokenizer-path demo); gateway_args+=(--tokenizer-path demo)
fi
events='{"publisher":"zmq","endpoint":"tcp://127.0.0.1:*","topic":"kv-events"}'

runs=()
for policy in $POLICIES; do
  for view in $VIEWS; do
    run=$policy; [ "$VIEWS" = tree ] || run=$policy-$view
    runs+=("$run")
    view_engine=(); view_gateway=(--kv-events off)
    [ "$view" = exact ] && { view_engine=(--kv-events-config "$events"); view_gateway=(--kv-events auto); }
    log "$run: starting $WORKERS engines and the gateway"
    run_pids=()
    for ((i = 0; i < WORKERS; i++)); do
      "$homing" sim-engine --host 127.0.0.1 --port $((BASE_PORT + i)) --kv-tokens "$KV_TOKENS" \
        --time-scale "$TIME_SCALE" "${engine_args[@]}" "${view_engine[@]}" >"$out/logs/$run-engine-$i.log" 2>&1 &
      pids+=($!); run_pids+=($!)
    done
    for url in "${urls[@]}"; do wait_ok "$url/health" 60; done
    "$homing" launch --host 127.0.0.1 --port "$gateway_port" --prometheus-host 127.0.0.1 \
      --prometheus-port "$metrics_port" --worker-urls "$worker_urls" --policy "$policy" \
      "${gateway_args[@]}" "${view_gateway[@]}" >"$out/logs/$run-gateway.log" 2>&1 &
    pids+=($!); run_pids+=($!)
    ready "$gateway_port" "$WORKERS"

    log "$run: replaying $trace at $replay_rate x"
    "$homing" bench --url "http://127.0.0.1:$gateway_port" "${workload[@]}" --seed "$SEED" \
      --max-requests "$MAX_REQUESTS" --duration "$MAX_SECONDS" \
      --engine-urls "$worker_urls" --output "$out/$run.json" >"$out/logs/$run-bench.log" 2>&1
    curl -s "http://127.0.0.1:$metrics_port/metrics" >"$out/$run.metrics"
    for pid in "${run_pids[@]}"; do stop "$pid"; done
  done
done

# One row per run, in engine time: latencies are real ms x TIME_SCALE, requests/s are real ones / TIME_SCALE. The
# last column: decisions on each view the gateway reported, and the mean |predicted - cached| / prompt tokens.
{
  printf '| Run | Requests answered | Hit rate | TTFT p50 (ms) | TTFT p90 (ms) | TTFT p99 (ms) | Requests/s | Busiest worker share of prompt tokens | Routing view: decisions (gap) |\n'
  printf '|---|---:|---:|---:|---:|---:|---:|---:|---|\n'
  for run in "${runs[@]}"; do
    jq -r --arg p "$run" --argjson t "$TIME_SCALE" --argjson r "$RATE_SCALE" '
      "| \($p) | \(.requests.succeeded) of \(.requests.sent) | \(.cacheHitRate.fromEngines * 10000 | round / 100)% | "
      + "\(.timeToFirstToken.p50Ms * $t | round) | \(.timeToFirstToken.p90Ms * $t | round) | "
      + "\(.timeToFirstToken.p99Ms * $t | round) | \(.throughput.requestsPerSecond / $t * 1000 | round / 1000) | "
      + "\([.workers[].tokenShare] | max * 1000 | round / 10)% | "
      + ([.routingViews | to_entries[] | "\(.key) \(.value.requests) (\(.value.meanGap * 10000 | round / 100)%)"]
         | join(", ")) + " |"' "$out/$run.json"
  done
} | tee "$out/table.md"

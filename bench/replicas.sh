#!/usr/bin/env bash
# Gateway replicas behind HAProxy round robin, kept in step through a real nats-server, beside one gateway and beside
# replicas without sync: the multi-turn workload on simulated engines driven by `homing bench`. See
# docs/BENCHMARKS.md, "Gateway replicas", and docs/FAULTS.md, "Replicas: the bus goes away".
#
#   bench/replicas.sh [OUT_DIR]         (default OUT_DIR: results/replicas)
#
# Five runs, each with freshly started engines (empty caches) and the same workload:
#   one      one gateway
#   sync     REPLICAS replicas with --replica-sync, behind HAProxy round robin
#   nosync   REPLICAS independent replicas behind the same HAProxy
#   busdown  as sync; nats-server is killed DOWN_AT s into the run and started again UP_AT s in
#   late     as sync; one replica more starts LATE_AT s into the run (HAProxy sends to it once /readiness says so)
# Every process started here is stopped by PID on exit; each run has a duration cap.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${RUNS:-"one sync nosync busdown late"}
WORKERS=${WORKERS:-4}
KV_TOKENS=${KV_TOKENS:-6000}
REPLICAS=${REPLICAS:-4}
RATE=${RATE:-1}              # conversations started per second (2 overloads four engines on 2 cores)
DURATION=${DURATION:-90}     # seconds of load in each run
DOWN_AT=${DOWN_AT:-30}
UP_AT=${UP_AT:-60}
LATE_AT=${LATE_AT:-30}
POLICY=${POLICY:-load_aware_affinity}
BASE_PORT=${BASE_PORT:-18700}
NATS_SERVER=${NATS_SERVER:-$(command -v nats-server || echo /usr/sbin/nats-server)}

. "$repo/bench/processes.sh"
out=$(out_dir "${1:-$repo/results/replicas}")
for tool in jq curl haproxy "$NATS_SERVER"; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install jq curl haproxy nats-server)" >&2; exit 1; }
done
[ -f "$repo/homing-cli/target/homing.jar" ] || (cd "$repo" && ./mvnw -q package -DskipTests)
homing="$repo/bin/homing"

engine_urls=()
for ((i = 0; i < WORKERS; i++)); do engine_urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
workers=$(IFS=,; echo "${engine_urls[*]}")
proxy_port=$((BASE_PORT + 50))
nats_port=$((BASE_PORT + 60))
nats_url="nats://127.0.0.1:$nats_port"
gateway_port() { echo $((BASE_PORT + 20 + 2 * $1)); }
metrics_port() { echo $((BASE_PORT + 21 + 2 * $1)); }

start_engines() {
  for ((i = 0; i < WORKERS; i++)); do
    "$homing" sim-engine --host 127.0.0.1 --port $((BASE_PORT + i)) --kv-tokens "$KV_TOKENS" \
      >"$out/logs/$run-engine-$i.log" 2>&1 &
    pids+=($!); run_pids+=($!)
  done
  for url in "${engine_urls[@]}"; do wait_ok "$url/health" 60; done
}

start_nats() {
  "$NATS_SERVER" -a 127.0.0.1 -p "$nats_port" >"$out/logs/$run-nats-$1.log" 2>&1 &
  nats_pid=$!; pids+=($nats_pid); run_pids+=($nats_pid)
  local deadline=$((SECONDS + 30))
  until grep -q "Server is ready" "$out/logs/$run-nats-$1.log"; do
    [ $SECONDS -lt $deadline ] || { echo "nats-server did not start" >&2; return 1; }
    sleep 0.05
  done
}

# start_gateway I [SYNC]: gateway I, with --replica-sync when SYNC is given; waits for /readiness.
start_gateway() {
  local sync=()
  [ -z "${2:-}" ] || sync=(--replica-sync "$nats_url")
  "$homing" launch --host 127.0.0.1 --port "$(gateway_port "$1")" --prometheus-host 127.0.0.1 \
    --prometheus-port "$(metrics_port "$1")" --worker-urls "$workers" --policy "$POLICY" "${sync[@]}" \
    >"$out/logs/$run-gateway-$1.log" 2>&1 &
  pids+=($!); run_pids+=($!)
  gateway_pids[$1]=$!
}

ready() { wait_ok "http://127.0.0.1:$(gateway_port "$1")/readiness" 60; }

# start_proxy N: HAProxy round robin over gateways 0..N-1, each checked on /readiness every 500 ms (out after 3 failures, in after 1 success).
start_proxy() {
  local servers="" i
  for ((i = 0; i < $1; i++)); do
    servers+="  server g$i 127.0.0.1:$(gateway_port "$i") check inter 500ms fall 3 rise 1"$'\n'
  done
  sed -e "s/@MAXCONN@/4096/g" -e "s/@PORT@/$proxy_port/" \
    -e "s|@BALANCE@|  balance roundrobin\n  option httpchk GET /readiness\n  option redispatch\n  retries 3|" \
    -e "/@SERVERS@/{r /dev/stdin" -e "d}" "$repo/bench/haproxy.cfg.in" <<<"$servers" >"$out/logs/$run-haproxy.cfg"
  haproxy -f "$out/logs/$run-haproxy.cfg" >"$out/logs/$run-haproxy.log" 2>&1 &
  pids+=($!); run_pids+=($!)
  wait_ok "http://127.0.0.1:$proxy_port/health" 30
}

# sample_engines FILE: every 2 s, seconds since the start and the engines' summed prompt and cached tokens.
sample_engines() {
  local start=$SECONDS
  while true; do
    local prompt=0 cached=0 url p c
    for url in "${engine_urls[@]}"; do
      read -r p c < <({ curl -s "$url/metrics" || true; } | awk '/^sglang:prompt_tokens_total/ {p=$2} /^sglang:cached_tokens_total/ {c=$2} END {print p+0, c+0}')
      prompt=$(awk -v a="$prompt" -v b="$p" 'BEGIN { print a + b }'); cached=$(awk -v a="$cached" -v b="$c" 'BEGIN { print a + b }')
    done
    echo "$((SECONDS - start)) $prompt $cached" >>"$1"
    sleep 2
  done
}

# sample_gateway I FILE: every second, seconds since the run's start and gateway I's prompt and cached tokens.
sample_gateway() {
  while true; do
    { curl -s "http://127.0.0.1:$(metrics_port "$1")/metrics" || true; } | awk -v t=$((SECONDS - run_start)) '
      /^homing_prompt_tokens_total/ {p += $2} /^homing_cached_tokens_total/ {c += $2} END {print t, p+0, c+0}' >>"$2"
    sleep 1
  done
}

bench() {
  "$homing" bench --url "http://127.0.0.1:$proxy_port" --workload multi-turn --rate "$RATE" --max-requests 100000 \
    --duration "$DURATION" --engine-urls "$workers" --output "$out/$run.json" >"$out/logs/$run-bench.log" 2>&1
}

for run in $RUNS; do
  run_pids=(); gateway_pids=()
  log "$run: starting $WORKERS engines"
  start_engines
  case $run in
    one)
      start_gateway 0; ready 0; start_proxy 1 ;;
    nosync)
      for ((g = 0; g < REPLICAS; g++)); do start_gateway "$g"; done
      for ((g = 0; g < REPLICAS; g++)); do ready "$g"; done
      start_proxy "$REPLICAS" ;;
    sync | busdown | late)
      start_nats 0
      for ((g = 0; g < REPLICAS; g++)); do start_gateway "$g" sync; done
      for ((g = 0; g < REPLICAS; g++)); do ready "$g"; done
      start_proxy $([ "$run" = late ] && echo $((REPLICAS + 1)) || echo "$REPLICAS") ;;
  esac
  log "$run: load for $DURATION s"
  run_start=$SECONDS
  sample_engines "$out/$run.engines" & sampler=$!; pids+=($sampler)
  if [ "$run" = late ]; then
    for ((g = 0; g <= REPLICAS; g++)); do sample_gateway "$g" "$out/$run.gateway-$g" & pids+=($!); samplers+=($!); done
  fi
  bench & bench_pid=$!; pids+=($bench_pid)
  case $run in
    busdown)
      sleep "$DOWN_AT"; log "busdown: killing nats-server"; stop "$nats_pid"
      sleep $((UP_AT - DOWN_AT)); log "busdown: starting nats-server again"; start_nats 1 ;;
    late)
      sleep "$LATE_AT"; log "late: starting replica $REPLICAS"; start_gateway "$REPLICAS" sync ;;
  esac
  wait "$bench_pid" || true
  stop "$sampler"
  for pid in ${samplers[@]+"${samplers[@]}"}; do stop "$pid"; done; samplers=()
  for ((g = 0; g <= REPLICAS; g++)); do
    curl -s "http://127.0.0.1:$(metrics_port "$g")/metrics" >"$out/$run.gateway-$g.metrics" 2>/dev/null || true
  done
  for pid in "${run_pids[@]}"; do stop "$pid"; done
done

# The table: hit rate from the engines' counters, TTFT from the load tool; requests still in flight at the duration
# cap are cancelled by the load tool and counted apart from errors.
{
  printf '| Run | Requests answered | Errors | Cut at the cap | Hit rate | TTFT p50 (ms) | TTFT p99 (ms) | Busiest worker share |\n'
  printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
  for run in $RUNS; do
    jq -r --arg r "$run" '
      "| \($r) | \(.requests.succeeded) of \(.requests.sent) | \(.requests.failed - .requests.cancelled) | "
      + "\(.requests.cancelled) | \(.cacheHitRate.fromEngines * 1000 | round / 1000) | "
      + "\(.timeToFirstToken.p50Ms | round) | \(.timeToFirstToken.p99Ms | round) | "
      + "\([.workers[].tokenShare] | max * 1000 | round / 10)% |"' "$out/$run.json"
  done
} | tee "$out/table.md"

# Hit rate per 10 s window over the engines, for the bus-down run: it falls while the bus is away, and comes back.
if [ -f "$out/busdown.engines" ]; then
  echo; echo "busdown: hit rate of each 10 s window (NATS down from ${DOWN_AT} s to ${UP_AT} s)"
  awk '{ w = int($1 / 10); if (!(w in p0)) { p0[w] = $2; c0[w] = $3 } p1[w] = $2; c1[w] = $3; if (w > max) max = w }
       END { for (w = 0; w <= max; w++) { dp = p1[w] - (w > 0 ? p1[w-1] : 0); dc = c1[w] - (w > 0 ? c1[w-1] : 0);
             printf "  %3d-%3d s  %.3f\n", w * 10, w * 10 + 10, (dp > 0 ? dc / dp : 0) } }' "$out/busdown.engines"
  grep -h '^homing_replica_sync_transitions_total' "$out"/busdown.gateway-*.metrics | sort | uniq -c || true
fi | tee "$out/busdown.md"

# The late replica's hit rate beside the others', from its start: the first 10 s and after.
if [ -f "$out/late.gateway-$REPLICAS" ]; then
  echo; echo "late: hit rate of the decisions of the replica started at ${LATE_AT} s, beside the others'"
  for ((g = 0; g <= REPLICAS; g++)); do
    awk -v from="$LATE_AT" -v g="$g" '
      $1 >= from && !s0 { s0 = 1; p0 = $2; c0 = $3 } $1 >= from + 10 && !s1 { s1 = 1; p1 = $2; c1 = $3 } { p2 = $2; c2 = $3 }
      END { printf "  replica %d: first 10 s %.3f (%d prompt tokens), after %.3f (%d)\n", g,
            (p1 > p0 ? (c1 - c0) / (p1 - p0) : 0), p1 - p0, (p2 > p1 ? (c2 - c1) / (p2 - p1) : 0), p2 - p1 }' \
      "$out/late.gateway-$g"
  done
fi | tee "$out/late.md"

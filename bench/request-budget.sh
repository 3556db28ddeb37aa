#!/usr/bin/env bash
# The gateway's per-request budget: CPU microseconds (the process, and its event loop alone) and bytes the event loop
# allocates per proxied request, for one or more builds measured interleaved, with an optional profile split by stage.
# See docs/BENCHMARKS.md, "Per-request budget".
#
#   bench/request-budget.sh [OUT_DIR] [LABEL=LAUNCHER[:FLAG,FLAG...] ...]
#       (default OUT_DIR: results/request-budget; default build: this checkout's bin/homing, labelled "this")
#
# Layout: the gateway alone on PROXY_CPU (0), one simulated engine and wrk (-c32, small non-streaming chat
# completions) on LOAD_CPU (1). Per build and round: WARM_SECS of load, then MEASURE_SECS measured. The event loop's
# CPU and allocated bytes come from `jcmd Thread.print -e` before and after the measured window (the event loop does
# all the request work; the JIT and the metrics thread are in the process figure only). The load core saturates
# before the gateway's in this layout, so every build serves about the same rate and its CPU a request is comparable.
# PROFILE=1 adds async-profiler's CPU samples of the measured window (ASYNC_PROFILER: libasyncProfiler.so, from
# tools.profiler:async-profiler on Maven Central; PROFILE_INTERVAL, 1ms), split by stage with bench/profile-stages.awk.
# The profile costs the epoll transport more than io_uring (its signals cut into more system calls: at 200us the
# epoll build's CPU a request tripled), so the budget's figures come from a run without it.
# SEQUENTIAL=N: the measured window is one sequential client instead (RoundRobinLoad, small non-streaming /generate
# answers of one token, SEQ_WARMUP requests then N measured, the gateway's CPU taken over both), then the same client
# straight to the engine: the budget of a request that has the gateway to itself, and its added p50 (sequential.tsv).
# ENGINE_FLAGS adds flags to the engine; with EXACT=1 it publishes its KV events and tokenizes with the demo
# tokenizer, and every build gets --tokenizer-path demo, so the gateway tokenizes each request and routes on the exact
# view (see docs/BENCHMARKS.md, "Exact view from KV events"); CHAT_SCRIPT replaces bench/chat-post.lua.
# Every process started here is stopped by PID on exit.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$repo/bench/processes.sh"
out=$(out_dir "${1:-$repo/results/request-budget}")
shift || true
builds=("$@")
[ ${#builds[@]} -gt 0 ] || builds=("this=$repo/bin/homing")
ROUNDS=${ROUNDS:-2}
WARM_SECS=${WARM_SECS:-15}
MEASURE_SECS=${MEASURE_SECS:-10}
BASE_PORT=${BASE_PORT:-18500}
CHAT_SCRIPT=${CHAT_SCRIPT:-$repo/bench/chat-post.lua}
exact_flags=()
if [ "${EXACT:-0}" = 1 ]; then
  ENGINE_FLAGS="${ENGINE_FLAGS:-} --tokenizer-path demo --kv-events-config {\"publisher\":\"zmq\",\"endpoint\":\"tcp://127.0.0.1:0\",\"topic\":\"kv-events\"}"
  exact_flags=(--tokenizer-path demo)
fi
engine_port=$((BASE_PORT + 1)); port=$((BASE_PORT + 10))
needs_homing "$repo"
. "$repo/bin/jdk.sh"
homing_find_java
jcmd="$(dirname "$HOMING_JAVA")/jcmd"
command -v wrk >/dev/null || { echo "needs wrk (Debian: apt-get install wrk)" >&2; exit 1; }
for build in "${builds[@]}"; do launcher=${build#*=}; HOMING_AOT=record "${launcher%%:*}" --version >/dev/null; done

# event_loop PID: "cpu_ms allocated_bytes" summed over the gateway's event-loop threads.
event_loop() {
  "$jcmd" "$1" Thread.print -e 2>/dev/null | awk '/^"vert\.x-eventloop-thread/ {
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^cpu=/) { v = $i; sub(/^cpu=/, "", v); sub(/ms$/, "", v); cpu += v }
        if ($i ~ /^allocated=/) { v = $i; sub(/^allocated=/, "", v)
          m = 1; if (v ~ /K$/) m = 1024; else if (v ~ /M$/) m = 1048576; else if (v ~ /G$/) m = 1073741824
          sub(/[BKMG]$/, "", v); bytes += v * m }
      } } END { printf "%.1f %.0f\n", cpu, bytes }'
}
process_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

taskset -c "$LOAD_CPU" "$homing" sim-engine --host 127.0.0.1 --port "$engine_port" --time-scale 1000 \
    --max-running-requests 1024 --kv-tokens 2000000 ${ENGINE_FLAGS:-} >"$out/logs/engine.log" 2>&1 &
pids+=($!)
wait_ok "http://127.0.0.1:$engine_port/health" 60
results="$out/budget.tsv"
printf 'build\tround\trequests_per_s\tprocess_us_per_req\tevent_loop_us_per_req\tevent_loop_bytes_per_req\n' >"$results"
SEQ_WARMUP=${SEQ_WARMUP:-3000}
# sequential URL NAME: the sequential client against URL, its figures in json/NAME.json.
sequential() {
  mkdir -p "$out/json"
  taskset -c "$LOAD_CPU" "$HOMING_JAVA" -XX:+UseSerialGC -cp "$repo/homing-cli/target/homing.jar" \
      "${SEQUENTIAL_CLIENT[@]}" --urls "$1" --warmup-requests "$SEQ_WARMUP" --max-requests "$SEQUENTIAL" \
      --output "$out/json/$2.json" >"$out/logs/$2.log" 2>&1
}
p50() { jq -r .endToEnd.p50Ms "$out/json/$1.json"; }
if [ -n "${SEQUENTIAL:-}" ]; then
  results="$out/sequential.tsv"
  printf 'build\tround\tproxied_p50_ms\tdirect_p50_ms\tadded_p50_ms\tprocess_us_per_req\tevent_loop_us_per_req\tevent_loop_bytes_per_req\n' >"$results"
fi
hz=$(getconf CLK_TCK)
for ((round = 1; round <= ROUNDS; round++)); do
  for build in "${builds[@]}"; do
    label=${build%%=*} spec=${build#*=}
    launcher=${spec%%:*} flags=()
    [[ $spec == *:* ]] && IFS=, read -r -a flags <<<"${spec#*:}"
    log "$label, round $round"
    taskset -c "$PROXY_CPU" "$launcher" launch --host 127.0.0.1 --port "$port" --prometheus-port -1 \
        --worker-urls "http://127.0.0.1:$engine_port" --log-level warn "${exact_flags[@]}" "${flags[@]}" >"$out/logs/$label-$round.log" 2>&1 &
    gateway=$!; pids+=("$gateway")
    ready "$port" 1
    taskset -c "$LOAD_CPU" wrk -t1 -c32 -d"${WARM_SECS}s" -s "$CHAT_SCRIPT" \
        "http://127.0.0.1:$port/v1/chat/completions" >/dev/null
    read -r cpu0 bytes0 <<<"$(event_loop "$gateway")"
    ticks0=$(process_ticks "$gateway")
    # The options in quotes: jcmd would read an unquoted "a=b" as an argument of its own named a.
    [ "${PROFILE:-0}" = 1 ] && "$jcmd" "$gateway" JVMTI.agent_load "$ASYNC_PROFILER" \
        "\"start,event=cpu,interval=${PROFILE_INTERVAL:-1ms},threads\"" >/dev/null
    if [ -n "${SEQUENTIAL:-}" ]; then
      sequential "http://127.0.0.1:$port" "$label-$round"
    else
      taskset -c "$LOAD_CPU" wrk -t1 -c32 -d"${MEASURE_SECS}s" -s "$CHAT_SCRIPT" \
          "http://127.0.0.1:$port/v1/chat/completions" >"$out/logs/$label-$round.wrk"
    fi
    [ "${PROFILE:-0}" = 1 ] && "$jcmd" "$gateway" JVMTI.agent_load "$ASYNC_PROFILER" \
        "\"stop,file=$out/$label-$round.collapsed\"" >/dev/null
    ticks1=$(process_ticks "$gateway")
    read -r cpu1 bytes1 <<<"$(event_loop "$gateway")"
    stop "$gateway"
    # The leading columns: the sequential client's p50s, proxied and straight to the engine seconds after (the added
    # p50 is against the engine's latency of the same minute); wrk's requests a second. Then the budget a request.
    if [ -n "${SEQUENTIAL:-}" ]; then
      n=$((SEQ_WARMUP + SEQUENTIAL))
      sequential "http://127.0.0.1:$engine_port" "direct-$label-$round"
      lead=$(awk -v p="$(p50 "$label-$round")" -v d="$(p50 "direct-$label-$round")" \
          'BEGIN { printf "%.3f\t%.3f\t%+.3f", p, d, p - d }')
    else
      n=$(awk '/requests in/ {print $1}' "$out/logs/$label-$round.wrk")
      lead=$(awk -v n="$n" -v s="$MEASURE_SECS" 'BEGIN { printf "%.0f", n / s }')
    fi
    awk -v l="$label" -v r="$round" -v lead="$lead" -v n="$n" -v t=$((ticks1 - ticks0)) -v hz="$hz" \
        -v c0="$cpu0" -v c1="$cpu1" -v b0="$bytes0" -v b1="$bytes1" \
        'BEGIN { printf "%s\t%s\t%s\t%.1f\t%.1f\t%.0f\n", l, r, lead, t / hz * 1e6 / n, (c1 - c0) * 1e3 / n,
                 (b1 - b0) / n }' >>"$results"
    if [ "${PROFILE:-0}" = 1 ]; then
      grep '^\[vert.x-eventloop-thread' "$out/$label-$round.collapsed" | awk -f "$repo/bench/profile-stages.awk" |
          sort -t% -k1 -rn >"$out/$label-$round.stages"
    fi
  done
done
column -t -s $'\t' "$results"

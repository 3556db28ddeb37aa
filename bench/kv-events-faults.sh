#!/usr/bin/env bash
# How fast the gateway stops trusting one engine's KV events when they fail, and trusts them again when they flow:
# simulated engines publishing their events, the gateway subscribed (--kv-events auto), steady load, and one fault of
# the first engine's stream at a time. See docs/BENCHMARKS.md, "Faults in the event streams".
#
#   bench/kv-events-faults.sh [OUT_DIR]         (default OUT_DIR: results/kv-events-faults)
#
# Faults, each ROUNDS times, through the engine's admin switches (docs/SIM_ENGINE.md):
#   drop     POST /kv_events/drop, then /kv_events/resume  (batches lost on the wire, kept for replay)
#   restart  POST /kv_events/stop, then /kv_events/restart and /kv_events/start  (engine down, back with no cache)
#   stop     POST /kv_events/stop, then /kv_events/start  (the publisher killed, then started again)
# Each fault lasts FAULT_SECS after GET /kv_events (polled every POLL_MS) shows the worker other than exact, and the
# next round starts once it shows exact again. The figures come from the logs, on one clock: from the engine's line
# for a switch to the gateway's line for the worker's change of state, and to the first decision on that worker made
# in the new view (its access line's time less total_ms). The polled times (polled.tsv) add the polling's own delay,
# a curl and a jq a poll. CLIENTS loops of curl send chats with prompts no request sent before, all the while; every
# answer other than 200 counts as failed. Every process started here is stopped by PID on exit; the load stops after
# MAX_REQUESTS per client or the script's end.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$repo/bench/processes.sh"
needs_homing "$repo"
out=$(out_dir "${1:-$repo/results/kv-events-faults}")
WORKERS=${WORKERS:-4}
ROUNDS=${ROUNDS:-3}
FAULT_SECS=${FAULT_SECS:-4}
SILENCE_MS=${SILENCE_MS:-1000}
TIME_SCALE=${TIME_SCALE:-20}
CLIENTS=${CLIENTS:-4}
MAX_REQUESTS=${MAX_REQUESTS:-20000}
POLL_MS=${POLL_MS:-20}
BASE_PORT=${BASE_PORT:-18700}
FAULTS=${FAULTS:-"drop restart stop"}

gateway_port=$((BASE_PORT + 100)); metrics_port=$((BASE_PORT + 101))
urls=()
for ((i = 0; i < WORKERS; i++)); do
  port=$((BASE_PORT + i)); urls+=("http://127.0.0.1:$port")
  "$homing" sim-engine --host 127.0.0.1 --port "$port" --model-name sim-model --time-scale "$TIME_SCALE" --tokenizer-path demo \
    --kv-events-config "{\"endpoint\":\"tcp://127.0.0.1:$((BASE_PORT + 20 + i))\",\"replay_endpoint\":\"tcp://127.0.0.1:$((BASE_PORT + 40 + i))\",\"topic\":\"kv-events\"}" \
    >"$out/logs/engine-$i.log" 2>&1 &
  pids+=($!)
done
worker_urls=$(IFS=,; echo "${urls[*]}")
for url in "${urls[@]}"; do wait_ok "$url/health" 60; done
"$homing" launch --host 127.0.0.1 --port "$gateway_port" --prometheus-host 127.0.0.1 --prometheus-port "$metrics_port" \
  --worker-urls "$worker_urls" --policy cache_aware --kv-events auto --kv-events-silence-ms "$SILENCE_MS" \
  --tokenizer-path demo --admin-api-key kv-events-faults >"$out/logs/gateway.log" 2>&1 &
pids+=($!)
ready "$gateway_port" "$WORKERS"
faulted=${urls[0]}

kv_events() { curl -s -H 'authorization: Bearer kv-events-faults' "http://127.0.0.1:$gateway_port/kv_events"; }
# state WORKER: its KV event state as GET /kv_events reports it.
state() { kv_events | jq -r --arg w "$1" '.workers[] | select(.worker == $w) | .state'; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# until_state WORKER exact|not-exact: polls until the state matches (60 s at most); prints the milliseconds waited.
until_state() {
  local start; start=$(now_ms)
  local deadline=$((start + 60000))
  while true; do
    local s; s=$(state "$1")
    if { [ "$2" = exact ] && [ "$s" = exact ]; } || { [ "$2" = not-exact ] && [ -n "$s" ] && [ "$s" != exact ]; }; then
      echo $(($(now_ms) - start)); return
    fi
    [ "$(now_ms)" -lt $deadline ] || { echo "never $2" >&2; echo -1; return; }
    sleep "$(awk -v p="$POLL_MS" 'BEGIN { print p / 1000 }')"
  done
}
engine_switch() { curl -s -o /dev/null -w '%{http_code}' -X POST "$faulted/kv_events/$1" | grep -q 200; }

log "load: $CLIENTS clients of chats with prompts never sent before"
: >"$out/statuses"
rm -f "$out/stop-load"
for ((c = 0; c < CLIENTS; c++)); do
  (for ((n = 0; n < MAX_REQUESTS; n++)); do
     [ -e "$out/stop-load" ] && break
     curl -s -o /dev/null -w '%{http_code}\n' -H 'content-type: application/json' \
       "http://127.0.0.1:$gateway_port/v1/chat/completions" -d "{\"model\":\"sim-model\",\"max_tokens\":2,\"messages\":[{\"role\":\"user\",\"content\":\"Client $c, question $n: which harbour did ship $RANDOM leave, and what cargo did its crew of $RANDOM carry past lighthouse $RANDOM?\"}]}" \
       >>"$out/statuses" || echo 000 >>"$out/statuses"
   done) &
  pids+=($!)
done
for url in "${urls[@]}"; do
  [ "$(until_state "$url" exact)" -ge 0 ] || { echo "$url never turned exact" >&2; exit 1; }
done

printf 'fault\tround\tto_approximate_ms\tto_exact_ms\n' >"$out/polled.tsv"
for fault in $FAULTS; do
  for ((round = 1; round <= ROUNDS; round++)); do
    case $fault in
      drop) engine_switch drop ;;
      restart|stop) engine_switch stop ;;
    esac
    to_approximate=$(until_state "$faulted" not-exact)
    sleep "$FAULT_SECS"
    case $fault in
      drop) engine_switch resume ;;
      restart) engine_switch restart; engine_switch start ;;
      stop) engine_switch start ;;
    esac
    to_exact=$(until_state "$faulted" exact)
    others=$(kv_events | jq -r --arg w "$faulted" '[.workers[] | select(.worker != $w) | .state] | unique | join(",")')
    log "$fault, round $round: polled approximate after $to_approximate ms, exact again after $to_exact ms" \
      "(others: $others)"
    printf '%s\t%s\t%s\t%s\n' "$fault" "$round" "$to_approximate" "$to_exact" >>"$out/polled.tsv"
    sleep 2
  done
done
touch "$out/stop-load"
curl -s "http://127.0.0.1:$metrics_port/metrics" >"$out/gateway.metrics"
sleep 1

# The switches, read from the logs (one clock): the engine's line for each switch; the gateway's WARN or INFO for the
# worker's state; its access log for each decision (made at the line's time less total_ms) and its view.
ms() { awk '{ split(substr($1, 12, 12), t, ":"); printf "%.0f", (t[1] * 3600 + t[2] * 60 + t[3]) * 1000 }'; }
{
  grep -E 'KV events (drop|resume|stop|start)$' "$out/logs/engine-0.log" | while read -r line; do
    printf '%s switch %s\n' "$(ms <<<"$line")" "${line##* }"; done
  grep -F "worker $faulted: KV events" "$out/logs/gateway.log" | while read -r line; do
    case $line in *"routing on its exact view"*) s=exact ;; *) s=approximate ;; esac
    printf '%s state %s\n' "$(ms <<<"$line")" "$s"; done
  grep -F "worker=$faulted " "$out/logs/gateway.log" | grep -F 'route=/v1/chat' | while read -r line; do
    total=${line##*total_ms=}; view=${line##* view=}; view=${view%% *}
    printf '%s decision %s\n' "$(awk -v t="$(ms <<<"$line")" -v d="$total" 'BEGIN { printf "%.0f", t - d }')" "$view"
  done
} | sort -n -k1,1 | awk -v faults="$FAULTS" -v rounds="$ROUNDS" '
  BEGIN { n = split(faults, f, " "); printf "fault\tround\tstate_to_approximate_ms\tdecision_to_approximate_ms\tstate_to_exact_ms\tdecision_to_exact_ms\n" }
  $2 == "switch" && ($3 == "drop" || $3 == "stop") { i++; begin = $1; phase = "fault"; s1[i] = d1[i] = -1; next }
  $2 == "switch" { end = $1; phase = "recovery"; s2[i] = d2[i] = -1; next }
  phase == "fault" && $2 == "state" && $3 == "approximate" && s1[i] < 0 { s1[i] = $1 - begin }
  phase == "fault" && $2 == "decision" && $3 == "approximate" && d1[i] < 0 && $1 >= begin { d1[i] = $1 - begin }
  phase == "recovery" && $2 == "state" && $3 == "exact" && s2[i] < 0 { s2[i] = $1 - end }
  phase == "recovery" && $2 == "decision" && $3 == "exact" && d2[i] < 0 && $1 >= end { d2[i] = $1 - end }
  END { for (k = 1; k <= i; k++) printf "%s\t%d\t%d\t%d\t%d\t%d\n", f[int((k - 1) / rounds) + 1], (k - 1) % rounds + 1,
    s1[k], d1[k], s2[k], d2[k] }' >"$out/switches-from-logs.tsv"

sent=$(wc -l <"$out/statuses"); failed=$(grep -vc '^200$' "$out/statuses" || true)
# median and max of a column of switches-from-logs.tsv for one fault
stat() { awk -F'\t' -v f="$1" -v c="$2" 'NR > 1 && $1 == f { x[++n] = $c }
  END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
        printf "%d / %d", n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2, x[n] }' "$out/switches-from-logs.tsv"; }
{
  printf '| Fault | Rounds | State to approximate (ms, median / max) | First approximate decision | State to exact again | First exact decision again |\n'
  printf '|---|---:|---:|---:|---:|---:|\n'
  for fault in $FAULTS; do
    printf '| %s | %d | %s | %s | %s | %s |\n' "$fault" "$ROUNDS" "$(stat "$fault" 3)" "$(stat "$fault" 4)" \
      "$(stat "$fault" 5)" "$(stat "$fault" 6)"
  done
  printf '\nRequests: %d sent, %d failed. Silence limit %d ms. Times from the switch on the engine to the gateway'"'"'s\n' \
    "$sent" "$failed" "$SILENCE_MS"
  printf 'log line of the state change, and to the first decision on that worker made in the new view.\n'
} | tee "$out/table.md"
grep -E '^homing_(kv_events_worker_state|kv_event_gaps_total|routing_view_total)' "$out/gateway.metrics" \
  | grep -F "${faulted}" >"$out/faulted-worker.metrics" || true

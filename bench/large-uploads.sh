#!/usr/bin/env bash
# Large uploads at once: four clients POST 200 MB bodies to one gateway with a 512 MiB heap, two with their
# Content-Length and two chunked, the way the issue sent them (curl, no Expect: 100-continue, so the body goes at
# once). Prints each client's status, time and bytes sent, the gateway's peak heap in use (its JVM metrics, sampled
# every 250 ms) and its peak resident memory (VmHWM). See docs/FAULTS.md, "Edges under load".
#
#   bench/large-uploads.sh [LAUNCHER]     (default: bin/homing of this checkout)
#
# SIZE_MB (200), CLIENTS (4), HEAP (512m), BODY_MEMORY (the gateway's default when empty) and MAX_SECS (120, each
# client's timeout) change the run; BASE_PORT (19400) the ports. Every process started here is stopped by PID on exit.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
launcher=${1:-$repo/bin/homing}
SIZE_MB=${SIZE_MB:-200}
CLIENTS=${CLIENTS:-4}
HEAP=${HEAP:-512m}
BODY_MEMORY=${BODY_MEMORY:-}
MAX_SECS=${MAX_SECS:-120}
BASE_PORT=${BASE_PORT:-19400}
engine_port=$((BASE_PORT + 1)); port=$((BASE_PORT + 10)); metrics_port=$((BASE_PORT + 11))

. "$repo/bench/processes.sh"

scratch_dir
# The body: a completion of one long prompt, with a stray closing brace after the object: the gateway must read it
# whole to refuse it (400), and no engine spends minutes on a prompt of millions of tokens.
python3 -c "
import sys
size = int(sys.argv[1]) * 1000 * 1000
head, tail = b'{\"model\":\"nobody\",\"prompt\":\"', b'\"}}'
with open(sys.argv[2], 'wb') as f:
    f.write(head)
    left = size - len(head) - len(tail)
    block = b'x' * (1 << 20)
    while left > 0:
        f.write(block[:min(left, len(block))])
        left -= len(block)
    f.write(tail)
" "$SIZE_MB" "$work/body.json"

HOMING_JAVA_OPTS="-Xmx256m" "$launcher" sim-engine --host 127.0.0.1 --port "$engine_port" \
    >"$work/engine.log" 2>&1 &
pids+=($!)
wait_ok "http://127.0.0.1:$engine_port/health" 60
extra=()
[ -z "$BODY_MEMORY" ] || extra=(--max-body-memory "$BODY_MEMORY")
HOMING_JAVA_OPTS="-Xmx$HEAP" "$launcher" launch --host 127.0.0.1 --port "$port" --prometheus-host 127.0.0.1 \
    --prometheus-port "$metrics_port" --worker-urls "http://127.0.0.1:$engine_port" "${extra[@]}" \
    >"$work/gateway.log" 2>&1 &
gateway=$!
pids+=("$gateway")
wait_ok "http://127.0.0.1:$port/readiness" 60
java_pid=$(pgrep -P "$gateway" java || echo "$gateway")

# Heap in use, as the gateway's own JVM metrics report it, every 250 ms until the clients are done.
( while :; do
    curl -s --max-time 5 "http://127.0.0.1:$metrics_port/metrics" \
      | awk '/^jvm_memory_used_bytes\{area="heap"/ {s += $2} END {if (s) printf "%d\n", s}'
    sleep 0.25
  done ) >"$work/heap.txt" 2>/dev/null &
sampler=$!
pids+=("$sampler")

start=$(date +%s%N)
for ((i = 0; i < CLIENTS; i++)); do
  framing=(-H "Content-Type: application/json")
  kind=declared
  if [ $((i % 2)) = 1 ]; then framing+=(-H "Transfer-Encoding: chunked"); kind=chunked; fi
  curl -s -o "$work/answer-$i.json" -w "client $i $kind: status %{http_code}, %{time_total} s, %{size_upload} bytes sent\n" \
      --max-time "$MAX_SECS" -H "Expect:" "${framing[@]}" --data-binary "@$work/body.json" \
      "http://127.0.0.1:$port/v1/completions" >"$work/client-$i.txt" 2>&1 &
  pids+=($!)
  clients+=($!)
done
for pid in "${clients[@]}"; do wait "$pid" || true; done
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
stop "$sampler"

cat "$work"/client-*.txt
for ((i = 0; i < CLIENTS; i++)); do
  printf 'client %d answer: %s\n' "$i" "$(head -c 200 "$work/answer-$i.json" 2>/dev/null)"
done
echo "all answered in $elapsed_ms ms"
sort -n "$work/heap.txt" | tail -1 | awk '{printf "peak heap in use: %.0f MiB\n", $1 / 1048576}'
awk '/VmHWM/ {printf "peak resident (VmHWM): %.0f MiB\n", $2 / 1024}' "/proc/$java_pid/status"
if grep -q OutOfMemoryError "$work/gateway.log"; then echo "gateway log: OutOfMemoryError"; else echo "gateway log: no OutOfMemoryError"; fi
kill -0 "$java_pid" 2>/dev/null && echo "gateway alive" || echo "gateway died"

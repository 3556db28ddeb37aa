#!/usr/bin/env bash
# Idle sockets against a gateway limited to 1,024 open files: 1,100 connections that send only the HTTP/2 preface to
# the data-plane port and 1,100 that send a partial request head to the metrics port, opened at once and held (never
# reopened) for HOLD_SECS. Meanwhile /health on the data plane is asked every 500 ms (each ask may take up to 15 s)
# and the gateway's open files counted. Prints a line a second (seconds, open files, held sockets still open,
# /health latency) and a summary. See docs/FAULTS.md, "Edges under load".
#
#   bench/socket-flood.sh [LAUNCHER]     (default: bin/homing of this checkout)
#
# HOLD_SECS (30), FILES (1024), H2 (1100), METRICS (1100) change the run; BASE_PORT (19500) the ports. Every process
# started here is stopped by PID on exit.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
launcher=${1:-$repo/bin/homing}
HOLD_SECS=${HOLD_SECS:-30}
FILES=${FILES:-1024}
H2=${H2:-1100}
METRICS=${METRICS:-1100}
BASE_PORT=${BASE_PORT:-19500}
engine_port=$((BASE_PORT + 1)); port=$((BASE_PORT + 10)); metrics_port=$((BASE_PORT + 11))

. "$repo/bench/processes.sh"
scratch_dir

HOMING_JAVA_OPTS="-Xmx256m" "$launcher" sim-engine --host 127.0.0.1 --port "$engine_port" \
    >"$work/engine.log" 2>&1 &
pids+=($!)
wait_ok "http://127.0.0.1:$engine_port/health" 60
# The gateway alone under the file limit; bin/homing records its start-up cache first if it has none.
HOMING_AOT=record "$launcher" --version >/dev/null
( ulimit -n "$FILES"; exec "$launcher" launch --host 127.0.0.1 --port "$port" --prometheus-host 127.0.0.1 \
    --prometheus-port "$metrics_port" --worker-urls "http://127.0.0.1:$engine_port" ) >"$work/gateway.log" 2>&1 &
gateway=$!
pids+=("$gateway")
wait_ok "http://127.0.0.1:$port/readiness" 60
java_pid=$(pgrep -P "$gateway" java || echo "$gateway")

# The held sockets, from one process with room for them all; it prints how many are still open once a second.
python3 - "$port" "$metrics_port" "$H2" "$METRICS" "$HOLD_SECS" >"$work/held.txt" 2>&1 <<'EOF' &
import resource, select, socket, sys, time
port, metrics_port, h2, metrics, hold = (int(a) for a in sys.argv[1:6])
resource.setrlimit(resource.RLIMIT_NOFILE, (h2 + metrics + 256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
partial = b"GET /metrics HTTP/1.1\r\nhost: 127.0.0.1\r\nacc"
poller, held = select.poll(), {}
for target, count, payload in ((port, h2, preface), (metrics_port, metrics, partial)):
    for _ in range(count):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", target))
        held[s.fileno()] = (s, payload)
        poller.register(s, select.POLLOUT)
def drop(fd):
    poller.unregister(fd)
    held.pop(fd)[0].close()
start = last = time.time()
while time.time() - start < hold:
    for fd, event in poller.poll(200):
        if fd not in held:
            continue
        s, payload = held[fd]
        try:
            if event & (select.POLLERR | select.POLLHUP):
                drop(fd)
            elif event & select.POLLOUT:
                s.send(payload)
                poller.modify(fd, select.POLLIN)
            elif not s.recv(65536):
                drop(fd)
        except OSError:
            drop(fd)
    if time.time() - last >= 1:
        last = time.time()
        print(int(last - start), len(held), flush=True)
EOF
holder=$!
pids+=("$holder")

start=$(date +%s%N)
: >"$work/health.txt"
while kill -0 "$holder" 2>/dev/null; do
  t=$((($(date +%s%N) - start) / 1000000))
  files=$(ls "/proc/$java_pid/fd" 2>/dev/null | wc -l)
  latency=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 15 "http://127.0.0.1:$port/health" \
      || true)
  echo "$t $files $latency" >>"$work/health.txt"
  sleep 0.5
done

echo "ms open_files health_status health_seconds (every 500 ms)"
cat "$work/health.txt"
echo "seconds held_sockets_still_open"
cat "$work/held.txt"
awk '{ if ($2 > max) max = $2; if ($3 == "200") { ok++; if ($4 > worst) worst = $4 } else failed++ }
     END { printf "open files at most %d; /health: %d answered (slowest %.2f s), %d failed or timed out\n",
           max, ok, worst, failed }' "$work/health.txt"
kill -0 "$java_pid" 2>/dev/null && echo "gateway alive" || echo "gateway died"

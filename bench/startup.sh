#!/usr/bin/env bash
# Startup to ready: how long `homing launch` takes from process start to the first 200 of /readiness (a worker
# registered), and its RSS once idle. See docs/BENCHMARKS.md, "Startup".
#
#   bench/startup.sh [RUNS] [LAUNCHER...]     (default: 10 runs of bin/homing; several launchers run interleaved)
#
# Two simulated engines run on LOAD_CPU; the gateway is pinned to PROXY_CPU alone, as in bench/proxy-overhead.sh.
# Prints one line per run (launcher, ms to ready, CPU ms the JVM used until then, idle RSS in MB) and
# min/median/max per launcher. The CPU time says what the wall time means on a busy machine: a JVM that waits for its
# core takes longer but uses no more CPU. Every process
# started here is stopped by PID on exit.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-10}
shift || true
launchers=("$@")
[ ${#launchers[@]} -gt 0 ] || launchers=("$repo/bin/homing")
BASE_PORT=${BASE_PORT:-18400}
e1=$((BASE_PORT + 1)); e2=$((BASE_PORT + 2)); port=$((BASE_PORT + 10))
# Seconds the gateway is left idle before its RSS is read.
IDLE_SECS=${IDLE_SECS:-2}

. "$repo/bench/processes.sh"

logs=$(mktemp -d)
# bin/homing records its start-up cache (once per build) in the foreground when asked: here, outside the timed runs.
for launcher in "${launchers[@]}"; do HOMING_AOT=record "$launcher" --version >/dev/null; done
for p in $e1 $e2; do
  taskset -c "$LOAD_CPU" "${launchers[0]}" sim-engine --host 127.0.0.1 --port "$p" >"$logs/engine-$p.log" 2>&1 &
  pids+=($!)
done
for p in $e1 $e2; do wait_ok "http://127.0.0.1:$p/health" 60; done

results="$logs/results.tsv"
for ((run = 1; run <= runs; run++)); do
  for launcher in "${launchers[@]}"; do
    t0=$(date +%s%N)
    taskset -c "$PROXY_CPU" "$launcher" launch --host 127.0.0.1 --port "$port" --prometheus-host 127.0.0.1 \
        --prometheus-port $((port + 1)) --worker-urls "http://127.0.0.1:$e1,http://127.0.0.1:$e2" \
        --log-level warn >"$logs/gateway.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    wait_ok "http://127.0.0.1:$port/readiness" 60
    ms=$((($(date +%s%N) - t0) / 1000000))
    # The launcher may exec java (same PID) or run it as a child: read the java process.
    java_pid=$(pgrep -P "$pid" java || echo "$pid")
    cpu_ms=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%d", ($14 + $15) * 1000 / hz}' "/proc/$java_pid/stat")
    sleep "$IDLE_SECS"
    rss=$(awk '/^VmRSS/ {printf "%d", $2 / 1024}' "/proc/$java_pid/status")
    printf '%s\t%d\t%d\t%d\n' "$launcher" "$ms" "$cpu_ms" "$rss" | tee -a "$results"
    stop "$pid"
  done
done

echo
printf 'launcher\truns\tready_ms min/median/max\tcpu_ms min/median/max\tidle_rss_mb min/median/max\n'
# column N of LAUNCHER's runs as min/median/max
spread() {
  awk -F'\t' -v l="$1" '$1 == l' "$results" | sort -t$'\t' -k"$2,$2"n |
      awk -F'\t' -v c="$2" '{ v[NR] = $c } END { printf "%d/%d/%d", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
for launcher in "${launchers[@]}"; do
  printf '%s\t%d\t%s\t%s\t%s\n' "$launcher" "$(awk -F'\t' -v l="$launcher" '$1 == l' "$results" | wc -l)" \
      "$(spread "$launcher" 2)" "$(spread "$launcher" 3)" "$(spread "$launcher" 4)"
done
rm -rf "$logs"

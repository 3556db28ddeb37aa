# Sourced by the bench scripts. Every process a script starts goes into pids (by PID) and is stopped on exit; stop
# ends one of them early; wait_ok polls a URL, ready a gateway's readiness; scratch_dir, out_dir and log are the
# scripts' common set-up; needs_homing checks for jq and the built jar; SEQUENTIAL_CLIENT is the latency steps' client;
# PROXY_CPU and LOAD_CPU are the pinned benches' cores.
pids=()
scratch=()
cleanup() {
  local pid
  # SIGCONT after SIGTERM: a process a bench stopped (SIGSTOP) between its turns ends too.
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; kill -CONT "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for pid in "${scratch[@]}"; do rm -rf "$pid"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# stop PID: stops a process started here, waits for it, and forgets it (so the exit never signals a reused PID).
stop() {
  local pid kept=()
  kill "$1" 2>/dev/null || true
  kill -CONT "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  for pid in "${pids[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done
  pids=("${kept[@]}")
}

# wait_ok URL SECONDS: polls every 10 ms until URL answers 200; fails after SECONDS.
wait_ok() {
  local deadline=$((SECONDS + $2))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "$1" 2>/dev/null)" = 200 ]; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for $1" >&2; return 1; }
    sleep 0.01
  done
}

# ready PORT N: polls the gateway on PORT every 100 ms until its /readiness reports N healthy workers (60 s at most).
ready() {
  local deadline=$((SECONDS + 60))
  until [ "$(curl -s "http://127.0.0.1:$1/readiness" | jq -r '.healthy_workers // 0' 2>/dev/null)" = "$2" ]; do
    [ $SECONDS -lt $deadline ] || { echo "the gateway never reported $2 healthy workers" >&2; return 1; }
    sleep 0.1
  done
}

# log MESSAGE...: one line on stderr, after the time of day.
log() { printf '%s  %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# The pinned layout of the overhead, budget and start-up benches: the gateway (or proxy) under test alone on PROXY_CPU,
# the load and the engines on LOAD_CPU. Override on a bigger machine.
PROXY_CPU=${PROXY_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}

# The sequential client of the latency steps (a main class and its arguments, for the JVM to run from homing.jar): one
# request at a time, small non-streaming /generate answers of one token (SEQ_ENDPOINT=CHAT: chat completions, whose
# template the gateway applies when it routes on the exact view); add --urls, the counts and --output.
SEQUENTIAL_CLIENT=(dev.homing.bench.overhead.RoundRobinLoad --endpoint "${SEQ_ENDPOINT:-GENERATE}" --no-stream --output-tokens 1
                   --concurrency 1 --warmup-seconds 120 --seconds 120)

# needs_homing REPO: jq is there and the jar built (building it if not); sets homing to the launcher.
needs_homing() {
  command -v jq >/dev/null || { echo "needs jq" >&2; exit 1; }
  [ -f "$1/homing-cli/target/homing.jar" ] || (cd "$1" && ./mvnw -q package -DskipTests)
  homing="$1/bin/homing"
}

# scratch_dir: sets work to a new temporary folder, removed on exit (after the processes are stopped).
scratch_dir() {
  work=$(mktemp -d)
  scratch+=("$work")
}

# out_dir DIR: creates DIR and DIR/logs, and prints DIR's absolute path.
out_dir() {
  mkdir -p "$1/logs" && (cd "$1" && pwd)
}

# Sourced by the bench scripts. Every process a script starts goes into pids (by PID) and is stopped on exit; stop
# ends one of them early; wait_ok polls a URL.
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# stop PID: stops a process started here, waits for it, and forgets it (so the exit never signals a reused PID).
stop() {
  local pid kept=()
  kill "$1" 2>/dev/null || true
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

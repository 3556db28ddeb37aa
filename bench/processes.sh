# Sourced by the bench scripts. Every process a script starts goes into pids (by PID) and is stopped on exit; stop
# ends one of them early; wait_ok polls a URL; scratch_dir, out_dir and log are the scripts' common set-up.
pids=()
scratch=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for pid in "${scratch[@]}"; do rm -rf "$pid"; done
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

# scratch_dir: sets work to a new temporary folder, removed on exit (after the processes are stopped).
scratch_dir() {
  work=$(mktemp -d)
  scratch+=("$work")
}

# out_dir DIR: creates DIR and DIR/logs, and prints DIR's absolute path.
out_dir() {
  mkdir -p "$1/logs" && (cd "$1" && pwd)
}

# log MESSAGE...: MESSAGE on stderr after the time of day.
log() { printf '%s  %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

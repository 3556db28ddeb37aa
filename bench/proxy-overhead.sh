#!/usr/bin/env bash
# Proxy overhead: Homing (its default policy load_aware_affinity, the reference's cache_aware, and round_robin) side by
# side with HAProxy and nginx, the floor of Homing's HTTP
# stack (vertx: Vert.x's server and client relaying, nothing else) and the engines directly, all in front of the same
# simulated engines on loopback, in one run. See docs/BENCHMARKS.md, "Proxy overhead".
#
#   bench/proxy-overhead.sh [--quick] [OUT_DIR]        (default OUT_DIR: results/proxy-overhead)
#
# Steps (STEPS, default "bursts cold"): per row and round, saturation (sat), one sequential client warm (seq) and over
# a fresh proxy's first requests (cold), and the older moderate-rate (rate) and 200-token stream (stream) steps; then
# the bursts (bursts: every proxy running at once, saturation and a sequential client in short turns, the fair
# comparison on a shared machine), then the held streams (HOLD). The last table checks the targets of the
# proxy-overhead issue.
#
# Needs root on Debian for the first run (installs haproxy, nginx-light, wrk, jq with apt-get if absent) and a
# built homing.jar (built here if missing). Every load step has a duration cap; every process started here is
# stopped by PID on exit.
set -euo pipefail

quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mkdir -p "${1:-$repo/results/proxy-overhead}" && cd "${1:-$repo/results/proxy-overhead}" && pwd)
mkdir -p "$out/logs" "$out/json" "$out/conf"

# --- Settings -------------------------------------------------------------------------------------------------------
# Two cores. Latency steps: the proxy under test gets core 0 alone; the client and the engines share core 1, so a
# sequential request never waits for a core. Saturation: the proxy stays on core 0 (one core's worth for every
# proxy), but wrk and the engines may use both cores (SAT_CPU): whatever CPU a proxy spends is taken from the client
# and the engines, as on a shared machine, and the direct row gets both cores. (With wrk and the engines held to core
# 1, as this script once did, that core saturated first in every row, and the figures said more about it than about
# the proxies: HAProxy, nginx and Homing all came out near the direct row.) Override on a bigger machine
# (PROXY_CPU and LOAD_CPU are the benches' common layout, in bench/processes.sh).
SAT_CPU=${SAT_CPU:-0-1}
STEPS=${STEPS:-bursts cold}
has_step() { [[ " $STEPS " == *" $1 "* ]]; }
BASE_PORT=${BASE_PORT:-18100}
e1=$((BASE_PORT + 1)); e2=$((BASE_PORT + 2)); proxy_port=$((BASE_PORT + 10)); prom_port=$((BASE_PORT + 11))
helper_port=$((BASE_PORT + 12))   # the cold step's helper proxy
h1=$((BASE_PORT + 21)); h2=$((BASE_PORT + 22))   # the slow engines of the stream-holding test
if [ $quick = 1 ]; then
  SAT_SECS=5; RATE_SECS=6; STREAM_SECS=6; ROUNDS=1; HOLD_COUNTS="1000"; WARM_SECS=2; SAT_WARM_SECS=6
else
  SAT_SECS=8; RATE_SECS=12; STREAM_SECS=8; ROUNDS=2; HOLD_COUNTS="1000 10000"; WARM_SECS=6; SAT_WARM_SECS=12
fi
ROUNDS=${ROUNDS_OVERRIDE:-$ROUNDS}
HOLD_COUNTS=${HOLD:-$HOLD_COUNTS}   # e.g. HOLD="1000 10000" in quick mode, HOLD=" " for none
SAT_CONNS=32          # wrk connections at saturation (direct: 16 per engine)
SEQ_WARMUP=5000       # sequential steps: requests before the measured ones, and measured
SEQ_REQUESTS=5000
COLD_REQUESTS=1000    # the cold step: a fresh proxy's first requests, measured (and as many warm, and direct)
# The cold step's sequential warm-up of the client (and the engines) through the helper proxy.
COLD_WARMUP=${COLD_WARMUP:-20000}
# The cold step's baseline: "interleaved" (the default), after every COLD_DIRECT_EVERY requests through the proxy one
# straight to the first engine, so that the warm figure and the first requests each have the engines' latency of
# their own seconds (see InterleavedBaseline); "after", the engines measured only after the first requests.
COLD_BASELINE=${COLD_BASELINE:-interleaved}
COLD_DIRECT_EVERY=${COLD_DIRECT_EVERY:-4}
# The bursts step: bursts per proxy, seconds of saturation in each, sequential requests measured in each.
BURSTS=${BURSTS:-$([ $quick = 1 ] && echo 3 || echo 6)}
BURST_SECS=${BURST_SECS:-5}
BURST_SEQ=${BURST_SEQ:-2000}
BUSY_POLL_US=${BUSY_POLL_US:-1000}   # the -busy rows' --busy-poll-us
RATE=${RATE:-200}     # the moderate open-loop rate, requests per second: far below every row's saturation
STREAM_RATE=20        # streams started per second in the 200-token stream step (about 10 open at once)
HOLD_TOKENS=40        # output of a held stream: one token a second, so a stream lasts about 40 s, longer than
                      # 10,000 take to open here

# The JVM options of the client and the engines, the instruments (the proxies keep their own). C2 leaves out the
# branches a method's profile never took and recompiles when one is taken; a fresh proxy's first probes, connections
# and requests take some (an engine's GET handling and the doubles of its load report, the client's new connection),
# and perf found the instruments' compiler threads taking most of the core they share through the first second of
# every proxy's first requests, HAProxy's as much as Homing's (docs/BENCHMARKS.md, "Method"). With no traps
# allowed, C2 compiles every branch and keeps its code.
LOAD_JAVA_OPTS=${LOAD_JAVA_OPTS--XX:PerMethodTrapLimit=0 -XX:PerBytecodeTrapLimit=0}
# Fast engines: at --time-scale 1000 a prefill or a short decode takes microseconds of real time (the engine's timer
# counts nanoseconds on the epoll transport, a short /generate answers in about 0.13 ms), so the engines are not the
# bottleneck of a proxy. Time scale 4 for the 200-token streams makes one decode
# step (8 ms simulated) about 2 ms real, so tokens arrive one per event, 2 ms apart, and a stream lasts ~0.4 s.
# ENGINE_FLAGS adds flags to them (the exact view's: see docs/BENCHMARKS.md, "Exact view from KV events").
FAST_ENGINE=(--time-scale 1000 --max-running-requests 1024 --kv-tokens 2000000 ${ENGINE_FLAGS:-})
STREAM_ENGINE=(--time-scale 4 --max-running-requests 1024 --kv-tokens 2000000)
# Engines for holding thousands of streams: real time, one decode step a second whatever the batch, a batch as
# large as the test, so every stream is running (not queued in the engine) and sends one small event a second.
HOLD_ENGINE=(--time-scale 1 --decode-step-us 1000000 --decode-us-per-request 0 --decode-ns-per-context-token 0
             --prefill-step-us 1000 --max-running-requests 20000 --kv-tokens 4000000)
# The prompts (~60 tokens, 256 groups of 16) are RoundRobinLoad's.

# --- Processes: every one started here is remembered by PID and stopped on exit ------------------------------------
. "$repo/bench/processes.sh"

# start NAME CPU COMMAND...: runs COMMAND on CPU in the background; sets $last_pid.
start() {
  local name=$1 cpu=$2; shift 2
  taskset -c "$cpu" "$@" >"$out/logs/$name.log" 2>&1 &
  last_pid=$!
  pids+=("$last_pid")
}

# --- Tools --------------------------------------------------------------------------------------------------------
need=()
for tool in haproxy:haproxy nginx:nginx-light wrk:wrk jq:jq curl:curl; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${tool%%:*}" ] || need+=("${tool#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >"$out/logs/apt.log"
fi
PATH=$PATH:/usr/sbin
# Debian starts the packaged services on install: they would share the cores, so stop them if they run.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  systemctl stop haproxy nginx 2>/dev/null || true
fi
. "$repo/bin/jdk.sh"
homing_find_java
[ -f "$repo/homing-cli/target/homing.jar" ] || (cd "$repo" && ./mvnw -q package -DskipTests)
homing="$repo/bin/homing"
# A JVM with the flags bin/homing gives the gateway, but no start-up cache: the base-* rows from a jar, the vertx row.
plain_java=("$HOMING_JAVA" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow
            -XX:+UseCompactObjectHeaders)
grep -qs '\[madvise\]\|\[always\]' /sys/kernel/mm/transparent_hugepage/enabled &&
    plain_java+=(-XX:+UseTransparentHugePages)
HOMING_AOT=record "$homing" --version >/dev/null   # records the start-up cache if none: not in a timed step
# 10,000 streams through a proxy hold 10,000 client sockets in it plus its upstream ones, and 10,000 in the client.
# Raise the soft limit as far as allowed (a container may cap the hard limit); the proxies are told the result.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
fd_limit=$(ulimit -n)
max_conns=$(((fd_limit - 200) / 2))

# --- Engines --------------------------------------------------------------------------------------------------------
# start_engines KIND PORT PORT...: starts one simulated engine per port with the settings of KIND, on ENGINE_CPU
# (default LOAD_CPU); sets $engine_pids. move_engines CPU moves them (every thread).
start_engines() {
  local -n settings=$1; shift
  engine_pids=()
  local port
  for port in "$@"; do
    HOMING_JAVA_OPTS=$LOAD_JAVA_OPTS start "engine-$port" "${ENGINE_CPU:-$LOAD_CPU}" "$homing" sim-engine \
        --port "$port" --host 127.0.0.1 "${settings[@]}"
    engine_pids+=("$last_pid")
  done
  for port in "$@"; do wait_ok "http://127.0.0.1:$port/health" 60; done
}
stop_engines() { local pid; for pid in "${engine_pids[@]}"; do stop "$pid"; done; }
move_engines() { local pid; for pid in "${engine_pids[@]}"; do taskset -a -p -c "$1" "$pid" >/dev/null; done; }

# render TEMPLATE: the template in bench/ with each @NAME@ replaced by the environment variable NAME.
render() {
  awk '{ while (match($0, /@[A-Z]+@/)) $0 = substr($0, 1, RSTART - 1) ENVIRON[substr($0, RSTART + 1, RLENGTH - 2)] \
                                          substr($0, RSTART + RLENGTH); print }' "$repo/bench/$1"
}

is_homing() { [[ $1 == homing-* || $1 == base-* ]]; }

# --- Proxies ----------------------------------------------------------------------------------------------------------
# start_proxy ROW ENGINE_PORT...: starts the proxy of ROW on core PROXY_CPU in front of the engines; sets
# $proxy_pid (empty for the direct row) and $ready_ms (process start to ready).
start_proxy() {
  local row=$1; shift
  local ports=("$@") t0 port
  proxy_pid=""
  t0=$(date +%s%N)
  case $row in
    direct) ready_ms=""; return ;;
    homing-*|base-*)
      # -laa: no --policy, so the row runs whatever the build's default is (load_aware_affinity). A row name ending
      # in -epoll (homing-laa-epoll, say) runs the same gateway with --io-transport epoll; one ending in -busy, with
      # --io-transport epoll --busy-poll-us BUSY_POLL_US (the peer of the haproxy-busy row).
      local policy=() urls="" base=${row%-epoll}
      case ${base%-busy} in
        *-ca) policy=(--policy cache_aware) ;;
        *-rr) policy=(--policy round_robin) ;;
      esac
      [[ $row == *-epoll ]] && policy+=(--io-transport epoll)
      [[ $row == *-busy ]] && policy+=(--io-transport epoll --busy-poll-us "$BUSY_POLL_US")
      for port in "${ports[@]}"; do urls+="${urls:+,}http://127.0.0.1:$port"; done
      local opts=${GATEWAY_JAVA_OPTS:-}
      # JFR=1: record the gateway for the profile (jfr print --events jdk.ExecutionSample FILE).
      if [ "${JFR:-0}" = 1 ]; then
        mkdir -p "$out/jfr"
        opts+=" -XX:StartFlightRecording=filename=$out/jfr/$row-$(date +%H%M%S).jfr,settings=profile"
      fi
      local cmd=("$homing")
      # base-*: the same gateway from another build, for before/after figures from one run: its launcher
      # (BASELINE_HOMING, that checkout's bin/homing, with its own start-up cache) or its jar (BASELINE_JAR, no cache).
      [[ $row == base-* ]] && cmd=("${plain_java[@]}" $opts -jar "${BASELINE_JAR:-}")
      [[ $row == base-* && -n ${BASELINE_HOMING:-} ]] && cmd=("$BASELINE_HOMING")
      HOMING_JAVA_OPTS=$opts start "$row" "$PROXY_CPU" "${cmd[@]}" launch --host 127.0.0.1 \
          --port "$proxy_port" --prometheus-host 127.0.0.1 --prometheus-port "$prom_port" "${policy[@]}" \
          --worker-urls "$urls" --log-level warn ${GATEWAY_FLAGS:-}
      ;;
    vertx|vertx-epoll)
      # The floor of Homing's HTTP stack: Vert.x's server and pooled client relaying round robin, nothing else, on the
      # gateway's transport (io_uring where it starts); vertx-epoll: the same relay on epoll.
      local transport=auto
      [ "$row" = vertx-epoll ] && transport=epoll
      start "$row" "$PROXY_CPU" "${plain_java[@]}" -Dio.netty.jfr.enabled=false -cp "$repo/homing-cli/target/homing.jar" \
          dev.homing.bench.overhead.PlainVertxProxy --port "$proxy_port" --upstream-ports "$(IFS=,; echo "${ports[*]}")" \
          --io-transport "$transport"
      ;;
    haproxy|haproxy-hash|haproxy-busy)
      local servers="" busy=""
      for port in "${ports[@]}"; do servers+="  server e$port 127.0.0.1:$port"$'\n'; done
      # The best affinity a plain proxy offers: a consistent hash of a session header the client sends.
      local balance="  balance roundrobin"
      [ "$row" = haproxy-hash ] && balance=$'  balance hdr(X-Session-Id)\n  hash-type consistent'
      # haproxy-busy: HAProxy's own busy polling, the peer of Homing's -busy rows.
      [ "$row" = haproxy-busy ] && busy="  busy-polling"
      PORT=$proxy_port MAXCONN=$max_conns BALANCE=$balance SERVERS=$servers BUSY=$busy render haproxy.cfg.in \
          >"$out/conf/$row.cfg"
      start "$row" "$PROXY_CPU" haproxy -db -f "$out/conf/$row.cfg"
      ;;
    nginx)
      local servers=""
      for port in "${ports[@]}"; do servers+="    server 127.0.0.1:$port;"$'\n'; done
      mkdir -p "$out/conf/nginx"
      PORT=$proxy_port DIR=$out/conf/nginx NOFILE=$fd_limit MAXCONN=$max_conns SERVERS=$servers render nginx.conf.in >"$out/conf/nginx.conf"
      start nginx "$PROXY_CPU" nginx -p "$out/conf/nginx" -c "$out/conf/nginx.conf"
      ;;
  esac
  proxy_pid=$last_pid
  if is_homing "$row"; then
    wait_ok "http://127.0.0.1:$proxy_port/readiness" 60
  else
    wait_ok "http://127.0.0.1:$proxy_port/health" 60
  fi
  ready_ms=$((($(date +%s%N) - t0) / 1000000))
}
stop_proxy() { [ -z "$proxy_pid" ] || stop "$proxy_pid"; }

# The processes whose CPU a proxy row spends: nginx's worker is a child of its master.
proxy_tree() { echo "$1"; pgrep -P "$1" || true; }
cpu_ticks() {
  local pid total=0
  for pid in $(proxy_tree "$1"); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
rss_mb() {
  local pid total=0
  for pid in $(proxy_tree "$1"); do
    total=$((total + $(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)))
  done
  echo $((total / 1024))
}
# Live heap of the Homing gateway PID in MB, from the class histogram a JVM started with -XX:+PrintClassHistogram
# prints to its output (LOG) on SIGQUIT, after a full collection: the objects alive, and the filler a collection
# leaves in place of dead space it did not compact. A signal, not jcmd: at the peak the gateway may hold every
# descriptor the machine allows (20,000 here, two a stream), and jcmd's attach needs one more. (This step once read
# "used" from GC.heap_info after GC.run, which also counted what the gateway allocated between the two commands:
# 40 to 70 MB more with 10,000 streams open.)
live_heap_mb() {
  local pid=$1 log=$2 before deadline
  before=$(grep -c '^Total ' "$log" || true)
  kill -QUIT "$pid"
  deadline=$((SECONDS + 60))
  until [ "$(grep -c '^Total ' "$log" || true)" -gt "$before" ] || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
  awk '/^Total / { total = $3 } END { if (total) printf "%d", total / 1048576; else printf "-" }' "$log"
}

# --- Load steps -----------------------------------------------------------------------------------------------------
# The wrk target URLs of a row: the proxy, or each engine for the direct row.
targets() {
  local row=$1; shift
  local port
  if [ "$row" = direct ]; then for port in "$@"; do echo "http://127.0.0.1:$port"; done
  else echo "http://127.0.0.1:$proxy_port"; fi
}

# saturate ROW NAME SECONDS PORTS...: wrk at SAT_CONNS connections (split over the engines for the direct row);
# sets $sat_result to "requests_per_second errors proxy_cpu_us_per_request". Runs in the main shell (not in a
# command substitution) so the wrk PIDs reach the exit trap.
saturate() {
  local row=$1 name=$2 secs=$3; shift 3
  local urls=() url i=0 ticks0 ticks1 total=0 errors=0
  mapfile -t urls < <(targets "$row" "$@")
  local conns=$((SAT_CONNS / ${#urls[@]}))
  ticks0=$([ -n "$proxy_pid" ] && cpu_ticks "$proxy_pid" || echo 0)
  local wrk_pids=()
  for url in "${urls[@]}"; do
    taskset -c "$SAT_CPU" wrk -t1 -c"$conns" -d"${secs}s" --timeout 10s -s "$repo/bench/chat-post.lua" \
        "$url/v1/chat/completions" >"$out/logs/$name-$i.wrk" 2>&1 &
    wrk_pids+=($!); pids+=($!); i=$((i + 1))
  done
  for i in "${wrk_pids[@]}"; do wait "$i" || true; done
  ticks1=$([ -n "$proxy_pid" ] && cpu_ticks "$proxy_pid" || echo 0)
  for ((i = 0; i < ${#urls[@]}; i++)); do
    total=$(awk -v t="$total" '/^Requests\/sec/ {t += $2} END {print t}' "$out/logs/$name-$i.wrk")
    errors=$((errors + $(awk '/Non-2xx|Socket errors/ {for (f = 1; f <= NF; f++) if ($f ~ /^[0-9]+,?$/) s += $f}
                             END {print s + 0}' "$out/logs/$name-$i.wrk")))
  done
  local tck; tck=$(getconf CLK_TCK)
  sat_result=$(awk -v rps="$total" -v e="$errors" -v d=$((ticks1 - ticks0)) -v hz="$tck" -v s="$secs" \
      'BEGIN {n = rps * s; printf "%.0f %d %s\n", rps, e, (d > 0 && n > 0) ? sprintf("%.0f", d / hz * 1e6 / n) : "-"}')
}

# load ROW NAME ARGS...: RoundRobinLoad (homing-bench) on the load core, against the proxy, or against every engine
# with client-side round robin for the direct row; it warms up in the same JVM first. JSON into json/NAME.json.
load() {
  local row=$1 name=$2; shift 2
  local urls
  urls=$(targets "$row" $e1 $e2 | paste -sd, -)
  start "$name" "$LOAD_CPU" "$HOMING_JAVA" -XX:+UseSerialGC $LOAD_JAVA_OPTS -cp "$repo/homing-cli/target/homing.jar" \
      dev.homing.bench.overhead.RoundRobinLoad --urls "$urls" --output "$out/json/$name.json" "$@"
  wait "$last_pid" || true
}
# pct NAME SECTION FIELD: one latency figure of a step, in ms (SECTION may be a path such as warm.endToEnd or
# interleaved.quarters.0; "-": none); failed NAME: its failed requests ("-": no result).
pct() {
  local x
  x=$(jq -r --arg s "$2" --arg f "$3" 'getpath(($s | split(".") | map(tonumber? // .)) + [$f]) // empty' "$out/json/$1.json" 2>/dev/null) || x=""
  [ -n "$x" ] && awk -v x="$x" 'BEGIN {printf "%.3f", x}' || echo -
}
failed() { [ -f "$out/json/$1.json" ] && jq -r .requests.failed "$out/json/$1.json" 2>/dev/null || echo -; }

# sequential ROW NAME [COLD]: one client, one request at a time, small non-streaming /generate answers of one token,
# on the load core. Warm: SEQ_WARMUP requests through the proxy, then SEQ_REQUESTS measured. COLD: the client warms
# up (COLD_WARMUP requests) through the warm helper proxy on helper_port and measures COLD_REQUESTS through it (the
# warm figure), prints "warmed up" and waits for the file logs/NAME.go; the caller stops the helper, starts the fresh
# proxy, waits for its readiness and makes the file then (the client does not poll the proxy itself: that unsettled
# its own compiled code, see RoundRobinLoad). The client measures its first COLD_REQUESTS after readiness, then as
# many to the first engine directly: all three from one client, one set of engines, seconds apart. With
# COLD_BASELINE=interleaved the warm figure and the first requests also send one request in COLD_DIRECT_EVERY to the
# first engine directly, and the JSON keeps every request's time (interleaved.trace, warm.interleaved.trace).
# Returns at once for COLD (the client's PID in $seq_pid); waits otherwise.
sequential() {
  local row=$1 name=$2 cold=${3:-}
  local urls
  # The direct row: one engine. With a URL per engine the client would run a lane on each, two requests at a time.
  urls=$(targets "$row" $e1 | paste -sd, -)
  local args=(--urls "$urls" --warmup-requests "$SEQ_WARMUP" --max-requests "$SEQ_REQUESTS")
  [ -n "$cold" ] && args=(--urls "http://127.0.0.1:$proxy_port" --warmup-urls "http://127.0.0.1:$helper_port"
                          --await-file "$out/logs/$name.go" --warmup-requests "$COLD_WARMUP"
                          --max-requests "$COLD_REQUESTS"
                          --warm-figure --direct-urls "http://127.0.0.1:$e1")
  [ -n "$cold" ] && [ "$COLD_BASELINE" = interleaved ] &&
      args+=(--interleaved-direct-url "http://127.0.0.1:$e1" --direct-every "$COLD_DIRECT_EVERY" --trace)
  start "$name" "$LOAD_CPU" "$HOMING_JAVA" -XX:+UseSerialGC $LOAD_JAVA_OPTS -cp "$repo/homing-cli/target/homing.jar" \
      "${SEQUENTIAL_CLIENT[@]}" --output "$out/json/$name.json" "${args[@]}"
  seq_pid=$last_pid
  [ -n "$cold" ] || wait "$seq_pid" || true
}

# --- Run ------------------------------------------------------------------------------------------------------------
# ROWS picks rows (default: all but haproxy-hash and the base-* ones, which need BASELINE_HOMING or BASELINE_JAR).
if [ -n "${ROWS:-}" ]; then read -r -a rows <<<"$ROWS"
else rows=(direct homing-laa homing-ca homing-rr vertx haproxy nginx); fi
[ -n "${BASELINE_JAR:-}${BASELINE_HOMING:-}" ] && [ -z "${ROWS:-}" ] &&
    rows=(direct base-laa homing-laa base-ca homing-ca base-rr homing-rr vertx haproxy nginx)
results="$out/results.tsv"
printf 'row\tround\tready_ms\tidle_rss_mb\tsat_rps\tsat_errors\tproxy_cpu_us_per_req\tseq_p50_ms\tseq_p99_ms\tseq_failed\tcold_p50_ms\tcold_p99_ms\tcold_failed\trate_p50_ms\trate_p99_ms\trate_failed\tttft_p50_ms\tttft_p99_ms\tgap_p50_ms\tgap_p99_ms\tstream_failed\tload_before\tcold_warm_p50_ms\tcold_direct_p50_ms\tcold_interleaved_added_p50_ms\twarm_interleaved_added_p50_ms\tcold_secs\tcold_q1_added_p50_ms\tcold_q2_added_p50_ms\tcold_q3_added_p50_ms\tcold_q4_added_p50_ms\n' >"$results"
log "output in $out; proxy on core $PROXY_CPU, load and engines on core $LOAD_CPU (saturation: $SAT_CPU); $(nproc) cores; ulimit -n $fd_limit; steps: $STEPS"

for ((round = 1; round <= ROUNDS; round++)); do
  for row in "${rows[@]}"; do
    tag="$row-r$round"
    has_step sat || has_step seq || has_step cold || has_step rate || has_step stream || continue
    load_before=$(awk '{print $1}' /proc/loadavg)
    rps=- errs=- cpu_us=- ready=- idle=-
    if has_step sat || has_step seq; then
      log "$tag: saturation, then one sequential client (fast engines)"
      ENGINE_CPU=$SAT_CPU start_engines FAST_ENGINE $e1 $e2
      start_proxy "$row" $e1 $e2
      ready=${ready_ms:--}
      idle=$([ -n "$proxy_pid" ] && rss_mb "$proxy_pid" || echo -)
      if has_step sat; then
        saturate "$row" "$tag-warm" "$SAT_WARM_SECS" $e1 $e2   # JIT and connection pools warm up
        saturate "$row" "$tag-sat" "$SAT_SECS" $e1 $e2
        read -r rps errs cpu_us <<<"$sat_result"
      fi
      if has_step seq; then
        move_engines "$LOAD_CPU"
        sequential "$row" "$tag-seq"
      fi
      stop_proxy; stop_engines
    fi
    # The cold step is Homing's warm-up against HAProxy's and nginx's start: the vertx rows have no warm-up to judge.
    if has_step cold && [ "$row" != direct ] && [[ $row != vertx* ]]; then
      log "$tag: one sequential client: a warm proxy, then the first $COLD_REQUESTS requests of a fresh one"
      start_engines FAST_ENGINE $e1 $e2
      # A helper instance of the same proxy, warmed by a saturation, warms the engines and the client with this
      # row's traffic and gives the warm figure; then the fresh proxy's first requests are measured right after it.
      # (With the warm figure taken after the first requests instead, HAProxy's came out 1.9x its warm ones: the
      # client and the engines, Java both, were still settling while the first were measured.)
      measured_port=$proxy_port; proxy_port=$helper_port
      start_proxy "$row" $e1 $e2
      saturate "$row" "$tag-helper" "$SAT_WARM_SECS" $e1 $e2
      helper_pid=$proxy_pid; proxy_port=$measured_port
      sequential "$row" "$tag-cold" cold
      deadline=$((SECONDS + 300))
      until grep -q 'warmed up' "$out/logs/$tag-cold.log" 2>/dev/null || [ $SECONDS -ge $deadline ]; do sleep 0.1; done
      stop "$helper_pid"
      start_proxy "$row" $e1 $e2
      touch "$out/logs/$tag-cold.go"   # ready (/readiness for Homing, /health else): the client measures now
      [ "$ready" != - ] || ready=${ready_ms:--}
      wait "$seq_pid" || true
      stop_proxy; stop_engines
    fi
    if has_step rate; then
      log "$tag: moderate rate (fast engines)"
      start_engines FAST_ENGINE $e1 $e2
      start_proxy "$row" $e1 $e2
      load "$row" "$tag-rate" --no-stream --output-tokens 1 --rate "$RATE" --warmup-seconds "$WARM_SECS" \
          --seconds $((RATE_SECS + 5)) --max-requests $((RATE * RATE_SECS))
      stop_proxy; stop_engines
    fi
    if has_step stream; then
      log "$tag: 200-token streams"
      start_engines STREAM_ENGINE $e1 $e2
      start_proxy "$row" $e1 $e2
      load "$row" "$tag-stream" --stream --output-tokens 200 --rate "$STREAM_RATE" --warmup-seconds "$WARM_SECS" \
          --seconds $((STREAM_SECS + 5)) --max-requests $((STREAM_RATE * STREAM_SECS))
      stop_proxy; stop_engines
    fi

    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$row" "$round" \
        "$ready" "$idle" "$rps" "$errs" "$cpu_us" \
        "$(pct "$tag-seq" endToEnd p50Ms)" "$(pct "$tag-seq" endToEnd p99Ms)" "$(failed "$tag-seq")" \
        "$(pct "$tag-cold" endToEnd p50Ms)" "$(pct "$tag-cold" endToEnd p99Ms)" "$(failed "$tag-cold")" \
        "$(pct "$tag-rate" endToEnd p50Ms)" "$(pct "$tag-rate" endToEnd p99Ms)" "$(failed "$tag-rate")" \
        "$(pct "$tag-stream" timeToFirstToken p50Ms)" "$(pct "$tag-stream" timeToFirstToken p99Ms)" \
        "$(pct "$tag-stream" interTokenGap p50Ms)" "$(pct "$tag-stream" interTokenGap p99Ms)" \
        "$(failed "$tag-stream")" "$load_before" "$(pct "$tag-cold" warm.endToEnd p50Ms)" \
        "$(pct "$tag-cold" direct.endToEnd p50Ms)" "$(pct "$tag-cold" interleaved addedP50Ms)" \
        "$(pct "$tag-cold" warm.interleaved addedP50Ms)" "$(pct "$tag-cold" "" elapsedSeconds)" \
        "$(pct "$tag-cold" interleaved.quarters.0 addedP50Ms)" "$(pct "$tag-cold" interleaved.quarters.1 addedP50Ms)" \
        "$(pct "$tag-cold" interleaved.quarters.2 addedP50Ms)" "$(pct "$tag-cold" interleaved.quarters.3 addedP50Ms)" \
        >>"$results"
  done
done

# HAProxy's busy polling never sleeps, idle or not: beside the other rows on their shared core it would take half of
# it. So the bursts step stops it (SIGSTOP) outside its own turns; its connections wait in the kernel meanwhile.
pause() { [ "$1" != haproxy-busy ] || kill -STOP "${burst_pid[$1]}"; }
resume() { [ "$1" != haproxy-busy ] || kill -CONT "${burst_pid[$1]}"; }

# Bursts (step bursts): every proxy runs at once on its core, in front of the same engines, and the load goes to one
# after the other in short bursts, the order turning at each burst, so that a proxy and HAProxy are measured seconds
# apart rather than minutes: the other engineers' builds on a shared machine move the figures from one minute to the
# next by more than the proxies differ. BURSTS bursts of BURST_SECS of saturation per proxy, then as many rounds of
# one sequential client (BURST_SEQ requests measured per proxy and round, after as many to warm the client up).
bursts="$out/bursts.tsv"
printf 'burst\trow\tsat_rps\tproxy_cpu_us_per_req\tseq_p50_ms\tseq_p99_ms\tload_before\n' >"$bursts"
if has_step bursts; then
  log "bursts: every proxy at once, $BURSTS bursts each"
  ENGINE_CPU=$SAT_CPU start_engines FAST_ENGINE $e1 $e2
  declare -A burst_pid burst_port
  i=0
  for row in "${rows[@]}"; do
    proxy_port=$((BASE_PORT + 40 + i)); prom_port=$((BASE_PORT + 60 + i)); i=$((i + 1))
    start_proxy "$row" $e1 $e2
    burst_pid[$row]=$proxy_pid; burst_port[$row]=$proxy_port
    saturate "$row" "burst-warm-$row" "$SAT_WARM_SECS" $e1 $e2
    pause "$row"
  done
  # use ROW: the load steps go to that row's proxy (pause ROW once its turn is over).
  use() { proxy_pid=${burst_pid[$1]}; proxy_port=${burst_port[$1]}; resume "$1"; }
  # turned K: the rows, starting at the K-th.
  turned() { local k=$(($1 % ${#rows[@]})); echo "${rows[@]:k}" "${rows[@]:0:k}"; }
  declare -A burst_line
  for ((b = 1; b <= BURSTS; b++)); do
    for row in $(turned "$b"); do
      use "$row"
      burst_line[$b,$row]="$(awk '{print $1}' /proc/loadavg)"
      saturate "$row" "burst-$b-$row" "$BURST_SECS" $e1 $e2
      pause "$row"
      read -r rps errs cpu_us <<<"$sat_result"
      burst_line[$b,$row]="$rps	$cpu_us	${burst_line[$b,$row]}"
    done
  done
  move_engines "$LOAD_CPU"
  for ((b = 1; b <= BURSTS; b++)); do
    for row in $(turned "$b"); do
      use "$row"
      SEQ_WARMUP=$BURST_SEQ SEQ_REQUESTS=$BURST_SEQ sequential "$row" "burst-seq-$b-$row"
      pause "$row"
      read -r rps cpu_us load_b <<<"${burst_line[$b,$row]}"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$b" "$row" "$rps" "$cpu_us" "$(pct "burst-seq-$b-$row" endToEnd p50Ms)" \
          "$(pct "burst-seq-$b-$row" endToEnd p99Ms)" "$load_b" >>"$bursts"
    done
  done
  for row in "${rows[@]}"; do [ -z "${burst_pid[$row]}" ] || stop "${burst_pid[$row]}"; done
  proxy_pid=""; stop_engines
fi

# Holding streams: N streams opened at once through Homing (cache_aware) with a 1 GiB heap cap, each sending an
# event a second for HOLD_TOKENS seconds; live heap and RSS sampled while they are all open.
# The client is the one process of the step that must not lag: a head it writes more than 10 s after its connection
# opened meets the gateway's header timeout (--client-header-timeout-secs), which rightly closes a silent connection.
# Opening 10,000 at once on the core it shares with both engines, it once took 19 s of CPU (C2 compiling 9 s of it,
# its connection pools 2.7 s, young collections pausing it up to 2.4 s) and wrote the last heads 11 s after their
# connections: so it may use both cores, compiles with C1 only, and its young generation holds the whole step.
HOLD_CLIENT_JVM=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xms3g -Xmn2g)
hold="$out/hold.tsv"
printf 'streams\tclient_sockets_open\tupstream_sockets_open\theap_mb\trss_mb\tsucceeded\tfailed\terrors\n' >"$hold"
for n in $HOLD_COUNTS; do
  log "holding $n streams through Homing"
  start_engines HOLD_ENGINE $h1 $h2
  GATEWAY_JAVA_OPTS="-Xmx1g -XX:+PrintClassHistogram" start_proxy homing-ca $h1 $h2
  start "hold-$n" "$SAT_CPU" "$HOMING_JAVA" "${HOLD_CLIENT_JVM[@]}" -cp "$repo/homing-cli/target/homing.jar" \
      dev.homing.bench.overhead.RoundRobinLoad --urls "http://127.0.0.1:$proxy_port" --stream \
      --output-tokens $HOLD_TOKENS --concurrency "$n" --max-requests "$n" --warmup-seconds 0 \
      --seconds 150 --output "$out/json/hold-$n.json"
  client_pid=$last_pid
  # Sample at the peak: once the gateway holds N streams upstream as well as N client sockets, or once the upstream
  # count has not grown for 3 s (or after 90 s). The streams outlast their opening (HOLD_TOKENS), so at the peak all
  # N are open at once. (This step once sampled 2 s after the N client sockets, when 1,500 to 6,500 streams had
  # reached the engines, so its heap followed how far they had got.)
  deadline=$((SECONDS + 90)); still=0
  peak_clients=0; peak_upstream=0
  while [ $SECONDS -lt $deadline ]; do
    clients=$(ss -Htn state established "( sport = :$proxy_port )" | wc -l)
    upstream=$(ss -Htn state established "( dport = :$h1 or dport = :$h2 )" | wc -l)
    [ "$clients" -gt "$peak_clients" ] && peak_clients=$clients
    if [ "$upstream" -gt "$peak_upstream" ]; then peak_upstream=$upstream; still=0; else still=$((still + 1)); fi
    [ "$upstream" -ge "$n" ] && break
    [ "$peak_upstream" -gt 0 ] && [ $still -ge 6 ] && break
    sleep 0.5
  done
  heap=$(live_heap_mb "$proxy_pid" "$out/logs/homing-ca.log"); rss=$(rss_mb "$proxy_pid")
  wait "$client_pid" || true
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$peak_clients" "$peak_upstream" "$heap" "$rss" \
      "$(jq .requests.succeeded "$out/json/hold-$n.json")" "$(failed "hold-$n")" "$(jq -c .errors "$out/json/hold-$n.json")" >>"$hold"
  stop_proxy; stop_engines
done

# --- Report ---------------------------------------------------------------------------------------------------------
"$repo/bench/overhead-table.sh" "$results" "$hold" "$bursts" | tee "$out/table.md"

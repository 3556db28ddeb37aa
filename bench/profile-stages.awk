# Splits the event loop's samples of a gateway profile (async-profiler's collapsed stacks, one "frame;frame;... N"
# line each, recorded with the "threads" option) into the stages of a proxied request: each sample goes to the
# innermost frame that names a stage. Prints stage, share of the samples, and the share of each stage spent in the
# kernel. See docs/BENCHMARKS.md, "Per-request budget".
#
#   grep '^\[vert.x-eventloop-thread-1' profile.collapsed | awk -f bench/profile-stages.awk
BEGIN {
  # Stage patterns, tried from the leaf up; the first that matches a frame names the sample's stage.
  n = 0
  name[++n] = "finish, access log"; pat[n] = "RequestRecord\\.complete|InferenceExchange\\.finish"
  name[++n] = "metrics"; pat[n] = "dev/homing/gateway/metrics/|io/prometheus/"
  name[++n] = "sniff"; pat[n] = "RoutingText|dev/homing/core/request/|tools/jackson/"
  name[++n] = "route"; pat[n] = "ModelPool\\.place|dev/homing/core/(policy|placement|tree|routing)|" \
      "WorkerRegistry\\.resolve|CircuitBreaker|InferenceExchange\\.bodyRead"
  name[++n] = "upstream write"; pat[n] = "UpstreamLeg|ForwardedHeaders\\.toWorker|HttpClientRequest|" \
      "Http1xClientConnection(\\$StreamImpl|\\$1)?\\.(write|beginRequest)|SimpleConnectionPool|ConnectGate"
  name[++n] = "relay"; pat[n] = "SseRelay|UsageTail|ForwardedHeaders\\.toClient|" \
      "InferenceExchange\\.(headArrived|relayEnded|firstByte)|Http1xServerResponse|" \
      "Http1xServerConnection(\\$1)?\\.write|ClientDeadlines\\.write|Http1xClientConnection(\\$StreamImpl)?\\.handle|" \
      "HttpClientResponse|CombinedChannelDuplexHandler\\.channelRead"
  name[++n] = "accept and parse"; pat[n] = "ClientDeadlines|InferenceExchange|InferenceAdmission|BodyReader|" \
      "GatewayServer|RequestFraming|StrictRequestDecoder|Http1xServerConnection|Http1xServerRequest|" \
      "ServerBootstrap|acceptor"
  # io_uring: a completed read is handled in readComplete0; the reads themselves run in the kernel inside the event
  # loop's io_uring_enter, with the other calls that turn submitted ("event loop" below).
  name[++n] = "socket reads"; pat[n] = "NioByteUnsafe\\.read|EpollStreamUnsafe\\.epollInReady|" \
      "IoUringStreamUnsafe\\.readComplete0"
  stages = n
}
function stage(frame,   j) {
  for (j = 1; j <= stages; j++) if (frame ~ pat[j]) return name[j]
  return ""
}
{
  samples = $NF; $NF = ""; m = split($0, f, ";"); s = ""
  for (i = m; i >= 1 && s == ""; i--) s = stage(f[i])
  if (s == "") s = "event loop (select, tasks, other)"
  T[s] += samples; if (f[m] ~ /_\[k\]/) K[s] += samples; total += samples
}
END {
  for (s in T) printf "%-36s %5.1f%%   kernel %5.1f%% of it\n", s, 100 * T[s] / total, 100 * K[s] / T[s]
}

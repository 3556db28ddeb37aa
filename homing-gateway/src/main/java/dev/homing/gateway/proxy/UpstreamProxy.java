package dev.homing.gateway.proxy;

import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.core.policy.EngineReport;
import dev.homing.gateway.resilience.BreakerLease;
import dev.homing.gateway.resilience.RetryPolicy;
import dev.homing.gateway.resilience.RetryState;
import dev.homing.gateway.resilience.UpstreamOutcome;
import dev.homing.gateway.workers.ConnectGate;
import dev.homing.gateway.workers.InFlightSlot;
import dev.homing.gateway.workers.ModelPool;
import dev.homing.gateway.workers.UpstreamTarget;
import dev.homing.gateway.workers.Worker;
import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;

import java.net.ConnectException;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Sends one routed request to its worker and relays the answer to the client, bytes unchanged, streams included.
 *
 * <p>The streaming path. Everything of one exchange runs on the client connection's event loop, so an exchange
 * needs no locks.
 * <ol>
 *   <li>The request body was read whole (bounded by {@code --max-payload-size}), sniffed, and a worker slot taken;
 *       the request may have waited for an earlier request's prefill ({@link PrefillWait}), and is not sent when its
 *       client left meanwhile.
 *   <li>The original body bytes go to the worker on its keep-alive pool.
 *   <li>Retry. The connection fails, or the worker answers a retryable status (429, 408, 500, 502, 503, 504) while
 *       nothing has reached the client yet: its answer is drained and dropped, the attempt's outcome goes to the
 *       worker's circuit breaker, its slot is released, and after the backoff of {@link RetryState} the request is
 *       placed again ({@link Reselect}, avoiding the workers that failed it) and this step repeats. No worker
 *       available at all: 503 at once. The request timeout keeps running across attempts.
 *   <li>The worker's status and headers are copied (minus hop-by-hop) and the head is written at once, so the
 *       client sees its stream start before the first token. From here nothing is retried.
 *   <li>Each chunk from the worker is written to the client as it arrives, unchanged: SSE events pass through with
 *       no re-framing.
 *   <li>A slow client fills its write queue: the worker's response is paused, Netty stops reading that socket, and
 *       TCP flow control pushes back to the engine. Gateway memory per stream stays bounded by the write queue.
 *   <li>The client drains: the worker's response resumes.
 *   <li>The worker's response ends: the client's response ends and the slot is released. A worker that breaks
 *       off a stream gets the stream ended with an SSE error event, so the client sees an error, not a short answer.
 *   <li>The client goes away: the upstream request is reset, so the engine sees the connection close and stops
 *       generating; the slot is released.
 *   <li>{@code --request-timeout-secs} passes: the upstream request is reset; the client gets 504 if nothing was
 *       sent yet, else its connection is closed.
 * </ol>
 * <pre>
 *   worker ──chunk──▶ upstream.handler ──write──▶ client response ──▶ client
 *     ▲                                                 │ writeQueueFull()
 *     └────────── upstream.pause() ◀────────────────────┘
 *     └────────── upstream.resume() ◀── drainHandler ◀──┘ (client caught up)
 *   client closes ──▶ closeHandler ──▶ upstream request reset() ──▶ worker sees the close
 * </pre>
 */
public final class UpstreamProxy {

    /** The first wait for a free socket once the gateway ran out of them; it doubles up to the maximum. */
    private static final long SOCKET_WAIT_FIRST_MS = 50;
    private static final long SOCKET_WAIT_MAX_MS = 1_000;

    private final Vertx vertx;
    private final HttpClient client;
    private final GatewayMetrics metrics;
    private final long requestTimeoutMs;
    private final RetryPolicy retryPolicy;
    private final boolean markUnreachable;

    /**
     * @param markUnreachable take a worker that refuses a connection out of rotation until health probes bring it
     *                        back; false when health checks are off, as nothing would bring it back
     */
    public UpstreamProxy(Vertx vertx, HttpClient client, GatewayMetrics metrics, long requestTimeoutSecs,
                         RetryPolicy retryPolicy, boolean markUnreachable) {
        this.vertx = vertx;
        this.client = client;
        this.metrics = metrics;
        this.requestTimeoutMs = TimeUnit.SECONDS.toMillis(requestTimeoutSecs);
        this.retryPolicy = retryPolicy;
        this.markUnreachable = markUnreachable;
    }

    /** Places a request again after a failed attempt. */
    @FunctionalInterface
    public interface Reselect {
        /**
         * A new worker, slot and breaker lease, avoiding the {@code failedWorkerIds} when another worker is
         * available; a selection that is not found when no worker is available at all.
         */
        ModelPool.Selection next(Set<String> failedWorkerIds);
    }

    /**
     * Forwards {@code body} to the selected worker at the same path, retrying failed attempts elsewhere as
     * {@code retryPolicy} allows; every attempt's slot and breaker lease are handed back exactly once.
     */
    public void forward(HttpServerRequest request, Buffer body, InferenceRoute route, SniffedRequest sniffed,
                        ModelPool.Selection selection, RequestRecord record, Reselect reselect) {
        new Exchange(request, body, route, sniffed, selection, record, reselect).start();
    }

    /** One request's trip to a worker and back. Confined to the client connection's event loop. */
    private final class Exchange {
        private final HttpServerRequest request;
        private final HttpServerResponse response;
        private final Buffer body;
        private final InferenceRoute route;
        private final SniffedRequest sniffed;
        private final RequestRecord record;
        private final Reselect reselect;
        private final RetryState retry = retryPolicy.start();
        private InFlightSlot slot;
        private BreakerLease lease;
        private HttpClientRequest upstreamRequest;
        private long timer = -1;
        private long retryTimer = -1;
        private long sentNanos;
        private boolean done;
        /** The client's answer is an event stream whose head is out: a failure can only end it with an event. */
        private boolean sseStarted;
        /** Times this exchange found the gateway out of sockets (file descriptors) for its worker connection. */
        private int socketWaits;
        private final UsageTail usage = new UsageTail();
        /** What the engine reported of the request, read at the end of a successful answer; null until then. */
        private UsageTail.Usage reported;

        Exchange(HttpServerRequest request, Buffer body, InferenceRoute route, SniffedRequest sniffed,
                 ModelPool.Selection selection, RequestRecord record, Reselect reselect) {
            this.request = request;
            this.response = request.response();
            this.body = body;
            this.route = route;
            this.sniffed = sniffed;
            this.slot = selection.slot();
            this.lease = selection.lease();
            this.record = record;
            this.reselect = reselect;
        }

        void start() {
            if (response.closed()) {
                // The client left while the request waited to be sent (PrefillWait): nothing goes to the worker.
                finish(499, "client_disconnected", "client_disconnected", null);
                return;
            }
            response.closeHandler(v -> clientGone());
            timer = vertx.setTimer(requestTimeoutMs, id -> timedOut());
            send();
        }

        private void send() {
            retry.attemptStarted();
            connect();
        }

        /** Gets the attempt a connection to its worker, through the worker's connect gate, and sends on it. */
        private void connect() {
            Worker worker = slot.worker();
            UpstreamTarget target = worker.target();
            // Host, port and path come parsed from the target; headers go straight into the request's own map.
            // No wait limit for a pooled connection of its own: in Vert.x it would also bound the wait behind
            // other requests' connects, and under a burst of thousands of streams that wait, not the worker, ran out
            // (10 s) and opened every circuit. The TCP connect has its own timeout (Gateway), the wait is bounded by
            // the request timeout.
            RequestOptions options = target.request(HttpMethod.POST, route.path());
            ConnectGate gate = worker.connectGate();
            Context context = vertx.getOrCreateContext();
            sentNanos = System.nanoTime();
            gate.enter(() -> {
                if (Vertx.currentContext() == context) {
                    request(worker, options, gate);
                } else {
                    // Let go by a release on another event loop: the exchange lives on its own.
                    context.runOnContext(v -> request(worker, options, gate));
                }
            });
        }

        /** Asks the pool for a connection to the worker (the gate's turn taken) and sends the request on it. */
        private void request(Worker worker, RequestOptions options, ConnectGate gate) {
            if (done) {
                gate.release();
                return;
            }
            metrics.sentToWorker(record.model(), worker.url());
            Future<HttpClientRequest> connected = client.request(options);
            connected.onComplete(ar -> gate.release());
            connected
                    .compose(req -> {
                        if (done) {
                            req.reset();
                            return Future.failedFuture("exchange already finished");
                        }
                        upstreamRequest = req;
                        ForwardedHeaders.toWorker(request.headers(), req.headers(), record.requestId(),
                                worker.target().authorization());
                        return req.send(body);
                    })
                    .onSuccess(this::relay)
                    .onFailure(this::upstreamFailed);
        }

        private void relay(HttpClientResponse upstream) {
            if (done) {
                return;
            }
            int status = upstream.statusCode();
            metrics.upstreamResponse(status);
            UpstreamOutcome outcome = UpstreamOutcome.ofStatus(status);
            if (UpstreamOutcome.isRetryable(outcome, status) && retryElsewhere(outcome, status)) {
                // Drained so its connection goes back to the pool; nothing of it reaches the client.
                upstream.exceptionHandler(err -> { });
                upstream.handler(chunk -> { });
                return;
            }
            retry.firstByteSent();
            String contentType = upstream.getHeader("content-type");
            boolean sse = contentType != null && contentType.startsWith("text/event-stream");
            sseStarted = sse;
            response.setStatusCode(upstream.statusCode());
            ForwardedHeaders.toClient(upstream.headers(), response.headers());
            response.putHeader("x-request-id", record.requestId());
            if (!upstream.headers().contains("content-length")) {
                response.setChunked(true);
            }
            upstream.handler(chunk -> {
                if (done) {
                    return;
                }
                if (sentNanos != 0) {
                    slot.firstToken();
                    record.firstByte();
                    metrics.upstreamFirstByte(record.model(), route.path(), System.nanoTime() - sentNanos);
                    sentNanos = 0;
                }
                usage.saw(chunk);
                response.write(chunk);
                if (response.writeQueueFull()) {
                    upstream.pause();
                    response.drainHandler(v -> upstream.resume());
                }
            });
            upstream.endHandler(v -> {
                if (done) {
                    return;
                }
                if (upstream.statusCode() / 100 == 2) {
                    reported = usage.scan();
                    if (reported != null) {
                        record.usage(reported.promptTokens(), reported.cachedTokens());
                        metrics.usage(record.model(), slot.worker().url(), reported.promptTokens(),
                                reported.cachedTokens());
                    }
                }
                // Finish before ending: on HTTP/2 ending the response closes the stream, which runs the close
                // handler at once, and that must not read as a client disconnect.
                finish(status, status >= 400 ? "upstream_" + status : null, null, outcome);
                response.end();
            });
            upstream.exceptionHandler(err -> {
                if (done) {
                    return;
                }
                metrics.workerError("stream_error");
                finish(502, "upstream_stream_failed", "stream_error", UpstreamOutcome.CONNECTION_FAILED);
                if (sse) {
                    // The status is out; an event the client parses is the only way to say the answer is cut
                    // short rather than finished.
                    response.end(streamEndedEvent("The worker broke off the stream", "upstream_stream_failed", 502));
                } else {
                    // Headers are out and the body has no framing of its own: closing is the only honest signal.
                    response.reset();
                }
            });
            // Write the head now so a streaming client sees the stream open before the first token.
            response.writeHead();
        }

        private void upstreamFailed(Throwable err) {
            if (done) {
                return;
            }
            if (UpstreamOutcome.isGatewayExhaustion(err)) {
                gatewayExhausted(err);
                return;
            }
            // Netty's connect timeout is a ConnectException too; only a refusal says nothing listens.
            boolean connect = isA(err, ConnectException.class);
            boolean refused = connect && !isA(err, ConnectTimeoutException.class);
            ApiError error = connect
                    ? new ApiError(502, "call_upstream_connection_failed",
                            "Could not connect to worker " + slot.worker().url() + ": " + err.getMessage())
                    : new ApiError(502, "call_upstream_failed",
                            "Request to worker " + slot.worker().url() + " failed: " + err.getMessage());
            metrics.workerError(connect ? "connection_failed" : "request_failed");
            if (refused && markUnreachable) {
                // A worker that refuses is down (restarting, crashed). One that is slow to accept may only be busy:
                // that is for its circuit breaker and health checks to judge over several attempts, not one.
                slot.worker().markUnreachable();
            }
            if (retryElsewhere(UpstreamOutcome.CONNECTION_FAILED, 0)) {
                return;
            }
            // Release before answering, so a client that sees the error sees the worker's load already down.
            finish(error.status(), error.code(), error.code(), UpstreamOutcome.CONNECTION_FAILED);
            error.send(response);
        }

        /** The gateway had no socket to give the attempt: retried, but no worker is blamed. */
        private void gatewayExhausted(Throwable err) {
            metrics.workerError("gateway_exhausted");
            // Every worker would fail alike, and sockets come back as other exchanges end: the same attempt waits for
            // one, within the request's own timeout, and no worker is blamed or retried away from.
            long delayMillis = Math.min(SOCKET_WAIT_MAX_MS, SOCKET_WAIT_FIRST_MS << Math.min(socketWaits, 5));
            socketWaits++;
            retryTimer = vertx.setTimer(delayMillis, id -> {
                retryTimer = -1;
                if (!done) {
                    connect();
                }
            });
        }

        /**
         * The current attempt failed with {@code outcome}: when the retry state allows, hands back the attempt's
         * lease and slot and schedules the next attempt, and returns true; else returns false and the caller answers
         * the client with this failure.
         */
        private boolean retryElsewhere(UpstreamOutcome outcome, int status) {
            RetryState.Decision decision = retry.failed(slot.worker().id(), outcome, status,
                    ThreadLocalRandom.current());
            if (!(decision instanceof RetryState.RetryAfter after)) {
                if (decision instanceof RetryState.GiveUp(String reason) && reason.equals("retries_exhausted")) {
                    metrics.retriesExhausted(route.path());
                }
                return false;
            }
            recordOutcome(outcome);
            // The policy hears of the abandoned attempt as of a request the engine reported nothing for.
            slot.release();
            upstreamRequest = null;
            metrics.retried(route.path(), after.retry(), after.delayMillis());
            retryTimer = vertx.setTimer(after.delayMillis(), id -> {
                retryTimer = -1;
                attemptAgain();
            });
            return true;
        }

        private void attemptAgain() {
            if (done) {
                return;
            }
            ModelPool.Selection next = reselect.next(retry.excludedWorkerIds());
            if (!next.found()) {
                // Every worker is down or its circuit open: say so now rather than wait out more backoff.
                ApiError error = new ApiError(503, "no_available_workers",
                        "No available workers (all circuits open or unhealthy)");
                finish(error.status(), error.code(), error.code(), null);
                error.send(response);
                return;
            }
            slot = next.slot();
            lease = next.lease();
            record.rerouted(slot.worker().url());
            send();
        }

        private void recordOutcome(UpstreamOutcome outcome) {
            lease.record(outcome);
            metrics.breakerOutcome(slot.worker().url(), outcome);
        }

        private void clientGone() {
            if (done || response.ended()) {
                return;
            }
            // Finish first: resetting the upstream fails its future at once, and that path must find us done.
            finish(499, "client_disconnected", "client_disconnected", null);
            if (upstreamRequest != null) {
                upstreamRequest.reset();
            }
        }

        private void timedOut() {
            timer = -1;
            if (done) {
                return;
            }
            if (socketWaits > 0 && upstreamRequest == null) {
                // Never sent: the gateway, not the worker, is to blame.
                ApiError error = new ApiError(503, "gateway_out_of_sockets", "The gateway had no socket free to "
                        + "connect to a worker within " + requestTimeoutMs / 1000 + " s; raise its open-file limit");
                finish(error.status(), error.code(), error.code(), null);
                error.send(response);
                return;
            }
            metrics.workerError("timeout");
            finish(504, "call_upstream_timeout", "timeout", UpstreamOutcome.TIMEOUT);
            if (response.headWritten() && sseStarted) {
                // As for a broken stream: the client must be able to tell a cut answer from a finished one.
                response.end(streamEndedEvent("The worker did not finish within " + requestTimeoutMs / 1000 + " s",
                        "call_upstream_timeout", 504));
            } else if (response.headWritten()) {
                response.reset();
            } else {
                new ApiError(504, "call_upstream_timeout", "Worker " + slot.worker().url()
                        + " did not answer within " + requestTimeoutMs / 1000 + " s").send(response);
            }
            if (upstreamRequest != null) {
                upstreamRequest.reset();
            }
        }

        private static boolean isA(Throwable err, Class<? extends Throwable> type) {
            return type.isInstance(err) || type.isInstance(err.getCause());
        }

        private static Buffer streamEndedEvent(String message, String type, int code) {
            return Buffer.buffer("data: {\"error\":{\"message\":\"" + message + "\",\"type\":\"" + type
                    + "\",\"code\":" + code + "}}\n\n");
        }

        private static int saturated(long tokens) {
            return (int) Math.min(Integer.MAX_VALUE, tokens);
        }

        /**
         * Ends the exchange once: hands back the slot and the breaker lease ({@code outcome} null: the worker is not
         * to blame or praise, the client left or no attempt was running) and records the request.
         */
        private void finish(int status, String errorCode, String errorType, UpstreamOutcome outcome) {
            if (done) {
                return;
            }
            done = true;
            if (outcome == null) {
                lease.release();
            } else {
                recordOutcome(outcome);
            }
            if (retryTimer >= 0) {
                vertx.cancelTimer(retryTimer);
            }
            // Tells the policy what the engine really had cached: policies that learn from it compare it with
            // what their tree predicted.
            // With nothing reported the slot itself knows whether a first token came (none, if never sent).
            if (reported == null) {
                slot.release();
            } else {
                slot.release(new EngineReport(saturated(reported.promptTokens()), saturated(reported.cachedTokens()),
                        true));
            }
            if (timer >= 0) {
                vertx.cancelTimer(timer);
            }
            metrics.routedFinished(record.model(), route.path(), System.nanoTime() - record.startNanos(), errorType);
            record.complete(status, errorCode);
        }
    }
}

package dev.homing.gateway.proxy;

import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.core.policy.EngineReport;
import dev.homing.gateway.workers.InFlightSlot;
import dev.homing.gateway.workers.Worker;
import io.netty.channel.ConnectTimeoutException;
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
import java.util.concurrent.TimeUnit;

/**
 * Sends one routed request to its worker and relays the answer to the client, bytes unchanged, streams included.
 *
 * <p>The streaming path. Everything of one exchange runs on the client connection's event loop, so an exchange
 * needs no locks.
 * <ol>
 *   <li>The request body was read whole (bounded by {@code --max-payload-size}), sniffed, and a worker slot taken.
 *   <li>The original body bytes go to the worker on its keep-alive pool. If the worker refuses the connection it
 *       cannot have seen the request: the slot moves to another worker ({@link Failover}) and this step repeats.
 *   <li>The worker's status and headers are copied (minus hop-by-hop) and the head is written at once, so the
 *       client sees its stream start before the first token.
 *   <li>Each chunk from the worker is written to the client as it arrives, unchanged: SSE events pass through with
 *       no re-framing.
 *   <li>A slow client fills its write queue: the worker's response is paused, Netty stops reading that socket, and
 *       TCP flow control pushes back to the engine. Gateway memory per stream stays bounded by the write queue.
 *   <li>The client drains: the worker's response resumes.
 *   <li>The worker's response ends: the client's response ends and the slot is released.
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

    /** Connect timeout to workers: a worker that does not accept within this is treated as down (reference: 10 s). */
    private static final long CONNECT_TIMEOUT_MS = 10_000;
    /** Workers tried per request when connections are refused: enough to step over a dead worker or two. */
    static final int MAX_CONNECT_ATTEMPTS = 3;

    private final Vertx vertx;
    private final HttpClient client;
    private final GatewayMetrics metrics;
    private final long requestTimeoutMs;

    public UpstreamProxy(Vertx vertx, HttpClient client, GatewayMetrics metrics, long requestTimeoutSecs) {
        this.vertx = vertx;
        this.client = client;
        this.metrics = metrics;
        this.requestTimeoutMs = TimeUnit.SECONDS.toMillis(requestTimeoutSecs);
    }

    /** Another worker for a request whose worker could not be reached; null when there is none. */
    @FunctionalInterface
    public interface Failover {
        InFlightSlot next(Worker unreachable);
    }

    /**
     * Forwards {@code body} to the slot's worker at the same path; releases the slot exactly once at the end. When the
     * worker refuses the connection (so it cannot have seen the request) the request moves to the worker
     * {@code failover} offers, up to {@link #MAX_CONNECT_ATTEMPTS} workers in all.
     */
    public void forward(HttpServerRequest request, Buffer body, InferenceRoute route, SniffedRequest sniffed,
                        InFlightSlot slot, RequestRecord record, Failover failover) {
        new Exchange(request, body, route, sniffed, slot, record, failover).start();
    }

    /** One request's trip to a worker and back. Confined to the client connection's event loop. */
    private final class Exchange {
        private final HttpServerRequest request;
        private final HttpServerResponse response;
        private final Buffer body;
        private final InferenceRoute route;
        private final SniffedRequest sniffed;
        private final RequestRecord record;
        private final Failover failover;
        private InFlightSlot slot;
        private int attempts;
        private HttpClientRequest upstreamRequest;
        private long timer = -1;
        private long sentNanos;
        private boolean done;
        private final UsageTail usage = new UsageTail();
        /** What the engine reported of the request, read at the end of a successful answer; null until then. */
        private UsageTail.Usage reported;

        Exchange(HttpServerRequest request, Buffer body, InferenceRoute route, SniffedRequest sniffed,
                 InFlightSlot slot, RequestRecord record, Failover failover) {
            this.request = request;
            this.response = request.response();
            this.body = body;
            this.route = route;
            this.sniffed = sniffed;
            this.slot = slot;
            this.record = record;
            this.failover = failover;
        }

        void start() {
            response.closeHandler(v -> clientGone());
            timer = vertx.setTimer(requestTimeoutMs, id -> timedOut());
            send();
        }

        private void send() {
            attempts++;
            Worker worker = slot.worker();
            RequestOptions options = new RequestOptions()
                    .setMethod(HttpMethod.POST)
                    .setAbsoluteURI(worker.url() + route.path())
                    .setHeaders(ForwardedHeaders.toWorker(request.headers(), record.requestId(), worker.apiKey()))
                    .setConnectTimeout(CONNECT_TIMEOUT_MS);
            sentNanos = System.nanoTime();
            metrics.sentToWorker(record.model(), worker.url());
            client.request(options)
                    .compose(req -> {
                        if (done) {
                            req.reset();
                            return io.vertx.core.Future.failedFuture("exchange already finished");
                        }
                        upstreamRequest = req;
                        return req.send(body);
                    })
                    .onSuccess(this::relay)
                    .onFailure(this::upstreamFailed);
        }

        private void relay(HttpClientResponse upstream) {
            if (done) {
                return;
            }
            metrics.upstreamResponse(upstream.statusCode());
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
                finish(upstream.statusCode(), upstream.statusCode() >= 400 ? "upstream_" + upstream.statusCode()
                        : null, null);
                response.end();
            });
            upstream.exceptionHandler(err -> {
                if (done) {
                    return;
                }
                metrics.workerError("stream_error");
                // Headers are out; the only honest signal left is closing the connection.
                response.reset();
                finish(502, "upstream_stream_failed", "stream_error");
            });
            // Write the head now so a streaming client sees the stream open before the first token.
            response.writeHead();
        }

        private void upstreamFailed(Throwable err) {
            if (done) {
                return;
            }
            Throwable cause = err.getCause() != null ? err.getCause() : err;
            boolean connect = err instanceof ConnectException || cause instanceof ConnectException
                    || err instanceof ConnectTimeoutException || cause instanceof ConnectTimeoutException;
            ApiError error = connect
                    ? new ApiError(502, "call_upstream_connection_failed",
                            "Could not connect to worker " + slot.worker().url() + ": " + err.getMessage())
                    : new ApiError(502, "call_upstream_failed",
                            "Request to worker " + slot.worker().url() + " failed: " + err.getMessage());
            metrics.workerError(connect ? "connection_failed" : "request_failed");
            if (connect && upstreamRequest == null && attempts < MAX_CONNECT_ATTEMPTS) {
                InFlightSlot next = failover.next(slot.worker());
                if (next != null) {
                    slot.release();
                    slot = next;
                    record.rerouted(next.worker().url());
                    send();
                    return;
                }
            }
            // Release before answering, so a client that sees the error sees the worker's load already down.
            finish(error.status(), error.code(), error.code());
            error.send(response);
        }

        private void clientGone() {
            if (done || response.ended()) {
                return;
            }
            // Finish first: resetting the upstream fails its future at once, and that path must find us done.
            finish(499, "client_disconnected", "client_disconnected");
            if (upstreamRequest != null) {
                upstreamRequest.reset();
            }
        }

        private void timedOut() {
            timer = -1;
            if (done) {
                return;
            }
            metrics.workerError("timeout");
            finish(504, "call_upstream_timeout", "timeout");
            if (response.headWritten()) {
                response.reset();
            } else {
                new ApiError(504, "call_upstream_timeout", "Worker " + slot.worker().url()
                        + " did not answer within " + requestTimeoutMs / 1000 + " s").send(response);
            }
            if (upstreamRequest != null) {
                upstreamRequest.reset();
            }
        }

        private static int saturated(long tokens) {
            return (int) Math.min(Integer.MAX_VALUE, tokens);
        }

        private void finish(int status, String errorCode, String errorType) {
            if (done) {
                return;
            }
            done = true;
            // Tells the policy what the engine really had cached: policies that learn from it compare it with
            // what their tree predicted.
            slot.release(reported == null ? EngineReport.unknown(sentNanos == 0)
                    : new EngineReport(saturated(reported.promptTokens()), saturated(reported.cachedTokens()), true));
            if (timer >= 0) {
                vertx.cancelTimer(timer);
            }
            metrics.routedFinished(record.model(), route.path(), System.nanoTime() - record.startNanos(), errorType);
            record.complete(status, errorCode);
        }
    }
}

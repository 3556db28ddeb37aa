package dev.homing.gateway.proxy;

import dev.homing.core.placement.Placement;
import dev.homing.core.placement.Placer;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.resilience.BreakerLease;
import dev.homing.gateway.resilience.UpstreamOutcome;
import dev.homing.gateway.tracing.RequestSpan;
import dev.homing.gateway.tracing.UpstreamSpan;
import dev.homing.gateway.workers.ConnectGate;
import dev.homing.gateway.workers.Worker;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

/**
 * One attempt of an exchange at one worker: the policy's placement of the request there, the worker's
 * circuit-breaker lease, and the upstream request once a connection is had. A retry is a new leg on a new placement;
 * a prefill/decode request is one exchange with two legs at once, each placed by its own role's policy (the
 * prefill one driven by its {@link PrefillSide}).
 *
 * <p>The exchange moves the placement through its hold, its send and its first token itself; the placement's end
 * goes through the leg, because the lease goes back with it.
 *
 * <p>Invariant: a leg ends exactly once, {@linkplain #answered answered}, {@linkplain #failed failed} or
 * {@linkplain #dropped dropped}: its lease goes back to the breaker (with the worker's outcome, or without news of
 * the worker), its placement ends, which gives the worker's in-flight count back and tells the policy, and its trace
 * span, started at its first send, ends. A leg that has ended tells its listener nothing more; guarded by its
 * placement's phase, which also refuses a second ending.
 *
 * <p>Not thread-safe: confined to its exchange's event loop (a connect gate opened from another loop hops back).
 */
final class UpstreamLeg {

    /** What the exchange hears of a leg's request, on its own event loop, until the leg ends. */
    interface Listener {

        /** The leg has a connection to its worker and is sending the request on it. */
        void connected(UpstreamLeg leg);

        /** The worker's status and headers arrived. */
        void headArrived(UpstreamLeg leg, HttpClientResponse response);

        /** The connection or the request failed before a head arrived. */
        void attemptFailed(UpstreamLeg leg, Throwable error);
    }

    private final String model;
    private final Worker worker;
    private final Placement placement;
    private final BreakerLease lease;
    private final Context context;
    private final GatewayMetrics metrics;
    private final RequestSpan trace;
    /** The attempt's span, from the first send; OFF before it, and when tracing is off. */
    private UpstreamSpan span = UpstreamSpan.OFF;
    /** The upstream request: null until the leg has a connection. */
    private HttpClientRequest request;
    /** When the leg last asked for a connection, for the time to the worker's first byte. */
    private long connectingSinceNanos;
    /** The request's body was written whole to the worker, or its head came back: the engine may be running it. */
    private boolean delivered;

    /**
     * @param context the exchange's event loop
     * @param trace   the exchange's span, whose child the attempt's is
     */
    UpstreamLeg(String model, Placer.Placed<Worker, BreakerLease> placed, Context context, GatewayMetrics metrics,
                RequestSpan trace) {
        this.model = model;
        this.worker = placed.worker();
        this.placement = placed.placement();
        this.lease = placed.permit();
        this.context = context;
        this.metrics = metrics;
        this.trace = trace;
    }

    String model() {
        return model;
    }

    Worker worker() {
        return worker;
    }

    Placement placement() {
        return placement;
    }

    boolean isOver() {
        return placement.phase() == Placement.Phase.ENDED;
    }

    /**
     * Whether the worker received the request whole (its last byte handed to the connection's socket) or answered
     * with a head: from then a failure with no answer means the engine may be running it.
     */
    boolean delivered() {
        return delivered;
    }

    /** When the leg last asked for a connection: nothing the worker did for this request can come before it. */
    long connectingSinceNanos() {
        return connectingSinceNanos;
    }

    /**
     * Gets a connection to the worker, through its connect gate and then its keep-alive pool, and sends {@code body}
     * on it with the client's headers forwarded. May be called again on the same leg when the gateway had no socket
     * to give (nothing reached the worker).
     */
    void send(HttpClient client, String path, MultiMap clientHeaders, String requestId, Buffer body,
              Listener listener) {
        // Host, port and path come parsed from the target; headers go straight into the request's own map.
        // No wait limit for a pooled connection of its own: in Vert.x it would also bound the wait behind
        // other requests' connects, and under a burst of thousands of streams that wait, not the worker, ran out
        // (10 s) and opened every circuit. The TCP connect has its own timeout (Gateway), the wait is bounded by
        // the request timeout.
        RequestOptions options = worker.target().request(HttpMethod.POST, path);
        ConnectGate gate = worker.connectGate();
        connectingSinceNanos = System.nanoTime();
        if (span == UpstreamSpan.OFF) {
            span = trace.attempt(worker, path);
        }
        gate.enter(() -> {
            if (Vertx.currentContext() == context) {
                request(client, options, gate, clientHeaders, requestId, body, listener);
            } else {
                // Let go by a release on another event loop: the leg lives on its own.
                context.runOnContext(v -> request(client, options, gate, clientHeaders, requestId, body, listener));
            }
        });
    }

    /** Asks the pool for a connection to the worker (the gate's turn taken) and sends the request on it. */
    private void request(HttpClient client, RequestOptions options, ConnectGate gate, MultiMap clientHeaders,
                         String requestId, Buffer body, Listener listener) {
        if (isOver()) {
            gate.release();
            return;
        }
        metrics.sentToWorker(model, worker.url());
        // One listener on each of the two futures rather than a composed chain: a few objects fewer a request.
        client.request(options).onComplete(connected -> {
            gate.release();
            if (connected.failed()) {
                if (!isOver()) {
                    listener.attemptFailed(this, connected.cause());
                }
                return;
            }
            HttpClientRequest req = connected.result();
            if (isOver()) {
                req.reset();
                return;
            }
            request = req;
            try {
                listener.connected(this);
                ForwardedHeaders.toWorker(clientHeaders, req.headers(), requestId, worker.target().authorization());
                span.inject(req.headers());
            } catch (RuntimeException e) {
                // As a failed send: the exchange decides (a header Vert.x refuses, say), it does not hang.
                if (!isOver()) {
                    listener.attemptFailed(this, e);
                }
                return;
            }
            // The body's write and the head apart (send() is the two, its write's outcome dropped): the write's
            // success is what says the worker may be running the request.
            req.end(body).onSuccess(written -> delivered = true);
            req.response().onComplete(sent -> {
                if (isOver()) {
                    return;
                }
                if (sent.succeeded()) {
                    delivered = true;
                    span.answered(sent.result().statusCode());
                    listener.headArrived(this, sent.result());
                } else {
                    listener.attemptFailed(this, sent.cause());
                }
            });
        });
    }

    /**
     * The worker's answer ended, with {@code outcome}; {@code usage} is what the engine reported of the request, or
     * null when it reported nothing.
     */
    void answered(UpstreamOutcome outcome, UsageTail.Usage usage) {
        recordOutcome(outcome);
        if (usage == null) {
            placement.endedWithoutReport();
        } else {
            // Tells the policy what the engine really had cached: policies that learn from it compare it with what
            // their tree predicted.
            placement.completed(saturated(usage.promptTokens()), saturated(usage.cachedTokens()));
            span.usage(usage.promptTokens(), usage.cachedTokens());
        }
        span.end(outcome);
    }

    /** The attempt failed with {@code outcome} (the worker's fault, or its answer is retried elsewhere). */
    void failed(UpstreamOutcome outcome) {
        recordOutcome(outcome);
        endPlacement();
        span.end(outcome);
    }

    /** The attempt ends with no word on the worker (the client left, the gateway had no socket to give it). */
    void dropped() {
        lease.release();
        endPlacement();
        span.end(null);
    }

    /** Resets the upstream request, if there is one, so the engine sees the connection close and stops. */
    void reset() {
        if (request != null) {
            request.reset();
        }
    }

    private void recordOutcome(UpstreamOutcome outcome) {
        lease.record(outcome);
        metrics.breakerOutcome(worker.url(), outcome);
    }

    private void endPlacement() {
        if (placement.phase() == Placement.Phase.PLACED) {
            placement.abandoned();
        } else {
            placement.endedWithoutReport();
        }
    }

    private static int saturated(long tokens) {
        return (int) Math.min(Integer.MAX_VALUE, tokens);
    }
}

package dev.homing.gateway;

import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.resilience.AdmissionQueue;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Puts {@link AdmissionQueue} in front of the inference routes, with the Vert.x parts the queue leaves to its caller:
 * a waiting request is paused (its body stays in the socket), a timer expires its ticket at the deadline, the grant
 * hops back to the request's event loop, a client that leaves while waiting gives its place up, and with a rate limit
 * one gateway-wide timer pumps the queue when the next token is due.
 *
 * <p>Invariant: every permit granted is released exactly once, when its response ends or its connection closes
 * (the permit's release is idempotent, so both may try). Thread-safe: the queue locks itself; the pump timer flag is
 * guarded by this object's monitor.
 */
final class InferenceAdmission {

    private final Vertx vertx;
    private final AdmissionQueue queue;
    private final GatewayMetrics metrics;
    private final boolean enabled;
    private final boolean rateLimited;
    /** Whether the gateway-wide pump timer is set; at most one runs. Guarded by this. */
    private boolean pumpTimerSet;

    InferenceAdmission(Vertx vertx, AdmissionQueue.Settings settings, GatewayMetrics metrics) {
        this.vertx = vertx;
        this.queue = new AdmissionQueue(settings, System::nanoTime);
        this.metrics = metrics;
        this.enabled = settings.enabled();
        this.rateLimited = enabled && settings.tokensPerSecond() > 0;
    }

    /**
     * Runs {@code proceed} on the request's event loop once it holds a permit (null when admission control is off),
     * at once or after waiting in the queue; answers 429 (queue full) or 503 (waited too long) itself, with
     * {@code Retry-After}. The caller hands the permit to {@link #release} when its response ends.
     */
    void admit(HttpServerRequest req, Consumer<AdmissionQueue.Permit> proceed) {
        if (!enabled) {
            proceed.accept(null);
            return;
        }
        switch (queue.tryAcquire()) {
            case AdmissionQueue.Admitted admitted -> {
                metrics.rateLimit("allowed");
                proceed.accept(admitted.permit());
            }
            case AdmissionQueue.Rejected rejected -> refuse(req.response(), rejected);
            case AdmissionQueue.Queued queued -> await(req, queued.ticket(), proceed);
        }
    }

    private void await(HttpServerRequest req, AdmissionQueue.Ticket ticket, Consumer<AdmissionQueue.Permit> proceed) {
        // Counted as it joins the queue: how many had to wait is worth seeing, and a test can tell one is waiting.
        metrics.rateLimit("queued");
        // The body is read only once admitted: a waiting request holds a socket, not its body, in memory.
        req.pause();
        Context context = vertx.getOrCreateContext();
        long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(ticket.deadlineNanos() - System.nanoTime()) + 1);
        long deadline = vertx.setTimer(waitMillis, id -> queue.expire(ticket));
        HttpServerResponse response = req.response();
        response.closeHandler(v -> queue.cancel(ticket));
        ticket.permit().whenComplete((permit, failure) -> context.runOnContext(v -> {
            vertx.cancelTimer(deadline);
            if (permit != null) {
                if (response.closed()) {
                    release(permit);
                } else {
                    metrics.rateLimit("allowed");
                    proceed.accept(permit);
                    req.resume();
                }
            } else if (failure instanceof AdmissionQueue.Rejection rejection) {
                refuse(response, rejection.rejected());
            }
            // Otherwise the ticket was cancelled: its client is gone and there is no one to answer.
        }));
        if (rateLimited) {
            pump();
        }
    }

    private void refuse(HttpServerResponse response, AdmissionQueue.Rejected rejected) {
        metrics.rateLimit("rejected");
        response.putHeader("retry-after", String.valueOf(rejected.retryAfterSeconds()));
        new ApiError(rejected.status(), rejected.code(), rejected.status() == 429
                ? "Too many requests waiting; retry after " + rejected.retryAfterSeconds() + " s"
                : "Waited too long for a free slot; retry after " + rejected.retryAfterSeconds() + " s")
                .send(response);
    }

    /** Gives a permit back (null: nothing to give); only the first call counts. */
    void release(AdmissionQueue.Permit permit) {
        if (permit != null && permit.release() && rateLimited && queue.waiting() > 0) {
            pump();
        }
    }

    /**
     * Admits what the rate limit allows and keeps one timer going while requests wait for a token. Synchronized so
     * that a caller finding no timer set always pumps itself: none can see a timer that is about to stand down.
     */
    private synchronized void pump() {
        if (pumpTimerSet) {
            return;
        }
        long nanos = queue.pump();
        if (nanos >= 0) {
            pumpTimerSet = true;
            vertx.setTimer(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos) + 1), id -> {
                synchronized (this) {
                    pumpTimerSet = false;
                }
                pump();
            });
        }
    }
}

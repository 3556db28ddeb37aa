package dev.homing.gateway.proxy;

import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.resilience.AdmissionQueue;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;

import java.util.concurrent.TimeUnit;

/**
 * Puts {@link AdmissionQueue} in front of the inference routes, with the Vert.x parts the queue leaves to its caller:
 * a waiting request is paused (its body stays in the socket), a timer expires its ticket at the deadline, the grant
 * hops back to the request's event loop, and with a rate limit one gateway-wide timer pumps the queue when the next
 * token is due. The client's handlers stay with its exchange ({@link ExchangeLifecycle}): a client that leaves
 * while waiting is for the exchange to report ({@link #cancel}).
 *
 * <p>Invariant: every permit granted is released exactly once: the exchange releases the one it holds when it ends,
 * and a grant that reaches a request whose client left is released here (the permit's release is idempotent).
 * Thread-safe: the queue locks itself; the pump timer flag is guarded by this object's monitor.
 */
public final class InferenceAdmission {

    /** The exchange's side of its admission: told once, on its event loop, how it went. */
    interface Applicant {

        /** The request joined the queue and is paused: cancel {@code ticket} if its client leaves. */
        void queued(AdmissionQueue.Ticket ticket);

        /** Admitted, at once or from the queue: {@code permit} (null when admission control is off) until released. */
        void admitted(AdmissionQueue.Permit permit);

        /** Refused with 429 (queue full) or 503 (waited too long): answer {@code error} with Retry-After. */
        void refused(ApiError error, long retryAfterSeconds);
    }

    private final Vertx vertx;
    private final AdmissionQueue queue;
    private final GatewayMetrics metrics;
    private final boolean enabled;
    private final boolean rateLimited;
    /** Whether the gateway-wide pump timer is set; at most one runs. Guarded by this. */
    private boolean pumpTimerSet;

    public InferenceAdmission(Vertx vertx, AdmissionQueue.Settings settings, GatewayMetrics metrics) {
        this.vertx = vertx;
        this.queue = new AdmissionQueue(settings, System::nanoTime);
        this.metrics = metrics;
        this.enabled = settings.enabled();
        this.rateLimited = enabled && settings.tokensPerSecond() > 0;
    }

    /**
     * Asks for a permit for {@code req}; {@code applicant} hears of it at once (admitted or refused) or, when the
     * request must wait, first {@link Applicant#queued} and later the outcome, on the calling event loop.
     */
    void admit(HttpServerRequest req, Applicant applicant) {
        if (!enabled) {
            applicant.admitted(null);
            return;
        }
        switch (queue.tryAcquire()) {
            case AdmissionQueue.Admitted admitted -> {
                metrics.rateLimit("allowed");
                applicant.admitted(admitted.permit());
            }
            case AdmissionQueue.Rejected rejected -> refuse(applicant, rejected);
            case AdmissionQueue.Queued queued -> await(req, queued.ticket(), applicant);
        }
    }

    /** The waiting request's client left: it gives its place up. */
    void cancel(AdmissionQueue.Ticket ticket) {
        queue.cancel(ticket);
    }

    private void await(HttpServerRequest req, AdmissionQueue.Ticket ticket, Applicant applicant) {
        // Counted as it joins the queue: how many had to wait is worth seeing, and a test can tell one is waiting.
        metrics.rateLimit("queued");
        // The body is read only once admitted: a waiting request holds a socket, not its body, in memory.
        req.pause();
        applicant.queued(ticket);
        Context context = vertx.getOrCreateContext();
        long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(ticket.deadlineNanos() - System.nanoTime()) + 1);
        long deadline = vertx.setTimer(waitMillis, id -> queue.expire(ticket));
        ticket.permit().whenComplete((permit, failure) -> context.runOnContext(v -> {
            vertx.cancelTimer(deadline);
            if (permit != null) {
                if (req.response().closed()) {
                    release(permit);
                } else {
                    metrics.rateLimit("allowed");
                    applicant.admitted(permit);
                    req.resume();
                }
            } else if (failure instanceof AdmissionQueue.Rejection rejection) {
                refuse(applicant, rejection.rejected());
            }
            // Otherwise the ticket was cancelled: its client is gone and there is no one to answer.
        }));
        if (rateLimited) {
            pump();
        }
    }

    private void refuse(Applicant applicant, AdmissionQueue.Rejected rejected) {
        metrics.rateLimit("rejected");
        applicant.refused(new ApiError(rejected.status(), rejected.code(), rejected.status() == 429
                ? "Too many requests waiting; retry after " + rejected.retryAfterSeconds() + " s"
                : "Waited too long for a free slot; retry after " + rejected.retryAfterSeconds() + " s"),
                rejected.retryAfterSeconds());
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

package dev.homing.gateway.proxy;

import dev.homing.core.policy.Decision;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;

/**
 * Holds a routed request back while the prefill its prefix relies on is still being computed on its worker
 * ({@link Decision.Hold}), then lets it go: sent at once, the engine could admit it in the same prefill step as the
 * request computing that prefix, and compute the prefix twice.
 *
 * <p>Invariant: {@link Proceed#proceed} runs exactly once, on the Vert.x context that started the wait, with the
 * first of three endings: the awaited prefill is done (reported from whichever thread saw the first token, so it
 * hops onto the context), the wait's time is up, or the client went away. Every other field is confined to that
 * context, so a plain flag makes the first ending win.
 */
public final class PrefillWait {

    /** How a wait ended; {@link #label()} is the metrics label. */
    public enum Outcome {
        /** The awaited prefill is done: the prefix is in the engine's cache. */
        RELEASED("released"),
        /** The awaited prefill took longer than the wait allows. */
        TIMED_OUT("timed_out"),
        /** The client closed its connection while the request waited. */
        CLIENT_GONE("client_gone");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** What to do once the wait is over. */
    @FunctionalInterface
    public interface Proceed {
        void proceed(Outcome outcome, long heldNanos);
    }

    private final Vertx vertx;
    private final HttpServerResponse response;
    private final Proceed then;
    private final long startNanos = System.nanoTime();
    private long timer = -1;
    private boolean over;

    private PrefillWait(Vertx vertx, HttpServerResponse response, Proceed then) {
        this.vertx = vertx;
        this.response = response;
        this.then = then;
    }

    /**
     * Waits for {@code hold} on behalf of the request answered by {@code response}, then runs {@code then} once on
     * the calling context. Call on the request's event loop.
     */
    public static void start(Vertx vertx, Decision.Hold hold, HttpServerResponse response, Proceed then) {
        new PrefillWait(vertx, response, then).await(hold);
    }

    private void await(Decision.Hold hold) {
        Context context = vertx.getOrCreateContext();
        long millis = Math.max(1, (hold.maxNanos() + 999_999) / 1_000_000);
        timer = vertx.setTimer(millis, id -> {
            timer = -1;
            end(Outcome.TIMED_OUT);
        });
        // The exchange that sends the request replaces this handler with its own.
        response.closeHandler(v -> end(Outcome.CLIENT_GONE));
        hold.awaited().whenDone(() -> context.runOnContext(v -> end(Outcome.RELEASED)));
    }

    private void end(Outcome outcome) {
        if (over) {
            return;
        }
        over = true;
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
        then.proceed(outcome, System.nanoTime() - startNanos);
    }
}

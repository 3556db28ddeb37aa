package dev.homing.gateway.proxy;

import dev.homing.core.placement.Placement;
import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.resilience.UpstreamOutcome;
import dev.homing.gateway.workers.Worker;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;

import java.nio.charset.StandardCharsets;

/**
 * The prefill leg of one prefill/decode attempt, beside the decode leg its exchange relays to the client. It sends
 * the pair's body to the prefill worker at the same moment as the decode leg goes out, reads the prefill's answer
 * (one token: its first byte is the prefill done, which releases requests held for that prefix), keeps its usage for
 * the policy and the per-leg hit rate, and keeps the answer whole only when the client asked for log probabilities
 * (the decode answer gets the prefill's input log probabilities merged in) or when it is an error (the exchange may
 * answer with it).
 *
 * <pre>
 *   PLACED ─send─▶ CONNECTING ─▶ AWAITING_HEAD ─2xx─▶ READING ─end─▶ ANSWERED
 *                   │  ▲            │  non-2xx            │ broken
 *                   ▼  │ socket     ▼                     ▼
 *               SOCKET_WAIT     READING_ERROR ──end──▶ FAILED ◀── connection failed
 *   any live state ── drop / timedOut ──▶ DROPPED (the exchange no longer needs it)
 * </pre>
 *
 * <p>While attached, the exchange hears of a failure ({@link Listener#prefillFailed}) and of a whole answer
 * ({@link Listener#prefillAnswered}). Once the decode answer has ended whole, the exchange {@linkplain #detach
 * detaches} it: the leg then finishes on its own (its placement still counts until its answer ends), at most
 * {@link #DETACHED_GRACE_MS} later.
 *
 * <p>Invariant: the leg ends exactly once, on entering ANSWERED, FAILED or DROPPED, and nothing is heard of it after;
 * guarded by the state check at the top of every event and by the leg's placement, which refuses a second ending.
 * Not thread-safe: confined to the exchange's event loop, as its leg.
 */
final class PrefillSide implements UpstreamLeg.Listener {

    /** What the exchange hears of its prefill leg, while attached. */
    interface Listener {

        /** The leg failed: the connection, an error status (its body in {@code error}) or a broken answer. */
        void prefillFailed(PrefillSide side, UpstreamOutcome outcome, int status, ApiError error);

        /** The prefill's answer ended whole with a 2xx status. */
        void prefillAnswered(PrefillSide side);
    }

    /** Where the leg is; see the diagram above. */
    enum State {
        PLACED, CONNECTING, SOCKET_WAIT, AWAITING_HEAD, READING, READING_ERROR, ANSWERED, FAILED, DROPPED;

        boolean over() {
            return this == ANSWERED || this == FAILED || this == DROPPED;
        }
    }

    /**
     * A detached prefill answer gets this long to end: its decode partner answered whole, so its KV went over long
     * ago and only its own answer's last bytes are missing.
     */
    static final long DETACHED_GRACE_MS = 10_000;
    /** An error answer is kept up to this much; error bodies are a line of JSON. */
    private static final int ERROR_BODY_LIMIT = 64 * 1024;
    /** The answer kept for log probabilities up to this much (about 250,000 prompt tokens' worth); no merge beyond. */
    private static final int LOGPROBS_BODY_LIMIT = 16 * 1024 * 1024;

    private final UpstreamLeg leg;
    private final Vertx vertx;
    private final GatewayMetrics metrics;
    private final Buffer body;
    private final boolean keepAnswer;
    private final boolean markUnreachable;
    private final UsageTail usage = new UsageTail();
    private Listener listener;
    /** The decode answer ended whole: the leg ends alone, and the exchange's ending no longer drops it. */
    private boolean detached;
    private State state = State.PLACED;
    private HttpClient client;
    private String path;
    private MultiMap headers;
    private String requestId;
    private Buffer kept;
    private int status;
    private int socketWaits;
    private long timer = -1;
    private long sentNanos;
    private long answeredNanos;

    /**
     * @param body            the pair's body with the prefill worker's fields
     * @param keepAnswer      keep the whole answer (the client asked for log probabilities)
     * @param markUnreachable take a worker that refuses the connection out of rotation (health checks bring it back)
     */
    PrefillSide(UpstreamLeg leg, Context context, GatewayMetrics metrics, Buffer body, boolean keepAnswer,
                boolean markUnreachable, Listener listener) {
        this.leg = leg;
        this.vertx = context.owner();
        this.metrics = metrics;
        this.body = body;
        this.keepAnswer = keepAnswer;
        this.markUnreachable = markUnreachable;
        this.listener = listener;
    }

    Worker worker() {
        return leg.worker();
    }

    UpstreamLeg leg() {
        return leg;
    }

    State state() {
        return state;
    }

    /** The prefill worker received the request whole and has not answered it whole: it may be running it. */
    boolean deliveredUnanswered() {
        return leg.delivered() && state != State.ANSWERED;
    }

    /** When the leg went out, on the nano clock. */
    long sentNanos() {
        return sentNanos;
    }

    /** When its answer ended whole, or 0 when it has not. */
    long answeredNanos() {
        return answeredNanos;
    }

    /** The whole answer when it was kept ({@code keepAnswer}) and is over, else null. */
    Buffer answer() {
        return state == State.ANSWERED ? kept : null;
    }

    /** Sends the leg: PLACED to CONNECTING; its placement is sent from here. */
    void send(HttpClient httpClient, String routePath, MultiMap clientHeaders, String id) {
        this.client = httpClient;
        this.path = routePath;
        this.headers = clientHeaders;
        this.requestId = id;
        sentNanos = System.nanoTime();
        leg.placement().sent();
        connect();
    }

    private void connect() {
        state = State.CONNECTING;
        leg.send(client, path, headers, requestId, body, this);
    }

    @Override
    public void connected(UpstreamLeg connectedLeg) {
        if (state == State.CONNECTING) {
            state = State.AWAITING_HEAD;
        }
    }

    @Override
    public void attemptFailed(UpstreamLeg failedLeg, Throwable error) {
        if (state != State.CONNECTING && state != State.AWAITING_HEAD) {
            return;
        }
        if (UpstreamOutcome.isGatewayExhaustion(error)) {
            // As the decode leg would: the same attempt connects again after a pause, no worker is blamed.
            metrics.workerError("gateway_exhausted");
            state = State.SOCKET_WAIT;
            timer = vertx.setTimer(UpstreamFailure.socketWaitMillis(socketWaits++), id -> {
                if (state == State.SOCKET_WAIT) {
                    connect();
                }
            });
            return;
        }
        UpstreamFailure failure = UpstreamFailure.of(error, leg.worker());
        metrics.workerError(failure.errorType());
        if (failure.refused() && markUnreachable) {
            leg.worker().markUnreachable();
        }
        fail(UpstreamOutcome.CONNECTION_FAILED, 0, failure.error());
    }

    @Override
    public void headArrived(UpstreamLeg answeringLeg, HttpClientResponse response) {
        if (state != State.AWAITING_HEAD) {
            return;
        }
        status = response.statusCode();
        metrics.upstreamResponse(status);
        boolean ok = status / 100 == 2;
        state = ok ? State.READING : State.READING_ERROR;
        kept = ok && !keepAnswer ? null : Buffer.buffer();
        int limit = ok ? LOGPROBS_BODY_LIMIT : ERROR_BODY_LIMIT;
        response.handler(chunk -> {
            if (state == State.READING && leg.placement().phase() == Placement.Phase.SENT) {
                // The prefill's first byte: its prompt is computed, and requests held for that prefix may go.
                leg.placement().firstToken();
            }
            if (state == State.READING || state == State.READING_ERROR) {
                usage.saw(chunk);
                if (kept != null && kept.length() + chunk.length() <= limit) {
                    kept.appendBuffer(chunk);
                } else if (kept != null && ok) {
                    kept = null;
                }
            }
        });
        response.exceptionHandler(err -> {
            if (state == State.READING || state == State.READING_ERROR) {
                metrics.workerError("stream_error");
                fail(UpstreamOutcome.CONNECTION_FAILED, 0, new ApiError(502, "call_upstream_failed",
                        "Prefill worker " + leg.worker().url() + " broke off its answer: " + err.getMessage()));
            }
        });
        response.endHandler(v -> {
            if (state == State.READING) {
                answered();
            } else if (state == State.READING_ERROR) {
                fail(UpstreamOutcome.ofStatus(status), status, errorOf(response));
            }
        });
    }

    private void answered() {
        state = State.ANSWERED;
        answeredNanos = System.nanoTime();
        UsageTail.Usage reported = usage.scan();
        leg.answered(UpstreamOutcome.SUCCESS, reported);
        String model = leg.model();
        metrics.prefillDecode().prefillAnswered(model, answeredNanos - sentNanos);
        if (reported != null) {
            metrics.usage(model, leg.worker().url(), reported.promptTokens(), reported.cachedTokens());
            metrics.prefillDecode().usage(model, "prefill", reported.promptTokens(), reported.cachedTokens());
        }
        cancelTimer();
        if (listener != null) {
            listener.prefillAnswered(this);
        }
    }

    /** The worker's error answer as the exchange would relay it: its status and its body, in OpenAI's shape. */
    private ApiError errorOf(HttpClientResponse response) {
        String text = kept == null ? "" : kept.toString(StandardCharsets.UTF_8);
        return new ApiError(status, "prefill_" + status, "Prefill worker " + leg.worker().url() + " answered "
                + status + (text.isBlank() ? "" : ": " + text.strip()));
    }

    private void fail(UpstreamOutcome outcome, int failedStatus, ApiError error) {
        state = State.FAILED;
        cancelTimer();
        leg.failed(outcome);
        metrics.prefillDecode().prefillFailed(leg.worker().url());
        if (listener != null) {
            listener.prefillFailed(this, outcome, failedStatus, error);
        }
    }

    /** The exchange no longer needs the leg (retry, client gone, the decode failed): it ends without blame. */
    void drop() {
        if (!detached) {
            dropNow();
        }
    }

    private void dropNow() {
        if (state.over()) {
            return;
        }
        state = State.DROPPED;
        listener = null;
        cancelTimer();
        leg.dropped();
        leg.reset();
    }

    /** The request timed out with the prefill still unanswered: the worker's failure, as for the decode leg. */
    void timedOut() {
        if (state.over()) {
            return;
        }
        listener = null;
        if (state == State.PLACED) {
            dropNow();
            return;
        }
        fail(UpstreamOutcome.TIMEOUT, 0, null);
        leg.reset();
    }

    /** The decode answer ended whole: the leg finishes on its own, within {@link #DETACHED_GRACE_MS}. */
    void detach() {
        listener = null;
        detached = true;
        if (!state.over()) {
            cancelTimer();
            timer = vertx.setTimer(DETACHED_GRACE_MS, id -> {
                timer = -1;
                dropNow();
            });
        }
    }

    private void cancelTimer() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }
}

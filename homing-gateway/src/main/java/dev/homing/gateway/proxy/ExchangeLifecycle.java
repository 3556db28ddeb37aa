package dev.homing.gateway.proxy;

import dev.homing.core.placement.Placement;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.BodyReader;
import dev.homing.gateway.http.HeaderNames;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.kvevents.ExactLookup;
import dev.homing.gateway.resilience.AdmissionQueue;
import dev.homing.gateway.resilience.RetryState;
import dev.homing.gateway.resilience.UpstreamOutcome;
import dev.homing.gateway.tracing.RequestSpan;
import dev.homing.gateway.workers.ModelPool;
import dev.homing.gateway.workers.Worker;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;

import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One inference request through the gateway, from its admission to its access-log line, as an explicit state
 * machine: its {@link Phase} says what it waits for. This class is that state machine and what every exchange does
 * in it; {@link InferenceExchange} (one worker a request) and {@link PrefillDecodeExchange} (a prefill/decode pair
 * an attempt) say where an attempt goes and how its answer is relayed. It installs the client's close handler once,
 * at its start, and every event (the client leaving, the admission queue, the body, the prefill wait, the worker's
 * answer, the timers) is dispatched by phase; an event its phase does not expect is dropped. The access-log line and
 * the request's metrics are written once, on the way into {@link Phase#DONE} (for an answer relayed whole, just
 * after: see step 10). The request's attempts at workers are {@link UpstreamLeg}s, each with its core {@link Placement}; a retry is a
 * transition to a new leg, not a callback.
 *
 * <p>The streaming path. Everything of one exchange runs on the client connection's event loop, so an exchange
 * needs no locks.
 * <ol>
 *   <li>{@code ADMISSION_WAIT}: admission control gives the request a permit at once, queues it (paused: its body
 *       stays in the socket), or refuses it (429 queue full, 503 waited too long).
 *   <li>{@code READING_BODY}: the body is read whole (bounded by {@code --max-payload-size}: 413, and by the
 *       gateway's body memory: 503, see {@link BodyReader}), sniffed
 *       ({@link RoutingText}: 400 for a body that is no JSON object), its model's pool resolved, and the request
 *       placed on a worker ({@link ModelPool}, the core's placement step, with the workers' circuit breakers): 503
 *       at once when no worker is available ({@code workers_at_capacity} with Retry-After when those up are only
 *       recovering, their half-open probe places taken). From here the request counts on its worker.
 *   <li>{@code HELD}: the policy may hold the request until an earlier request's prefill of the same prefix on that
 *       worker is done (its first token), at most the wait it gave; a client that leaves meanwhile is never sent.
 *   <li>{@code CONNECTING}: the original body bytes go to the worker on its keep-alive pool, through its connect
 *       gate ({@code SOCKET_WAIT}: the gateway is out of file descriptors; the same attempt connects again after a
 *       pause, blaming no worker); {@code AWAITING_HEAD} once it has a connection. The request timeout starts at
 *       the first send and keeps running across attempts.
 *   <li>Retry. The connection fails, or the worker answers a retryable status (429, 408, 500, 502, 503, 504) while
 *       nothing has reached the client yet: its answer is drained and dropped, the leg ends (its outcome goes to
 *       the worker's circuit breaker, its placement gives its count back and tells the policy), and after the
 *       backoff of {@link RetryState} ({@code RETRY_BACKOFF}) the request is placed again, avoiding the workers that
 *       failed it, and this step repeats. No worker available at all: 503 at once. A worker that received the body
 *       whole and closed or reset with no answer may be running the request: it is retried only on a worker that
 *       never had it so, at most {@code --retry-max-delivered} times, else the client gets that failure (502).
 *   <li>{@code RELAYING}: the worker's status and headers are copied (minus hop-by-hop); a streaming answer's head
 *       is written at once, so the client sees its stream start before the first token, a sized answer's goes out
 *       with its first chunk (one write, not two). From here nothing is retried.
 *   <li>{@link SseRelay} writes each chunk to the client as it arrives, unchanged: SSE events pass through with no
 *       re-framing. The first chunk is the worker's first token for the policy.
 *   <li>A slow client fills its write queue: the worker's response is paused, Netty stops reading that socket, and
 *       TCP flow control pushes back to the engine. Gateway memory per stream stays bounded by the write queue.
 *   <li>The client drains: the worker's response resumes.
 *   <li>The worker's response ends: the exchange is {@code DONE} and the client's response ends. Then, in a task
 *       the event loop runs once this turn's writes are on their way, the engine's usage is read from the answer's
 *       tail ({@link UsageTail}), the leg ends with it (the policy hears what the engine really cached), and the
 *       record and metrics are written: none of it delays the answer's last bytes (a prefill/decode pair does it
 *       all before ending). A worker that breaks off a stream gets the stream ended with an SSE error event, so
 *       the client sees an error, not a short answer.
 *   <li>The client goes away, in any phase: the leg ends without blame, the upstream request is reset so the engine
 *       sees the connection close and stops generating, and the exchange is {@code DONE}, recorded as 499.
 *   <li>{@code --request-timeout-secs} passes: the upstream request is reset; the client gets 504 if nothing was
 *       sent yet (503 when the gateway never had a socket for it), an SSE error event or a closed connection if the
 *       answer had started.
 * </ol>
 * <pre>
 *   worker ──chunk──▶ upstream.handler ──write──▶ client response ──▶ client
 *     ▲                                                 │ writeQueueFull()
 *     └────────── upstream.pause() ◀────────────────────┘
 *     └────────── upstream.resume() ◀── drainHandler ◀──┘ (client caught up)
 *   client closes ──▶ closeHandler ──▶ leg dropped, upstream request reset() ──▶ worker sees the close
 * </pre>
 *
 * <p>Invariants: the exchange enters {@code DONE} once, and only there (for an answer relayed whole, in the task just
 * after) are its record written and its admission permit released; every leg ends exactly once, when the exchange is
 * done (as late as that task) or moves to another leg (a prefill leg whose decode partner answered whole may end
 * after, on its own, see {@link PrefillSide}); the request timer runs exactly while {@link Phase#underRequestTimeout}
 * holds and a phase's own timer exactly while {@link Phase#hasPhaseTimer} holds. Guarded by the phase check at the
 * top of every event, by {@link #moveTo} (which cancels a phase's timer on the way out and refuses to leave
 * {@code DONE}), and by the legs' placements, which refuse a second ending.
 */
abstract sealed class ExchangeLifecycle implements InferenceAdmission.Applicant, UpstreamLeg.Listener,
        SseRelay.Listener permits InferenceExchange, PrefillDecodeExchange {

    /** What the exchange waits for; see the numbered streaming path above. */
    enum Phase {
        /** For a permit from admission control. */
        ADMISSION_WAIT,
        /** For the whole body; routing happens as it ends. */
        READING_BODY,
        /** For the prompt's tokens from an engine's {@code /tokenize}: the exact view, without a tokenizer here. */
        TOKENIZING,
        /** For an earlier request's prefill on the chosen worker, or the end of the wait. */
        HELD,
        /** For a connection to the worker (its connect gate, then its pool). */
        CONNECTING,
        /** For a moment to pass before connecting again: the gateway had no socket to give. */
        SOCKET_WAIT,
        /** For the worker's status and headers. */
        AWAITING_HEAD,
        /** For the end of the worker's answer, relayed as it comes. */
        RELAYING,
        /** For the backoff before the next attempt, the last one having failed before any byte reached the client. */
        RETRY_BACKOFF,
        /** Nothing: answered or abandoned, recorded. */
        DONE;

        /** A worker was chosen: the exchange has a leg (over already in RETRY_BACKOFF). */
        boolean placed() {
            return this != ADMISSION_WAIT && this != READING_BODY && this != TOKENIZING && this != DONE;
        }

        /** The current leg has not ended. */
        boolean legLive() {
            return placed() && this != RETRY_BACKOFF;
        }

        /** The request has been sent at least once: the request timeout runs. */
        boolean underRequestTimeout() {
            return placed() && this != HELD;
        }

        /** The phase ends by a timer of its own when nothing else ends it first. */
        boolean hasPhaseTimer() {
            return this == HELD || this == SOCKET_WAIT || this == RETRY_BACKOFF;
        }
    }

    final InferenceProxy proxy;
    final HttpServerRequest request;
    final HttpServerResponse response;
    final InferenceRoute route;
    final RequestRecord record;
    final Context context;
    /** The request's trace span (a shared one doing nothing when tracing is off). */
    final RequestSpan trace;
    /** What the exact view told the placement of the prompt, and what is owed back to it. */
    final ExactJudgement exact;
    Phase phase = Phase.ADMISSION_WAIT;
    /** Set when the request joins the admission queue: its place there, given up if the client leaves. */
    private AdmissionQueue.Ticket ticket;
    /** From admission to DONE: the admission permit (null when admission control is off). */
    private AdmissionQueue.Permit permit;
    /**
     * Set once read: the body to forward, counted in the body memory until the answer is relayed or the exchange
     * is done; then, at placement, the model's pool (a pair's decode pool) and what the policy routes on. The body,
     * {@link #legBody} and {@link #routing} are let go once the answer is relayed: a held stream keeps none of its
     * prompt.
     */
    BodyReader.Body body;
    ModelPool pool;
    RoutingRequest routing;
    /** The current leg's body: {@link #body}, with the fields the gateway adds for its worker. */
    Buffer legBody;
    /** Set at placement: the attempts so far, and whether the client has seen a byte. */
    RetryState retry;
    /** Set at placement: the current attempt (a pair's decode leg); in RETRY_BACKOFF the one that failed, over. */
    UpstreamLeg leg;
    /** RELAYING: the worker's status, and its answer's body on the way to the client. */
    int answerStatus;
    SseRelay relay;
    /** RELAYING: an HTTP/1.0 client's answer of unknown length, whose end is the connection's close. */
    private boolean closeDelimited;
    /** While {@link Phase#underRequestTimeout}: the request timeout. */
    private RequestTimeouts.Timeout requestTimeout;
    /** While {@link Phase#hasPhaseTimer}: the timer that ends the phase (the hold's limit, the pause). */
    private long phaseTimer;
    /** Times this exchange found the gateway out of sockets (file descriptors) for its worker connection. */
    private int socketWaits;

    /** Call on the request's event loop: the exchange stays on it. */
    ExchangeLifecycle(InferenceProxy proxy, HttpServerRequest request, InferenceRoute route, RequestRecord record) {
        this.proxy = proxy;
        this.request = request;
        this.response = request.response();
        this.route = route;
        this.record = record;
        this.context = proxy.vertx().getOrCreateContext();
        this.trace = proxy.tracing().request(request, route.path(), record.requestId());
        this.exact = new ExactJudgement(proxy.exactRouting());
        record.traced(trace.traceId());
    }

    // What an exchange decides for itself: where its attempts go, and how their answer reaches the client

    /**
     * READING_BODY: the body is whole, sniffed, and {@link #routing} set: resolve the pool(s) and place the first
     * attempt, then {@link #hold} it; or answer the client.
     */
    abstract void placeFirst(SniffedRequest sniffed);

    /** RETRY_BACKOFF is over: place the next attempt, avoiding the workers that failed, and {@link #send} it. */
    abstract void placeAgain();

    /** HELD: the placement the hold is on. */
    abstract Placement heldPlacement();

    /** The current attempt's workers that received the request whole and have not answered it whole. */
    abstract Set<String> deliveredUnanswered();

    /** Whether a worker outside {@code workerIds} could take the request now, in each role an attempt needs. */
    abstract boolean availableBesides(Set<String> workerIds);

    /** AWAITING_HEAD: the worker's answer is the client's (nothing retried from here on); see {@link #relayAsIs}. */
    abstract void relayAnswer(HttpClientResponse upstream, int status);

    /** RELAYING: the answer's first chunk is on its way to the client, after the common bookkeeping. */
    abstract void firstTokenRelayed();

    /** The current leg ended with the worker's whole answer ({@code usage} null when it reported none). */
    void answered(UsageTail.Usage usage) {
    }

    /** An attempt goes out: its other legs, sent beside the current one. */
    void sendOtherLegs() {
    }

    /** The current leg failed: a connection, an error status, a broken answer. */
    void countLegFailure() {
    }

    /** A chunk of an answer being drained and dropped before a retry. */
    void drained(Buffer chunk) {
    }

    /** The current leg's answer broke off after its head reached the client. */
    void streamCut() {
    }

    /** The request timed out with an attempt under way: its other legs are over too. */
    void otherLegsTimedOut() {
    }

    /** An attempt is given up for a retry, its legs ended: its other legs go with it. */
    void otherLegsDropped() {
    }

    /** DONE, for a request that was placed: {@code nanos} from its start. */
    void placedRequestFinished(long nanos) {
    }

    /** Installs the client's close handler, the only one the request gets, and asks for admission. */
    void start() {
        response.closeHandler(v -> clientClosed());
        proxy.admission().admit(request, this);
    }

    // ADMISSION_WAIT

    @Override
    public void queued(AdmissionQueue.Ticket place) {
        ticket = place;
    }

    @Override
    public void admitted(AdmissionQueue.Permit granted) {
        if (phase != Phase.ADMISSION_WAIT) {
            proxy.admission().release(granted);
            return;
        }
        permit = granted;
        moveTo(Phase.READING_BODY);
        proxy.bodies().read(request, proxy.maxPayloadBytes(), this::bodyRead, this::bodyRefused);
    }

    @Override
    public void refused(ApiError error, long retryAfterSeconds) {
        if (phase == Phase.ADMISSION_WAIT) {
            response.putHeader("retry-after", String.valueOf(retryAfterSeconds));
            answer(error);
        }
    }

    // READING_BODY: the body is whole; sniff, then place

    private void bodyRead(BodyReader.Body received) {
        if (phase != Phase.READING_BODY) {
            received.release();
            return;
        }
        body = received;
        SniffedRequest sniffed;
        try {
            sniffed = RoutingText.sniff(route, received.bytes());
        } catch (BadRequestException e) {
            answer(ApiError.badRequest(e.getMessage()));
            return;
        }
        routing = new RoutingRequest(sniffed.routingText(), request.getHeader(HeaderNames.ROUTING_KEY),
                request.getHeader(HeaderNames.TARGET_WORKER), implicitKey(request));
        placeFirst(sniffed);
    }

    /**
     * READING_BODY: looks the request up in the exact view of {@code viewPool}'s model, the pool whose engines compute
     * the prompt (in TOKENIZING while an engine's {@code /tokenize} answers), puts what it finds on {@link #routing},
     * then runs {@code place} on the event loop, unless the exchange has moved on meanwhile (the client gone).
     */
    void lookUpExact(ModelPool viewPool, Runnable place) {
        Future<ExactLookup> lookup = proxy.exactRouting() == null ? null
                : proxy.exactRouting().lookup(viewPool, route.kind(), ByteSlice.of(body.bytes()));
        if (lookup == null || lookup.isComplete()) {
            routing = exact.applied(routing, lookup, record.requestId());
            place.run();
            return;
        }
        moveTo(Phase.TOKENIZING);
        lookup.onComplete(tokenized -> context.runOnContext(v -> {
            if (phase == Phase.TOKENIZING) {
                routing = exact.applied(routing, lookup, record.requestId());
                place.run();
            }
        }));
    }

    /** 400 for a bad Content-Length, 413 for a body over the limit, 503 with the body memory full, 408 stalled. */
    private void bodyRefused(ApiError error) {
        if (phase == Phase.READING_BODY) {
            answer(error);
        }
    }

    private static String implicitKey(HttpServerRequest req) {
        return RoutingRequest.implicitKey(req.getHeader(HttpHeaderNames.AUTHORIZATION),
                req.getHeader(HeaderNames.FORWARDED_FOR), req.getHeader(HttpHeaderNames.COOKIE));
    }

    /** The body for a leg to {@code worker}: the client's, with a pair's {@code bootstrap} fields and its rank. */
    Buffer bodyFor(Worker worker, String bootstrap) {
        Integer rank = worker.dpRank();
        if (rank == null) {
            return bootstrap == null ? body.bytes() : AddedFields.splice(body.bytes(), bootstrap);
        }
        return AddedFields.splice(body.bytes(), bootstrap == null ? AddedFields.rank(rank)
                : bootstrap + "," + AddedFields.rank(rank));
    }

    /** Sends the request now, or holds it first when its placement asks (a prefill of its prefix is under way). */
    void hold(Placement.Hold hold) {
        if (hold == null) {
            sendFirst();
            return;
        }
        // The placement stays counted and the lease taken while the request waits: its worker's load counts it.
        moveTo(Phase.HELD);
        phaseTimer = proxy.vertx().setTimer(Math.max(1, (hold.maxNanos() + 999_999) / 1_000_000),
                id -> holdEnded(Placement.HoldEnding.TIMED_OUT));
        // Reported from whichever thread saw the first token: it hops onto this exchange's event loop.
        hold.awaited().whenDone(() -> context.runOnContext(v -> holdEnded(Placement.HoldEnding.RELEASED)));
    }

    // HELD

    private void holdEnded(Placement.HoldEnding ending) {
        if (phase == Phase.HELD) {
            endHold(ending);
            sendFirst();
        }
    }

    private void endHold(Placement.HoldEnding ending) {
        long heldNanos = heldPlacement().endHold(ending);
        proxy.metrics().prefillWait(pool.model(), ending.label(), heldNanos);
        trace.held(heldNanos);
    }

    // CONNECTING, SOCKET_WAIT, AWAITING_HEAD: an attempt goes out

    /** The first attempt: the request timeout starts here, so time held for a prefill does not count against it. */
    private void sendFirst() {
        requestTimeout = proxy.requestTimeouts().start(context, this::timedOut);
        send();
    }

    /** An attempt on the current leg (and its other legs). */
    void send() {
        retry.attemptStarted();
        leg.placement().sent();
        sendOtherLegs();
        connect();
    }

    private void connect() {
        moveTo(Phase.CONNECTING);
        leg.send(proxy.client(), route.path(), request.headers(), record.requestId(), legBody, this);
    }

    @Override
    public void connected(UpstreamLeg connectedLeg) {
        if (phase == Phase.CONNECTING) {
            moveTo(Phase.AWAITING_HEAD);
        }
    }

    @Override
    public void attemptFailed(UpstreamLeg failedLeg, Throwable err) {
        if (phase != Phase.CONNECTING && phase != Phase.AWAITING_HEAD) {
            return;
        }
        if (UpstreamOutcome.isGatewayExhaustion(err)) {
            waitForSocket();
            return;
        }
        UpstreamFailure failure = UpstreamFailure.of(err, leg.worker());
        ApiError error = failure.error();
        proxy.metrics().workerError(failure.errorType());
        countLegFailure();
        if (failure.refused() && proxy.markUnreachable()) {
            // A worker that refuses is down (restarting, crashed). One that is slow to accept may only be busy:
            // that is for its circuit breaker and health checks to judge over several attempts, not one.
            leg.worker().markUnreachable();
        }
        if (retryElsewhere(UpstreamOutcome.CONNECTION_FAILED, 0)) {
            return;
        }
        // Ended before answering, so a client that sees the error sees the worker's load already down.
        leg.failed(UpstreamOutcome.CONNECTION_FAILED);
        answer(error);
    }

    /** The gateway had no socket to give the attempt: it connects again after a pause; no worker is blamed. */
    private void waitForSocket() {
        proxy.metrics().workerError("gateway_exhausted");
        // Every worker would fail alike, and sockets come back as other exchanges end: the same attempt waits for
        // one, within the request's own timeout, and no worker is blamed or retried away from.
        long delayMillis = UpstreamFailure.socketWaitMillis(socketWaits++);
        moveTo(Phase.SOCKET_WAIT);
        phaseTimer = proxy.vertx().setTimer(delayMillis, id -> {
            if (phase == Phase.SOCKET_WAIT) {
                connect();
            }
        });
    }

    @Override
    public void headArrived(UpstreamLeg answeringLeg, HttpClientResponse upstream) {
        if (phase != Phase.AWAITING_HEAD) {
            return;
        }
        int status = upstream.statusCode();
        proxy.metrics().upstreamResponse(status);
        UpstreamOutcome outcome = UpstreamOutcome.ofStatus(status);
        if (status / 100 != 2) {
            countLegFailure();
        }
        if (UpstreamOutcome.isRetryable(outcome, status) && retryElsewhere(outcome, status)) {
            // Drained so its connection goes back to the pool; nothing of it reaches the client.
            upstream.exceptionHandler(err -> { });
            upstream.handler(this::drained);
            return;
        }
        relayAnswer(upstream, status);
    }

    /**
     * The worker's answer to the client as it comes: nothing more will be sent or placed. A streaming answer's head
     * goes out at once; a sized one's with its first chunk.
     */
    void relayAsIs(HttpClientResponse upstream, int status) {
        retry.firstByteSent();
        // Nothing more will be sent or placed: the body's memory goes back while the answer streams, and nothing
        // here keeps its bytes or its routing text (10,000 held streams of 20 KB prompts would keep 400 MB).
        body.release();
        legBody = null;
        routing = null;
        startRelaying(upstream, status);
        boolean sized = upstream.headers().contains(HttpHeaderNames.CONTENT_LENGTH);
        // HTTP/1.0 has no chunked framing: an answer of unknown length ends with the connection, and its head
        // goes out with its first chunk (Vert.x writes no head it cannot frame).
        closeDelimited = !sized && request.version() == HttpVersion.HTTP_1_0;
        if (!sized) {
            response.setChunked(true);
        }
        relay = new SseRelay(upstream, response, this);
        if (!sized && !closeDelimited) {
            // A streaming answer's head goes out now, so the client sees the stream open before the first token.
            response.writeHead();
        }
        // A sized answer's head goes out with its first chunk: one write to the client rather than two.
    }

    /** Enters RELAYING with the worker's status and headers copied to the response (not written). */
    void startRelaying(HttpClientResponse upstream, int status) {
        moveTo(Phase.RELAYING);
        answerStatus = status;
        response.setStatusCode(status);
        ForwardedHeaders.toClient(upstream.headers(), response.headers());
        response.putHeader(HeaderNames.REQUEST_ID, record.requestId());
        exact.headers(response);
    }

    // RELAYING

    @Override
    public void firstByte() {
        leg.placement().firstToken();
        record.firstByte();
        trace.firstToken();
        proxy.metrics().upstreamFirstByte(record.model(), route.path(), System.nanoTime() - leg.connectingSinceNanos());
        firstTokenRelayed();
    }

    /**
     * Runs {@code bookkeeping} as a task of the event loop, after the I/O handlers of this turn. On epoll the writes
     * already left in the handler; on io_uring they wait as submissions that Netty hands to the kernel at the start of
     * the loop's next I/O turn, which comes after the tasks, so there the task does not put the bytes ahead of the
     * bookkeeping. (A handler that submitted before the tasks was tried and measured no different: the bookkeeping is
     * a few microseconds, below what a sequential request's latency resolves.) The client of this connection is read
     * again only in a later turn, so it never sees the work undone; a request on another connection, served by
     * another event loop, can be routed within that turn and see the worker still one request busier, as it could
     * see any load a moment old.
     */
    void afterWrites(Runnable bookkeeping) {
        context.runOnContext(v -> bookkeeping.run());
    }

    /** RELAYING and after: the worker answered with a 2xx (an error answer ran nothing and reports no usage). */
    boolean answeredWithSuccess() {
        return answerStatus / 100 == 2;
    }

    /** The worker's whole answer: the engine's usage read from its tail, the leg ended with it. */
    void settleAnswer() {
        UsageTail.Usage usage = null;
        if (answeredWithSuccess()) {
            usage = relay.usage();
            if (usage != null) {
                record.usage(usage.promptTokens(), usage.cachedTokens());
                proxy.metrics().usage(record.model(), leg.worker().url(), usage.promptTokens(), usage.cachedTokens());
            }
        }
        leg.answered(UpstreamOutcome.ofStatus(answerStatus), usage);
        answered(usage);
    }

    String answerErrorCode() {
        return answerStatus >= 400 ? "upstream_" + answerStatus : null;
    }

    void endResponse() {
        if (closeDelimited) {
            // Even on a keep-alive HTTP/1.0 connection: the close is all that tells the client the answer is whole.
            response.end().onComplete(v -> request.connection().close());
        } else {
            response.end();
        }
    }

    @Override
    public void relayBroken(Throwable error) {
        proxy.metrics().workerError("stream_error");
        countLegFailure();
        if (!response.headWritten()) {
            // A pair's decode broke off before anything reached the client: as a failure before the head.
            if (retryElsewhere(UpstreamOutcome.CONNECTION_FAILED, 0)) {
                return;
            }
            leg.failed(UpstreamOutcome.CONNECTION_FAILED);
            unsendHead();
            answer(new ApiError(502, "upstream_stream_failed", "The worker broke off its answer"));
            return;
        }
        leg.failed(UpstreamOutcome.CONNECTION_FAILED);
        streamCut();
        finish(502, "upstream_stream_failed", "stream_error");
        if (relay.isEventStream()) {
            // The status is out; an event the client parses is the only way to say the answer is cut short rather
            // than finished.
            response.end(new ApiError(502, "upstream_stream_failed", "The worker broke off the stream").sseEvent());
        } else {
            // Headers are out and the body has no framing of its own: closing is the only honest signal.
            response.reset();
        }
    }

    /** Forgets the worker's status and headers copied to the response, which was never written. */
    void unsendHead() {
        if (relay != null) {
            relay.stop();
            relay = null;
        }
        response.headers().clear();
        response.setChunked(false);
        response.putHeader(HeaderNames.REQUEST_ID, record.requestId());
    }

    // Any phase: the client leaves, the request times out

    private void clientClosed() {
        switch (phase) {
            case DONE -> { }
            case ADMISSION_WAIT -> {
                // A close comes only once admission was asked, and a request still waiting then was queued.
                proxy.admission().cancel(ticket);
                clientGone();
            }
            case READING_BODY, TOKENIZING, RETRY_BACKOFF -> clientGone();
            case HELD -> {
                endHold(Placement.HoldEnding.CLIENT_GONE);
                leg.dropped();
                clientGone();
            }
            case CONNECTING, SOCKET_WAIT, AWAITING_HEAD, RELAYING -> {
                leg.dropped();
                // Done first: resetting the upstream fails its future at once, and that path must find it done.
                clientGone();
                leg.reset();
            }
        }
    }

    private void clientGone() {
        finish(499, "client_disconnected", "client_disconnected");
    }

    private void timedOut() {
        if (!phase.underRequestTimeout()) {
            return;
        }
        Phase from = phase;
        long seconds = proxy.requestTimeouts().timeout().toSeconds();
        if (socketWaits > 0 && from != Phase.AWAITING_HEAD && from != Phase.RELAYING) {
            // Never sent: the gateway, not the worker, is to blame.
            if (from.legLive()) {
                leg.dropped();
            }
            answer(new ApiError(503, "gateway_out_of_sockets", "The gateway had no socket free to connect to a "
                    + "worker within " + seconds + " s; raise its open-file limit"));
            return;
        }
        proxy.metrics().workerError("timeout");
        if (from.legLive()) {
            leg.failed(UpstreamOutcome.TIMEOUT);
        }
        otherLegsTimedOut();
        // A pair's head goes out with its first chunk: relaying, but nothing written yet, it can still say 504.
        boolean started = from == Phase.RELAYING && response.headWritten();
        if (from == Phase.RELAYING && !started) {
            unsendHead();
        }
        finish(504, "call_upstream_timeout", "timeout");
        if (started && relay.isEventStream()) {
            // As for a broken stream: the client must be able to tell a cut answer from a finished one.
            response.end(new ApiError(504, "call_upstream_timeout",
                    "The worker did not finish within " + seconds + " s").sseEvent());
        } else if (started) {
            response.reset();
        } else {
            new ApiError(504, "call_upstream_timeout", "Worker " + leg.worker().url() + " did not answer within "
                    + seconds + " s").send(response);
        }
        if (from.legLive()) {
            leg.reset();
        }
    }

    // RETRY_BACKOFF

    /**
     * The current attempt failed with {@code outcome}: when the retry state allows, ends its leg and schedules the
     * next attempt, and returns true; else returns false and the caller answers the client with this failure.
     */
    boolean retryElsewhere(UpstreamOutcome outcome, int status) {
        // The policy hears of the abandoned attempt as of a request the engine reported nothing for.
        return retryAttempt(leg.worker().id(), outcome, status, () -> leg.failed(outcome));
    }

    /**
     * As {@link #retryElsewhere}, for a failure of the attempt at {@code failedWorkerId} (a pair's decode or prefill
     * worker): {@code endLegs} ends the attempt's current leg, and {@link #otherLegsDropped} the rest. A request the
     * worker received whole and never answered may be running there: {@link RetryState} bars the attempt's workers
     * that had it and allows it elsewhere at most {@code --retry-max-delivered} times.
     */
    boolean retryAttempt(String failedWorkerId, UpstreamOutcome outcome, int status, Runnable endLegs) {
        RetryState.Decision decision = retry.failed(
                new RetryState.Failure(failedWorkerId, outcome, status, deliveredUnanswered()),
                this::availableBesides, ThreadLocalRandom.current());
        if (decision instanceof RetryState.GiveUp(RetryState.GiveUpReason reason)) {
            if (reason != RetryState.GiveUpReason.NOT_RETRYABLE) {
                proxy.metrics().retryGaveUp(route.path(), reason);
            }
            return false;
        }
        RetryState.RetryAfter after = (RetryState.RetryAfter) decision;
        if (phase == Phase.RELAYING) {
            // Only a pair is retried from here, its head unwritten. The relay stops first: resetting a leg fails its
            // answer at once, and the relay must not hear of it.
            unsendHead();
        }
        endLegs.run();
        otherLegsDropped();
        proxy.metrics().retried(route.path(), after);
        moveTo(Phase.RETRY_BACKOFF);
        phaseTimer = proxy.vertx().setTimer(after.delayMillis(), id -> attemptAgain());
        return true;
    }

    private void attemptAgain() {
        if (phase == Phase.RETRY_BACKOFF) {
            placeAgain();
        }
    }

    // DONE

    /** Answers with an error of the gateway's own; any leg has ended already. */
    void answer(ApiError error) {
        finish(error.status(), error.code(), error.code());
        error.send(response);
    }

    /**
     * Enters DONE, once, and settles what it owes ({@code errorType} null: no error); see {@link #enterDone} and
     * {@link #settle}.
     */
    void finish(int status, String errorCode, String errorType) {
        settle(enterDone(), status, errorCode, errorType);
    }

    /** Enters DONE, once: stops the timers and the relay; returns the phase it left. */
    Phase enterDone() {
        Phase from = phase;
        moveTo(Phase.DONE);
        if (from.underRequestTimeout() && requestTimeout != null) {
            requestTimeout.cancel();
        }
        if (from == Phase.RELAYING && relay != null) {
            relay.stop();
        }
        return from;
    }

    /**
     * What DONE owes, left {@code from}: the admission permit and the body's memory back, the record and the routed
     * request's metrics written.
     */
    void settle(Phase from, int status, String errorCode, String errorType) {
        proxy.admission().release(permit);
        if (body != null) {
            body.release();
        }
        if (from.placed()) {
            long nanos = System.nanoTime() - record.startNanos();
            proxy.metrics().routedFinished(record.model(), route.path(), nanos, errorType);
            placedRequestFinished(nanos);
        }
        record.complete(status, errorCode);
        trace.end(status, errorCode);
    }

    void moveTo(Phase next) {
        if (phase == Phase.DONE) {
            throw new IllegalStateException("exchange " + record.requestId() + " is done; cannot move to " + next);
        }
        if (phase.hasPhaseTimer()) {
            proxy.vertx().cancelTimer(phaseTimer);
        }
        phase = next;
    }
}

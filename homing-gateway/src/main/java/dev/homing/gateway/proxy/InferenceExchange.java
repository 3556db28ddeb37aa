package dev.homing.gateway.proxy;

import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.placement.Placement;
import dev.homing.core.placement.Placer;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.RoutingView;
import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.BodyReader;
import dev.homing.gateway.http.HeaderNames;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.resilience.AdmissionQueue;
import dev.homing.gateway.resilience.BreakerLease;
import dev.homing.gateway.resilience.RetryState;
import dev.homing.gateway.resilience.UpstreamOutcome;
import dev.homing.gateway.tracing.RequestSpan;
import dev.homing.gateway.workers.ModelPool;
import dev.homing.gateway.workers.NoRouteException;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.workers.WorkerRole;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One inference request through the gateway, from its admission to its access-log line, as an explicit state
 * machine: its {@link Phase} says what it waits for. It installs the client's close handler once, at its start, and
 * every event (the client leaving, the admission queue, the body, the prefill wait, the worker's answer, the timers)
 * is dispatched by phase; an event its phase does not expect is dropped. The access-log line and the request's
 * metrics are written once, on the way into {@link Phase#DONE} (for an answer relayed whole, just after: see step
 * 10). The request's attempts at workers are {@link UpstreamLeg}s, each with its core {@link Placement}; a retry is a
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
 * <p>Prefill/decode mode. An attempt is a pair: a decode leg (the one above: its answer is the client's) and a
 * {@link PrefillSide} beside it, each placed by its own role's policy. Their bodies are the client's with the pair's
 * bootstrap fields spliced in ({@link AddedFields}); both go out at once. The prefill leg counts on its worker from
 * its placement and may be held for an earlier prefill of its prefix; the decode leg is never held. The decode
 * answer's head goes out with its first chunk, not before, so a leg that fails before the decode's first token
 * (either one: a connection, a retryable status, a broken answer) fails the pair, whose other leg is let go and reset,
 * and the pair is placed again on other workers within the retry budget. After it, a broken decode stream ends with
 * an SSE error event as above, and a prefill failure changes nothing (the KV is across). When the client asked for
 * log probabilities the decode answer waits for the prefill's and is relayed with its input log probabilities merged
 * in ({@link LogprobMerge}).
 *
 * <p>Invariants: the exchange enters {@code DONE} once, and only there (for an answer relayed whole, in the task just
 * after) are its record written and its admission permit released; every leg ends exactly once, when the exchange is
 * done (as late as that task) or moves to another leg (a prefill leg whose decode partner answered whole may end
 * after, on its own, see {@link PrefillSide}); the request timer runs exactly while {@link Phase#underRequestTimeout}
 * holds and a phase's own timer exactly while {@link Phase#hasPhaseTimer} holds. Guarded by the phase check at the
 * top of every event, by {@link #moveTo} (which cancels a phase's timer on the way out and refuses to leave
 * {@code DONE}), and by the legs' placements, which refuse a second ending.
 */
final class InferenceExchange implements InferenceAdmission.Applicant, UpstreamLeg.Listener, SseRelay.Listener,
        PrefillSide.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(InferenceExchange.class);
    /** The first wait for a free socket once the gateway ran out of them; it doubles up to the maximum. */
    private static final long SOCKET_WAIT_FIRST_MS = 50;
    private static final long SOCKET_WAIT_MAX_MS = 1_000;
    /** A probe place frees when a probe request ends, which for a short request is well within a second. */
    private static final int PROBE_RETRY_AFTER_SECS = 1;

    /**
     * What SGLang's decode engine names when the KV of a request's bootstrap room never came from its prefill
     * partner ({@code KVTransferError(bootstrap_room=...): reason}), counted as a KV transfer failure.
     */
    private static final String KV_TRANSFER_ERROR = "KVTransferError";

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

    private final InferenceProxy proxy;
    private final HttpServerRequest request;
    private final HttpServerResponse response;
    private final InferenceRoute route;
    private final RequestRecord record;
    private final Context context;
    /** The request's trace span (a shared one doing nothing when tracing is off). */
    private final RequestSpan trace;
    private Phase phase = Phase.ADMISSION_WAIT;
    /** Set when the request joins the admission queue: its place there, given up if the client leaves. */
    private AdmissionQueue.Ticket ticket;
    /** From admission to DONE: the admission permit (null when admission control is off). */
    private AdmissionQueue.Permit permit;
    /**
     * Set once read: the body to forward, counted in the body memory until the answer is relayed or the exchange
     * is done; then, at placement, the model's pool and what the policy routes on. The body, {@link #legBody} and
     * {@link #routing} are let go once the answer is relayed: a held stream keeps none of its prompt.
     */
    private BodyReader.Body body;
    private ModelPool pool;
    private RoutingRequest routing;
    /** The decision that placed the current leg (not a pair's): its view goes out in the answer's headers. */
    private Decision judged;
    /** The prompt's tokens, where an exact view counted them; else 0. */
    private int promptTokens;
    /** Set at placement when the gateway adds fields to the body (a pair's bootstrap fields, a rank); else null. */
    private AddedFields added;
    /** The current leg's body: {@link #body}, with the fields the gateway adds for its worker. */
    private Buffer legBody;
    /** Prefill/decode mode, set at placement: the prefill pool ({@link #pool} is the decode one). */
    private ModelPool prefillPool;
    /** Prefill/decode mode: the current attempt's prefill leg, beside its decode leg {@link #leg}; else null. */
    private PrefillSide prefill;
    /**
     * Prefill/decode mode, RELAYING: a decode answer paused until its prefill's answer is whole, whose log
     * probabilities it gets; null when none waits (and then {@link #relay} is set).
     */
    private HttpClientResponse heldAnswer;
    /** Set at placement: the attempts so far, and whether the client has seen a byte. */
    private RetryState retry;
    /** Set at placement: the current attempt; in RETRY_BACKOFF the one that failed, already over. */
    private UpstreamLeg leg;
    /** RELAYING: the worker's status, and its answer's body on the way to the client. */
    private int answerStatus;
    private SseRelay relay;
    /** RELAYING: an HTTP/1.0 client's answer of unknown length, whose end is the connection's close. */
    private boolean closeDelimited;
    /** While {@link Phase#underRequestTimeout}: the request timeout. */
    private RequestTimeouts.Timeout requestTimeout;
    /** While {@link Phase#hasPhaseTimer}: the timer that ends the phase (the hold's limit, the pause). */
    private long phaseTimer;
    /** Times this exchange found the gateway out of sockets (file descriptors) for its worker connection. */
    private int socketWaits;

    /** Call on the request's event loop: the exchange stays on it. */
    InferenceExchange(InferenceProxy proxy, HttpServerRequest request, InferenceRoute route, RequestRecord record) {
        this.proxy = proxy;
        this.request = request;
        this.response = request.response();
        this.route = route;
        this.record = record;
        this.context = proxy.vertx().getOrCreateContext();
        this.trace = proxy.tracing().request(request, route.path(), record.requestId());
        record.traced(trace.traceId());
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

    // READING_BODY: the body is whole; sniff, resolve and place

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
        if (proxy.prefillDecode()) {
            if (!placeFirstPair(sniffed)) {
                return;
            }
            hold(prefill.leg().placement().hold());
            return;
        }
        try {
            pool = proxy.registry().resolve(sniffed.model());
            added = proxy.dpAware() ? AddedFields.read(ByteSlice.of(received.bytes())) : null;
        } catch (NoRouteException e) {
            answer(e.error());
            return;
        } catch (BadRequestException e) {
            answer(ApiError.badRequest(e.getMessage()));
            return;
        }
        Future<ExactOverlay> exact = proxy.exactRouting() == null ? null
                : proxy.exactRouting().overlay(pool, route.kind(), ByteSlice.of(received.bytes()));
        if (exact == null || exact.isComplete()) {
            placeFirst(sniffed.stream(), exact);
            return;
        }
        moveTo(Phase.TOKENIZING);
        exact.onComplete(tokenized -> context.runOnContext(v -> {
            if (phase == Phase.TOKENIZING) {
                placeFirst(sniffed.stream(), exact);
            }
        }));
    }

    // READING_BODY or TOKENIZING: the request's first placement, with its exact view when it has one

    private void placeFirst(boolean stream, Future<ExactOverlay> exact) {
        if (exact != null && exact.succeeded()) {
            routing = routing.withExact(exact.result());
            promptTokens = exact.result().promptTokens();
        } else if (exact != null) {
            LOG.debug("request {}: no exact view ({}); routed on the tree", record.requestId(),
                    exact.cause().getMessage());
        }
        Placer.Placed<Worker, BreakerLease> placed = pool.place(routing, proxy.breakers());
        if (!placed.found()) {
            noWorker("No available workers (all circuits open, unhealthy or draining) for model " + pool.model());
            return;
        }
        retry = proxy.retryPolicy().start();
        leg = new UpstreamLeg(pool.model(), placed, context, proxy.metrics(), trace);
        legBody = bodyFor(leg.worker(), null);
        Decision decision = placed.decision();
        judged = decision;
        record.routed(pool.model(), leg.worker().url(), decision.branch(),
                decision.textChars() > 0 ? decision.matchRatio() : -1, decision.view().label());
        trace.routed(pool.model(), pool.policy().name(), decision, leg.worker().url());
        String worker = leg.worker().url();
        hold(leg.placement().hold());
        afterWrites(() -> proxy.metrics().routed(pool.model(), worker, route.path(), stream,
                pool.policy().name(), decision));
    }

    /** Sends the request now, or holds it first when its placement asks (a prefill of its prefix is under way). */
    private void hold(Placement.Hold hold) {
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

    /**
     * Prefill/decode mode: resolves the model's prefill and decode pools and places the first pair. Returns false
     * after answering the client when it cannot (the route is not paired, no pool, a body that sets the gateway's
     * fields, no worker available).
     */
    private boolean placeFirstPair(SniffedRequest sniffed) {
        if (!route.pairs()) {
            answer(new ApiError(501, "not_implemented", route.path() + " is not served in prefill/decode mode"));
            return false;
        }
        try {
            prefillPool = proxy.registry().resolve(sniffed.model(), WorkerRole.PREFILL);
        } catch (NoRouteException e) {
            answer(e.error());
            return false;
        }
        pool = proxy.registry().pool(prefillPool.model(), WorkerRole.DECODE);
        if (pool == null) {
            answer(new ApiError(503, "no_decode_workers", "No decode workers for model " + prefillPool.model()));
            return false;
        }
        try {
            added = AddedFields.read(ByteSlice.of(body.bytes()));
        } catch (BadRequestException e) {
            proxy.metrics().prefillDecode().bootstrapFailed(pool.model());
            answer(ApiError.badRequest(e.getMessage()));
            return false;
        }
        retry = proxy.retryPolicy().start();
        if (!placePair(Set.of(), Set.of(), true)) {
            return false;
        }
        proxy.metrics().routedRequest(pool.model(), route.path(), sniffed.stream());
        return true;
    }

    /**
     * Places a prefill/decode pair, avoiding {@code failed} workers while others are available and {@code barred}
     * ones always: the prefill leg by its pool's policy (on a first placement it may be held for an earlier prefill
     * of its prefix), the decode leg by its own, never held (a decode engine is handed the prefix, it does not
     * compute it). Gives the pair its bootstrap room and each leg its body. Returns false after answering 503 when
     * either role has no worker.
     */
    private boolean placePair(Set<String> failed, Set<String> barred, boolean first) {
        Placer.Placed<Worker, BreakerLease> prefillPlaced = first ? prefillPool.place(routing, proxy.breakers())
                : prefillPool.placeAgain(routing, failed, barred, proxy.breakers());
        if (!prefillPlaced.found()) {
            answer(new ApiError(503, "server_selection_failed",
                    "No available servers: no available prefill workers (all circuits open or unhealthy)"
                            + proxy.registry().unavailable(WorkerRole.PREFILL, prefillPool.model(),
                                    WorkerRegistry.UNAVAILABLE_NAMED).clause()));
            return false;
        }
        UpstreamLeg prefillLeg = new UpstreamLeg(prefillPool.model(), prefillPlaced, context, proxy.metrics(), trace);
        Placer.Placed<Worker, BreakerLease> decodePlaced = pool.placeAgain(routing, failed, barred,
                proxy.breakers());
        if (!decodePlaced.found()) {
            prefillLeg.dropped();
            answer(new ApiError(503, "server_selection_failed",
                    "No available servers: no available decode workers (all circuits open or unhealthy)"
                            + proxy.registry().unavailable(WorkerRole.DECODE, pool.model(),
                                    WorkerRegistry.UNAVAILABLE_NAMED).clause()));
            return false;
        }
        leg = new UpstreamLeg(pool.model(), decodePlaced, context, proxy.metrics(), trace);
        Worker prefillWorker = prefillLeg.worker();
        String bootstrap = added.bootstrap(prefillWorker.target().host(), prefillWorker.bootstrapPort(),
                ThreadLocalRandom.current()::nextLong);
        legBody = bodyFor(leg.worker(), bootstrap);
        prefill = new PrefillSide(prefillLeg, context, proxy.metrics(), bodyFor(prefillWorker, bootstrap),
                added.logprobs(), proxy.markUnreachable(), this);
        String workers = prefillWorker.url() + "|" + leg.worker().url();
        Decision decision = prefillPlaced.decision();
        if (first) {
            record.routed(pool.model(), workers, decision.branch(),
                    decision.textChars() > 0 ? decision.matchRatio() : -1);
            trace.routed(pool.model(), prefillPool.policy().name(), decision, workers);
        } else {
            record.rerouted(workers);
        }
        proxy.metrics().legPlaced(WorkerRole.PREFILL, pool.model(), prefillWorker.url(), prefillPool.policy().name(),
                decision);
        proxy.metrics().legPlaced(WorkerRole.DECODE, pool.model(), leg.worker().url(), pool.policy().name(),
                decodePlaced.decision());
        return true;
    }

    /** The body for a leg to {@code worker}: the client's, with the pair's {@code bootstrap} fields and its rank. */
    private Buffer bodyFor(Worker worker, String bootstrap) {
        Integer rank = worker.dpRank();
        if (rank == null) {
            return bootstrap == null ? body.bytes() : AddedFields.splice(body.bytes(), bootstrap);
        }
        return AddedFields.splice(body.bytes(), bootstrap == null ? AddedFields.rank(rank)
                : bootstrap + "," + AddedFields.rank(rank));
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

    // HELD

    private void holdEnded(Placement.HoldEnding ending) {
        if (phase == Phase.HELD) {
            endHold(ending);
            sendFirst();
        }
    }

    private void endHold(Placement.HoldEnding ending) {
        Placement held = prefill != null ? prefill.leg().placement() : leg.placement();
        long heldNanos = held.endHold(ending);
        proxy.metrics().prefillWait(pool.model(), ending.label(), heldNanos);
        trace.held(heldNanos);
    }

    // CONNECTING, SOCKET_WAIT, AWAITING_HEAD: an attempt goes out

    /** The first attempt: the request timeout starts here, so time held for a prefill does not count against it. */
    private void sendFirst() {
        requestTimeout = proxy.requestTimeouts().start(context, this::timedOut);
        send();
    }

    /** An attempt on the current leg. */
    private void send() {
        retry.attemptStarted();
        leg.placement().sent();
        if (prefill != null) {
            // Both legs at once: the decode engine registers the room while the prefill computes it.
            prefill.send(proxy.client(), route.path(), request.headers(), record.requestId());
            proxy.metrics().prefillDecode().paired(route.path(), prefill.worker().url(), leg.worker().url());
        }
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
        decodeFailed();
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
            decodeFailed();
        }
        if (UpstreamOutcome.isRetryable(outcome, status) && retryElsewhere(outcome, status)) {
            // Drained so its connection goes back to the pool; nothing of it reaches the client.
            upstream.exceptionHandler(err -> { });
            upstream.handler(this::noteKvTransferError);
            return;
        }
        if (prefill != null && status / 100 == 2) {
            relayPair(upstream, status);
            return;
        }
        retry.firstByteSent();
        // Nothing more will be sent or placed: the body's memory goes back while the answer streams, and nothing
        // here keeps its bytes or its routing text (10,000 held streams of 20 KB prompts would keep 400 MB).
        body.release();
        legBody = null;
        routing = null;
        moveTo(Phase.RELAYING);
        answerStatus = status;
        response.setStatusCode(status);
        ForwardedHeaders.toClient(upstream.headers(), response.headers());
        response.putHeader(HeaderNames.REQUEST_ID, record.requestId());
        routingViewHeaders();
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

    /**
     * Prefill/decode mode: the decode worker answered 2xx. Its head is copied but not written: it goes out with the
     * first chunk, so a prefill that fails before the decode's first token still has the pair retried, with nothing
     * sent to the client. When the client asked for log probabilities, the answer waits (paused) for the prefill's
     * whole answer and is relayed with the prefill's input log probabilities merged in.
     */
    private void relayPair(HttpClientResponse upstream, int status) {
        moveTo(Phase.RELAYING);
        answerStatus = status;
        response.setStatusCode(status);
        ForwardedHeaders.toClient(upstream.headers(), response.headers());
        response.putHeader(HeaderNames.REQUEST_ID, record.requestId());
        if (added.logprobs()) {
            response.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
        }
        if (added.logprobs() || !upstream.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
            response.setChunked(true);
        }
        if (added.logprobs() && prefill.state() != PrefillSide.State.ANSWERED) {
            heldAnswer = upstream;
            upstream.pause();
            return;
        }
        startPairRelay(upstream);
    }

    private void startPairRelay(HttpClientResponse upstream) {
        Buffer prefillAnswer = added.logprobs() ? prefill.answer() : null;
        relay = prefillAnswer == null ? new SseRelay(upstream, response, this)
                : new SseRelay(upstream, response, this, new LogprobMerge(LogprobMerge.prefillLogprobs(prefillAnswer),
                        SseRelay.isEventStream(upstream)));
    }

    /** A pair's drained decode answer names a KV transfer failure (its prefill's KV never came). */
    private void noteKvTransferError(Buffer chunk) {
        if (prefill != null && chunk.toString(StandardCharsets.UTF_8).contains(KV_TRANSFER_ERROR)) {
            proxy.metrics().prefillDecode().kvTransferFailed(pool.model());
        }
    }

    /** Prefill/decode mode: the decode leg failed (a connection, an error status, a broken answer). */
    private void decodeFailed() {
        if (prefill != null) {
            proxy.metrics().prefillDecode().decodeFailed(leg.worker().url());
        }
    }

    // The prefill leg of a pair

    @Override
    public void prefillAnswered(PrefillSide side) {
        if (side == prefill && phase == Phase.RELAYING && heldAnswer != null) {
            HttpClientResponse upstream = heldAnswer;
            heldAnswer = null;
            startPairRelay(upstream);
            upstream.resume();
        }
    }

    /**
     * The prefill leg failed. Before the decode leg's first token the pair cannot be served: it is retried on other
     * workers when the retry state allows (the decode leg is let go without blame), else the client gets the
     * prefill's error. After it, the KV is across and the decode finishes without its partner.
     */
    @Override
    public void prefillFailed(PrefillSide side, UpstreamOutcome outcome, int status, ApiError error) {
        if (side != prefill || !phase.legLive() || phase == Phase.HELD
                || leg.placement().phase() == Placement.Phase.FIRST_TOKEN) {
            return;
        }
        if (retryPair(side.worker().id(), outcome, status, this::letDecodeGo)) {
            return;
        }
        Phase from = phase;
        leg.dropped();
        if (from == Phase.RELAYING) {
            unsendHead();
        }
        answer(error);
        leg.reset();
    }

    /** The decode leg of a pair whose prefill failed: it ends with no word on its worker, its request reset. */
    private void letDecodeGo() {
        leg.dropped();
        leg.reset();
    }

    /** Forgets the decode worker's status and headers copied to the response, which was never written. */
    private void unsendHead() {
        if (relay != null) {
            relay.stop();
            relay = null;
        }
        heldAnswer = null;
        response.headers().clear();
        response.setChunked(false);
        response.putHeader(HeaderNames.REQUEST_ID, record.requestId());
    }

    // RETRY_BACKOFF

    /**
     * The current attempt failed with {@code outcome}: when the retry state allows, ends its leg and schedules the
     * next attempt, and returns true; else returns false and the caller answers the client with this failure.
     */
    private boolean retryElsewhere(UpstreamOutcome outcome, int status) {
        // The policy hears of the abandoned attempt as of a request the engine reported nothing for.
        return retryPair(leg.worker().id(), outcome, status, () -> leg.failed(outcome));
    }

    /**
     * As {@link #retryElsewhere}, for a failure of the attempt at {@code failedWorkerId} (a pair's decode or prefill
     * worker): {@code endLegs} ends the attempt's legs but the prefill one, which goes with it. A request the worker
     * received whole and never answered may be running there: {@link RetryState} bars the attempt's workers that
     * had it and allows it elsewhere at most {@code --retry-max-delivered} times.
     */
    private boolean retryPair(String failedWorkerId, UpstreamOutcome outcome, int status, Runnable endLegs) {
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
        if (prefill != null && phase == Phase.RELAYING) {
            // The relay stops first: resetting a leg fails its answer at once, and the relay must not hear of it.
            unsendHead();
        }
        endLegs.run();
        if (prefill != null) {
            prefill.drop();
        }
        proxy.metrics().retried(route.path(), after);
        moveTo(Phase.RETRY_BACKOFF);
        phaseTimer = proxy.vertx().setTimer(after.delayMillis(), id -> attemptAgain());
        return true;
    }

    /**
     * The current attempt's workers that received the request whole and have not answered it whole (the decode leg
     * never has while its pair can fail).
     */
    private Set<String> deliveredUnanswered() {
        if (prefill == null) {
            return leg.delivered() ? Set.of(leg.worker().id()) : Set.of();
        }
        Set<String> workers = new HashSet<>(2);
        if (leg.delivered()) {
            workers.add(leg.worker().id());
        }
        if (prefill.deliveredUnanswered()) {
            workers.add(prefill.worker().id());
        }
        return workers;
    }

    /** Whether a worker outside {@code workerIds} could take the request now, in each role of a pair. */
    private boolean availableBesides(Set<String> workerIds) {
        return pool.availableBesides(workerIds, proxy.breakers())
                && (prefillPool == null || prefillPool.availableBesides(workerIds, proxy.breakers()));
    }

    private void attemptAgain() {
        if (phase != Phase.RETRY_BACKOFF) {
            return;
        }
        if (prefill != null) {
            if (placePair(retry.excludedWorkerIds(), retry.barredWorkerIds(), false)) {
                send();
            } else {
                proxy.metrics().retryGaveUp(route.path(), RetryState.GiveUpReason.NO_AVAILABLE_WORKERS);
            }
            return;
        }
        Placer.Placed<Worker, BreakerLease> next = pool.placeAgain(routing, retry.excludedWorkerIds(),
                retry.barredWorkerIds(), proxy.breakers());
        if (!next.found()) {
            // Every worker is down or its circuit open: say so now rather than wait out more backoff.
            proxy.metrics().retryGaveUp(route.path(), RetryState.GiveUpReason.NO_AVAILABLE_WORKERS);
            noWorker("No available workers (all circuits open or unhealthy)");
            return;
        }
        leg = new UpstreamLeg(pool.model(), next, context, proxy.metrics(), trace);
        legBody = bodyFor(leg.worker(), null);
        judged = next.decision();
        record.rerouted(leg.worker().url());
        send();
    }

    /**
     * Which view placed the request ({@code exact}: its worker's engine reported what it holds; {@code approximate}:
     * the prefix tree's guess) and the share of the prompt it expected that engine to hold, so a client can compare
     * the prediction with the usage the engine reports.
     */
    private void routingViewHeaders() {
        if (judged == null) {
            return;
        }
        response.putHeader(HeaderNames.ROUTING_VIEW, judged.view().label());
        double predicted = judged.view() == RoutingView.EXACT && promptTokens > 0
                ? (double) judged.predictedTokens() / promptTokens
                : judged.textChars() > 0 ? judged.matchRatio() : 0;
        response.putHeader(HeaderNames.PREDICTED_HIT, String.format(Locale.ROOT, "%.4f", predicted));
    }

    // RELAYING

    @Override
    public void firstByte() {
        leg.placement().firstToken();
        if (judged != null && judged.view() == RoutingView.EXACT && proxy.exactRouting() != null) {
            proxy.exactRouting().prefilled(leg.worker().url(), promptTokens - judged.predictedTokens());
        }
        record.firstByte();
        trace.firstToken();
        proxy.metrics().upstreamFirstByte(record.model(), route.path(), leg.nanosSinceConnecting());
        if (prefill != null) {
            // The client's first byte goes out with this chunk: from here the pair is not retried.
            retry.firstByteSent();
            long now = System.nanoTime();
            long answered = prefill.answeredNanos();
            proxy.metrics().prefillDecode().decodeFirstByte(pool.model(), now - prefill.sentNanos(),
                    answered == 0 ? -1 : now - answered);
        }
    }

    @Override
    public void relayEnded() {
        if (prefill != null) {
            settleAnswer();
            // Done before ending: on HTTP/2 ending the response closes the stream, which runs the close handler at
            // once, and that must not read as a client disconnect.
            finish(answerStatus, answerErrorCode(), null);
            endResponse();
            return;
        }
        // The answer's bytes are written (a chunk at a time, as they came): what is left is bookkeeping.
        Phase from = enterDone();
        endResponse();
        afterWrites(() -> {
            settleAnswer();
            settle(from, answerStatus, answerErrorCode(), null);
        });
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
    private void afterWrites(Runnable bookkeeping) {
        context.runOnContext(v -> bookkeeping.run());
    }

    /** The worker's whole answer: the engine's usage read from its tail, the leg ended with it. */
    private void settleAnswer() {
        UsageTail.Usage usage = null;
        if (answerStatus / 100 == 2) {
            usage = relay.usage();
            if (usage != null) {
                record.usage(usage.promptTokens(), usage.cachedTokens());
                proxy.metrics().usage(record.model(), leg.worker().url(), usage.promptTokens(), usage.cachedTokens());
                if (prefill != null) {
                    proxy.metrics().prefillDecode().usage(pool.model(), "decode", usage.promptTokens(),
                            usage.cachedTokens());
                }
            }
        }
        leg.answered(UpstreamOutcome.ofStatus(answerStatus), usage);
        if (prefill != null && relay.tailMentions(KV_TRANSFER_ERROR)) {
            proxy.metrics().prefillDecode().kvTransferFailed(pool.model());
        }
        if (prefill != null && answerStatus / 100 == 2) {
            // The decode answer is whole: its prefill partner, if its own answer is still on its way, ends alone.
            prefill.detach();
        }
    }

    private String answerErrorCode() {
        return answerStatus >= 400 ? "upstream_" + answerStatus : null;
    }

    private void endResponse() {
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
        decodeFailed();
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
        if (prefill != null) {
            proxy.metrics().prefillDecode().streamCut(route.path());
        }
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
        if (prefill != null) {
            prefill.timedOut();
        }
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

    /**
     * No worker took the request: 503 {@code no_available_workers} for an outage, or {@code workers_at_capacity}
     * with Retry-After when a worker that is up only had its half-open probe places taken.
     */
    private void noWorker(String outage) {
        if (!pool.probePlacesFull(proxy.breakers())) {
            answer(new ApiError(503, "no_available_workers", outage + proxy.registry()
                    .unavailable(pool.role(), pool.model(), WorkerRegistry.UNAVAILABLE_NAMED).clause()));
            return;
        }
        response.putHeader("retry-after", String.valueOf(PROBE_RETRY_AFTER_SECS));
        answer(new ApiError(503, "workers_at_capacity", "Every available worker for model " + pool.model()
                + " is recovering and takes only a few probe requests at once; retry after "
                + PROBE_RETRY_AFTER_SECS + " s"));
    }

    // DONE

    /** Answers with an error of the gateway's own; any leg has ended already. */
    private void answer(ApiError error) {
        finish(error.status(), error.code(), error.code());
        error.send(response);
    }

    /**
     * Enters DONE, once, and settles what it owes ({@code errorType} null: no error); see {@link #enterDone} and
     * {@link #settle}.
     */
    private void finish(int status, String errorCode, String errorType) {
        settle(enterDone(), status, errorCode, errorType);
    }

    /** Enters DONE, once: stops the timers and the relay; returns the phase it left. */
    private Phase enterDone() {
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
    private void settle(Phase from, int status, String errorCode, String errorType) {
        proxy.admission().release(permit);
        if (body != null) {
            body.release();
        }
        if (from.placed()) {
            long nanos = System.nanoTime() - record.startNanos();
            proxy.metrics().routedFinished(record.model(), route.path(), nanos, errorType);
            if (prefill != null) {
                // Unless the decode answer ended whole (then it was detached to end alone), the pair is over.
                prefill.drop();
                proxy.metrics().prefillDecode().pairFinished(route.path(), nanos);
            }
        }
        record.complete(status, errorCode);
        trace.end(status, errorCode);
    }

    private void moveTo(Phase next) {
        if (phase == Phase.DONE) {
            throw new IllegalStateException("exchange " + record.requestId() + " is done; cannot move to " + next);
        }
        if (phase.hasPhaseTimer()) {
            proxy.vertx().cancelTimer(phaseTimer);
        }
        phase = next;
    }

}

package dev.homing.gateway.proxy;

import dev.homing.core.placement.Placement;
import dev.homing.core.placement.Placer;
import dev.homing.core.policy.Decision;
import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.resilience.BreakerLease;
import dev.homing.gateway.resilience.RetryState;
import dev.homing.gateway.resilience.UpstreamOutcome;
import dev.homing.gateway.workers.ModelPool;
import dev.homing.gateway.workers.NoRouteException;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.workers.WorkerRole;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One inference request in prefill/decode mode ({@code --pd-disaggregation}, docs/PD.md), through the phases of
 * {@link ExchangeLifecycle}. An attempt is a pair: a decode leg (the exchange's current leg: its answer is the
 * client's) and a {@link PrefillSide} beside it, each placed by its own role's policy. Their bodies are the client's
 * with the pair's bootstrap fields spliced in ({@link AddedFields}); both go out at once. The prefill leg is placed on
 * the prefill engines' exact view where they publish KV events ({@link ExactJudgement}: its decision is the pair's in
 * the answer's headers, and the decode answer's usage checks it), counts on its worker from its placement and may be
 * held for an earlier prefill of its prefix; the decode leg is never held.
 * The decode answer's head goes out with its first chunk, not before, so a leg that fails before the decode's first
 * token (either one: a connection, a retryable status, a broken answer) fails the pair, whose other leg is let go and
 * reset, and the pair is placed again on other workers within the retry budget. After it, a broken decode stream ends
 * with an SSE error event as for any answer, and a prefill failure changes nothing (the KV is across). When the client
 * asked for log probabilities the decode answer waits for the prefill's and is relayed with its input log
 * probabilities merged in ({@link LogprobMerge}). A pair's bookkeeping is done before its answer's end is written.
 */
final class PrefillDecodeExchange extends ExchangeLifecycle implements PrefillSide.Listener {

    /**
     * What SGLang's decode engine names when the KV of a request's bootstrap room never came from its prefill
     * partner ({@code KVTransferError(bootstrap_room=...): reason}), counted as a KV transfer failure.
     */
    private static final String KV_TRANSFER_ERROR = "KVTransferError";

    /** Set at placement: the prefill pool ({@link #pool} is the decode one). */
    private ModelPool prefillPool;
    /** Set at placement: what the gateway adds to the body (the pair's bootstrap fields). */
    private AddedFields added;
    /** The current attempt's prefill leg, beside its decode leg {@link #leg}. */
    private PrefillSide prefill;
    /**
     * RELAYING: a decode answer paused until its prefill's answer is whole, whose log probabilities it gets; null
     * when none waits (and then {@link #relay} is set).
     */
    private HttpClientResponse heldAnswer;

    /** Call on the request's event loop: the exchange stays on it. */
    PrefillDecodeExchange(InferenceProxy proxy, HttpServerRequest request, InferenceRoute route,
                          RequestRecord record) {
        super(proxy, request, route, record);
    }

    // READING_BODY: resolve both pools, place the first pair

    /**
     * Resolves the model's prefill and decode pools and places the first pair, which its prefill placement may hold;
     * answers the client when it cannot (the route is not paired, no pool, a body that sets the gateway's fields, no
     * worker available).
     */
    @Override
    void placeFirst(SniffedRequest sniffed) {
        if (!route.pairs()) {
            answer(new ApiError(501, "not_implemented", route.path() + " is not served in prefill/decode mode"));
            return;
        }
        try {
            prefillPool = proxy.registry().resolve(sniffed.model(), WorkerRole.PREFILL);
        } catch (NoRouteException e) {
            answer(e.error());
            return;
        }
        pool = proxy.registry().pool(prefillPool.model(), WorkerRole.DECODE);
        if (pool == null) {
            answer(new ApiError(503, "no_decode_workers", "No decode workers for model " + prefillPool.model()));
            return;
        }
        try {
            added = AddedFields.read(ByteSlice.of(body.bytes()));
        } catch (BadRequestException e) {
            proxy.metrics().prefillDecode().bootstrapFailed(pool.model());
            answer(ApiError.badRequest(e.getMessage()));
            return;
        }
        lookUpExact(prefillPool, () -> placeFirstPair(sniffed.stream()));
    }

    /** READING_BODY or TOKENIZING: the first pair, its prefill leg on the exact view where the prefill engines report. */
    private void placeFirstPair(boolean stream) {
        retry = proxy.retryPolicy().start();
        if (!placePair(Set.of(), Set.of(), true)) {
            return;
        }
        proxy.metrics().routedRequest(pool.model(), route.path(), stream);
        hold(prefill.leg().placement().hold());
    }

    /**
     * Places a pair, avoiding {@code failed} workers while others are available and {@code barred} ones always: the
     * prefill leg by its pool's policy (on a first placement it may be held for an earlier prefill of its prefix),
     * the decode leg by its own, never held (a decode engine is handed the prefix, it does not compute it). Gives the
     * pair its bootstrap room and each leg its body. Returns false after answering 503 when either role has no worker.
     */
    private boolean placePair(Set<String> failed, Set<String> barred, boolean first) {
        Placer.Placed<Worker, BreakerLease> prefillPlaced = first ? prefillPool.place(routing, proxy.breakers())
                : prefillPool.placeAgain(routing, failed, barred, proxy.breakers());
        if (!prefillPlaced.found()) {
            noWorker(WorkerRole.PREFILL, prefillPool);
            return false;
        }
        UpstreamLeg prefillLeg = new UpstreamLeg(prefillPool.model(), prefillPlaced, context, proxy.metrics(), trace);
        Placer.Placed<Worker, BreakerLease> decodePlaced = pool.placeAgain(routing, failed, barred,
                proxy.breakers());
        if (!decodePlaced.found()) {
            prefillLeg.dropped();
            noWorker(WorkerRole.DECODE, pool);
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
        exact.placed(decision);
        if (first) {
            record.routed(pool.model(), workers, decision.branch(),
                    decision.textChars() > 0 ? decision.matchRatio() : -1, decision.view().label());
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

    /** 503 for a pair with no worker available in {@code role}. */
    private void noWorker(WorkerRole role, ModelPool rolePool) {
        answer(new ApiError(503, "server_selection_failed", "No available servers: no available "
                + role.label() + " workers (all circuits open or unhealthy)"
                + proxy.registry().unavailable(role, rolePool.model(), WorkerRegistry.UNAVAILABLE_NAMED).clause()));
    }

    @Override
    Placement heldPlacement() {
        return prefill.leg().placement();
    }

    // CONNECTING: both legs at once

    @Override
    void sendOtherLegs() {
        // The decode engine registers the room while the prefill computes it.
        prefill.send(proxy.client(), route.path(), request.headers(), record.requestId());
        proxy.metrics().prefillDecode().paired(route.path(), prefill.worker().url(), leg.worker().url());
    }

    /** The decode leg failed (a connection, an error status, a broken answer). */
    @Override
    void countLegFailure() {
        proxy.metrics().prefillDecode().decodeFailed(leg.worker().url());
    }

    /** A drained decode answer names a KV transfer failure (its prefill's KV never came). */
    @Override
    void drained(Buffer chunk) {
        if (chunk.toString(StandardCharsets.UTF_8).contains(KV_TRANSFER_ERROR)) {
            proxy.metrics().prefillDecode().kvTransferFailed(pool.model());
        }
    }

    // AWAITING_HEAD, then RELAYING

    @Override
    void relayAnswer(HttpClientResponse upstream, int status) {
        if (status / 100 == 2) {
            relayPair(upstream, status);
        } else {
            relayAsIs(upstream, status);
        }
    }

    /**
     * The decode worker answered 2xx. Its head is copied but not written: it goes out with the first chunk, so a
     * prefill that fails before the decode's first token still has the pair retried, with nothing sent to the
     * client. When the client asked for log probabilities, the answer waits (paused) for the prefill's whole answer
     * and is relayed with the prefill's input log probabilities merged in.
     */
    private void relayPair(HttpClientResponse upstream, int status) {
        startRelaying(upstream, status);
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

    @Override
    void firstTokenRelayed() {
        // The client's first byte goes out with this chunk: from here the pair is not retried.
        retry.firstByteSent();
        long now = System.nanoTime();
        long answered = prefill.answeredNanos();
        proxy.metrics().prefillDecode().decodeFirstByte(pool.model(), now - prefill.sentNanos(),
                answered == 0 ? -1 : now - answered);
        if (answeredWithSuccess()) {
            // The decode engine's first token follows the prefill's: the prompt's blocks are in the prefill cache.
            exact.prefilled(prefill.worker().url(), prefill.sentNanos());
        }
    }

    @Override
    public void relayEnded() {
        settleAnswer();
        // Done before ending: on HTTP/2 ending the response closes the stream, which runs the close handler at
        // once, and that must not read as a client disconnect.
        finish(answerStatus, answerErrorCode(), null);
        endResponse();
    }

    @Override
    void answered(UsageTail.Usage usage) {
        if (usage != null) {
            proxy.metrics().prefillDecode().usage(pool.model(), "decode", usage.promptTokens(), usage.cachedTokens());
        }
        // The decode engine counts the prompt as its prefill partner does (the same model and tokenizer), and only
        // the prefill engine's events are routed on.
        exact.answered(prefill.worker().url(), usage);
        if (relay.tailMentions(KV_TRANSFER_ERROR)) {
            proxy.metrics().prefillDecode().kvTransferFailed(pool.model());
        }
        if (answerStatus / 100 == 2) {
            // The decode answer is whole: its prefill partner, if its own answer is still on its way, ends alone.
            prefill.detach();
        }
    }

    @Override
    void streamCut() {
        proxy.metrics().prefillDecode().streamCut(route.path());
    }

    @Override
    void unsendHead() {
        super.unsendHead();
        heldAnswer = null;
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
        if (retryAttempt(side.worker().id(), outcome, status, this::letDecodeGo)) {
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

    @Override
    void otherLegsTimedOut() {
        prefill.timedOut();
    }

    // RETRY_BACKOFF

    @Override
    void otherLegsDropped() {
        prefill.drop();
    }

    /** The attempt's workers that received the request whole and have not answered it whole (never the decode one). */
    @Override
    Set<String> deliveredUnanswered() {
        Set<String> workers = new HashSet<>(2);
        if (leg.delivered()) {
            workers.add(leg.worker().id());
        }
        if (prefill.deliveredUnanswered()) {
            workers.add(prefill.worker().id());
        }
        return workers;
    }

    @Override
    boolean availableBesides(Set<String> workerIds) {
        return pool.availableBesides(workerIds, proxy.breakers())
                && prefillPool.availableBesides(workerIds, proxy.breakers());
    }

    @Override
    void placeAgain() {
        if (placePair(retry.excludedWorkerIds(), retry.barredWorkerIds(), false)) {
            send();
        } else {
            proxy.metrics().retryGaveUp(route.path(), RetryState.GiveUpReason.NO_AVAILABLE_WORKERS);
        }
    }

    // DONE

    @Override
    void placedRequestFinished(long nanos) {
        // Unless the decode answer ended whole (then it was detached to end alone), the pair is over.
        prefill.drop();
        proxy.metrics().prefillDecode().pairFinished(route.path(), nanos);
    }
}

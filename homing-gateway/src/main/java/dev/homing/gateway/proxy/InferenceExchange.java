package dev.homing.gateway.proxy;

import dev.homing.core.placement.Placement;
import dev.homing.core.placement.Placer;
import dev.homing.core.policy.Decision;
import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.resilience.BreakerLease;
import dev.homing.gateway.resilience.RetryState;
import dev.homing.gateway.workers.NoRouteException;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerRegistry;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;

import java.util.Set;

/**
 * One inference request served by one worker at a time (a regular worker, or one data-parallel rank of an engine),
 * through the phases of {@link ExchangeLifecycle}. It places the request with the exact view when the engines report
 * what they hold (waiting in {@code TOKENIZING} for an engine's {@code /tokenize} where the prompt must be counted),
 * tells the client in the answer's headers which view placed it and what share of the prompt it expected cached, and
 * relays the worker's answer as it comes. Once the answer is relayed whole, its bookkeeping (the engine's usage, the
 * leg's end, the record) waits for a task just after the last bytes are written (step 10).
 */
final class InferenceExchange extends ExchangeLifecycle {

    /** A probe place frees when a probe request ends, which for a short request is well within a second. */
    private static final int PROBE_RETRY_AFTER_SECS = 1;

    /** Call on the request's event loop: the exchange stays on it. */
    InferenceExchange(InferenceProxy proxy, HttpServerRequest request, InferenceRoute route, RequestRecord record) {
        super(proxy, request, route, record);
    }

    // READING_BODY: resolve the pool, look the exact view up

    @Override
    void placeFirst(SniffedRequest sniffed) {
        try {
            pool = proxy.registry().resolve(sniffed.model());
            if (proxy.dpAware()) {
                // Only a check: a body that sets the rank itself is refused; each leg's rank comes from its worker.
                AddedFields.read(ByteSlice.of(body.bytes()));
            }
        } catch (NoRouteException e) {
            answer(e.error());
            return;
        } catch (BadRequestException e) {
            answer(ApiError.badRequest(e.getMessage()));
            return;
        }
        lookUpExact(pool, () -> placeFirst(sniffed.stream()));
    }

    // READING_BODY or TOKENIZING: the request's first placement, with its exact view when it has one

    private void placeFirst(boolean stream) {
        Placer.Placed<Worker, BreakerLease> placed = pool.place(routing, proxy.breakers());
        if (!placed.found()) {
            noWorker("No available workers (all circuits open, unhealthy or draining) for model " + pool.model());
            return;
        }
        retry = proxy.retryPolicy().start();
        leg = new UpstreamLeg(pool.model(), placed, context, proxy.metrics(), trace);
        legBody = bodyFor(leg.worker(), null);
        Decision decision = placed.decision();
        exact.placed(decision);
        record.routed(pool.model(), leg.worker().url(), decision.branch(),
                decision.textChars() > 0 ? decision.matchRatio() : -1, decision.view().label());
        trace.routed(pool.model(), pool.policy().name(), decision, leg.worker().url());
        String worker = leg.worker().url();
        hold(leg.placement().hold());
        afterWrites(() -> proxy.metrics().routed(pool.model(), worker, route.path(), stream,
                pool.policy().name(), decision));
    }

    @Override
    Placement heldPlacement() {
        return leg.placement();
    }

    // RETRY_BACKOFF

    @Override
    Set<String> deliveredUnanswered() {
        return leg.delivered() ? Set.of(leg.worker().id()) : Set.of();
    }

    @Override
    boolean availableBesides(Set<String> workerIds) {
        return pool.availableBesides(workerIds, proxy.breakers());
    }

    @Override
    void placeAgain() {
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
        exact.placed(next.decision());
        record.rerouted(leg.worker().url());
        send();
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

    // AWAITING_HEAD, then RELAYING

    @Override
    void relayAnswer(HttpClientResponse upstream, int status) {
        relayAsIs(upstream, status);
    }

    @Override
    void firstTokenRelayed() {
        if (answeredWithSuccess()) {
            exact.prefilled(leg.worker().url(), leg.connectingSinceNanos());
        }
    }

    @Override
    void answered(UsageTail.Usage usage) {
        exact.answered(leg.worker().url(), usage);
    }

    @Override
    public void relayEnded() {
        // The answer's bytes are written (a chunk at a time, as they came): what is left is bookkeeping.
        Phase from = enterDone();
        endResponse();
        afterWrites(() -> {
            settleAnswer();
            settle(from, answerStatus, answerErrorCode(), null);
        });
    }
}

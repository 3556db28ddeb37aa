package dev.homing.gateway.workers;

import dev.homing.core.policy.EngineReport;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request's claim on a worker's in-flight count. Taken when the worker is chosen, released exactly once
 * whichever way the request ends (success, upstream error, timeout, client gone): {@link #release} is idempotent,
 * so every ending path may call it without bookkeeping. The release also tells the policy that placed the request
 * how it ended, so the policy hears of each request exactly once. Thread-safe.
 */
public final class InFlightSlot {

    private final Worker worker;
    private final PolicyFeedback feedback;
    private final AtomicBoolean released = new AtomicBoolean();
    private final AtomicBoolean firstToken = new AtomicBoolean();

    InFlightSlot(Worker worker, PolicyFeedback feedback) {
        this.worker = worker;
        this.feedback = feedback;
    }

    public Worker worker() {
        return worker;
    }

    /** The worker's first response byte arrived (its prefill is done); only the first call tells the policy. */
    public void firstToken() {
        if (firstToken.compareAndSet(false, true)) {
            feedback.firstToken(worker.url());
        }
    }

    /** Gives the slot back, nothing reported by the engine. Returns whether this call released it. */
    public boolean release() {
        return release(EngineReport.unknown(firstToken.get()));
    }

    /**
     * Gives the slot back with what the engine reported of the request; only the first call has an effect.
     * Returns whether this call released it.
     */
    public boolean release(EngineReport report) {
        if (released.compareAndSet(false, true)) {
            worker.finishRequest();
            feedback.completed(worker.url(), report);
            return true;
        }
        return false;
    }

    public boolean released() {
        return released.get();
    }
}

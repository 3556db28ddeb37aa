package dev.homing.gateway.resilience;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One attempt's permit from its worker's circuit breaker, paired with that breaker, handed back exactly once:
 * {@link #record} and {@link #release} are idempotent, so every ending path of an attempt may call one of them
 * without bookkeeping. Thread-safe.
 */
public final class BreakerLease {

    private final CircuitBreaker breaker;
    private final CircuitBreaker.Permit permit;
    private final AtomicBoolean returned = new AtomicBoolean();

    BreakerLease(CircuitBreaker breaker, CircuitBreaker.Permit permit) {
        this.breaker = breaker;
        this.permit = permit;
    }

    /** Hands the permit back with how the attempt ended; only the first call (of this or {@link #release}) counts. */
    public void record(UpstreamOutcome outcome) {
        if (returned.compareAndSet(false, true)) {
            breaker.record(permit, outcome);
        }
    }

    /** Hands the permit back without news of the worker (the client left first); counts neither way. */
    public void release() {
        if (returned.compareAndSet(false, true)) {
            breaker.release(permit);
        }
    }
}

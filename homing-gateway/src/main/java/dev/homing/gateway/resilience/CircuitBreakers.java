package dev.homing.gateway.resilience;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The circuit breakers of all workers, one per worker id, created on first use with shared settings, clock and
 * listener. Thread-safe (a concurrent map; each breaker guards itself).
 */
public final class CircuitBreakers {

    private final CircuitBreaker.Settings settings;
    private final LongSupplier nanoClock;
    private final CircuitBreaker.TransitionListener listener;
    private final Map<String, CircuitBreaker> byWorker = new ConcurrentHashMap<>();

    public CircuitBreakers(CircuitBreaker.Settings settings, LongSupplier nanoClock,
                           CircuitBreaker.TransitionListener listener) {
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.listener = listener;
    }

    /** The worker's breaker, created closed on first use. */
    public CircuitBreaker of(String workerId) {
        return byWorker.computeIfAbsent(workerId, id -> new CircuitBreaker(id, settings, nanoClock, listener));
    }

    /** A lease on the worker's breaker for one attempt, or null when its circuit refuses the attempt. */
    public BreakerLease tryLease(String workerId) {
        CircuitBreaker breaker = of(workerId);
        CircuitBreaker.Permit permit = breaker.tryAcquire();
        return permit == null ? null : new BreakerLease(breaker, permit);
    }

    /** Forgets a removed worker's breaker, so a worker re-added under the same id starts closed. */
    public void remove(String workerId) {
        byWorker.remove(workerId);
    }

    /** Every breaker's current state, for the {@code smg_worker_cb_state} gauge. */
    public Map<String, CircuitBreaker.State> states() {
        Map<String, CircuitBreaker.State> out = new java.util.TreeMap<>();
        byWorker.forEach((id, breaker) -> out.put(id, breaker.state()));
        return out;
    }
}

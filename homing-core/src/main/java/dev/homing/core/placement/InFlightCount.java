package dev.homing.core.placement;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests placed on one worker and not yet ended: what a policy reads as {@code WorkerView.inFlight}. Each driver's
 * worker holds one (the gateway's {@code Worker}, the simulator's engine). Only {@link Placement}s move it, one up
 * when a request is placed and one down when it ends, so it cannot drift; a request held for a prefill counts from
 * its placement, as its worker will have to serve it.
 *
 * <p>Thread-safe (atomic): the gateway places and ends requests on one worker from every event loop at once.
 */
public final class InFlightCount {

    private final AtomicInteger count = new AtomicInteger();

    public int get() {
        return count.get();
    }

    void placed() {
        count.incrementAndGet();
    }

    void ended() {
        count.decrementAndGet();
    }
}

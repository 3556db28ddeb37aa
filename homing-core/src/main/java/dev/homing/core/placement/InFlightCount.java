package dev.homing.core.placement;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests placed on one worker and not yet ended: what a policy reads as {@code WorkerView.inFlight}. Each driver's
 * worker holds one (the gateway's {@code Worker}, the simulator's engine). Only {@link Placement}s move it, one up
 * when a request is placed and one down when it ends, so it cannot drift; a request held for a prefill counts from
 * its placement, as its worker will have to serve it.
 *
 * <p>With several gateway replicas, {@link #acrossReplicas()} adds what the others last said they have in flight
 * there ({@link #elsewhere(int)}, set by the replica sync): the load a policy weighs is the fleet's, while this
 * replica publishes only its own ({@link #get()}).
 *
 * <p>Thread-safe (atomic): the gateway places and ends requests on one worker from every event loop at once.
 */
public final class InFlightCount {

    private final AtomicInteger count = new AtomicInteger();
    private volatile int elsewhere;

    /** This replica's requests on the worker. */
    public int get() {
        return count.get();
    }

    /** This replica's requests and those the other replicas last reported: what policies read. */
    public int acrossReplicas() {
        return count.get() + elsewhere;
    }

    /** The other replicas now report {@code requests} in flight on this worker, together. */
    public void elsewhere(int requests) {
        elsewhere = Math.max(0, requests);
    }

    void placed() {
        count.incrementAndGet();
    }

    void ended() {
        count.decrementAndGet();
    }
}

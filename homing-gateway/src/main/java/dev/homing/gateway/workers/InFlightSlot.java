package dev.homing.gateway.workers;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request's claim on a worker's in-flight count. Taken when the worker is chosen, released exactly once
 * whichever way the request ends (success, upstream error, timeout, client gone): {@link #release()} is idempotent,
 * so every ending path may call it without bookkeeping. Thread-safe.
 */
public final class InFlightSlot {

    private final Worker worker;
    private final AtomicBoolean released = new AtomicBoolean();

    InFlightSlot(Worker worker) {
        this.worker = worker;
    }

    public Worker worker() {
        return worker;
    }

    /** Gives the slot back; only the first call has an effect. Returns whether this call released it. */
    public boolean release() {
        if (released.compareAndSet(false, true)) {
            worker.finishRequest();
            return true;
        }
        return false;
    }

    public boolean released() {
        return released.get();
    }
}

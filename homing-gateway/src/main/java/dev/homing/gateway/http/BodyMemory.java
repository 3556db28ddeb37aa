package dev.homing.gateway.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway-wide budget of request bodies in memory ({@code --max-body-memory}): every body counts against it
 * from the moment its bytes arrive until its request no longer needs them, so that many large uploads at once are
 * refused one by one (503, or 413 for a body the budget could never hold) rather than filling the heap.
 *
 * <p>Invariant: {@link #inUse} never exceeds {@link #limit}, because a reservation is taken whole or not at all (a
 * compare-and-set loop); each reservation is given back once, by the {@link BodyReader} read that took it. Thread-safe.
 */
public final class BodyMemory {

    private final long limit;
    private final AtomicLong inUse = new AtomicLong();

    /** @param limit bytes of bodies that may be in memory at once */
    public BodyMemory(long limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("body memory must be positive: " + limit);
        }
        this.limit = limit;
    }

    /** The default budget: a quarter of the heap the JVM may grow to ({@code --max-body-memory}'s reason). */
    public static long defaultLimit() {
        return Runtime.getRuntime().maxMemory() / 4;
    }

    /** Takes {@code bytes} of the budget; false, taking nothing, when they would take it over its limit. */
    boolean tryReserve(long bytes) {
        long now;
        do {
            now = inUse.get();
            if (now + bytes > limit) {
                return false;
            }
        } while (!inUse.compareAndSet(now, now + bytes));
        return true;
    }

    /** Gives back {@code bytes} reserved earlier. */
    void release(long bytes) {
        inUse.addAndGet(-bytes);
    }

    public long limit() {
        return limit;
    }

    /** Bytes of bodies in memory now. */
    public long inUse() {
        return inUse.get();
    }
}

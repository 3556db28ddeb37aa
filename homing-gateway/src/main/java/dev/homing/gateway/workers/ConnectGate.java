package dev.homing.gateway.workers;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds how many requests to one worker may be waiting for a connection at once; the others wait here, in arrival
 * order. A request that finds an idle pooled connection passes straight through. Without the bound, a burst of
 * thousands of new streams opens thousands of TCP connections to one worker at the same instant: its accept queue
 * overflows, the kernel drops the SYNs, retried connects take seconds, time out, and count as failures until the
 * circuit breaker opens on a worker that is only busy. Thread-safe: requests come from every event loop.
 */
public final class ConnectGate {

    /** Connects in progress per worker: far below a listener's accept backlog (SGLang's 2048, Linux's 4096). */
    public static final int DEFAULT_LIMIT = 256;

    private final int limit;
    private final AtomicInteger inProgress = new AtomicInteger();
    private final ConcurrentLinkedQueue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    public ConnectGate(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1: " + limit);
        }
        this.limit = limit;
    }

    /**
     * Runs {@code getConnection} now if fewer than the limit are getting one, else once enough of them have (on the
     * thread that called {@link #release()}: the caller hops to its own context if it needs to). Every run must be
     * followed by exactly one {@link #release()}, once a connection was obtained or could not be.
     */
    public void enter(Runnable getConnection) {
        if (tryAcquire()) {
            getConnection.run();
            return;
        }
        waiting.add(getConnection);
        drain();
    }

    /** One request that entered has its connection, or gave up on it. */
    public void release() {
        inProgress.decrementAndGet();
        drain();
    }

    /** Requests waiting for their turn to get a connection. */
    public int waiting() {
        return waiting.size();
    }

    private void drain() {
        // A waiter added while another thread released runs drain itself, so none is left behind.
        while (!waiting.isEmpty() && tryAcquire()) {
            Runnable next = waiting.poll();
            if (next == null) {
                inProgress.decrementAndGet();
            } else {
                next.run();
            }
        }
    }

    private boolean tryAcquire() {
        while (true) {
            int n = inProgress.get();
            if (n >= limit) {
                return false;
            }
            if (inProgress.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }
}

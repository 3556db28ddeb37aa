package dev.homing.core.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * The prefill of one placed request, from its placement until its first token or its end, whichever comes first.
 * A later request that relies on the prefix this one is still computing waits for it ({@link Decision.Hold}): an
 * engine admits the requests of one prefill step together, so one admitted beside the request that brings a new
 * prefix computes that prefix again instead of finding it cached.
 *
 * <p>Thread-safe: waiters register from the deciding thread, the end is reported from any thread. Each waiter runs
 * exactly once, on the thread that reports the end, or at once on its own thread when the end came first.
 */
public final class PendingPrefill {

    private List<Runnable> waiters = new ArrayList<>(0);
    private volatile boolean done;

    /** Whether the engine answered the first token, or the request ended. */
    public boolean isDone() {
        return done;
    }

    /** Runs {@code action} when the prefill is done; at once when it already is. */
    public void whenDone(Runnable action) {
        synchronized (this) {
            if (!done) {
                waiters.add(action);
                return;
            }
        }
        action.run();
    }

    /** The prefill is done (first token) or will never be (the request ended). Idempotent. */
    public void finish() {
        List<Runnable> toRun;
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
            toRun = waiters;
            waiters = List.of();
        }
        for (Runnable action : toRun) {
            action.run();
        }
    }
}

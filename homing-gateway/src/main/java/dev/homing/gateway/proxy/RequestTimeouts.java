package dev.homing.gateway.proxy;

import io.netty.util.concurrent.FastThreadLocal;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The request timeout ({@code --request-timeout-secs}) of every exchange, kept per event loop. Every exchange runs
 * for the same timeout from its first send, so on one loop their deadlines fall in the order they started: a list
 * in that order, at most one timer, for its head, and an exchange that ends is unlinked in place.
 *
 * <p>Why not a timer each: nearly every request ends long before its timeout, and a Vert.x timer cost a map entry
 * and a task on the event loop's timer queue to set, and as much again to cancel: about 1 % of the event
 * loop's samples at saturation. Here a request costs one small node. The timer stays when the head ends;
 * when it comes early it is set again for the head of the moment, so a busy loop sets it about once per timeout.
 *
 * <p>Thread-safe as a whole; each loop's list is used only on its loop.
 */
public final class RequestTimeouts {

    private final Vertx vertx;
    private final Duration timeout;
    private final long timeoutNanos;
    private final FastThreadLocal<Loop> loops = new FastThreadLocal<>() {
        @Override
        protected Loop initialValue() {
            return new Loop();
        }
    };

    public RequestTimeouts(Vertx vertx, Duration timeout) {
        this.vertx = vertx;
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
    }

    public Duration timeout() {
        return timeout;
    }

    /**
     * Starts a timeout on the calling event loop: {@code onTimeout} runs on {@code context} (of that loop) once the
     * timeout has passed, unless it is cancelled first.
     */
    Timeout start(Context context, Runnable onTimeout) {
        return loops.get().start(context, onTimeout);
    }

    /** One exchange's timeout. */
    static final class Timeout {
        private final Loop loop;
        private final Context context;
        private final Runnable onTimeout;
        private final long deadlineNanos;
        private Timeout previous;
        private Timeout next;
        private boolean linked = true;

        private Timeout(Loop loop, Context context, Runnable onTimeout, long deadlineNanos) {
            this.loop = loop;
            this.context = context;
            this.onTimeout = onTimeout;
            this.deadlineNanos = deadlineNanos;
        }

        /** The exchange ended first: its timeout will not fire. Idempotent; call on the timeout's loop. */
        void cancel() {
            if (linked) {
                loop.unlink(this);
            }
        }
    }

    /** One event loop's timeouts, oldest first. Not thread-safe: confined to its loop. */
    private final class Loop {
        private Timeout head;
        private Timeout tail;
        private boolean timerSet;

        Timeout start(Context context, Runnable onTimeout) {
            Timeout started = new Timeout(this, context, onTimeout, System.nanoTime() + timeoutNanos);
            if (tail == null) {
                head = started;
            } else {
                tail.next = started;
                started.previous = tail;
            }
            tail = started;
            if (!timerSet) {
                setTimer(started.deadlineNanos);
            }
            return started;
        }

        void unlink(Timeout timeout) {
            timeout.linked = false;
            if (timeout.previous == null) {
                head = timeout.next;
            } else {
                timeout.previous.next = timeout.next;
            }
            if (timeout.next == null) {
                tail = timeout.previous;
            } else {
                timeout.next.previous = timeout.previous;
            }
            timeout.previous = null;
            timeout.next = null;
        }

        /** From this loop, so the timer fires on it. */
        private void setTimer(long deadlineNanos) {
            timerSet = true;
            long delayMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime() + 999_999);
            vertx.setTimer(Math.max(1, delayMillis), id -> expire());
        }

        /** Every exchange whose deadline has passed times out, on its own context; then the timer is set again. */
        private void expire() {
            timerSet = false;
            long now = System.nanoTime();
            while (head != null && now - head.deadlineNanos >= 0) {
                Timeout due = head;
                unlink(due);
                due.context.runOnContext(v -> due.onTimeout.run());
            }
            if (head != null) {
                setTimer(head.deadlineNanos);
            }
        }
    }
}

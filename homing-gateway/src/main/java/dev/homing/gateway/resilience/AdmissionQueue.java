package dev.homing.gateway.resilience;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Admission control for inference requests: at most {@code maxConcurrent} requests hold a {@link Permit} at once
 * (a strict cap: a permit is given back exactly once, when its request ends); the rest wait in a strict FIFO queue of
 * {@code queueSize}; a full queue answers 429 and a wait beyond {@code queueTimeout} answers 503, each with a
 * {@code Retry-After} in seconds. Both are backpressure, not failure: a 408 would tell clients (and the SDKs that
 * retry it at once) that they were slow, and have them send the same body straight back into the full queue.
 *
 * <p>Rate limit. When {@code tokensPerSecond} is set, admission also takes a token from a bucket of
 * {@code maxConcurrent} tokens refilled at that rate, so both limits hold: never more than {@code maxConcurrent} in
 * flight, never more than the bucket allows per second. Tokens are not returned when a request ends. The reference
 * returns them and also refills, so under long requests its in-flight count creeps above its "limit" by the refill
 * rate every second; Homing's cap does not move. When the rate is not set Homing applies no rate limit (the reference
 * defaults the rate to {@code max_concurrent_requests}, which with returned tokens mostly acts as extra concurrency;
 * with a strict cap, that default would instead throttle short requests to N per second).
 *
 * <p>FIFO. A waiting request is admitted only from the head of the queue: a newcomer never overtakes it, even when a
 * permit is free at the moment it arrives. A timed-out or cancelled ticket leaves the queue at once.
 *
 * <p>Timers are the caller's. After {@link Queued}, the caller schedules {@link #expire(Ticket)} at the ticket's
 * deadline; with a rate limit, {@link #pump()} returns how long until the head may get a token, and the caller
 * schedules the next {@code pump()} then. Nothing here blocks or starts a thread.
 *
 * <p>Invariants: permits out never exceed {@code maxConcurrent}, nor waiters {@code queueSize}; the queue is served
 * in order. Guarded by the monitor and by {@link Permit#release()}, which counts only its first call.
 *
 * <p>Thread-safety: every method is safe from any thread; state changes hold this object's monitor. Tickets are
 * completed after the monitor is released, in queue order, on the thread that freed the permit (or expired the
 * ticket): the caller's callback must hop back to its own event loop.
 */
public final class AdmissionQueue {

    /**
     * @param maxConcurrent   {@code --max-concurrent-requests}: permits at once; -1 turns admission control off
     * @param queueSize       {@code --queue-size}: requests that may wait; 0 refuses at once when all permits are out
     * @param queueTimeoutNanos {@code --queue-timeout-secs}: how long a request may wait
     * @param tokensPerSecond {@code --rate-limit-tokens-per-second}: admission rate; 0 or less: no rate limit
     */
    public record Settings(int maxConcurrent, int queueSize, long queueTimeoutNanos, double tokensPerSecond) {

        public Settings {
            if (maxConcurrent == 0 || maxConcurrent < -1) {
                throw new IllegalArgumentException("--max-concurrent-requests must be -1 or >= 1, got " + maxConcurrent);
            }
            if (queueSize < 0 || queueTimeoutNanos <= 0) {
                throw new IllegalArgumentException("--queue-size must be >= 0 and --queue-timeout-secs > 0");
            }
        }

        public boolean enabled() {
            return maxConcurrent > 0;
        }

        boolean rateLimited() {
            return tokensPerSecond > 0;
        }
    }

    /** What {@link #tryAcquire()} decided. */
    public sealed interface Result {
    }

    /** Go ahead now; release the permit when the request ends. */
    public record Admitted(Permit permit) implements Result {
    }

    /** Wait: the ticket completes with a permit in FIFO order, or fails with {@link Rejection} (503). */
    public record Queued(Ticket ticket) implements Result {
    }

    /**
     * Refused: answer {@code status} with a {@code Retry-After: retryAfterSeconds} header.
     *
     * @param code the error code for the OpenAI-shaped body
     */
    public record Rejected(int status, String code, long retryAfterSeconds) implements Result {
    }

    /** The exception a ticket fails with at its deadline. */
    public static final class Rejection extends RuntimeException {
        private final Rejected rejected;

        Rejection(Rejected rejected) {
            super(rejected.code(), null, false, false);
            this.rejected = rejected;
        }

        public Rejected rejected() {
            return rejected;
        }
    }

    /** Leave for one request to proceed; {@link #release()} gives it back, only the first call counts. */
    public final class Permit {
        private final AtomicBoolean released = new AtomicBoolean();

        private Permit() {
        }

        /** Gives the permit back and admits the next waiting requests; true the first time only. */
        public boolean release() {
            if (!released.compareAndSet(false, true)) {
                return false;
            }
            if (settings.enabled()) {
                List<Grant> grants;
                synchronized (AdmissionQueue.this) {
                    inFlight--;
                    grants = admitWaiting();
                }
                complete(grants);
            }
            return true;
        }
    }

    /** A waiting request. Its future completes with a permit, or fails with a {@link Rejection}. */
    public static final class Ticket {
        private final long deadlineNanos;
        private final CompletableFuture<Permit> permit = new CompletableFuture<>();
        private boolean waiting = true;

        private Ticket(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }

        /** When the wait ends at the latest, on the queue's nano clock. */
        public long deadlineNanos() {
            return deadlineNanos;
        }

        public CompletableFuture<Permit> permit() {
            return permit;
        }
    }

    private record Grant(Ticket ticket, Permit permit, Rejected rejected) {
    }

    /** Seconds a refused client is told to wait when nothing better is known: slots turn over within seconds. */
    private static final long DEFAULT_RETRY_AFTER_SECONDS = 1;

    private final Settings settings;
    private final LongSupplier nanoClock;
    private final TokenBucket bucket;
    private final ArrayDeque<Ticket> waiting = new ArrayDeque<>();
    private int inFlight;

    public AdmissionQueue(Settings settings, LongSupplier nanoClock) {
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.bucket = settings.enabled() && settings.rateLimited()
                ? new TokenBucket(settings.maxConcurrent(), settings.tokensPerSecond(), nanoClock) : null;
    }

    /** Admits now, queues, or refuses with 429 when the queue is full. */
    public Result tryAcquire() {
        if (!settings.enabled()) {
            return new Admitted(new Permit());
        }
        List<Grant> expired;
        Result result;
        synchronized (this) {
            expired = expireOverdue();
            result = admitOrQueue();
        }
        complete(expired);
        return result;
    }

    /** Under the monitor. */
    private Result admitOrQueue() {
        if (waiting.isEmpty() && inFlight < settings.maxConcurrent() && (bucket == null || bucket.tryTake())) {
            inFlight++;
            return new Admitted(new Permit());
        }
        if (waiting.size() >= settings.queueSize()) {
            return new Rejected(429, "rate_limit_exceeded", retryAfterSeconds());
        }
        Ticket ticket = new Ticket(nanoClock.getAsLong() + settings.queueTimeoutNanos());
        waiting.addLast(ticket);
        return new Queued(ticket);
    }

    /**
     * Fails the ticket with 503 if it is still waiting and its deadline has come; the caller's timer calls it at
     * {@link Ticket#deadlineNanos()}. Returns whether the ticket was failed by this call.
     */
    public boolean expire(Ticket ticket) {
        Rejected rejected;
        synchronized (this) {
            if (!ticket.waiting || nanoClock.getAsLong() < ticket.deadlineNanos) {
                return false;
            }
            ticket.waiting = false;
            waiting.remove(ticket);
            rejected = timeout();
        }
        ticket.permit.completeExceptionally(new Rejection(rejected));
        return true;
    }

    /**
     * Takes a waiting ticket out of the queue (its client went away). Returns false when it was already granted or
     * failed; a granted permit then still reaches the ticket's future and its holder must release it.
     */
    public boolean cancel(Ticket ticket) {
        synchronized (this) {
            if (!ticket.waiting) {
                return false;
            }
            ticket.waiting = false;
            waiting.remove(ticket);
        }
        ticket.permit.cancel(false);
        return true;
    }

    /**
     * Admits what the rate limit now allows; returns nanoseconds until the head of the queue may get its token, or
     * -1 when nothing waits for a token (the caller then needs no pump timer).
     */
    public long pump() {
        List<Grant> grants;
        long next;
        synchronized (this) {
            grants = admitWaiting();
            next = bucket != null && !waiting.isEmpty() && inFlight < settings.maxConcurrent()
                    ? bucket.nanosUntilToken() : -1;
        }
        complete(grants);
        return next;
    }

    /** Requests holding a permit now. */
    public synchronized int inFlight() {
        return inFlight;
    }

    /** Requests waiting now. */
    public synchronized int waiting() {
        return waiting.size();
    }

    /** Admits from the head while permits and tokens last; drops overdue tickets met on the way. Under the monitor. */
    private List<Grant> admitWaiting() {
        List<Grant> out = expireOverdue();
        while (!waiting.isEmpty() && inFlight < settings.maxConcurrent() && (bucket == null || bucket.tryTake())) {
            Ticket head = waiting.removeFirst();
            head.waiting = false;
            inFlight++;
            out.add(new Grant(head, new Permit(), null));
        }
        return out;
    }

    /** Removes every overdue ticket, as 503 grants. Under the monitor. */
    private List<Grant> expireOverdue() {
        List<Grant> out = new ArrayList<>();
        long now = nanoClock.getAsLong();
        // Deadlines grow along the queue (fixed timeout, FIFO), so the overdue ones are at the head.
        while (!waiting.isEmpty() && now >= waiting.peekFirst().deadlineNanos) {
            Ticket head = waiting.removeFirst();
            head.waiting = false;
            out.add(new Grant(head, null, timeout()));
        }
        return out;
    }

    /** A wait that ran out: 503 with its own code, so a client tells it from a full queue and from an outage. */
    private Rejected timeout() {
        return new Rejected(503, "queue_timeout", retryAfterSeconds());
    }

    /**
     * How long a refused client should wait: with a rate limit, the time the queue needs to drain at that rate
     * (at least 1 s); without one, {@value #DEFAULT_RETRY_AFTER_SECONDS} s. Under the monitor.
     */
    private long retryAfterSeconds() {
        if (bucket == null) {
            return DEFAULT_RETRY_AFTER_SECONDS;
        }
        return Math.max(DEFAULT_RETRY_AFTER_SECONDS, (long) Math.ceil((waiting.size() + 1) / settings.tokensPerSecond()));
    }

    /** Completes tickets in queue order, outside the monitor. */
    private static void complete(List<Grant> grants) {
        for (Grant g : grants) {
            if (g.permit() != null) {
                g.ticket().permit.complete(g.permit());
            } else {
                g.ticket().permit.completeExceptionally(new Rejection(g.rejected()));
            }
        }
    }
}

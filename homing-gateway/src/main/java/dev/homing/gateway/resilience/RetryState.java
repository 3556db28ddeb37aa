package dev.homing.gateway.resilience;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * One request's attempts: how many were made, which workers failed it, which ones may be running it, and whether the
 * client has seen a byte. Answers the proxy's one question after a failed attempt, "may I retry now, and after how
 * long?".
 *
 * <p>A request is <em>delivered</em> to a worker once its body has been written there whole. A failure with no HTTP
 * answer after that (the connection closed or reset, an answer broken off) means the engine may be running it: such
 * a request is retried at most {@link RetryPolicy#maxDelivered()} times, and only on a worker it was never delivered
 * to without an answer, never falling back to one (a request that kills its engine must not go round the fleet, and a
 * generation must not run twice on one engine). A failure before delivery (a refused or failed connection) and a
 * retryable status (the engine's own answer: it is not running the request) keep the plain rule: retried within
 * {@link RetryPolicy#maxAttempts()}, avoiding the workers that failed it while another is available.
 *
 * <p>Invariants: {@link #attempts()} never exceeds the policy's maximum; once {@link #firstByteSent()} is called no
 * retry is ever granted (the client has part of an answer; a second one would corrupt it); a worker in
 * {@link #barredWorkerIds()} stays there. Not thread-safe: confine it to the request's event loop, like the rest of
 * an exchange.
 */
public final class RetryState {

    /** The proxy's next step after a failed attempt. */
    public sealed interface Decision {
    }

    /**
     * Try again after {@code delayMillis}, on a worker outside {@link #excludedWorkerIds()} if there is one, and never
     * on one of {@link #barredWorkerIds()}.
     */
    public record RetryAfter(long delayMillis, int retry, RetryReason reason) implements Decision {
    }

    /** Stop and answer the client with the last failure. */
    public record GiveUp(GiveUpReason reason) implements Decision {
    }

    /** Why a failed attempt is tried again: the retry counter's {@code reason} label. */
    public enum RetryReason {
        /** The request never went out whole: the connection was refused or failed first. */
        NOT_DELIVERED,
        /** The worker answered a retryable status (429, 503, 408, 500, 502, 504). */
        RETRYABLE_STATUS,
        /** The worker received the request whole and closed or reset without an answer: it may be running it. */
        DELIVERED_NO_ANSWER;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Why a failed attempt is not tried again: the give-up counter's {@code reason} label. */
    public enum GiveUpReason {
        /** The failure is an answer asking again cannot change (a 501, a client error). */
        NOT_RETRYABLE,
        /** The client has part of the answer. */
        RESPONSE_STARTED,
        /** {@code --retry-max-retries} attempts were made. */
        RETRIES_EXHAUSTED,
        /** The request was delivered without an answer once more than {@code --retry-max-delivered} allows. */
        DELIVERED_RETRIES_EXHAUSTED,
        /** Every available worker may be running the request already. */
        NO_OTHER_WORKER,
        /** No worker is available at all. */
        NO_AVAILABLE_WORKERS;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A failed attempt as the retry rule needs it.
     *
     * @param workerId  the worker whose leg failed
     * @param status    its HTTP status, or 0 when there was no answer
     * @param delivered the attempt's workers (a prefill/decode pair has two) that received the request whole and have
     *                  not answered it whole; when the failed worker is one of them and gave no status, they may all
     *                  be running it (with a status, the failed worker answered, whatever this says)
     */
    public record Failure(String workerId, UpstreamOutcome outcome, int status, Set<String> delivered) {

        /** The engine received the request whole and gave no answer: it may be running it. */
        boolean mayBeRunning() {
            return status == 0 && delivered.contains(workerId);
        }
    }

    /** The pool's say, asked before a delivered request goes elsewhere. */
    @FunctionalInterface
    public interface Elsewhere {

        /** Whether a worker outside {@code workerIds} is available now (for a pair: in each role). */
        boolean availableBesides(Set<String> workerIds);
    }

    private final RetryPolicy policy;
    private final Set<String> failedWorkerIds = new HashSet<>();
    private final Set<String> barredWorkerIds = new HashSet<>();
    private int attempts;
    private int deliveredRetries;
    private boolean firstByteSent;

    RetryState(RetryPolicy policy) {
        this.policy = policy;
    }

    /** Call just before each attempt goes out. */
    public void attemptStarted() {
        if (attempts >= policy.maxAttempts()) {
            throw new IllegalStateException("attempt " + (attempts + 1) + " of " + policy.maxAttempts());
        }
        attempts++;
    }

    public int attempts() {
        return attempts;
    }

    /** Call when the first byte of the answer goes to the client: from then on nothing is retried. */
    public void firstByteSent() {
        firstByteSent = true;
    }

    /** May the request still be retried, were the current attempt to fail now? Streams ask this before relaying. */
    public boolean mayRetry() {
        return !firstByteSent && attempts < policy.maxAttempts();
    }

    /**
     * Records a failed attempt and decides what comes next; {@code elsewhere} is asked only when the request may be
     * running where it failed.
     */
    public Decision failed(Failure failure, Elsewhere elsewhere, RandomGenerator random) {
        failedWorkerIds.add(failure.workerId());
        boolean mayBeRunning = failure.mayBeRunning();
        if (mayBeRunning) {
            barredWorkerIds.addAll(failure.delivered());
        }
        if (!UpstreamOutcome.isRetryable(failure.outcome(), failure.status())) {
            return new GiveUp(GiveUpReason.NOT_RETRYABLE);
        }
        if (firstByteSent) {
            return new GiveUp(GiveUpReason.RESPONSE_STARTED);
        }
        if (attempts >= policy.maxAttempts()) {
            return new GiveUp(GiveUpReason.RETRIES_EXHAUSTED);
        }
        RetryReason reason;
        if (mayBeRunning) {
            if (deliveredRetries >= policy.maxDelivered()) {
                return new GiveUp(GiveUpReason.DELIVERED_RETRIES_EXHAUSTED);
            }
            if (!elsewhere.availableBesides(barredWorkerIds())) {
                // Better the engine's failure now than the backoff and a 503, or a second run where it may be running.
                return new GiveUp(GiveUpReason.NO_OTHER_WORKER);
            }
            deliveredRetries++;
            reason = RetryReason.DELIVERED_NO_ANSWER;
        } else {
            reason = failure.status() == 0 ? RetryReason.NOT_DELIVERED : RetryReason.RETRYABLE_STATUS;
        }
        int retry = attempts - 1;
        return new RetryAfter(policy.delayMillis(retry, random), retry, reason);
    }

    /**
     * The selection found no available worker at all, even counting the ones that failed this request: answer 503
     * now. Backing off would only add the backoff sum to every request while the pool is empty (the reference's
     * 0.4 s storm of 503s, its issue #13894) and hold client connections for nothing; the client's own retry, guided
     * by {@code Retry-After}, is the better wait.
     */
    public Decision noWorkerAvailable() {
        return new GiveUp(GiveUpReason.NO_AVAILABLE_WORKERS);
    }

    /**
     * Workers the next selection should avoid: every worker that failed this request. When the selection finds no
     * other worker it may fall back to one of these (see the package notes), but never to a {@linkplain
     * #barredWorkerIds barred} one; it never spins on an empty pool.
     */
    public Set<String> excludedWorkerIds() {
        return Set.copyOf(failedWorkerIds);
    }

    /** Workers that may be running the request (delivered, never answered): no attempt goes to them again. */
    public Set<String> barredWorkerIds() {
        return Set.copyOf(barredWorkerIds);
    }
}

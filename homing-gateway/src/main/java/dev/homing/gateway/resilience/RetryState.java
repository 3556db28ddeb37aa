package dev.homing.gateway.resilience;

import java.util.HashSet;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * One request's attempts: how many were made, which workers failed it, and whether the client has seen a byte.
 * Answers the proxy's one question after a failed attempt, "may I retry now, and after how long?".
 *
 * <p>Invariants: {@link #attempts()} never exceeds the policy's maximum; once {@link #firstByteSent()} is called no
 * retry is ever granted (the client has part of an answer; a second one would corrupt it). Not thread-safe: confine
 * it to the request's event loop, like the rest of an exchange.
 */
public final class RetryState {

    /** The proxy's next step after a failed attempt. */
    public sealed interface Decision {
    }

    /** Try again after {@code delayMillis}, on a worker outside {@link #excludedWorkerIds()} if there is one. */
    public record RetryAfter(long delayMillis, int retry) implements Decision {
    }

    /** Stop and answer the client with the last failure; {@code reason} names why, for logs and metrics. */
    public record GiveUp(String reason) implements Decision {
    }

    private final RetryPolicy policy;
    private final Set<String> failedWorkerIds = new HashSet<>();
    private int attempts;
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
     * Records a failed attempt at {@code workerId} and decides what comes next.
     *
     * @param status the worker's HTTP status, or 0 when there was no answer
     */
    public Decision failed(String workerId, UpstreamOutcome outcome, int status, RandomGenerator random) {
        failedWorkerIds.add(workerId);
        if (!UpstreamOutcome.isRetryable(outcome, status)) {
            return new GiveUp("not_retryable");
        }
        if (firstByteSent) {
            return new GiveUp("response_started");
        }
        if (attempts >= policy.maxAttempts()) {
            return new GiveUp("retries_exhausted");
        }
        int retry = attempts - 1;
        return new RetryAfter(policy.delayMillis(retry, random), retry);
    }

    /**
     * The selection found no available worker at all, even counting the ones that failed this request: answer 503
     * now. Backing off would only add the backoff sum to every request while the pool is empty (the reference's
     * 0.4 s storm of 503s, its issue #13894) and hold client connections for nothing; the client's own retry, guided
     * by {@code Retry-After}, is the better wait.
     */
    public Decision noWorkerAvailable() {
        return new GiveUp("no_available_workers");
    }

    /**
     * Workers the next selection should avoid: every worker that failed this request. When the selection finds no
     * other worker it may fall back to one of these (see the package notes); it never spins on an empty pool.
     */
    public Set<String> excludedWorkerIds() {
        return Set.copyOf(failedWorkerIds);
    }
}

package dev.homing.gateway.resilience;

import java.util.random.RandomGenerator;

/**
 * When and after how long a failed attempt is tried again: {@code --retry-max-retries} attempts in all, with
 * exponential backoff {@code min(initial x multiplier^retry, max)} and a random jitter of +-{@code jitter} of that;
 * of them at most {@code --retry-max-delivered} retries of a request a worker received whole and never answered.
 * Immutable and thread-safe; it schedules nothing (the proxy owns the timer) and draws randomness from the caller's
 * generator, so tests can fix it.
 *
 * @param maxAttempts   attempts in all, the first included; 1 means no retry ({@code --disable-retries})
 * @param initialMillis delay before the first retry
 * @param multiplier    growth of the delay per retry
 * @param maxMillis     cap on one delay
 * @param jitter        fraction of the delay added or removed at random, 0..1
 * @param maxDelivered  retries of a request that was delivered whole and never answered (see {@link RetryState})
 */
public record RetryPolicy(int maxAttempts, double initialMillis, double multiplier, double maxMillis, double jitter,
                          int maxDelivered) {

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("--retry-max-retries must be >= 1, got " + maxAttempts);
        }
        if (initialMillis < 0 || maxMillis < initialMillis || multiplier < 1) {
            throw new IllegalArgumentException("retry backoff needs 0 <= initial <= max and multiplier >= 1");
        }
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("retry jitter must be 0..1, got " + jitter);
        }
        if (maxDelivered < 0) {
            throw new IllegalArgumentException("--retry-max-delivered must be >= 0, got " + maxDelivered);
        }
    }

    /** {@code --disable-retries}: one attempt. */
    public RetryPolicy disabled() {
        return new RetryPolicy(1, initialMillis, multiplier, maxMillis, jitter, maxDelivered);
    }

    /** The delay before retry number {@code retry} (0 for the first retry), before jitter. */
    public double baseDelayMillis(int retry) {
        return Math.min(initialMillis * Math.pow(multiplier, retry), maxMillis);
    }

    /** The delay before retry number {@code retry}, jittered uniformly within +-jitter, in whole milliseconds >= 1. */
    public long delayMillis(int retry, RandomGenerator random) {
        double base = baseDelayMillis(retry);
        double factor = jitter == 0 ? 1 : 1 + random.nextDouble(-jitter, jitter);
        // Vert.x timers need at least 1 ms.
        return Math.max(1, Math.round(base * factor));
    }

    /** A fresh per-request record of attempts under this policy. */
    public RetryState start() {
        return new RetryState(this);
    }
}

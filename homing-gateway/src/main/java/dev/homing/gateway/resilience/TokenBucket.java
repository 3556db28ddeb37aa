package dev.homing.gateway.resilience;

import java.util.function.LongSupplier;

/**
 * A token bucket for the admission rate: holds up to {@code capacity} tokens, refilled continuously at
 * {@code tokensPerSecond}; each admission takes one token for good (tokens are not given back when a request ends,
 * unlike the reference, whose returned tokens made its limiter neither a rate nor a concurrency cap).
 *
 * <p>Not thread-safe: {@link AdmissionQueue} calls it under its own lock.
 */
final class TokenBucket {

    private static final double NANOS_PER_SECOND = 1e9;

    private final double capacity;
    private final double tokensPerNano;
    private final LongSupplier nanoClock;
    private double tokens;
    private long refilledAtNanos;

    TokenBucket(double capacity, double tokensPerSecond, LongSupplier nanoClock) {
        if (capacity < 1 || tokensPerSecond <= 0) {
            throw new IllegalArgumentException("a token bucket needs capacity >= 1 and a positive rate");
        }
        this.capacity = capacity;
        this.tokensPerNano = tokensPerSecond / NANOS_PER_SECOND;
        this.nanoClock = nanoClock;
        this.tokens = capacity;
        this.refilledAtNanos = nanoClock.getAsLong();
    }

    /** Takes one token if there is one. */
    boolean tryTake() {
        refill();
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }

    /** Nanoseconds until a whole token is there; 0 when one already is. */
    long nanosUntilToken() {
        refill();
        return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) / tokensPerNano);
    }

    private void refill() {
        long now = nanoClock.getAsLong();
        tokens = Math.min(capacity, tokens + (now - refilledAtNanos) * tokensPerNano);
        refilledAtNanos = now;
    }
}

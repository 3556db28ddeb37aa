package dev.homing.bench.live;

import java.time.Duration;
import java.util.Objects;

/**
 * The bounds of every run: no request is sent after {@code maxRequests} have been, and at {@code duration} the run
 * stops, cancelling what is still in flight (each cancelled request is counted as such).
 */
public record RunCaps(long maxRequests, Duration duration) {

    public RunCaps {
        Objects.requireNonNull(duration, "duration");
        if (maxRequests <= 0 || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("caps must be positive");
        }
    }
}

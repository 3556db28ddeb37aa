package dev.homing.gateway.resilience;

import java.time.Duration;
import java.util.function.LongSupplier;

/** A nano clock that moves only when a test says so. Not thread-safe. */
final class FakeClock implements LongSupplier {

    private long nanos = 1_000_000_000L;

    @Override
    public long getAsLong() {
        return nanos;
    }

    void advance(Duration d) {
        nanos += d.toNanos();
    }
}

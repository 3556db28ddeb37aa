package dev.homing.cli.faults;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Samples a gateway's heap in use from its metrics a few times a second, and keeps the peak. */
final class HeapSampler implements AutoCloseable {

    private static final long PERIOD_MS = 250;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong samples = new AtomicLong();

    HeapSampler(GatewayProcess gateway, FaultClient control) {
        timer.scheduleAtFixedRate(() -> {
            try {
                peak.accumulateAndGet(gateway.heapUsedBytes(control), Math::max);
                samples.incrementAndGet();
            } catch (RuntimeException e) {
                // A scrape that fails under load is a missed sample, not a failed test.
            }
        }, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    long peakBytes() {
        return peak.get();
    }

    long samples() {
        return samples.get();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}

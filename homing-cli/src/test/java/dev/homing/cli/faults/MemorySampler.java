package dev.homing.cli.faults;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Samples a gateway's heap (in use, and retained: {@link GatewayProcess#retainedHeapBytes}) and its direct buffers in
 * use from its metrics a few times a second, and keeps the peak of each. Direct buffers too, because what a transport
 * has not yet handed to the kernel sits in them, outside the heap: on io_uring a write in flight holds its bytes until
 * it completes.
 */
final class MemorySampler implements AutoCloseable {

    private static final long PERIOD_MS = 250;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong heapPeak = new AtomicLong();
    private final AtomicLong retainedPeak = new AtomicLong();
    private final AtomicLong directPeak = new AtomicLong();
    private final AtomicLong samples = new AtomicLong();

    MemorySampler(GatewayProcess gateway, FaultClient control) {
        timer.scheduleAtFixedRate(() -> {
            try {
                PrometheusText metrics = gateway.metrics(control);
                heapPeak.accumulateAndGet(GatewayProcess.heapUsedBytes(metrics), Math::max);
                retainedPeak.accumulateAndGet(GatewayProcess.retainedHeapBytes(metrics), Math::max);
                directPeak.accumulateAndGet(GatewayProcess.directBufferBytes(metrics), Math::max);
                samples.incrementAndGet();
            } catch (RuntimeException e) {
                // A scrape that fails under load is a missed sample, not a failed test.
            }
        }, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    long heapPeakBytes() {
        return heapPeak.get();
    }

    long retainedPeakBytes() {
        return retainedPeak.get();
    }

    long directPeakBytes() {
        return directPeak.get();
    }

    long samples() {
        return samples.get();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}

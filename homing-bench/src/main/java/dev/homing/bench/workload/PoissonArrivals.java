package dev.homing.bench.workload;

/**
 * Open-loop arrival times of a Poisson process: exponential gaps with mean {@code 1 / rate}, seeded. A rate that is
 * not positive and finite means "all at once": every arrival is at time 0. Not thread-safe.
 */
public final class PoissonArrivals {

    private final double meanGapMicros;
    private final SplitMix64 random;
    private double nowMicros;

    public PoissonArrivals(double ratePerSecond, long seed) {
        this.meanGapMicros = ratePerSecond > 0 && Double.isFinite(ratePerSecond) ? 1e6 / ratePerSecond : 0;
        this.random = new SplitMix64(seed);
    }

    /** The next arrival time in microseconds; the first one is at time 0. */
    public long next() {
        long arrival = (long) nowMicros;
        if (meanGapMicros > 0) {
            nowMicros += random.nextExponential(meanGapMicros);
        }
        return arrival;
    }
}

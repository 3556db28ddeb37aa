package dev.homing.bench.live;

import org.HdrHistogram.Histogram;

/** Percentiles of a latency histogram recorded in microseconds, in milliseconds; all zero when it is empty. */
public record LatencySummary(long count, double meanMs, double p50Ms, double p90Ms, double p99Ms, double p999Ms,
                             double maxMs) {

    public static LatencySummary of(Histogram micros) {
        if (micros.getTotalCount() == 0) {
            return new LatencySummary(0, 0, 0, 0, 0, 0, 0);
        }
        return new LatencySummary(micros.getTotalCount(), micros.getMean() / 1e3,
                micros.getValueAtPercentile(50) / 1e3, micros.getValueAtPercentile(90) / 1e3,
                micros.getValueAtPercentile(99) / 1e3, micros.getValueAtPercentile(99.9) / 1e3,
                micros.getMaxValue() / 1e3);
    }
}

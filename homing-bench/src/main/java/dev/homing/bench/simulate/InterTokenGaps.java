package dev.homing.bench.simulate;

import org.HdrHistogram.Histogram;

/**
 * The gaps between consecutive output tokens of every answer, as its client received them: how smooth decoding
 * was. Kept to three significant digits.
 *
 * @param count     gaps measured (output tokens less one per answer)
 * @param p50Millis the median gap
 * @param p99Millis the 99th percentile gap
 */
public record InterTokenGaps(long count, double p50Millis, double p99Millis) {

    /** The percentiles of {@code gaps}, recorded in nanoseconds; all zero with none. */
    static InterTokenGaps of(Histogram gaps) {
        if (gaps.getTotalCount() == 0) {
            return new InterTokenGaps(0, 0, 0);
        }
        return new InterTokenGaps(gaps.getTotalCount(), gaps.getValueAtPercentile(50) / 1e6,
                gaps.getValueAtPercentile(99) / 1e6);
    }
}

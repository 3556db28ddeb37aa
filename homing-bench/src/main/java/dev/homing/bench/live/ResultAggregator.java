package dev.homing.bench.live;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Adds up request outcomes into a run's numbers: counts by status and error kind, tokens, the cache hit rate the
 * answers reported, and latency histograms (time to first token, gaps between text chunks, end to end) of the
 * requests that succeeded.
 *
 * <p>Writers ({@link #requestSent}, {@link #record}) are thread-safe and wait-free apart from a first error of a
 * new kind: histograms go through HdrHistogram {@link Recorder}s, counts through {@link LongAdder}s, so several
 * event loops may record into one aggregator. {@link #snapshot} takes the intervals recorded since the last one
 * without stopping writers; it is for one reader at a time (it is synchronized).
 */
public final class ResultAggregator implements OutcomeListener {

    /** An hour, in microseconds: longer latencies are recorded as an hour rather than lost. */
    private static final long HIGHEST_MICROS = 3_600_000_000L;
    /** Three digits: a percentile is exact to 0.1%. */
    private static final int SIGNIFICANT_DIGITS = 3;

    private final Recorder ttft = new Recorder(HIGHEST_MICROS, SIGNIFICANT_DIGITS);
    private final Recorder gaps = new Recorder(HIGHEST_MICROS, SIGNIFICANT_DIGITS);
    private final Recorder e2e = new Recorder(HIGHEST_MICROS, SIGNIFICANT_DIGITS);
    // How requests ended.
    private final LongAdder sent = new LongAdder();
    private final LongAdder ended = new LongAdder();
    private final LongAdder succeeded = new LongAdder();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    // What the answers said of their tokens.
    private final LongAdder withUsage = new LongAdder();
    private final LongAdder promptTokens = new LongAdder();
    private final LongAdder completionTokens = new LongAdder();
    private final LongAdder cachedReportPromptTokens = new LongAdder();
    private final LongAdder cachedTokens = new LongAdder();

    private final PredictionTally predictions = new PredictionTally();

    private final Histogram ttftTotal = new Histogram(HIGHEST_MICROS, SIGNIFICANT_DIGITS);
    private final Histogram gapsTotal = new Histogram(HIGHEST_MICROS, SIGNIFICANT_DIGITS);
    private final Histogram e2eTotal = new Histogram(HIGHEST_MICROS, SIGNIFICANT_DIGITS);

    /** Everything recorded up to a moment. Histograms are copies, in microseconds. */
    public record Snapshot(long sent, long ended, long succeeded, Map<String, Long> errors, long promptTokens,
                           long completionTokens, long requestsWithUsage, long cachedTokens,
                           long promptTokensWithCachedCount, Histogram ttftMicros, Histogram gapMicros,
                           Histogram e2eMicros, Map<String, BenchResult.ViewPrediction> routingViews) {

        public long inFlight() {
            return sent - ended;
        }

        public long failed() {
            return ended - succeeded;
        }

        /** Cached prompt tokens over prompt tokens, among answers that said how many were cached; null if none. */
        public Double usageHitRate() {
            return promptTokensWithCachedCount == 0 ? null : (double) cachedTokens / promptTokensWithCachedCount;
        }
    }

    @Override
    public void requestSent() {
        sent.increment();
    }

    @Override
    public void record(RequestOutcome outcome) {
        ended.increment();
        if (!outcome.succeeded()) {
            errors.computeIfAbsent(outcome.errorKind(), k -> new LongAdder()).increment();
            return;
        }
        succeeded.increment();
        if (outcome.ttftNanos() >= 0) {
            ttft.recordValue(micros(outcome.ttftNanos()));
        }
        for (long gap : outcome.gapNanos()) {
            gaps.recordValue(micros(gap));
        }
        e2e.recordValue(micros(outcome.e2eNanos()));
        Usage usage = outcome.usage();
        predictions.record(outcome.routing(), usage);
        if (usage != null) {
            withUsage.increment();
            promptTokens.add(usage.promptTokens());
            completionTokens.add(usage.completionTokens());
            if (usage.reportsCachedTokens()) {
                cachedReportPromptTokens.add(usage.promptTokens());
                cachedTokens.add(usage.cachedTokens());
            }
        } else {
            // Without usage the chunks are the best count of output there is.
            completionTokens.add(outcome.textChunks());
        }
    }

    public synchronized Snapshot snapshot() {
        ttftTotal.add(ttft.getIntervalHistogram());
        gapsTotal.add(gaps.getIntervalHistogram());
        e2eTotal.add(e2e.getIntervalHistogram());
        Map<String, Long> errorCounts = new TreeMap<>();
        errors.forEach((kind, count) -> errorCounts.put(kind, count.sum()));
        // Ended before sent, so that a request never appears to have ended unsent.
        long endedNow = ended.sum();
        return new Snapshot(Math.max(sent.sum(), endedNow), endedNow, succeeded.sum(), errorCounts,
                promptTokens.sum(), completionTokens.sum(), withUsage.sum(), cachedTokens.sum(),
                cachedReportPromptTokens.sum(), ttftTotal.copy(), gapsTotal.copy(), e2eTotal.copy(), predictions.byView());
    }

    private static long micros(long nanos) {
        return Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1_000));
    }
}

package dev.homing.bench.live;

import java.util.List;
import java.util.Map;

/**
 * The result of one live run, written as JSON by {@code --output} and printed as a table. Latencies are in
 * milliseconds; rates per second of {@link #elapsedSeconds}.
 *
 * @param run                  what was run
 * @param latencyMeasuredFrom  what latencies count from: the intended send time in open loop (corrected for
 *                             coordinated omission), the actual send in closed loop
 * @param elapsedSeconds       from the first request due to the last one ended
 * @param stoppedAtDurationCap whether the duration cap ended the run
 * @param requests             counts by how requests ended
 * @param errors               failed requests by kind: {@code http_<status>}, {@code connection}, {@code timeout},
 *                             {@code invalid_response}, {@code cancelled}
 * @param throughput           successful requests and tokens per second
 * @param timeToFirstToken     of successful streamed requests
 * @param interTokenGap        between chunks that carry text, of successful streamed requests
 * @param endToEnd             of successful requests
 * @param cacheHitRate         measured from the answers' usage and from the engines' counters
 * @param workers              per engine given by {@code --engine-urls}: counter deltas and shares
 * @param routingViews         by the view a Homing gateway said it routed on: answers and their mean prediction
 *                             gap; empty in front of any other server
 */
public record BenchResult(RunDescription run, String latencyMeasuredFrom, double elapsedSeconds,
                          boolean stoppedAtDurationCap, Requests requests, Map<String, Long> errors,
                          Throughput throughput, LatencySummary timeToFirstToken, LatencySummary interTokenGap,
                          LatencySummary endToEnd, CacheHitRate cacheHitRate, List<Worker> workers,
                          Map<String, ViewPrediction> routingViews) {

    /**
     * @param sent        requests sent
     * @param succeeded   ended with a complete answer
     * @param failed      ended with an error of some kind, cancellations included
     * @param cancelled   in flight at the duration cap
     * @param unsentTurns turns of started conversations never sent (after a failed turn or a cap)
     */
    public record Requests(long sent, long succeeded, long failed, long cancelled, long unsentTurns) {
    }

    public record Throughput(double requestsPerSecond, double outputTokensPerSecond, double promptTokensPerSecond) {
    }

    /**
     * @param fromUsage         cached over prompt tokens summed over answers that reported cached tokens; null if none
     * @param answersWithUsage  successful answers that carried usage
     * @param usagePromptTokens prompt tokens of the answers that reported cached tokens
     * @param usageCachedTokens cached tokens those answers reported
     * @param fromEngines       cached over prompt token counter deltas summed over the engines; null without engines
     */
    public record CacheHitRate(Double fromUsage, long answersWithUsage, long usagePromptTokens, long usageCachedTokens,
                               Double fromEngines) {
    }

    /**
     * @param requests answers routed on this view that reported cached tokens
     * @param meanGap  mean over them of |predicted share cached - cached tokens / prompt tokens|
     */
    public record ViewPrediction(long requests, double meanGap) {
    }

    /** One engine's counter deltas over the run, and its share of the engines' requests and tokens. */
    public record Worker(String url, double requests, double promptTokens, double cachedTokens,
                         double generationTokens, double requestShare, double tokenShare, Double hitRate) {
    }
}

package dev.homing.bench.simulate;

import dev.homing.bench.report.LatencyCdf;
import dev.homing.bench.report.PolicyResult;
import dev.homing.bench.report.PredictionGap;
import dev.homing.bench.report.WorkerShare;
import dev.homing.bench.workload.bounds.CacheBounds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What one policy achieved on one workload in simulation, with the bounds of that same request sequence, the
 * decision branches and the run's cost. {@link #toReport} gives the report's view of it.
 *
 * <p>Definitions, so that reports and docs agree:
 * <ul>
 *   <li>hit rate: cached prompt tokens over prompt tokens, summed over the engines as they count them (the prefix
 *       found when a request's prefill starts); in a prefill/decode fleet the prefill engines', where every prompt
 *       is computed;</li>
 *   <li>TTFT: first output token time minus arrival time at the gateway, in simulated time; the inter-token gaps
 *       are the times between an answer's next tokens as its client receives them;</li>
 *   <li>throughput: requests answered, and prompt plus output tokens, per second of simulated time between the first
 *       arrival and the last answer;</li>
 *   <li>load: prompt tokens routed to each worker the policy places on; max/mean is the busiest worker's over the
 *       mean, 1.0 when even. Requests per worker are kept too.</li>
 * </ul>
 * The arrays are shared, not copied: read them, do not change them.
 *
 * @param policy                the policy name
 * @param requests              requests that arrived
 * @param errors                requests no worker took: the policy found none, or the engine refused the prompt
 *                              (longer than its context or KV pool)
 * @param promptTokens          prompt tokens the engines admitted
 * @param cachedTokens          of those, tokens found in the engines' caches
 * @param outputTokens          tokens the engines emitted
 * @param ttftNanos             every request's TTFT, ascending
 * @param spanNanos             from the first arrival to the last answer
 * @param requestsPerWorker     requests each worker took, by worker index
 * @param promptTokensPerWorker prompt tokens each worker took, by worker index
 * @param branches              how many decisions took each policy branch (hit, miss, imbalance...)
 * @param bounds                the infinite-cache oracle and the pooled-memory bound of the requests that arrived
 * @param held                  requests held for an earlier request's prefill of their prefix (load_aware_affinity)
 * @param heldUntilTimeout      of those, the ones sent because the wait ran out
 * @param busBytes              bytes the gateway replicas' decisions put on the bus (each event a frame of its own,
 *                              loads not counted); 0 for one gateway
 * @param busDecisionEvents     events those decisions published
 * @param lateJoin              with a replica that joined late, its hit rate beside the others'; null otherwise
 * @param wallNanos             real time the run took
 * @param interTokenGaps        the gaps between consecutive output tokens
 * @param prediction            predicted against realised cache by view, when the exact view was modelled; else null
 */
public record SimulationResult(
        String policy,
        long requests,
        long errors,
        long promptTokens,
        long cachedTokens,
        long outputTokens,
        long[] ttftNanos,
        long spanNanos,
        long[] requestsPerWorker,
        long[] promptTokensPerWorker,
        Map<String, Long> branches,
        CacheBounds bounds,
        long held,
        long heldUntilTimeout,
        long busBytes,
        long busDecisionEvents,
        LateJoin lateJoin,
        long wallNanos,
        InterTokenGaps interTokenGaps,
        PredictionGap prediction) {

    public SimulationResult {
        branches = Map.copyOf(branches);
    }

    /**
     * The hit rate of the requests that arrived after a late replica joined, in its first 10 s and after: those it
     * placed beside those the others placed.
     */
    public record LateJoin(double lateFirst, double othersFirst, double lateAfter, double othersAfter) {
    }

    public double hitRate() {
        return promptTokens == 0 ? 0 : (double) cachedTokens / promptTokens;
    }

    /** The TTFT at {@code percentile} (0-100, nearest rank) in milliseconds; 0 with no requests answered. */
    public double ttftMillis(double percentile) {
        return nearestRankMillis(ttftNanos, percentile);
    }

    /** The value at {@code percentile} (0-100, nearest rank) of ascending nanoseconds, in milliseconds; 0 if none. */
    static double nearestRankMillis(long[] ascendingNanos, double percentile) {
        if (ascendingNanos.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(percentile / 100 * ascendingNanos.length);
        return ascendingNanos[Math.clamp(rank - 1, 0, ascendingNanos.length - 1)] / 1e6;
    }

    public double requestsPerSecond() {
        return perSecond(requests - errors);
    }

    public double tokensPerSecond() {
        return perSecond(promptTokens + outputTokens);
    }

    /** The busiest worker's prompt tokens over the mean. */
    public double maxMeanLoad() {
        return maxOverMean(promptTokensPerWorker);
    }

    /** The busiest worker's request count over the mean. */
    public double maxMeanRequests() {
        return maxOverMean(requestsPerWorker);
    }

    /** The report's view: the same hit rate, TTFT distribution, throughput, errors and per-worker load. */
    public PolicyResult toReport() {
        double[] millis = new double[ttftNanos.length];
        for (int i = 0; i < millis.length; i++) {
            millis[i] = ttftNanos[i] / 1e6;
        }
        List<WorkerShare> workers = new ArrayList<>(requestsPerWorker.length);
        for (int i = 0; i < requestsPerWorker.length; i++) {
            workers.add(new WorkerShare("worker-" + i, requestsPerWorker[i], promptTokensPerWorker[i]));
        }
        return PolicyResult.of(policy, hitRate(), LatencyCdf.ofMillis(millis), requestsPerSecond(), tokensPerSecond(),
                errors, workers).withPrediction(prediction);
    }

    private double perSecond(long count) {
        return spanNanos == 0 ? 0 : count * 1e9 / spanNanos;
    }

    private static double maxOverMean(long[] perWorker) {
        long total = Arrays.stream(perWorker).sum();
        return total == 0 ? 0 : (double) Arrays.stream(perWorker).max().orElse(0) * perWorker.length / total;
    }
}

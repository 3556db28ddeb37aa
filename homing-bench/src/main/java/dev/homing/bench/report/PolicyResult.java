package dev.homing.bench.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * What one routing policy achieved on one workload.
 *
 * @param policy            the policy's name
 * @param hitRate           share of prompt tokens served from cache, 0 to 1
 * @param ttftP50Millis     median time to first token
 * @param ttftP99Millis     99th percentile time to first token
 * @param requestsPerSecond completed requests per second
 * @param tokensPerSecond   prompt plus output tokens per second
 * @param errors            failed requests
 * @param workers           what each worker served
 * @param ttft              the time-to-first-token distribution
 * @param prediction        predicted against realised cache by view, when the exact view was modelled; else null
 */
public record PolicyResult(String policy, double hitRate, double ttftP50Millis, double ttftP99Millis,
                           double requestsPerSecond, double tokensPerSecond, long errors, List<WorkerShare> workers,
                           LatencyCdf ttft, @JsonInclude(JsonInclude.Include.NON_NULL) PredictionGap prediction) {

    public PolicyResult {
        Objects.requireNonNull(policy, "policy");
        workers = List.copyOf(workers);
        Objects.requireNonNull(ttft, "ttft");
    }

    /** A result whose percentiles are read from its distribution. */
    public static PolicyResult of(String policy, double hitRate, LatencyCdf ttft, double requestsPerSecond,
                                  double tokensPerSecond, long errors, List<WorkerShare> workers) {
        return new PolicyResult(policy, hitRate, ttft.percentile(0.5), ttft.percentile(0.99), requestsPerSecond,
                tokensPerSecond, errors, workers, ttft, null);
    }

    public PolicyResult withPrediction(PredictionGap gap) {
        return new PolicyResult(policy, hitRate, ttftP50Millis, ttftP99Millis, requestsPerSecond, tokensPerSecond,
                errors, workers, ttft, gap);
    }

    /** The busiest worker's prompt tokens over the mean per worker: 1 is perfect balance; 0 with no workers. */
    public double maxOverMeanLoad() {
        long total = workers.stream().mapToLong(WorkerShare::tokens).sum();
        if (total == 0) {
            return 0;
        }
        long max = workers.stream().mapToLong(WorkerShare::tokens).max().orElse(0);
        return max * (double) workers.size() / total;
    }
}

package dev.homing.bench.live;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Predicted against realised cache, by routing view: for each answer that carries both the gateway's note and the
 * engine's cached-token count, |predicted share - cached tokens / prompt tokens|. Its mean is the gap the exact view
 * promises to keep small (docs/BENCHMARKS.md, "Exact view from KV events"). Thread-safe, like the aggregator.
 */
final class PredictionTally {

    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final Map<String, DoubleAdder> gaps = new ConcurrentHashMap<>();

    void record(RoutingNote note, Usage usage) {
        if (note == null || usage == null || !usage.reportsCachedTokens() || usage.promptTokens() <= 0) {
            return;
        }
        double realised = (double) usage.cachedTokens() / usage.promptTokens();
        requests.computeIfAbsent(note.view(), v -> new LongAdder()).increment();
        gaps.computeIfAbsent(note.view(), v -> new DoubleAdder()).add(Math.abs(note.predictedHit() - realised));
    }

    /** Per view, in name order; empty when the gateway said nothing. */
    Map<String, BenchResult.ViewPrediction> byView() {
        Map<String, BenchResult.ViewPrediction> out = new TreeMap<>();
        requests.forEach((view, count) -> {
            long n = count.sum();
            out.put(view, new BenchResult.ViewPrediction(n, gaps.get(view).sum() / n));
        });
        return out;
    }
}

package dev.homing.bench.simulate;

import dev.homing.bench.workload.bounds.CacheBounds;
import dev.homing.bench.workload.bounds.HitRate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Renders a {@link Comparison}: a Markdown table (policy, hit rate, TTFT p50/p99, throughput, max/mean load,
 * errors, wall time) followed by the two bounds, and a JSON document with every number of every run. Stateless and
 * thread-safe.
 */
public final class ComparisonReport {

    /** The Markdown report's file name in the output directory. */
    public static final String MARKDOWN = "report.md";
    /** The JSON results' file name in the output directory. */
    public static final String JSON = "results.json";

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private ComparisonReport() {
    }

    /** Writes the Markdown report and the JSON results into {@code directory}, creating it if needed. */
    public static void write(Comparison comparison, Path directory) {
        try {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve(MARKDOWN), markdown(comparison), StandardCharsets.UTF_8);
            Files.writeString(directory.resolve(JSON), json(comparison), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The table of results and bounds, in Markdown. */
    public static String markdown(Comparison comparison) {
        SimulationSettings s = comparison.settings();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Workload `%s`, %d workers, %,d KV tokens each.%n%n",
                comparison.workload(), s.workers(), s.engine().kvTokens()));
        out.append("| policy | hit rate | TTFT p50 (ms) | TTFT p99 (ms) | throughput (tok/s) | max/mean load "
                + "| errors | wall (s) |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (PolicyResult r : comparison.results()) {
            out.append(String.format(Locale.ROOT, "| %s | %.1f%% | %.0f | %.0f | %.0f | %.2f | %d | %.1f |%n",
                    r.policy(), 100 * r.hitRate(), r.ttftMillis(50), r.ttftMillis(99), r.outputTokensPerSecond(),
                    r.maxMeanLoad(), r.errors(), r.wallNanos() / 1e9));
        }
        if (!comparison.results().isEmpty()) {
            CacheBounds bounds = comparison.results().getFirst().bounds();
            out.append(String.format(Locale.ROOT, "| *oracle (infinite cache)* | %s | | | | | | |%n",
                    boundRange(comparison, true)));
            out.append(String.format(Locale.ROOT, "| *pooled bound (%,d tokens)* | %s | | | | | | |%n",
                    bounds.pooledTokens(), boundRange(comparison, false)));
        }
        out.append("\nHit rate: cached prompt tokens / prompt tokens, as the engines count them. Load: prompt tokens "
                + "routed to each worker; max/mean is the busiest worker's over the mean. Throughput: output tokens "
                + "per second of simulated time. Bounds: token-weighted, over the same requests.\n");
        return out.toString();
    }

    /** One bound's token hit rate; a range when the runs' request sequences differed (closed-loop turns). */
    private static String boundRange(Comparison comparison, boolean oracle) {
        double min = Double.MAX_VALUE;
        double max = -1;
        for (PolicyResult r : comparison.results()) {
            HitRate rate = oracle ? r.bounds().oracle() : r.bounds().pooled();
            min = Math.min(min, rate.tokenRate());
            max = Math.max(max, rate.tokenRate());
        }
        return max - min < 0.0005 ? String.format(Locale.ROOT, "%.1f%%", 100 * max)
                : String.format(Locale.ROOT, "%.1f-%.1f%%", 100 * min, 100 * max);
    }

    /** Every number of every run, for scripts and charts. */
    public static String json(Comparison comparison) {
        SimulationSettings s = comparison.settings();
        ObjectNode root = MAPPER.createObjectNode();
        root.put("workload", comparison.workload());
        ObjectNode settings = root.putObject("settings");
        settings.put("workers", s.workers());
        settings.put("kvTokens", s.engine().kvTokens());
        settings.put("maxRunningRequests", s.engine().maxRunningRequests());
        settings.put("chunkedPrefillSize", s.engine().chunkedPrefillSize());
        settings.put("pageSize", s.engine().pageSize());
        settings.put("maintainIntervalSeconds", s.maintainIntervalNanos() / 1e9);
        settings.put("loadSampleIntervalSeconds", s.loadSampleIntervalNanos() / 1e9);
        settings.put("boundBlockTokens", s.boundBlockTokens());
        ArrayNode results = root.putArray("results");
        for (PolicyResult r : comparison.results()) {
            ObjectNode node = results.addObject();
            node.put("policy", r.policy());
            node.put("requests", r.requests());
            node.put("errors", r.errors());
            node.put("promptTokens", r.promptTokens());
            node.put("cachedTokens", r.cachedTokens());
            node.put("hitRate", r.hitRate());
            node.put("ttftP50Millis", r.ttftMillis(50));
            node.put("ttftP90Millis", r.ttftMillis(90));
            node.put("ttftP99Millis", r.ttftMillis(99));
            node.put("outputTokens", r.outputTokens());
            node.put("outputTokensPerSecond", r.outputTokensPerSecond());
            node.put("simulatedSeconds", r.spanNanos() / 1e9);
            node.put("maxMeanLoad", r.maxMeanLoad());
            node.put("maxMeanRequests", r.maxMeanRequests());
            ArrayNode requests = node.putArray("requestsPerWorker");
            ArrayNode tokens = node.putArray("promptTokensPerWorker");
            for (int i = 0; i < r.requestsPerWorker().length; i++) {
                requests.add(r.requestsPerWorker()[i]);
                tokens.add(r.promptTokensPerWorker()[i]);
            }
            ObjectNode branches = node.putObject("branches");
            r.branches().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                    .forEach(e -> branches.put(e.getKey(), e.getValue()));
            ObjectNode bounds = node.putObject("bounds");
            bounds.put("oracleHitRate", r.bounds().oracle().tokenRate());
            bounds.put("pooledHitRate", r.bounds().pooled().tokenRate());
            bounds.put("pooledTokens", r.bounds().pooledTokens());
            node.put("wallSeconds", r.wallNanos() / 1e9);
        }
        return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
    }
}

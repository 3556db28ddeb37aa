package dev.homing.bench.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Turns a JMH JSON result ({@code -rf json}) into the Markdown table of docs/BENCHMARKS.md: each benchmark's time
 * and its ratio to {@code scanBaseline} at the same parameters, measured in the same run. Batch (single-shot) scores
 * are divided by the batch size so every row reads per operation.
 *
 * <p>Run: {@code java -cp benchmarks.jar dev.homing.bench.jmh.JmhRatioTable result.json}
 */
public final class JmhRatioTable {

    private static final String BASELINE = "scanBaseline";

    private JmhRatioTable() {
    }

    public static void main(String[] args) throws IOException {
        JsonNode results = new ObjectMapper().readTree(Files.readString(Path.of(args[0])));
        // params -> benchmark -> {score, error}, in a stable order
        Map<String, Map<String, double[]>> table = new TreeMap<>();
        for (JsonNode result : results) {
            String[] name = result.get("benchmark").asString().split("\\.");
            String method = name[name.length - 1];
            JsonNode params = result.get("params");
            String key = String.format(Locale.ROOT, "%6d | %4d", params.get("promptChars").asInt(),
                    params.get("workers").asInt());
            int batch = Math.max(1, result.path("measurementBatchSize").asInt(1));
            JsonNode metric = result.get("primaryMetric");
            table.computeIfAbsent(key, k -> new LinkedHashMap<>())
                    .put(method, new double[] {metric.get("score").asDouble() / batch,
                        metric.get("scoreError").asDouble() / batch});
        }
        System.out.println("| prompt chars | workers | benchmark | ns/op | ± | ratio to scan |");
        System.out.println("|---:|---:|---|---:|---:|---:|");
        table.forEach((params, byMethod) -> {
            double baseline = byMethod.getOrDefault(BASELINE, new double[] {Double.NaN})[0];
            byMethod.forEach((method, score) -> System.out.printf(Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %.2f |%n",
                    params, method, score[0], score[1], score[0] / baseline));
        });
    }
}

package dev.homing.bench.live;

import java.util.Map;

/**
 * An SGLang engine's token and request counters at one moment, read from its Prometheus {@code /metrics}
 * ({@code sglang:prompt_tokens_total}, {@code sglang:cached_tokens_total}, {@code sglang:generation_tokens_total},
 * {@code sglang:num_requests_total}), each summed over its label sets. A counter the engine does not export reads 0.
 */
public record EngineCounters(double promptTokens, double cachedTokens, double generationTokens, double requests) {

    public static final EngineCounters ZERO = new EngineCounters(0, 0, 0, 0);

    private static final Map<String, Integer> NAMES = Map.of(
            "sglang:prompt_tokens_total", 0,
            "sglang:cached_tokens_total", 1,
            "sglang:generation_tokens_total", 2,
            "sglang:num_requests_total", 3);

    /** Parses the Prometheus text format; lines it cannot read are skipped. */
    public static EngineCounters parse(String exposition) {
        double[] sums = new double[4];
        for (String line : exposition.split("\n")) {
            if (line.isEmpty() || line.charAt(0) == '#') {
                continue;
            }
            int nameEnd = 0;
            while (nameEnd < line.length() && line.charAt(nameEnd) != '{' && line.charAt(nameEnd) != ' ') {
                nameEnd++;
            }
            Integer index = NAMES.get(line.substring(0, nameEnd));
            if (index == null) {
                continue;
            }
            int valueStart = nameEnd;
            if (valueStart < line.length() && line.charAt(valueStart) == '{') {
                valueStart = labelsEnd(line, valueStart);
            }
            String[] rest = line.substring(Math.min(valueStart, line.length())).trim().split("\\s+");
            try {
                sums[index] += Double.parseDouble(rest[0]);
            } catch (NumberFormatException e) {
                // Not a sample line after all; the counter keeps what the other lines said.
            }
        }
        return new EngineCounters(sums[0], sums[1], sums[2], sums[3]);
    }

    /** The position after the closing brace of a label set, skipping braces inside quoted values. */
    private static int labelsEnd(String line, int open) {
        boolean quoted = false;
        for (int i = open + 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == '}' && !quoted) {
                return i + 1;
            }
        }
        return line.length();
    }

    public EngineCounters minus(EngineCounters before) {
        return new EngineCounters(promptTokens - before.promptTokens, cachedTokens - before.cachedTokens,
                generationTokens - before.generationTokens, requests - before.requests);
    }

    public EngineCounters plus(EngineCounters other) {
        return new EngineCounters(promptTokens + other.promptTokens, cachedTokens + other.cachedTokens,
                generationTokens + other.generationTokens, requests + other.requests);
    }

    /** Cached over prompt tokens, or null when no prompt tokens were counted. */
    public Double hitRate() {
        return promptTokens > 0 ? cachedTokens / promptTokens : null;
    }
}

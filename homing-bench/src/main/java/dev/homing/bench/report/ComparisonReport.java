package dev.homing.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes a comparison into a directory: {@code report.md} (a table and the charts), {@code results.json} (the
 * comparison itself, readable back with {@link #readJson}), and three hand-written SVG charts:
 * {@code ttft-cdf.svg}, {@code hit-rate.svg} and {@code worker-load.svg}. Existing files of those names are replaced.
 */
public final class ComparisonReport {

    public static final String MARKDOWN = "report.md";
    public static final String JSON = "results.json";
    public static final String TTFT_CHART = "ttft-cdf.svg";
    public static final String HIT_RATE_CHART = "hit-rate.svg";
    public static final String LOAD_CHART = "worker-load.svg";

    private static final JsonMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private ComparisonReport() {
    }

    public static void write(Comparison comparison, Path directory) throws IOException {
        Files.createDirectories(directory);
        write(directory.resolve(MARKDOWN), markdown(comparison));
        write(directory.resolve(JSON), json(comparison));
        write(directory.resolve(TTFT_CHART), TtftCdfChart.render(comparison));
        write(directory.resolve(HIT_RATE_CHART), HitRateChart.render(comparison));
        write(directory.resolve(LOAD_CHART), WorkerLoadChart.render(comparison));
    }

    /** The Markdown page: title, workload, table, bounds, and links to the charts beside it. */
    public static String markdown(Comparison comparison) {
        return "# " + comparison.title() + "\n\nWorkload: " + comparison.workload() + "\n\n"
                + MarkdownTable.render(comparison) + "\n"
                + "![Time to first token](" + TTFT_CHART + ")\n\n"
                + "![Hit rate against the bounds](" + HIT_RATE_CHART + ")\n\n"
                + "![Load per worker](" + LOAD_CHART + ")\n";
    }

    public static String json(Comparison comparison) {
        return MAPPER.writeValueAsString(comparison);
    }

    public static Comparison readJson(String json) {
        return MAPPER.readValue(json, Comparison.class);
    }

    public static String ttftChart(Comparison comparison) {
        return TtftCdfChart.render(comparison);
    }

    public static String hitRateChart(Comparison comparison) {
        return HitRateChart.render(comparison);
    }

    public static String loadChart(Comparison comparison) {
        return WorkerLoadChart.render(comparison);
    }

    private static void write(Path file, String content) throws IOException {
        Files.writeString(file, content, StandardCharsets.UTF_8);
    }
}

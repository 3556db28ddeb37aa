package dev.homing.bench.simulate;

import dev.homing.bench.report.ComparisonReport;
import dev.homing.bench.report.MarkdownTable;
import dev.homing.bench.report.PredictionGap;
import dev.homing.bench.workload.Workload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * One workload through several policies on each of several fleets (regular, prefill/decode, data-parallel), every run
 * with fresh engines: what {@code homing simulate --fleet ...} prints. Each fleet's runs are a
 * {@link PolicyComparison} of their own, with their own bounds (the memory of the engines the policy places on).
 *
 * @param workload the workload's name
 * @param fleets   one comparison per fleet, in the order they ran
 */
public record FleetComparison(String workload, List<PolicyComparison> fleets) {

    public static final String MARKDOWN = "fleets.md";
    public static final String JSON = "fleets.json";

    private static final JsonMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    public FleetComparison {
        fleets = List.copyOf(fleets);
    }

    /**
     * One row of the table: a fleet and a policy; {@code prediction} is null unless the run modelled the exact view
     * ({@code --routing-view}).
     */
    public record Row(String fleet, String layout, String policy, double hitRate, double ttftP50Millis,
                      double ttftP99Millis, double interTokenP50Millis, double interTokenP99Millis,
                      double requestsPerSecond, double tokensPerSecond, double maxMeanLoad, long errors,
                      double oracleHitRate, double pooledHitRate, long pooledTokens, PredictionGap prediction) {
    }

    /**
     * @param fleetSettings one settings per fleet (each with its {@link FleetShape})
     * @param finished      hears each run's result as soon as it ends, with its fleet's settings
     */
    public static FleetComparison run(List<SimulationSettings> fleetSettings, RequestShape shape, Workload workload,
                                      List<String> policies, FleetListener finished) {
        List<PolicyComparison> fleets = new ArrayList<>(fleetSettings.size());
        for (SimulationSettings settings : fleetSettings) {
            Consumer<SimulationResult> listener = result -> finished.finished(settings, result);
            fleets.add(PolicyComparison.run(settings, shape, workload, policies, listener));
        }
        return new FleetComparison(workload.name(), fleets);
    }

    /** Hears each run as it ends. */
    @FunctionalInterface
    public interface FleetListener {
        void finished(SimulationSettings fleet, SimulationResult result);
    }

    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (PolicyComparison fleet : fleets) {
            SimulationSettings settings = fleet.settings();
            for (SimulationResult r : fleet.runs()) {
                rows.add(new Row(settings.fleet().kind().flag(), settings.fleetDescription(), r.policy(), r.hitRate(),
                        r.ttftMillis(50), r.ttftMillis(99), r.interTokenGaps().p50Millis(),
                        r.interTokenGaps().p99Millis(), r.requestsPerSecond(), r.tokensPerSecond(), r.maxMeanLoad(),
                        r.errors(), r.bounds().oracle().tokenRate(), r.bounds().pooled().tokenRate(),
                        r.bounds().pooledTokens(), r.prediction()));
            }
        }
        return rows;
    }

    /** The page: a row per fleet and policy, then each fleet's bounds. */
    public String markdown() {
        StringBuilder out = new StringBuilder("# Fleets compared in simulation\n\nWorkload: ").append(workload);
        if (!fleets.isEmpty()) {
            out.append(format(", engines of %,d KV tokens", fleets.getFirst().settings().engine().kvTokens()));
        }
        List<Row> rows = rows();
        boolean predicted = rows.stream().anyMatch(row -> row.prediction() != null);
        out.append("\n\n| fleet | policy | hit rate | TTFT p50 (ms) | TTFT p99 (ms) | ITL p50 (ms) | ITL p99 (ms) "
                + "| requests/s | tokens/s | max/mean load | errors |")
                .append(predicted ? " predicted vs realised: exact | tree |\n" : "\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|").append(predicted ? "---:|---:|\n" : "\n");
        for (Row row : rows) {
            out.append("| ").append(row.fleet()).append(" (").append(row.layout()).append(") | ").append(row.policy())
                    .append(" | ").append(MarkdownTable.percent(row.hitRate()))
                    .append(format(" | %.1f | %.1f | %.1f | %.1f", row.ttftP50Millis(), row.ttftP99Millis(),
                            row.interTokenP50Millis(), row.interTokenP99Millis()))
                    .append(format(" | %.2f | %,.0f | %.2f | %d |", row.requestsPerSecond(), row.tokensPerSecond(),
                            row.maxMeanLoad(), row.errors()));
            if (predicted) {
                out.append(MarkdownTable.gapCells(row.prediction()));
            }
            out.append("\n");
        }
        if (predicted) {
            out.append("\n").append(MarkdownTable.GAP_NOTE);
        }
        out.append("\nHit rates are those of the engines the policy places on (a pd fleet's prefill engines; its "
                + "decode engines compute no prompt); load is over those workers. Bounds on the hit rate, for those "
                + "engines' memory:\n\n");
        for (PolicyComparison fleet : fleets) {
            if (fleet.runs().isEmpty()) {
                continue;
            }
            SimulationResult first = fleet.runs().getFirst();
            out.append("- ").append(fleet.settings().fleet().kind().flag()).append(" (")
                    .append(fleet.settings().fleetDescription()).append("): infinite-cache oracle ")
                    .append(MarkdownTable.percent(first.bounds().oracle().tokenRate()))
                    .append(format(", pooled memory of %,d tokens ", first.bounds().pooledTokens()))
                    .append(MarkdownTable.percent(first.bounds().pooled().tokenRate())).append("\n");
        }
        return out.toString();
    }

    /**
     * Writes {@link #MARKDOWN} and {@link #JSON} (the rows) into {@code directory}, and each fleet's own report (as
     * {@code homing compare} writes one) into a folder named after the fleet.
     */
    public void write(Path directory) throws IOException {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve(MARKDOWN), markdown(), StandardCharsets.UTF_8);
        Files.writeString(directory.resolve(JSON), MAPPER.writeValueAsString(rows()), StandardCharsets.UTF_8);
        for (PolicyComparison fleet : fleets) {
            ComparisonReport.write(fleet.report(), directory.resolve(fleet.settings().fleet().kind().flag()));
        }
    }

    private static String format(String pattern, Object... values) {
        return String.format(Locale.ROOT, pattern, values);
    }
}

package dev.homing.bench.report;

import java.util.Locale;

/** The comparison as a Markdown table, one row per policy, then the bounds. */
public final class MarkdownTable {

    private MarkdownTable() {
    }

    static String render(Comparison comparison) {
        StringBuilder out = new StringBuilder();
        boolean predicted = comparison.policies().stream().anyMatch(r -> r.prediction() != null);
        out.append("| policy | hit rate | TTFT p50 (ms) | TTFT p99 (ms) | requests/s | tokens/s | max/mean load | errors |")
                .append(predicted ? " predicted vs realised: exact | tree |\n" : "\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|").append(predicted ? "---:|---:|\n" : "\n");
        for (PolicyResult r : comparison.policies()) {
            out.append("| ").append(cell(r.policy()))
                    .append(" | ").append(percent(r.hitRate()))
                    .append(" | ").append(!r.ttft().hasSamples() ? "–" : format("%.1f", r.ttftP50Millis()))
                    .append(" | ").append(!r.ttft().hasSamples() ? "–" : format("%.1f", r.ttftP99Millis()))
                    .append(" | ").append(format("%.2f", r.requestsPerSecond()))
                    .append(" | ").append(format("%,.0f", r.tokensPerSecond()))
                    .append(" | ").append(r.workers().isEmpty() ? "–" : format("%.2f", r.maxOverMeanLoad()))
                    .append(" | ").append(r.errors());
            out.append(" |");
            if (predicted) {
                out.append(gapCells(r.prediction()));
            }
            out.append("\n");
        }
        if (predicted) {
            out.append("\n").append(GAP_NOTE);
        }
        HitRateBounds bounds = comparison.bounds();
        if (bounds != null) {
            out.append("\nBounds on the hit rate: infinite-cache oracle ").append(percent(bounds.oracle()))
                    .append(", pooled memory of ").append(format("%,d", bounds.pooledTokens())).append(" tokens ")
                    .append(percent(bounds.pooled())).append(".\n");
        }
        return out.toString();
    }

    /** What the predicted-against-realised columns are. */
    public static final String GAP_NOTE = "Predicted vs realised: the mean over answered requests of |predicted - "
            + "reported cached tokens| / prompt tokens, on the chosen worker, by the exact view and by the tree.\n";

    /** A row's predicted-against-realised cells, by the exact view and the tree ("–" where not modelled), each closed. */
    public static String gapCells(PredictionGap gap) {
        return " " + (gap == null ? "–" : format("%.2f%%", 100 * gap.exact())) + " | "
                + (gap == null || gap.tree() == null ? "–" : format("%.2f%%", 100 * gap.tree())) + " |";
    }

    /**
     * A hit rate in a table, to two decimals: two views or policies on one trace often differ by a tenth of a point,
     * which one decimal rounds away or doubles.
     */
    public static String percent(double rate) {
        return format("%.2f%%", rate * 100);
    }

    /** Keeps a policy name from breaking the table. */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    private static String format(String pattern, Object value) {
        return String.format(Locale.ROOT, pattern, value);
    }
}

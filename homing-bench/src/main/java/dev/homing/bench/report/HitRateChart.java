package dev.homing.bench.report;

import java.util.Locale;

/** Cache hit rate per policy as bars, against the infinite-cache oracle and the pooled-memory bound as lines. */
final class HitRateChart {

    private static final String ORACLE_COLOR = "#555555";
    private static final String POOLED_COLOR = "#D55E00";

    private HitRateChart() {
    }

    static String render(Comparison comparison) {
        Plot plot = new Plot("Prefix cache hit rate, " + comparison.workload(), "policy", "prompt tokens from cache");
        plot.valueAxis(1, Plot.niceTicks(1), v -> Math.round(v * 100) + "%");
        int n = comparison.policies().size();
        double slot = (plot.right() - plot.left()) / Math.max(1, n);
        for (int i = 0; i < n; i++) {
            PolicyResult r = comparison.policies().get(i);
            double x = plot.left() + slot * i + slot * 0.2;
            double y = plot.y(r.hitRate(), 1);
            plot.svg.rect(x, y, slot * 0.6, plot.bottom() - y, Plot.color(i));
            plot.svg.text(x + slot * 0.3, y - 5, percent(r.hitRate()), "middle", 11, false);
            plot.svg.text(x + slot * 0.3, plot.bottom() + 18, Plot.shorten(r.policy(), 16), "middle", 11, false);
            plot.legend(r.policy(), Plot.color(i), false, false);
        }
        HitRateBounds bounds = comparison.bounds();
        if (bounds != null) {
            boundLine(plot, bounds.oracle(), ORACLE_COLOR, "oracle " + percent(bounds.oracle()));
            boundLine(plot, bounds.pooled(), POOLED_COLOR, "pooled " + percent(bounds.pooled()));
        }
        return plot.svg.toString();
    }

    private static void boundLine(Plot plot, double rate, String color, String label) {
        double y = plot.y(rate, 1);
        plot.svg.line(plot.left(), y, plot.right(), y, color, 2, true);
        plot.legend(label, color, true, true);
    }

    static String percent(double rate) {
        return String.format(Locale.ROOT, "%.1f%%", rate * 100);
    }
}

package dev.homing.bench.report;

import java.util.List;
import java.util.Locale;

/**
 * Each worker's share of prompt tokens, one group of bars per policy (one bar per worker, in worker order), with a
 * dashed line at the even share: a tall bar is a hot spot.
 */
final class WorkerLoadChart {

    private WorkerLoadChart() {
    }

    static String render(Comparison comparison) {
        Plot plot = new Plot("Load per worker, " + comparison.workload(), "policy (one bar per worker)",
                "share of prompt tokens");
        double maxShare = 0;
        int maxWorkers = 1;
        for (PolicyResult r : comparison.policies()) {
            long total = total(r);
            maxWorkers = Math.max(maxWorkers, r.workers().size());
            for (WorkerShare w : r.workers()) {
                maxShare = Math.max(maxShare, total == 0 ? 0 : (double) w.tokens() / total);
            }
        }
        List<Double> ticks = Plot.niceTicks(maxShare);
        double top = ticks.getLast();
        plot.valueAxis(top, ticks, v -> Math.round(v * 1000) / 10.0 + "%");
        int n = comparison.policies().size();
        double slot = (plot.right() - plot.left()) / Math.max(1, n);
        for (int i = 0; i < n; i++) {
            PolicyResult r = comparison.policies().get(i);
            long total = total(r);
            double groupLeft = plot.left() + slot * i + slot * 0.1;
            double bar = slot * 0.8 / Math.max(1, r.workers().size());
            for (int w = 0; w < r.workers().size(); w++) {
                double share = total == 0 ? 0 : (double) r.workers().get(w).tokens() / total;
                double y = plot.y(share, top);
                plot.svg.rect(groupLeft + bar * w + 0.5, y, Math.max(1, bar - 1), plot.bottom() - y, Plot.color(i));
            }
            plot.svg.text(plot.left() + slot * (i + 0.5), plot.bottom() + 18, Plot.shorten(r.policy(), 16), "middle",
                    11, false);
            plot.svg.text(plot.left() + slot * (i + 0.5), plot.bottom() + 32,
                    String.format(Locale.ROOT, "max/mean %.2f", r.maxOverMeanLoad()), "middle", 10, false);
            plot.legend(r.policy(), Plot.color(i), false, false);
        }
        double even = 1.0 / maxWorkers;
        plot.svg.line(plot.left(), plot.y(even, top), plot.right(), plot.y(even, top), "#555555", 1.5, true);
        plot.legend("even share (1/" + maxWorkers + ")", "#555555", true, true);
        return plot.svg.toString();
    }

    private static long total(PolicyResult r) {
        return r.workers().stream().mapToLong(WorkerShare::tokens).sum();
    }
}

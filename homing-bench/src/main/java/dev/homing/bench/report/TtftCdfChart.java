package dev.homing.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * Time to first token as one CDF line per policy. The time axis is logarithmic: TTFT of a cached and an overloaded
 * worker differ by orders of magnitude, and a linear axis would crush the fast part of every line.
 */
final class TtftCdfChart {

    private TtftCdfChart() {
    }

    static String render(Comparison comparison) {
        Plot plot = new Plot("Time to first token, " + comparison.workload(), "TTFT (ms, log scale)",
                "share of requests");
        double min = Double.MAX_VALUE;
        double max = 0;
        for (PolicyResult r : comparison.policies()) {
            for (LatencyCdf.Point p : r.ttft().points()) {
                if (p.millis() > 0) {
                    min = Math.min(min, p.millis());
                }
                max = Math.max(max, p.millis());
            }
        }
        if (max <= 0) {
            min = 1;
            max = 10;
        }
        double lowDecade = Math.floor(Math.log10(min));
        double highDecade = Math.max(lowDecade + 1, Math.ceil(Math.log10(max)));
        plot.valueAxis(1, List.of(0.0, 0.25, 0.5, 0.75, 1.0), v -> Math.round(v * 100) + "%");
        drawTimeAxis(plot, lowDecade, highDecade);
        for (int i = 0; i < comparison.policies().size(); i++) {
            PolicyResult r = comparison.policies().get(i);
            String color = Plot.color(i);
            List<double[]> line = new ArrayList<>();
            double previous = 0;
            for (LatencyCdf.Point p : r.ttft().points()) {
                double x = x(plot, p.millis(), lowDecade, highDecade);
                // A step: the share stays at the previous level until the next value is reached.
                line.add(new double[] {x, plot.y(previous, 1)});
                line.add(new double[] {x, plot.y(p.fraction(), 1)});
                previous = p.fraction();
            }
            if (!line.isEmpty()) {
                plot.svg.polyline(line, color, 2);
            }
            plot.legend(r.policy(), color, true, false);
        }
        return plot.svg.toString();
    }

    private static void drawTimeAxis(Plot plot, double lowDecade, double highDecade) {
        boolean manyDecades = highDecade - lowDecade > 3;
        for (double d = lowDecade; d <= highDecade; d++) {
            for (int m : manyDecades ? new int[] {1} : new int[] {1, 2, 5}) {
                double value = m * Math.pow(10, d);
                if (Math.log10(value) > highDecade + 1e-9) {
                    continue;
                }
                double x = x(plot, value, lowDecade, highDecade);
                plot.svg.line(x, plot.top(), x, plot.bottom(), m == 1 ? "#dddddd" : "#f0f0f0", 1, false);
                plot.svg.line(x, plot.bottom(), x, plot.bottom() + 5, "#333333", 1, false);
                plot.svg.text(x, plot.bottom() + 18, Plot.number(value), "middle", 11, false);
            }
        }
    }

    private static double x(Plot plot, double millis, double lowDecade, double highDecade) {
        double decade = millis > 0 ? Math.log10(millis) : lowDecade;
        double fraction = (Math.max(lowDecade, decade) - lowDecade) / (highDecade - lowDecade);
        return plot.left() + (plot.right() - plot.left()) * fraction;
    }
}

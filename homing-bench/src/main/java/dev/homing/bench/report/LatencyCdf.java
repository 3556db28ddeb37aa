package dev.homing.bench.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * A latency distribution as {@link #QUANTILES} evenly spaced quantiles: the value at fraction {@code k / QUANTILES}
 * for {@code k = 1..QUANTILES}. A fixed grid keeps reports small whatever the sample count, and it contains the
 * 50th and 99th percentiles exactly. Built from raw values (the simulator) or an HdrHistogram (the live tool).
 */
public record LatencyCdf(List<Point> points) {

    /** Grid size: 200 makes p50 (100/200) and p99 (198/200) grid points. */
    public static final int QUANTILES = 200;

    public static final LatencyCdf EMPTY = new LatencyCdf(List.of());

    /** The value below or at which {@code fraction} of the samples lie. */
    public record Point(double fraction, double millis) {
    }

    public LatencyCdf {
        points = List.copyOf(points);
    }

    public static LatencyCdf ofMillis(double... values) {
        if (values.length == 0) {
            return EMPTY;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        List<Point> points = new ArrayList<>(QUANTILES);
        for (int k = 1; k <= QUANTILES; k++) {
            // Nearest rank: the smallest sample with at least k/QUANTILES of the samples at or below it.
            int rank = (int) Math.ceil((double) k * sorted.length / QUANTILES);
            points.add(new Point((double) k / QUANTILES, sorted[rank - 1]));
        }
        return new LatencyCdf(points);
    }

    public static LatencyCdf ofMillis(List<Double> values) {
        return ofMillis(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** From a histogram whose values are in units of which {@code unitsPerMilli} make a millisecond. */
    public static LatencyCdf ofHistogram(Histogram histogram, double unitsPerMilli) {
        if (histogram.getTotalCount() == 0) {
            return EMPTY;
        }
        List<Point> points = new ArrayList<>(QUANTILES);
        for (int k = 1; k <= QUANTILES; k++) {
            double fraction = (double) k / QUANTILES;
            points.add(new Point(fraction, histogram.getValueAtPercentile(100.0 * fraction) / unitsPerMilli));
        }
        return new LatencyCdf(points);
    }

    public boolean hasSamples() {
        return !points.isEmpty();
    }

    /** The value at {@code fraction} (0 to 1), 0 for an empty distribution. */
    public double percentile(double fraction) {
        for (Point p : points) {
            if (p.fraction() >= fraction - 1e-12) {
                return p.millis();
            }
        }
        return points.isEmpty() ? 0 : points.getLast().millis();
    }
}

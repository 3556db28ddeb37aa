package dev.homing.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * The frame shared by every chart: a title, a plot area with a value axis on the left (gridlines, ticks, label),
 * an x axis along the bottom, and a legend to the right. Maps values to pixels; charts draw inside. Not thread-safe.
 */
final class Plot {

    static final int WIDTH = 800;
    static final int HEIGHT = 440;
    /** Room for tick labels and the rotated axis label. */
    private static final int LEFT = 78;
    /** Room for the legend. */
    private static final int RIGHT = 190;
    private static final int TOP = 48;
    /** Room for x tick labels and the axis label. */
    private static final int BOTTOM = 70;

    /** Okabe-Ito colours: distinguishable with the common colour-vision deficiencies; yellow last, as it is faint. */
    private static final List<String> PALETTE = List.of(
            "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442");

    final Svg svg = new Svg(WIDTH, HEIGHT);
    private int legendRows;

    Plot(String title, String xLabel, String yLabel) {
        svg.text(WIDTH / 2.0, 28, title, "middle", 16, false);
        svg.text((left() + right()) / 2, HEIGHT - 18, xLabel, "middle", 13, false);
        svg.text(20, (top() + bottom()) / 2, yLabel, "middle", 13, true);
    }

    static String color(int series) {
        return PALETTE.get(series % PALETTE.size());
    }

    double left() {
        return LEFT;
    }

    double right() {
        return WIDTH - RIGHT;
    }

    double top() {
        return TOP;
    }

    double bottom() {
        return HEIGHT - BOTTOM;
    }

    /** Draws the linear value axis from 0 to {@code max} with gridlines at {@code ticks}. */
    void valueAxis(double max, List<Double> ticks, DoubleFunction<String> label) {
        for (double tick : ticks) {
            double y = y(tick, max);
            svg.line(left(), y, right(), y, "#dddddd", 1, false);
            svg.text(left() - 6, y + 4, label.apply(tick), "end", 11, false);
        }
        svg.line(left(), top(), left(), bottom(), "#333333", 1, false);
        svg.line(left(), bottom(), right(), bottom(), "#333333", 1, false);
    }

    /** The pixel row of {@code value} on a linear axis from 0 to {@code max}. */
    double y(double value, double max) {
        return bottom() - (bottom() - top()) * Math.min(1, Math.max(0, value / max));
    }

    /** Adds a legend entry: a filled swatch, or a line (dashed if asked) for reference lines. */
    void legend(String name, String color, boolean line, boolean dashed) {
        double x = right() + 16;
        double y = top() + 8 + 20 * legendRows++;
        if (line) {
            svg.line(x, y, x + 18, y, color, 2.5, dashed);
        } else {
            svg.rect(x, y - 6, 18, 12, color);
        }
        svg.text(x + 24, y + 4, shorten(name, 22), "start", 12, false);
    }

    /** Linear ticks from 0 to at least {@code max}: 1, 2 or 5 times a power of ten, at most about 6 of them. */
    static List<Double> niceTicks(double max) {
        double top = max > 0 ? max : 1;
        double raw = top / 5;
        double power = Math.pow(10, Math.floor(Math.log10(raw)));
        double step = raw <= power ? power : raw <= 2 * power ? 2 * power : raw <= 5 * power ? 5 * power : 10 * power;
        List<Double> ticks = new ArrayList<>();
        for (int i = 0; i <= 12 && (i == 0 || ticks.getLast() < top); i++) {
            ticks.add(i * step);
        }
        return ticks;
    }

    static String number(double v) {
        if (v != 0 && Math.abs(v) < 10) {
            String s = String.format(Locale.ROOT, "%.2f", v);
            return s.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }
}

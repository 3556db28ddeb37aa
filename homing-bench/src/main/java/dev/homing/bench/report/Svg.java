package dev.homing.bench.report;

import com.google.common.html.HtmlEscapers;
import java.util.List;
import java.util.Locale;

/** A minimal SVG document writer: the few shapes the charts need, with text escaped. Not thread-safe. */
final class Svg {

    private final int width;
    private final int height;
    private final StringBuilder body = new StringBuilder();

    Svg(int width, int height) {
        this.width = width;
        this.height = height;
    }

    Svg line(double x1, double y1, double x2, double y2, String stroke, double strokeWidth, boolean dashed) {
        body.append("  <line x1=\"").append(n(x1)).append("\" y1=\"").append(n(y1)).append("\" x2=\"").append(n(x2))
                .append("\" y2=\"").append(n(y2)).append("\" stroke=\"").append(stroke).append("\" stroke-width=\"")
                .append(n(strokeWidth)).append('"').append(dashed ? " stroke-dasharray=\"6 4\"" : "").append("/>\n");
        return this;
    }

    Svg rect(double x, double y, double w, double h, String fill) {
        body.append("  <rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" fill=\"").append(fill).append("\"/>\n");
        return this;
    }

    /** An open line through {@code xy} pairs {@code [x0, y0, x1, y1, ...]}. */
    Svg polyline(List<double[]> points, String stroke, double strokeWidth) {
        body.append("  <polyline fill=\"none\" stroke=\"").append(stroke).append("\" stroke-width=\"")
                .append(n(strokeWidth)).append("\" stroke-linejoin=\"round\" points=\"");
        for (double[] p : points) {
            body.append(n(p[0])).append(',').append(n(p[1])).append(' ');
        }
        body.append("\"/>\n");
        return this;
    }

    /** Text anchored {@code start}, {@code middle} or {@code end}; {@code rotate} turns it a quarter left. */
    Svg text(double x, double y, String text, String anchor, int size, boolean rotate) {
        body.append("  <text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" font-size=\"").append(size)
                .append("\" text-anchor=\"").append(anchor).append('"');
        if (rotate) {
            body.append(" transform=\"rotate(-90 ").append(n(x)).append(' ').append(n(y)).append(")\"");
        }
        body.append('>').append(HtmlEscapers.htmlEscaper().escape(text)).append("</text>\n");
        return this;
    }

    @Override
    public String toString() {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + width + "\" height=\"" + height
                + "\" viewBox=\"0 0 " + width + ' ' + height + "\" font-family=\"sans-serif\">\n"
                + "  <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" + body + "</svg>\n";
    }

    private static String n(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}

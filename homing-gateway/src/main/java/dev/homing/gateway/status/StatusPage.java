package dev.homing.gateway.status;

import com.google.common.html.HtmlEscapers;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The status page as one HTML document with nothing to fetch (its style inline, its charts inline SVG, no script), so
 * it renders behind a port-forward or an air gap; it reloads itself every few seconds. Everything shown that comes
 * from outside (worker URLs, model names) is escaped.
 */
final class StatusPage {

    /** Seconds between reloads: the in-flight counts move faster, the charts' points every ten seconds. */
    static final int REFRESH_SECONDS = 5;
    private static final String PREDICTED_COLOUR = "#d97706";
    private static final String REALISED_COLOUR = "#2563eb";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    private static final String STYLE = """
            body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1f2937;background:#f9fafb}
            h1{font-size:22px;margin:0 12px 0 0;display:inline}h2{font-size:15px;margin:24px 0 8px}
            .muted{color:#6b7280}.cards{display:flex;gap:12px;margin-top:16px;flex-wrap:wrap}
            .card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:10px 14px;min-width:200px}
            .card .k{color:#6b7280;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
            .card .v{font-size:18px;margin-top:2px}
            table{border-collapse:collapse;background:#fff;border:1px solid #e5e7eb;width:100%}
            th,td{padding:6px 10px;border-bottom:1px solid #e5e7eb;text-align:left;white-space:nowrap}
            th{font-size:12px;color:#6b7280;font-weight:600;background:#f3f4f6}td.num{text-align:right}
            .badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px}
            .good{background:#dcfce7;color:#166534}.warn{background:#fef3c7;color:#92400e}
            .bad{background:#fee2e2;color:#991b1b}.idle{background:#e5e7eb;color:#374151}
            .legend span{margin-right:14px}.legend i{display:inline-block;width:18px;height:3px;margin-right:4px;
            vertical-align:middle}.chart{background:#fff;border:1px solid #e5e7eb;border-radius:6px}
            """;

    private StatusPage() {
    }

    static String render(StatusReport report) {
        StringBuilder html = new StringBuilder(8 * 1024 + report.workers().size() * 2048);
        html.append("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta http-equiv=\"refresh\" content=\"").append(REFRESH_SECONDS).append("\">")
                .append("<title>Homing status</title><style>").append(STYLE).append("</style></head><body>")
                .append("<header><h1>Homing</h1><span class=\"muted\">status at ")
                .append(TIME.format(Instant.ofEpochMilli(report.generatedAtMillis())))
                .append(", reloaded every ").append(REFRESH_SECONDS).append(" s</span></header>");
        cards(html, report);
        long windowMinutes = report.windowSeconds() / 60;
        html.append("<h2>Predicted against realised cache hit rate, last ").append(windowMinutes)
                .append(" minutes (fleet)</h2>").append(legend());
        chart(html, "fleet-chart", report.fleet().history(), report, 720, 160, true);
        html.append("<h2>Workers</h2><table id=\"workers\"><thead><tr><th>Worker</th><th>Model</th><th>Role</th>")
                .append("<th>State</th><th>Circuit</th><th>In flight</th><th>Routing view</th><th>KV events</th>")
                .append("<th>Predicted</th><th>Realised</th><th>Last ").append(windowMinutes)
                .append(" min</th></tr></thead><tbody>");
        for (StatusReport.WorkerStatus worker : report.workers()) {
            row(html, worker, report);
        }
        if (report.workers().isEmpty()) {
            html.append("<tr><td colspan=\"11\" class=\"muted\">No worker registered.</td></tr>");
        }
        return html.append("</tbody></table></body></html>").toString();
    }

    private static void cards(StringBuilder html, StatusReport report) {
        long healthy = report.workers().stream().filter(StatusReport.WorkerStatus::healthy).count();
        StatusReport.Replica replica = report.replica();
        StatusReport.Discovery discovery = report.discovery();
        html.append("<section class=\"cards\">");
        card(html, "workers", "Workers", healthy + " of " + report.workers().size() + " healthy");
        card(html, "hit-rate", "Hit rate, predicted / realised",
                percent(report.fleet().predicted()) + " / " + percent(report.fleet().realised()));
        card(html, "replica", "Replica sync", !replica.enabled() ? "off"
                : escape(replica.phase()) + (replica.warm() ? ", warm" : ", cold") + " <span class=\"muted\">("
                + escape(replica.name()) + ")</span>");
        card(html, "discovery", "Discovery", !discovery.enabled() ? "off"
                : (discovery.synced() ? "synced" : "listing") + ", " + pods(discovery.pods()));
        html.append("</section>");
    }

    private static void card(StringBuilder html, String id, String title, String value) {
        html.append("<div class=\"card\" id=\"").append(id).append("\"><div class=\"k\">").append(title)
                .append("</div><div class=\"v\">").append(value).append("</div></div>");
    }

    private static String pods(Map<String, Integer> pods) {
        if (pods.isEmpty()) {
            return "no pod";
        }
        StringBuilder text = new StringBuilder();
        pods.forEach((state, n) -> text.append(text.isEmpty() ? "" : ", ").append(n).append(' ')
                .append(escape(state)));
        return text.toString();
    }

    private static void row(StringBuilder html, StatusReport.WorkerStatus worker, StatusReport report) {
        html.append("<tr class=\"worker\" data-url=\"").append(escape(worker.url())).append("\"><td class=\"url\">")
                .append(escape(worker.url())).append("</td><td>").append(escape(worker.model())).append("</td><td>")
                .append(escape(worker.role())).append("</td>");
        badgeCell(html, "state", worker.state() + (worker.healthy() || !worker.state().equals("active") ? ""
                : ", unhealthy"), worker.healthy() ? "good" : worker.state().equals("pending") ? "idle" : "bad");
        badgeCell(html, "circuit", worker.circuit(), switch (worker.circuit()) {
            case "closed" -> "good";
            case "open" -> "bad";
            default -> "warn";
        });
        html.append("<td class=\"num in-flight\">").append(worker.inFlight()).append("</td>");
        badgeCell(html, "view", worker.routingView(), worker.routingView().equals("exact") ? "good" : "idle");
        html.append("<td class=\"kv-events\">").append(escape(worker.kvEvents())).append("</td>")
                .append("<td class=\"num predicted\">").append(percent(worker.hitRate().predicted())).append("</td>")
                .append("<td class=\"num realised\">").append(percent(worker.hitRate().realised())).append("</td><td>");
        chart(html, null, worker.hitRate().history(), report, 180, 36, false);
        html.append("</td></tr>");
    }

    private static void badgeCell(StringBuilder html, String column, String text, String tone) {
        html.append("<td class=\"").append(column).append("\"><span class=\"badge ").append(tone).append("\">")
                .append(escape(text)).append("</span></td>");
    }

    private static String legend() {
        return "<div class=\"legend\"><span><i style=\"background:" + PREDICTED_COLOUR + "\"></i>predicted (the "
                + "policy's belief)</span><span><i style=\"background:" + REALISED_COLOUR + "\"></i>realised (the "
                + "engines' cached tokens)</span></div>";
    }

    /**
     * A chart of {@code points}, time along x over the report's window (now at the right), 0 to 100 % up y: a line
     * and dots for each rate, an interval without traffic left out.
     */
    private static void chart(StringBuilder html, String id, List<HitRateHistory.Point> points, StatusReport report,
                              int width, int height, boolean axes) {
        int left = axes ? 40 : 2;
        int bottom = axes ? 18 : 2;
        int top = axes ? 8 : 2;
        double plotWidth = width - left - 8;
        double plotHeight = height - top - bottom;
        long windowMillis = report.windowSeconds() * 1000;
        Function<Long, Double> x = millis -> left + plotWidth
                * (1 - Math.min(1.0, (double) (report.generatedAtMillis() - millis) / windowMillis));
        Function<Double, Double> y = rate -> top + plotHeight * (1 - rate);
        html.append("<svg class=\"chart\"").append(id == null ? "" : " id=\"" + id + "\"")
                .append(" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"")
                .append(height).append("\" role=\"img\" aria-label=\"predicted and realised hit rate\">");
        if (axes) {
            for (int percent = 0; percent <= 100; percent += 50) {
                double lineY = y.apply(percent / 100.0);
                html.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
                                + "stroke=\"#e5e7eb\"/><text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#6b7280\" "
                                + "text-anchor=\"end\">%d%%</text>", left, width - 8, lineY, lineY, left - 6,
                        lineY + 4, percent));
            }
            html.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#6b7280\">"
                            + "&#8722;%d min</text><text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#6b7280\" "
                            + "text-anchor=\"end\">now</text>", left, height - 4, report.windowSeconds() / 60,
                    width - 8, height - 4));
        }
        series(html, points, HitRateHistory.Point::predicted, PREDICTED_COLOUR, "predicted", x, y);
        series(html, points, HitRateHistory.Point::realised, REALISED_COLOUR, "realised", x, y);
        html.append("</svg>");
    }

    private static void series(StringBuilder html, List<HitRateHistory.Point> points,
                               Function<HitRateHistory.Point, Double> rate, String colour, String name,
                               Function<Long, Double> x, Function<Double, Double> y) {
        StringBuilder line = new StringBuilder();
        StringBuilder dots = new StringBuilder();
        for (HitRateHistory.Point point : points) {
            Double value = rate.apply(point);
            if (value == null) {
                continue;
            }
            String at = String.format(Locale.ROOT, "%.1f,%.1f", x.apply(point.endMillis()), y.apply(value));
            line.append(line.isEmpty() ? "" : " ").append(at);
            String[] xy = at.split(",");
            dots.append("<circle cx=\"").append(xy[0]).append("\" cy=\"").append(xy[1]).append("\" r=\"2.5\" fill=\"")
                    .append(colour).append("\"/>");
        }
        html.append("<g class=\"").append(name).append("\"><polyline fill=\"none\" stroke-width=\"2\" stroke=\"")
                .append(colour).append("\" points=\"").append(line).append("\"/>").append(dots).append("</g>");
    }

    private static String percent(Double rate) {
        return rate == null ? "&#8211;" : String.format(Locale.ROOT, "%.0f%%", rate * 100);
    }

    /** The text escaped for HTML, quotes and apostrophes included; empty for null. */
    static String escape(String text) {
        return text == null ? "" : HtmlEscapers.htmlEscaper().escape(text);
    }
}

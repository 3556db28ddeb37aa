package dev.homing.bench.live;

import java.util.Locale;
import java.util.Map;

/** Renders a {@link BenchResult} as the plain-text table {@code homing bench} prints. Pure function. */
public final class ResultTable {

    private ResultTable() {
    }

    public static String render(BenchResult r) {
        StringBuilder out = new StringBuilder(2048);
        RunDescription run = r.run();
        row(out, "target", run.url() + run.endpoint());
        row(out, "workload", run.workload() + ", " + run.pacing()
                + (run.concurrency() > 0 ? " at concurrency " + run.concurrency() : "")
                + (run.rate() > 0 ? f(" at %.2f conversations/s", run.rate()) : "")
                + (run.rateScale() != 1 ? f(", rate scale %.2f", run.rateScale()) : "")
                + (run.stream() ? ", streaming" : ", not streaming"));
        row(out, "caps", f("%d requests, %.0f s", run.maxRequests(), run.durationCapSeconds())
                + (r.stoppedAtDurationCap() ? " (stopped at the duration cap)" : ""));
        row(out, "elapsed", f("%.2f s", r.elapsedSeconds()));
        BenchResult.Requests q = r.requests();
        row(out, "requests", f("%d sent, %d succeeded, %d failed (%d cancelled), %d turns unsent", q.sent(),
                q.succeeded(), q.failed(), q.cancelled(), q.unsentTurns()));
        if (!r.errors().isEmpty()) {
            StringBuilder errors = new StringBuilder();
            for (Map.Entry<String, Long> e : r.errors().entrySet()) {
                errors.append(errors.isEmpty() ? "" : ", ").append(e.getKey()).append(' ').append(e.getValue());
            }
            row(out, "errors", errors.toString());
        }
        BenchResult.Throughput t = r.throughput();
        row(out, "throughput", f("%.2f req/s, %.1f output tok/s, %.1f prompt tok/s", t.requestsPerSecond(),
                t.outputTokensPerSecond(), t.promptTokensPerSecond()));
        out.append(f("%n%-22s %8s %9s %9s %9s %9s %9s %9s%n", "latency (ms)", "count", "mean", "p50", "p90",
                "p99", "p99.9", "max"));
        latency(out, "time to first token", r.timeToFirstToken());
        latency(out, "inter-token gap", r.interTokenGap());
        latency(out, "end to end", r.endToEnd());
        out.append(f("latencies count from the %s%n%n", r.latencyMeasuredFrom()));
        BenchResult.CacheHitRate hit = r.cacheHitRate();
        row(out, "hit rate (usage)", hit.fromUsage() == null ? "not reported"
                : f("%.2f%% (%d of %d prompt tokens cached)", 100 * hit.fromUsage(), hit.usageCachedTokens(),
                        hit.usagePromptTokens()));
        row(out, "hit rate (engines)", hit.fromEngines() == null ? "no --engine-urls"
                : f("%.2f%%", 100 * hit.fromEngines()));
        for (BenchResult.Worker w : r.workers()) {
            row(out, "  " + w.url(), f("%.1f%% of requests, %.1f%% of tokens, hit %s", 100 * w.requestShare(),
                    100 * w.tokenShare(), w.hitRate() == null ? "-" : f("%.2f%%", 100 * w.hitRate())));
        }
        if (!r.routingViews().isEmpty()) {
            StringBuilder views = new StringBuilder();
            r.routingViews().forEach((view, p) -> views.append(views.isEmpty() ? "" : ", ")
                    .append(f("%s %d (gap %.2f%%)", view, p.requests(), 100 * p.meanGap())));
            row(out, "routing view", views + "; gap: |predicted - cached| / prompt tokens");
        }
        return out.toString();
    }

    private static void latency(StringBuilder out, String name, LatencySummary s) {
        out.append(f("%-22s %8d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f%n", name, s.count(), s.meanMs(), s.p50Ms(),
                s.p90Ms(), s.p99Ms(), s.p999Ms(), s.maxMs()));
    }

    private static void row(StringBuilder out, String name, String value) {
        out.append(f("%-22s %s%n", name, value));
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}

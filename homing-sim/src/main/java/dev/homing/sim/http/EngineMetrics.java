package dev.homing.sim.http;

import dev.homing.sim.model.EngineStats;
import dev.homing.sim.model.Progress;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The engine's {@code /metrics}, under SGLang's metric names (client_java accepts the {@code sglang:} prefix).
 * Counters and gauges read the engine's stats at scrape time; the latency histograms are fed from progress events,
 * in virtual seconds, so they show what the simulated GPU would, whatever the time scale.
 *
 * <p>One registry per engine, so several engines can live in one JVM. Confined to the server's event loop.
 */
final class EngineMetrics {
    private static final String MODEL = "model_name";
    /** Throughput is averaged over at least this much virtual time, as SGLang logs it over an interval. */
    private static final long THROUGHPUT_WINDOW_NANOS = 5_000_000_000L;

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final String model;
    private final Histogram timeToFirstToken;
    private final Histogram e2eLatency;
    private final Supplier<EngineStats> stats;
    private final Supplier<Long> virtualNow;
    private long windowStartNanos;
    private long windowStartTokens;
    private double throughput;
    /** The stats this scrape reports, read once so that all its numbers agree. */
    private EngineStats current;

    EngineMetrics(String model, Supplier<EngineStats> stats, Supplier<Long> virtualNow) {
        this.model = model;
        this.stats = stats;
        this.virtualNow = virtualNow;
        counter("sglang:prompt_tokens", "Prompt tokens admitted.", s -> s.promptTokensTotal());
        counter("sglang:cached_tokens", "Prompt tokens served from the prefix cache.", s -> s.cachedTokensTotal());
        counter("sglang:generation_tokens", "Output tokens generated.", s -> s.generationTokensTotal());
        counter("sglang:num_requests", "Requests finished.", s -> s.finishedRequestsTotal());
        gauge("sglang:cache_hit_rate", "Share of prompt tokens served from the prefix cache.",
            EngineStats::cacheHitRate);
        gauge("sglang:num_running_reqs", "Requests in the running batch.", s -> s.runningRequests());
        gauge("sglang:num_queue_reqs", "Requests waiting for admission.", s -> s.waitingRequests());
        gauge("sglang:token_usage", "Share of the KV pool in use.", EngineStats::tokenUsage);
        gauge("sglang:num_used_tokens", "KV slots in use.", s -> s.usedTokens());
        gauge("sglang:max_total_num_tokens", "KV pool size in tokens.", s -> s.capacityTokens());
        GaugeWithCallback.builder().name("sglang:gen_throughput").help("Output tokens per second, recent.")
            .labelNames(MODEL).callback(cb -> cb.call(throughput(), model)).register(registry);
        timeToFirstToken = Histogram.builder().name("sglang:time_to_first_token_seconds")
            .help("Time from arrival to first output token.").labelNames(MODEL)
            .classicUpperBounds(0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 120)
            .classicOnly().register(registry);
        e2eLatency = Histogram.builder().name("sglang:e2e_request_latency_seconds")
            .help("Time from arrival to last output token.").labelNames(MODEL)
            .classicUpperBounds(0.1, 0.25, 0.5, 1, 2, 4, 6, 8, 10, 20, 40, 60, 120, 300, 600)
            .classicOnly().register(registry);
    }

    void observe(Progress progress) {
        double seconds = (progress.atNanos() - progress.arrivalNanos()) / 1e9;
        if (progress.isFirstToken()) {
            timeToFirstToken.labelValues(model).observe(seconds);
        }
        if (progress.finished()) {
            e2eLatency.labelValues(model).observe(seconds);
        }
    }

    String scrape() {
        current = stats.get();
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            PrometheusTextFormatWriter.create().write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private double throughput() {
        long now = virtualNow.get();
        long tokens = current.generationTokensTotal();
        if (now - windowStartNanos >= THROUGHPUT_WINDOW_NANOS) {
            throughput = (tokens - windowStartTokens) * 1e9 / (now - windowStartNanos);
            windowStartNanos = now;
            windowStartTokens = tokens;
        }
        return throughput;
    }

    private void counter(String name, String help, ToDoubleFunction<EngineStats> value) {
        CounterWithCallback.builder().name(name).help(help).labelNames(MODEL)
            .callback(cb -> cb.call(value.applyAsDouble(current), model)).register(registry);
    }

    private void gauge(String name, String help, ToDoubleFunction<EngineStats> value) {
        GaugeWithCallback.builder().name(name).help(help).labelNames(MODEL)
            .callback(cb -> cb.call(value.applyAsDouble(current), model)).register(registry);
    }
}

package dev.homing.gateway.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The metrics of prefill/decode pairs, which only the gateway can give as it alone sees both legs of a request: the
 * reference's {@code smg_pd_*} names (per-leg requests and errors, pair duration, prefill duration, the KV transfer
 * window, the time to first token of the whole pair, KV transfer and bootstrap failures) and Homing's per-leg hit
 * rate ({@code homing_pd_cached_tokens_total} over {@code homing_pd_prompt_tokens_total}, by leg). Recorded once per
 * leg or pair, never per token. Thread-safe.
 */
public final class PrefillDecodeMetrics {

    private final LabelCache<CounterDataPoint> pairs;
    private final LabelCache<DistributionDataPoint> pairDuration;
    private final LabelCache<CounterDataPoint> prefillRequests;
    private final LabelCache<CounterDataPoint> decodeRequests;
    private final LabelCache<CounterDataPoint> prefillErrors;
    private final LabelCache<CounterDataPoint> decodeErrors;
    private final LabelCache<CounterDataPoint> streamErrors;
    private final LabelCache<DistributionDataPoint> prefillDuration;
    private final LabelCache<DistributionDataPoint> kvTransferDuration;
    private final LabelCache<DistributionDataPoint> ttft;
    private final LabelCache<CounterDataPoint> kvTransferFailures;
    private final LabelCache<CounterDataPoint> bootstrapFailures;
    private final LabelCache<CounterDataPoint> promptTokens;
    private final LabelCache<CounterDataPoint> cachedTokens;

    PrefillDecodeMetrics(PrometheusRegistry registry, double[] buckets, String backend) {
        pairs = GatewayMetrics.cache(Counter.builder().name("smg_pd_requests_total")
                .help("Requests sent to a prefill/decode pair").labelNames("route").register(registry));
        pairDuration = GatewayMetrics.cache(Histogram.builder().name("smg_pd_request_duration_seconds")
                .help("Prefill/decode request duration, from its arrival to the end of the decode answer")
                .labelNames("route").classicOnly().classicUpperBounds(buckets).register(registry));
        prefillRequests = GatewayMetrics.cache(Counter.builder().name("smg_pd_prefill_requests_total")
                .help("Prefill legs sent to each prefill worker").labelNames("worker").register(registry));
        decodeRequests = GatewayMetrics.cache(Counter.builder().name("smg_pd_decode_requests_total")
                .help("Decode legs sent to each decode worker").labelNames("worker").register(registry));
        prefillErrors = GatewayMetrics.cache(Counter.builder().name("smg_pd_prefill_errors_total")
                .help("Prefill legs that failed (connection, error status, broken answer)").labelNames("worker")
                .register(registry));
        decodeErrors = GatewayMetrics.cache(Counter.builder().name("smg_pd_decode_errors_total")
                .help("Decode legs that failed (connection, error status, broken answer)").labelNames("worker")
                .register(registry));
        streamErrors = GatewayMetrics.cache(Counter.builder().name("smg_pd_stream_errors_total")
                .help("Prefill/decode streams cut after the client had a byte of them").labelNames("route")
                .register(registry));
        prefillDuration = GatewayMetrics.cache(Histogram.builder().name("smg_pd_prefill_duration_seconds")
                .help("Prefill leg duration, from its send to the end of the prefill worker's answer")
                .labelNames("backend_type", "model").classicOnly().classicUpperBounds(buckets).register(registry),
                backend);
        kvTransferDuration = GatewayMetrics.cache(Histogram.builder().name("smg_pd_kv_transfer_duration_seconds")
                .help("KV transfer window as the gateway sees it: from the end of the prefill answer to the decode "
                        + "worker's first byte").labelNames("backend_type", "model").classicOnly()
                .classicUpperBounds(buckets).register(registry), backend);
        ttft = GatewayMetrics.cache(Histogram.builder().name("smg_pd_ttft_seconds")
                .help("Time to first token of the pair: from sending both legs to the decode worker's first byte")
                .labelNames("backend_type", "model").classicOnly().classicUpperBounds(buckets).register(registry),
                backend);
        kvTransferFailures = GatewayMetrics.cache(Counter.builder().name("smg_pd_kv_transfer_failures_total")
                .help("Decode legs that failed because the prompt's KV never came from the prefill worker")
                .labelNames("backend_type", "model").register(registry), backend);
        bootstrapFailures = GatewayMetrics.cache(Counter.builder().name("smg_pd_bootstrap_failures_total")
                .help("Requests the gateway could not give bootstrap fields (the body set them itself, or held an "
                        + "empty batch): refused with 400").labelNames("backend_type", "model").register(registry),
                backend);
        promptTokens = GatewayMetrics.cache(Counter.builder().name("homing_pd_prompt_tokens_total")
                .help("Prompt tokens each leg's workers reported").labelNames("model", "leg").register(registry));
        cachedTokens = GatewayMetrics.cache(Counter.builder().name("homing_pd_cached_tokens_total")
                .help("Prompt tokens each leg's workers reported cached; over homing_pd_prompt_tokens_total, the "
                        + "leg's hit rate (the decode leg reports the prefill side's)").labelNames("model", "leg")
                .register(registry));
    }

    /** A pair was placed and both legs are going out. */
    public void paired(String route, String prefillWorker, String decodeWorker) {
        pairs.get(route).inc();
        prefillRequests.get(prefillWorker).inc();
        decodeRequests.get(decodeWorker).inc();
    }

    public void pairFinished(String route, long nanos) {
        pairDuration.get(route).observe(nanos / 1e9);
    }

    public void prefillFailed(String worker) {
        prefillErrors.get(worker).inc();
    }

    public void decodeFailed(String worker) {
        decodeErrors.get(worker).inc();
    }

    /** A stream the client had started to read was cut. */
    public void streamCut(String route) {
        streamErrors.get(route).inc();
    }

    public void prefillAnswered(String model, long nanos) {
        prefillDuration.get(model).observe(nanos / 1e9);
    }

    /** The decode worker's first byte: {@code sinceSendNanos} after the pair went out, and when the prefill had ended
     * before it, {@code sincePrefillNanos} after that end (negative: it had not). */
    public void decodeFirstByte(String model, long sinceSendNanos, long sincePrefillNanos) {
        ttft.get(model).observe(sinceSendNanos / 1e9);
        if (sincePrefillNanos >= 0) {
            kvTransferDuration.get(model).observe(sincePrefillNanos / 1e9);
        }
    }

    public void kvTransferFailed(String model) {
        kvTransferFailures.get(model).inc();
    }

    public void bootstrapFailed(String model) {
        bootstrapFailures.get(model).inc();
    }

    /** What one leg's worker reported of the prompt: {@code leg} is {@code prefill} or {@code decode}. */
    public void usage(String model, String leg, long prompt, long cached) {
        promptTokens.get(model, leg).inc(prompt);
        cachedTokens.get(model, leg).inc(cached);
    }
}

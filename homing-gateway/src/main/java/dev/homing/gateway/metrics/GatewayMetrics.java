package dev.homing.gateway.metrics;

import dev.homing.core.policy.CacheAwarePolicy;
import dev.homing.core.policy.Decision;
import dev.homing.gateway.workers.ModelPool;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.resilience.CircuitBreaker;
import dev.homing.gateway.resilience.CircuitBreakers;
import dev.homing.gateway.resilience.UpstreamOutcome;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.List;

/**
 * The gateway's Prometheus metrics: the reference's {@code smg_*} families with its names and labels for every
 * feature Homing has, plus {@code homing_*} families the reference lacks (policy branches, match ratio, upstream
 * time to first byte, prefix-tree size and evictions). Recorded once per request or probe, never per token. Worker gauges are read from the
 * registry at scrape time, so they need no bookkeeping. Thread-safe (client_java metrics are).
 */
public final class GatewayMetrics {

    private static final String ROUTER_TYPE = "http_regular";
    private static final String CONNECTION_MODE = "http";
    private static final String WORKER_TYPE = "regular";

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final String backend;
    private final Counter httpRequests;
    private final Histogram httpDuration;
    private final Counter httpResponses;
    private final Gauge httpConnections;
    private final Counter routerRequests;
    private final Histogram routerDuration;
    private final Counter routerErrors;
    private final Counter upstreamResponses;
    private final Counter workerSelection;
    private final Counter workerErrors;
    private final Counter healthChecks;
    private final Counter decisions;
    private final Histogram matchRatio;
    private final Histogram upstreamFirstByte;
    private final Counter workerRequests;
    private final Counter promptTokens;
    private final Counter cachedTokens;
    private final Counter routedChars;
    private final Counter predictedChars;
    private final Counter retries;
    private final Counter rateLimit;
    private final Counter retriesExhausted;
    private final Histogram retryBackoff;
    private final Counter breakerTransitions;
    private final Counter breakerOutcomes;

    public GatewayMetrics(WorkerRegistry workers, List<Double> durationBuckets, String backend) {
        this.backend = backend;
        double[] buckets = durationBuckets.stream().mapToDouble(Double::doubleValue).toArray();
        httpRequests = Counter.builder().name("smg_http_requests_total")
                .help("HTTP requests received").labelNames("method", "path").register(registry);
        httpDuration = Histogram.builder().name("smg_http_request_duration_seconds")
                .help("HTTP request duration, until the last byte of the response").labelNames("method", "path")
                .classicOnly().classicUpperBounds(buckets).register(registry);
        httpResponses = Counter.builder().name("smg_http_responses_total")
                .help("HTTP responses sent").labelNames("status_code", "error_code").register(registry);
        httpConnections = Gauge.builder().name("smg_http_connections_active")
                .help("Client connections open").register(registry);
        routerRequests = Counter.builder().name("smg_router_requests_total")
                .help("Requests routed to a worker")
                .labelNames("router_type", "backend_type", "connection_mode", "model", "endpoint", "streaming")
                .register(registry);
        routerDuration = Histogram.builder().name("smg_router_request_duration_seconds")
                .help("Routed request duration")
                .labelNames("router_type", "backend_type", "connection_mode", "model", "endpoint")
                .classicOnly().classicUpperBounds(buckets).register(registry);
        routerErrors = Counter.builder().name("smg_router_request_errors_total")
                .help("Routed requests that failed")
                .labelNames("router_type", "backend_type", "connection_mode", "model", "endpoint", "error_type")
                .register(registry);
        upstreamResponses = Counter.builder().name("smg_router_upstream_responses_total")
                .help("Responses received from workers").labelNames("router_type", "status_code", "error_code")
                .register(registry);
        workerSelection = Counter.builder().name("smg_worker_selection_total")
                .help("Workers chosen by the policy").labelNames("worker_type", "connection_mode", "model", "policy")
                .register(registry);
        workerErrors = Counter.builder().name("smg_worker_errors_total")
                .help("Errors talking to workers").labelNames("worker_type", "connection_mode", "error_type")
                .register(registry);
        healthChecks = Counter.builder().name("smg_worker_health_checks_total")
                .help("Worker health probes").labelNames("worker_type", "result").register(registry);
        decisions = Counter.builder().name("homing_routing_decisions_total")
                .help("Policy decisions by branch (hit, miss, imbalance, ...)")
                .labelNames("model", "policy", "branch").register(registry);
        matchRatio = Histogram.builder().name("homing_routing_match_ratio")
                .help("Share of the routing text the chosen worker is believed to hold (cache_aware)")
                .labelNames("model").classicOnly()
                .classicUpperBounds(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
                .register(registry);
        upstreamFirstByte = Histogram.builder().name("homing_upstream_first_byte_seconds")
                .help("Time from sending to a worker to its first response byte (time to first token for streams)")
                .labelNames("model", "endpoint").classicOnly().classicUpperBounds(buckets).register(registry);
        workerRequests = Counter.builder().name("homing_worker_requests_total")
                .help("Requests sent to each worker (the traffic split the reference shows only as a total)")
                .labelNames("model", "worker").register(registry);
        promptTokens = Counter.builder().name("homing_prompt_tokens_total")
                .help("Prompt tokens workers reported, from the usage at the end of each answer")
                .labelNames("model", "worker").register(registry);
        routedChars = Counter.builder().name("homing_routed_chars_total")
                .help("Routing-text characters of the requests placed on each worker").labelNames("model", "worker")
                .register(registry);
        predictedChars = Counter.builder().name("homing_predicted_cached_chars_total")
                .help("Of those, the characters the policy believed the worker held; divided by "
                        + "homing_routed_chars_total it is the predicted hit rate, to compare with the realised one "
                        + "(homing_cached_tokens_total / homing_prompt_tokens_total)")
                .labelNames("model", "worker").register(registry);
        cachedTokens = Counter.builder().name("homing_cached_tokens_total")
                .help("Prompt tokens workers served from their prefix cache; divided by homing_prompt_tokens_total "
                        + "it is the realised cache hit rate").labelNames("model", "worker").register(registry);
        rateLimit = Counter.builder().name("smg_http_rate_limit_total")
                .help("Admission decisions on inference requests").labelNames("result").register(registry);
        retries = Counter.builder().name("smg_worker_retries_total")
                .help("Attempts retried after a worker failure").labelNames("worker_type", "endpoint")
                .register(registry);
        retriesExhausted = Counter.builder().name("smg_worker_retries_exhausted_total")
                .help("Requests that failed after their last allowed attempt").labelNames("worker_type", "endpoint")
                .register(registry);
        retryBackoff = Histogram.builder().name("smg_worker_retry_backoff_seconds")
                .help("Backoff before each retry, by retry number").labelNames("attempt").classicOnly()
                .classicUpperBounds(buckets).register(registry);
        breakerTransitions = Counter.builder().name("smg_worker_cb_transitions_total")
                .help("Circuit breaker state changes").labelNames("worker", "from", "to").register(registry);
        breakerOutcomes = Counter.builder().name("smg_worker_cb_outcomes_total")
                .help("Attempt outcomes handed to circuit breakers").labelNames("worker", "outcome")
                .register(registry);
        GaugeWithCallback.builder().name("smg_worker_requests_active")
                .help("Requests in flight per worker (the load cache_aware balances)").labelNames("worker")
                .callback(cb -> {
                    for (Worker w : workers.workers()) {
                        cb.call(w.inFlight(), w.url());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("smg_worker_health")
                .help("1 if the worker is healthy").labelNames("worker")
                .callback(cb -> {
                    for (Worker w : workers.workers()) {
                        cb.call(w.healthy() ? 1 : 0, w.url());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("smg_worker_pool_size")
                .help("Active workers per model").labelNames("worker_type", "connection_mode", "model")
                .callback(cb -> {
                    for (ModelPool pool : workers.pools()) {
                        cb.call(pool.workers().size(), WORKER_TYPE, CONNECTION_MODE, pool.model());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("homing_tree_chars")
                .help("Characters held by the model's cache_aware prefix tree").labelNames("model")
                .callback(cb -> {
                    for (ModelPool pool : workers.pools()) {
                        if (pool.policy() instanceof CacheAwarePolicy cacheAware) {
                            cb.call(cacheAware.tree().stats().storedChars(), pool.model());
                        }
                    }
                }).register(registry);
        CounterWithCallback.builder().name("homing_tree_evicted_chars_total")
                .help("Characters evicted from the model's cache_aware prefix tree").labelNames("model")
                .callback(cb -> {
                    for (ModelPool pool : workers.pools()) {
                        if (pool.policy() instanceof CacheAwarePolicy cacheAware) {
                            cb.call(cacheAware.tree().stats().evictedChars(), pool.model());
                        }
                    }
                }).register(registry);
        try {
            JvmMetricSet.register(registry);
        } catch (IllegalArgumentException alreadyRegistered) {
            // JVM metrics are process-wide; a second gateway in the same JVM (tests) goes without them.
        }
    }

    /**
     * Exports {@code smg_worker_cb_state} (0 closed, 1 open, 2 half-open) for every breaker of a registered worker,
     * labelled by worker URL like the other per-worker metrics.
     */
    public void watchBreakers(CircuitBreakers breakers, WorkerRegistry workers) {
        GaugeWithCallback.builder().name("smg_worker_cb_state")
                .help("Circuit breaker state: 0 closed, 1 open, 2 half-open").labelNames("worker")
                .callback(cb -> breakers.states().forEach((id, state) -> {
                    Worker worker = workers.find(id);
                    if (worker != null) {
                        cb.call(state.gaugeValue(), worker.url());
                    }
                })).register(registry);
    }

    public void breakerTransition(String worker, CircuitBreaker.State from, CircuitBreaker.State to) {
        breakerTransitions.labelValues(worker, from.label(), to.label()).inc();
    }

    public void breakerOutcome(String worker, UpstreamOutcome outcome) {
        breakerOutcomes.labelValues(worker, outcome.name().toLowerCase(java.util.Locale.ROOT)).inc();
    }

    /** A failed attempt is tried again after {@code delayMillis}; {@code retry} counts from 0. */
    public void retried(String endpoint, int retry, long delayMillis) {
        retries.labelValues(WORKER_TYPE, endpoint).inc();
        retryBackoff.labelValues(String.valueOf(retry + 1)).observe(delayMillis / 1000.0);
    }

    /** An admission decision: {@code allowed}, {@code queued} (it waits first) or {@code rejected} (429 or 408). */
    public void rateLimit(String result) {
        rateLimit.labelValues(result).inc();
    }

    public void retriesExhausted(String endpoint) {
        retriesExhausted.labelValues(WORKER_TYPE, endpoint).inc();
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public void connectionOpened() {
        httpConnections.inc();
    }

    public void connectionClosed() {
        httpConnections.dec();
    }

    public void httpRequest(String method, String path, int status, String errorCode, long durationNanos) {
        httpRequests.labelValues(method, path).inc();
        httpDuration.labelValues(method, path).observe(durationNanos / 1e9);
        httpResponses.labelValues(Integer.toString(status), errorCode == null ? "" : errorCode).inc();
    }

    public void routed(String model, String worker, String endpoint, boolean streaming, String policy,
                       Decision decision) {
        routerRequests.labelValues(ROUTER_TYPE, backend, CONNECTION_MODE, model, endpoint, Boolean.toString(streaming))
                .inc();
        workerSelection.labelValues(WORKER_TYPE, CONNECTION_MODE, model, policy).inc();
        decisions.labelValues(model, policy, decision.branch()).inc();
        if (decision.textChars() > 0) {
            matchRatio.labelValues(model).observe(decision.matchRatio());
            routedChars.labelValues(model, worker).inc(decision.textChars());
            predictedChars.labelValues(model, worker).inc(decision.matchedChars());
        }
    }

    public void sentToWorker(String model, String worker) {
        workerRequests.labelValues(model, worker).inc();
    }

    public void upstreamFirstByte(String model, String endpoint, long nanos) {
        upstreamFirstByte.labelValues(model, endpoint).observe(nanos / 1e9);
    }

    public void usage(String model, String worker, long prompt, long cached) {
        promptTokens.labelValues(model, worker).inc(prompt);
        cachedTokens.labelValues(model, worker).inc(cached);
    }

    public void upstreamResponse(int status) {
        upstreamResponses.labelValues(ROUTER_TYPE, Integer.toString(status), "").inc();
    }

    public void routedFinished(String model, String endpoint, long durationNanos, String errorType) {
        routerDuration.labelValues(ROUTER_TYPE, backend, CONNECTION_MODE, model, endpoint).observe(durationNanos / 1e9);
        if (errorType != null) {
            routerErrors.labelValues(ROUTER_TYPE, backend, CONNECTION_MODE, model, endpoint, errorType).inc();
        }
    }

    public void workerError(String errorType) {
        workerErrors.labelValues(WORKER_TYPE, CONNECTION_MODE, errorType).inc();
    }

    public void healthCheck(boolean ok) {
        healthChecks.labelValues(WORKER_TYPE, ok ? "success" : "failure").inc();
    }
}

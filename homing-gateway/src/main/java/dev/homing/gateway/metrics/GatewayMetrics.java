package dev.homing.gateway.metrics;

import dev.homing.core.policy.Decision;
import dev.homing.core.tree.TreeStats;
import dev.homing.gateway.workers.ModelPool;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.http.BodyMemory;
import dev.homing.gateway.workers.WorkerRole;
import dev.homing.gateway.http.EdgeRefusals;
import dev.homing.gateway.resilience.CircuitBreaker;
import dev.homing.gateway.resilience.CircuitBreakers;
import dev.homing.gateway.resilience.RetryState;
import dev.homing.gateway.resilience.UpstreamOutcome;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.StatefulMetric;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.function.ObjLongConsumer;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;

/**
 * The gateway's Prometheus metrics: the reference's {@code smg_*} families with its names and labels for every
 * feature Homing has, plus {@code homing_*} families the reference lacks (policy branches, match ratio, upstream
 * time to first byte, prefix-tree size and evictions). Recorded once per request or probe, never per token. Worker gauges are read from the
 * registry at scrape time, so they need no bookkeeping. The series a request records are found through
 * {@link LabelCache}s rather than {@code labelValues(...)}, which allocates on every call. Thread-safe (client_java
 * metrics and the caches are).
 */
public final class GatewayMetrics {

    /** The reference's router types: the gateway is one or the other as a whole. */
    private static final String ROUTER_TYPE = "http_regular";
    private static final String PD_ROUTER_TYPE = "http_pd";
    private static final String CONNECTION_MODE = "http";
    private static final String WORKER_TYPE = "regular";
    /** Status codes 0 to 599 as label strings. */
    private static final String[] STATUS_LABELS = IntStream.range(0, 600).mapToObj(Integer::toString)
            .toArray(String[]::new);
    /** {@link UpstreamOutcome} labels by ordinal. */
    private static final String[] OUTCOME_LABELS = Arrays.stream(UpstreamOutcome.values())
            .map(o -> o.name().toLowerCase(Locale.ROOT)).toArray(String[]::new);

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final String backend;
    private final LabelCache<CounterDataPoint> httpRequests;
    private final LabelCache<DistributionDataPoint> httpDuration;
    private final LabelCache<CounterDataPoint> httpResponses;
    private final Gauge httpConnections;
    private final LabelCache<CounterDataPoint> routerRequests;
    private final LabelCache<DistributionDataPoint> routerDuration;
    private final LabelCache<CounterDataPoint> routerErrors;
    private final LabelCache<CounterDataPoint> upstreamResponses;
    /** By the chosen worker's role: its {@code worker_type} label. */
    private final Map<WorkerRole, LabelCache<CounterDataPoint>> workerSelection = new EnumMap<>(WorkerRole.class);
    private final LabelCache<CounterDataPoint> workerErrors;
    private final Counter healthChecks;
    private final LabelCache<CounterDataPoint> decisions;
    private final LabelCache<DistributionDataPoint> matchRatio;
    private final LabelCache<DistributionDataPoint> upstreamFirstByte;
    private final LabelCache<CounterDataPoint> workerRequests;
    private final LabelCache<CounterDataPoint> promptTokens;
    private final LabelCache<CounterDataPoint> cachedTokens;
    private final LabelCache<CounterDataPoint> routedChars;
    private final LabelCache<CounterDataPoint> predictedChars;
    private final LabelCache<CounterDataPoint> routingViews;
    private final Counter retries;
    private final LabelCache<CounterDataPoint> rateLimit;
    private final Counter retriesExhausted;
    private final Counter retryGiveUps;
    private final Histogram retryBackoff;
    private final Counter breakerTransitions;
    private final LabelCache<CounterDataPoint> breakerOutcomes;
    private final LabelCache<CounterDataPoint> prefillWaits;
    private final LabelCache<DistributionDataPoint> prefillWaitSeconds;
    private final PrefillDecodeMetrics prefillDecode;

    /** The metrics of a gateway of regular workers. */
    public GatewayMetrics(WorkerRegistry workers, List<Double> durationBuckets, String backend) {
        this(workers, durationBuckets, backend, false);
    }

    /** @param pairs the gateway routes prefill/decode pairs (router type {@code http_pd}) */
    public GatewayMetrics(WorkerRegistry workers, List<Double> durationBuckets, String backend, boolean pairs) {
        this.backend = backend;
        String routerType = pairs ? PD_ROUTER_TYPE : ROUTER_TYPE;
        double[] buckets = durationBuckets.stream().mapToDouble(Double::doubleValue).toArray();
        httpRequests = cache(Counter.builder().name("smg_http_requests_total")
                .help("HTTP requests received").labelNames("method", "path").register(registry));
        httpDuration = cache(Histogram.builder().name("smg_http_request_duration_seconds")
                .help("HTTP request duration, until the last byte of the response").labelNames("method", "path")
                .classicOnly().classicUpperBounds(buckets).register(registry));
        httpResponses = cache(Counter.builder().name("smg_http_responses_total")
                .help("HTTP responses sent").labelNames("status_code", "error_code").register(registry));
        httpConnections = Gauge.builder().name("smg_http_connections_active")
                .help("Client connections open").register(registry);
        routerRequests = cache(Counter.builder().name("smg_router_requests_total")
                .help("Requests routed to a worker")
                .labelNames("router_type", "backend_type", "connection_mode", "model", "endpoint", "streaming")
                .register(registry), routerType, backend, CONNECTION_MODE);
        routerDuration = cache(Histogram.builder().name("smg_router_request_duration_seconds")
                .help("Routed request duration")
                .labelNames("router_type", "backend_type", "connection_mode", "model", "endpoint")
                .classicOnly().classicUpperBounds(buckets).register(registry), routerType, backend, CONNECTION_MODE);
        routerErrors = cache(Counter.builder().name("smg_router_request_errors_total")
                .help("Routed requests that failed")
                .labelNames("router_type", "backend_type", "connection_mode", "model", "endpoint", "error_type")
                .register(registry), routerType, backend, CONNECTION_MODE);
        upstreamResponses = cache(Counter.builder().name("smg_router_upstream_responses_total")
                .help("Responses received from workers").labelNames("router_type", "status_code", "error_code")
                .register(registry), routerType);
        Counter selections = Counter.builder().name("smg_worker_selection_total")
                .help("Workers chosen by the policy").labelNames("worker_type", "connection_mode", "model", "policy")
                .register(registry);
        for (WorkerRole role : WorkerRole.values()) {
            workerSelection.put(role, cache(selections, role.label(), CONNECTION_MODE));
        }
        workerErrors = cache(Counter.builder().name("smg_worker_errors_total")
                .help("Errors talking to workers").labelNames("worker_type", "connection_mode", "error_type")
                .register(registry), WORKER_TYPE, CONNECTION_MODE);
        healthChecks = Counter.builder().name("smg_worker_health_checks_total")
                .help("Worker health probes").labelNames("worker_type", "result").register(registry);
        decisions = cache(Counter.builder().name("homing_routing_decisions_total")
                .help("Policy decisions by branch (hit, miss, imbalance, ...)")
                .labelNames("model", "policy", "branch").register(registry));
        matchRatio = cache(Histogram.builder().name("homing_routing_match_ratio")
                .help("Share of the routing text the chosen worker is believed to hold (cache_aware)")
                .labelNames("model").classicOnly()
                .classicUpperBounds(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
                .register(registry));
        upstreamFirstByte = cache(Histogram.builder().name("homing_upstream_first_byte_seconds")
                .help("Time from sending to a worker to its first response byte (time to first token for streams)")
                .labelNames("model", "endpoint").classicOnly().classicUpperBounds(buckets).register(registry));
        workerRequests = cache(Counter.builder().name("homing_worker_requests_total")
                .help("Requests sent to each worker (the traffic split the reference shows only as a total)")
                .labelNames("model", "worker").register(registry));
        promptTokens = cache(Counter.builder().name("homing_prompt_tokens_total")
                .help("Prompt tokens workers reported, from the usage at the end of each answer")
                .labelNames("model", "worker").register(registry));
        routedChars = cache(Counter.builder().name("homing_routed_chars_total")
                .help("Routing-text characters of the requests placed on each worker").labelNames("model", "worker")
                .register(registry));
        predictedChars = cache(Counter.builder().name("homing_predicted_cached_chars_total")
                .help("Of those, the characters the policy believed the worker held; divided by "
                        + "homing_routed_chars_total it is the predicted hit rate, to compare with the realised one "
                        + "(homing_cached_tokens_total / homing_prompt_tokens_total)")
                .labelNames("model", "worker").register(registry));
        routingViews = cache(Counter.builder().name("homing_routing_view_total")
                .help("Placements by the view that judged the chosen worker: exact (its engine's KV events) or "
                        + "approximate (the prefix tree); a prefill/decode pair's by its prefill leg's").labelNames("model", "worker", "view").register(registry));
        cachedTokens = cache(Counter.builder().name("homing_cached_tokens_total")
                .help("Prompt tokens workers served from their prefix cache; divided by homing_prompt_tokens_total "
                        + "it is the realised cache hit rate").labelNames("model", "worker").register(registry));
        rateLimit = cache(Counter.builder().name("smg_http_rate_limit_total")
                .help("Admission decisions on inference requests").labelNames("result").register(registry));
        // The reference's family with a reason of Homing's: not_delivered, retryable_status, delivered_no_answer.
        retries = Counter.builder().name("smg_worker_retries_total")
                .help("Attempts retried after a worker failure, by why: not_delivered (the request never went out "
                        + "whole), retryable_status, delivered_no_answer (received whole, no answer)")
                .labelNames("worker_type", "endpoint", "reason").register(registry);
        retriesExhausted = Counter.builder().name("smg_worker_retries_exhausted_total")
                .help("Requests that failed after their last allowed attempt").labelNames("worker_type", "endpoint")
                .register(registry);
        retryGiveUps = Counter.builder().name("homing_retry_give_ups_total")
                .help("Requests answered with a retryable failure that was not retried, by why: retries_exhausted, "
                        + "delivered_retries_exhausted (--retry-max-delivered), no_other_worker (every available "
                        + "worker may be running it), no_available_workers, response_started")
                .labelNames("endpoint", "reason").register(registry);
        retryBackoff = Histogram.builder().name("smg_worker_retry_backoff_seconds")
                .help("Backoff before each retry, by retry number").labelNames("attempt").classicOnly()
                .classicUpperBounds(buckets).register(registry);
        breakerTransitions = Counter.builder().name("smg_worker_cb_transitions_total")
                .help("Circuit breaker state changes").labelNames("worker", "from", "to").register(registry);
        breakerOutcomes = cache(Counter.builder().name("smg_worker_cb_outcomes_total")
                .help("Attempt outcomes handed to circuit breakers").labelNames("worker", "outcome")
                .register(registry));
        prefillWaits = cache(Counter.builder().name("homing_prefill_waits_total")
                .help("Requests held until an earlier request's prefill of their prefix was done (load_aware_affinity),"
                        + " by how the wait ended: released, timed_out or client_gone")
                .labelNames("model", "outcome").register(registry));
        // A wait ends at the awaited request's first token, at most --affinity-prefill-wait-ms (2 s by default) later.
        prefillWaitSeconds = cache(Histogram.builder().name("homing_prefill_wait_seconds")
                .help("Time a request was held for an earlier request's prefill of its prefix")
                .labelNames("model").classicOnly()
                .classicUpperBounds(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0).register(registry));
        prefillDecode = new PrefillDecodeMetrics(registry, buckets, backend);
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
                        cb.call(pool.workers().size(), pool.role().label(), CONNECTION_MODE, pool.model());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("homing_tree_chars")
                .help("Characters held by the model's prefix tree (cache_aware, load_aware_affinity)")
                .labelNames("model")
                .callback(cb -> eachTree(workers, TreeStats::storedChars, (model, chars) -> cb.call(chars, model)))
                .register(registry);
        CounterWithCallback.builder().name("homing_tree_evicted_chars_total")
                .help("Characters evicted from the model's prefix tree (cache_aware, load_aware_affinity)")
                .labelNames("model")
                .callback(cb -> eachTree(workers, TreeStats::evictedChars, (model, chars) -> cb.call(chars, model)))
                .register(registry);
        try {
            JvmMetricSet.register(registry);
        } catch (IllegalArgumentException alreadyRegistered) {
            // JVM metrics are process-wide; a second gateway in the same JVM (tests) goes without them.
        }
    }

    /**
     * Exports {@code homing_edge_refusals_total}: requests the listener answered before any route saw them (400, 414,
     * 431 from the decoder; 408 for a slow head or body), by error code. They are not in {@code smg_http_*}.
     */
    public void watchEdge(EdgeRefusals refusals) {
        CounterWithCallback.builder().name("homing_edge_refusals_total")
                .help("Requests answered at the listener's edge before routing (bad head, slow client), by code")
                .labelNames("error_code")
                .callback(cb -> refusals.counts().forEach((code, n) -> cb.call(n, code)))
                .register(registry);
    }

    /**
     * Exports {@code homing_body_memory_bytes} (request bodies in memory now) and {@code homing_body_memory_limit_bytes}
     * (the budget, {@code --max-body-memory}).
     */
    public void watchBodyMemory(BodyMemory memory) {
        GaugeWithCallback.builder().name("homing_body_memory_bytes")
                .help("Bytes of request bodies the gateway holds in memory now")
                .callback(cb -> cb.call(memory.inUse())).register(registry);
        GaugeWithCallback.builder().name("homing_body_memory_limit_bytes")
                .help("Bytes of request bodies the gateway may hold at once (--max-body-memory)")
                .callback(cb -> cb.call(memory.limit())).register(registry);
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
        breakerOutcomes.get(worker, OUTCOME_LABELS[outcome.ordinal()]).inc();
    }

    /** A failed attempt is tried again after {@code delayMillis}; {@code retry} counts from 0. */
    public void retried(String endpoint, RetryState.RetryAfter retry) {
        retries.labelValues(WORKER_TYPE, endpoint, retry.reason().label()).inc();
        retryBackoff.labelValues(String.valueOf(retry.retry() + 1)).observe(retry.delayMillis() / 1000.0);
    }

    /**
     * A retryable failure is the request's last word, for {@code reason}; the reference's exhausted count goes on
     * counting the requests that ran out of attempts.
     */
    public void retryGaveUp(String endpoint, RetryState.GiveUpReason reason) {
        retryGiveUps.labelValues(endpoint, reason.label()).inc();
        if (reason == RetryState.GiveUpReason.RETRIES_EXHAUSTED) {
            retriesExhausted.labelValues(WORKER_TYPE, endpoint).inc();
        }
    }

    /** An admission decision: {@code allowed}, {@code queued} (it waits first) or {@code rejected} (429 or 408). */
    public void rateLimit(String result) {
        rateLimit.get(result).inc();
    }

    /**
     * The metric's data points through a {@link LabelCache}, keyed by the labels a request varies; {@code constants}
     * are the labels every series of this gateway shares, put first.
     */
    static <D extends DataPoint> LabelCache<D> cache(StatefulMetric<D, ?> metric, String... constants) {
        return new LabelCache<>(labels -> {
            String[] all = Arrays.copyOf(constants, constants.length + labels.length);
            System.arraycopy(labels, 0, all, constants.length, labels.length);
            return metric.labelValues(all);
        });
    }

    /** One of {@code stat} per model whose policy keeps a prefix tree, labelled with the model. */
    private static void eachTree(WorkerRegistry workers, ToLongFunction<TreeStats> stat,
                                 ObjLongConsumer<String> sample) {
        for (ModelPool pool : workers.pools()) {
            pool.policy().treeStats().ifPresent(tree -> sample.accept(pool.model(), stat.applyAsLong(tree)));
        }
    }

    /** The status code as a label, without formatting a new string for each response. */
    private static String statusLabel(int status) {
        return status >= 0 && status < STATUS_LABELS.length ? STATUS_LABELS[status] : Integer.toString(status);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /** The {@code smg_pd_*} and per-leg metrics of prefill/decode pairs. */
    public PrefillDecodeMetrics prefillDecode() {
        return prefillDecode;
    }

    public void connectionOpened() {
        httpConnections.inc();
    }

    public void connectionClosed() {
        httpConnections.dec();
    }

    public void httpRequest(String method, String path, int status, String errorCode, long durationNanos) {
        httpRequests.get(method, path).inc();
        httpDuration.get(method, path).observe(durationNanos / 1e9);
        httpResponses.get(statusLabel(status), errorCode == null ? "" : errorCode).inc();
    }

    public void routed(String model, String worker, String endpoint, boolean streaming, String policy,
                       Decision decision) {
        routedRequest(model, endpoint, streaming);
        legPlaced(WorkerRole.REGULAR, model, worker, policy, decision);
    }

    /** A request is routed (a regular worker or a prefill/decode pair is found for it). */
    public void routedRequest(String model, String endpoint, boolean streaming) {
        routerRequests.get(model, endpoint, Boolean.toString(streaming)).inc();
    }

    /** The policy of {@code role}'s pool placed a request (or one leg of it) on {@code worker}. */
    public void legPlaced(WorkerRole role, String model, String worker, String policy, Decision decision) {
        workerSelection.get(role).get(model, policy).inc();
        decisions.get(model, policy, decision.branch()).inc();
        if (role != WorkerRole.DECODE) {
            // A decode engine is handed the prompt's KV: no view of its cache judged it.
            routingViews.get(model, worker, decision.view().label()).inc();
        }
        if (decision.textChars() > 0) {
            matchRatio.get(model).observe(decision.matchRatio());
            routedChars.get(model, worker).inc(decision.textChars());
            predictedChars.get(model, worker).inc(decision.matchedChars());
        }
    }

    /** A request held for a prefill was let go: {@code outcome} is released, timed_out or client_gone. */
    public void prefillWait(String model, String outcome, long heldNanos) {
        prefillWaits.get(model, outcome).inc();
        prefillWaitSeconds.get(model).observe(heldNanos / 1e9);
    }

    public void sentToWorker(String model, String worker) {
        workerRequests.get(model, worker).inc();
    }

    public void upstreamFirstByte(String model, String endpoint, long nanos) {
        upstreamFirstByte.get(model, endpoint).observe(nanos / 1e9);
    }

    public void usage(String model, String worker, long prompt, long cached) {
        promptTokens.get(model, worker).inc(prompt);
        cachedTokens.get(model, worker).inc(cached);
    }

    public void upstreamResponse(int status) {
        upstreamResponses.get(statusLabel(status), "").inc();
    }

    public void routedFinished(String model, String endpoint, long durationNanos, String errorType) {
        routerDuration.get(model, endpoint).observe(durationNanos / 1e9);
        if (errorType != null) {
            routerErrors.get(model, endpoint, errorType).inc();
        }
    }

    public void workerError(String errorType) {
        workerErrors.get(errorType).inc();
    }

    public void healthCheck(WorkerRole role, boolean ok) {
        healthChecks.labelValues(role.label(), ok ? "success" : "failure").inc();
    }
}

package dev.homing.gateway.discovery;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.Arrays;
import java.util.Map;

/**
 * The {@code homing_discovery_*} families: what discovery sees and does, so that a missed event shows. Every series
 * of a known label value exists from the start at 0, so an alert on an increase fires on the first one.
 * docs/KUBERNETES.md says what each means and how to alert on it. Thread-safe.
 */
final class DiscoveryMetrics {

    /** Why a worker was drained. */
    static final String[] DRAIN_REASONS = {"deleted", "terminating", "not_ready", "no_ip", "other_port", "moved"};
    /** Why the watch was restarted. */
    static final String[] RESTART_REASONS = {"silent", "missed_event"};

    private final Counter added;
    private final Counter drained;
    private final Counter removed;
    private final Gauge lastList;
    private final Counter lists;
    private final Counter watchErrors;
    private final Counter restarts;
    private final Counter corrections;
    private volatile Map<PodSnapshot.Status, Integer> pods = Map.of();

    DiscoveryMetrics(PrometheusRegistry registry) {
        GaugeWithCallback.builder().name("homing_discovery_pods")
                .help("Pods matching the selector, by what they mean to the gateway: serving (a worker), "
                        + "not_ready, terminating, no_ip, other_port")
                .labelNames("state")
                .callback(cb -> pods.forEach((status, n) -> cb.call(n, status.label())))
                .register(registry);
        added = counter(registry, "homing_discovery_workers_added_total", "Workers registered for pods that serve");
        drained = counter(registry, "homing_discovery_workers_drained_total",
                "Workers drained (no new requests) because their pod went, by reason", "reason", DRAIN_REASONS);
        removed = counter(registry, "homing_discovery_workers_removed_total",
                "Drained workers removed, their requests in flight done or the drain grace over");
        lastList = Gauge.builder().name("homing_discovery_last_list_timestamp_seconds")
                .help("Unix time of the last full pod list read from the API server (a reconciling list or a new "
                        + "watch's first list)").register(registry);
        lists = counter(registry, "homing_discovery_lists_total",
                "Full pod lists read to reconcile the workers with, by result: ok or failed", "result", "ok", "failed");
        watchErrors = counter(registry, "homing_discovery_watch_errors_total",
                "Failures of the watch (or of its own list) that the client retries with backoff");
        restarts = counter(registry, "homing_discovery_watch_restarts_total",
                "Watches replaced by a new one: silent (no event nor bookmark for too long) or missed_event (a list "
                        + "corrected what the watch had said)", "reason", RESTART_REASONS);
        corrections = counter(registry, "homing_discovery_reconcile_corrections_total",
                "Pods a full list showed otherwise than the watch had: the event the watch missed (add, delete or "
                        + "change)", "missed", Arrays.stream(PodLedger.Missed.values()).map(PodLedger.Missed::label)
                        .toArray(String[]::new));
    }

    /** A counter without labels. */
    private static Counter counter(PrometheusRegistry registry, String name, String help) {
        return Counter.builder().name(name).help(help).register(registry);
    }

    /** A counter with one label, each of {@code values} a series at 0 from the start. */
    private static Counter counter(PrometheusRegistry registry, String name, String help, String label,
                                   String... values) {
        Counter counter = Counter.builder().name(name).help(help).labelNames(label).register(registry);
        for (String value : values) {
            counter.labelValues(value);
        }
        return counter;
    }

    void pods(Map<PodSnapshot.Status, Integer> byStatus) {
        pods = Map.copyOf(byStatus);
    }

    Map<PodSnapshot.Status, Integer> podCounts() {
        return pods;
    }

    void added() {
        added.inc();
    }

    void drained(String reason) {
        drained.labelValues(reason).inc();
    }

    void removed() {
        removed.inc();
    }

    /** A reconciling list was read (at {@code epochMillis}). */
    void listed(long epochMillis) {
        fresh(epochMillis);
        lists.labelValues("ok").inc();
    }

    /** The pods were read whole at {@code epochMillis}: by a reconciling list, or by a watch's first list. */
    void fresh(long epochMillis) {
        lastList.set(epochMillis / 1000.0);
    }

    void listFailed() {
        lists.labelValues("failed").inc();
    }

    void watchError() {
        watchErrors.inc();
    }

    void watchRestarted(String reason) {
        restarts.labelValues(reason).inc();
    }

    void corrected(PodLedger.Missed missed) {
        corrections.labelValues(missed.label()).inc();
    }
}

package dev.homing.gateway.kvevents;

import dev.homing.core.kv.KvEventLiveness;
import dev.homing.core.kv.KvIndexStats;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.Collection;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The {@code homing_kv_*} families: whether each worker's events flow and what the exact index holds, so that exact
 * routing never turns into load balancing unseen. docs/KV_EVENTS.md says what each means. Thread-safe.
 */
final class KvEventMetrics {

    /** What became of a batch. */
    static final String[] OUTCOMES = {"applied", "skipped", "held", "malformed", "dropped"};
    /** How a gap ended. */
    static final String[] GAP_RESULTS = {"replayed", "lost"};
    /** How an engine's count of a prompt's tokens compared with the gateway's. */
    static final String[] TOKEN_CHECK_RESULTS = {"agree", "differ"};

    private final Counter batches;
    private final Counter gaps;
    private final Counter tokenChecks;
    private final Histogram lookups;

    KvEventMetrics(PrometheusRegistry registry, Supplier<Collection<WorkerStream.Status>> workers,
                   Supplier<Collection<KvIndexStats>> indexes) {
        GaugeWithCallback.builder().name("homing_kv_events_worker_state")
                .help("Each worker's KV event state, 1 for the current one: exact (routed on the engine's events), "
                        + "stale (batches missing, or the engine's tokens differ) or none (no events, or silent when "
                        + "expected)")
                .labelNames("worker", "state")
                .callback(cb -> {
                    for (WorkerStream.Status status : workers.get()) {
                        for (KvEventLiveness.State state : KvEventLiveness.State.values()) {
                            cb.call(status.state() == state ? 1 : 0, status.worker(), label(state));
                        }
                    }
                }).register(registry);
        batches = Counter.builder().name("homing_kv_event_batches_total")
                .help("KV event batches received, by outcome: applied, skipped (already applied), held (waiting "
                        + "for a replay), malformed (undecodable: the view is rebuilt) or dropped (lost in a gap, or "
                        + "past the backlog held during a replay)")
                .labelNames("worker", "outcome").register(registry);
        gaps = Counter.builder().name("homing_kv_event_gaps_total")
                .help("Gaps in a worker's KV event sequence, by result: replayed (filled from the engine's replay "
                        + "socket) or lost (the view was cleared and rebuilt)")
                .labelNames("worker", "result").register(registry);
        tokenChecks = Counter.builder().name("homing_kv_prompt_token_checks_total")
                .help("Prompts the gateway counted and the engine's usage reported, by result: agree (the same "
                        + "count) or differ (the engine's tokenizer or chat template is not the gateway's; where most "
                        + "differ the worker is routed on the tree, reason tokens_differ)")
                .labelNames("worker", "result").register(registry);
        lookups = Histogram.builder().name("homing_kv_lookup_seconds")
                .help("A request's exact-view look-up, from its body read to its overlay: tokenizing (as far as "
                        + "some engine holds the prompt), hashing and the index walk, waits for a worker thread or the "
                        + "engine's /tokenize included")
                .classicOnly().classicUpperBounds(0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                        0.025, 0.05, 0.1, 0.25)
                .register(registry);
        GaugeWithCallback.builder().name("homing_kv_index_blocks")
                .help("Engine blocks the exact indexes record, over every model; --kv-index-max-blocks caps each")
                .callback(cb -> cb.call(indexes.get().stream().mapToLong(KvIndexStats::engineBlocks).sum()))
                .register(registry);
        GaugeWithCallback.builder().name("homing_kv_index_bytes")
                .help("Heap the exact indexes take, estimated from what they hold")
                .callback(cb -> cb.call(indexes.get().stream().mapToLong(KvIndexStats::estimatedBytes).sum()))
                .register(registry);
        CounterWithCallback.builder().name("homing_kv_index_refused")
                .help("Engine blocks an exact index did not record because it was full (--kv-index-max-blocks)")
                .callback(cb -> cb.call(indexes.get().stream().mapToLong(KvIndexStats::refusedBlocks).sum()))
                .register(registry);
    }

    static String label(KvEventLiveness.State state) {
        return state.name().toLowerCase(Locale.ROOT);
    }

    /** The worker's series exist from its subscription, at 0. */
    void added(String worker) {
        for (String outcome : OUTCOMES) {
            batches.labelValues(worker, outcome);
        }
        for (String result : GAP_RESULTS) {
            gaps.labelValues(worker, result);
        }
        for (String result : TOKEN_CHECK_RESULTS) {
            tokenChecks.labelValues(worker, result);
        }
    }

    void removed(String worker) {
        for (String outcome : OUTCOMES) {
            batches.remove(worker, outcome);
        }
        for (String result : GAP_RESULTS) {
            gaps.remove(worker, result);
        }
        for (String result : TOKEN_CHECK_RESULTS) {
            tokenChecks.remove(worker, result);
        }
    }

    void batch(String worker, String outcome) {
        batches.labelValues(worker, outcome).inc();
    }

    void batches(String worker, String outcome, int count) {
        if (count > 0) {
            batches.labelValues(worker, outcome).inc(count);
        }
    }

    void lookedUp(long nanos) {
        lookups.observe(nanos / 1e9);
    }

    void tokensChecked(String worker, boolean differ) {
        tokenChecks.labelValues(worker, differ ? "differ" : "agree").inc();
    }

    void gap(String worker, boolean replayed) {
        gaps.labelValues(worker, replayed ? "replayed" : "lost").inc();
    }
}

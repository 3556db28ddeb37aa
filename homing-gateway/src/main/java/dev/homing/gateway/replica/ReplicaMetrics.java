package dev.homing.gateway.replica;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.function.DoubleSupplier;

/**
 * The {@code homing_replica_*} families: whether the bus is reachable and the replica warm, what crosses the bus, and
 * the sibling replicas seen. Every series exists from the start. docs/REPLICAS.md says what each means. Thread-safe.
 */
final class ReplicaMetrics {

    private final Gauge connected;
    private final Gauge warm;
    private final Counter transitions;
    private final Counter published;
    private final Counter publishedBytes;
    private final Counter received;
    private final Counter receivedBytes;
    private final Counter dropped;
    private final Counter snapshots;

    ReplicaMetrics(PrometheusRegistry registry, DoubleSupplier siblings) {
        connected = Gauge.builder().name("homing_replica_sync_connected")
                .help("1 while the replica reaches the NATS bus, 0 while it routes on its own view alone")
                .register(registry);
        warm = Gauge.builder().name("homing_replica_warm")
                .help("1 once the replica holds a warm sibling's snapshot (or found no sibling), 0 before")
                .register(registry);
        transitions = Counter.builder().name("homing_replica_sync_transitions_total")
                .help("Changes of the bus connection, by the state entered: connected or disconnected")
                .labelNames("state").register(registry);
        transitions.labelValues("connected");
        transitions.labelValues("disconnected");
        published = counter(registry, "homing_replica_events_published_total",
                "Events this replica published: decisions, trims and loads");
        publishedBytes = counter(registry, "homing_replica_published_bytes_total",
                "Bytes of the frames this replica published (payload, without NATS's own framing)");
        received = counter(registry, "homing_replica_events_received_total",
                "Events received from sibling replicas and applied");
        receivedBytes = counter(registry, "homing_replica_received_bytes_total",
                "Bytes of the frames received from sibling replicas");
        dropped = counter(registry, "homing_replica_events_dropped_total",
                "Events not published: the bus was unreachable or the queue full (a snapshot makes up for them)");
        snapshots = Counter.builder().name("homing_replica_snapshots_total")
                .help("Snapshots of the routing state, by role: taken (from a sibling) or given (to one)")
                .labelNames("role").register(registry);
        snapshots.labelValues("taken");
        snapshots.labelValues("given");
        GaugeWithCallback.builder().name("homing_replica_siblings")
                .help("Sibling replicas whose load report has not expired")
                .callback(cb -> cb.call(siblings.getAsDouble())).register(registry);
    }

    private static Counter counter(PrometheusRegistry registry, String name, String help) {
        return Counter.builder().name(name).help(help).register(registry);
    }

    void connected(boolean up) {
        connected.set(up ? 1 : 0);
        transitions.labelValues(up ? "connected" : "disconnected").inc();
    }

    void warm(boolean isWarm) {
        warm.set(isWarm ? 1 : 0);
    }

    void published(int events, int bytes) {
        published.inc(events);
        publishedBytes.inc(bytes);
    }

    void received(int events, int bytes) {
        received.inc(events);
        receivedBytes.inc(bytes);
    }

    void dropped(int events) {
        dropped.inc(events);
    }

    void snapshot(boolean taken) {
        snapshots.labelValues(taken ? "taken" : "given").inc();
    }
}

package dev.homing.gateway.status;

import dev.homing.core.kv.KvEventLiveness;
import dev.homing.gateway.discovery.PodDiscovery;
import dev.homing.gateway.http.Route;
import dev.homing.gateway.kvevents.KvEventSubscribers;
import dev.homing.gateway.replica.ReplicaSync;
import dev.homing.gateway.resilience.CircuitBreaker;
import dev.homing.gateway.resilience.CircuitBreakers;
import dev.homing.gateway.security.RouteAccess;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import tools.jackson.databind.json.JsonMapper;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code GET /status} on the metrics port: the fleet as an operator looks at it (each worker's role, state, circuit,
 * requests in flight, routing view and predicted against realised hit rate over the last minutes; the replica sync and
 * discovery), as one self-contained HTML page ({@link StatusPage}) or, with {@code ?format=json}, as JSON. It reads
 * what the gateway keeps anyway; only the hit-rate history is its own ({@link HitRateHistory}), sampled on a timer.
 * Thread-safe.
 */
public final class FleetStatus {

    private static final JsonMapper JSON = JsonMapper.shared();

    private final WorkerRegistry registry;
    private final CircuitBreakers breakers;
    /** Null when {@code --kv-events off}. */
    private final KvEventSubscribers kvEvents;
    /** Null when {@code --replica-sync} is off. */
    private final ReplicaSync replicas;
    private final HitRateHistory history;
    /** Null until discovery starts (after the listeners), and when it is off. */
    private volatile PodDiscovery discovery;

    private FleetStatus(WorkerRegistry registry, CircuitBreakers breakers, KvEventSubscribers kvEvents,
                        ReplicaSync replicas, PrometheusRegistry metrics) {
        this.registry = registry;
        this.breakers = breakers;
        this.kvEvents = kvEvents;
        this.replicas = replicas;
        this.history = new HitRateHistory(metrics);
    }

    /** Starts sampling the hit rates, at once and then every {@link HitRateHistory#SAMPLE_MILLIS} on {@code vertx}. */
    public static FleetStatus start(Vertx vertx, WorkerRegistry registry, CircuitBreakers breakers,
                                    KvEventSubscribers kvEvents, ReplicaSync replicas, PrometheusRegistry metrics) {
        FleetStatus status = new FleetStatus(registry, breakers, kvEvents, replicas, metrics);
        status.sample();
        vertx.setPeriodic(HitRateHistory.SAMPLE_MILLIS, id -> status.sample());
        return status;
    }

    /** Shows {@code pods}' state from now on. */
    public void discovery(PodDiscovery pods) {
        this.discovery = pods;
    }

    /** The route, for the metrics port's table. */
    public Route route() {
        return Route.answered(HttpMethod.GET, "/status", RouteAccess.Kind.MONITORING, (request, param) -> serve(request));
    }

    private void sample() {
        history.sample(registry.workers().stream().map(Worker::url).collect(Collectors.toSet()),
                System.currentTimeMillis());
    }

    private void serve(HttpServerRequest request) {
        StatusReport report = report(System.currentTimeMillis());
        if ("json".equals(request.getParam("format"))) {
            request.response().putHeader("content-type", "application/json").end(JSON.writeValueAsString(report));
        } else {
            request.response().putHeader("content-type", "text/html; charset=utf-8")
                    .putHeader("cache-control", "no-store").end(StatusPage.render(report));
        }
    }

    StatusReport report(long nowMillis) {
        Map<String, long[]> now = history.read();
        Map<String, CircuitBreaker.State> circuits = breakers.states();
        Map<String, KvEventLiveness.State> streams = kvEvents == null ? Map.of() : kvEvents.statesByWorker();
        List<StatusReport.WorkerStatus> workers = registry.workers().stream()
                .sorted(Comparator.comparing(Worker::url))
                .map(w -> {
                    CircuitBreaker.State circuit = circuits.getOrDefault(w.id(), CircuitBreaker.State.CLOSED);
                    KvEventLiveness.State stream = streams.get(w.url());
                    return new StatusReport.WorkerStatus(w.url(), w.modelId(), w.role().label(), label(w.state()),
                            w.healthy(), circuit.label(), w.inFlight(),
                            stream == KvEventLiveness.State.EXACT ? "exact" : "approximate",
                            kvEvents == null ? "off" : stream == null ? "none" : label(stream),
                            hitRates(w.url(), nowMillis, now));
                }).toList();
        return new StatusReport(nowMillis, HitRateHistory.SAMPLE_MILLIS * HitRateHistory.SAMPLES / 1000,
                hitRates(HitRateHistory.FLEET, nowMillis, now), workers, replica(), discovery());
    }

    private StatusReport.HitRates hitRates(String worker, long nowMillis, Map<String, long[]> now) {
        HitRateHistory.Point window = history.window(worker, nowMillis, now);
        return new StatusReport.HitRates(window.predicted(), window.realised(), history.points(worker, nowMillis, now));
    }

    private StatusReport.Replica replica() {
        return replicas == null ? StatusReport.Replica.OFF
                : new StatusReport.Replica(true, replicas.name(), label(replicas.phase()), replicas.warm());
    }

    private StatusReport.Discovery discovery() {
        PodDiscovery pods = discovery;
        if (pods == null) {
            return StatusReport.Discovery.OFF;
        }
        PodDiscovery.Status status = pods.status();
        return new StatusReport.Discovery(true, status.synced(), status.pods());
    }

    private static String label(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}

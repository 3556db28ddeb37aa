package dev.homing.gateway;

import dev.homing.gateway.http.HopLimit;
import dev.homing.gateway.http.JsonResponses;
import dev.homing.gateway.metrics.EngineMetricsMerge;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerLifecycle;
import dev.homing.gateway.workers.WorkerRegistry;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The admin routes that ask every active worker and merge the answers: {@code POST /flush_cache},
 * {@code GET /get_loads}, {@code GET /engine_metrics}. Calls run in parallel on event loops; nothing blocks. Each
 * call is a relay of the admin request, so it carries the hop count ({@link HopLimit}): a worker that is a gateway
 * fanning out back here ends the loop.
 */
final class FanOutRoutes {

    private final WorkerRegistry registry;
    private final WorkerLifecycle lifecycle;

    FanOutRoutes(WorkerRegistry registry, WorkerLifecycle lifecycle) {
        this.registry = registry;
        this.lifecycle = lifecycle;
    }

    private List<Worker> activeWorkers() {
        return registry.workers().stream().filter(w -> w.state() == Worker.State.ACTIVE).toList();
    }

    void flushCache(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        String hops = HopLimit.next(request.headers());
        List<Worker> workers = activeWorkers();
        List<Future<Map<String, Object>>> calls = new ArrayList<>();
        for (Worker w : workers) {
            calls.add(lifecycle.call(w, HttpMethod.POST, "/flush_cache", hops)
                    .map(b -> Map.<String, Object>of("worker", w.url(), "success", true))
                    .otherwise(err -> Map.of("worker", w.url(), "success", false, "error", String.valueOf(
                            err.getMessage()))));
        }
        Future.join(calls).onComplete(ar -> {
            List<Map<String, Object>> results = calls.stream().map(Future::result).toList();
            boolean all = results.stream().allMatch(r -> Boolean.TRUE.equals(r.get("success")));
            JsonResponses.send(response, all ? 200 : 502,
                    Map.of("status", all ? "ok" : "partial", "workers", results));
        });
    }

    void loads(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        String hops = HopLimit.next(request.headers());
        List<Worker> workers = activeWorkers();
        List<Future<Map<String, Object>>> calls = new ArrayList<>();
        for (Worker w : workers) {
            calls.add(lifecycle.call(w, HttpMethod.GET, "/get_load", hops)
                    .map(b -> load(w, WorkerLifecycle.tokensInUse(b)))
                    .otherwise(err -> load(w, -1)));
        }
        Future.join(calls).onComplete(ar ->
                JsonResponses.send(response, 200, Map.of("workers", calls.stream().map(Future::result).toList())));
    }

    private static Map<String, Object> load(Worker w, long load) {
        return Map.of("worker", w.url(), "worker_type", w.role().label(), "load", load);
    }

    void engineMetrics(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        String hops = HopLimit.next(request.headers());
        List<Worker> workers = activeWorkers();
        List<Future<Buffer>> calls = new ArrayList<>();
        for (Worker w : workers) {
            calls.add(lifecycle.call(w, HttpMethod.GET, "/metrics", hops));
        }
        Future.join(calls).onComplete(ar -> {
            EngineMetricsMerge merge = new EngineMetricsMerge();
            for (int i = 0; i < workers.size(); i++) {
                if (calls.get(i).succeeded()) {
                    merge.add(workers.get(i).url(), calls.get(i).result().toString(StandardCharsets.UTF_8));
                }
            }
            response.putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(merge.text());
        });
    }
}

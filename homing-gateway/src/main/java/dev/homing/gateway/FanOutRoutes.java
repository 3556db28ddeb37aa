package dev.homing.gateway;

import dev.homing.gateway.http.HopLimit;
import dev.homing.gateway.http.JsonResponses;
import dev.homing.gateway.metrics.EngineMetricsMerge;
import dev.homing.gateway.workers.UnexpectedStatus;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

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

    /**
     * Asks every active worker {@code path} at once, each call a relay of {@code request} (with its hop count);
     * {@code reading} makes each worker's call into what the route merges. In the registry's order.
     */
    private <T> List<Future<T>> askActiveWorkers(HttpServerRequest request, HttpMethod method, String path,
                                                 BiFunction<Worker, Future<Buffer>, Future<T>> reading) {
        String hops = HopLimit.next(request.headers());
        List<Future<T>> calls = new ArrayList<>();
        for (Worker w : registry.workers()) {
            if (w.state() == Worker.State.ACTIVE) {
                calls.add(reading.apply(w, lifecycle.call(w, method, path, hops)));
            }
        }
        return calls;
    }

    /**
     * Flushes every active worker's cache: 200 {@code "ok"} when all did, else 502 {@code "partial"} with each
     * worker's outcome; a worker that answered, but not with 2xx, is quoted: its {@code status_code} and its own
     * {@code message} (an engine refuses to flush while requests run, and says so), and a top-level
     * {@code message} names every worker that did not flush and why.
     */
    void flushCache(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        List<Future<Map<String, Object>>> calls = askActiveWorkers(request, HttpMethod.POST, "/flush_cache",
                (w, call) -> call.map(b -> Map.<String, Object>of("worker", w.url(), "success", true))
                        .otherwise(err -> notFlushed(w, err)));
        Future.join(calls).onComplete(ar -> {
            List<Map<String, Object>> results = calls.stream().map(Future::result).toList();
            List<String> failures = results.stream().filter(r -> !Boolean.TRUE.equals(r.get("success")))
                    .map(r -> r.get("worker") + ": " + r.getOrDefault("message", r.get("error"))).toList();
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("status", failures.isEmpty() ? "ok" : "partial");
            if (!failures.isEmpty()) {
                body.put("message", failures.size() + " of " + results.size() + " workers did not flush their"
                        + " cache: " + String.join("; ", failures));
            }
            body.put("workers", results);
            JsonResponses.send(response, failures.isEmpty() ? 200 : 502, body);
        });
    }

    /** A worker's failed flush: what went wrong, and when the worker answered, its status and its own words. */
    private static Map<String, Object> notFlushed(Worker w, Throwable err) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("worker", w.url());
        result.put("success", false);
        result.put("error", String.valueOf(err.getMessage()));
        if (err instanceof UnexpectedStatus answered) {
            result.put("status_code", answered.status());
            result.put("message", answered.workerMessage());
        }
        return result;
    }

    void loads(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        List<Future<Map<String, Object>>> calls = askActiveWorkers(request, HttpMethod.GET, "/get_load",
                (w, call) -> call.map(b -> load(w, WorkerLifecycle.tokensInUse(b))).otherwise(err -> load(w, -1)));
        Future.join(calls).onComplete(ar ->
                JsonResponses.send(response, 200, Map.of("workers", calls.stream().map(Future::result).toList())));
    }

    private static Map<String, Object> load(Worker w, long load) {
        return Map.of("worker", w.url(), "worker_type", w.role().label(), "load", load);
    }

    void engineMetrics(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        List<Future<Map.Entry<String, String>>> calls = askActiveWorkers(request, HttpMethod.GET, "/metrics",
                (w, call) -> call.map(b -> Map.entry(w.url(), b.toString(StandardCharsets.UTF_8))));
        Future.join(calls).onComplete(ar -> {
            EngineMetricsMerge merge = new EngineMetricsMerge();
            for (Future<Map.Entry<String, String>> call : calls) {
                if (call.succeeded()) {
                    merge.add(call.result().getKey(), call.result().getValue());
                }
            }
            response.putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(merge.text());
        });
    }
}

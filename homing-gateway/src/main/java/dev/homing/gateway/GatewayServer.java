package dev.homing.gateway;

import dev.homing.core.policy.RoutingRequest;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.config.WorkerUrls;
import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.Cors;
import dev.homing.gateway.http.RequestIds;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.metrics.EngineMetricsMerge;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.proxy.BadRequestException;
import dev.homing.gateway.proxy.ForwardedHeaders;
import dev.homing.gateway.proxy.InferenceRoute;
import dev.homing.gateway.proxy.RoutingText;
import dev.homing.gateway.proxy.SniffedRequest;
import dev.homing.gateway.proxy.UpstreamProxy;
import dev.homing.gateway.workers.ModelPool;
import dev.homing.gateway.workers.NoRouteException;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerLifecycle;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.workers.WorkerSpec;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data-plane request handler: dispatches by method and path to the inference proxy, the synthesised and
 * proxied info routes, the fan-out admin routes and the worker API. Handlers run on event loops and never block.
 */
final class GatewayServer implements Handler<HttpServerRequest> {

    private static final JsonMapper JSON = JsonMapper.shared();
    /** Admin and worker-API bodies are small; anything larger is a mistake. */
    private static final long ADMIN_BODY_LIMIT = 1 << 20;

    private final GatewayConfig config;
    private final WorkerRegistry registry;
    private final WorkerLifecycle lifecycle;
    private final UpstreamProxy proxy;
    private final HttpClient client;
    private final GatewayMetrics metrics;
    private final RequestIds requestIds;
    private final Cors cors;
    private final String expectedAuthorization;

    GatewayServer(GatewayConfig config, WorkerRegistry registry, WorkerLifecycle lifecycle, UpstreamProxy proxy,
                  HttpClient client, GatewayMetrics metrics) {
        this.config = config;
        this.registry = registry;
        this.lifecycle = lifecycle;
        this.proxy = proxy;
        this.client = client;
        this.metrics = metrics;
        this.requestIds = new RequestIds(config.requestIdHeaders());
        this.cors = new Cors(config.corsAllowedOrigins());
        this.expectedAuthorization = config.apiKey() == null ? null : "Bearer " + config.apiKey();
    }

    @Override
    public void handle(HttpServerRequest req) {
        String path = req.path();
        InferenceRoute route = InferenceRoute.of(path);
        RequestRecord record = new RequestRecord(metrics,
                requestIds.idFor(req.headers(), route == null ? "req-" : route.requestIdPrefix()),
                req.method().name(), route != null ? path : metricPath(path));
        HttpServerResponse response = req.response();
        response.putHeader("x-request-id", record.requestId());
        response.endHandler(v -> record.complete(response.getStatusCode(),
                response.headers().get("x-smg-error-code")));
        if (cors.apply(req)) {
            return;
        }
        HttpMethod method = req.method();
        if (route != null) {
            if (method != HttpMethod.POST) {
                fail(req, new ApiError(405, "method_not_allowed", path + " accepts POST only"));
            } else if (authorized(req)) {
                readBody(req, config.maxPayloadSize(), body -> route(req, body, route, record));
            }
            return;
        }
        if (method == HttpMethod.GET) {
            switch (path) {
                case "/health", "/liveness" -> {
                    response.putHeader("content-type", "text/plain").end("OK");
                    return;
                }
                case "/readiness" -> {
                    readiness(response);
                    return;
                }
                case "/health_generate" -> {
                    boolean any = registry.healthyCount() > 0;
                    response.setStatusCode(any ? 200 : 503).putHeader("content-type", "text/plain")
                            .end(any ? "At least one worker is healthy" : "No healthy workers");
                    return;
                }
                case "/v1/models" -> {
                    models(response);
                    return;
                }
                case "/get_model_info", "/get_server_info" -> {
                    proxyGetToHealthyWorker(req, path);
                    return;
                }
                case "/engine_metrics" -> {
                    engineMetrics(response);
                    return;
                }
                default -> { }
            }
        }
        if (path.equals("/get_loads") && method == HttpMethod.GET) {
            if (authorized(req)) {
                loads(response);
            }
        } else if (path.equals("/flush_cache") && method == HttpMethod.POST) {
            if (authorized(req)) {
                flushCache(response);
            }
        } else if (path.equals("/workers") || path.startsWith("/workers/")) {
            if (authorized(req)) {
                workersApi(req, path);
            }
        } else {
            fail(req, ApiError.notFound("No route for " + method.name() + " " + path));
        }
    }

    /** Keeps metric label cardinality bounded: unknown paths share one label. */
    private static String metricPath(String path) {
        if (path.startsWith("/workers/")) {
            return "/workers/{id}";
        }
        return switch (path) {
            case "/health", "/liveness", "/readiness", "/health_generate", "/v1/models", "/get_model_info",
                 "/get_server_info", "/engine_metrics", "/get_loads", "/flush_cache", "/workers" -> path;
            default -> "other";
        };
    }

    private boolean authorized(HttpServerRequest req) {
        if (expectedAuthorization == null || expectedAuthorization.equals(req.getHeader("authorization"))) {
            return true;
        }
        fail(req, new ApiError(401, "invalid_api_key", "Missing or wrong API key"));
        return false;
    }

    private static void fail(HttpServerRequest req, ApiError error) {
        error.send(req.response());
    }

    /**
     * Reads the whole body up to {@code limit} bytes; a larger body gets 413 (early, from Content-Length, when the
     * client declared it) and the connection is closed so the rest is not read.
     */
    private static void readBody(HttpServerRequest req, long limit, Handler<Buffer> onBody) {
        String declared = req.getHeader("content-length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.trim()) > limit) {
                    tooLarge(req, limit);
                    return;
                }
            } catch (NumberFormatException e) {
                fail(req, ApiError.badRequest("invalid Content-Length"));
                return;
            }
        }
        Buffer body = Buffer.buffer(declared != null ? (int) Math.min(Long.parseLong(declared.trim()), limit) : 1024);
        boolean[] over = {false};
        req.handler(chunk -> {
            if (over[0]) {
                return;
            }
            if ((long) body.length() + chunk.length() > limit) {
                over[0] = true;
                tooLarge(req, limit);
            } else {
                body.appendBuffer(chunk);
            }
        });
        req.endHandler(v -> {
            if (!over[0]) {
                onBody.handle(body);
            }
        });
    }

    private static void tooLarge(HttpServerRequest req, long limit) {
        if (req.version() != io.vertx.core.http.HttpVersion.HTTP_2) {
            // HTTP/1.1 cannot skip the rest of an upload on a live connection; HTTP/2 resets just the stream.
            req.response().putHeader("connection", "close");
        }
        fail(req, new ApiError(413, "payload_too_large", "Request body is larger than " + limit + " bytes"));
    }

    private void route(HttpServerRequest req, Buffer body, InferenceRoute route, RequestRecord record) {
        if (req.response().closed()) {
            return;
        }
        SniffedRequest sniffed;
        try {
            sniffed = RoutingText.sniff(route, body.getBytes());
        } catch (BadRequestException e) {
            fail(req, ApiError.badRequest(e.getMessage()));
            return;
        }
        ModelPool pool;
        try {
            pool = registry.resolve(sniffed.model());
        } catch (NoRouteException e) {
            fail(req, new ApiError(e.status(), e.code(), e.getMessage()));
            return;
        }
        RoutingRequest routing = new RoutingRequest(sniffed.routingText(), req.getHeader("x-smg-routing-key"),
                req.getHeader("x-smg-target-worker"), implicitKey(req));
        ModelPool.Selection selection = pool.select(routing);
        if (!selection.found()) {
            fail(req, new ApiError(503, "no_available_workers",
                    "No available workers (all unhealthy or draining) for model " + pool.model()));
            return;
        }
        String policy = pool.policy().name();
        record.routed(pool.model(), selection.slot().worker().url(), selection.decision().branch(),
                selection.decision().textChars() > 0 ? selection.decision().matchRatio() : -1);
        metrics.routed(pool.model(), route.path(), sniffed.stream(), policy, selection.decision());
        java.util.Set<Worker> tried = new java.util.HashSet<>();
        proxy.forward(req, body, route, sniffed, selection.slot(), record, unreachable -> {
            tried.add(unreachable);
            if (!config.disableHealthCheck()) {
                // Health probes bring it back; with health checks off nothing would, so it stays in rotation.
                unreachable.markUnreachable();
            }
            ModelPool.Selection next = pool.select(routing, tried);
            return next.found() ? next.slot() : null;
        });
    }

    private static String implicitKey(HttpServerRequest req) {
        for (String header : new String[] {"authorization", "x-forwarded-for", "cookie"}) {
            String value = req.getHeader(header);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    private void readiness(HttpServerResponse response) {
        long healthy = registry.healthyCount();
        Map<String, Object> body = new LinkedHashMap<>();
        if (healthy > 0) {
            body.put("status", "ready");
            body.put("healthy_workers", healthy);
            body.put("total_workers", registry.workers().size());
        } else {
            body.put("status", "not ready");
            body.put("reason", "insufficient healthy workers");
        }
        json(response, healthy > 0 ? 200 : 503, body);
    }

    private void models(HttpServerResponse response) {
        List<String> models = registry.models();
        if (models.isEmpty()) {
            new ApiError(503, "no_models", "No models available").send(response);
            return;
        }
        List<Map<String, Object>> data = new ArrayList<>();
        for (String model : models) {
            data.add(Map.of("id", model, "object", "model", "owned_by", "local"));
        }
        json(response, 200, Map.of("object", "list", "data", data));
    }

    private Worker firstHealthy(String model) {
        for (Worker w : registry.workers()) {
            if (w.available() && (model == null || model.equals(w.modelId()))) {
                return w;
            }
        }
        return null;
    }

    /** GETs the same path from a healthy worker (of {@code ?model=} if given) and relays its answer. */
    private void proxyGetToHealthyWorker(HttpServerRequest req, String path) {
        Worker worker = firstHealthy(req.getParam("model"));
        HttpServerResponse response = req.response();
        if (worker == null) {
            new ApiError(503, "no_available_workers", "No healthy workers").send(response);
            return;
        }
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(worker.url() + path)
                .setConnectTimeout(10_000).setIdleTimeout(config.requestTimeoutSecs() * 1000);
        if (worker.apiKey() != null) {
            options.putHeader("authorization", "Bearer " + worker.apiKey());
        }
        client.request(options).compose(r -> r.send()).compose(resp -> resp.body().map(body -> {
            response.setStatusCode(resp.statusCode());
            ForwardedHeaders.toClient(resp.headers(), response.headers());
            response.headers().remove("content-length");
            response.end(body);
            return body;
        })).onFailure(err -> new ApiError(502, "call_upstream_failed",
                "Worker " + worker.url() + " failed: " + err.getMessage()).send(response));
    }

    private List<Worker> activeWorkers() {
        return registry.workers().stream().filter(w -> w.state() == Worker.State.ACTIVE).toList();
    }

    private void flushCache(HttpServerResponse response) {
        List<Worker> workers = activeWorkers();
        List<Future<Map<String, Object>>> calls = new ArrayList<>();
        for (Worker w : workers) {
            calls.add(lifecycle.call(w, HttpMethod.POST, "/flush_cache")
                    .map(b -> Map.<String, Object>of("worker", w.url(), "success", true))
                    .otherwise(err -> Map.of("worker", w.url(), "success", false, "error", String.valueOf(
                            err.getMessage()))));
        }
        Future.join(calls).onComplete(ar -> {
            List<Map<String, Object>> results = calls.stream().map(Future::result).toList();
            boolean all = results.stream().allMatch(r -> Boolean.TRUE.equals(r.get("success")));
            json(response, all ? 200 : 502, Map.of("status", all ? "ok" : "partial", "workers", results));
        });
    }

    private void loads(HttpServerResponse response) {
        List<Worker> workers = activeWorkers();
        List<Future<Map<String, Object>>> calls = new ArrayList<>();
        for (Worker w : workers) {
            calls.add(lifecycle.get(w, "/get_load")
                    .map(b -> tokensInUse(w, b))
                    .otherwise(err -> load(w, -1)));
        }
        Future.join(calls).onComplete(ar ->
                json(response, 200, Map.of("workers", calls.stream().map(Future::result).toList())));
    }

    private static Map<String, Object> tokensInUse(Worker w, Buffer body) {
        try {
            JsonNode root = JSON.readTree(body.getBytes());
            long sum = 0;
            if (root.isObject()) {
                sum = root.path("num_tokens").asLong(-1);
            } else {
                for (JsonNode rank : root) {
                    sum += rank.path("num_tokens").asLong(0);
                }
            }
            return load(w, sum);
        } catch (JacksonException e) {
            return load(w, -1);
        }
    }

    private static Map<String, Object> load(Worker w, long load) {
        return Map.of("worker", w.url(), "worker_type", "regular", "load", load);
    }

    private void engineMetrics(HttpServerResponse response) {
        List<Worker> workers = activeWorkers();
        List<Future<Buffer>> calls = new ArrayList<>();
        for (Worker w : workers) {
            calls.add(lifecycle.get(w, "/metrics"));
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

    private void workersApi(HttpServerRequest req, String path) {
        HttpMethod method = req.method();
        HttpServerResponse response = req.response();
        if (path.equals("/workers")) {
            if (method == HttpMethod.GET) {
                List<Map<String, Object>> list = registry.workers().stream().map(GatewayServer::describe).toList();
                json(response, 200, Map.of("workers", list, "total", list.size()));
            } else if (method == HttpMethod.POST) {
                readBody(req, ADMIN_BODY_LIMIT, body -> addWorker(req, body));
            } else {
                fail(req, new ApiError(405, "method_not_allowed", "/workers accepts GET and POST"));
            }
            return;
        }
        String id = URLDecoder.decode(path.substring("/workers/".length()), StandardCharsets.UTF_8);
        Worker worker = registry.find(id);
        if (worker == null) {
            fail(req, ApiError.notFound("No worker " + id));
            return;
        }
        if (method == HttpMethod.GET) {
            json(response, 200, describe(worker));
        } else if (method == HttpMethod.DELETE) {
            Worker removed = registry.remove(worker.id());
            Map<String, Object> body = new LinkedHashMap<>(describe(removed));
            body.put("status", "removed");
            json(response, 200, body);
        } else if (method == HttpMethod.PUT) {
            readBody(req, ADMIN_BODY_LIMIT, body -> updateWorker(req, worker, body));
        } else {
            fail(req, new ApiError(405, "method_not_allowed", "/workers/{id} accepts GET, PUT and DELETE"));
        }
    }

    private void addWorker(HttpServerRequest req, Buffer body) {
        WorkerSpec spec;
        try {
            JsonNode node = JSON.readTree(body.getBytes());
            if (!node.isObject() || !node.path("url").isString()) {
                fail(req, ApiError.badRequest("body must be a JSON object with a string 'url'"));
                return;
            }
            String url = WorkerUrls.normalize(node.get("url").asString());
            String problem = WorkerUrls.problem(url);
            if (problem != null) {
                fail(req, ApiError.badRequest(problem));
                return;
            }
            spec = new WorkerSpec(url, optionalText(node, "api_key"), optionalText(node, "model_id"),
                    labels(node), node.path("priority").asInt(WorkerSpec.DEFAULT_PRIORITY));
        } catch (JacksonException | IllegalArgumentException e) {
            fail(req, ApiError.badRequest("invalid worker: " + e.getMessage()));
            return;
        }
        try {
            WorkerLifecycle.Registration registration = lifecycle.register(spec);
            Map<String, Object> out = new LinkedHashMap<>(describe(registration.worker()));
            out.put("status", "pending");
            json(req.response(), 202, out);
        } catch (IllegalArgumentException duplicate) {
            fail(req, new ApiError(409, "worker_exists", duplicate.getMessage()));
        }
    }

    private void updateWorker(HttpServerRequest req, Worker worker, Buffer body) {
        try {
            JsonNode node = JSON.readTree(body.getBytes());
            if (!node.isObject()) {
                fail(req, ApiError.badRequest("body must be a JSON object"));
                return;
            }
            worker.update(node.has("labels") ? labels(node) : null,
                    node.has("priority") ? node.get("priority").asInt() : null);
            json(req.response(), 200, describe(worker));
        } catch (JacksonException | IllegalArgumentException e) {
            fail(req, ApiError.badRequest("invalid worker update: " + e.getMessage()));
        }
    }

    private static String optionalText(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw new IllegalArgumentException(field + " must be a string");
        }
        return value.asString();
    }

    private static Map<String, String> labels(JsonNode node) {
        JsonNode labels = node.get("labels");
        if (labels == null || labels.isNull()) {
            return Map.of();
        }
        if (!labels.isObject()) {
            throw new IllegalArgumentException("labels must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : labels.properties()) {
            out.put(e.getKey(), e.getValue().asString());
        }
        return out;
    }

    /** A worker as the worker API shows it; the API key is never shown. */
    private static Map<String, Object> describe(Worker w) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", w.id());
        out.put("url", w.url());
        out.put("model_id", w.modelId());
        out.put("worker_type", "regular");
        out.put("state", w.state().name().toLowerCase(java.util.Locale.ROOT));
        out.put("is_healthy", w.healthy());
        out.put("load", w.inFlight());
        out.put("labels", w.labels());
        out.put("priority", w.priority());
        out.put("has_api_key", w.apiKey() != null);
        return out;
    }

    private static void json(HttpServerResponse response, int status, Object body) {
        if (response.ended() || response.closed()) {
            return;
        }
        response.setStatusCode(status).putHeader("content-type", "application/json")
                .end(JSON.writeValueAsString(body));
    }
}

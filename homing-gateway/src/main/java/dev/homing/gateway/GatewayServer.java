package dev.homing.gateway;

import dev.homing.config.Settings;
import dev.homing.config.WorkerUrls;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.Cors;
import dev.homing.gateway.http.ExpectContinue;
import dev.homing.gateway.http.HeaderNames;
import dev.homing.gateway.http.HopLimit;
import dev.homing.gateway.http.JsonResponses;
import dev.homing.gateway.http.RequestFraming;
import dev.homing.gateway.http.RequestIds;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.kvevents.KvEventSubscribers;
import dev.homing.gateway.kvevents.KvEventsReport;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.proxy.ForwardedHeaders;
import dev.homing.gateway.proxy.InferenceProxy;
import dev.homing.gateway.proxy.InferenceRoute;
import dev.homing.gateway.security.RouteAccess;
import dev.homing.gateway.security.WorkerHostAllowList;
import dev.homing.gateway.workers.ThisGateway;
import dev.homing.gateway.workers.UnavailableWorkers;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerLifecycle;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.workers.WorkerRole;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The data-plane request handler: dispatches by method and path to the inference proxy, the synthesised and
 * proxied info routes, the fan-out admin routes and the worker API, after {@link RouteAccess} has let the request
 * through. An inference request is handed to its exchange ({@link InferenceProxy}), which owns it from admission to
 * its access-log line; every other request is recorded when its response ends. Handlers run on event loops and never
 * block.
 */
final class GatewayServer implements Handler<HttpServerRequest> {

    /**
     * The methods each fixed non-inference route accepts, for the {@code Allow} header of a 405 (the inference routes
     * accept POST; {@code /workers} answers its own 405s).
     */
    /** The KV event subscriptions for {@code GET /kv_events}; gives null when {@code --kv-events off}. */
    private final Supplier<KvEventSubscribers> kvEvents;

    private static final Map<String, String> KNOWN_ROUTES = Map.ofEntries(
            Map.entry("/health", "GET"), Map.entry("/liveness", "GET"), Map.entry("/readiness", "GET"),
            Map.entry("/health_generate", "GET"), Map.entry("/v1/models", "GET"), Map.entry("/get_model_info", "GET"),
            Map.entry("/get_server_info", "GET"), Map.entry("/engine_metrics", "GET"), Map.entry("/get_loads", "GET"),
            Map.entry("/flush_cache", "POST"), Map.entry("/kv_events", "GET"));

    /** Where {@code GET /v1/models/{model}} starts; a model id may hold slashes ({@code org/name}). */
    private static final String MODEL_PREFIX = "/v1/models/";
    /** Unavailable workers {@code /readiness} names; the rest are counted. */
    private static final int READINESS_NAMED = 10;

    private final GatewayConfig config;
    private final WorkerRegistry registry;
    private final WorkerLifecycle lifecycle;
    private final InferenceProxy inference;
    private final HttpClient client;
    private final GatewayMetrics metrics;
    private final RequestIds requestIds;
    private final Cors cors;
    /** Who may call which route; checked before anything else is read. */
    private final RouteAccess routeAccess;
    private final FanOutRoutes fanOut;
    private final WorkerApi workerApi;
    /** HTTP/1.x framing rules (Transfer-Encoding, Host); checked before anything else reads the request. */
    private final RequestFraming framing;
    /** What readiness waits for besides a healthy worker: the replica sync's warm start (always true without it). */
    private final BooleanSupplier replicaReady;
    /** While {@code homing launch} warms its proxy path up, its ports bound and no worker registered yet. */
    private volatile boolean warmingUp;

    GatewayServer(GatewayConfig config, WorkerRegistry registry, WorkerLifecycle lifecycle, InferenceProxy inference,
                  HttpClient client, GatewayMetrics metrics, Vertx vertx, RequestFraming framing,
                  WorkerHostAllowList.Resolver resolver, ThisGateway thisGateway, BooleanSupplier replicaReady,
                  Supplier<KvEventSubscribers> kvEvents) {
        this.framing = framing;
        this.kvEvents = kvEvents;
        this.replicaReady = replicaReady;
        this.config = config;
        this.registry = registry;
        this.lifecycle = lifecycle;
        this.inference = inference;
        this.client = client;
        this.metrics = metrics;
        this.requestIds = new RequestIds(config.get(Settings.REQUEST_ID_HEADERS));
        this.cors = new Cors(config.get(Settings.CORS_ALLOWED_ORIGINS));
        this.routeAccess = new RouteAccess(config.get(Settings.API_KEY), config.get(Settings.ADMIN_API_KEY),
                config.get(Settings.ALLOW_UNAUTHENTICATED_ADMIN));
        this.fanOut = new FanOutRoutes(registry, lifecycle);
        List<String> allowList = config.get(Settings.WORKER_HOST_ALLOW_LIST);
        this.workerApi = new WorkerApi(vertx, registry, lifecycle, config.prefillDecode(),
                config.get(Settings.DP_AWARE), allowList.isEmpty()
                ? WorkerHostAllowList.defaults(config.workers().stream().map(w -> WorkerUrls.engine(w.url()))
                        .toList(), resolver)
                : WorkerHostAllowList.of(allowList, resolver), thisGateway, inference.bodies());
    }

    @Override
    public void handle(HttpServerRequest req) {
        if (framing.refused(req)) {
            return;
        }
        String path = req.path();
        InferenceRoute route = InferenceRoute.of(path);
        RequestRecord record = new RequestRecord(metrics,
                requestIds.idFor(req.headers(), route == null ? "req-" : route.requestIdPrefix()),
                req.method().name(), route != null ? path : metricPath(path));
        HttpServerResponse response = req.response();
        response.putHeader(HeaderNames.REQUEST_ID, record.requestId());
        HttpMethod method = req.method();
        ApiError expectation = ExpectContinue.refusal(req);
        if (expectation != null) {
            response.endHandler(v -> complete(record, response));
            if (req.version() == HttpVersion.HTTP_2) {
                fail(req, expectation);
            } else {
                // A body sent along without waiting would be read as the next request.
                expectation.sendAndClose(req);
            }
            return;
        }
        ApiError loop = HopLimit.refusal(req.headers());
        if (loop != null) {
            response.endHandler(v -> complete(record, response));
            fail(req, loop);
            return;
        }
        RouteAccess.Verdict access = routeAccess.check(path, req.getHeader(HttpHeaderNames.AUTHORIZATION));
        if (route != null && method == HttpMethod.POST && !(access instanceof RouteAccess.Refused)) {
            // A POST is never a preflight: CORS only adds its headers. The exchange owns the rest.
            cors.apply(req);
            inference.handle(req, route, record);
            return;
        }
        response.endHandler(v -> complete(record, response));
        if (cors.apply(req)) {
            return;
        }
        if (access instanceof RouteAccess.Refused refused) {
            if (refused.status() == 401) {
                response.putHeader("www-authenticate", "Bearer");
            }
            fail(req, new ApiError(refused.status(), refused.code(), refused.message()));
            return;
        }
        if (route != null) {
            ApiError.sendMethodNotAllowed(response, path, "POST");
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
                    fanOut.engineMetrics(req);
                    return;
                }
                default -> {
                    if (path.startsWith(MODEL_PREFIX)) {
                        // Percent-decoded (an SDK may encode the slash of "org/name"); a plus stays a plus.
                        model(response, URLDecoder.decode(path.substring(MODEL_PREFIX.length())
                                .replace("+", "%2B"), StandardCharsets.UTF_8));
                        return;
                    }
                }
            }
        }
        if (path.equals("/get_loads") && method == HttpMethod.GET) {
            fanOut.loads(req);
        } else if (path.equals("/flush_cache") && method == HttpMethod.POST) {
            fanOut.flushCache(req);
        } else if (path.equals("/kv_events") && method == HttpMethod.GET) {
            response.putHeader("content-type", "application/json").end(KvEventsReport.of(kvEvents.get()));
        } else if (path.equals("/workers") || path.startsWith("/workers/")) {
            workerApi.handle(req, path);
        } else if (KNOWN_ROUTES.containsKey(path)) {
            ApiError.sendMethodNotAllowed(response, path, KNOWN_ROUTES.get(path));
        } else if (path.startsWith(MODEL_PREFIX)) {
            ApiError.sendMethodNotAllowed(response, "/v1/models/{model}", "GET");
        } else {
            fail(req, ApiError.notFound("No route for " + method.name() + " " + path));
        }
    }

    private static void complete(RequestRecord record, HttpServerResponse response) {
        record.complete(response.getStatusCode(), response.headers().get(HeaderNames.ERROR_CODE));
    }

    /** Keeps metric label cardinality bounded: unknown paths share one label. */
    private static String metricPath(String path) {
        if (path.startsWith("/workers/")) {
            return "/workers/{id}";
        }
        if (path.startsWith(MODEL_PREFIX)) {
            return "/v1/models/{model}";
        }
        return switch (path) {
            case "/health", "/liveness", "/readiness", "/health_generate", "/v1/models", "/get_model_info",
                 "/get_server_info", "/engine_metrics", "/get_loads", "/flush_cache", "/workers", "/kv_events" -> path;
            default -> "other";
        };
    }

    private static void fail(HttpServerRequest req, ApiError error) {
        error.send(req.response());
    }

    /**
     * Ready with a healthy worker (in prefill/decode mode, a healthy prefill and a healthy decode worker) and, with
     * replica sync, once this replica is in step with its siblings.
     */
    /** Holds {@code /readiness} at 503, "warming up", or lets it go. */
    void warmingUp(boolean warming) {
        warmingUp = warming;
    }

    private void readiness(HttpServerResponse response) {
        long healthy = registry.healthyCount();
        boolean staffed = config.prefillDecode()
                ? registry.healthyCount(WorkerRole.PREFILL) > 0 && registry.healthyCount(WorkerRole.DECODE) > 0
                : healthy > 0;
        boolean ready = staffed && replicaReady.getAsBoolean();
        Map<String, Object> body = new LinkedHashMap<>();
        if (ready) {
            body.put("status", "ready");
            body.put("healthy_workers", healthy);
            body.put("total_workers", registry.workers().size());
            if (config.prefillDecode()) {
                body.put("healthy_prefill_workers", registry.healthyCount(WorkerRole.PREFILL));
                body.put("healthy_decode_workers", registry.healthyCount(WorkerRole.DECODE));
            }
        } else {
            body.put("status", "not ready");
            body.put("reason", warmingUp ? "warming up the proxy path (--warmup-secs)"
                    : staffed ? "replica not in step with its siblings yet" : "insufficient healthy workers");
            if (!staffed && !warmingUp) {
                body.put("unavailable_workers", unavailable());
            }
        }
        JsonResponses.send(response, ready ? 200 : 503, body);
    }

    /** The workers that cannot take requests and why, of every role: the first few, and how many in all. */
    private Map<String, Object> unavailable() {
        List<Map<String, Object>> listed = new ArrayList<>();
        int total = 0;
        for (WorkerRole role : WorkerRole.values()) {
            UnavailableWorkers ofRole = registry.unavailable(role, null, READINESS_NAMED - listed.size());
            listed.addAll(ofRole.listed());
            total += ofRole.total();
        }
        return Map.of("total", total, "workers", listed);
    }

    private void models(HttpServerResponse response) {
        List<String> models = registry.models();
        if (models.isEmpty()) {
            new ApiError(503, "no_models", "No models available").send(response);
            return;
        }
        List<Map<String, Object>> data = new ArrayList<>();
        for (String model : models) {
            data.add(modelObject(model));
        }
        JsonResponses.send(response, 200, Map.of("object", "list", "data", data));
    }

    /** {@code GET /v1/models/{model}}: the model object of {@code /v1/models}, or 404 for one not served here. */
    private void model(HttpServerResponse response, String model) {
        if (!registry.models().contains(model)) {
            new ApiError(404, "model_not_found", "The model '" + model + "' is not served here").send(response);
            return;
        }
        JsonResponses.send(response, 200, modelObject(model));
    }

    private static Map<String, Object> modelObject(String model) {
        return Map.of("id", model, "object", "model", "owned_by", "local");
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
        // To the worker's fixed address, as every call to a worker: its name is not looked up again.
        RequestOptions options = worker.target().request(HttpMethod.GET, path)
                .setConnectTimeout(10_000).setIdleTimeout(config.get(Settings.REQUEST_TIMEOUT_SECS) * 1000)
                .putHeader(HopLimit.HEADER, HopLimit.next(req.headers()));
        if (worker.target().authorization() != null) {
            options.putHeader("authorization", worker.target().authorization());
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


}

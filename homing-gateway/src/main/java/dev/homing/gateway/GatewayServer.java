package dev.homing.gateway;

import dev.homing.config.Settings;
import dev.homing.config.WorkerUrls;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.Cors;
import dev.homing.gateway.http.EdgeStage;
import dev.homing.gateway.http.ExpectContinue;
import dev.homing.gateway.http.HeaderNames;
import dev.homing.gateway.http.HopLimit;
import dev.homing.gateway.http.JsonResponses;
import dev.homing.gateway.http.RequestFraming;
import dev.homing.gateway.http.RequestIds;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.http.Route;
import dev.homing.gateway.http.RouteMatch;
import dev.homing.gateway.http.Routes;
import dev.homing.gateway.kvevents.KvEventSubscribers;
import dev.homing.gateway.kvevents.KvEventsReport;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.proxy.ForwardedHeaders;
import dev.homing.gateway.proxy.InferenceProxy;
import dev.homing.gateway.proxy.InferenceRoute;
import dev.homing.gateway.security.RouteAccess.Kind;
import dev.homing.gateway.security.WorkerHostAllowList;
import dev.homing.gateway.workers.ThisGateway;
import dev.homing.gateway.workers.UnavailableWorkers;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerLifecycle;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.workers.WorkerRole;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
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
 * The data-plane request handler: looks the request's route up in the table ({@link #declare}: every route the
 * listener serves, declared once with its method, pattern, access and handler), runs the edge stages in order, then
 * the route's handler: the inference proxy, the synthesised and proxied info routes, the fan-out admin routes and the
 * worker API. An inference request is handed to its exchange ({@link InferenceProxy}), which owns it from admission
 * to its access-log line; every other request is recorded when its response ends. Handlers run on event loops and
 * never block.
 */
final class GatewayServer implements Handler<HttpServerRequest> {

    /** Unavailable workers {@code /readiness} names; the rest are counted. */
    private static final int READINESS_NAMED = 10;

    private final GatewayConfig config;
    private final WorkerRegistry registry;
    private final InferenceProxy inference;
    private final HttpClient client;
    private final GatewayMetrics metrics;
    private final RequestIds requestIds;
    private final FanOutRoutes fanOut;
    private final WorkerApi workerApi;
    /** HTTP/1.x framing rules (Transfer-Encoding, Host); checked before anything else reads the request. */
    private final RequestFraming framing;
    private final Routes routes;
    /** What a request passes, in this order, between its route's lookup and its handler; the first refusal answers. */
    private final List<EdgeStage> stages;
    /** What readiness waits for besides a healthy worker: the replica sync's warm start (always true without it). */
    private final BooleanSupplier replicaReady;
    /** While {@code homing launch} warms its proxy path up, its ports bound and no worker registered yet. */
    private volatile boolean warmingUp;

    /** @param extraRoutes routes served besides the gateway's own, after them in the table (none but in tests) */
    GatewayServer(GatewayConfig config, WorkerRegistry registry, WorkerLifecycle lifecycle, InferenceProxy inference,
                  HttpClient client, GatewayMetrics metrics, Vertx vertx, RequestFraming framing,
                  WorkerHostAllowList.Resolver resolver, ThisGateway thisGateway, BooleanSupplier replicaReady,
                  Supplier<KvEventSubscribers> kvEvents, List<Route> extraRoutes) {
        this.framing = framing;
        this.replicaReady = replicaReady;
        this.config = config;
        this.registry = registry;
        this.inference = inference;
        this.client = client;
        this.metrics = metrics;
        this.requestIds = new RequestIds(config.get(Settings.REQUEST_ID_HEADERS));
        this.fanOut = new FanOutRoutes(registry, lifecycle);
        List<String> allowList = config.get(Settings.WORKER_HOST_ALLOW_LIST);
        this.workerApi = new WorkerApi(vertx, registry, lifecycle, config.prefillDecode(),
                config.get(Settings.DP_AWARE), allowList.isEmpty()
                ? WorkerHostAllowList.defaults(config.workers().stream().map(w -> WorkerUrls.engine(w.url()))
                        .toList(), resolver)
                : WorkerHostAllowList.of(allowList, resolver), thisGateway, inference.bodies());
        this.routes = declare(kvEvents).with(extraRoutes);
        // CORS before access: a browser's preflight carries no credentials. The route's 405 after access: a caller
        // without the key learns nothing of a guarded route's methods.
        this.stages = List.of(ExpectContinue.STAGE, HopLimit.STAGE,
                new Cors(config.get(Settings.CORS_ALLOWED_ORIGINS)).stage(), config.routeAccess().stage(),
                Routes.STAGE);
    }

    /** The data plane's route table: each route once, with who may call it. */
    private Routes declare(Supplier<KvEventSubscribers> kvEvents) {
        List<Route> table = new ArrayList<>();
        for (InferenceRoute route : InferenceRoute.values()) {
            table.add(new Route(HttpMethod.POST, route.path(), Kind.INFERENCE, route.requestIdPrefix(),
                    (req, record, param) -> inference.handle(req, route, record)));
        }
        table.addAll(List.of(
                Route.answered(HttpMethod.GET, "/health", Kind.PUBLIC, GatewayServer::alive),
                Route.answered(HttpMethod.GET, "/liveness", Kind.PUBLIC, GatewayServer::alive),
                Route.answered(HttpMethod.GET, "/readiness", Kind.PUBLIC, (req, p) -> readiness(req.response())),
                Route.answered(HttpMethod.GET, "/health_generate", Kind.PUBLIC, (req, p) -> healthGenerate(req)),
                Route.answered(HttpMethod.GET, "/v1/models", Kind.PUBLIC, (req, p) -> models(req.response())),
                Route.answered(HttpMethod.GET, "/v1/models/{model}", Kind.PUBLIC, this::model),
                Route.answered(HttpMethod.GET, "/get_model_info", Kind.PUBLIC, this::proxyGetToHealthyWorker),
                Route.answered(HttpMethod.GET, "/get_server_info", Kind.PUBLIC, this::proxyGetToHealthyWorker),
                // It reveals every worker's address and load: admin, where the reference has it public.
                Route.answered(HttpMethod.GET, "/engine_metrics", Kind.ADMIN, (req, p) -> fanOut.engineMetrics(req)),
                Route.answered(HttpMethod.GET, "/get_loads", Kind.ADMIN, (req, p) -> fanOut.loads(req)),
                Route.answered(HttpMethod.POST, "/flush_cache", Kind.ADMIN, (req, p) -> fanOut.flushCache(req)),
                // Each worker's KV event state: where the routing view of every worker comes from.
                Route.answered(HttpMethod.GET, "/kv_events", Kind.ADMIN, (req, p) -> req.response()
                        .putHeader("content-type", "application/json").end(KvEventsReport.of(kvEvents.get()))),
                Route.answered(HttpMethod.GET, "/workers", Kind.ADMIN, workerApi::list),
                Route.answered(HttpMethod.POST, "/workers", Kind.ADMIN, workerApi::add),
                Route.answered(HttpMethod.GET, "/workers/{id}", Kind.ADMIN, workerApi::get),
                Route.answered(HttpMethod.PUT, "/workers/{id}", Kind.ADMIN, workerApi::update),
                Route.answered(HttpMethod.DELETE, "/workers/{id}", Kind.ADMIN, workerApi::remove)));
        return new Routes(table);
    }

    /** The route table, for tests that walk it. */
    Routes routes() {
        return routes;
    }

    @Override
    public void handle(HttpServerRequest req) {
        if (framing.refused(req)) {
            return;
        }
        RouteMatch match = routes.match(req.method(), req.path());
        RequestRecord record = new RequestRecord(metrics, requestIds.idFor(req.headers(), match.requestIdPrefix()),
                req.method().name(), match.metricLabel());
        HttpServerResponse response = req.response();
        response.putHeader(HeaderNames.REQUEST_ID, record.requestId());
        EdgeStage.Refusal refusal = EdgeStage.firstRefusal(stages, req, match);
        if (refusal != null) {
            record.completeWhenEnded(response);
            refusal.send(req);
            return;
        }
        match.route().handler().serve(req, record, match.param());
    }

    private static void alive(HttpServerRequest req, String unused) {
        req.response().putHeader("content-type", "text/plain").end("OK");
    }

    private void healthGenerate(HttpServerRequest req) {
        boolean any = registry.healthyCount() > 0;
        req.response().setStatusCode(any ? 200 : 503).putHeader("content-type", "text/plain")
                .end(any ? "At least one worker is healthy" : "No healthy workers");
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

    /**
     * {@code GET /v1/models/{model}}: the model object of {@code /v1/models}, or 404 for one not served here. The id
     * is percent-decoded (an SDK may encode the slash of "org/name"); a plus stays a plus.
     */
    private void model(HttpServerRequest req, String encoded) {
        HttpServerResponse response = req.response();
        String model = URLDecoder.decode(encoded.replace("+", "%2B"), StandardCharsets.UTF_8);
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
    private void proxyGetToHealthyWorker(HttpServerRequest req, String unused) {
        String path = req.path();
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

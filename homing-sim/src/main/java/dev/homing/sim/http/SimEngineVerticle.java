package dev.homing.sim.http;

import dev.homing.sim.kvevents.KvEventEndpoints;
import dev.homing.sim.kvevents.KvEventPublisher;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.EngineStats;
import dev.homing.sim.model.Progress;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The simulated engine's HTTP server: routes SGLang's and OpenAI's endpoints to its {@link InferenceBackend} (its
 * data-parallel ranks, or its prefill or decode side, whose bootstrap server a prefill engine also listens with),
 * renders answers, serves metrics, and injects the configured {@link Faults} until {@code POST /clear_faults} turns
 * them off. All its state lives on its one event loop.
 */
final class SimEngineVerticle extends VerticleBase {
    private static final Logger LOG = LoggerFactory.getLogger(SimEngineVerticle.class);
    /**
     * Bodies up to this size are parsed and tokenized on the event loop; larger ones on a worker thread, since the
     * model's clock runs on this loop too: a long prompt's tokenizing (tens of milliseconds, seconds on a starved
     * machine) would hold every other request's steps, first tokens and KV event batches.
     */
    private static final int INLINE_PARSE_BYTES = 16 * 1024;

    private final SimEngineOptions options;
    private final ObjectMapper json = JsonMapper.builder().build();
    private final ResponseRenderer renderer = new ResponseRenderer(json);
    private final RequestParser parser;
    private final PoolingAnswers pooling;
    private final TokenizeAnswers tokenize;
    private final Random faultDice;
    /** The faults in force: the configured ones until cleared. */
    private Faults faults;
    private CompletedRequestLog completedLog;
    private final ReceivedTraceContexts traceContexts = new ReceivedTraceContexts();
    private InferenceBackend backend;
    /** Each rank's KV event publisher, in rank order; empty when the engine publishes none. */
    private List<KvEventPublisher> kvEvents = List.of();
    /** Where they bound, once they have. */
    private List<KvEventEndpoints> kvEventEndpoints = List.of();
    private EngineMetrics metrics;
    private HttpServer server;
    /** A prefill engine's bootstrap server; null for the other modes. */
    private HttpServer bootstrapServer;
    private long inferenceRequests;
    /** Numbers every answer's id. */
    private long answers;
    private boolean dead;

    SimEngineVerticle(SimEngineOptions options) {
        this.options = options;
        this.parser = new RequestParser(json, options.modelName(), options.tokenizer());
        this.pooling = new PoolingAnswers(parser);
        this.tokenize = new TokenizeAnswers(parser, options.engine().contextLength());
        this.faultDice = new Random(options.faults().seed());
        this.faults = options.faults();
    }

    @Override
    public Future<?> start() {
        // The backend reports every progress to the metrics, which read the backend's stats: a cycle, closed here.
        Consumer<Progress> observer = progress -> metrics.observe(progress);
        if (options.kvEvents().enabled()) {
            kvEvents = IntStream.range(0, options.dpSize())
                .mapToObj(rank -> new KvEventPublisher(options.kvEvents(), rank, options.faults().seed())).toList();
        }
        backend = switch (options.mode()) {
            case NONE -> new RankedEngines(vertx, options.engine(), options.dpSize(), options.timeScale(), observer,
                parser.encodeText("ping"), kvEvents);
            case PREFILL -> new PrefillSide(vertx, options.engine(), options.disaggregation(), options.timeScale(),
                observer, json, renderer, kvEvents.isEmpty() ? null : kvEvents.getFirst());
            case DECODE -> new DecodeSide(vertx, options.engine(), options.disaggregation(), options.timeScale(),
                observer, json);
        };
        metrics = new EngineMetrics(options.modelName(), () -> EngineStats.sum(backend.stats()),
            backend::virtualNow);
        completedLog = CompletedRequestLog.open(options.requestIdLog());
        server = vertx.createHttpServer(new HttpServerOptions().setHost(options.host()).setPort(options.port()));
        Future<?> listening = Future.all(server.requestHandler(this::handle).listen(), kvEventsBound());
        if (backend instanceof PrefillSide prefill) {
            bootstrapServer = vertx.createHttpServer(new HttpServerOptions().setHost(options.host())
                .setPort(options.bootstrapPort()));
            Future<HttpServer> bootstrap = bootstrapServer.requestHandler(prefill::bootstrapRequest).listen();
            return Future.all(listening, bootstrap);
        }
        return listening;
    }

    /** Completes once every rank's KV event sockets are bound, keeping where; fails when one could not bind. */
    private Future<?> kvEventsBound() {
        List<CompletableFuture<KvEventEndpoints>> bound = kvEvents.stream().map(KvEventPublisher::bound).toList();
        CompletableFuture<List<KvEventEndpoints>> all = CompletableFuture.allOf(bound.toArray(CompletableFuture[]::new))
            .thenApply(ignored -> bound.stream().map(CompletableFuture::join).toList());
        return Future.fromCompletionStage(all, context).onSuccess(endpoints -> kvEventEndpoints = endpoints);
    }

    @Override
    public Future<?> stop() {
        backend.close();
        completedLog.close();
        kvEvents.forEach(KvEventPublisher::close);
        Future<?> publishersClosed = Future.fromCompletionStage(CompletableFuture.allOf(
            kvEvents.stream().map(KvEventPublisher::closed).toArray(CompletableFuture[]::new)), context);
        return bootstrapServer == null ? Future.all(server.close(), publishersClosed)
            : Future.all(server.close(), bootstrapServer.close(), publishersClosed);
    }

    /** Where each rank publishes its KV events, in rank order; empty when it publishes none. */
    List<KvEventEndpoints> kvEventEndpoints() {
        return kvEventEndpoints;
    }

    int actualPort() {
        return server.actualPort();
    }

    /** The bootstrap server's port, or -1 for an engine that is not a prefill engine. */
    int actualBootstrapPort() {
        return bootstrapServer == null ? -1 : bootstrapServer.actualPort();
    }

    ReceivedTraceContexts traceContexts() {
        return traceContexts;
    }

    private void handle(HttpServerRequest http) {
        if (dead) {
            http.connection().close();
            return;
        }
        String path = http.path();
        HttpMethod method = http.method();
        if (method == HttpMethod.POST) {
            switch (path) {
                case "/generate" -> inference(http, Api.GENERATE);
                case "/v1/chat/completions" -> inference(http, Api.CHAT);
                case "/v1/completions" -> inference(http, Api.COMPLETION);
                case "/v1/responses" -> inference(http, Api.RESPONSES);
                case "/v1/embeddings" -> withBody(http, body -> sendJson(http, 200, pooling.embeddings(body)));
                case "/v1/rerank", "/rerank" -> withBody(http, body -> sendJson(http, 200, pooling.rerank(body)));
                case "/v1/classify" -> withBody(http, body -> sendJson(http, 200, pooling.classify(body)));
                case "/tokenize", "/v1/tokenize" -> withBody(http, body -> sendJson(http, 200, tokenize.tokenize(body)));
                case "/flush_cache" -> flushCache(http);
                case "/clear_faults" -> clearFaults(http);
                case "/kv_events/drop", "/kv_events/resume", "/kv_events/restart" -> kvEventsFault(http);
                case "/kv_events/stop" -> stopKvEvents(http);
                case "/kv_events/start" -> startKvEvents(http);
                default -> notFound(http);
            }
            return;
        }
        if (method == HttpMethod.GET) {
            switch (path) {
                case "/health" -> health(http);
                case "/health_generate" -> healthGenerate(http);
                case "/v1/models" -> models(http);
                case "/get_model_info" -> modelInfo(http);
                case "/get_server_info", "/server_info" -> serverInfo(http);
                case "/get_load" -> load(http);
                case "/metrics" -> http.response().putHeader("content-type", "text/plain; version=0.0.4")
                    .end(metrics.scrape());
                case "/flush_cache" -> flushCache(http);
                default -> notFound(http);
            }
            return;
        }
        error(http, 405, "method not allowed");
    }

    private void inference(HttpServerRequest http, Api api) {
        inferenceRequests++;
        traceContexts.received(http.getHeader("x-request-id"), http.getHeader("traceparent"));
        Faults faults = this.faults;
        if (faults.dieAfterRequests() > 0 && inferenceRequests > faults.dieAfterRequests()) {
            die(http);
            return;
        }
        if (faults.failRate() > 0 && faultDice.nextDouble() < faults.failRate()) {
            http.body().onComplete(ignored -> error(http, faults.failStatus(), "injected failure"));
            return;
        }
        withBody(http, body -> {
            if (body.length() <= INLINE_PARSE_BYTES) {
                startInference(http, parser.parse(api, body), faults);
                return;
            }
            vertx.executeBlocking(() -> parser.parse(api, body), false).onComplete(parsed -> {
                if (parsed.failed()) {
                    failed(http, parsed.cause());
                } else {
                    guarded(http, () -> startInference(http, parsed.result(), faults));
                }
            });
        });
    }

    private void startInference(HttpServerRequest http, RequestParser.Parsed request, Faults faults) {
        new InferenceExchange(http, request, backend, renderer, faults, completedLog, options.engine().seed(),
            () -> ++answers, !options.mode().disaggregated()).start();
    }

    /** The engine process dies: it stops listening and drops every connection that reaches it. */
    private void die(HttpServerRequest http) {
        LOG.info("simulated engine on port {} dies after {} requests, as configured", actualPort(),
            faults.dieAfterRequests());
        dead = true;
        http.connection().close();
        server.close();
        if (bootstrapServer != null) {
            bootstrapServer.close();
        }
    }

    private void health(HttpServerRequest http) {
        afterHealthDelay(() -> http.response().end());
    }

    /**
     * Runs a one-token generation through the engine, so a busy engine answers late, as a real one does (a prefill or
     * decode engine, which cannot generate alone, answers at once).
     */
    private void healthGenerate(HttpServerRequest http) {
        afterHealthDelay(() -> backend.healthGenerate(() -> http.response().end()));
    }

    private void afterHealthDelay(Runnable answer) {
        long delay = faults.slowHealthMillis();
        if (delay > 0) {
            vertx.setTimer(delay, ignored -> answer.run());
        } else {
            answer.run();
        }
    }

    private void models(HttpServerRequest http) {
        ObjectNode body = json.createObjectNode();
        body.put("object", "list");
        ObjectNode model = body.putArray("data").addObject();
        model.put("id", options.modelName());
        model.put("object", "model");
        model.put("created", 0);
        model.put("owned_by", "sglang");
        model.put("root", options.modelName());
        model.put("max_model_len", options.engine().contextLength());
        sendJson(http, 200, body);
    }

    private void modelInfo(HttpServerRequest http) {
        ObjectNode body = json.createObjectNode();
        body.put("model_path", options.modelName());
        body.put("tokenizer_path", options.modelName());
        body.put("is_generation", true);
        body.putNull("preferred_sampling_params");
        body.put("weight_version", "default");
        sendJson(http, 200, body);
    }

    private void serverInfo(HttpServerRequest http) {
        EngineConfig engine = options.engine();
        List<EngineStats> ranks = backend.stats();
        ObjectNode body = json.createObjectNode();
        body.put("model_path", options.modelName());
        body.put("served_model_name", options.modelName());
        // SGLang names the tokenizer's files here; ours: a path, "demo" or "built-in".
        body.put("tokenizer_path", options.tokenizer().name());
        body.put("version", "homing-sim");
        body.put("max_total_num_tokens", engine.kvTokens());
        body.put("page_size", engine.pageSize());
        body.put("max_running_requests", engine.maxRunningRequests());
        body.put("chunked_prefill_size", engine.chunkedPrefillSize());
        body.put("context_length", engine.contextLength());
        body.put("disable_radix_cache", false);
        body.put("schedule_policy", "fcfs");
        body.put("dp_size", options.dpSize());
        body.put("disaggregation_mode", options.mode().flag());
        body.put("disaggregation_bootstrap_port", bootstrapServer == null ? options.bootstrapPort()
            : bootstrapServer.actualPort());
        if (backend instanceof RoomSide<?> side) {
            body.put("bootstrap_rooms", side.rooms());
        }
        if (kvEvents.isEmpty()) {
            body.putNull("kv_events_config");
        } else {
            body.put("kv_events_config", KvEventsInfo.config(json, options.kvEvents(), kvEventEndpoints));
            KvEventsInfo.stats(body.putArray("kv_events_stats"), kvEvents);
        }
        body.put("time_scale", options.timeScale());
        ArrayNode states = body.putArray("internal_states");
        for (EngineStats stats : ranks) {
            ObjectNode state = states.addObject();
            state.put("num_running_reqs", stats.runningRequests());
            state.put("num_queue_reqs", stats.waitingRequests());
            state.put("num_used_tokens", stats.usedTokens());
            state.put("cache_hit_rate", stats.cacheHitRate());
        }
        sendJson(http, 200, body);
    }

    /** SGLang's load report: one object per data-parallel rank, which the gateway sums. */
    private void load(HttpServerRequest http) {
        ArrayNode body = json.createArrayNode();
        List<EngineStats> ranks = backend.stats();
        for (int i = 0; i < ranks.size(); i++) {
            EngineStats stats = ranks.get(i);
            ObjectNode rank = body.addObject();
            rank.put("dp_rank", i);
            rank.put("num_reqs", stats.runningRequests() + stats.waitingRequests());
            rank.put("num_waiting_reqs", stats.waitingRequests());
            rank.put("num_tokens", stats.usedTokens());
        }
        sendJson(http, 200, body);
    }

    /**
     * Turns every fault off for the requests that come next, so a test can watch a gateway recover from a worker
     * that was failing without restarting it. Requests already stalled stay stalled; a dead engine stays dead.
     */
    private void clearFaults(HttpServerRequest http) {
        LOG.info("simulated engine on port {}: faults cleared", actualPort());
        faults = Faults.NONE;
        kvEvents.forEach(KvEventPublisher::clearFaults);
        http.response().putHeader("content-type", "text/plain").end("Faults cleared.\n");
    }

    /**
     * The KV event streams' fault switches, for fault tests: {@code drop} loses every batch from now on (numbered
     * and kept for replay, as if lost on the wire), {@code resume} ends that, {@code restart} is the engine's
     * restart: every rank's cache is lost without a word (a fresh engine publishes no clear), and its stream starts
     * again from sequence 0 with nothing to replay.
     */
    private void kvEventsFault(HttpServerRequest http) {
        if (!publishesKvEvents(http)) {
            return;
        }
        String action = http.path().substring("/kv_events/".length());
        if (action.equals("restart")) {
            kvEvents.forEach(publisher -> publisher.dropAll(true));
            backend.loseCaches();
        }
        for (KvEventPublisher publisher : kvEvents) {
            switch (action) {
                case "drop" -> publisher.dropAll(true);
                case "resume" -> publisher.dropAll(false);
                default -> publisher.restart();
            }
        }
        kvEventsChanged(http, action);
    }

    /** The publishers die ({@code POST /kv_events/stop}): their sockets close; answered once they have. */
    private void stopKvEvents(HttpServerRequest http) {
        if (!publishesKvEvents(http)) {
            return;
        }
        Future.fromCompletionStage(CompletableFuture.allOf(kvEvents.stream().map(KvEventPublisher::stop)
            .toArray(CompletableFuture[]::new)), context).onComplete(ignored -> kvEventsChanged(http, "stop"));
    }

    /**
     * Stopped publishers come back ({@code POST /kv_events/start}) on the ports they had, each stream from sequence
     * 0; answered once their sockets are bound.
     */
    private void startKvEvents(HttpServerRequest http) {
        if (!publishesKvEvents(http)) {
            return;
        }
        if (!kvEvents.getFirst().stopped()) {
            error(http, 409, "the KV event publishers run: POST /kv_events/stop first");
            return;
        }
        List<CompletableFuture<KvEventEndpoints>> bound = kvEvents.stream().map(KvEventPublisher::start).toList();
        Future.fromCompletionStage(CompletableFuture.allOf(bound.toArray(CompletableFuture[]::new)), context)
            .onComplete(started -> {
                if (started.failed()) {
                    LOG.error("simulated engine on port {}: KV events could not start again", actualPort(),
                        started.cause());
                    error(http, 500, "the KV event sockets could not bind again: " + started.cause().getMessage());
                } else {
                    kvEventsChanged(http, "start");
                }
            });
    }

    /** Whether this engine publishes KV events; answers a 400 when it does not. */
    private boolean publishesKvEvents(HttpServerRequest http) {
        if (kvEvents.isEmpty()) {
            error(http, 400, "this engine publishes no KV events: start it with --kv-events-config");
        }
        return !kvEvents.isEmpty();
    }

    private void kvEventsChanged(HttpServerRequest http, String action) {
        LOG.info("simulated engine on port {}: KV events {}", actualPort(), action);
        http.response().putHeader("content-type", "text/plain").end("KV events: " + action + ".\n");
    }

    private void flushCache(HttpServerRequest http) {
        if (backend.flushCache()) {
            http.response().putHeader("content-type", "text/plain").end("Cache flushed.\n");
        } else {
            error(http, 400, "cannot flush the cache while requests are running or waiting");
        }
    }

    /** Reads the body, then runs {@code handler}; bad input becomes a 400, anything else a 500, never a crash. */
    private void withBody(HttpServerRequest http, BodyHandler handler) {
        http.body().onComplete(read -> {
            if (read.failed()) {
                return;
            }
            guarded(http, () -> handler.handle(http, read.result()));
        });
    }

    /** Runs {@code step}; bad input becomes a 400, anything else a 500, never a crash. */
    private void guarded(HttpServerRequest http, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            failed(http, e);
        }
    }

    private void failed(HttpServerRequest http, Throwable cause) {
        if (cause instanceof BadRequest bad) {
            error(http, 400, bad.getMessage());
        } else {
            LOG.error("simulated engine failed on {}", http.path(), cause);
            error(http, 500, "internal error: " + cause.getClass().getSimpleName());
        }
    }

    private void withBody(HttpServerRequest http, Consumer<Buffer> handler) {
        withBody(http, (ignored, body) -> handler.accept(body));
    }

    /** Handles a request once its body is read. */
    @FunctionalInterface
    private interface BodyHandler {
        void handle(HttpServerRequest http, Buffer body);
    }

    private void notFound(HttpServerRequest http) {
        error(http, 404, "no such endpoint: " + http.method() + " " + http.path());
    }

    private void error(HttpServerRequest http, int status, String message) {
        if (http.response().ended() || http.response().closed()) {
            return;
        }
        http.response().setStatusCode(status).putHeader("content-type", "application/json")
            .end(renderer.error(status, message));
    }

    private void sendJson(HttpServerRequest http, int status, JsonNode body) {
        http.response().setStatusCode(status).putHeader("content-type", "application/json")
            .end(Buffer.buffer(json.writeValueAsBytes(body)));
    }
}

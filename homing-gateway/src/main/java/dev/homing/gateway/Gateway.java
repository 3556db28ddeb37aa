package dev.homing.gateway;

import dev.homing.config.Settings;
import dev.homing.config.TokenizerFiles;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.discovery.DiscoverySettings;
import dev.homing.gateway.discovery.PodDiscovery;
import dev.homing.gateway.kvevents.ExactRouting;
import dev.homing.gateway.kvevents.KvEventSources;
import dev.homing.gateway.kvevents.KvEventSubscribers;
import dev.homing.gateway.kvevents.KvEventsMode;
import dev.homing.gateway.http.BodyMemory;
import dev.homing.gateway.http.BodyReader;
import dev.homing.gateway.http.ClientDeadlines;
import dev.homing.gateway.http.ClientDeadlinesTransport;
import dev.homing.gateway.http.EdgeRefusals;
import dev.homing.gateway.http.InvalidRequests;
import dev.homing.gateway.http.IoTransports;
import dev.homing.gateway.http.RequestFraming;
import dev.homing.gateway.http.Route;
import dev.homing.gateway.http.Routes;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.metrics.MetricsServer;
import dev.homing.gateway.proxy.InferenceAdmission;
import dev.homing.gateway.proxy.InferenceProxy;
import dev.homing.gateway.proxy.RequestTimeouts;
import dev.homing.gateway.replica.ReplicaSync;
import dev.homing.gateway.replica.ReplicaSyncSettings;
import dev.homing.gateway.resilience.CircuitBreakers;
import dev.homing.gateway.security.WorkerHostAllowList;
import dev.homing.gateway.status.FleetStatus;
import dev.homing.gateway.tracing.Tracing;
import dev.homing.gateway.workers.ThisGateway;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerLifecycle;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.workers.WorkerRole;
import dev.homing.gateway.workers.WorkerSpec;
import dev.homing.tokenizer.PromptTokenizer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.PemKeyCertOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;

/**
 * A running gateway: the data-plane server, the metrics server, the worker registry and its control plane, on a
 * Vert.x instance of its own. Start one with {@link #start(GatewayConfig)}; {@link #close()} shuts it down
 * gracefully (stops accepting, lets streams drain up to the grace period, then closes). Thread-safe.
 */
public final class Gateway implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);
    /** Idle keep-alive connections to workers are closed after this (the reference uses 50 s). */
    private static final int POOL_IDLE_TIMEOUT_SECS = 50;
    /**
     * Connections per worker. HTTP/1.1 carries one request a connection, so this caps a worker's concurrent requests
     * through the gateway; a request beyond it waits for a connection and fails after the connect timeout. The
     * reference caps only idle connections (500 a host), not open ones; 16,384 keeps thousands of streams per worker
     * flowing (the engine queues what it cannot run) while bounding file descriptors.
     */
    private static final int POOL_MAX_PER_WORKER = 16_384;
    /**
     * Connections per worker for the control plane's calls (probes, health checks, load polls, fan-out admin
     * routes): a few at once is all they need. Vert.x sizes each worker's pool array by its maximum, so a pool the
     * size of the data plane's cost every pending worker whose connect hangs 64 KiB or more.
     */
    private static final int CONTROL_POOL_PER_WORKER = 4;
    /**
     * TCP connect timeout to workers: one that does not accept within this is treated as failing (reference: 10 s).
     * Set on the client, not per request, where Vert.x would count the wait for a pooled connection as well.
     */
    private static final int WORKER_CONNECT_TIMEOUT_MS = 10_000;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    /**
     * Streams one HTTP/2 connection may have open at once (Vert.x's default, and about nginx's 128): each is a
     * request with its own admission permit, so a bound per connection keeps one client from opening thousands.
     */
    private static final int HTTP2_MAX_STREAMS = 100;
    /** As many servers as cores: each runs on its own event loop, so client I/O uses every core. */
    private static final int SERVER_INSTANCES = Math.max(1, Runtime.getRuntime().availableProcessors());

    private final GatewayConfig config;
    private final Vertx vertx;
    /**
     * The workers' client, closed before {@link #vertx}: Vert.x hands each client to a JDK {@code Cleaner} that
     * holds it, and through it its Vert.x with the timers of every request in flight, until the client is closed or
     * unreachable. Closing Vert.x alone left it reachable forever (the cleaner's action leads back to it through those
     * requests): the warm-up's throwaway gateway stayed in the heap, 18 MB of it, for the life of the process.
     */
    private final HttpClient client;
    /** The control plane's client (probes, health checks, load polls), closed with {@link #client}. */
    private final HttpClient controlClient;
    private final WorkerRegistry registry;
    private final WorkerLifecycle lifecycle;
    private final GatewayMetrics metrics;
    private final CircuitBreakers breakers;
    /** One server per event loop, sharing the port: Vert.x spreads accepted connections over them. */
    private final List<HttpServer> servers;
    private final MetricsServer metricsServer;
    /** Kubernetes discovery, or null when off. */
    private final PodDiscovery discovery;
    /** The link to the sibling replicas, or null when off. */
    private final ReplicaSync replicas;
    private final Tracing tracing;
    /** The engines' KV event subscriptions, or null when {@code --kv-events off}. */
    private final KvEventSubscribers kvEvents;
    private volatile boolean closed;
    /** The data plane's route table. */
    private final Routes routes;

    private Gateway(GatewayConfig config, Vertx vertx, HttpClient client, HttpClient controlClient,
                    WorkerRegistry registry, WorkerLifecycle lifecycle, GatewayMetrics metrics,
                    CircuitBreakers breakers,
                    List<HttpServer> servers, MetricsServer metricsServer, PodDiscovery discovery, Tracing tracing,
                    ReplicaSync replicas, KvEventSubscribers kvEvents, Routes routes) {
        this.routes = routes;
        this.breakers = breakers;
        this.config = config;
        this.vertx = vertx;
        this.registry = registry;
        this.lifecycle = lifecycle;
        this.metrics = metrics;
        this.servers = servers;
        this.metricsServer = metricsServer;
        this.discovery = discovery;
        this.tracing = tracing;
        this.replicas = replicas;
        this.kvEvents = kvEvents;
        this.client = client;
        this.controlClient = controlClient;
    }

    /**
     * Starts listening, and registers {@code --worker-urls} in the background (so {@code /readiness} answers 503
     * until a worker is up, as with the reference).
     *
     * @throws IllegalStateException if a port cannot be bound
     */
    public static Gateway start(GatewayConfig config) {
        return start(config, port -> { });
    }

    /**
     * As {@link #start(GatewayConfig)}, running {@code whileBound} on this thread, given the data-plane port, once both
     * ports are bound and before any worker registers (so a port in use fails the start before it), with
     * {@code /readiness} answering 503 meanwhile: {@code homing launch}'s proxy warm-up.
     */
    public static Gateway start(GatewayConfig config, IntConsumer whileBound) {
        return start(config, DiscoverySettings.of(config.values()), InetAddress::getAllByName, Tracing.of(config),
                whileBound);
    }

    /**
     * As {@link #start(GatewayConfig)}, also discovering workers from Kubernetes pods when {@code discovery} is
     * given and enabled (in the background: an unreachable API server does not stop the start).
     */
    public static Gateway start(GatewayConfig config, DiscoverySettings discovery) {
        return start(config, discovery, InetAddress::getAllByName);
    }

    /**
     * As {@link #start(GatewayConfig, DiscoverySettings)}, looking worker host names up with {@code resolver} (DNS in
     * production, a table a test controls): once for each worker, when it registers, and for the allow list of
     * {@code POST /workers}.
     */
    public static Gateway start(GatewayConfig config, DiscoverySettings discovery,
                                WorkerHostAllowList.Resolver resolver) {
        return start(config, discovery, resolver, Tracing.of(config));
    }

    /**
     * As {@link #start(GatewayConfig, DiscoverySettings, WorkerHostAllowList.Resolver)}, with the requests' spans
     * going to {@code tracing} (in place of what {@code --enable-trace} asks for), which the gateway closes with
     * itself.
     */
    public static Gateway start(GatewayConfig config, DiscoverySettings discovery,
                                WorkerHostAllowList.Resolver resolver, Tracing tracing) {
        return start(config, discovery, resolver, tracing, port -> { });
    }

    /**
     * As {@link #start(GatewayConfig)}, serving {@code extraRoutes} besides the gateway's own, through the same edge
     * stages: how a test adds a route in one place.
     */
    static Gateway start(GatewayConfig config, List<Route> extraRoutes) {
        return start(config, DiscoverySettings.of(config.values()), InetAddress::getAllByName, Tracing.of(config),
                port -> { }, extraRoutes);
    }

    private static Gateway start(GatewayConfig config, DiscoverySettings discovery,
                                 WorkerHostAllowList.Resolver resolver, Tracing tracing, IntConsumer whileBound) {
        return start(config, discovery, resolver, tracing, whileBound, List.of());
    }

    private static Gateway start(GatewayConfig config, DiscoverySettings discovery,
                                 WorkerHostAllowList.Resolver resolver, Tracing tracing, IntConsumer whileBound,
                                 List<Route> extraRoutes) {
        WorkerRegistry registry = new WorkerRegistry(config.policyNames(), config.policyConfig(0),
                config.get(Settings.MAX_WORKERS));
        ThisGateway thisGateway = ThisGateway.listeningOn(config.get(Settings.HOST), config.get(Settings.PORT));
        EdgeRefusals refusals = new EdgeRefusals();
        ReplicaSyncSettings replicaSettings = ReplicaSyncSettings.of(config.values(), System.getenv());
        int busyPollMicros = config.get(Settings.BUSY_POLL_US);
        ClientDeadlinesTransport transport = new ClientDeadlinesTransport(
                IoTransports.named(config.get(Settings.IO_TRANSPORT)), ClientDeadlines.Settings.ofSeconds(
                        config.get(Settings.CLIENT_HEADER_TIMEOUT_SECS),
                        config.get(Settings.CLIENT_BODY_TIMEOUT_SECS),
                        config.get(Settings.CLIENT_KEEPALIVE_TIMEOUT_SECS)), refusals, busyPollMicros);
        Vertx vertx = Vertx.builder().with(new VertxOptions().setPreferNativeTransport(false))
                .withTransport(transport).build();
        HttpClient client = vertx.createHttpClient(
                new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true)
                        .setConnectTimeout(WORKER_CONNECT_TIMEOUT_MS)
                        .setKeepAliveTimeout(POOL_IDLE_TIMEOUT_SECS).setIdleTimeoutUnit(TimeUnit.SECONDS),
                new PoolOptions().setHttp1MaxSize(POOL_MAX_PER_WORKER));
        HttpClient controlClient = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true)
                .setTcpNoDelay(true).setKeepAliveTimeout(POOL_IDLE_TIMEOUT_SECS).setIdleTimeoutUnit(TimeUnit.SECONDS),
                new PoolOptions().setHttp1MaxSize(CONTROL_POOL_PER_WORKER));
        // Closed here if the start fails after they began: their thread would outlive the gateway.
        KvEventSubscribers[] startedKvEvents = new KvEventSubscribers[1];
        try {
            GatewayMetrics metrics = new GatewayMetrics(registry, config.get(Settings.PROMETHEUS_DURATION_BUCKETS),
                    config.get(Settings.BACKEND), config.prefillDecode());
            metrics.watchEdge(refusals);
            // Before any worker registers, so that every model pool is kept in step from its first decision.
            ReplicaSync replicas = replicaSettings.enabled()
                    ? ReplicaSync.start(replicaSettings, registry, metrics.registry()) : null;
            WorkerLifecycle lifecycle = new WorkerLifecycle(vertx, controlClient, registry, metrics,
                    new WorkerLifecycle.Settings(config.get(Settings.WORKER_STARTUP_TIMEOUT_SECS),
                            config.get(Settings.WORKER_STARTUP_CHECK_INTERVAL),
                            !config.get(Settings.DISABLE_HEALTH_CHECK), config.get(Settings.HEALTH_CHECK_ENDPOINT),
                            config.get(Settings.HEALTH_CHECK_TIMEOUT_SECS),
                            config.get(Settings.HEALTH_CHECK_INTERVAL_SECS),
                            config.get(Settings.HEALTH_FAILURE_THRESHOLD),
                            config.get(Settings.HEALTH_SUCCESS_THRESHOLD),
                            config.policyNames().containsValue("power_of_two"),
                            config.get(Settings.EVICTION_INTERVAL)), resolver, thisGateway);
            CircuitBreakers breakers = new CircuitBreakers(config.circuitBreakerSettings(), System::nanoTime,
                    (id, from, to) -> {
                        Worker worker = registry.find(id);
                        String name = worker == null ? id : worker.url();
                        metrics.breakerTransition(name, from, to);
                        LOG.warn("worker {}: circuit {} -> {}", name, from.label(), to.label());
                    });
            KvEventSubscribers kvEvents = kvEvents(config, metrics);
            startedKvEvents[0] = kvEvents;
            if (kvEvents != null) {
                KvEventSources sources = new KvEventSources(new KvEventsMode(config.get(Settings.KV_EVENTS)),
                        kvEvents, lifecycle::get);
                registry.onActivated(sources::workerActive);
            }
            registry.onRemoved(worker -> {
                breakers.remove(worker.id());
                if (kvEvents != null) {
                    kvEvents.unsubscribe(worker.url());
                }
                if (replicas != null) {
                    replicas.workerRemoved(worker);
                }
            });
            metrics.watchBreakers(breakers, registry);
            InferenceAdmission admission = new InferenceAdmission(vertx, config.admissionSettings(), metrics);
            BodyMemory bodyMemory = new BodyMemory(config.bodyMemoryBytes());
            metrics.watchBodyMemory(bodyMemory);
            BodyReader bodies = new BodyReader(vertx, bodyMemory,
                    Duration.ofSeconds(config.get(Settings.CLIENT_BODY_TIMEOUT_SECS)));
            InferenceProxy inference = new InferenceProxy(vertx, client, metrics, registry, breakers, admission,
                    bodies, config.get(Settings.MAX_PAYLOAD_SIZE),
                    new RequestTimeouts(vertx, Duration.ofSeconds(config.get(Settings.REQUEST_TIMEOUT_SECS))),
                    config.retryPolicy(), !config.get(Settings.DISABLE_HEALTH_CHECK), config.prefillDecode(),
                    config.get(Settings.DP_AWARE), tracing, exactRouting(config, kvEvents, client, vertx));
            GatewayServer handler = new GatewayServer(config, registry, lifecycle, inference, client, metrics, vertx,
                    new RequestFraming(refusals), resolver, thisGateway,
                    replicas == null ? () -> true : replicas::readyToServe, () -> kvEvents, extraRoutes);
            // Vert.x shares a port among servers listening on the same one; a negative port is a random port
            // shared by every server given that same number, so port 0 means -1 here.
            int listenPort = config.get(Settings.PORT) == 0 ? -1 : config.get(Settings.PORT);
            List<HttpServer> servers = new ArrayList<>();
            for (int i = 0; i < SERVER_INSTANCES; i++) {
                HttpServer server = newServer(vertx, config, handler, metrics, refusals);
                await(server.listen(listenPort, config.get(Settings.HOST)),
                        "the data-plane listener (--host/--port)", config.get(Settings.HOST), config.get(Settings.PORT));
                servers.add(server);
            }
            HttpServer first = servers.getFirst();
            thisGateway.bound(first.actualPort());
            FleetStatus status = config.get(Settings.PROMETHEUS_PORT) < 0 ? null
                    : FleetStatus.start(vertx, registry, breakers, kvEvents, replicas, metrics.registry());
            MetricsServer metricsServer = status == null ? null
                    : await(MetricsServer.start(vertx, metrics.registry(), List.of(status.route()),
                            config.routeAccess(),
                            config.get(Settings.PROMETHEUS_HOST),
                            config.get(Settings.PROMETHEUS_PORT), clientDeadlines(new HttpServerOptions(), config)),
                            "the metrics listener (--prometheus-host/--prometheus-port)",
                            config.get(Settings.PROMETHEUS_HOST), config.get(Settings.PROMETHEUS_PORT));
            handler.warmingUp(true);
            whileBound.accept(first.actualPort());
            handler.warmingUp(false);
            for (WorkerSpec worker : config.workers()) {
                lifecycle.register(worker);
            }
            lifecycle.start();
            PodDiscovery pods = discovery == null || !discovery.enabled() ? null
                    : PodDiscovery.start(discovery, vertx, lifecycle, registry, metrics.registry(),
                            config.get(Settings.API_KEY));
            if (status != null && pods != null) {
                status.discovery(pods);
            }
            Gateway gateway = new Gateway(config, vertx, client, controlClient, registry, lifecycle, metrics,
                    breakers, servers, metricsServer, pods, tracing, replicas, kvEvents, handler.routes());
            LOG.info("Homing gateway listening on {}://{}:{} ({}, {} sockets{}, metrics port {}), {} worker(s) "
                            + "registering", config.tls() ? "https" : "http", config.get(Settings.HOST),
                    first.actualPort(),
                    config.prefillDecode() ? "prefill/decode, policies " + config.policyNames().get(WorkerRole.PREFILL)
                            + " / " + config.policyNames().get(WorkerRole.DECODE)
                            : "policy " + config.get(Settings.POLICY),
                    transport.baseName(), busyPollMicros > 0 ? " busy-polling " + busyPollMicros + " us after I/O" : "",
                    metricsServer == null ? "off" : metricsServer.port(),
                    config.workers().size());
            return gateway;
        } catch (RuntimeException e) {
            if (startedKvEvents[0] != null) {
                startedKvEvents[0].close();
            }
            client.close();
            controlClient.close();
            vertx.close();
            tracing.close();
            throw e;
        }
    }

    private static HttpServer newServer(Vertx vertx, GatewayConfig config, GatewayServer handler,
                                        GatewayMetrics metrics, EdgeRefusals refusals) {
        // Vert.x's default head limits (4096-byte request line, 8192-byte head) stay; InvalidRequests answers them.
        // HTTP/2 keeps its default windows (64 KiB a stream and a connection): little unread upload per connection.
        // Strict thread mode: an HTTP/1.x connection's writes go straight to its channel, not through a queue for
        // writers on other threads, whose first chunk alone is 4 KiB a connection (40 MB at 10,000). It asks that
        // every answer be written on the connection's event loop, which the gateway does: whatever completes
        // elsewhere (an admission permit, a released hold, a connection from another loop, a timeout) hops back to
        // the request's context first.
        // The gateway serves no WebSockets: without their compression extensions Vert.x leaves their handler out of
        // every connection's pipeline, where it looked at each request's headers and each write on the way.
        HttpServerOptions options = new HttpServerOptions().setTcpNoDelay(true).setDecompressionSupported(false)
                .setPerFrameWebSocketCompressionSupported(false).setPerMessageWebSocketCompressionSupported(false)
                .setStrictThreadMode(true)
                .setHttp2ClearTextEnabled(!config.get(Settings.DISABLE_H2C))
                .setInitialSettings(new Http2Settings().setMaxConcurrentStreams(HTTP2_MAX_STREAMS));
        clientDeadlines(options, config);
        if (config.tls()) {
            options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
                    .setCertPath(config.get(Settings.TLS_CERT_PATH)).setKeyPath(config.get(Settings.TLS_KEY_PATH)));
        }
        HttpServer server = vertx.createHttpServer(options);
        server.connectionHandler(conn -> {
            metrics.connectionOpened();
            conn.closeHandler(v -> metrics.connectionClosed());
        });
        server.requestHandler(handler);
        server.invalidRequestHandler(new InvalidRequests(refusals));
        return server;
    }

    /**
     * Gives a listener's connections the client deadlines: the idle handler that comes with an idle timeout is where
     * the transport puts {@link ClientDeadlines} in the pipeline, and ClientDeadlines decides what idle is.
     */
    private static HttpServerOptions clientDeadlines(HttpServerOptions options, GatewayConfig config) {
        return options.setIdleTimeoutUnit(TimeUnit.SECONDS)
                .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, config.get(Settings.CLIENT_KEEPALIVE_TIMEOUT_SECS)));
    }

    /** {@link #await}s a listener's start; a port that cannot be bound is named with its listener. */
    private static <T> T await(Future<T> listening, String listener, String host, int port) {
        try {
            return await(listening);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("cannot listen on " + host + ":" + port + " for " + listener + ": "
                    + e.getMessage(), e.getCause());
        }
    }

    private static <T> T await(Future<T> future) {
        try {
            return future.toCompletionStage().toCompletableFuture()
                    .get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out while starting", e);
        }
    }

    /** Registers a worker in the background; the returned registration completes when it takes traffic. */
    public WorkerLifecycle.Registration addWorker(WorkerSpec spec) {
        return lifecycle.register(spec);
    }

    /** Drains a worker (no new traffic; removed once its requests are done or {@code grace} is over). */
    public Future<Void> drainWorker(Worker worker, Duration grace) {
        return lifecycle.drain(worker, grace);
    }

    /** The data plane's route table, for tests that walk it. */
    Routes routes() {
        return routes;
    }

    public int port() {
        return servers.getFirst().actualPort();
    }

    /** The metrics port, or -1 when metrics are off. */
    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.port();
    }

    public GatewayConfig config() {
        return config;
    }

    public WorkerRegistry registry() {
        return registry;
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    /** The engines' KV event subscriptions and each model's exact view, or null when {@code --kv-events off}. */
    public KvEventSubscribers kvEvents() {
        return kvEvents;
    }

    /**
     * The exact view's lookups, tokenizing with the tokenizer the settings name ({@code --tokenizer-path} or
     * {@code --model-path}, with {@code --chat-template}) where given, else through the engines' {@code /tokenize};
     * null when {@code --kv-events off}.
     */
    private static ExactRouting exactRouting(GatewayConfig config, KvEventSubscribers kvEvents, HttpClient client,
                                             Vertx vertx) {
        if (kvEvents == null) {
            return null;
        }
        PromptTokenizer tokenizer = TokenizerFiles.open(config.values());
        LOG.info("exact view: prompts tokenized {}", tokenizer == null ? "by the engines' /tokenize (one round trip "
                + "a request; --tokenizer-path or --model-path saves it)" : "here, by " + tokenizer.name());
        return new ExactRouting(kvEvents, tokenizer, client, vertx);
    }

    private static KvEventSubscribers kvEvents(GatewayConfig config, GatewayMetrics metrics) {
        if (new KvEventsMode(config.get(Settings.KV_EVENTS)).off()) {
            return null;
        }
        return new KvEventSubscribers(config.get(Settings.KV_BLOCK_TOKENS), config.get(Settings.KV_INDEX_MAX_BLOCKS),
                Duration.ofMillis(config.get(Settings.KV_EVENTS_SILENCE_MS)), KvEventSubscribers.REPLAY_TIMEOUT,
                metrics.registry());
    }

    /** The link to the sibling replicas, or null when {@code --replica-sync} is off. */
    public ReplicaSync replicas() {
        return replicas;
    }

    /** Every worker's circuit breaker, by worker id. */
    public CircuitBreakers breakers() {
        return breakers;
    }

    /** Graceful shutdown with the configured grace period. */
    @Override
    public void close() {
        close(Duration.ofSeconds(config.get(Settings.SHUTDOWN_GRACE_PERIOD_SECS)));
    }

    /** Stops accepting, lets requests in flight finish for up to {@code grace}, then closes everything. */
    public synchronized void close(Duration grace) {
        if (closed) {
            return;
        }
        closed = true;
        if (discovery != null) {
            discovery.close();
        }
        lifecycle.stop();
        try {
            List<Future<Void>> shutdowns = servers.stream()
                    .map(s -> s.shutdown(grace.toMillis(), TimeUnit.MILLISECONDS)).toList();
            Future.join(shutdowns).toCompletionStage().toCompletableFuture()
                    .get(grace.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("shutdown did not finish cleanly: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (replicas != null) {
            replicas.close();
        }
        if (kvEvents != null) {
            kvEvents.close();
        }
        client.close();
        controlClient.close();
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Vert.x did not close cleanly: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Last: the spans of the requests that finished during the grace are queued by now.
        tracing.close();
    }
}

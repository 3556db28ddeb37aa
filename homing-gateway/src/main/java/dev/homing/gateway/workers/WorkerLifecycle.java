package dev.homing.gateway.workers;

import dev.homing.gateway.http.HopLimit;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.security.WorkerHostAllowList;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

/**
 * The control plane around the registry: registers workers in the background (learns the model from
 * {@code /get_model_info}, falling back to {@code /v1/models}, retrying until the start-up timeout), drains workers
 * that go away, probes health on a period with failure/success thresholds, polls {@code /get_load} when the policy
 * reads it, and runs the policies' housekeeping. Timers run on a Vert.x event loop; registry writes are the
 * registry's own business.
 *
 * <p>Addresses: a worker registered with the address its host was checked at keeps it; one whose URL names a host
 * (a {@code --worker-urls} entry) has it resolved once, off the event loop, before its first probe, and keeps that
 * address (a failed lookup is retried like a failed probe). Every probe, health check and load poll, like every
 * request, goes to the worker's target, so nothing reaches a worker at an address other than the one fixed then.
 * A worker whose address is the gateway's own listener ({@link ThisGateway}) is not registered: its registration
 * fails at once, with an error in the log.
 */
public final class WorkerLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerLifecycle.class);
    private static final JsonMapper JSON = JsonMapper.shared();
    /** First wait between registration probes; doubles up to the check interval. */
    private static final long FIRST_RETRY_MS = 200;
    /** How often a draining worker's requests in flight are looked at: a count read, so often costs nothing. */
    private static final long DRAIN_CHECK_MS = 100;

    /** Settings of the control plane, taken from the gateway configuration. */
    public record Settings(long startupTimeoutSecs, long startupCheckIntervalSecs, boolean healthChecks,
                           String healthEndpoint, long healthTimeoutSecs, long healthIntervalSecs,
                           int failureThreshold, int successThreshold, boolean pollLoads, long evictionIntervalSecs) {
    }

    private final Vertx vertx;
    private final HttpClient client;
    private final WorkerRegistry registry;
    private final GatewayMetrics metrics;
    private final Settings settings;
    private final WorkerHostAllowList.Resolver resolver;
    private final ThisGateway thisGateway;
    private long healthTimer = -1;
    private long loadTimer = -1;
    private long maintainTimer = -1;
    /** Set by {@link #stop}: a registration still retrying gives up rather than probe through a closed client. */
    private volatile boolean stopped;

    /**
     * @param resolver    turns a worker's host name into addresses, once per worker (DNS in production)
     * @param thisGateway the gateway's own listener, which no worker may be
     */
    public WorkerLifecycle(Vertx vertx, HttpClient client, WorkerRegistry registry, GatewayMetrics metrics,
                           Settings settings, WorkerHostAllowList.Resolver resolver, ThisGateway thisGateway) {
        this.resolver = resolver;
        this.thisGateway = thisGateway;
        this.vertx = vertx;
        this.client = client;
        this.registry = registry;
        this.metrics = metrics;
        this.settings = settings;
    }

    public void start() {
        if (settings.healthChecks()) {
            healthTimer = vertx.setPeriodic(TimeUnit.SECONDS.toMillis(settings.healthIntervalSecs()),
                    id -> checkHealth());
        }
        if (settings.pollLoads()) {
            loadTimer = vertx.setPeriodic(0, TimeUnit.SECONDS.toMillis(settings.startupCheckIntervalSecs()),
                    id -> pollLoads());
        }
        maintainTimer = vertx.setPeriodic(TimeUnit.SECONDS.toMillis(settings.evictionIntervalSecs()),
                id -> vertx.executeBlocking(() -> {
                    registry.maintain();
                    return null;
                }, false));
    }

    public void stop() {
        stopped = true;
        for (long timer : new long[] {healthTimer, loadTimer, maintainTimer}) {
            if (timer >= 0) {
                vertx.cancelTimer(timer);
            }
        }
    }

    /**
     * Registers a worker and activates it in the background once its model is known.
     *
     * @return the pending worker; the future completes when it takes traffic, or fails when registration gave up
     * @throws IllegalArgumentException if the URL is already registered
     */
    public Registration register(WorkerSpec spec) {
        return register(spec, null);
    }

    /**
     * As {@link #register(WorkerSpec)}, for a worker whose host was checked at {@code address}: its connections go
     * there, and its host is not looked up again.
     */
    public Registration register(WorkerSpec spec, InetAddress address) {
        Worker worker = registry.register(spec, address);
        Promise<Worker> activated = Promise.promise();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(settings.startupTimeoutSecs());
        vertx.runOnContext(v -> attempt(worker, spec, deadline, FIRST_RETRY_MS, activated));
        return new Registration(worker, activated.future());
    }

    /** A worker being registered and the moment it takes traffic. */
    public record Registration(Worker worker, Future<Worker> activated) {
    }

    /**
     * Drains a worker: it takes no new traffic from now on, and is removed once its requests in flight are done, or
     * when {@code grace} is over with some still running (they are not cut; the worker's own shutdown ends them).
     * The future completes when the drain is over: the worker removed, or resumed meanwhile
     * ({@link WorkerRegistry#resume}); its state tells which.
     */
    public Future<Void> drain(Worker worker, Duration grace) {
        if (!registry.drain(worker)) {
            return Future.succeededFuture();
        }
        Promise<Void> over = Promise.promise();
        long deadline = System.nanoTime() + grace.toNanos();
        vertx.setPeriodic(DRAIN_CHECK_MS, timer -> {
            boolean graceOver = System.nanoTime() - deadline >= 0;
            if (worker.state() != Worker.State.DRAINING || worker.inFlight() == 0 || graceOver) {
                vertx.cancelTimer(timer);
                int left = worker.inFlight();
                if (registry.removeDrained(worker) && left > 0) {
                    LOG.warn("worker {} removed at the end of its {} ms drain with {} request(s) still in flight",
                            worker.url(), grace.toMillis(), left);
                }
                over.tryComplete();
            }
        });
        return over.future();
    }

    private void attempt(Worker worker, WorkerSpec spec, long deadline, long delayMs, Promise<Worker> activated) {
        if (worker.state() != Worker.State.PENDING || stopped) {
            activated.tryFail("worker " + worker.url() + (stopped ? " not registered: the gateway is stopping"
                    : " was removed before it became active"));
            return;
        }
        addressed(worker).compose(v -> discoverModel(worker)).compose(model -> bootstrapPortKnown(worker)
                .map(model)).onComplete(ar -> {
            if (ar.succeeded()) {
                String model = spec.modelId() != null ? spec.modelId() : ar.result();
                registry.activate(worker, model);
                String failedBefore = worker.reached();
                LOG.info("worker {} active ({}), model {}{}", worker.url(), worker.role().label(), model,
                        failedBefore == null ? "" : "; reachable now after: " + failedBefore);
                reportCapacity(worker, model);
                activated.tryComplete(worker);
            } else if (ar.cause() instanceof OwnAddressException) {
                LOG.error("worker {} not registered: {}", worker.url(), ar.cause().getMessage());
                registry.remove(worker.id());
                activated.tryFail(ar.cause());
            } else if (System.nanoTime() > deadline) {
                LOG.error("worker {} did not answer within {} s; giving up: {}", worker.url(),
                        settings.startupTimeoutSecs(), reason(ar.cause()));
                registry.remove(worker.id());
                activated.tryFail(ar.cause());
            } else {
                String reason = reason(ar.cause());
                if (worker.failed(reason)) {
                    LOG.warn("worker {} not reachable yet ({}); probing it again until {} s after its registration",
                            worker.url(), reason, settings.startupTimeoutSecs());
                } else {
                    LOG.debug("worker {} still not reachable: {}", worker.url(), reason);
                }
                long next = Math.min(delayMs * 2, TimeUnit.SECONDS.toMillis(settings.startupCheckIntervalSecs()));
                vertx.setTimer(delayMs, id -> attempt(worker, spec, deadline, next, activated));
            }
        });
    }

    /**
     * Fixes the worker's address if its URL names a host: resolved once, off the event loop, and kept. Fails for
     * good ({@link OwnAddressException}) when that address is this gateway's own listener.
     */
    private Future<Void> addressed(Worker worker) {
        UpstreamTarget target = worker.target();
        boolean named = target.needsAddress();
        return vertx.executeBlocking(() -> {
            InetAddress[] addresses = named ? resolver.resolve(target.host())
                    : new InetAddress[] {InetAddress.getByName(target.server().host())};
            if (addresses == null || addresses.length == 0) {
                throw new IllegalStateException("no address for " + target.host());
            }
            String own = thisGateway.problem(worker.url(), addresses[0], target.port());
            if (own != null) {
                throw new OwnAddressException(own);
            }
            return addresses[0];
        }, false).map(address -> {
            if (named) {
                worker.pin(address);
            }
            return null;
        });
    }

    /** The worker's address is the gateway's own: registering it would have the gateway proxy to itself. */
    private static final class OwnAddressException extends IllegalStateException {
        OwnAddressException(String message) {
            super(message);
        }
    }

    /** The worker's model: {@code model_path} of {@code /get_model_info}, else the first id of {@code /v1/models}. */
    private Future<String> discoverModel(Worker worker) {
        return get(worker, "/get_model_info").map(body -> {
            JsonNode path = JSON.readTree(body.getBytes()).path("model_path");
            if (!path.isString() || path.asString().isEmpty()) {
                throw new ProbeFailure.BadAnswer("bad answer: no model_path in /get_model_info");
            }
            return path.asString();
        }).recover(err -> get(worker, "/v1/models").map(body -> {
            JsonNode id = JSON.readTree(body.getBytes()).path("data").path(0).path("id");
            if (!id.isString() || id.asString().isEmpty()) {
                throw new ProbeFailure.BadAnswer("bad answer: no model id in /v1/models");
            }
            return id.asString();
        }));
    }

    /**
     * A prefill worker whose bootstrap port nobody gave learns it from its {@code /get_server_info}
     * ({@code disaggregation_bootstrap_port}, as SGLang reports it) before it takes traffic, so every pair placed on
     * it names the port its decode partner must register at. An engine that does not say is activated anyway: its
     * pairs carry a null port, which SGLang reads as its default.
     */
    private Future<Void> bootstrapPortKnown(Worker worker) {
        if (worker.role() != WorkerRole.PREFILL || worker.bootstrapPort() != null) {
            return Future.succeededFuture();
        }
        return get(worker, "/get_server_info").map(body -> {
            int port = JSON.readTree(body.getBytes()).path("disaggregation_bootstrap_port").asInt(0);
            if (port > 0) {
                worker.learnBootstrapPort(port);
            } else {
                LOG.warn("prefill worker {} reports no disaggregation_bootstrap_port; its pairs carry none",
                        worker.url());
            }
            return (Void) null;
        }).otherwise(err -> {
            LOG.warn("prefill worker {}: no bootstrap port from /get_server_info ({}); its pairs carry none",
                    worker.url(), err.getMessage());
            return null;
        });
    }

    /**
     * Tells the model's policy how many tokens of KV cache the worker's engine holds ({@code max_total_num_tokens}
     * of {@code /get_server_info}, as SGLang reports it), so a policy can keep its picture of that worker within what
     * the engine can really hold. Best effort: an engine that does not say is simply not reported.
     */
    private void reportCapacity(Worker worker, String model) {
        get(worker, "/get_server_info").onSuccess(body -> {
            long tokens;
            try {
                tokens = JSON.readTree(body.getBytes()).path("max_total_num_tokens").asLong(0);
            } catch (RuntimeException e) {
                LOG.debug("worker {}: unreadable /get_server_info: {}", worker.url(), e.getMessage());
                return;
            }
            if (tokens <= 0) {
                return;
            }
            ModelPool pool = registry.pool(model, worker.role());
            if (pool != null) {
                pool.policy().onWorkerCapacity(worker.url(), tokens);
            }
        });
    }

    private void checkHealth() {
        for (Worker worker : registry.workers()) {
            if (worker.state() != Worker.State.ACTIVE) {
                continue;
            }
            get(worker, settings.healthEndpoint()).onComplete(ar -> {
                metrics.healthCheck(worker.role(), ar.succeeded());
                Boolean changed = worker.recordProbe(ar.succeeded(), settings.failureThreshold(),
                        settings.successThreshold());
                if (ar.succeeded()) {
                    String failedBefore = worker.reached();
                    if (Boolean.TRUE.equals(changed)) {
                        LOG.info("worker {} is healthy again{}", worker.url(),
                                failedBefore == null ? "" : " after: " + failedBefore);
                    }
                    return;
                }
                String reason = reason(ar.cause());
                boolean newReason = worker.failed(reason);
                if (Boolean.FALSE.equals(changed)) {
                    LOG.warn("worker {} is unhealthy: {}", worker.url(), reason);
                } else if (newReason) {
                    LOG.warn("worker {} failed a health check ({}): {}", worker.url(),
                            worker.healthy() ? "still taking traffic until " + settings.failureThreshold()
                                    + " in a row" : "still unhealthy", reason);
                }
            });
        }
    }

    private void pollLoads() {
        for (Worker worker : registry.workers()) {
            if (worker.state() != Worker.State.ACTIVE) {
                continue;
            }
            get(worker, "/get_load").onComplete(ar -> worker.reportedLoad(ar.succeeded()
                    ? tokensInUse(ar.result()) : -1));
        }
    }

    /** Why a call to a worker failed, in a few words ({@link ProbeFailure}). */
    private String reason(Throwable err) {
        return ProbeFailure.reason(err, settings.healthTimeoutSecs());
    }

    /** Sum of {@code num_tokens} over the worker's data-parallel ranks (one object or a list); -1 if unreadable. */
    public static long tokensInUse(Buffer body) {
        try {
            JsonNode root = JSON.readTree(body.getBytes());
            if (root.isObject()) {
                return root.path("num_tokens").asLong(-1);
            }
            long sum = 0;
            for (JsonNode rank : root) {
                sum += rank.path("num_tokens").asLong(0);
            }
            return root.isArray() ? sum : -1;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** GET a worker path with the health timeout, the worker's key as Bearer; fails unless 2xx. */
    public Future<Buffer> get(Worker worker, String path) {
        return call(worker, HttpMethod.GET, path, null);
    }

    /**
     * As {@link #get}, with any method; {@code hops} is the hop count of a client's request this call relays
     * ({@link HopLimit}), null for a call of the gateway's own.
     */
    public Future<Buffer> call(Worker worker, HttpMethod method, String path, String hops) {
        long timeoutMs = TimeUnit.SECONDS.toMillis(settings.healthTimeoutSecs());
        UpstreamTarget target = worker.target();
        RequestOptions options = target.request(method, path).setConnectTimeout(timeoutMs).setIdleTimeout(timeoutMs);
        if (target.authorization() != null) {
            options.putHeader("authorization", target.authorization());
        }
        if (hops != null) {
            options.putHeader(HopLimit.HEADER, hops);
        }
        Future<HttpClientRequest> connected;
        try {
            connected = client.request(options);
        } catch (IllegalStateException e) {
            // The gateway is stopping and its client is closed (Vert.x throws rather than fail the future): a call
            // still on its way, a registration's last step say, fails like any other.
            return Future.failedFuture(e);
        }
        return connected
                .compose(req -> req.send())
                .compose(resp -> resp.body().map(body -> check(resp, body, path)));
    }

    private static Buffer check(HttpClientResponse resp, Buffer body, String path) {
        if (resp.statusCode() / 100 != 2) {
            throw new UnexpectedStatus(resp.statusCode(), body, path);
        }
        return body;
    }
}

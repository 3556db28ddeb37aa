package dev.homing.gateway.cli;

import dev.homing.config.Settings;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.logging.LogSetup;
import dev.homing.gateway.workers.WorkerSpec;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The proxy path, warmed up before {@code homing launch} opens its port ({@code --warmup-secs}): a throwaway gateway
 * in this process, on loopback, in front of a {@link WarmupWorker}, is sent short requests until the JIT has compiled
 * their way ({@link JitQuiet}), then closed; only then does the real gateway start.
 *
 * <p>Why: the JDK's start-up cache holds classes and method profiles but no compiled code, so a fresh gateway ran its
 * first thousand requests interpreted or in C1 code while C2 compiled on the same cores, at several times the warm
 * added latency (docs/BENCHMARKS.md, "Sixth run"). Compiled code belongs to the process, not to the gateway that ran
 * it, so the real gateway's first client finds it. A fixed number of requests does not do: on one core the JIT needs
 * over a hundred thousand of them (and 14 s) to go quiet, on several far fewer.
 *
 * <p>Why before the port opens rather than behind a closed {@code /readiness}: nothing the real gateway serves, counts
 * or logs can be the warm-up's, and no client request competes with it for the cores. The throwaway gateway has its
 * own registry, metrics and port (no metrics port, no tracing, no replicas, no discovery), and the loggers are held
 * at ERROR while it runs. A warm-up never stops a start: one that fails is logged and skipped.
 */
public final class ProxyWarmup {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyWarmup.class);

    /** Requests in flight at once: enough to exercise the pool and batched reads, few enough for one core. */
    private static final int IN_FLIGHT = 16;
    private static final String SHORT_CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"Say one word, %d.\"}],"
            + "\"max_tokens\":1,\"stream\":%s}";
    private static final String GENERATE =
            "{\"text\":\"Say one word, %d.\",\"sampling_params\":{\"max_new_tokens\":1}}";

    private ProxyWarmup() {
    }

    /** What a warm-up did: requests answered, and whether the JIT had gone quiet (else the time was up). */
    record Outcome(int requests, boolean settled) {
    }

    /** The warm-up {@code config} asks for, logged once it is over (or skipped, and why). Never throws. */
    static void before(GatewayConfig config) {
        int seconds = config.get(Settings.WARMUP_SECS);
        if (seconds == 0) {
            return;
        }
        long start = System.nanoTime();
        Outcome outcome = null;
        String problem = null;
        LogSetup.Quiet quiet = LogSetup.quiet();
        try {
            outcome = run(config.get(Settings.POLICY), Duration.ofSeconds(seconds));
        } catch (RuntimeException e) {
            problem = e.getMessage();
        } finally {
            quiet.close();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (outcome == null) {
            LOG.warn("proxy warm-up skipped after {} ms: {}", millis, problem);
        } else {
            LOG.info("proxy path warmed up: {} requests in {} ms ({})", outcome.requests(), millis,
                    outcome.settled() ? "compiled" : "--warmup-secs reached before the JIT went quiet");
        }
    }

    /**
     * Starts a throwaway gateway with {@code policy} in front of a warm-up worker, sends it requests until the JIT
     * goes quiet or {@code limit} is over, and closes both.
     *
     * @throws IllegalStateException if a part does not start or a request fails
     */
    static Outcome run(String policy, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        Vertx vertx = Vertx.vertx();
        Gateway gateway = null;
        WarmupWorker worker = null;
        try {
            worker = await(WarmupWorker.start(vertx), deadline);
            gateway = Gateway.start(LaunchCommand.parse("--host", "127.0.0.1", "--port", "0",
                    "--prometheus-port", "-1", "--policy", policy, "--warmup-secs", "0"));
            await(gateway.addWorker(WorkerSpec.of(worker.url(), null)).activated(), deadline);
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                    new PoolOptions().setHttp1MaxSize(IN_FLIGHT));
            JitQuiet quiet = new JitQuiet();
            int answered = drive(vertx, client, gateway.port(), Integer.MAX_VALUE, deadline, quiet);
            return new Outcome(answered, quiet.wentQuiet());
        } finally {
            if (gateway != null) {
                gateway.close(Duration.ZERO);
            }
            if (worker != null) {
                worker.close();
            }
            vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS)
                    .exceptionally(e -> null).join();
        }
    }

    /**
     * Sends short requests to the gateway on 127.0.0.1:{@code port}, {@link #IN_FLIGHT} at a time, until {@code total}
     * are answered, {@code deadlineNanos} ({@link System#nanoTime}) passes or {@code enough} says so: chat
     * completions, one in 16 streamed, and one request in four to {@code /generate}. Returns how many were answered.
     *
     * @throws IllegalStateException when a request is not answered 200
     */
    public static int drive(Vertx vertx, HttpClient client, int port, int total, long deadlineNanos,
                            BooleanSupplier enough) {
        Promise<Integer> done = Promise.promise();
        Lanes lanes = new Lanes(client, port, total, deadlineNanos, enough, done);
        vertx.getOrCreateContext().runOnContext(v -> lanes.start());
        return await(done.future(), deadlineNanos + TimeUnit.SECONDS.toNanos(10));
    }

    /**
     * {@link #IN_FLIGHT} lanes, each sending its next request when the last is answered. Confined to one Vert.x
     * context, where the client's answers arrive too: requests made from a thread outside Vert.x were seen to go
     * unanswered after a garbage collection.
     */
    private static final class Lanes {
        private final HttpClient client;
        private final int port;
        private final int total;
        private final long deadlineNanos;
        private final BooleanSupplier enough;
        private final Promise<Integer> done;
        private int sent;
        private int answered;
        private int open;
        private boolean stopping;

        Lanes(HttpClient client, int port, int total, long deadlineNanos, BooleanSupplier enough,
              Promise<Integer> done) {
            this.client = client;
            this.port = port;
            this.total = total;
            this.deadlineNanos = deadlineNanos;
            this.enough = enough;
            this.done = done;
        }

        void start() {
            for (int lane = 0; lane < IN_FLIGHT; lane++) {
                next();
            }
        }

        private void next() {
            stopping = stopping || sent == total || System.nanoTime() >= deadlineNanos || enough.getAsBoolean();
            if (stopping) {
                if (open == 0) {
                    done.tryComplete(answered);
                }
                return;
            }
            int i = sent++;
            open++;
            String path = i % 4 == 3 ? "/generate" : "/v1/chat/completions";
            String body = i % 4 == 3 ? GENERATE.formatted(i) : SHORT_CHAT.formatted(i, i % 16 == 0);
            client.request(HttpMethod.POST, port, "127.0.0.1", path)
                    .compose(request -> request.putHeader("content-type", "application/json").send(body))
                    .compose(response -> response.body().map(read -> response.statusCode()))
                    .onComplete(answer -> {
                        open--;
                        if (answer.succeeded() && answer.result() == 200) {
                            answered++;
                            next();
                        } else {
                            done.tryFail(new IllegalStateException("a warm-up request to " + path + " answered "
                                    + (answer.succeeded() ? answer.result() : answer.cause().getMessage())));
                        }
                    });
        }
    }

    /**
     * Says when the JIT has caught up with the requests: it spent under {@link #QUIET_SHARE} of the last
     * {@link #WINDOW_NANOS} compiling (all compiler threads together). Measured on one core, the share falls from
     * most of the time to a few percent within about a second once the request path is compiled at the top tier.
     * Without compilation-time monitoring it never says so, and the warm-up runs to its time limit.
     */
    static final class JitQuiet implements BooleanSupplier {
        private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
        private static final double QUIET_SHARE = 0.05;

        private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        private final boolean measurable = jit != null && jit.isCompilationTimeMonitoringSupported();
        private long windowStart = System.nanoTime();
        private long compiledMillisAtStart = measurable ? jit.getTotalCompilationTime() : 0;
        private boolean quiet;

        @Override
        public boolean getAsBoolean() {
            long now = System.nanoTime();
            if (!measurable || quiet || now - windowStart < WINDOW_NANOS) {
                return quiet;
            }
            long compiledMillis = jit.getTotalCompilationTime();
            quiet = TimeUnit.MILLISECONDS.toNanos(compiledMillis - compiledMillisAtStart)
                    < QUIET_SHARE * (now - windowStart);
            windowStart = now;
            compiledMillisAtStart = compiledMillis;
            return quiet;
        }

        boolean wentQuiet() {
            return quiet;
        }
    }

    private static <T> T await(Future<T> future, long deadlineNanos) {
        try {
            return future.await(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out");
        }
    }
}

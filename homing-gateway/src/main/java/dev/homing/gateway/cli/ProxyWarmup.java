package dev.homing.gateway.cli;

import dev.homing.config.Settings;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.http.IoTransports;
import dev.homing.gateway.logging.LogSetup;
import dev.homing.gateway.workers.WorkerSpec;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The proxy path, warmed up when {@code homing launch} asks ({@code --warmup-secs}, off by default): once the real
 * gateway has bound its ports, and before it registers its workers, a throwaway gateway in this process, on loopback,
 * in front of {@link #WORKERS} {@link WarmupWorker}s, is sent short requests until the JIT has compiled their way
 * ({@link JitQuiet}) or the time is up, then closed; meanwhile {@code /readiness} answers 503, "warming up".
 *
 * <p>Why: the JDK's start-up cache holds classes but no compiled code (nor, as bin/homing records it, profiles), so
 * a fresh gateway ran its first thousand requests interpreted or in C1 code while C2 compiled on the same cores, at
 * several times the warm added latency (docs/BENCHMARKS.md, "Startup"). Compiled code belongs to the process, not
 * to the gateway that ran it, so the real gateway's first client finds it. A fixed number of requests does not do:
 * the JIT went quiet after 32,000 of them (18 s) on one core and after 103,000 (23 s) on two. Why off by default: a
 * gateway should be ready within seconds of its start (a rollout waits for every replica), and what the warm-up saves
 * is a fraction of a millisecond on each of the first thousand requests (docs/BENCHMARKS.md, "Startup").
 *
 * <p>Why it pauses ({@link #BURST_MILLIS} of requests, then {@link #PAUSE_MILLIS} of none, over and over): the JIT
 * moves a method from C1's code to C2's only while C2's queue is short, and a warm-up sending flat out on one core
 * keeps the queue long, since the compiler threads share that core with it. Without pauses, methods run at every
 * request (the server's read handler, the client's write of a request head) were still C1 code after ten seconds;
 * the real gateway's first requests then waited while C2 compiled 60 to 90 of them. With the pauses, 15 to 18.
 *
 * <p>Why the requests vary ({@link WarmupRequests}): compiled code is thrown away when real traffic takes a branch
 * or brings a type the warm-up never showed.
 *
 * <p>Why two rounds, each on a gateway of its own: closing the first gateway takes branches no request did (channels
 * closing, event loops shutting down), and a fresh gateway's first requests take more (empty caches, a tenant and
 * workers never seen, threads with no thread-locals yet). C2's code had those branches as traps, so the close threw
 * away the compiled code of 32 methods of the request path (the event loop's task queue, the HTTP encoder, the
 * io_uring read), and the real gateway's start and first requests that of 56 more; its first 250 requests added 5x
 * the warm median while they were compiled again. Compiled a second time, a method keeps the branches that trapped,
 * so the second round pays for both, and the real gateway starts on code that has them: 16 methods lost their code
 * from the second close on, against 88 from the only close on with one round.
 *
 * <p>Why after the ports are bound: a port in use fails the start at once, not after the warm-up. Why before the
 * workers register: no client request is served meanwhile, so none competes with it for the cores. Nothing the real
 * gateway serves, counts or logs can be the warm-up's: the throwaway gateway has its own registry, metrics and port
 * (no metrics port, no tracing, no replicas, no discovery), and what its threads log is dropped. A warm-up never
 * stops a start: one whose time is up early is cut short, one that fails is logged and skipped.
 */
public final class ProxyWarmup {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyWarmup.class);

    /**
     * Warm-up workers behind the throwaway gateway. Two, not one: in front of one worker a policy has nothing to
     * compare (every worker holds the whole matched prefix, every load is the least), so the code that weighs one
     * worker against another stayed cold, and the default policy's first thousand requests in front of two engines
     * compiled it: 1.61x the warm added latency, where cache_aware's, whose code one worker does exercise, came out
     * 1.10x and 1.36x.
     */
    private static final int WORKERS = 2;
    /** The share of {@code --warmup-secs} the first round may take; the second round has the rest. */
    private static final double FIRST_ROUND_SHARE = 2.0 / 3;
    /** Requests in flight at once: enough to exercise the pool and batched reads, few enough for one core. */
    private static final int IN_FLIGHT = 16;
    /** How long the lanes send before they pause, and how long they pause (see the class comment). */
    private static final long BURST_MILLIS = 50;
    private static final long PAUSE_MILLIS = 50;

    private ProxyWarmup() {
    }

    /** Requests answered, and how many of them over HTTP/2. */
    public record Answered(int requests, int overH2c) {
    }

    /**
     * What one round of a warm-up did: requests answered, whether the JIT had gone quiet (else the round's time was
     * up), and how long it took, start and close of its gateway included.
     */
    record Round(Answered answered, boolean settled, long millis) {
        @Override
        public String toString() {
            return answered.requests() + " requests (" + answered.overH2c() + " over h2c) in " + millis + " ms ("
                    + (settled ? "compiled" : "its time was up before the JIT went quiet") + ")";
        }
    }

    /** What a warm-up did: its two rounds. */
    record Outcome(Round first, Round second) {
    }

    /**
     * The warm-up {@code config} asks for, on a thread of its own group whose lines are dropped
     * ({@link LogSetup#quiet(ThreadGroup)}), logged in one line once it is over (cut short or failed, and why). Never
     * throws: a warm-up never stops a start.
     */
    static void run(GatewayConfig config) {
        int seconds = config.get(Settings.WARMUP_SECS);
        if (seconds == 0) {
            return;
        }
        long start = System.nanoTime();
        String transport = config.get(Settings.IO_TRANSPORT);
        // auto makes its choice, and logs a fallback (io_uring refused in a container), once a process at its first
        // use: here, not in the first round behind the quieted threads. The config has checked the name.
        IoTransports.named(transport);
        ThreadGroup group = new ThreadGroup("homing-warmup");
        FutureTask<Outcome> warmup = new FutureTask<>(() -> run(config.get(Settings.POLICY),
                !config.get(Settings.DISABLE_H2C), transport, Duration.ofSeconds(seconds), Integer.MAX_VALUE));
        Outcome outcome = null;
        String problem = null;
        try (LogSetup.Quiet quiet = LogSetup.quiet(group)) {
            new Thread(group, warmup, "homing-warmup").start();
            outcome = warmup.get();
        } catch (ExecutionException e) {
            problem = String.valueOf(e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem = "interrupted";
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (outcome == null) {
            LOG.warn("proxy warm-up skipped after {} ms: {}", millis, problem);
        } else if (outcome.first().answered().requests() + outcome.second().answered().requests() == 0) {
            LOG.info("proxy warm-up cut short after {} ms: its time was up before its throwaway gateways were up "
                    + "(a busy machine; --warmup-secs gives it longer)", millis);
        } else {
            LOG.info("proxy path warmed up: {} ms in two rounds, the first {}, the second {}", millis, outcome.first(),
                    outcome.second());
        }
    }

    /**
     * Starts a throwaway gateway with {@code policy} and {@code ioTransport} (serving h2c or not, as the real one
     * will) in front of {@link #WORKERS} warm-up workers, sends it requests until the JIT goes quiet, its share of
     * {@code limit} is over or {@code requestsPerRound} are answered, and closes them all; then the same again, on a
     * fresh gateway, for the rest of {@code limit} (see the class comment). A round whose time is up before its
     * gateway and workers are up answers none.
     *
     * @throws IllegalStateException if a part does not start or a request fails
     */
    static Outcome run(String policy, boolean h2c, String ioTransport, Duration limit, int requestsPerRound) {
        long start = System.nanoTime();
        Round first = round(policy, h2c, ioTransport, start + (long) (FIRST_ROUND_SHARE * limit.toNanos()),
                requestsPerRound);
        return new Outcome(first, round(policy, h2c, ioTransport, start + limit.toNanos(), requestsPerRound));
    }

    /** One round of {@link #run}: a throwaway gateway and its workers, driven until {@code deadline} at most. */
    private static Round round(String policy, boolean h2c, String ioTransport, long deadline, int requests) {
        long start = System.nanoTime();
        if (start >= deadline) {
            return new Round(new Answered(0, 0), false, 0);
        }
        // The workers and the client on the gateway's transport too: on another (Vert.x's default is NIO), C2 spent a
        // share of the warm-up compiling socket code the real gateway never runs, and Netty's shared channel code
        // compiled with both transports' classes inlined.
        Vertx vertx = Vertx.builder().withTransport(IoTransports.named(ioTransport)).build();
        Gateway gateway = null;
        List<WarmupWorker> workers = new ArrayList<>();
        JitQuiet quiet = new JitQuiet();
        Answered answered;
        try {
            for (int i = 0; i < WORKERS; i++) {
                workers.add(await(WarmupWorker.start(vertx), deadline));
            }
            List<String> flags = new ArrayList<>(List.of("--host", "127.0.0.1", "--port", "0",
                    "--prometheus-port", "-1", "--policy", policy, "--warmup-secs", "0",
                    // The real gateway's transport: compiled code is the transport's as much as the gateway's.
                    "--io-transport", ioTransport,
                    // Probes and load polls during the warm-up too: the real gateway's client sends them.
                    "--health-check-interval-secs", "1", "--worker-startup-check-interval", "1"));
            if (!h2c) {
                flags.add("--disable-h2c");
            }
            gateway = Gateway.start(LaunchCommand.parse(flags.toArray(String[]::new)));
            for (WarmupWorker worker : workers) {
                await(gateway.addWorker(WorkerSpec.of(worker.url(), null)).activated(), deadline);
            }
            quiet = new JitQuiet();
            answered = drive(vertx, gateway.port(), h2c, requests, deadline, quiet);
        } catch (TimeUp e) {
            // On a busy machine the round's time can be up before its gateway and workers are: a short round.
            answered = new Answered(0, 0);
        } finally {
            if (gateway != null) {
                gateway.close(Duration.ZERO);
            }
            workers.forEach(WarmupWorker::close);
            vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS)
                    .exceptionally(e -> null).join();
        }
        return new Round(answered, quiet.wentQuiet(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /**
     * Sends short requests to the gateway on 127.0.0.1:{@code port}, {@link #IN_FLIGHT} at a time, until {@code total}
     * are answered, {@code deadlineNanos} ({@link System#nanoTime}) passes or {@code enough} says so, in the order
     * {@link WarmupRequests} numbers them.
     *
     * <p>With {@code h2c}, the requests {@link WarmupRequests} marks go over HTTP/2, on a connection upgraded from
     * HTTP/1.1 as the JDK's HTTP client asks by default. Why: the first h2c connection loads Netty's HTTP/2 classes,
     * and some of them implement interfaces the HTTP/1.1 path calls (its headers among them). Code the JIT compiled
     * believing those calls had one target is thrown away then: 42 methods of the request path at once, measured,
     * when the benchmark's readiness probe upgraded after a warm-up without h2c. Loaded during the warm-up, the
     * classes are there before the JIT compiles.
     *
     * @throws IllegalStateException when a request is not answered 200
     */
    public static Answered drive(Vertx vertx, int port, boolean h2c, int total, long deadlineNanos,
                            BooleanSupplier enough) {
        HttpClient http1 = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(IN_FLIGHT));
        HttpClient http2 = h2c ? vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(true)) : http1;
        try {
            Promise<Answered> done = Promise.promise();
            Lanes lanes = new Lanes(vertx, http1, http2, port, total, deadlineNanos, enough, done);
            vertx.getOrCreateContext().runOnContext(v -> lanes.start());
            return await(done.future(), deadlineNanos + TimeUnit.SECONDS.toNanos(10));
        } finally {
            http1.close();
            if (http2 != http1) {
                http2.close();
            }
        }
    }

    /**
     * {@link #IN_FLIGHT} lanes, each sending its next request when the last is answered, all waiting out the same
     * pauses. Confined to one Vert.x context, where the client's answers arrive too: requests made from a thread
     * outside Vert.x were seen to go unanswered after a garbage collection.
     */
    private static final class Lanes {
        private final Vertx vertx;
        private final HttpClient http1;
        private final HttpClient http2;
        private final int port;
        private final int total;
        private final long deadlineNanos;
        private final BooleanSupplier enough;
        private final Promise<Answered> done;
        private int sent;
        private int answered;
        private int overH2c;
        private int open;
        private boolean stopping;
        private long burstEndNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BURST_MILLIS);
        private int paused;

        Lanes(Vertx vertx, HttpClient http1, HttpClient http2, int port, int total, long deadlineNanos,
              BooleanSupplier enough, Promise<Answered> done) {
            this.vertx = vertx;
            this.http1 = http1;
            this.http2 = http2;
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
            long now = System.nanoTime();
            stopping = stopping || sent == total || now >= deadlineNanos || enough.getAsBoolean();
            if (stopping) {
                if (open == 0) {
                    done.tryComplete(new Answered(answered, overH2c));
                }
                return;
            }
            if (now >= burstEndNanos) {
                // This lane waits out the pause; the first to stop starts it, and its end restarts them all.
                if (paused++ == 0) {
                    vertx.setTimer(PAUSE_MILLIS, t -> resume());
                }
                return;
            }
            WarmupRequests.Request request = WarmupRequests.number(sent++);
            open++;
            String path = request.options().getURI();
            (request.overH2c() ? http2 : http1).request(request.options().setPort(port))
                    .compose(sending -> request.body() == null ? sending.send() : sending.send(request.body()))
                    .compose(response -> response.body().map(read -> {
                        overH2c += response.version() == HttpVersion.HTTP_2 ? 1 : 0;
                        return response.statusCode();
                    }))
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

        private void resume() {
            burstEndNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BURST_MILLIS);
            int waiting = paused;
            paused = 0;
            for (int lane = 0; lane < waiting; lane++) {
                next();
            }
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
            throw new TimeUp();
        }
    }

    /** A round's time was up before what it waited for was done. */
    static final class TimeUp extends IllegalStateException {
        TimeUp() {
            super("timed out");
        }
    }
}

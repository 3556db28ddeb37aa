package dev.homing.bench.live.figures;

import dev.homing.bench.live.BenchResult;
import dev.homing.bench.live.Endpoint;
import dev.homing.bench.live.LoadRun;
import dev.homing.bench.live.LoadTarget;
import dev.homing.bench.live.Pacing;
import dev.homing.bench.live.ProgressReporter;
import dev.homing.bench.live.RequestEncoder;
import dev.homing.bench.live.RunCaps;
import dev.homing.bench.live.RunDescription;
import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The figures of docs/BENCH.md: how many requests per second the load client sustains against one simulated engine
 * running so fast (time scale 100,000, 8-token answers) that HTTP and JSON, not the simulated GPU, set the pace;
 * and the client's own CPU time per request, measured on its single event loop thread. Both run in this one JVM,
 * sharing the machine's cores.
 *
 * <p>Run after {@code package}: {@code java -cp homing-bench/target/test-classes:homing-bench/target/benchmarks.jar
 * dev.homing.bench.live.figures.LoadClientFigures [seconds] [concurrency]}.
 */
public final class LoadClientFigures {

    private LoadClientFigures() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int concurrency = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        SimEngineOptions fastest = SimEngineOptions.defaults().withTimeScale(SimEngineOptions.MAX_TIME_SCALE);
        try (SimEngineServer engine = SimEngineServer.start(fastest)) {
            for (boolean stream : new boolean[] {true, false}) {
                Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
                try {
                    measure(vertx, engine.url(), stream, seconds, concurrency);
                } finally {
                    vertx.close().toCompletionStage().toCompletableFuture().join();
                }
            }
        }
    }

    private static void measure(Vertx vertx, String url, boolean stream, int seconds, int concurrency)
            throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        CompletableFuture<Long> loop = new CompletableFuture<>();
        vertx.getOrCreateContext().runOnContext(v -> loop.complete(Thread.currentThread().threadId()));
        long loopThread = loop.get();
        GeneratedSharedPrefix workload = new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(5_000, 40, 32, 8,
                8, Double.POSITIVE_INFINITY, true, 1));
        LoadTarget target = new LoadTarget(url, Endpoint.CHAT, "", concurrency, Duration.ofSeconds(10));
        Pacing pacing = new Pacing.ClosedLoop(concurrency);
        RunCaps caps = new RunCaps(1_000_000, Duration.ofSeconds(seconds));
        RunDescription description = new RunDescription(url, Endpoint.CHAT.path(), workload.name(), "closed-loop",
                0, 1, concurrency, stream, 1, caps.maxRequests(), seconds);
        LoadRun run = new LoadRun(target, new RequestEncoder(Endpoint.CHAT, "", stream, false), pacing, caps,
                List.of(), description);
        long cpuBefore = threads.getThreadCpuTime(loopThread);
        BenchResult result = run.execute(vertx, workload,
                new ProgressReporter(new PrintStream(OutputStream.nullOutputStream()), false));
        long cpu = threads.getThreadCpuTime(loopThread) - cpuBefore;
        long ended = result.requests().succeeded() + result.requests().failed();
        System.out.printf(Locale.ROOT, "%-13s concurrency %d: %.0f req/s, %d errors, client CPU %.1f us/request "
                        + "(%.0f%% of one core), TTFT p50 %.2f ms%n", stream ? "streaming" : "not streaming",
                concurrency, result.throughput().requestsPerSecond(), result.requests().failed(),
                cpu / 1e3 / Math.max(1, ended), 100.0 * cpu / (result.elapsedSeconds() * 1e9),
                result.timeToFirstToken().p50Ms());
    }
}

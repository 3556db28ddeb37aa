package dev.homing.sim.figures;

import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import dev.homing.sim.model.Engine;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.GenerationRequest;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Measures the figures quoted in the simulated engine's documentation; a bounded program, not a test. Run it with
 * the module's test classpath on JDK 21+:
 * <ol>
 *   <li>heap held by one million cached tokens in the engine model;</li>
 *   <li>requests per second the bare model sustains in a discrete-event loop (the offline simulator's path);</li>
 *   <li>requests per second one HTTP engine serves at a time scale high enough to be CPU-bound, with a load client
 *       in the same process (so both share the cores).</li>
 * </ol>
 */
public final class SimEngineFigures {
    /** Bounds of the HTTP run: whichever comes first. */
    private static final int HTTP_REQUESTS = 40_000;
    private static final long HTTP_SECONDS = 20;
    private static final int CONCURRENCY = 64;

    private SimEngineFigures() {
    }

    public static void main(String[] args) throws Exception {
        heapForOneMillionCachedTokens(1000, 2000);
        heapForOneMillionCachedTokens(100, 100);
        modelThroughput();
        httpThroughput(false);
        httpThroughput(true);
    }

    /** Entries are a shared {@code systemTokens} prefix, then {@code ownTokens} tokens of their own. */
    private static void heapForOneMillionCachedTokens(int systemTokens, int ownTokens) {
        long before = usedHeapAfterGc();
        Engine engine = new Engine(EngineConfig.DEFAULTS.withKvTokens(1_100_000));
        int[] system = IntStream.range(0, systemTokens).toArray();
        int conversation = 0;
        while (engine.stats().cachedTokens() < 1_000_000) {
            int first = 1_000_000 + conversation * ownTokens;
            int[] prompt = IntStream.concat(IntStream.of(system), IntStream.range(first, first + ownTokens)).toArray();
            engine.submit(new GenerationRequest(prompt, 1), engine.nowNanos());
            while (engine.nextEventNanos() != Long.MAX_VALUE) {
                engine.advanceTo(engine.nextEventNanos());
            }
            conversation++;
        }
        long after = usedHeapAfterGc();
        int cached = engine.stats().cachedTokens();
        System.out.printf("heap: %,d cached tokens in %,d entries hold %.1f MB (%.1f bytes/token)%n",
            cached, conversation, (after - before) / 1e6, (double) (after - before) / cached);
        if (engine.stats().cachedTokens() == 0) {
            throw new AssertionError("keep the engine reachable");
        }
    }

    private static void modelThroughput() {
        Engine engine = new Engine(EngineConfig.DEFAULTS);
        int[] system = IntStream.range(0, 2000).toArray();
        int requests = 50_000;
        long start = System.nanoTime();
        long virtual = 0;
        for (int i = 0; i < requests; i++) {
            int[] prompt = IntStream.concat(IntStream.of(system), IntStream.range(10_000 + i * 128,
                10_000 + (i + 1) * 128)).toArray();
            virtual += 20_000_000;
            engine.submit(new GenerationRequest(prompt, 64), virtual);
            engine.advanceTo(virtual);
        }
        while (engine.nextEventNanos() != Long.MAX_VALUE) {
            engine.advanceTo(engine.nextEventNanos());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("model: %,d requests (2,128-token prompts, 64 output tokens, 50/s) in %.1f s: %,.0f "
            + "requests/s, hit rate %.2f%n", requests, seconds, requests / seconds, engine.stats().cacheHitRate());
    }

    private static void httpThroughput(boolean stream) throws Exception {
        Vertx clientVertx = Vertx.vertx();
        try (SimEngineServer engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(SimEngineOptions.MAX_TIME_SCALE))) {
            HttpClient client = clientVertx.createHttpClient(new HttpClientOptions().setDefaultPort(engine.port())
                .setDefaultHost("127.0.0.1").setKeepAlive(true), new PoolOptions().setHttp1MaxSize(CONCURRENCY));
            String system = "You are a helpful assistant. ".repeat(30);
            AtomicInteger sent = new AtomicInteger();
            AtomicLong completed = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            CountDownLatch done = new CountDownLatch(CONCURRENCY);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HTTP_SECONDS);
            long start = System.nanoTime();
            for (int worker = 0; worker < CONCURRENCY; worker++) {
                sendNext(client, system, stream, sent, completed, failed, done, deadline);
            }
            done.await(HTTP_SECONDS + 10, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("http (%s): %,d requests in %.1f s: %,.0f requests/s, %d failed%n",
                stream ? "streamed chat, 16 tokens" : "chat, 16 tokens", completed.get(), seconds,
                completed.get() / seconds, failed.get());
        } finally {
            clientVertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static void sendNext(HttpClient client, String system, boolean stream, AtomicInteger sent,
                                 AtomicLong completed, AtomicLong failed, CountDownLatch done, long deadline) {
        int n = sent.getAndIncrement();
        if (n >= HTTP_REQUESTS || System.nanoTime() > deadline) {
            done.countDown();
            return;
        }
        String body = """
            {"model":"m","max_tokens":16,"stream":%s,"messages":[{"role":"system","content":"%s"},
             {"role":"user","content":"Question number %d: what is the answer?"}]}""".formatted(stream, system, n);
        client.request(HttpMethod.POST, "/v1/chat/completions")
            .compose(request -> request.putHeader("content-type", "application/json").send(Buffer.buffer(body)))
            .compose(response -> response.body().map(ignored -> response.statusCode()))
            .onComplete(result -> {
                if (result.succeeded() && result.result() == 200) {
                    completed.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                }
                sendNext(client, system, stream, sent, completed, failed, done, deadline);
            });
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}

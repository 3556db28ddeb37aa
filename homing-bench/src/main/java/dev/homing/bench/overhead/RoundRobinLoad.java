package dev.homing.bench.overhead;

import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import dev.homing.bench.live.DrivePlan;
import dev.homing.bench.live.DriverSummary;
import dev.homing.bench.live.Endpoint;
import dev.homing.bench.live.LatencySummary;
import dev.homing.bench.live.LoadClient;
import dev.homing.bench.live.LoadRequest;
import dev.homing.bench.live.LoadTarget;
import dev.homing.bench.live.Pacing;
import dev.homing.bench.live.RequestEncoder;
import dev.homing.bench.live.ResultAggregator;
import dev.homing.bench.live.RunCaps;
import dev.homing.bench.live.WorkloadDriver;
import dev.homing.bench.workload.ChatHistory;
import dev.homing.bench.workload.GeneratedSharedPrefix;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The load of the proxy-overhead benchmark: short generated-shared-prefix chats sent to one or more URLs with
 * client-side round robin (one {@link LoadClient} and {@link WorkloadDriver} per URL, or several for a URL past
 * {@link #LANE_CONNECTIONS} connections, each with an equal share of the rate or the concurrency, all recording into
 * one {@link ResultAggregator}, so the percentiles are of the whole), after
 * a warm-up in the same JVM so that neither the client's JIT nor its connection set-up lands in the measured numbers.
 * The warm-up may go to other URLs than the measured part ({@code --warmup-urls}) and the measured part may wait for a
 * file to appear first ({@code --await-file}): a warm client then measures the first requests of a proxy that
 * starts only once the client is warm (the proxy-overhead benchmark's cold step, whose script makes the file once the
 * proxy is ready). Why a file, not the client polling the proxy's readiness itself: polling, with the JDK's HTTP
 * client or with Vert.x's, took branches of the socket, event-loop and future code the load had never taken, and C2
 * threw away the compiled load path; recompiled during the first few hundred measured requests, on the core the
 * engines share, it slowed those of every proxy, HAProxy's as much as Homing's (docs/BENCHMARKS.md, "Method"). A
 * load balancer's readiness probe is another process too. For that step the same client also
 * measures the warm-up URLs once warm ({@code --warm-figure}, section {@code warm}: a warm proxy of the same kind) just
 * before the wait, and the engines directly at the end ({@code --direct-urls}, section {@code direct}): the first
 * requests, the warm figure and the baseline they are compared with come from one process, one set of engines and
 * one run, seconds apart. With {@code --interleaved-direct-url} the warm figure and the first requests each get a
 * baseline of their own seconds ({@link InterleavedBaseline}): every few requests, one straight to an engine.
 *
 * <p>Against a proxy it takes the proxy's one URL; against the engines directly, every engine's URL. The JSON result
 * uses {@code homing bench}'s field names for what it has ({@code requests}, {@code errors}, {@code throughput},
 * {@code timeToFirstToken}, {@code interTokenGap}, {@code endToEnd}).
 */
@Command(name = "round-robin-load", mixinStandardHelpOptions = true,
        description = "Warm up, then drive short chats at one or more URLs with client-side round robin.")
public final class RoundRobinLoad implements Callable<Integer> {

    /** A request that has seen nothing for this long failed: far beyond any step of the benchmark. */
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(120);
    /** Time after the duration cap for cancellations to land. */
    private static final Duration GRACE = Duration.ofSeconds(30);
    /** Connections per URL in open loop: enough that no request waits for one at the benchmark's rates. */
    private static final int OPEN_LOOP_CONNECTIONS = 1024;
    /**
     * Most connections one lane (one Vert.x client pool) holds. The pool looks through its connections for each
     * request it serves and its expiry check goes through all of them every second, so one pool of 10,000 (the
     * stream-holding step) cost the client seconds of CPU while it opened them: on the core it shares with the
     * engines, heads then went out more than 10 s after their connections opened, and the gateway closed those
     * silent connections at its header timeout. Lanes of this size share the work between the client's event loops.
     */
    private static final int LANE_CONNECTIONS = 1000;

    @Option(names = "--urls", split = ",", required = true, description = "Base URLs; requests alternate over them.")
    List<String> urls;

    @Option(names = "--warmup-urls", split = ",",
            description = "Base URLs of the warm-up (default: the --urls), with lanes of their own.")
    List<String> warmupUrls;

    @Option(names = "--await-file", description = "After the warm-up, wait until this file exists (at most 120 s), "
            + "then measure; \"warmed up\" is printed when the wait starts.")
    Path awaitFile;

    @Option(names = "--endpoint", defaultValue = "CHAT",
            description = "The endpoint: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Endpoint endpoint;

    @Option(names = "--rate", description = "Open loop: requests per second in all.")
    Double rate;

    @Option(names = "--concurrency", description = "Closed loop: requests in flight in all.")
    Integer concurrency;

    @Option(names = "--stream", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Stream the answers (default: ${DEFAULT-VALUE}).")
    boolean stream;

    @Option(names = "--output-tokens", defaultValue = "1", description = "Output tokens a request.")
    int outputTokens;

    @Option(names = "--warmup-seconds", defaultValue = "3", description = "Warm-up, not measured (0: none).")
    double warmupSeconds;

    @Option(names = "--warmup-requests", description = "Request cap of the warm-up (default: --max-requests).")
    Long warmupRequests;

    @Option(names = "--seconds", defaultValue = "10", description = "Duration cap of the measured part.")
    double seconds;

    @Option(names = "--max-requests", defaultValue = "100000", description = "Request cap of the measured part.")
    long maxRequests;

    @Option(names = "--warm-figure", description = "After the warm-up, measure --max-requests more on the warm-up "
            + "URLs (\"warm\"), before the wait.")
    boolean warmFigure;

    @Option(names = "--direct-urls", split = ",", description = "Last: --max-requests measured against these URLs "
            + "(\"direct\"), with lanes of their own.")
    List<String> directUrls;

    @Option(names = "--interleaved-direct-url", description = "With --concurrency 1 and one URL: during the warm "
            + "figure and the measured part, after every --direct-every requests the same body straight to this URL "
            + "(sections warm.interleaved and interleaved: the added median against these).")
    String interleavedDirectUrl;

    @Option(names = "--direct-every", defaultValue = "4",
            description = "With --interleaved-direct-url: requests to the proxy per direct one (default: "
                    + "${DEFAULT-VALUE}).")
    int directEvery;

    @Option(names = "--trace", description = "With --interleaved-direct-url: keep every request's time in the result "
            + "(sections warm.interleaved.trace and interleaved.trace).")
    boolean trace;

    @Option(names = "--output", required = true, description = "JSON result file.")
    Path output;

    /** The measured part, in {@code homing bench}'s shape. */
    record Result(List<String> urls, String pacing, double elapsedSeconds, Requests requests,
                  Map<String, Long> errors, Throughput throughput, LatencySummary timeToFirstToken,
                  LatencySummary interTokenGap, LatencySummary endToEnd, InterleavedBaseline.Result interleaved,
                  Later warm, Later direct) {

        /** A later measured part of the same run: its end-to-end latency only (null when not asked for). */
        record Later(List<String> urls, Requests requests, LatencySummary endToEnd,
                     InterleavedBaseline.Result interleaved) {
        }

        record Requests(long sent, long succeeded, long failed) {
            static Requests of(ResultAggregator.Snapshot s) {
                return new Requests(s.sent(), s.succeeded(), s.failed());
            }
        }

        record Throughput(double requestsPerSecond) {
        }
    }

    /** One URL's client, kept across the warm-up and the measured part so its connections stay open. */
    private record Lane(Context context, LoadClient client) {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new RoundRobinLoad()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if ((rate == null) == (concurrency == null)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "give --rate or --concurrency");
        }
        if (interleavedDirectUrl != null && (concurrency == null || concurrency != 1 || urls.size() != 1
                || warmupUrls != null && warmupUrls.size() != 1 || directEvery < 1)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--interleaved-direct-url takes "
                    + "--concurrency 1, one URL in --urls and --warmup-urls, and --direct-every of at least 1");
        }
        if (trace && interleavedDirectUrl == null) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--trace takes --interleaved-direct-url");
        }
        Vertx vertx = Vertx.vertx();
        try {
            // With a baseline interleaved, the proxy's lanes (warm and measured) and the engine's client share a context.
            Context shared = interleavedDirectUrl == null ? null : vertx.getOrCreateContext();
            List<Lane> lanes = lanes(vertx, urls, shared);
            List<Lane> warmupLanes = warmupUrls == null ? lanes : lanes(vertx, warmupUrls, shared);
            LoadClient baselineEngine = interleavedDirectUrl == null ? null : new LoadClient(vertx,
                    new LoadTarget(interleavedDirectUrl, endpoint, "", 1, IDLE_TIMEOUT));
            if (warmupSeconds > 0) {
                drive(warmupLanes, new ResultAggregator(), warmupSeconds,
                        warmupRequests != null ? warmupRequests : maxRequests, 1000);
            }
            Result.Later warm = warmFigure
                    ? measureLater(warmupUrls != null ? warmupUrls : urls, warmupLanes, baselineEngine, 3000) : null;
            if (awaitFile != null) {
                // The garbage of the warm-up and the warm figure collected now: a young collection (22 ms, measured)
                // used to land among the first requests measured.
                System.gc();
                System.out.println("warmed up");
                awaitFile(awaitFile);
            }
            ResultAggregator results = new ResultAggregator();
            Part measured = measure(lanes, results, baselineEngine, 1);
            double elapsed = measured.seconds();
            InterleavedBaseline.Result interleaved = measured.interleaved();
            ResultAggregator.Snapshot s = results.snapshot();
            List<Lane> directLanes = directUrls == null ? List.of() : lanes(vertx, directUrls, null);
            Result.Later direct = directUrls == null ? null : measureLater(directUrls, directLanes, null, 4000);
            Result result = new Result(urls, rate != null ? "open-loop " + rate + "/s" : "closed-loop " + concurrency,
                    elapsed, Result.Requests.of(s), s.errors(),
                    new Result.Throughput(s.succeeded() / Math.max(1e-9, elapsed)),
                    LatencySummary.of(s.ttftMicros()), LatencySummary.of(s.gapMicros()),
                    LatencySummary.of(s.e2eMicros()), interleaved, warm, direct);
            Files.writeString(output, JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build()
                    .writeValueAsString(result));
            System.out.printf("%s: %d sent, %d succeeded, %d failed, e2e p50 %.2f ms p99 %.2f ms%n", urls, s.sent(),
                    s.succeeded(), s.failed(), result.endToEnd().p50Ms(), result.endToEnd().p99Ms());
            for (Result.Later later : new Result.Later[] {warm, direct}) {
                if (later != null) {
                    System.out.printf("%s: %d succeeded, %d failed, e2e p50 %.2f ms p99 %.2f ms%n", later.urls(),
                            later.requests().succeeded(), later.requests().failed(), later.endToEnd().p50Ms(),
                            later.endToEnd().p99Ms());
                }
            }
            printInterleaved(urls, interleaved);
            printInterleaved(warm == null ? null : warm.urls(), warm == null ? null : warm.interleaved());
            if (baselineEngine != null) {
                lanes.get(0).context().runOnContext(v -> baselineEngine.close());
            }
            List<Lane> all = concat(lanes, directLanes);
            for (Lane lane : warmupLanes == lanes ? all : concat(all, warmupLanes)) {
                lane.context().runOnContext(v -> lane.client().close());
            }
            return 0;
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
    }

    private static void printInterleaved(List<String> proxyUrls, InterleavedBaseline.Result interleaved) {
        if (interleaved != null) {
            System.out.printf("%s against %s interleaved: %d direct, added p50 %.3f ms%n", proxyUrls,
                    interleaved.directUrl(), interleaved.direct().count(), interleaved.addedP50Ms());
        }
    }

    /** A later part, measured as the measured part is (see {@link #measure}). */
    private Result.Later measureLater(List<String> laterUrls, List<Lane> laterLanes, LoadClient baselineEngine,
                                      long seedBase) throws Exception {
        ResultAggregator results = new ResultAggregator();
        Part part = measure(laterLanes, results, baselineEngine, seedBase);
        ResultAggregator.Snapshot s = results.snapshot();
        return new Result.Later(laterUrls, Result.Requests.of(s), LatencySummary.of(s.e2eMicros()),
                part.interleaved());
    }

    /** How long a measured part took, and its interleaved baseline (null when it had none). */
    private record Part(double seconds, InterleavedBaseline.Result interleaved) {
    }

    /**
     * Drives {@code partLanes} into {@code results}, or, when {@code baselineEngine} is not null, sends through the
     * first lane with a baseline interleaved from it.
     */
    private Part measure(List<Lane> partLanes, ResultAggregator results, LoadClient baselineEngine, long seedBase)
            throws Exception {
        if (baselineEngine == null) {
            return new Part(drive(partLanes, results, seconds, maxRequests, seedBase), null);
        }
        InterleavedBaseline.Result interleaved = interleaved(partLanes.get(0), baselineEngine, results, seedBase);
        return new Part(interleaved.seconds(), interleaved);
    }

    /**
     * Up to --max-requests one at a time through {@code lane}, one after every --direct-every of them straight to
     * {@code engine}, within --seconds.
     */
    private InterleavedBaseline.Result interleaved(Lane lane, LoadClient engine, ResultAggregator proxied, long seed)
            throws Exception {
        Duration cap = Duration.ofMillis((long) (seconds * 1000));
        RequestEncoder encoder = new RequestEncoder(endpoint, "", stream, false);
        Iterator<LoadRequest> requests = workload(maxRequests, Double.POSITIVE_INFINITY, seed).conversations()
                .map(c -> new LoadRequest(encoder.encode(ChatHistory.messages(c, 0, List.of()),
                        c.turns().get(0).maxOutputTokens()), stream, false))
                .iterator();
        return InterleavedBaseline.run(lane.context(), lane.client(), engine, interleavedDirectUrl, proxied, requests,
                        maxRequests, directEvery, System.nanoTime() + cap.toNanos(), trace)
                .toCompletionStage().toCompletableFuture().get(cap.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Groups of 16 short prompts (~60 tokens), at least 256 groups and enough for {@code requests}, one turn each,
     * at {@code rate} a second.
     */
    private GeneratedSharedPrefix workload(long requests, double rate, long seed) {
        int groups = (int) Math.max(256, Math.min(Integer.MAX_VALUE / 16, requests / 16 + 1));
        return new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(groups, 16, 32, 16, outputTokens, rate,
                true, seed));
    }

    /**
     * One lane per URL, or several past {@link #LANE_CONNECTIONS} (each with an equal share of the connections), each
     * on a context of its own, or all on {@code context} when it is not null.
     */
    private List<Lane> lanes(Vertx vertx, List<String> baseUrls, Context context) {
        List<Lane> lanes = new ArrayList<>();
        for (String url : baseUrls) {
            int connections = concurrency != null ? Math.max(1, concurrency / baseUrls.size()) : OPEN_LOOP_CONNECTIONS;
            int split = (connections + LANE_CONNECTIONS - 1) / LANE_CONNECTIONS;
            for (int i = 0; i < split; i++) {
                lanes.add(new Lane(context != null ? context : vertx.getOrCreateContext(), new LoadClient(vertx,
                        new LoadTarget(url, endpoint, "", Math.max(1, connections / split), IDLE_TIMEOUT))));
            }
        }
        return lanes;
    }

    private static List<Lane> concat(List<Lane> a, List<Lane> b) {
        List<Lane> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Waits until {@code file} exists, looking every millisecond; fails after 120 s. */
    private static void awaitFile(Path file) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.exists(file)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(file + " did not appear within 120 s");
            }
            Thread.sleep(1);
        }
    }

    /** Drives every lane at its share for up to {@code capSeconds}; returns the elapsed seconds of the slowest. */
    private double drive(List<Lane> lanes, ResultAggregator results, double capSeconds, long requestCap, long seedBase)
            throws Exception {
        int n = lanes.size();
        Duration cap = Duration.ofMillis((long) (capSeconds * 1000));
        // A closed loop starts everything at once; an open loop is Poisson at an equal share of the rate per lane.
        Pacing pacing = concurrency != null ? new Pacing.ClosedLoop(Math.max(1, concurrency / n)) : new Pacing.OpenLoop();
        double laneRate = concurrency != null ? Double.POSITIVE_INFINITY : rate / n;
        List<Future<DriverSummary>> runs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Lane lane = lanes.get(i);
            // Each lane its own seed, so lanes send different prompts.
            GeneratedSharedPrefix workload = workload(requestCap / n, laneRate, seedBase + i);
            DrivePlan plan = new DrivePlan(new RequestEncoder(endpoint, "", stream, false), pacing,
                    new RunCaps(Math.max(1, requestCap / n), cap));
            runs.add(new WorkloadDriver(lane.context(), lane.client(), plan, results).run(workload));
        }
        double elapsed = 0;
        for (Future<DriverSummary> run : runs) {
            DriverSummary summary = run.toCompletionStage().toCompletableFuture()
                    .get(cap.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
            elapsed = Math.max(elapsed, summary.elapsedSeconds());
        }
        return elapsed;
    }
}

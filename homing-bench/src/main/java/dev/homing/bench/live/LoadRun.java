package dev.homing.bench.live;

import dev.homing.bench.workload.Workload;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One whole live run: read the engines' counters, drive the workload on one event loop, read the counters again,
 * and put the numbers together as a {@link BenchResult}. Blocking: call from a thread that is not an event loop.
 *
 * @param target      where to send and how
 * @param encoder     how to write request bodies
 * @param pacing      open or closed loop
 * @param caps        request and duration caps
 * @param engineUrls  engines whose {@code /metrics} counters to read before and after; may be empty
 * @param description what the result file records about the run
 */
public record LoadRun(LoadTarget target, RequestEncoder encoder, Pacing pacing, RunCaps caps,
                      List<String> engineUrls, RunDescription description) {

    /** Time left after the duration cap for cancellations to land, before the run is declared stuck. */
    private static final Duration GRACE = Duration.ofSeconds(30);

    public LoadRun {
        engineUrls = List.copyOf(engineUrls);
    }

    public BenchResult execute(Vertx vertx, Workload workload, ProgressReporter progress) {
        EngineMetricsReader metrics = new EngineMetricsReader();
        List<EngineCounters> before = engineUrls.stream().map(metrics::read).toList();
        ResultAggregator results = new ResultAggregator();
        // A context created off the event loops: the client, the driver and their callbacks all run on it.
        Context context = vertx.getOrCreateContext();
        LoadClient client = new LoadClient(vertx, target);
        DriverSummary summary;
        progress.start(vertx, results);
        try {
            summary = new WorkloadDriver(context, client, new DrivePlan(encoder, pacing, caps), results).run(workload)
                    .toCompletionStage().toCompletableFuture()
                    .get(caps.duration().plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the run failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the run did not end within its duration cap plus " + GRACE, e);
        } finally {
            progress.stop();
            context.runOnContext(v -> client.close());
        }
        List<EngineCounters> deltas = new ArrayList<>();
        for (int i = 0; i < engineUrls.size(); i++) {
            deltas.add(metrics.read(engineUrls.get(i)).minus(before.get(i)));
        }
        return result(summary, results.snapshot(), deltas);
    }

    private BenchResult result(DriverSummary summary, ResultAggregator.Snapshot snapshot,
                               List<EngineCounters> deltas) {
        double seconds = Math.max(1e-9, summary.elapsedSeconds());
        long cancelled = snapshot.errors().getOrDefault("cancelled", 0L);
        EngineCounters total = deltas.stream().reduce(EngineCounters.ZERO, EngineCounters::plus);
        List<BenchResult.Worker> workers = new ArrayList<>();
        for (int i = 0; i < deltas.size(); i++) {
            EngineCounters d = deltas.get(i);
            double tokens = d.promptTokens() + d.generationTokens();
            double totalTokens = total.promptTokens() + total.generationTokens();
            workers.add(new BenchResult.Worker(engineUrls.get(i), d.requests(), d.promptTokens(), d.cachedTokens(),
                    d.generationTokens(), share(d.requests(), total.requests()), share(tokens, totalTokens),
                    d.hitRate()));
        }
        return new BenchResult(description,
                pacing instanceof Pacing.OpenLoop
                        ? "intended send time (open loop: corrected for coordinated omission)"
                        : "actual send time (closed loop)",
                summary.elapsedSeconds(), summary.stoppedAtDurationCap(),
                new BenchResult.Requests(snapshot.sent(), snapshot.succeeded(), snapshot.failed(), cancelled,
                        summary.unsentTurns()),
                snapshot.errors(),
                new BenchResult.Throughput(snapshot.succeeded() / seconds, snapshot.completionTokens() / seconds,
                        snapshot.promptTokens() / seconds),
                LatencySummary.of(snapshot.ttftMicros()), LatencySummary.of(snapshot.gapMicros()),
                LatencySummary.of(snapshot.e2eMicros()),
                new BenchResult.CacheHitRate(snapshot.usageHitRate(), snapshot.requestsWithUsage(),
                        snapshot.promptTokensWithCachedCount(), snapshot.cachedTokens(),
                        deltas.isEmpty() ? null : total.hitRate()),
                workers, snapshot.routingViews());
    }

    private static double share(double part, double whole) {
        return whole > 0 ? part / whole : 0;
    }
}

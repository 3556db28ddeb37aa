package dev.homing.bench.live;

import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.bench.workload.Workload;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs workloads against test servers and keeps every outcome, for the tests of this package. */
final class LiveRuns {

    private LiveRuns() {
    }

    /** What a driven run did: its summary and each outcome in the order requests ended. */
    record Driven(DriverSummary summary, long sent, List<RequestOutcome> outcomes) {
    }

    /** A small shared-prefix workload: {@code groups} x 4 one-turn requests, all due at once. */
    static Workload sharedPrefix(int groups) {
        return new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(groups, 4, 256, 32, 16,
                Double.POSITIVE_INFINITY, true, 7));
    }

    static LoadTarget target(String url, Endpoint endpoint) {
        return new LoadTarget(url, endpoint, "", 64, Duration.ofSeconds(10));
    }

    static Driven drive(Vertx vertx, LoadTarget target, boolean stream, Workload workload, Pacing pacing,
                        RunCaps caps) throws Exception {
        List<RequestOutcome> outcomes = Collections.synchronizedList(new ArrayList<>());
        long[] sent = new long[1];
        OutcomeListener listener = new OutcomeListener() {
            @Override
            public void requestSent() {
                sent[0]++;
            }

            @Override
            public void record(RequestOutcome outcome) {
                outcomes.add(outcome);
            }
        };
        Context context = vertx.getOrCreateContext();
        LoadClient client = new LoadClient(vertx, target);
        RequestEncoder encoder = new RequestEncoder(target.endpoint(), "", stream, false);
        DrivePlan plan = new DrivePlan(encoder, pacing, caps);
        DriverSummary summary = new WorkloadDriver(context, client, plan, listener).run(workload)
                .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        context.runOnContext(v -> client.close());
        return new Driven(summary, sent[0], List.copyOf(outcomes));
    }

    static BenchResult execute(Vertx vertx, LoadTarget target, Workload workload, Pacing pacing, RunCaps caps,
                               List<String> engines) {
        RunDescription description = new RunDescription(target.baseUrl(), target.endpoint().path(),
                workload.name(), pacing.toString(), 0, 1, 0, true, 7, caps.maxRequests(),
                caps.duration().toMillis() / 1e3);
        return new LoadRun(target, new RequestEncoder(target.endpoint(), "", true, false), pacing, caps, engines,
                description).execute(vertx, workload, quietProgress());
    }

    static ProgressReporter quietProgress() {
        return new ProgressReporter(new PrintStream(OutputStream.nullOutputStream()), false);
    }
}

package dev.homing.bench.overhead;

import dev.homing.bench.live.LatencySummary;
import dev.homing.bench.live.LoadClient;
import dev.homing.bench.live.LoadRequest;
import dev.homing.bench.live.RequestOutcome;
import dev.homing.bench.live.ResultAggregator;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * One request at a time through a proxy, and after every {@code every}-th of them the same body straight to an
 * engine: the baseline the proxy's added latency is taken against comes from the same seconds as the proxied requests.
 * Measured apart (the engines directly after the proxy's first requests, once the proxy was gone), the engines' and
 * the client's own latency drifted by as much as a proxy adds on a shared machine: HAProxy, which has nothing to warm
 * up, came out between 0.73x and 1.75x its warm figure over its first requests.
 *
 * <p>Why not every request in a pair: the proxy's first N requests would then spread over the time of about 2N, time
 * a JIT compiling in the background uses; one direct request in four stretches them by about a tenth. The result
 * says how long the run took.
 *
 * <p>The proxied requests go to the caller's {@link ResultAggregator} as a plain run's do (their latency, errors and
 * counts reported the same way); the direct ones to one of this run's, and the result adds them and the difference of
 * the medians.
 *
 * <p>The run is also reported in {@link #QUARTERS} parts of equal request counts, each with its own added median:
 * whether a fresh proxy's excess is in its first few hundred requests (something done once, at the start) or spread
 * over all of them (code still being compiled) decides where to look.
 *
 * <p>A run may also keep every request's time (the result's {@link Trace}): which of the first few hundred requests
 * are slow, and when, to lay beside a JIT log or a CPU profile.
 *
 * <p>Confined to one Vert.x context, where both clients are used.
 */
final class InterleavedBaseline {

    /**
     * What a run measured.
     *
     * @param directUrl the engine's URL
     * @param every     a direct request after every this many proxied ones
     * @param failed    direct requests that failed
     * @param seconds   wall time of the run
     * @param direct    the direct requests that succeeded
     * @param addedP50Ms the proxied requests' median less the direct ones', in milliseconds
     * @param quarters  the same, over each quarter of the proxied requests in turn
     * @param trace     every request's time, when asked for, else null
     */
    record Result(String directUrl, int every, long failed, double seconds, LatencySummary direct,
                  double addedP50Ms, List<Quarter> quarters, Trace trace) {
    }

    /**
     * Every request of a run, in order.
     *
     * @param startEpochMillis when the run started, by the wall clock (to line up with another process's log)
     * @param requests         per proxied request: nanoseconds from the start to its sending, its end-to-end time and
     *                         the end-to-end time of the direct request sent after it (-1: none sent, or it failed)
     */
    record Trace(long startEpochMillis, List<long[]> requests) {
    }

    /**
     * One part of a run: its proxied requests from {@code firstRequest} (0-based) on, the direct ones sent among them.
     *
     * @param addedP50Ms the proxied median less the direct one, in milliseconds
     */
    record Quarter(long firstRequest, long requests, long directRequests, double proxiedP50Ms, double directP50Ms,
                   double addedP50Ms) {
    }

    static final int QUARTERS = 4;

    private final LoadClient proxy;
    private final LoadClient engine;
    private final String directUrl;
    private final ResultAggregator proxied;
    private final ResultAggregator direct = new ResultAggregator();
    /** Per quarter, the proxied requests and the direct ones. */
    private final ResultAggregator[] quarterProxied = new ResultAggregator[QUARTERS];
    private final ResultAggregator[] quarterDirect = new ResultAggregator[QUARTERS];
    private final long quarterSize;
    private final Iterator<LoadRequest> requests;
    private final long maxRequests;
    private final int every;
    private final long deadlineNanos;
    private final Promise<Result> done = Promise.promise();
    private long sent;
    private long startNanos;
    private long startEpochMillis;
    /** Per proxied request in order: its start and end-to-end time, and the direct request's after it (or -1). */
    private final List<long[]> trace;

    private InterleavedBaseline(LoadClient proxy, LoadClient engine, String directUrl, ResultAggregator proxied,
                                Iterator<LoadRequest> requests, long maxRequests, int every, long deadlineNanos,
                                boolean keepTrace) {
        if (every < 1) {
            throw new IllegalArgumentException("every must be at least 1: " + every);
        }
        this.proxy = proxy;
        this.engine = engine;
        this.directUrl = directUrl;
        this.proxied = proxied;
        this.requests = requests;
        this.maxRequests = maxRequests;
        this.every = every;
        this.deadlineNanos = deadlineNanos;
        this.trace = keepTrace ? new ArrayList<>() : null;
        this.quarterSize = Math.max(1, (maxRequests + QUARTERS - 1) / QUARTERS);
        for (int q = 0; q < QUARTERS; q++) {
            quarterProxied[q] = new ResultAggregator();
            quarterDirect[q] = new ResultAggregator();
        }
    }

    /**
     * Sends up to {@code maxRequests} through {@code proxy} (fewer if {@code requests} runs out or
     * {@code deadlineNanos}, a {@link System#nanoTime} value, passes), and one to {@code engine} after every
     * {@code every}-th, on {@code context}: where both clients must be used and {@code requests} is read. With
     * {@code keepTrace} the result holds every request's time.
     */
    static Future<Result> run(Context context, LoadClient proxy, LoadClient engine, String directUrl,
                              ResultAggregator proxied, Iterator<LoadRequest> requests, long maxRequests, int every,
                              long deadlineNanos, boolean keepTrace) {
        InterleavedBaseline run = new InterleavedBaseline(proxy, engine, directUrl, proxied, requests, maxRequests,
                every, deadlineNanos, keepTrace);
        context.runOnContext(v -> {
            run.startNanos = System.nanoTime();
            run.startEpochMillis = System.currentTimeMillis();
            run.next();
        });
        return run.done.future();
    }

    private void next() {
        if (sent == maxRequests || !requests.hasNext() || System.nanoTime() - deadlineNanos > 0) {
            finish();
            return;
        }
        LoadRequest request = requests.next();
        int quarter = (int) Math.min(QUARTERS - 1, sent / quarterSize);
        sent++;
        proxied.requestSent();
        quarterProxied[quarter].requestSent();
        long sentNanos = System.nanoTime();
        proxy.send(request, sentNanos).onComplete(viaProxy -> {
            proxied.record(viaProxy.result());
            quarterProxied[quarter].record(viaProxy.result());
            long[] traced = traced(sentNanos, viaProxy.result());
            if (sent % every != 0) {
                next();
                return;
            }
            direct.requestSent();
            quarterDirect[quarter].requestSent();
            engine.send(request, System.nanoTime()).onComplete(straight -> {
                direct.record(straight.result());
                quarterDirect[quarter].record(straight.result());
                if (traced != null) {
                    traced[2] = timeOf(straight.result());
                }
                next();
            });
        });
    }

    private void finish() {
        ResultAggregator.Snapshot straight = direct.snapshot();
        LatencySummary directLatency = LatencySummary.of(straight.e2eMicros());
        List<Quarter> quarters = new ArrayList<>();
        for (int q = 0; q < QUARTERS; q++) {
            LatencySummary viaProxy = LatencySummary.of(quarterProxied[q].snapshot().e2eMicros());
            LatencySummary straightOn = LatencySummary.of(quarterDirect[q].snapshot().e2eMicros());
            if (viaProxy.count() > 0) {
                quarters.add(new Quarter(q * quarterSize, viaProxy.count(), straightOn.count(), viaProxy.p50Ms(),
                        straightOn.p50Ms(), added(viaProxy, straightOn)));
            }
        }
        done.complete(new Result(directUrl, every, straight.failed(), (System.nanoTime() - startNanos) / 1e9,
                directLatency, added(LatencySummary.of(proxied.snapshot().e2eMicros()), directLatency), quarters,
                trace == null ? null : new Trace(startEpochMillis, List.copyOf(trace))));
    }

    /** The trace's entry of a proxied request sent at {@code sentNanos}, added to it; null when there is no trace. */
    private long[] traced(long sentNanos, RequestOutcome outcome) {
        if (trace == null) {
            return null;
        }
        long[] entry = {sentNanos - startNanos, timeOf(outcome), -1};
        trace.add(entry);
        return entry;
    }

    /** A request's end-to-end time in nanoseconds, or -1 when it failed. */
    private static long timeOf(RequestOutcome outcome) {
        return outcome.succeeded() ? outcome.e2eNanos() : -1;
    }

    /** The proxied median less the direct one; 0 when either has no request. */
    private static double added(LatencySummary viaProxy, LatencySummary straight) {
        return viaProxy.count() == 0 || straight.count() == 0 ? 0 : viaProxy.p50Ms() - straight.p50Ms();
    }
}

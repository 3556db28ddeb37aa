package dev.homing.core.policy.reference;

import dev.homing.core.policy.AvailableWorkersPolicy;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@code bucket}: length bucketing for prefill workers. Worker {@code i} of the list serves routing texts whose
 * length in chars falls in bucket {@code i}, so each worker batches prompts of similar length.
 *
 * <ul>
 *   <li>Buckets start by splitting {@value #INITIAL_MAX_CHARS} chars evenly across the workers; the last bucket is
 *       open-ended. A new list of worker ids starts over from that split.</li>
 *   <li>Every {@code bucketAdjustIntervalSecs} (checked on each select and in {@link #maintain()}, on the injected
 *       clock) the window closes. If the busiest bucket received more than {@value #REBALANCE_RATIO} times the chars
 *       of the quietest, the boundaries are recomputed from the sorted lengths seen in the window so that each bucket
 *       would have received an equal share of the chars. Then the window's counts start again from zero.</li>
 *   <li>Before the bucket is consulted, the chars sent to each available worker in the window are checked with the
 *       cache-aware imbalance test (max - min above the absolute threshold and max above min times the relative
 *       one, both strict); when imbalanced, the worker with the fewest chars takes the request (branch
 *       {@code imbalance}). Otherwise the bucket's worker does ({@code bucket_hit}).</li>
 *   <li>If the bucket's worker is unavailable, the available worker with the fewest chars takes the request
 *       ({@code bucket_worker_unavailable}).</li>
 * </ul>
 *
 * <p>Thread-safe: every method holds the instance lock (the count of available workers before it reads only the
 * decision's list). Prefill decisions are one per request, not per token, and
 * each is a few array reads, so one lock is simpler than any lock-free scheme and cheap enough.
 */
public final class BucketPolicy extends AvailableWorkersPolicy {

    public static final String NAME = "bucket";
    /** The length the initial boundaries split evenly (the reference's assumed maximum prompt length). */
    public static final int INITIAL_MAX_CHARS = 4096;
    /** Bucket loads further apart than this ratio trigger new boundaries at the end of a window. */
    public static final int REBALANCE_RATIO = 2;
    /** Lengths kept per window to place boundaries; beyond it a uniform sample is kept, bounding memory. */
    static final int WINDOW_SAMPLES = 4096;

    private final LongSupplier nanoClock;
    private final long intervalNanos;
    private final long balanceAbsThreshold;
    private final double balanceRelThreshold;

    // All below guarded by this.
    private List<String> workerIds = List.of();
    /** {@code upperBounds[i]} is the exclusive upper length of bucket i; the last bucket has none. */
    private int[] upperBounds = new int[0];
    private long[] bucketChars = new long[0];
    private final Map<String, Long> charsSent = new HashMap<>();
    private final int[] samples = new int[WINDOW_SAMPLES];
    private long seen;
    private long windowStart;

    public BucketPolicy(PolicyConfig config, LongSupplier nanoClock) {
        super(NAME, config);
        this.nanoClock = nanoClock;
        this.intervalNanos = TimeUnit.SECONDS.toNanos(config.bucketAdjustIntervalSecs());
        this.balanceAbsThreshold = config.balanceAbsThreshold();
        this.balanceRelThreshold = config.balanceRelThreshold();
        this.windowStart = nanoClock.getAsLong();
    }

    @Override
    protected synchronized Decision choose(List<WorkerView> workers, int available, RoutingRequest request) {
        startOverIfWorkersChanged(workers);
        closeWindowIfDue();
        int length = request.text().length();
        int bucket = bucketOf(length);
        Decision decision;
        if (charsImbalanced(workers)) {
            decision = Decision.of(fewestChars(workers), "imbalance");
        } else if (workers.get(bucket).available()) {
            decision = Decision.of(bucket, "bucket_hit");
        } else {
            decision = Decision.of(fewestChars(workers), "bucket_worker_unavailable");
        }
        record(workers.get(decision.workerIndex()).id(), bucket, length);
        return decision;
    }

    @Override
    public synchronized void maintain() {
        closeWindowIfDue();
    }

    @Override
    public synchronized void onWorkerRemoved(String workerId) {
        charsSent.remove(workerId);
    }

    /** The current exclusive upper bounds of every bucket but the last, in chars. */
    public synchronized List<Integer> upperBounds() {
        return Arrays.stream(upperBounds).boxed().toList();
    }

    private void startOverIfWorkersChanged(List<WorkerView> workers) {
        if (sameIds(workers)) {
            return;
        }
        List<String> ids = new ArrayList<>(workers.size());
        workers.forEach(worker -> ids.add(worker.id()));
        workerIds = List.copyOf(ids);
        int n = ids.size();
        upperBounds = new int[n - 1];
        for (int i = 0; i < n - 1; i++) {
            upperBounds[i] = (int) ((long) INITIAL_MAX_CHARS * (i + 1) / n);
        }
        bucketChars = new long[n];
        charsSent.keySet().retainAll(workerIds);
        seen = 0;
    }

    private boolean sameIds(List<WorkerView> workers) {
        if (workers.size() != workerIds.size()) {
            return false;
        }
        for (int i = 0; i < workers.size(); i++) {
            if (!workers.get(i).id().equals(workerIds.get(i))) {
                return false;
            }
        }
        return true;
    }

    private void closeWindowIfDue() {
        long now = nanoClock.getAsLong();
        if (now - windowStart < intervalNanos) {
            return;
        }
        if (bucketLoadsDiverged()) {
            placeBoundaries();
        }
        Arrays.fill(bucketChars, 0);
        charsSent.clear();
        seen = 0;
        windowStart = now;
    }

    private boolean bucketLoadsDiverged() {
        if (bucketChars.length < 2 || seen == 0) {
            return false;
        }
        long max = Arrays.stream(bucketChars).max().orElse(0);
        long min = Arrays.stream(bucketChars).min().orElse(0);
        return max > REBALANCE_RATIO * min;
    }

    /** Boundaries where the sorted window lengths' running sum crosses each equal share of the total chars. */
    private void placeBoundaries() {
        int[] sorted = Arrays.copyOf(samples, (int) Math.min(seen, WINDOW_SAMPLES));
        Arrays.sort(sorted);
        long total = 0;
        for (int length : sorted) {
            total += length;
        }
        int n = bucketChars.length;
        int[] bounds = new int[n - 1];
        long running = 0;
        int next = 0;
        for (int k = 0; k < sorted.length && next < n - 1; k++) {
            running += sorted[k];
            // Inner loop bounded by the bucket count: one sample can close several shares when it is very long.
            while (next < n - 1 && running * n >= total * (next + 1)) {
                bounds[next++] = sorted[k] + 1;
            }
        }
        for (; next < n - 1; next++) {
            bounds[next] = sorted[sorted.length - 1] + 1;
        }
        upperBounds = bounds;
    }

    private int bucketOf(int length) {
        for (int i = 0; i < upperBounds.length; i++) {
            if (length < upperBounds[i]) {
                return i;
            }
        }
        return upperBounds.length;
    }

    private boolean charsImbalanced(List<WorkerView> workers) {
        long max = Long.MIN_VALUE;
        long min = Long.MAX_VALUE;
        for (WorkerView worker : workers) {
            if (worker.available()) {
                long chars = charsSent.getOrDefault(worker.id(), 0L);
                max = Math.max(max, chars);
                min = Math.min(min, chars);
            }
        }
        return max - min > balanceAbsThreshold && max > min * balanceRelThreshold;
    }

    private int fewestChars(List<WorkerView> workers) {
        return picker.lowest(workers, worker -> charsSent.getOrDefault(worker.id(), 0L));
    }

    private void record(String workerId, int bucket, int length) {
        charsSent.merge(workerId, (long) length, Long::sum);
        bucketChars[bucket] += length;
        if (seen < WINDOW_SAMPLES) {
            samples[(int) seen] = length;
        } else {
            // Reservoir sampling: every length of the window is kept with equal probability.
            long slot = Math.floorMod(picker.nextLong(), seen + 1);
            if (slot < WINDOW_SAMPLES) {
                samples[(int) slot] = length;
            }
        }
        seen++;
    }
}

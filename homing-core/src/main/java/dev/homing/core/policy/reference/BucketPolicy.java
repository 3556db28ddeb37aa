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
 *   <li>Buckets start as equal widths of {@value #INITIAL_MAX_CHARS} chars: each of the {@code n} workers gets
 *       {@code 4096 / n} (rounded down) lengths in turn, and the last bucket is open-ended. A new list of worker ids
 *       starts over from that split.</li>
 *   <li>Every {@code bucketAdjustIntervalSecs} (checked on each select and in {@link #maintain()}, on the injected
 *       clock) the window closes. Its per-bucket load is its chars over the worker count. The boundaries move only
 *       when that load is more than {@value #REBALANCE_RATIO} times, or less than a half of, the load they were last
 *       placed for (or they were never placed): traffic that merely wobbles keeps them. Then the window's counts
 *       start again from zero.</li>
 *   <li>Placing the boundaries: the window's lengths, sorted, are handed out bucket after bucket. Each bucket but the
 *       last takes the shortest lengths left until they add up to the per-bucket load, and ends at the length that
 *       got it there; when that length is not beyond the bucket's start (many prompts of one length), or the lengths
 *       run out first, the bucket spans the per-bucket load in chars instead. The next bucket starts right after, so
 *       every bucket keeps a range of its own: no worker is left without lengths to serve.</li>
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
    /** A per-bucket load that changed by more than this factor, either way, moves the boundaries. */
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
    /** The per-bucket load the boundaries were last placed for; 0 until they first are. */
    private long placedForLoad;
    private final Map<String, Long> charsSent = new HashMap<>();
    private final int[] samples = new int[WINDOW_SAMPLES];
    /** Requests in the window, and the chars of their routing texts. */
    private long seen;
    private long windowChars;
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
        record(workers.get(decision.workerIndex()).id(), length);
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
        int width = INITIAL_MAX_CHARS / n;
        upperBounds = new int[n - 1];
        for (int i = 0; i < n - 1; i++) {
            upperBounds[i] = width * (i + 1);
        }
        placedForLoad = 0;
        charsSent.keySet().retainAll(workerIds);
        seen = 0;
        windowChars = 0;
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
        int buckets = upperBounds.length + 1;
        long load = windowChars / buckets;
        if (buckets > 1 && seen > 0 && loadChanged(load)) {
            placedForLoad = load;
            placeBoundaries(buckets);
        }
        charsSent.clear();
        seen = 0;
        windowChars = 0;
        windowStart = now;
    }

    private boolean loadChanged(long load) {
        return placedForLoad == 0 || load > REBALANCE_RATIO * placedForLoad || placedForLoad > REBALANCE_RATIO * load;
    }

    /**
     * Hands the window's sorted lengths out bucket after bucket (see the class comment). The per-bucket load here is
     * the kept lengths' own, which is the window's while it holds no more than {@link #WINDOW_SAMPLES} requests.
     */
    private void placeBoundaries(int buckets) {
        int count = (int) Math.min(seen, WINDOW_SAMPLES);
        int[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        long total = 0;
        for (int length : sorted) {
            total += length;
        }
        long share = total / buckets;
        int[] bounds = new int[buckets - 1];
        long start = 0;
        int next = 0;
        for (int b = 0; b < bounds.length; b++) {
            long end = start + share; // inclusive; kept when the lengths left do not make up the share
            long sum = 0;
            while (next < count) {
                int length = sorted[next++];
                sum += length;
                if (sum >= share) {
                    end = length > start ? length : end;
                    break;
                }
            }
            // A bucket beyond any String's length can receive nothing; the clamp only keeps the bounds in an int.
            bounds[b] = (int) Math.min(end + 1, Integer.MAX_VALUE);
            start = end + 1;
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

    private void record(String workerId, int length) {
        charsSent.merge(workerId, (long) length, Long::sum);
        windowChars += length;
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

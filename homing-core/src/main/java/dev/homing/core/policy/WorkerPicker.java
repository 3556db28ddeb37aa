package dev.homing.core.policy;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * The random choices policies share: a uniform pick among available workers and a lowest-key pick whose ties are
 * broken at random, so no policy falls back to "the first index wins" (the reference's skew, where equal loads
 * send everything to worker 0).
 *
 * <p>Thread-safety: safe from any number of threads without locks. The state is one {@link AtomicLong} advanced by a
 * fixed odd step and scrambled (SplitMix64), so one thread calling in a fixed order sees the same sequence for the
 * same seed (the offline simulator relies on this) and concurrent callers each get a distinct draw.
 */
public final class WorkerPicker {

    // SplitMix64's step: the golden ratio in 64 bits, odd, so the state visits every value before repeating.
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final AtomicLong state;

    public WorkerPicker(long seed) {
        this.state = new AtomicLong(seed);
    }

    /** A uniform int in {@code [0, bound)}; {@code bound} must be positive. */
    public int nextInt(int bound) {
        // Multiply-shift on the top 32 bits: bias at most bound / 2^32, far below anything a test could see.
        return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }

    public long nextLong() {
        long z = state.addAndGet(GOLDEN_GAMMA);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The number of available workers in {@code workers}. */
    public static int availableCount(List<WorkerView> workers) {
        int count = 0;
        for (int i = 0; i < workers.size(); i++) {
            if (workers.get(i).available()) {
                count++;
            }
        }
        return count;
    }

    /** The index of the {@code rank}-th (0-based) available worker, or {@link Decision#NONE} if there are fewer. */
    public static int nthAvailable(List<WorkerView> workers, int rank) {
        int seen = 0;
        for (int i = 0; i < workers.size(); i++) {
            if (workers.get(i).available() && seen++ == rank) {
                return i;
            }
        }
        return Decision.NONE;
    }

    /** A uniformly random available worker's index, or {@link Decision#NONE} when none is available. */
    public int anyAvailable(List<WorkerView> workers) {
        int count = availableCount(workers);
        return count == 0 ? Decision.NONE : nthAvailable(workers, nextInt(count));
    }

    /**
     * The index of an available worker with the lowest {@code key}, chosen uniformly among those tied for lowest, or
     * {@link Decision#NONE} when none is available.
     */
    public int lowest(List<WorkerView> workers, ToLongFunction<WorkerView> key) {
        int chosen = Decision.NONE;
        long lowest = Long.MAX_VALUE;
        int ties = 0;
        for (int i = 0; i < workers.size(); i++) {
            WorkerView worker = workers.get(i);
            if (!worker.available()) {
                continue;
            }
            long value = key.applyAsLong(worker);
            if (chosen == Decision.NONE || value < lowest) {
                chosen = i;
                lowest = value;
                ties = 1;
            } else if (value == lowest && nextInt(++ties) == 0) {
                // Reservoir sampling of size one: each of the k tied workers ends up chosen with probability 1/k.
                chosen = i;
            }
        }
        return chosen;
    }
}

package dev.homing.core.policy.affinity;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.WorkerView;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The ledgers of one worker list, by position, kept so that {@link LoadAwareAffinityPolicy} finds the least recent
 * work and the fleet's total without reading every ledger: a binary min-heap of positions ordered by recent work, and
 * a running sum of it.
 *
 * <p>Why a heap stays valid: recent work decays by the same factor for every worker at every decision, which the
 * policy folds into one scale, so the stored values (and their order) change only when a request is placed (one
 * value grows: one sift down) or when the scale is reset (every value divided alike: order kept).
 *
 * <p>Valid for one list: each decision's {@link #census} checks its list against the ids these ledgers were built
 * for, and the policy builds new ones when a worker joined, left or moved. Not thread-safe: used only inside the
 * policy's decision, under its tree's write lock.
 */
final class FleetLedgers {

    static final FleetLedgers EMPTY = new FleetLedgers(new String[0], new WorkerLedger[0], -1);

    private final String[] ids;
    private final WorkerLedger[] ledgers;
    /** The value of the policy's removal counter when this was built; a removal since makes it stale. */
    private final long removals;
    /** Positions in heap order: {@code heap[k]} has no more recent work than {@code heap[2k+1]} and {@code heap[2k+2]}. */
    private final int[] heap;
    /** Where each position sits in {@link #heap}. */
    private final int[] slot;
    /** The stored recent work of {@code heap[k]}, a copy kept beside the heap so sifting reads one array. */
    private final double[] heapWork;
    private double totalScaledWork;
    /** Heap slots still to visit in {@link #leastWorkAvailable}; reused across decisions. */
    private int[] pending = new int[32];

    private FleetLedgers(String[] ids, WorkerLedger[] ledgers, long removals) {
        this.ids = ids;
        this.ledgers = ledgers;
        this.removals = removals;
        this.heap = new int[ids.length];
        this.slot = new int[ids.length];
        this.heapWork = new double[ids.length];
        for (int i = 0; i < ids.length; i++) {
            heap[i] = i;
            slot[i] = i;
            heapWork[i] = ledgers[i].scaledWork();
            totalScaledWork += heapWork[i];
        }
        for (int k = ids.length / 2 - 1; k >= 0; k--) {
            siftDown(k);
        }
    }

    /** The ledgers of {@code workers} in their order, each from {@code ledgerOf}. */
    static FleetLedgers of(List<WorkerView> workers, Function<String, WorkerLedger> ledgerOf, long removals) {
        int n = workers.size();
        String[] ids = new String[n];
        WorkerLedger[] ledgers = new WorkerLedger[n];
        for (int i = 0; i < n; i++) {
            ids[i] = workers.get(i).id();
            ledgers[i] = ledgerOf.apply(ids[i]);
        }
        return new FleetLedgers(ids, ledgers, removals);
    }

    long removals() {
        return removals;
    }

    /**
     * One decision's count of {@code workers}, read once each: how many are available, their prompts' share of
     * their caches, and the stored recent work of the others. Null when {@code workers} is not the list these
     * ledgers were built for.
     */
    Census census(List<WorkerView> workers) {
        int n = workers.size();
        if (n != ids.length) {
            return null;
        }
        int available = 0;
        double unavailableScaledWork = 0;
        double promptShares = 0;
        for (int i = 0; i < n; i++) {
            WorkerView worker = workers.get(i);
            String id = worker.id();
            if (ids[i] != id && !ids[i].equals(id)) { // identity first: the usual case
                return null;
            }
            if (worker.available()) {
                available++;
                promptShares += ledgers[i].promptShare();
            } else {
                unavailableScaledWork += ledgers[i].scaledWork();
            }
        }
        return new Census(this, available, unavailableScaledWork, available == 0 ? 0 : promptShares / available);
    }

    /**
     * A decision's fleet: its ledgers, the number of available workers, the stored (scaled) recent work of the
     * unavailable ones, which the load bound leaves out, and the mean share of an available engine's cache that one
     * prompt fills (0 where the engines report no capacity).
     */
    record Census(FleetLedgers ledgers, int available, double unavailableScaledWork, double promptShare) {
    }

    WorkerLedger ledger(int i) {
        return ledgers[i];
    }

    /** The sum of every worker's stored (scaled) recent work. */
    double totalScaledWork() {
        return totalScaledWork;
    }

    /** Records a request placed at position {@code i}, as {@link WorkerLedger#placed}. */
    void placed(int i, int uncachedChars, double scale) {
        ledgers[i].placed(uncachedChars, scale);
        if (uncachedChars > 0) {
            grew(i);
        }
    }

    /**
     * Records work another gateway replica placed on {@code ledger}, as {@link WorkerLedger#worked}; a ledger of
     * none of these positions is only told (the next list's ledgers read it).
     */
    void worked(WorkerLedger ledger, int uncachedChars, double scale) {
        ledger.worked(uncachedChars, scale);
        for (int i = 0; i < ledgers.length; i++) {
            if (ledgers[i] == ledger) {
                grew(i);
                return;
            }
        }
    }

    /** The ledger at position {@code i} holds more work: its heap slot and the total follow. */
    private void grew(int i) {
        double work = ledgers[i].scaledWork();
        totalScaledWork += work - heapWork[slot[i]];
        heapWork[slot[i]] = work;
        siftDown(slot[i]);
    }

    /** The ledgers were rescaled (each divided alike): the order holds, the total is summed again. */
    void rescaled() {
        totalScaledWork = 0;
        for (int k = 0; k < heap.length; k++) {
            heapWork[k] = ledgers[heap[k]].scaledWork();
            totalScaledWork += heapWork[k];
        }
    }

    /**
     * The available worker with the least recent work, {@link Decision#NONE} when none is available. Visits the heap
     * from the top and prunes every subtree not below the best found, so it reads the unavailable workers above the
     * answer, not the fleet. Of equal workers it takes the one the heap holds highest, not a random one: drawing
     * among ties would read them all (hundreds at a cold start), and equal workers still take turns, since placing a
     * request that adds work moves its worker down the heap.
     */
    int leastWorkAvailable(List<WorkerView> workers) {
        int chosen = Decision.NONE;
        double best = Double.MAX_VALUE;
        int top = 0;
        if (heap.length > 0) {
            pending[top++] = 0;
        }
        while (top > 0) {
            int k = pending[--top];
            int i = heap[k];
            double work = heapWork[k];
            if (work >= best) {
                continue; // so is everything below it
            }
            if (workers.get(i).available()) {
                best = work;
                chosen = i;
                continue; // everything below it has at least as much work
            }
            for (int child = 2 * k + 2; child >= 2 * k + 1; child--) {
                if (child < heap.length) {
                    if (top == pending.length) {
                        pending = Arrays.copyOf(pending, pending.length * 2);
                    }
                    pending[top++] = child;
                }
            }
        }
        return chosen;
    }

    private void siftDown(int k) {
        int i = heap[k];
        double work = heapWork[k];
        int n = heap.length;
        while (true) {
            int child = 2 * k + 1;
            if (child >= n) {
                break;
            }
            if (child + 1 < n && heapWork[child + 1] < heapWork[child]) {
                child++;
            }
            if (heapWork[child] >= work) {
                break;
            }
            heap[k] = heap[child];
            heapWork[k] = heapWork[child];
            slot[heap[k]] = k;
            k = child;
        }
        heap[k] = i;
        heapWork[k] = work;
        slot[i] = k;
    }
}

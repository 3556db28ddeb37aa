package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.WorkerView;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import net.openhft.hashing.LongHashFunction;

/**
 * A consistent-hash ring over worker ids, shared by {@code consistent_hashing} and {@code prefix_hash}. Each worker
 * owns {@value #VIRTUAL_NODES} points at the XXH3 hashes of {@code id + "#" + i}; a key belongs to the owner of the
 * first point at or after the key's hash, going clockwise and wrapping. Adding a worker therefore moves only the keys
 * that land on its new points, about 1/n of them.
 *
 * <p>Invariant: the published {@link Layout} is immutable, its points sorted, and describes exactly one set of worker
 * ids. It is rebuilt only when the set of ids changes; a new order of the same ids reuses it.
 *
 * <p>Thread-safe: lookups read one volatile snapshot. Two threads that see a new worker set at once may both build a
 * layout; they build equal ones and the last write wins, which is cheaper than a lock on the request path.
 */
final class HashRing {

    /** Points per worker: enough that each worker's share of the ring stays within a few percent of 1/n. */
    static final int VIRTUAL_NODES = 150;

    private static final LongHashFunction XX3 = LongHashFunction.xx3();

    private volatile Layout layout = Layout.build(List.of());

    /** The ring position of a key. */
    static long hash(String key) {
        return XX3.hashChars(key);
    }

    /** The ring position of the first {@code length} chars of {@code text}. */
    static long hash(String text, int length) {
        return XX3.hashChars(text, 0, length);
    }

    /**
     * Walks clockwise from {@code position} and returns the index in {@code workers} of the first worker that
     * {@code accepts}, visiting each worker at most once; {@link Decision#NONE} if none accepts.
     */
    int walk(List<WorkerView> workers, long position, Predicate<WorkerView> accepts) {
        Layout current = layoutFor(workers);
        if (current.points.length == 0) {
            return Decision.NONE;
        }
        int[] listIndex = current.listIndexes(workers);
        int start = current.firstPointAtOrAfter(position);
        boolean[] tested = null;
        int testedCount = 0;
        // Bounded: at most one lap of the ring, and it stops once every worker has been tested.
        for (int step = 0; step < current.points.length && testedCount < current.ids.length; step++) {
            int owner = current.owners[(start + step) % current.points.length];
            if (tested != null && tested[owner]) {
                continue;
            }
            int index = listIndex == null ? owner : listIndex[owner];
            if (accepts.test(workers.get(index))) {
                return index;
            }
            if (tested == null) {
                tested = new boolean[current.ids.length]; // only allocated once the owner of the key is refused
            }
            tested[owner] = true;
            testedCount++;
        }
        return Decision.NONE;
    }

    /** The ring for this set of workers, built only if the set differs from the last one seen. */
    Layout layoutFor(List<WorkerView> workers) {
        Layout current = layout;
        if (current.describes(workers)) {
            return current;
        }
        Layout rebuilt = Layout.build(workers);
        layout = rebuilt;
        return rebuilt;
    }

    /** The ring for one set of worker ids: {@code owners[k]} is the index in {@code ids} of point {@code k}'s owner. */
    record Layout(String[] ids, Set<String> idSet, long[] points, int[] owners) {

        static Layout build(List<WorkerView> workers) {
            String[] ids = new String[workers.size()];
            long[][] pointAndOwner = new long[workers.size() * VIRTUAL_NODES][];
            for (int w = 0; w < ids.length; w++) {
                ids[w] = workers.get(w).id();
                for (int v = 0; v < VIRTUAL_NODES; v++) {
                    pointAndOwner[w * VIRTUAL_NODES + v] = new long[] {hash(ids[w] + "#" + v), w};
                }
            }
            // Equal points (a 64-bit collision) are ordered by owner so every build of one set is the same ring.
            Arrays.sort(pointAndOwner, (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
            long[] points = new long[pointAndOwner.length];
            int[] owners = new int[pointAndOwner.length];
            for (int k = 0; k < points.length; k++) {
                points[k] = pointAndOwner[k][0];
                owners[k] = (int) pointAndOwner[k][1];
            }
            return new Layout(ids, new HashSet<>(Arrays.asList(ids)), points, owners);
        }

        boolean describes(List<WorkerView> workers) {
            if (workers.size() != ids.length) {
                return false;
            }
            for (WorkerView worker : workers) {
                if (!idSet.contains(worker.id())) {
                    return false;
                }
            }
            return true;
        }

        /** Null when {@code workers} lists the ids in build order (the usual case), else owner -> list index. */
        int[] listIndexes(List<WorkerView> workers) {
            boolean sameOrder = true;
            for (int i = 0; i < ids.length && sameOrder; i++) {
                sameOrder = ids[i].equals(workers.get(i).id());
            }
            if (sameOrder) {
                return null;
            }
            Map<String, Integer> position = new HashMap<>();
            for (int i = 0; i < workers.size(); i++) {
                position.put(workers.get(i).id(), i);
            }
            int[] listIndex = new int[ids.length];
            for (int owner = 0; owner < ids.length; owner++) {
                listIndex[owner] = position.get(ids[owner]);
            }
            return listIndex;
        }

        int firstPointAtOrAfter(long position) {
            int found = Arrays.binarySearch(points, position);
            int index = found >= 0 ? found : -found - 1;
            return index == points.length ? 0 : index;
        }
    }
}

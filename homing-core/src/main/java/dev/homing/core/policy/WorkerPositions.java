package dev.homing.core.policy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each worker id sat in a worker list, so a policy can go from a tree tenant to its worker without scanning
 * the list. The gateway passes a fresh list per decision, usually in the same order, so a cached instance keeps
 * answering correctly: every answer is checked against the list it is asked about. Immutable.
 */
public final class WorkerPositions {

    /** The positions were built from another list and do not hold for this one. */
    public static final int STALE = -2;

    private final List<WorkerView> source;
    private final Map<String, Integer> positions;

    private WorkerPositions(List<WorkerView> source, Map<String, Integer> positions) {
        this.source = source;
        this.positions = positions;
    }

    public static final WorkerPositions NONE = new WorkerPositions(List.of(), Map.of());

    public static WorkerPositions of(List<WorkerView> workers) {
        Map<String, Integer> positions = new HashMap<>(workers.size() * 2);
        for (int i = 0; i < workers.size(); i++) {
            positions.putIfAbsent(workers.get(i).id(), i);
        }
        return new WorkerPositions(workers, positions);
    }

    /** The index of {@code id} in {@code workers}, -1 when it is not there, or {@link #STALE}. */
    public int find(String id, List<WorkerView> workers) {
        Integer i = positions.get(id);
        if (i != null && i < workers.size() && workers.get(i).id().equals(id)) {
            return i;
        }
        return source == workers ? -1 : STALE;
    }
}

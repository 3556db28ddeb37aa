package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerPicker;
import dev.homing.core.policy.WorkerView;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code round_robin}: one counter per policy instance, taken modulo the number of available workers and used as a
 * rank among them. As in the reference, the order shifts when a worker's availability changes; unavailable workers
 * are skipped, never chosen.
 *
 * <p>Thread-safe: the counter is atomic, so concurrent callers each take a distinct turn.
 */
public final class RoundRobinPolicy implements RoutingPolicy {

    public static final String NAME = "round_robin";
    /** Branch label: a worker was chosen. */
    public static final String SELECTED = "selected";

    private final AtomicLong turns = new AtomicLong();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Decision select(List<WorkerView> workers, RoutingRequest request) {
        int count = WorkerPicker.availableCount(workers);
        if (count == 0) {
            return Decision.noHealthyWorkers();
        }
        int rank = (int) Math.floorMod(turns.getAndIncrement(), (long) count);
        return Decision.of(WorkerPicker.nthAvailable(workers, rank), SELECTED);
    }
}

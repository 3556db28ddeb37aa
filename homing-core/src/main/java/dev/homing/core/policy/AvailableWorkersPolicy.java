package dev.homing.core.policy;

import java.util.List;

/**
 * A policy whose rule needs one available worker at least and says nothing when there is none: every decision starts
 * by counting the available workers, and when none is, no worker is chosen ({@link Decision#noHealthyWorkers()})
 * before the rule runs.
 */
public abstract class AvailableWorkersPolicy extends SeededPolicy {

    protected AvailableWorkersPolicy(String name, PolicyConfig config) {
        super(name, config);
    }

    @Override
    public final Decision select(List<WorkerView> workers, RoutingRequest request) {
        int available = WorkerPicker.availableCount(workers);
        return available == 0 ? Decision.noHealthyWorkers() : choose(workers, available, request);
    }

    /** Chooses one of {@code workers}, of which {@code available} (one at least) are available, for {@code request}. */
    protected abstract Decision choose(List<WorkerView> workers, int available, RoutingRequest request);
}

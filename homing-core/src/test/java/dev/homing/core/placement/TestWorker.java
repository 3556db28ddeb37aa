package dev.homing.core.placement;

import dev.homing.core.policy.WorkerView;

/** A worker of a test's fleet: always available, no reported load. */
record TestWorker(String id, InFlightCount inFlightCount) implements PlacementTarget {

    TestWorker(String id) {
        this(id, new InFlightCount());
    }

    @Override
    public WorkerView view() {
        return WorkerView.available(id, inFlightCount.get());
    }
}

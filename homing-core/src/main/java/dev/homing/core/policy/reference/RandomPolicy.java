package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerPicker;
import dev.homing.core.policy.WorkerView;

import java.util.List;

/**
 * {@code random}: a uniformly random available worker.
 *
 * <p>Thread-safe: the only state is the seeded {@link WorkerPicker}.
 */
public final class RandomPolicy implements RoutingPolicy {

    public static final String NAME = "random";
    /** Branch label: a worker was chosen. */
    public static final String SELECTED = "selected";

    private final WorkerPicker picker;

    public RandomPolicy(PolicyConfig config) {
        this.picker = new WorkerPicker(config.seed());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Decision select(List<WorkerView> workers, RoutingRequest request) {
        int chosen = picker.anyAvailable(workers);
        return chosen == Decision.NONE ? Decision.noHealthyWorkers() : Decision.of(chosen, SELECTED);
    }
}

package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerPicker;
import dev.homing.core.policy.WorkerView;

import java.util.List;

/**
 * {@code power_of_two}: samples two distinct available workers and takes the less loaded one (the first sample on a
 * tie). The load compared is the workers' reported load when both have one, else the gateway's in-flight count.
 *
 * <p>Unlike the reference, an unknown reported load (negative) is never compared: a worker whose load report failed
 * would otherwise look idle and attract all traffic.
 *
 * <p>Thread-safe: the only state is the seeded {@link WorkerPicker}.
 */
public final class PowerOfTwoPolicy implements RoutingPolicy {

    public static final String NAME = "power_of_two";
    /** Branch label: both samples had a reported load, which decided. */
    public static final String REPORTED_LOAD = "reported_load";
    /** Branch label: the in-flight counts decided (at least one reported load was unknown). */
    public static final String IN_FLIGHT = "in_flight";
    /** Branch label: only one worker was available, so there was nothing to compare. */
    public static final String SINGLE_AVAILABLE = "single_available";

    private final WorkerPicker picker;

    public PowerOfTwoPolicy(PolicyConfig config) {
        this.picker = new WorkerPicker(config.seed());
    }

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
        if (count == 1) {
            return Decision.of(WorkerPicker.nthAvailable(workers, 0), SINGLE_AVAILABLE);
        }
        int firstRank = picker.nextInt(count);
        int secondRank = picker.nextInt(count - 1);
        if (secondRank >= firstRank) {
            secondRank++; // skip the first sample so the two are distinct
        }
        int first = WorkerPicker.nthAvailable(workers, firstRank);
        int second = WorkerPicker.nthAvailable(workers, secondRank);
        WorkerView a = workers.get(first);
        WorkerView b = workers.get(second);
        boolean reported = a.hasReportedLoad() && b.hasReportedLoad();
        long loadA = reported ? a.reportedLoad() : a.inFlight();
        long loadB = reported ? b.reportedLoad() : b.inFlight();
        return Decision.of(loadB < loadA ? second : first, reported ? REPORTED_LOAD : IN_FLIGHT);
    }
}

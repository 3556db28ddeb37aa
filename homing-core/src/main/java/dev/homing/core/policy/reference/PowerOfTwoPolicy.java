package dev.homing.core.policy.reference;

import dev.homing.core.policy.AvailableWorkersPolicy;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerPicker;
import dev.homing.core.policy.WorkerView;

import java.util.List;

/**
 * {@code power_of_two}: samples two distinct available workers and takes the less loaded one (the first sample on a
 * tie). The load compared is the workers' reported load when both have one (branch {@code reported_load}), else the
 * gateway's in-flight count ({@code in_flight}); with a single worker available there is nothing to compare
 * ({@code single_available}).
 *
 * <p>Unlike the reference, an unknown reported load (negative) is never compared: a worker whose load report failed
 * would otherwise look idle and attract all traffic.
 *
 * <p>Thread-safe: the only state is the seeded {@link WorkerPicker}.
 */
public final class PowerOfTwoPolicy extends AvailableWorkersPolicy {

    public static final String NAME = "power_of_two";

    public PowerOfTwoPolicy(PolicyConfig config) {
        super(NAME, config);
    }

    @Override
    protected Decision choose(List<WorkerView> workers, int available, RoutingRequest request) {
        if (available == 1) {
            return Decision.of(WorkerPicker.nthAvailable(workers, 0), "single_available");
        }
        int firstRank = picker.nextInt(available);
        int secondRank = picker.nextInt(available - 1);
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
        return Decision.of(loadB < loadA ? second : first, reported ? "reported_load" : "in_flight");
    }
}

package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PowerOfTwoPolicyTest {

    private static final RoutingRequest REQUEST = RoutingRequest.ofText("hello");

    @Test
    void neverPicksTheBusierOfTheTwoSamples() {
        PowerOfTwoPolicy policy = new PowerOfTwoPolicy(Fleet.config());
        List<WorkerView> workers = Fleet.withInFlight(5, 3);
        for (int i = 0; i < 200; i++) {
            assertThat(policy.select(workers, REQUEST)).isEqualTo(Decision.of(1, "in_flight"));
        }
    }

    @Test
    void neverPicksTheBusiestWorkerOfSeveral() {
        PowerOfTwoPolicy policy = new PowerOfTwoPolicy(Fleet.config());
        List<WorkerView> workers = Fleet.withInFlight(1, 2, 9, 3, 4);
        int[] counts = new int[workers.size()];
        for (int i = 0; i < 2_000; i++) {
            counts[policy.select(workers, REQUEST).workerIndex()]++;
        }
        assertThat(counts[2]).isZero();
        assertThat(counts[0]).as("the idlest wins every pair it is sampled in").isGreaterThan(counts[1]);
    }

    @Test
    void comparesReportedLoadsWhenBothWorkersHaveOne() {
        List<WorkerView> workers = List.of(
                new WorkerView("a", true, 0, 100), new WorkerView("b", true, 10, 5));
        assertThat(new PowerOfTwoPolicy(Fleet.config()).select(workers, REQUEST))
                .isEqualTo(Decision.of(1, "reported_load"));
    }

    @Test
    void ignoresAnUnknownReportedLoadInsteadOfTakingItForIdle() {
        List<WorkerView> workers = List.of(
                new WorkerView("unknown", true, 10, WorkerView.UNKNOWN_LOAD), new WorkerView("known", true, 2, 50));
        PowerOfTwoPolicy policy = new PowerOfTwoPolicy(Fleet.config());
        for (int i = 0; i < 100; i++) {
            assertThat(policy.select(workers, REQUEST)).isEqualTo(Decision.of(1, "in_flight"));
        }
    }

    @Test
    void takesTheOnlyAvailableWorker() {
        List<WorkerView> workers = Fleet.withUnavailable(Fleet.withInFlight(0, 50, 0), 0, 2);
        assertThat(new PowerOfTwoPolicy(Fleet.config()).select(workers, REQUEST))
                .isEqualTo(Decision.of(1, "single_available"));
    }

    @Test
    void choosesNoWorkerWhenNoneIsAvailable() {
        assertThat(new PowerOfTwoPolicy(Fleet.config()).select(List.of(), REQUEST))
                .isEqualTo(Decision.noHealthyWorkers());
    }
}

package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundRobinPolicyTest {

    private static final RoutingRequest REQUEST = RoutingRequest.ofText("hello");

    @Test
    void visitsTheWorkersInTurn() {
        assertThat(choices(new RoundRobinPolicy(), Fleet.idle(3), 7)).containsExactly(0, 1, 2, 0, 1, 2, 0);
    }

    @Test
    void skipsUnavailableWorkers() {
        List<WorkerView> workers = Fleet.withUnavailable(Fleet.idle(4), 1);
        assertThat(choices(new RoundRobinPolicy(), workers, 6)).containsExactly(0, 2, 3, 0, 2, 3);
    }

    @Test
    void givesEveryAvailableWorkerTheSameShare() {
        int[] counts = new int[5];
        RoundRobinPolicy policy = new RoundRobinPolicy();
        List<WorkerView> workers = Fleet.idle(5);
        for (int i = 0; i < 10_000; i++) {
            counts[policy.select(workers, REQUEST).workerIndex()]++;
        }
        assertThat(counts).containsOnly(2_000);
    }

    @Test
    void choosesNoWorkerWhenNoneIsAvailable() {
        assertThat(new RoundRobinPolicy().select(Fleet.withUnavailable(Fleet.idle(1), 0), REQUEST))
                .isEqualTo(Decision.noHealthyWorkers());
    }

    private static List<Integer> choices(RoutingPolicy policy, List<WorkerView> workers, int count) {
        List<Integer> choices = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            choices.add(policy.select(workers, REQUEST).workerIndex());
        }
        return choices;
    }
}

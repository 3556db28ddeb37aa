package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpreadPolicyTest {

    private static final RoutingRequest REQUEST = RoutingRequest.ofText("hello");

    @Test
    void roundRobinVisitsTheWorkersInTurn() {
        assertThat(choices(roundRobin(), Fleet.idle(3), 7)).containsExactly(0, 1, 2, 0, 1, 2, 0);
    }

    @Test
    void roundRobinSkipsUnavailableWorkers() {
        List<WorkerView> workers = Fleet.withUnavailable(Fleet.idle(4), 1);
        assertThat(choices(roundRobin(), workers, 6)).containsExactly(0, 2, 3, 0, 2, 3);
    }

    @Test
    void roundRobinGivesEveryAvailableWorkerTheSameShare() {
        int[] counts = new int[5];
        for (int chosen : choices(roundRobin(), Fleet.idle(5), 10_000)) {
            counts[chosen]++;
        }
        assertThat(counts).containsOnly(2_000);
    }

    @Test
    void randomSpreadsRequestsEvenlyOverTheAvailableWorkers() {
        int[] counts = new int[4];
        for (int chosen : choices(SpreadPolicy.random(Fleet.config()), Fleet.idle(4), 40_000)) {
            counts[chosen]++;
        }
        // Expected 10,000 each with a standard deviation near 87: 9,500..10,500 is more than five deviations.
        assertThat(Arrays.stream(counts).boxed()).allSatisfy(count -> assertThat(count).isBetween(9_500, 10_500));
    }

    @Test
    void randomNeverChoosesAnUnavailableWorker() {
        RoutingPolicy policy = SpreadPolicy.random(Fleet.config());
        List<WorkerView> workers = Fleet.withUnavailable(Fleet.idle(3), 0, 2);
        for (int i = 0; i < 1_000; i++) {
            assertThat(policy.select(workers, REQUEST)).isEqualTo(Decision.of(1, "selected"));
        }
    }

    @Test
    void randomRepeatsItsChoicesForTheSameSeed() {
        List<WorkerView> workers = Fleet.idle(5);
        assertThat(choices(SpreadPolicy.random(Fleet.config()), workers, 50))
                .isEqualTo(choices(SpreadPolicy.random(Fleet.config()), workers, 50))
                .isNotEqualTo(choices(SpreadPolicy.random(Fleet.config().withSeed(7)), workers, 50));
    }

    @Test
    void bothChooseNoWorkerWhenNoneIsAvailable() {
        for (RoutingPolicy policy : List.of(roundRobin(), SpreadPolicy.random(Fleet.config()))) {
            assertThat(policy.select(Fleet.withUnavailable(Fleet.idle(2), 0, 1), REQUEST)).as(policy.name())
                    .isEqualTo(Decision.noHealthyWorkers());
            assertThat(policy.select(List.of(), REQUEST).found()).as(policy.name()).isFalse();
        }
    }

    private static RoutingPolicy roundRobin() {
        return SpreadPolicy.roundRobin(Fleet.config());
    }

    private static List<Integer> choices(RoutingPolicy policy, List<WorkerView> workers, int count) {
        List<Integer> choices = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            choices.add(policy.select(workers, REQUEST).workerIndex());
        }
        return choices;
    }
}

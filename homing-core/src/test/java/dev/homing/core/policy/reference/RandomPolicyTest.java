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

class RandomPolicyTest {

    private static final RoutingRequest REQUEST = RoutingRequest.ofText("hello");

    @Test
    void spreadsRequestsEvenlyOverTheAvailableWorkers() {
        RandomPolicy policy = new RandomPolicy(Fleet.config());
        List<WorkerView> workers = Fleet.idle(4);
        int[] counts = new int[4];
        for (int i = 0; i < 40_000; i++) {
            counts[policy.select(workers, REQUEST).workerIndex()]++;
        }
        // Expected 10,000 each with a standard deviation near 87: 9,500..10,500 is more than five deviations.
        assertThat(Arrays.stream(counts).boxed()).allSatisfy(count -> assertThat(count).isBetween(9_500, 10_500));
    }

    @Test
    void neverChoosesAnUnavailableWorker() {
        RandomPolicy policy = new RandomPolicy(Fleet.config());
        List<WorkerView> workers = Fleet.withUnavailable(Fleet.idle(3), 0, 2);
        for (int i = 0; i < 1_000; i++) {
            assertThat(policy.select(workers, REQUEST)).isEqualTo(Decision.of(1, RandomPolicy.SELECTED));
        }
    }

    @Test
    void choosesNoWorkerWhenNoneIsAvailable() {
        RandomPolicy policy = new RandomPolicy(Fleet.config());
        assertThat(policy.select(Fleet.withUnavailable(Fleet.idle(2), 0, 1), REQUEST))
                .isEqualTo(Decision.noHealthyWorkers());
        assertThat(policy.select(List.of(), REQUEST).found()).isFalse();
    }

    @Test
    void theSameSeedRepeatsTheSameChoices() {
        List<WorkerView> workers = Fleet.idle(5);
        assertThat(choices(new RandomPolicy(Fleet.config()), workers))
                .isEqualTo(choices(new RandomPolicy(Fleet.config()), workers))
                .isNotEqualTo(choices(new RandomPolicy(Fleet.config().withSeed(7)), workers));
    }

    private static List<Integer> choices(RoutingPolicy policy, List<WorkerView> workers) {
        List<Integer> choices = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            choices.add(policy.select(workers, REQUEST).workerIndex());
        }
        return choices;
    }
}

package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.policy.PolicyConfig.AssignmentMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ManualPolicyTest {

    private final Fleet.ManualClock clock = new Fleet.ManualClock();

    @Test
    void keepsAKeyOnItsWorkerWhateverTheLoad() {
        ManualPolicy policy = policy(AssignmentMode.MIN_LOAD, 3_600);
        Decision first = policy.select(Fleet.withInFlight(5, 0, 5), key("alice"));
        assertThat(first).isEqualTo(Decision.of(1, "vacant"));
        assertThat(policy.select(Fleet.withInFlight(0, 90, 0), key("alice")))
                .isEqualTo(Decision.of(1, "occupied_hit"));
    }

    @Test
    void staysOnTheReplacementWhenTheOriginalWorkerRecoversAndReturnsWhenTheReplacementFails() {
        ManualPolicy policy = policy(AssignmentMode.MIN_LOAD, 3_600);
        List<WorkerView> workers = Fleet.withInFlight(0, 1, 2);
        assertThat(policy.select(workers, key("alice")).workerIndex()).isEqualTo(0);

        assertThat(policy.select(Fleet.withUnavailable(workers, 0), key("alice")))
                .isEqualTo(Decision.of(1, "occupied_miss"));
        // w0 is back, but w1 served the conversation since and holds its longer prefix: the newest candidate wins
        // while it is up (the reference goes back to w0); the older one is the fallback.
        assertThat(policy.select(workers, key("alice"))).isEqualTo(Decision.of(1, "occupied_hit"));
        assertThat(policy.select(Fleet.withUnavailable(workers, 1), key("alice")))
                .isEqualTo(Decision.of(0, "occupied_hit"));
    }

    @Test
    void remembersAtMostTwoWorkersPerKey() {
        ManualPolicy policy = policy(AssignmentMode.MIN_LOAD, 3_600);
        List<WorkerView> workers = Fleet.withInFlight(0, 1, 2);
        policy.select(workers, key("alice"));                                  // w0
        policy.select(Fleet.withUnavailable(workers, 0), key("alice"));        // w0, w1
        policy.select(Fleet.withUnavailable(workers, 0, 1), key("alice"));     // w1, w2: w0 is dropped
        assertThat(policy.activeKeysPerWorker()).isEqualTo(Map.of("w1", 1, "w2", 1));

        assertThat(policy.select(Fleet.withUnavailable(workers, 1, 2), key("alice")))
                .isEqualTo(Decision.of(0, "occupied_miss"));
        assertThat(policy.activeKeysPerWorker()).isEqualTo(Map.of("w0", 1, "w2", 1));
        assertThat(policy.cacheEntries()).isEqualTo(1);
    }

    @Test
    void forgetsAKeyIdleLongerThanMaxIdleSecs() {
        ManualPolicy policy = policy(AssignmentMode.RANDOM, 10);
        policy.select(Fleet.idle(3), key("alice"));

        clock.advanceSeconds(10);
        policy.maintain();
        assertThat(policy.cacheEntries()).as("idle exactly the limit is kept").isEqualTo(1);

        clock.advanceNanos(1);
        policy.maintain();
        assertThat(policy.cacheEntries()).isZero();
        assertThat(policy.activeKeysPerWorker()).isEmpty();
        assertThat(policy.select(Fleet.idle(3), key("alice")).branch()).isEqualTo("vacant");
    }

    @Test
    void eachUseRestartsTheIdleTimer() {
        ManualPolicy policy = policy(AssignmentMode.RANDOM, 10);
        policy.select(Fleet.idle(3), key("alice"));
        clock.advanceSeconds(8);
        policy.select(Fleet.idle(3), key("alice"));
        clock.advanceSeconds(8);
        policy.maintain();
        assertThat(policy.cacheEntries()).isEqualTo(1);
    }

    @Test
    void randomModeSpreadsNewKeysOverTheWorkers() {
        ManualPolicy policy = policy(AssignmentMode.RANDOM, 3_600);
        Set<Integer> chosen = new HashSet<>();
        for (int k = 0; k < 60; k++) {
            chosen.add(policy.select(Fleet.withInFlight(0, 50, 9), key("user-" + k)).workerIndex());
        }
        assertThat(chosen).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void minLoadModeGivesANewKeyTheWorkerWithFewestRequestsInFlight() {
        ManualPolicy policy = policy(AssignmentMode.MIN_LOAD, 3_600);
        for (int k = 0; k < 20; k++) {
            assertThat(policy.select(Fleet.withInFlight(4, 9, 2, 3), key("user-" + k)).workerIndex()).isEqualTo(2);
        }
    }

    @Test
    void minGroupModeGivesANewKeyTheWorkerWithFewestKeys() {
        ManualPolicy policy = policy(AssignmentMode.MIN_GROUP, 3_600);
        for (int k = 0; k < 12; k++) {
            policy.select(Fleet.withInFlight(0, 50, 9), key("user-" + k));
        }
        assertThat(policy.activeKeysPerWorker()).isEqualTo(Map.of("w0", 4, "w1", 4, "w2", 4));
    }

    @Test
    void addingWorkersNeverMovesAKey() {
        ManualPolicy policy = policy(AssignmentMode.MIN_GROUP, 3_600);
        Map<String, Integer> placed = new HashMap<>();
        for (int k = 0; k < 30; k++) {
            placed.put("user-" + k, policy.select(Fleet.idle(3), key("user-" + k)).workerIndex());
        }
        for (int k = 0; k < 30; k++) {
            assertThat(policy.select(Fleet.idle(5), key("user-" + k)))
                    .isEqualTo(Decision.of(placed.get("user-" + k), "occupied_hit"));
        }
    }

    @Test
    void assignsARequestWithoutAKeyAfreshAndRemembersNothing() {
        ManualPolicy policy = policy(AssignmentMode.MIN_LOAD, 3_600);
        assertThat(policy.select(Fleet.withInFlight(3, 1), RoutingRequest.ofText("hi")))
                .isEqualTo(Decision.of(1, "no_routing_id"));
        assertThat(policy.cacheEntries()).isZero();
    }

    @Test
    void anEmptyRoutingKeyIsNoKey() {
        ManualPolicy policy = policy(AssignmentMode.RANDOM, 3_600);
        assertThat(policy.select(Fleet.idle(3), key("")).branch()).isEqualTo("no_routing_id");
        assertThat(policy.cacheEntries()).as("no session for the empty key").isZero();
    }

    @Test
    void choosesNoWorkerWhenNoneIsAvailable() {
        ManualPolicy policy = policy(AssignmentMode.RANDOM, 3_600);
        assertThat(policy.select(Fleet.withUnavailable(Fleet.idle(2), 0, 1), key("alice")))
                .isEqualTo(Decision.noHealthyWorkers());
        assertThat(policy.cacheEntries()).isZero();
    }

    @Test
    void forgetsARemovedWorker() {
        ManualPolicy policy = policy(AssignmentMode.MIN_LOAD, 3_600);
        policy.select(Fleet.withInFlight(0, 1), key("alice"));
        policy.select(Fleet.withInFlight(1, 0), key("bob"));
        policy.onWorkerRemoved("w0");
        assertThat(policy.cacheEntries()).isEqualTo(1);
        assertThat(policy.activeKeysPerWorker()).isEqualTo(Map.of("w1", 1));
    }

    @Test
    void keyCountsStayExactUnderConcurrentUse() throws Exception {
        ManualPolicy policy = policy(AssignmentMode.MIN_GROUP, 10);
        List<WorkerView> workers = Fleet.idle(4);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 5_000; i++) {
                    // Each thread flaps a different worker so keys keep moving between candidates.
                    List<WorkerView> view = i % 3 == 0 ? Fleet.withUnavailable(workers, thread) : workers;
                    policy.select(view, key("user-" + (i * 7 + thread) % 200));
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        int candidates = policy.activeKeysPerWorker().values().stream().mapToInt(Integer::intValue).sum();
        assertThat(candidates).isBetween(policy.cacheEntries(), 2 * policy.cacheEntries());

        clock.advanceSeconds(11);
        policy.maintain();
        assertThat(policy.cacheEntries()).isZero();
        assertThat(policy.activeKeysPerWorker()).as("every key's count was added and removed exactly once").isEmpty();
    }

    private ManualPolicy policy(AssignmentMode mode, long maxIdleSecs) {
        return new ManualPolicy(new PolicyConfig(0.3, 64, 1.5, 1 << 26, maxIdleSecs, mode, 256, 1.25, 5, 42), clock);
    }

    private static RoutingRequest key(String routingKey) {
        return new RoutingRequest("", routingKey, null, null);
    }
}

package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConsistentHashingPolicyTest {

    private final ConsistentHashingPolicy policy = new ConsistentHashingPolicy(Fleet.config());

    @Test
    void sendsATargetedRequestToTheWorkerAtThatIndex() {
        assertThat(policy.select(Fleet.idle(3), target("2")))
                .isEqualTo(Decision.of(2, "target_worker_hit"));
    }

    @Test
    void refusesATargetThatIsUnavailableInsteadOfRerouting() {
        List<WorkerView> workers = Fleet.withUnavailable(Fleet.idle(3), 1);
        assertThat(policy.select(workers, target("1")))
                .isEqualTo(Decision.none("target_worker_miss"));
    }

    @Test
    void refusesATargetOutOfRangeOrNotANumber() {
        assertThat(policy.select(Fleet.idle(3), target("3")).branch())
                .isEqualTo("target_worker_miss");
        assertThat(policy.select(Fleet.idle(3), target("-1")).found()).isFalse();
        assertThat(policy.select(Fleet.idle(3), target("first")).found()).isFalse();
    }

    @Test
    void theTargetTakesPriorityOverTheRoutingKey() {
        RoutingRequest request = new RoutingRequest("", "session-1", "0", "Bearer x");
        assertThat(policy.select(Fleet.idle(3), request))
                .isEqualTo(Decision.of(0, "target_worker_hit"));
    }

    @Test
    void sendsARoutingKeyToTheSameWorkerEveryTime() {
        List<WorkerView> workers = Fleet.idle(5);
        Decision first = policy.select(workers, key("session-42"));
        assertThat(first.branch()).isEqualTo("routing_key_hit");
        ConsistentHashingPolicy another = new ConsistentHashingPolicy(Fleet.config().withSeed(99));
        for (int i = 0; i < 20; i++) {
            assertThat(policy.select(workers, key("session-42"))).isEqualTo(first);
            assertThat(another.select(workers, key("session-42"))).isEqualTo(first);
        }
    }

    @Test
    void mapsAKeyToTheSameWorkerWhateverTheListOrder() {
        List<WorkerView> workers = Fleet.idle(5);
        List<WorkerView> reversed = new ArrayList<>(workers);
        Collections.reverse(reversed);
        for (int k = 0; k < 100; k++) {
            String chosen = workers.get(policy.select(workers, key("k" + k)).workerIndex()).id();
            assertThat(reversed.get(policy.select(reversed, key("k" + k)).workerIndex()).id()).isEqualTo(chosen);
        }
    }

    @Test
    void routesByTheImplicitKeyWhenThereIsNoRoutingKey() {
        List<WorkerView> workers = Fleet.idle(5);
        for (int k = 0; k < 50; k++) {
            Decision byImplicit = policy.select(workers, new RoutingRequest("", null, null, "Bearer " + k));
            assertThat(byImplicit).isEqualTo(policy.select(workers, key("Bearer " + k)));
        }
    }

    @Test
    void theRoutingKeyTakesPriorityOverTheImplicitKey() {
        List<WorkerView> workers = Fleet.idle(5);
        for (int k = 0; k < 50; k++) {
            assertThat(policy.select(workers, new RoutingRequest("", "s" + k, null, "Bearer x")))
                    .isEqualTo(policy.select(workers, key("s" + k)));
        }
    }

    @Test
    void anEmptyTargetIsNoTargetSoTheRoutingKeyDecides() {
        List<WorkerView> workers = Fleet.idle(3);
        assertThat(policy.select(workers, new RoutingRequest("", "session-1", "", null)))
                .isEqualTo(policy.select(workers, key("session-1")));
        assertThat(policy.select(workers, target("")).found()).as("an empty target alone is no refusal").isTrue();
    }

    @Test
    void fallsBackToARandomWorkerWithoutAnyKeyAnEmptyHeaderBeingNone() {
        // Hashing "" instead would send every request with an empty header to one worker.
        List<WorkerView> workers = Fleet.idle(3);
        for (RoutingRequest keyless : List.of(RoutingRequest.ofText("hello"), key(""),
                new RoutingRequest("", null, null, ""))) {
            int[] counts = new int[3];
            for (int i = 0; i < 300; i++) {
                Decision decision = policy.select(workers, keyless);
                assertThat(decision.branch()).isEqualTo("random_fallback");
                counts[decision.workerIndex()]++;
            }
            assertThat(counts).as(keyless.toString()).doesNotContain(0);
        }
    }

    @Test
    void spreadsKeysEvenlyOverTheWorkers() {
        List<WorkerView> workers = Fleet.idle(4);
        int[] counts = new int[4];
        for (int k = 0; k < 4_000; k++) {
            counts[policy.select(workers, key("user-" + k)).workerIndex()]++;
        }
        // 150 points per worker keep each share within a few percent of a quarter.
        for (int count : counts) {
            assertThat(count).isBetween(700, 1_300);
        }
    }

    @Test
    void movesOnlyTheNewWorkersShareOfKeysWhenAWorkerIsAdded() {
        List<WorkerView> four = Fleet.idle(4);
        List<WorkerView> five = Fleet.idle(5);
        int moved = 0;
        for (int k = 0; k < 2_000; k++) {
            String before = four.get(policy.select(four, key("user-" + k)).workerIndex()).id();
            String after = five.get(policy.select(five, key("user-" + k)).workerIndex()).id();
            if (!before.equals(after)) {
                moved++;
                assertThat(after).as("a key only ever moves to the new worker").isEqualTo("w4");
            }
        }
        // The new worker's fair share is a fifth (400 keys); all others stay put.
        assertThat(moved).isBetween(250, 550);
    }

    @Test
    void skipsAnUnavailableWorkerAndMovesOnlyItsKeys() {
        List<WorkerView> workers = Fleet.idle(4);
        List<WorkerView> withoutW2 = Fleet.withUnavailable(workers, 2);
        for (int k = 0; k < 500; k++) {
            int before = policy.select(workers, key("user-" + k)).workerIndex();
            int after = policy.select(withoutW2, key("user-" + k)).workerIndex();
            assertThat(after).isNotEqualTo(2);
            if (before != 2) {
                assertThat(after).isEqualTo(before);
            }
        }
    }

    @Test
    void choosesNoWorkerForAKeyWhenNoneIsAvailable() {
        assertThat(policy.select(Fleet.withUnavailable(Fleet.idle(2), 0, 1), key("k")))
                .isEqualTo(Decision.noHealthyWorkers());
        assertThat(policy.select(List.of(), RoutingRequest.ofText("x")).found()).isFalse();
    }

    private static RoutingRequest target(String index) {
        return new RoutingRequest("", null, index, null);
    }

    private static RoutingRequest key(String routingKey) {
        return new RoutingRequest("", routingKey, null, null);
    }
}

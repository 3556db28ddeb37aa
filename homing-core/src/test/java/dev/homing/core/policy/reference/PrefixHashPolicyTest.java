package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PrefixHashPolicyTest {

    /** Four tokens' worth: the policy hashes the first 16 chars. */
    private static final int PREFIX_TOKENS = 4;
    private static final String TEXT = "You are a helpful assistant. Summarise the following.";

    @Test
    void sendsTextsWithTheSamePrefixToTheSameWorker() {
        PrefixHashPolicy policy = policy(1.25);
        List<WorkerView> workers = Fleet.idle(5);
        Decision first = policy.select(workers, RoutingRequest.ofText("0123456789abcdef and then one thing"));
        assertThat(first.branch()).isEqualTo("ring_hit");
        for (int i = 0; i < 50; i++) {
            assertThat(policy.select(workers, RoutingRequest.ofText("0123456789abcdef then another " + i)))
                    .isEqualTo(first);
        }
    }

    @Test
    void hashesFourCharsPerConfiguredToken() {
        PrefixHashPolicy policy = policy(1.25);
        List<WorkerView> workers = Fleet.idle(8);
        Set<Integer> chosenWhenCharSixteenDiffers = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            // Char 16 is past the prefix, char 15 the last inside it.
            chosenWhenCharSixteenDiffers.add(policy.select(workers, RoutingRequest.ofText("abcdefghijklmnop" + i))
                    .workerIndex());
        }
        Set<Integer> chosenWhenCharFifteenDiffers = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            chosenWhenCharFifteenDiffers.add(policy.select(workers, RoutingRequest.ofText("abcdefghijklmno" + i))
                    .workerIndex());
        }
        assertThat(chosenWhenCharSixteenDiffers).hasSize(1);
        assertThat(chosenWhenCharFifteenDiffers).hasSizeGreaterThan(1);
    }

    @Test
    void walksPastTheRingWorkerWhenItsLoadExceedsTheLimit() {
        int onRing = ringOrder(TEXT).get(0);
        int next = ringOrder(TEXT).get(1);
        // total 3 over 4 workers: limit (3 + 1) / 4 * 1.25 = 1.25, and the ring's worker holds 3.
        List<WorkerView> workers = loads(onRing, 3, 0);
        assertThat(policy(1.25).select(workers, RoutingRequest.ofText(TEXT)))
                .isEqualTo(Decision.of(next, "load_balance_walk"));
    }

    @Test
    void acceptsAWorkerExactlyAtTheLimit() {
        int onRing = ringOrder(TEXT).get(0);
        // loads 3, 3, 3, 2: total 11, limit (11 + 1) / 4 * 1.0 = 3, and 3 <= 3.
        List<WorkerView> workers = loads(onRing, 3, 3);
        workers.set(lowestOtherThan(onRing), WorkerView.available(workers.get(lowestOtherThan(onRing)).id(), 2));
        assertThat(policy(1.0).select(workers, RoutingRequest.ofText(TEXT)))
                .isEqualTo(Decision.of(onRing, "ring_hit"));
    }

    @Test
    void walksOnUntilAWorkerIsUnderTheLimit() {
        List<Integer> order = ringOrder(TEXT);
        // loads 4, 4, 0, 0 in ring order: total 8, limit (8 + 1) / 4 * 1.0 = 2.25; the third worker is the first under.
        List<WorkerView> workers = loads(order.get(0), 4, 0);
        workers.set(order.get(1), WorkerView.available(workers.get(order.get(1)).id(), 4));
        assertThat(policy(1.0).select(workers, RoutingRequest.ofText(TEXT)))
                .isEqualTo(Decision.of(order.get(2), "load_balance_walk"));
    }

    @Test
    void fallsBackToTheLeastLoadedWhenNoWorkerIsUnderTheLimit() {
        // loads 4, 4, 2, 4: total 14, limit (14 + 1) / 4 * 0.5 = 1.875, which nobody meets.
        List<WorkerView> workers = Fleet.withInFlight(4, 4, 2, 4);
        assertThat(policy(0.5).select(workers, RoutingRequest.ofText(TEXT)))
                .isEqualTo(Decision.of(2, "fallback_least_load"));
    }

    @Test
    void sendsAnEmptyTextToTheLeastLoadedWorker() {
        assertThat(policy(1.25).select(Fleet.withInFlight(3, 1, 2), RoutingRequest.ofText("")))
                .isEqualTo(Decision.of(1, "no_tokens"));
    }

    @Test
    void spreadsEmptyTextsOverIdleWorkersAtRandom() {
        PrefixHashPolicy policy = policy(1.25);
        Set<Integer> chosen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            chosen.add(policy.select(Fleet.idle(3), RoutingRequest.ofText("")).workerIndex());
        }
        assertThat(chosen).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void choosesNoWorkerWhenNoneIsAvailable() {
        assertThat(policy(1.25).select(Fleet.withUnavailable(Fleet.idle(2), 0, 1), RoutingRequest.ofText(TEXT)))
                .isEqualTo(Decision.noHealthyWorkers());
    }

    /** Worker indexes in the clockwise order the ring visits them from the text's point (four idle workers). */
    private static List<Integer> ringOrder(String text) {
        List<Integer> order = new ArrayList<>();
        List<WorkerView> workers = Fleet.idle(4);
        for (int step = 0; step < 4; step++) {
            int next = policy(1.25).select(workers, RoutingRequest.ofText(text)).workerIndex();
            order.add(next);
            workers = Fleet.withUnavailable(workers, next);
        }
        return order;
    }

    /** Four workers, {@code busy} holding {@code busyLoad} and the others {@code otherLoad}. */
    private static List<WorkerView> loads(int busy, int busyLoad, int otherLoad) {
        int[] inFlight = new int[4];
        for (int i = 0; i < 4; i++) {
            inFlight[i] = i == busy ? busyLoad : otherLoad;
        }
        return Fleet.withInFlight(inFlight);
    }

    private static int lowestOtherThan(int index) {
        return index == 0 ? 1 : 0;
    }

    private static PrefixHashPolicy policy(double loadFactor) {
        return new PrefixHashPolicy(new PolicyConfig(0.3, 64, 1.5, 1 << 26, 14_400,
                PolicyConfig.AssignmentMode.RANDOM, PREFIX_TOKENS, loadFactor, 5, 42));
    }
}

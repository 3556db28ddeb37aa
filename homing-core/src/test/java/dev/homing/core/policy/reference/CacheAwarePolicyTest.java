package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Thresholds are the reference's CLI defaults: cache 0.3, balance abs 64 and rel 1.5. */
class CacheAwarePolicyTest {

    private final CacheAwarePolicy policy = new CacheAwarePolicy(PolicyConfig.DEFAULTS, System::nanoTime);

    private static WorkerView worker(String id, int inFlight) {
        return WorkerView.available(id, inFlight);
    }

    private static WorkerView unavailable(String id) {
        return new WorkerView(id, false, 0, WorkerView.UNKNOWN_LOAD);
    }

    private Decision select(String text, WorkerView... workers) {
        return policy.select(List.of(workers), RoutingRequest.ofText(text));
    }

    @Test
    void isNamedCacheAware() {
        assertThat(policy.name()).isEqualTo("cache_aware");
    }

    @Test
    void noAvailableWorkerGivesNoDecision() {
        assertThat(select("hi", unavailable("w0"), unavailable("w1"))).isEqualTo(Decision.noHealthyWorkers());
        assertThat(select("hi")).isEqualTo(Decision.noHealthyWorkers());
    }

    @Test
    void loadsZeroAndSixtyFourAreNotImbalanced() {
        Decision decision = select("hello", worker("w0", 64), worker("w1", 0));

        assertThat(decision.branch()).isEqualTo("miss");
        assertThat(decision.workerIndex()).isEqualTo(1);
    }

    @Test
    void loadsZeroAndSixtyFiveAreImbalancedAndGoToTheLeastLoaded() {
        policy.tree().insert("hello", "w0");

        Decision decision = select("hello", worker("w0", 65), worker("w1", 0));

        assertThat(decision).isEqualTo(new Decision(1, "imbalance", 0, 5));
    }

    @Test
    void theImbalanceBranchStillInsertsTheTextForTheChosenWorker() {
        select("hello there", worker("w0", 65), worker("w1", 0));

        assertThat(policy.tree().match("hello there").tenantsAtDeepest()).containsExactly("w1");
    }

    @Test
    void loadsOneHundredAndOneFiftyAreNotImbalancedBecauseTheGapIsFifty() {
        assertThat(select("hello", worker("w0", 100), worker("w1", 150)).branch()).isEqualTo("miss");
    }

    @Test
    void imbalanceAlsoNeedsTheMaximumAboveTheRelativeThreshold() {
        assertThat(select("a", worker("w0", 100), worker("w1", 165)).branch()).isEqualTo("imbalance"); // 165 > 150
        assertThat(select("b", worker("w0", 200), worker("w1", 265)).branch()).isEqualTo("miss"); // 265 <= 300
    }

    @Test
    void aMatchRatioOfExactlyTheThresholdIsAMiss() {
        policy.tree().insert("abc", "w1");

        Decision decision = select("abcdefghij", worker("w0", 0), worker("w1", 1)); // 3/10 = 0.3

        assertThat(decision).isEqualTo(new Decision(0, "miss", 0, 10));
    }

    @Test
    void aMatchRatioJustAboveTheThresholdIsAHit() {
        policy.tree().insert("abc", "w1");

        Decision decision = select("abcdefghi", worker("w0", 0), worker("w1", 1)); // 3/9 > 0.3

        assertThat(decision).isEqualTo(new Decision(1, "hit", 3, 9));
    }

    @Test
    void aHitCarriesTheMatchedAndTotalCharacters() {
        policy.tree().insert("system prompt", "w1");

        Decision decision = select("system prompt, hi", worker("w0", 0), worker("w1", 0));

        assertThat(decision.matchedChars()).isEqualTo(13);
        assertThat(decision.textChars()).isEqualTo(17);
    }

    @Test
    void aMissReportsWhatTheChosenWorkerItselfHolds() {
        policy.tree().insert("abcdefg", "w1");
        policy.tree().insert("abXXXXXX", "w0");

        Decision decision = select("abcdefghijklmnopqrstuvwxyz", worker("w0", 0), worker("w1", 2)); // 7/26

        assertThat(decision).isEqualTo(new Decision(0, "miss", 2, 26));
    }

    @Test
    void anUnavailableMatchedWorkerIsPassedOverForTheLeastLoadedNotTheFirst() {
        policy.tree().insert("long shared prompt", "w1");

        Decision decision = select("long shared prompt", worker("w0", 5), unavailable("w1"), worker("w2", 3));

        assertThat(decision.workerIndex()).isEqualTo(2);
        assertThat(decision.branch()).isEqualTo("miss");
    }

    @Test
    void anUnavailableMatchedWorkerKeepsItsTreeDataForWhenItReturns() {
        policy.tree().insert("long shared prompt", "w1");
        select("long shared prompt", worker("w0", 5), unavailable("w1"), worker("w2", 3));

        Decision decision = select("long shared prompt", worker("w0", 5), worker("w1", 4), worker("w2", 3));

        assertThat(decision.branch()).isEqualTo("hit");
        assertThat(decision.workerIndex()).isIn(1, 2); // both now hold it in full; w2 is less loaded
        assertThat(policy.tree().match("long shared prompt").matchedCharsFor("w1")).isEqualTo(18);
    }

    @Test
    void anUnavailableMatchedWorkerFallsBackToTheBestOtherHolderAboveTheThreshold() {
        policy.tree().insert("abcdefghij", "w1");
        policy.tree().insert("abcdefgh", "w2");

        Decision decision = select("abcdefghij", worker("w0", 0), unavailable("w1"), worker("w2", 9));

        assertThat(decision).isEqualTo(new Decision(2, "hit", 8, 10));
    }

    @Test
    void aFallbackHolderAtOrBelowTheThresholdIsAMiss() {
        policy.tree().insert("abcdefghij", "w1");
        policy.tree().insert("abcZZZZZZZ", "w2");

        Decision decision = select("abcdefghij", worker("w0", 0), unavailable("w1"), worker("w2", 9)); // w2: 3/10

        assertThat(decision).isEqualTo(new Decision(0, "miss", 0, 10));
    }

    @Test
    void amongWorkersHoldingTheLongestMatchTheLessLoadedWins() {
        policy.tree().insert("shared prompt text", "w1");
        policy.tree().insert("shared prompt text", "w2");

        Decision decision = select("shared prompt text", worker("w0", 0), worker("w1", 3), worker("w2", 1));

        assertThat(decision).isEqualTo(new Decision(2, "hit", 18, 18));
    }

    @Test
    void equallyLoadedWorkersTakeTurnsOnAMiss() {
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            chosen.add(select((char) ('a' + i) + " shares no prefix", worker("w0", 0), worker("w1", 0), worker("w2", 7)).workerIndex());
        }

        assertThat(chosen).containsExactly(0, 1, 0, 1);
    }

    @Test
    void tieBreaksRepeatForTheSameSeedAndShiftWithAnother() {
        assertThat(missChoices(7)).isEqualTo(missChoices(7));
        assertThat(missChoices(7)).isNotEqualTo(missChoices(8));
    }

    private static List<Integer> missChoices(long seed) {
        CacheAwarePolicy seeded = new CacheAwarePolicy(PolicyConfig.DEFAULTS.withSeed(seed), System::nanoTime);
        List<WorkerView> workers = List.of(worker("w0", 0), worker("w1", 0), worker("w2", 0));
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            chosen.add(seeded.select(workers, RoutingRequest.ofText(i + " shares no prefix")).workerIndex());
        }
        return chosen;
    }

    @Test
    void equallyLoadedHoldersOfTheLongestMatchTakeTurns() {
        policy.tree().insert("shared prompt text", "w1");
        policy.tree().insert("shared prompt text", "w2");
        List<WorkerView> workers = List.of(worker("w0", 0), worker("w1", 2), worker("w2", 2));

        int first = policy.select(workers, RoutingRequest.ofText("shared prompt text")).workerIndex();
        int second = policy.select(workers, RoutingRequest.ofText("shared prompt text")).workerIndex();

        assertThat(List.of(first, second)).containsExactlyInAnyOrder(1, 2);
    }

    @Test
    void theChosenWorkerHoldsTheTextAfterwards() {
        Decision decision = select("a brand new prompt", worker("w0", 0), worker("w1", 1));

        assertThat(policy.tree().match("a brand new prompt").tenantsAtDeepest()).containsExactly("w0");
        assertThat(decision.workerIndex()).isZero();
    }

    @Test
    void anEmptyTextIsAMiss() {
        assertThat(select("", worker("w0", 0))).isEqualTo(new Decision(0, "miss", 0, 0));
    }

    @Test
    void maintainEvictsTheTreeDownToItsCap() {
        CacheAwarePolicy small = new CacheAwarePolicy(
                new PolicyConfig(0.3, 64, 1.5, 10, 14_400, PolicyConfig.AssignmentMode.RANDOM, 256, 1.25, 5, 0),
                System::nanoTime);
        small.tree().insert("0123456", "w0");
        small.tree().insert("abcdef", "w1");

        small.maintain();

        assertThat(small.tree().stats().storedChars()).isLessThanOrEqualTo(10);
        assertThat(small.tree().match("abcdef").matchedChars()).isEqualTo(6);
    }

    @Test
    void aRemovedWorkerIsForgotten() {
        policy.tree().insert("prompt", "w1");

        policy.onWorkerRemoved("w1");

        assertThat(policy.tree().match("prompt").matchedChars()).isZero();
        assertThat(policy.tree().stats().tenantCount()).isZero();
    }

    @Test
    void aReorderedWorkerListStillRoutesToTheWorkerHoldingTheMatch() {
        policy.tree().insert("shared prompt text", "w1");
        select("shared prompt text", worker("w0", 0), worker("w1", 0), worker("w2", 0));

        Decision decision = select("shared prompt text", worker("w2", 0), worker("w0", 0), worker("w1", 0));

        assertThat(decision).isEqualTo(new Decision(2, "hit", 18, 18));
    }

    @Test
    void aMatchedWorkerMissingFromTheListIsPassedOver() {
        policy.tree().insert("long shared prompt", "gone");

        Decision decision = select("long shared prompt", worker("w0", 2), worker("w1", 1));

        assertThat(decision).isEqualTo(new Decision(1, "miss", 0, 18));
        assertThat(policy.tree().match("long shared prompt").matchedCharsFor("gone")).isEqualTo(18);
    }
}

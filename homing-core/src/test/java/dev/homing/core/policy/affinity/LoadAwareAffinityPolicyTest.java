package dev.homing.core.policy.affinity;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One rule each, with exact numbers. Unless a test says otherwise the load bound is off (factor 100), queued prefill
 * weighs as much as cached prefill (weight 1) and the window is so long that nothing decays in a test.
 */
class LoadAwareAffinityPolicyTest {

    private static final AffinitySettings PLAIN = new AffinitySettings(0.1, 100, 0.5, 1_000_000_000, 1.0, 256, 0.1, 0, 0);

    private LoadAwareAffinityPolicy policy = policyWith(PLAIN);

    private static LoadAwareAffinityPolicy policyWith(AffinitySettings settings) {
        return new LoadAwareAffinityPolicy(PolicyConfig.DEFAULTS.withAffinity(settings), System::nanoTime);
    }

    private static final WorkerView W0 = WorkerView.available("w0", 0);
    private static final WorkerView W1 = WorkerView.available("w1", 0);
    private static final WorkerView W1_DOWN = new WorkerView("w1", false, 0, WorkerView.UNKNOWN_LOAD);

    private Decision select(String text, WorkerView... workers) {
        return policy.select(List.of(workers), RoutingRequest.ofText(text));
    }

    private HitAccuracy accuracyOf(String workerId) {
        return policy.hitAccuracy().stream().filter(a -> a.workerId().equals(workerId)).findFirst().orElseThrow();
    }

    /** Places {@code text} on w0 alone and reports its first token, so it leaves no queued prefill behind. */
    private void answeredOnW0(String text) {
        Decision decision = select(text, W0, W1_DOWN);
        policy.onFirstToken("w0", decision);
    }

    @Test
    void isNamedLoadAwareAffinity() {
        assertThat(policy.name()).isEqualTo("load_aware_affinity");
        assertThat(PolicyFactory.create("load_aware_affinity", PolicyConfig.DEFAULTS, System::nanoTime))
                .isInstanceOf(LoadAwareAffinityPolicy.class);
    }

    @Test
    void theFactoryHandsThePolicyItsSettings() {
        PolicyConfig config = PolicyConfig.DEFAULTS.withAffinity(PLAIN);

        RoutingPolicy created = PolicyFactory.create("load_aware_affinity", config, System::nanoTime);

        assertThat(((LoadAwareAffinityPolicy) created).settings()).isEqualTo(PLAIN);
    }

    @Test
    void settingsOutOfRangeAreRefusedNamingEachComponent() {
        assertThatThrownBy(() -> new AffinitySettings(1.5, 0.5, -0.5, 0, -1, -1, -0.1, Double.NaN, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minSaving").hasMessageContaining("loadFactor")
                .hasMessageContaining("moveTolerance")
                .hasMessageContaining("windowDecisions").hasMessageContaining("pendingWeight")
                .hasMessageContaining("trimMinChars").hasMessageContaining("trimShare")
                .hasMessageContaining("charsPerToken")
                .hasMessageContaining("prefillWaitMillis").hasMessageNotContaining("--");
    }

    @Test
    void noAvailableWorkerGivesNoDecision() {
        assertThat(select("hi", W1_DOWN)).isEqualTo(Decision.noHealthyWorkers());
    }

    @Test
    void anIdleFleetSendsARequestToItsLongestMatch() {
        answeredOnW0("a".repeat(1000));

        assertThat(select("a".repeat(1000) + "b".repeat(200), W0, W1)).isEqualTo(new Decision(0, "hit", 1000, 1200));
    }

    @Test
    void queuedPrefillLargerThanTheSavingSendsTheRequestElsewhere() {
        answeredOnW0("a".repeat(1000));
        select("q".repeat(5000), W0, W1_DOWN); // 5,000 uncached characters queued on w0, no first token yet

        // w0 costs 5,000 queued + 200 to compute = 5,200; w1 costs 1,200 to compute.
        assertThat(select("a".repeat(1000) + "b".repeat(200), W0, W1)).isEqualTo(new Decision(1, "balance", 0, 1200));
    }

    @Test
    void queuedPrefillSmallerThanTheSavingKeepsTheRequestOnItsMatch() {
        answeredOnW0("a".repeat(1000));
        select("q".repeat(500), W0, W1_DOWN);

        // w0 costs 500 queued + 200 to compute = 700; w1 costs 1,200.
        assertThat(select("a".repeat(1000) + "b".repeat(200), W0, W1)).isEqualTo(new Decision(0, "hit", 1000, 1200));
    }

    @Test
    void theFirstTokenReleasesTheQueuedPrefill() {
        answeredOnW0("a".repeat(1000));
        Decision queued = select("q".repeat(5000), W0, W1_DOWN);
        policy.onFirstToken("w0", queued);

        assertThat(select("a".repeat(1000) + "b".repeat(200), W0, W1).workerIndex()).isZero();
    }

    @Test
    void aWorkerAboveTheLoadBoundIsPassedOverDespiteItsMatch() {
        // Recent work: w0 4,000, w1 0. The bound is 1.25 x (4,000 + 1,200) / 2 = 3,250, and a holder may go past it
        // by half its saving, 500: 3,750 < 4,000, so w0's match no longer counts.
        assertThat(matchOnBusyW0(3000)).isEqualTo(new Decision(1, "balance", 0, 1200));
    }

    @Test
    void aHolderSlightlyAboveTheBoundKeepsItsRequestSinceMovingCostsTheSaving() {
        // w0 has 3,300 > the bound 1.25 x (3,300 + 1,200) / 2 = 2,812.5, but by less than half its saving (500).
        assertThat(matchOnBusyW0(2300)).isEqualTo(new Decision(0, "hit", 1000, 1200));
    }

    @Test
    void whereAPromptFillsMuchOfAnEnginesCacheTheBoundRisesAndTheHolderKeepsItsRequest() {
        // A prompt fills half of w0's cache and w1 has reported none yet: a quarter on average. The factor is
        // 1.25 + 4 x 0.25 = 2.25, the bound 2.25 x (4,000 + 1,200) / 2 = 5,850, above w0's 4,000.
        assertThat(matchOnBusyW0AfterReports(4)).isEqualTo(new Decision(0, "hit", 1000, 1200));
    }

    @Test
    void withNoPromptShareSlackTheSameReportsLeaveTheBoundAtTheLoadFactor() {
        assertThat(matchOnBusyW0AfterReports(0)).isEqualTo(new Decision(1, "balance", 0, 1200));
    }

    /**
     * As {@link #matchOnBusyW0} with 3,000 more characters of work on w0 (over the bound of 1.25), after both engines
     * reported a cache of 1,000 tokens and w0's a prompt of 500 tokens.
     */
    private Decision matchOnBusyW0AfterReports(double promptShareSlack) {
        policy = policyWith(new AffinitySettings(0.1, 1.25, 0.5, 1_000_000_000, 1.0, 256, 0.1, 0, 0)
                .withPromptShareSlack(promptShareSlack));
        policy.onWorkerCapacity("w0", 1000);
        policy.onWorkerCapacity("w1", 1000);
        Decision first = select("a".repeat(1000), W0, W1_DOWN);
        policy.onFirstToken("w0", first);
        policy.onCompleted("w0", RoutingRequest.ofText("a".repeat(1000)), first, new EngineReport(500, 0, true));
        answeredOnW0("c".repeat(3000));
        return select("a".repeat(1000) + "b".repeat(200), W0, W1);
    }

    /**
     * With a load bound of 1.25 (a holder may pass it by half its saving): w0 holds 1,000 characters and has done
     * {@code otherWork} more; the placement of a request that extends what w0 holds by 200.
     */
    private Decision matchOnBusyW0(int otherWork) {
        policy = policyWith(new AffinitySettings(0.1, 1.25, 0.5, 1_000_000_000, 1.0, 256, 0.1, 0, 0));
        answeredOnW0("a".repeat(1000));
        answeredOnW0("c".repeat(otherWork));
        return select("a".repeat(1000) + "b".repeat(200), W0, W1);
    }

    /** w0 and w1 both hold {@code system}; w0 has done 100 more characters of work. */
    private void bothHold(String system) {
        answeredOnW0(system + "x".repeat(50));
        answeredOnW0("q".repeat(100));
        Decision onW1 = select(system + "y".repeat(50), new WorkerView("w0", false, 0, -1), W1);
        policy.onFirstToken("w1", onW1);
    }

    @Test
    void aPrefixEveryWorkerHoldsDecidesNothing() {
        String system = "s".repeat(1000);
        bothHold(system);

        // Both hold the 1,000-character system prompt: a miss, placed on the worker with less recent work.
        assertThat(select(system + "z".repeat(50), W0, W1)).isEqualTo(new Decision(1, "miss", 1000, 1050));
    }

    @Test
    void aMatchBarelyLongerThanTheSharedPrefixIsNoise() {
        String system = "s".repeat(1000);
        bothHold(system);

        // w0 holds 1,010 characters, w1 1,000: a saving of 10 is below the minimum 0.1 x 1,100 = 110.
        Decision decision = select(system + "x".repeat(10) + "w".repeat(90), W0, W1);

        assertThat(decision).isEqualTo(new Decision(1, "miss", 1000, 1100));
    }

    @Test
    void aReportedEvictionForgetsTheWorkersOtherBranchesBelowIt() {
        String prefix = "p".repeat(1000);
        answeredOnW0(prefix + "one");
        answeredOnW0(prefix + "xyz");
        Decision decision = select(prefix + "abc", W0, W1_DOWN);
        assertThat(decision.matchedChars()).isEqualTo(1000);

        // The engine found nothing cached: the branches below the prefix are gone; the request's own path is not.
        policy.onCompleted("w0", RoutingRequest.ofText(prefix + "abc"), decision, new EngineReport(258, 0, true));

        assertThat(policy.tree().match(prefix + "one").matchedCharsFor("w0")).isEqualTo(1000);
        assertThat(policy.tree().match(prefix + "xyz").matchedCharsFor("w0")).isEqualTo(1000);
        assertThat(policy.tree().match(prefix + "abc").matchedCharsFor("w0")).isEqualTo(1003);
        assertThat(accuracyOf("w0")).isEqualTo(new HitAccuracy("w0", 1, 1000, 0, 1, 6));
    }

    @Test
    void aShortfallWithinPageRoundingForgetsNothing() {
        String prefix = "p".repeat(1000);
        answeredOnW0(prefix + "one");
        Decision decision = select(prefix + "abc", W0, W1_DOWN);

        // 4 characters a token: 240 of 250 prompt tokens cached is 960 of 1,003 characters, 40 short of 1,000.
        policy.onCompleted("w0", RoutingRequest.ofText(prefix + "abc"), decision, new EngineReport(250, 240, true));

        assertThat(policy.tree().match(prefix + "one").matchedCharsFor("w0")).isEqualTo(1003);
        assertThat(accuracyOf("w0")).isEqualTo(new HitAccuracy("w0", 1, 1000, 962, 0, 0));
    }

    @Test
    void aCompletionWithoutAFirstTokenReleasesTheQueuedPrefill() {
        answeredOnW0("a".repeat(1000));
        Decision queued = select("q".repeat(5000), W0, W1_DOWN);
        policy.onCompleted("w0", RoutingRequest.ofText("q".repeat(5000)), queued, EngineReport.unknown(false));

        assertThat(select("a".repeat(1000) + "b".repeat(200), W0, W1).workerIndex()).isZero();
    }

    @Test
    void withACapacityTheTreeKeepsEachWorkersShareWithinIt() {
        policy = policyWith(new AffinitySettings(0.1, 100, 0.5, 1_000_000_000, 1.0, 256, 0.1, 4.0, 0));
        policy.onWorkerCapacity("w0", 300); // 1,200 characters at 4 a token
        answeredOnW0("a".repeat(1000));
        answeredOnW0("b".repeat(1000));

        policy.maintain();

        assertThat(policy.tree().tenantChars("w0")).isEqualTo(1000);
        assertThat(policy.tree().match("b".repeat(1000)).matchedCharsFor("w0")).isEqualTo(1000);
    }

    private static final AffinitySettings WAITING = new AffinitySettings(0.1, 100, 0.5, 1_000_000_000, 0.0, 256, 1.0, 0,
            300);

    /** A system prompt long enough that a request relying on it waits for its prefill. */
    private static final String SYSTEM = "s".repeat(4_000);

    private record BackToBack(Decision first, Decision second) {
    }

    /** With prefill waits: two requests on the same 4,000-character system prompt, the second before any token. */
    private BackToBack twoSharingASystemPrompt() {
        policy = policyWith(WAITING);
        Decision first = select(SYSTEM + "first question", W0, W1_DOWN);
        return new BackToBack(first, select(SYSTEM + "second question", W0, W1_DOWN));
    }

    @Test
    void aRequestRelyingOnAPrefixStillBeingComputedWaitsForThatPrefill() {
        BackToBack sent = twoSharingASystemPrompt();
        Decision first = sent.first();
        Decision second = sent.second();

        assertThat(first.hold()).isNull();
        assertThat(second.hold()).isNotNull();
        assertThat(second.hold().awaited()).isSameAs(first.prefill());
        assertThat(second.hold().maxNanos()).isEqualTo(300_000_000L);
        assertThat(second.hold().awaited().isDone()).isFalse();
    }

    @Test
    void theFirstTokenOrTheEndOfTheEarlierRequestReleasesTheWait() {
        BackToBack sent = twoSharingASystemPrompt();
        Decision first = sent.first();
        Decision second = sent.second();
        boolean[] released = new boolean[1];
        second.hold().awaited().whenDone(() -> released[0] = true);

        policy.onFirstToken("w0", first);

        assertThat(released[0]).isTrue();
        assertThat(select(SYSTEM + "third", W0, W1_DOWN).hold()).as("the prefix is computed now").isNull();
        Decision failed = select("t".repeat(4_000) + "one", W0, W1_DOWN);
        Decision waiting = select("t".repeat(4_000) + "two", W0, W1_DOWN);
        policy.onCompleted("w0", RoutingRequest.ofText("t"), failed, EngineReport.unknown(false));
        assertThat(waiting.hold().awaited().isDone()).isTrue();
    }

    @Test
    void aMatchOnTextAlreadyComputedOrTooShortToMatterDoesNotWait() {
        policy = policyWith(WAITING);
        answeredOnW0("a".repeat(4_000));
        select("a".repeat(4_000) + "b".repeat(100), W0, W1_DOWN); // still prefilling, but brings only 100 chars

        assertThat(select("a".repeat(4_000) + "b".repeat(100) + "c", W0, W1_DOWN).hold())
                .as("100 characters are not more than a tenth of the text").isNull();
        assertThat(select("a".repeat(4_000) + "d", W0, W1_DOWN).hold()).as("computed before").isNull();
    }

    @Test
    void noRequestWaitsWhenTheWaitIsOff() {
        String system = "s".repeat(4_000);
        select(system + "first", W0, W1_DOWN);

        Decision second = select(system + "second", W0, W1_DOWN);

        assertThat(second.hold()).isNull();
        assertThat(second.prefill()).isNull();
    }

    @Test
    void aHolderFarMoreLoadedInRequestsThanTheLeastGivesTheRequestToIt() {
        answeredOnW0("a".repeat(1000));
        WorkerView busy = WorkerView.available("w0", 100);

        assertThat(select("a".repeat(1000) + "b", busy, WorkerView.available("w1", 35)).workerIndex())
                .as("65 more and more than 1.5x: overloaded").isEqualTo(1);
        assertThat(select("a".repeat(1000) + "c", busy, WorkerView.available("w1", 36)).workerIndex())
                .as("64 more: within the reference's absolute threshold").isEqualTo(0);
        assertThat(select("a".repeat(1000) + "d", WorkerView.available("w0", 200), WorkerView.available("w1", 134))
                .workerIndex()).as("66 more but under 1.5x").isEqualTo(0);
    }
}

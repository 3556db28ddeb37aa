package dev.homing.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.homing.core.kv.KvEventLiveness.Reason;
import dev.homing.core.kv.KvEventLiveness.State;
import dev.homing.core.kv.KvEventLiveness.Verdict;
import org.junit.jupiter.api.Test;

class KvEventLivenessTest {

    private static final long SECOND = 1_000_000_000L;

    private final KvEventLiveness liveness = new KvEventLiveness(2 * SECOND);

    /** Batch 0, then batch {@code next} with no replay to fill the gap: the held batch released, the view stale. */
    private void staleAfterLosingBatchesBefore(long next) {
        liveness.onLive(0, 0);
        liveness.onLive(next, 0);
        liveness.releaseHeld();
    }

    /** Asserts the view's state and the reason the liveness gives for it. */
    private void assertView(State state, Reason reason) {
        assertView(liveness, state, reason);
    }

    private static void assertView(KvEventLiveness liveness, State state, Reason reason) {
        assertThat(liveness.state()).isEqualTo(state);
        assertThat(liveness.reason()).isEqualTo(reason);
    }

    @Test
    void aStreamNotConnectedIsNoneAndExpectsNothing() {
        liveness.expectEvents(0, 0);
        liveness.onTick(10 * SECOND);

        assertView(State.NONE, Reason.NOT_CONNECTED);
        assertThat(liveness.expected()).isEqualTo(-1);
    }

    @Test
    void aConnectedStreamNotHeardYetIsAnExactEmptyView() {
        liveness.onConnected();

        assertView(State.EXACT, Reason.NOTHING_HEARD);
        assertThat(liveness.onLive(7, 0)).isEqualTo(Verdict.APPLY);
        assertThat(liveness.reason()).isEqualTo(Reason.IN_SEQUENCE);
    }

    @Test
    void aConnectedStreamThatNeverPublishesIsFoundSilentAtItsFirstPrefill() {
        liveness.onConnected();
        liveness.onTick(3_600 * SECOND);
        assertThat(liveness.state()).isEqualTo(State.EXACT);

        liveness.expectEvents(3_599 * SECOND, 3_600 * SECOND);
        liveness.onTick(3_602 * SECOND);

        assertView(State.NONE, Reason.SILENT);
    }

    @Test
    void aLostConnectionIsNoneAtOnceAndStaleWhenBackUntilABatchSaysWhatTheEngineKept() {
        liveness.onLive(0, 0);
        liveness.onLive(1, 0);

        liveness.onDisconnected();
        assertView(State.NONE, Reason.NOT_CONNECTED);

        liveness.onConnected();
        assertView(State.STALE, Reason.RECONNECTED);

        assertThat(liveness.onLive(2, SECOND)).as("the stream went on").isEqualTo(Verdict.APPLY);
        assertThat(liveness.state()).isEqualTo(State.EXACT);
    }

    @Test
    void aPublisherBackFromARestartClearsTheViewAtItsFirstBatch() {
        liveness.onLive(0, 0);
        liveness.onLive(1, 0);
        liveness.onDisconnected();
        liveness.onConnected();

        assertThat(liveness.onLive(0, SECOND)).isEqualTo(Verdict.CLEAR_THEN_APPLY);
        assertThat(liveness.state()).isEqualTo(State.EXACT);
    }

    @Test
    void theFirstBatchMakesTheViewExactWhereverTheStreamIs() {
        assertThat(liveness.onLive(500, 0)).isEqualTo(Verdict.APPLY);

        assertThat(liveness.state()).isEqualTo(State.EXACT);
        assertThat(liveness.expected()).isEqualTo(501);
    }

    /** A liveness whose engine has a replay socket, connected, its catch-up started. */
    private static KvEventLiveness catchingUp() {
        KvEventLiveness joining = new KvEventLiveness(2 * SECOND, true);
        joining.onConnected();
        assertThat(joining.startCatchUp()).isTrue();
        return joining;
    }

    @Test
    void aNewSubscriptionWithAReplayCatchesUpOnWhatTheEngineBuffersAndStaysExactMeanwhile() {
        KvEventLiveness joining = catchingUp();
        assertThat(joining.expected()).as("the replay is asked from the start").isZero();
        assertView(joining, State.EXACT, Reason.CATCHING_UP);

        assertThat(joining.onReplayed(120)).as("the buffer's oldest batch, past 0").isEqualTo(Verdict.APPLY);
        for (long seq = 121; seq < 500; seq++) {
            assertThat(joining.onReplayed(seq)).isEqualTo(Verdict.APPLY);
        }
        assertThat(joining.endCatchUp()).isTrue();

        assertView(joining, State.EXACT, Reason.IN_SEQUENCE);
        assertThat(joining.onLive(498, 0)).as("published while the replay ran, and in it").isEqualTo(Verdict.SKIP);
        assertThat(joining.onLive(499, 0)).isEqualTo(Verdict.SKIP);
        assertThat(joining.onLive(500, 0)).isEqualTo(Verdict.APPLY);
        assertThat(joining.onLive(502, 0)).as("a gap after it, as ever").isEqualTo(Verdict.HOLD_FOR_REPLAY);
    }

    @Test
    void aCatchUpWithAHoleIsToldToResyncAndOneThatBroughtNothingLeavesAPlainEmptyView() {
        KvEventLiveness holed = catchingUp();
        holed.onReplayed(120);
        assertThat(holed.onReplayed(300)).as("a batch past a hole in the replay").isEqualTo(Verdict.RESUME);
        assertThat(holed.onReplayed(300)).as("asked again, still past it").isEqualTo(Verdict.SKIP);
        assertThat(holed.endCatchUp()).as("what it applied may hold blocks the missing batch removed").isFalse();

        KvEventLiveness empty = catchingUp();
        assertThat(empty.endCatchUp()).isTrue();
        assertView(empty, State.EXACT, Reason.NOTHING_HEARD);
        assertThat(empty.onLive(500, 0)).isEqualTo(Verdict.APPLY);
    }

    @Test
    void aCatchUpAsksAgainPastAHoleOrAfterAnAnswerThatBroughtBatchesAndOnlyAHoleThatStaysIsLost() {
        KvEventLiveness joining = catchingUp();
        joining.onReplayed(0);
        joining.onReplayed(1);
        assertThat(joining.onReplayed(5)).as("the replay socket dropped 2 to 4").isEqualTo(Verdict.RESUME);
        assertThat(joining.expected()).as("asked again from there").isEqualTo(2);
        assertThat(joining.onReplayed(2)).isEqualTo(Verdict.APPLY);
        assertThat(joining.askAgain()).as("an answer that brought batches ended").isTrue();
        assertThat(joining.onReplayed(3)).isEqualTo(Verdict.APPLY);
        assertThat(joining.endCatchUp()).as("the next answer brought nothing new").isTrue();
        assertThat(joining.expected()).isEqualTo(4);

        KvEventLiveness movedOn = catchingUp();
        movedOn.onReplayed(0);
        assertThat(movedOn.onReplayed(3)).isEqualTo(Verdict.RESUME);
        assertThat(movedOn.onReplayed(3)).as("asked again, the buffer no longer holds 1").isEqualTo(Verdict.SKIP);
        assertThat(movedOn.endCatchUp()).isFalse();

        KvEventLiveness tireless = catchingUp();
        for (int ask = 0; ask < KvEventLiveness.MAX_RESUMES; ask++) {
            assertThat(tireless.askAgain()).isTrue();
        }
        assertThat(tireless.askAgain()).as("asks are bounded").isFalse();
    }

    @Test
    void aRestartAfterTheCatchUpIsStillTold() {
        KvEventLiveness joining = catchingUp();
        joining.onReplayed(40);
        joining.endCatchUp();

        joining.onDisconnected();
        joining.onConnected();

        assertThat(joining.onLive(0, SECOND)).as("back from a restart, numbered from 0")
                .isEqualTo(Verdict.CLEAR_THEN_APPLY);

        KvEventLiveness dropped = catchingUp();
        dropped.onReplayed(40);
        dropped.onDisconnected();
        dropped.onConnected();
        assertThat(dropped.endCatchUp()).as("the engine may have restarted while it ran").isFalse();
    }

    @Test
    void onlyTheFirstConnectionOfASubscriptionWithAReplayCatchesUp() {
        KvEventLiveness joining = catchingUp();
        joining.endCatchUp();
        joining.onDisconnected();
        joining.onConnected();
        assertThat(joining.startCatchUp()).isFalse();

        KvEventLiveness notConnected = new KvEventLiveness(2 * SECOND, true);
        assertThat(notConnected.startCatchUp()).isFalse();

        liveness.onConnected();
        assertThat(liveness.startCatchUp()).as("without a replay socket").isFalse();
    }

    @Test
    void aLiveBatchDuringTheCatchUpIsAStepOutOfTheProtocol() {
        KvEventLiveness joining = catchingUp();

        assertThatThrownBy(() -> joining.onLive(7, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void batchesInSequenceKeepItExact() {
        for (long seq = 0; seq < 5; seq++) {
            assertThat(liveness.onLive(seq, seq)).isEqualTo(Verdict.APPLY);
        }
        assertView(State.EXACT, Reason.IN_SEQUENCE);
    }

    @Test
    void aGapHoldsTheBatchAndMakesTheViewStaleUntilTheReplayFillsIt() {
        liveness.onLive(0, 0);

        assertThat(liveness.onLive(3, 0)).isEqualTo(Verdict.HOLD_FOR_REPLAY);
        assertView(State.STALE, Reason.GAP_PENDING);
        assertThat(liveness.expected()).isEqualTo(1);

        assertThat(liveness.onReplayed(0)).isEqualTo(Verdict.SKIP);
        assertThat(liveness.onReplayed(1)).isEqualTo(Verdict.APPLY);
        assertThat(liveness.onReplayed(2)).isEqualTo(Verdict.APPLY);
        assertThat(liveness.releaseHeld()).isEqualTo(Verdict.APPLY);

        assertThat(liveness.state()).isEqualTo(State.EXACT);
        assertThat(liveness.onLive(4, 0)).isEqualTo(Verdict.APPLY);
    }

    @Test
    void aReplayThatRanPastTheHeldBatchMakesItAndTheLiveCopiesSkipped() {
        liveness.onLive(0, 0);
        liveness.onLive(2, 0);
        for (long seq = 1; seq <= 4; seq++) {
            assertThat(liveness.onReplayed(seq)).isEqualTo(Verdict.APPLY);
        }

        assertThat(liveness.releaseHeld()).isEqualTo(Verdict.SKIP);
        assertThat(liveness.onLive(3, 0)).isEqualTo(Verdict.SKIP);
        assertThat(liveness.onLive(4, 0)).isEqualTo(Verdict.SKIP);
        assertThat(liveness.onLive(5, 0)).isEqualTo(Verdict.APPLY);
        assertThat(liveness.state()).isEqualTo(State.EXACT);
    }

    @Test
    void aGapNoReplayCanFillLeavesTheViewStaleUntilAClear() {
        liveness.onLive(0, 0);
        liveness.onLive(5, 0);
        // The engine's replay buffer starts after the gap: nothing it sends may be applied out of order.
        assertThat(liveness.onReplayed(3)).isEqualTo(Verdict.SKIP);

        assertThat(liveness.releaseHeld()).isEqualTo(Verdict.APPLY);
        assertView(State.STALE, Reason.BATCHES_LOST);
        assertThat(liveness.onLive(6, 0)).isEqualTo(Verdict.APPLY);
        assertThat(liveness.state()).isEqualTo(State.STALE);

        liveness.onCleared();

        assertThat(liveness.state()).isEqualTo(State.EXACT);
    }

    @Test
    void aPublisherThatRestartedClearsTheViewAndIsExactAgain() {
        staleAfterLosingBatchesBefore(9);
        assertThat(liveness.state()).isEqualTo(State.STALE);

        assertThat(liveness.onLive(0, 0)).isEqualTo(Verdict.CLEAR_THEN_APPLY);

        assertThat(liveness.state()).isEqualTo(State.EXACT);
        assertThat(liveness.onLive(1, 0)).isEqualTo(Verdict.APPLY);
    }

    @Test
    void silenceForTheLimitAfterAnExpectationMakesItNoneAndTheNextBatchInSequenceExactAgain() {
        liveness.onLive(0, 0);
        liveness.expectEvents(SECOND, 2 * SECOND);
        liveness.onTick(4 * SECOND - 1);
        assertThat(liveness.state()).isEqualTo(State.EXACT);

        liveness.onTick(4 * SECOND);

        assertView(State.NONE, Reason.SILENT);
        assertThat(liveness.onLive(1, 5 * SECOND)).isEqualTo(Verdict.APPLY);
        assertThat(liveness.state()).isEqualTo(State.EXACT);
    }

    @Test
    void anIdleEngineThatNobodyExpectsToPublishStaysExactHoweverLongItIsQuiet() {
        liveness.onLive(0, 0);

        liveness.onTick(3_600 * SECOND);

        assertThat(liveness.state()).isEqualTo(State.EXACT);
    }

    @Test
    void aBatchHeardAfterTheRequestWasSentMeetsItsExpectationEvenBeforeItsFirstToken() {
        liveness.onLive(0, 10 * SECOND);
        liveness.expectEvents(9 * SECOND, 15 * SECOND);

        liveness.onTick(20 * SECOND);

        assertThat(liveness.state()).isEqualTo(State.EXACT);
    }

    @Test
    void aBatchHeardBeforeTheRequestWasSentDoesNotMeetItsExpectationHoweverClose() {
        liveness.onLive(0, 10 * SECOND);
        liveness.expectEvents(10 * SECOND + 1, 10 * SECOND + 2);

        liveness.onTick(12 * SECOND + 2);

        assertThat(liveness.reason()).isEqualTo(Reason.SILENT);
    }

    @Test
    void theOldestUnmetExpectationCountsAndABatchMeetsThemAll() {
        liveness.onLive(0, 0);
        liveness.expectEvents(4 * SECOND, 5 * SECOND);
        liveness.expectEvents(5 * SECOND, 6 * SECOND);
        liveness.onTick(7 * SECOND - 1);
        assertThat(liveness.state()).isEqualTo(State.EXACT);
        liveness.onTick(7 * SECOND);
        assertThat(liveness.state()).isEqualTo(State.NONE);

        liveness.onLive(1, 8 * SECOND);
        liveness.onTick(20 * SECOND);

        assertThat(liveness.state()).isEqualTo(State.EXACT);
    }

    @Test
    void aStreamThatComesBackAfterLosingBatchesIsStaleNotExact() {
        liveness.onLive(0, 0);
        liveness.expectEvents(SECOND, 2 * SECOND);
        liveness.onTick(5 * SECOND);

        assertThat(liveness.onLive(7, 6 * SECOND)).isEqualTo(Verdict.HOLD_FOR_REPLAY);
        assertThat(liveness.state()).isEqualTo(State.STALE);
        liveness.releaseHeld();
        assertThat(liveness.reason()).isEqualTo(Reason.BATCHES_LOST);
    }

    @Test
    void aSilentStreamThatLostBatchesStaysStaleWhenItResumes() {
        staleAfterLosingBatchesBefore(2);
        liveness.expectEvents(4 * SECOND, 5 * SECOND);
        liveness.onTick(10 * SECOND);
        assertThat(liveness.state()).isEqualTo(State.NONE);

        liveness.onLive(3, 11 * SECOND);

        assertThat(liveness.state()).isEqualTo(State.STALE);
    }

    @Test
    void aResyncStartsOverFromAnEmptyView() {
        staleAfterLosingBatchesBefore(4);

        liveness.onResync();

        assertView(State.EXACT, Reason.NOTHING_HEARD);
        assertThat(liveness.onLive(5, 0)).isEqualTo(Verdict.APPLY);
        assertThat(liveness.state()).isEqualTo(State.EXACT);
    }

    @Test
    void aStepOutOfTheProtocolIsRefused() {
        assertThatThrownBy(liveness::releaseHeld).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> liveness.onReplayed(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(liveness::onCleared).isInstanceOf(IllegalStateException.class);

        liveness.onLive(0, 0);
        liveness.onLive(2, 0);

        assertThatThrownBy(() -> liveness.onLive(3, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("GAP_PENDING");
        assertThatThrownBy(() -> liveness.onLive(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEngineThatCountsTokensOtherwiseIsStaleUntilItAgreesAgainThroughResyncsAndReconnections() {
        liveness.onConnected();
        liveness.onLive(0, 0);

        liveness.onTokensDiffer(true);
        assertView(State.STALE, Reason.TOKENS_DIFFER);
        liveness.onResync();
        liveness.onDisconnected();
        liveness.onConnected();
        liveness.onLive(5, 0);
        assertView(State.STALE, Reason.TOKENS_DIFFER);

        liveness.onTokensDiffer(false);
        assertView(State.EXACT, Reason.IN_SEQUENCE);
    }

    @Test
    void noConnectionOrSilenceSaysMoreThanTokensThatDiffer() {
        liveness.onTokensDiffer(true);
        assertView(State.NONE, Reason.NOT_CONNECTED);

        liveness.onConnected();
        liveness.expectEvents(0, 0);
        liveness.onTick(3 * SECOND);
        assertView(State.NONE, Reason.SILENT);
    }
}

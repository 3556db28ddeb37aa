package dev.homing.gateway.resilience;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryStateTest {

    private final SplittableRandom random = new SplittableRandom(1);
    private final RetryPolicy exact = new RetryPolicy(5, 50, 1.5, 30_000, 0, 1);
    /** Every worker's availability the rule asked about, as the workers it was to be outside of. */
    private final List<Set<String>> asked = new ArrayList<>();
    private boolean otherWorkerAvailable = true;

    /** A failure the worker gave before it had the request whole, or with {@code status}. */
    /** A request under the exact policy whose first attempt went out. */
    private RetryState firstAttemptStarted() {
        RetryState state = exact.start();
        state.attemptStarted();
        return state;
    }

    private RetryState.Decision fail(RetryState state, String worker, UpstreamOutcome outcome, int status) {
        return state.failed(new RetryState.Failure(worker, outcome, status, Set.of()), this::elsewhere, random);
    }

    /** {@code worker} had the request whole (with {@code alsoDelivered}, a pair's other leg) and closed unanswered. */
    private RetryState.Decision closedAfterDelivery(RetryState state, String worker, String... alsoDelivered) {
        Set<String> delivered = new HashSet<>(List.of(alsoDelivered));
        delivered.add(worker);
        return state.failed(new RetryState.Failure(worker, UpstreamOutcome.CONNECTION_FAILED, 0, delivered),
                this::elsewhere, random);
    }

    private boolean elsewhere(Set<String> workerIds) {
        asked.add(workerIds);
        return otherWorkerAvailable;
    }

    @Test
    void fiveAttemptsGiveFourRetriesWithGrowingDelays() {
        RetryState state = exact.start();
        long[] delays = new long[4];
        for (int i = 0; i < 4; i++) {
            state.attemptStarted();
            RetryState.Decision d = fail(state, "w", UpstreamOutcome.SERVER_ERROR, 500);
            delays[i] = ((RetryState.RetryAfter) d).delayMillis();
        }
        state.attemptStarted();

        assertThat(delays).containsExactly(50, 75, 113, 169);
        assertThat(fail(state, "w", UpstreamOutcome.SERVER_ERROR, 500))
                .isEqualTo(new RetryState.GiveUp(RetryState.GiveUpReason.RETRIES_EXHAUSTED));
    }

    @Test
    void aDisabledPolicyGivesUpAfterTheFirstFailure() {
        RetryState state = exact.disabled().start();
        state.attemptStarted();

        assertThat(fail(state, "w", UpstreamOutcome.CONNECTION_FAILED, 0))
                .isEqualTo(new RetryState.GiveUp(RetryState.GiveUpReason.RETRIES_EXHAUSTED));
    }

    @Test
    void everyRetryableStatusIsRetried() {
        for (int status : new int[] {408, 429, 500, 502, 503, 504}) {
            RetryState state = firstAttemptStarted();
            assertThat(fail(state, "w", UpstreamOutcome.ofStatus(status), status))
                    .as("status %d", status).isInstanceOf(RetryState.RetryAfter.class);
        }
    }

    @Test
    void clientErrorsAndUnimplementedAreNotRetried() {
        for (int status : new int[] {400, 401, 404, 413, 422, 501, 505}) {
            RetryState state = firstAttemptStarted();
            assertThat(fail(state, "w", UpstreamOutcome.ofStatus(status), status))
                    .as("status %d", status).isEqualTo(new RetryState.GiveUp(RetryState.GiveUpReason.NOT_RETRYABLE));
        }
    }

    @Test
    void aConnectionFailureIsRetried() {
        RetryState state = firstAttemptStarted();

        assertThat(fail(state, "w", UpstreamOutcome.CONNECTION_FAILED, 0))
                .isEqualTo(new RetryState.RetryAfter(50, 0, RetryState.RetryReason.NOT_DELIVERED));
    }

    @Test
    void nothingIsRetriedOnceTheClientHasSeenAByte() {
        RetryState state = firstAttemptStarted();
        assertThat(state.mayRetry()).isTrue();

        state.firstByteSent();

        assertThat(state.mayRetry()).isFalse();
        assertThat(fail(state, "w", UpstreamOutcome.CONNECTION_FAILED, 0))
                .isEqualTo(new RetryState.GiveUp(RetryState.GiveUpReason.RESPONSE_STARTED));
    }

    @Test
    void mayRetryIsFalseOnTheLastAttempt() {
        RetryState state = new RetryPolicy(2, 50, 1.5, 30_000, 0, 1).start();
        state.attemptStarted();
        assertThat(state.mayRetry()).isTrue();
        state.attemptStarted();
        assertThat(state.mayRetry()).isFalse();
    }

    @Test
    void workersThatFailedTheRequestAreExcludedFromTheNextSelection() {
        RetryState state = firstAttemptStarted();
        fail(state, "http://a:1", UpstreamOutcome.SERVER_ERROR, 500);
        state.attemptStarted();
        fail(state, "http://b:1", UpstreamOutcome.CONNECTION_FAILED, 0);

        assertThat(state.excludedWorkerIds()).containsExactlyInAnyOrder("http://a:1", "http://b:1");
    }

    @Test
    void anEmptyPoolEndsTheRequestAtOnceInsteadOfBackingOff() {
        RetryState state = firstAttemptStarted();
        fail(state, "w", UpstreamOutcome.CONNECTION_FAILED, 0);

        assertThat(state.noWorkerAvailable()).isEqualTo(new RetryState.GiveUp(RetryState.GiveUpReason.NO_AVAILABLE_WORKERS));
    }

    @Test
    void aRetryableStatusIsRetriedForThatReasonAndBarsNoWorker() {
        RetryState state = firstAttemptStarted();

        assertThat(fail(state, "w", UpstreamOutcome.BUSY, 503))
                .isEqualTo(new RetryState.RetryAfter(50, 0, RetryState.RetryReason.RETRYABLE_STATUS));
        assertThat(state.barredWorkerIds()).isEmpty();
    }

    @Test
    void aRequestDeliveredWithoutAnAnswerIsRetriedOnceAndNeverWhereItMayBeRunning() {
        RetryState state = firstAttemptStarted();

        assertThat(closedAfterDelivery(state, "a"))
                .isEqualTo(new RetryState.RetryAfter(50, 0, RetryState.RetryReason.DELIVERED_NO_ANSWER));
        assertThat(asked).containsExactly(Set.of("a"));
        assertThat(state.barredWorkerIds()).containsExactly("a");
        state.attemptStarted();
        assertThat(closedAfterDelivery(state, "b"))
                .isEqualTo(new RetryState.GiveUp(RetryState.GiveUpReason.DELIVERED_RETRIES_EXHAUSTED));
        assertThat(state.barredWorkerIds()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void withNoOtherWorkerADeliveredRequestIsGivenUpAtOnce() {
        RetryState state = firstAttemptStarted();
        otherWorkerAvailable = false;

        assertThat(closedAfterDelivery(state, "a"))
                .isEqualTo(new RetryState.GiveUp(RetryState.GiveUpReason.NO_OTHER_WORKER));
    }

    @Test
    void withNoResendAllowedADeliveredRequestIsNeverRetried() {
        RetryState state = new RetryPolicy(5, 50, 1.5, 30_000, 0, 0).start();
        state.attemptStarted();

        assertThat(closedAfterDelivery(state, "a"))
                .isEqualTo(new RetryState.GiveUp(RetryState.GiveUpReason.DELIVERED_RETRIES_EXHAUSTED));
        assertThat(asked).isEmpty();
    }

    @Test
    void failuresBeforeDeliveryAndStatusesKeepThePlainBudgetBesideADeliveredRetry() {
        RetryState state = firstAttemptStarted();
        assertThat(closedAfterDelivery(state, "a")).isInstanceOf(RetryState.RetryAfter.class);
        state.attemptStarted();
        assertThat(fail(state, "b", UpstreamOutcome.CONNECTION_FAILED, 0)).isInstanceOf(RetryState.RetryAfter.class);
        state.attemptStarted();
        assertThat(fail(state, "c", UpstreamOutcome.BUSY, 429)).isInstanceOf(RetryState.RetryAfter.class);

        assertThat(state.barredWorkerIds()).containsExactly("a");
        assertThat(state.excludedWorkerIds()).containsExactlyInAnyOrder("a", "b", "c");
    }

    @Test
    void aPairThatMayBeRunningBarsBothLegsThatHadItButNotTheOneThatAnswered() {
        RetryState state = firstAttemptStarted();

        assertThat(closedAfterDelivery(state, "decode-1", "prefill-1")).isInstanceOf(RetryState.RetryAfter.class);
        assertThat(asked).containsExactly(Set.of("decode-1", "prefill-1"));
        state.attemptStarted();
        // The prefill answered 503 while its decode partner had the request: nothing runs, nothing is barred.
        state.failed(new RetryState.Failure("prefill-2", UpstreamOutcome.BUSY, 503, Set.of("decode-2")),
                this::elsewhere, random);

        assertThat(state.barredWorkerIds()).containsExactlyInAnyOrder("decode-1", "prefill-1");
    }

    @Test
    void aDisabledPolicyGivesUpOnADeliveredRequestAsOnAnyOther() {
        RetryState state = exact.disabled().start();
        state.attemptStarted();

        assertThat(closedAfterDelivery(state, "a"))
                .isEqualTo(new RetryState.GiveUp(RetryState.GiveUpReason.RETRIES_EXHAUSTED));
    }

    @Test
    void startingMoreAttemptsThanThePolicyAllowsIsABug() {
        RetryState state = exact.disabled().start();
        state.attemptStarted();

        assertThatThrownBy(state::attemptStarted).isInstanceOf(IllegalStateException.class);
    }
}

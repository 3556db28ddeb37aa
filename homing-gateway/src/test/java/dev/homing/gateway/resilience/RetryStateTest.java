package dev.homing.gateway.resilience;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryStateTest {

    private final SplittableRandom random = new SplittableRandom(1);
    private final RetryPolicy exact = new RetryPolicy(5, 50, 1.5, 30_000, 0);

    @Test
    void fiveAttemptsGiveFourRetriesWithGrowingDelays() {
        RetryState state = exact.start();
        long[] delays = new long[4];
        for (int i = 0; i < 4; i++) {
            state.attemptStarted();
            RetryState.Decision d = state.failed("w", UpstreamOutcome.SERVER_ERROR, 500, random);
            delays[i] = ((RetryState.RetryAfter) d).delayMillis();
        }
        state.attemptStarted();

        assertThat(delays).containsExactly(50, 75, 113, 169);
        assertThat(state.failed("w", UpstreamOutcome.SERVER_ERROR, 500, random))
                .isEqualTo(new RetryState.GiveUp("retries_exhausted"));
    }

    @Test
    void aDisabledPolicyGivesUpAfterTheFirstFailure() {
        RetryState state = exact.disabled().start();
        state.attemptStarted();

        assertThat(state.failed("w", UpstreamOutcome.CONNECTION_FAILED, 0, random))
                .isEqualTo(new RetryState.GiveUp("retries_exhausted"));
    }

    @Test
    void everyRetryableStatusIsRetried() {
        for (int status : new int[] {408, 429, 500, 502, 503, 504}) {
            RetryState state = exact.start();
            state.attemptStarted();
            assertThat(state.failed("w", UpstreamOutcome.ofStatus(status), status, random))
                    .as("status %d", status).isInstanceOf(RetryState.RetryAfter.class);
        }
    }

    @Test
    void clientErrorsAndUnimplementedAreNotRetried() {
        for (int status : new int[] {400, 401, 404, 413, 422, 501, 505}) {
            RetryState state = exact.start();
            state.attemptStarted();
            assertThat(state.failed("w", UpstreamOutcome.ofStatus(status), status, random))
                    .as("status %d", status).isEqualTo(new RetryState.GiveUp("not_retryable"));
        }
    }

    @Test
    void aConnectionFailureIsRetried() {
        RetryState state = exact.start();
        state.attemptStarted();

        assertThat(state.failed("w", UpstreamOutcome.CONNECTION_FAILED, 0, random))
                .isEqualTo(new RetryState.RetryAfter(50, 0));
    }

    @Test
    void nothingIsRetriedOnceTheClientHasSeenAByte() {
        RetryState state = exact.start();
        state.attemptStarted();
        assertThat(state.mayRetry()).isTrue();

        state.firstByteSent();

        assertThat(state.mayRetry()).isFalse();
        assertThat(state.failed("w", UpstreamOutcome.CONNECTION_FAILED, 0, random))
                .isEqualTo(new RetryState.GiveUp("response_started"));
    }

    @Test
    void mayRetryIsFalseOnTheLastAttempt() {
        RetryState state = new RetryPolicy(2, 50, 1.5, 30_000, 0).start();
        state.attemptStarted();
        assertThat(state.mayRetry()).isTrue();
        state.attemptStarted();
        assertThat(state.mayRetry()).isFalse();
    }

    @Test
    void workersThatFailedTheRequestAreExcludedFromTheNextSelection() {
        RetryState state = exact.start();
        state.attemptStarted();
        state.failed("http://a:1", UpstreamOutcome.SERVER_ERROR, 500, random);
        state.attemptStarted();
        state.failed("http://b:1", UpstreamOutcome.CONNECTION_FAILED, 0, random);

        assertThat(state.excludedWorkerIds()).containsExactlyInAnyOrder("http://a:1", "http://b:1");
    }

    @Test
    void anEmptyPoolEndsTheRequestAtOnceInsteadOfBackingOff() {
        RetryState state = exact.start();
        state.attemptStarted();
        state.failed("w", UpstreamOutcome.CONNECTION_FAILED, 0, random);

        assertThat(state.noWorkerAvailable()).isEqualTo(new RetryState.GiveUp("no_available_workers"));
    }

    @Test
    void startingMoreAttemptsThanThePolicyAllowsIsABug() {
        RetryState state = exact.disabled().start();
        state.attemptStarted();

        assertThatThrownBy(state::attemptStarted).isInstanceOf(IllegalStateException.class);
    }
}

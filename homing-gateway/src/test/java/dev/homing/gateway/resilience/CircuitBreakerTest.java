package dev.homing.gateway.resilience;

import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.resilience.CircuitBreaker.Permit;
import dev.homing.gateway.resilience.CircuitBreaker.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class CircuitBreakerTest {

    private final FakeClock clock = new FakeClock();
    private final List<String> transitions = new ArrayList<>();
    private final CircuitBreaker breaker = new CircuitBreaker("http://w:1",
            GatewayConfig.DEFAULTS.circuitBreakerSettings(), clock,
            (worker, from, to) -> transitions.add(worker + " " + from.label() + "->" + to.label()));

    private void outcomes(int n, UpstreamOutcome outcome) {
        for (int i = 0; i < n; i++) {
            breaker.record(breaker.tryAcquire(), outcome);
        }
    }

    private void open() {
        outcomes(10, UpstreamOutcome.SERVER_ERROR);
    }

    private void openThenHalfOpen() {
        open();
        clock.advance(Duration.ofSeconds(60));
    }

    @Test
    void nineConsecutiveFailuresKeepTheCircuitClosed() {
        outcomes(9, UpstreamOutcome.SERVER_ERROR);

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.tryAcquire()).isNotNull();
    }

    @Test
    void theTenthConsecutiveFailureOpensTheCircuit() {
        open();

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.tryAcquire()).isNull();
        assertThat(breaker.allowsRequests()).isFalse();
        assertThat(transitions).containsExactly("http://w:1 closed->open");
    }

    /** A client error counts as proof that the worker answers, as a success does. */
    @ParameterizedTest
    @EnumSource(names = {"SUCCESS", "CLIENT_ERROR"})
    void anAnswerFromTheWorkerResetsTheFailureCount(UpstreamOutcome answer) {
        outcomes(9, UpstreamOutcome.SERVER_ERROR);
        outcomes(1, answer);
        outcomes(9, UpstreamOutcome.CONNECTION_FAILED);

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void clientErrorsNeverOpenTheCircuit() {
        outcomes(100, UpstreamOutcome.ofStatus(400));
        outcomes(100, UpstreamOutcome.ofStatus(404));
        outcomes(100, UpstreamOutcome.ofStatus(413));

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void busyAnswersNeitherOpenTheCircuitNorResetTheFailureCount() {
        outcomes(9, UpstreamOutcome.SERVER_ERROR);
        outcomes(50, UpstreamOutcome.BUSY);
        outcomes(1, UpstreamOutcome.TIMEOUT);

        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    void theCircuitStaysOpenUntilTheTimeoutHasPassed() {
        open();
        clock.advance(Duration.ofSeconds(60).minusNanos(1));

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.tryAcquire()).isNull();
    }

    @Test
    void afterTheTimeoutTheCircuitIsHalfOpen() {
        openThenHalfOpen();

        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        assertThat(breaker.state().gaugeValue()).isEqualTo(2);
        assertThat(transitions).containsExactly("http://w:1 closed->open", "http://w:1 open->half_open");
    }

    @Test
    void halfOpenAdmitsOnlyAsManyProbesAsTheSuccessThreshold() {
        openThenHalfOpen();

        Permit first = breaker.tryAcquire();
        Permit second = breaker.tryAcquire();
        Permit third = breaker.tryAcquire();

        assertThat(List.of(first, second, third)).allMatch(Permit::probe);
        assertThat(breaker.tryAcquire()).isNull();
        assertThat(breaker.allowsRequests()).isFalse();
    }

    @Test
    void aFinishedProbeFreesItsPlaceForTheNextOne() {
        openThenHalfOpen();
        Permit first = breaker.tryAcquire();
        breaker.tryAcquire();
        breaker.tryAcquire();

        breaker.record(first, UpstreamOutcome.SUCCESS);

        assertThat(breaker.tryAcquire()).isNotNull();
    }

    @Test
    void threeSuccessesInHalfOpenCloseTheCircuit() {
        openThenHalfOpen();
        outcomes(2, UpstreamOutcome.SUCCESS);
        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);

        outcomes(1, UpstreamOutcome.SUCCESS);

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(transitions).endsWith("http://w:1 half_open->closed");
    }

    @Test
    void anyFailureInHalfOpenReopensTheCircuitForAnotherFullTimeout() {
        openThenHalfOpen();
        outcomes(2, UpstreamOutcome.SUCCESS);

        outcomes(1, UpstreamOutcome.CONNECTION_FAILED);

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        clock.advance(Duration.ofSeconds(59));
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        clock.advance(Duration.ofSeconds(1));
        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
    }

    @Test
    void aFailureFromARequestSentBeforeTheCircuitOpenedIsIgnoredInHalfOpen() {
        Permit old = breaker.tryAcquire();
        openThenHalfOpen();
        breaker.tryAcquire();

        breaker.record(old, UpstreamOutcome.SERVER_ERROR);

        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
    }

    @Test
    void aReleasedPermitCountsNeitherWay() {
        openThenHalfOpen();
        Permit probe = breaker.tryAcquire();

        breaker.release(probe);

        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        for (int i = 0; i < 3; i++) {
            assertThat(breaker.tryAcquire()).isNotNull();
        }
    }

    @Test
    void theGaugeValuesMatchTheReference() {
        assertThat(State.CLOSED.gaugeValue()).isZero();
        assertThat(State.OPEN.gaugeValue()).isEqualTo(1);
        assertThat(State.HALF_OPEN.gaugeValue()).isEqualTo(2);
    }

    @Test
    void aDisabledBreakerNeverOpens() {
        CircuitBreaker off = new CircuitBreaker("w", new CircuitBreaker.Settings(10, 3, 60, TimeUnit.SECONDS, true),
                clock, (w, from, to) -> transitions.add(from + "->" + to));
        for (int i = 0; i < 1000; i++) {
            off.record(off.tryAcquire(), UpstreamOutcome.CONNECTION_FAILED);
        }

        assertThat(off.state()).isEqualTo(State.CLOSED);
        assertThat(off.tryAcquire()).isNotNull();
        assertThat(transitions).isEmpty();
    }

    @Test
    void concurrentFailuresOpenTheCircuitExactlyOnce() throws InterruptedException {
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        CircuitBreaker shared = new CircuitBreaker("w", GatewayConfig.DEFAULTS.circuitBreakerSettings(), () -> 0L,
                (w, from, to) -> seen.add(from + "->" + to));
        int threads = 8;
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 200; i++) {
                    Permit p = shared.tryAcquire();
                    if (p != null) {
                        shared.record(p, UpstreamOutcome.SERVER_ERROR);
                    }
                }
                done.countDown();
            });
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(shared.state()).isEqualTo(State.OPEN);
        assertThat(seen).containsExactly("CLOSED->OPEN");
    }
}

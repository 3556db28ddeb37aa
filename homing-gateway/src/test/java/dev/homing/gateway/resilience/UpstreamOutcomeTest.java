package dev.homing.gateway.resilience;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class UpstreamOutcomeTest {

    @ParameterizedTest(name = "{0} is {1}, worker failure {2}, worker success {3}")
    @CsvSource({
            "200, SUCCESS,      false, true",
            "204, SUCCESS,      false, true",
            "400, CLIENT_ERROR, false, true",
            "404, CLIENT_ERROR, false, true",
            "413, CLIENT_ERROR, false, true",
            "408, TIMEOUT,      true,  false",
            "429, BUSY,         false, false",
            "500, SERVER_ERROR, true,  false",
            "503, BUSY,         false, false",
            "502, SERVER_ERROR, true,  false",
            "501, SERVER_ERROR, true,  false",
            "508, CLIENT_ERROR, false, true"})
    void aStatusMapsToAnOutcomeThatTheBreakerCountsOrNot(int status, UpstreamOutcome outcome, boolean failure,
                                                         boolean success) {
        assertThat(UpstreamOutcome.ofStatus(status)).isEqualTo(outcome);
        assertThat(outcome.isWorkerFailure()).isEqualTo(failure);
        assertThat(outcome.isWorkerSuccess()).isEqualTo(success);
    }

    @Test
    void backpressureIsRetriedElsewhereLikeTheFailuresWorthAskingAgain() {
        assertThat(UpstreamOutcome.isRetryable(UpstreamOutcome.ofStatus(429), 429)).isTrue();
        assertThat(UpstreamOutcome.isRetryable(UpstreamOutcome.ofStatus(503), 503)).isTrue();
        assertThat(UpstreamOutcome.isRetryable(UpstreamOutcome.ofStatus(502), 502)).isTrue();
        assertThat(UpstreamOutcome.isRetryable(UpstreamOutcome.ofStatus(501), 501)).isFalse();
    }

    @Test
    void runningOutOfFileDescriptorsIsTheGatewaysOwnExhaustionNotAWorkerFailure() {
        Throwable emfile = new java.io.IOException("Too many open files");
        Throwable wrapped = new IllegalStateException("connect failed", emfile);

        assertThat(UpstreamOutcome.isGatewayExhaustion(emfile)).isTrue();
        assertThat(UpstreamOutcome.isGatewayExhaustion(wrapped)).isTrue();
        assertThat(UpstreamOutcome.isGatewayExhaustion(new java.io.IOException("Too many open files in system")))
                .isTrue();
        assertThat(UpstreamOutcome.isGatewayExhaustion(new java.net.ConnectException("Connection refused")))
                .isFalse();
    }
}

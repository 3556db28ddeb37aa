package dev.homing.gateway.resilience;

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
            "503, SERVER_ERROR, true,  false",
            "501, SERVER_ERROR, true,  false"})
    void aStatusMapsToAnOutcomeThatTheBreakerCountsOrNot(int status, UpstreamOutcome outcome, boolean failure,
                                                         boolean success) {
        assertThat(UpstreamOutcome.ofStatus(status)).isEqualTo(outcome);
        assertThat(outcome.isWorkerFailure()).isEqualTo(failure);
        assertThat(outcome.isWorkerSuccess()).isEqualTo(success);
    }
}

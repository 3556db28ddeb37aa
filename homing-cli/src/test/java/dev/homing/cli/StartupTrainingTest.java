package dev.homing.cli;

import static org.assertj.core.api.Assertions.assertThatCode;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StartupTrainingTest {

    @Test
    void theTrainingRunStartsAGatewayInFrontOfEnginesServesItsRequestsAndStopsEverything() {
        // WARN, as the other tests log: the training sets the root level as 'homing launch' does.
        assertThatCode(() -> StartupTraining.train(Duration.ofSeconds(30), 2, 64, "warn")).doesNotThrowAnyException();
    }
}

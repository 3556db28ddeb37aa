package dev.homing.gateway.cli;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class ProxyWarmupTest {

    @Test
    void aWarmupDrivesRequestsThroughAThrowawayGatewayUntilItsTimeIsUp() {
        ProxyWarmup.Outcome outcome = ProxyWarmup.run("round_robin", Duration.ofSeconds(3));

        assertThat(outcome.requests()).isPositive();
    }

    @Test
    void theJitIsNotCalledQuietBeforeAWholeWindowWasMeasured() {
        assertThat(new ProxyWarmup.JitQuiet().getAsBoolean()).isFalse();
    }
}

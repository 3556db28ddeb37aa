package dev.homing.gateway.resilience;

import dev.homing.gateway.config.GatewayConfig;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CircuitBreakersTest {

    private final CircuitBreakers breakers = new CircuitBreakers(GatewayConfig.DEFAULTS.circuitBreakerSettings(),
            new FakeClock(), (w, from, to) -> { });

    @Test
    void eachWorkerHasItsOwnBreaker() {
        CircuitBreaker a = breakers.of("a");
        for (int i = 0; i < 10; i++) {
            a.record(a.tryAcquire(), UpstreamOutcome.CONNECTION_FAILED);
        }

        assertThat(breakers.of("a")).isSameAs(a);
        assertThat(breakers.states()).isEqualTo(Map.of("a", CircuitBreaker.State.OPEN));
        assertThat(breakers.of("b").state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void aRemovedWorkerComesBackWithAClosedBreaker() {
        CircuitBreaker a = breakers.of("a");
        for (int i = 0; i < 10; i++) {
            a.record(a.tryAcquire(), UpstreamOutcome.SERVER_ERROR);
        }

        breakers.remove("a");

        assertThat(breakers.of("a").state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }
}

package dev.homing.gateway.resilience;

import dev.homing.gateway.config.GatewayConfig;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class RetryPolicyTest {

    private static final RetryPolicy DEFAULTS = GatewayConfig.DEFAULTS.retryPolicy();

    /** A generator whose nextDouble(lo, hi) always returns {@code value}. */
    private static RandomGenerator fixed(double value) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException();
            }

            @Override
            public double nextDouble(double origin, double bound) {
                return value;
            }
        };
    }

    @Test
    void theBackoffBeforeJitterIs50Then75Then112point5Then168point75Milliseconds() {
        assertThat(DEFAULTS.baseDelayMillis(0)).isEqualTo(50.0);
        assertThat(DEFAULTS.baseDelayMillis(1)).isEqualTo(75.0);
        assertThat(DEFAULTS.baseDelayMillis(2)).isEqualTo(112.5);
        assertThat(DEFAULTS.baseDelayMillis(3)).isEqualTo(168.75);
    }

    @Test
    void theBackoffStopsGrowingAtThirtySeconds() {
        assertThat(DEFAULTS.baseDelayMillis(30)).isEqualTo(30_000.0);
        assertThat(DEFAULTS.baseDelayMillis(1000)).isEqualTo(30_000.0);
    }

    @Test
    void jitterAtItsExtremesGivesEightyAndHundredTwentyPercent() {
        assertThat(DEFAULTS.delayMillis(1, fixed(-0.2))).isEqualTo(60);
        assertThat(DEFAULTS.delayMillis(1, fixed(0.2))).isEqualTo(90);
        assertThat(DEFAULTS.delayMillis(1, fixed(0.0))).isEqualTo(75);
    }

    @Test
    void jitteredDelaysStayWithinTwentyPercentOfTheBase() {
        SplittableRandom random = new SplittableRandom(42);
        for (int retry = 0; retry < 4; retry++) {
            double base = DEFAULTS.baseDelayMillis(retry);
            for (int i = 0; i < 1000; i++) {
                assertThat((double) DEFAULTS.delayMillis(retry, random)).isBetween(
                        Math.floor(base * 0.8), Math.ceil(base * 1.2));
            }
        }
    }

    @Test
    void jitterIsSpreadRatherThanStuckAtOneValue() {
        SplittableRandom random = new SplittableRandom(7);
        double sum = 0;
        int n = 2000;
        for (int i = 0; i < n; i++) {
            sum += DEFAULTS.delayMillis(3, random);
        }
        assertThat(sum / n).isCloseTo(168.75, within(3.0));
    }

    @Test
    void noJitterGivesTheBaseDelayExactly() {
        RetryPolicy exact = new RetryPolicy(5, 50, 1.5, 30_000, 0, 1);
        assertThat(exact.delayMillis(2, new SplittableRandom(1))).isEqualTo(113);
    }

    @Test
    void disablingRetriesLeavesOneAttempt() {
        assertThat(DEFAULTS.disabled().maxAttempts()).isEqualTo(1);
    }

    @Test
    void zeroAttemptsIsRefused() {
        assertThatThrownBy(() -> new RetryPolicy(0, 50, 1.5, 30_000, 0.2, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--retry-max-retries");
    }
}

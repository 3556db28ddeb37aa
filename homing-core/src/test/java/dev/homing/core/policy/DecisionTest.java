package dev.homing.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DecisionTest {
    @Test
    void matchRatioIsZeroForEmptyText() {
        assertThat(new Decision(0, "miss", 0, 0).matchRatio()).isZero();
        assertThat(new Decision(0, "hit", 3, 4).matchRatio()).isEqualTo(0.75);
    }
}

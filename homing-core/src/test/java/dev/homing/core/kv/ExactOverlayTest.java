package dev.homing.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ExactOverlayTest {

    @Test
    void theLongestHeldIsTheBestExactWorkersAndZeroWithoutOne() {
        ExactOverlay overlay = new ExactOverlay(1_000, Map.of("w0", 128, "w1", 640, "w2", 0));

        assertThat(overlay.longestHeld()).isEqualTo(640);
        assertThat(overlay.cachedTokens("w1")).isEqualTo(640);
        assertThat(overlay.exact("w3")).isFalse();
        assertThat(overlay.cachedTokens("w3")).isZero();
        assertThat(ExactOverlay.NONE.longestHeld()).isZero();
    }

    @Test
    void aNegativePromptIsRefused() {
        assertThatThrownBy(() -> new ExactOverlay(-1, Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 0 tokens");
    }
}

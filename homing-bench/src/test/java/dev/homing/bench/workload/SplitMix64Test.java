package dev.homing.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SplitMix64Test {

    @Test
    void seedZeroGivesThePublishedFirstOutput() {
        assertThat(new SplitMix64(0).nextLong()).isEqualTo(0xE220A8397B1DCDAFL);
    }

    @Test
    void theSameSeedGivesTheSameSequence() {
        SplitMix64 a = new SplitMix64(42);
        SplitMix64 b = new SplitMix64(42);
        for (int i = 0; i < 100; i++) {
            assertThat(a.nextLong()).isEqualTo(b.nextLong());
        }
    }

    @Test
    void nextIntStaysWithinItsBound() {
        SplitMix64 random = new SplitMix64(7);
        for (int i = 0; i < 10_000; i++) {
            assertThat(random.nextInt(26)).isBetween(0, 25);
        }
    }

    @Test
    void exponentialDrawsHaveTheRequestedMean() {
        SplitMix64 random = new SplitMix64(3);
        double sum = 0;
        for (int i = 0; i < 100_000; i++) {
            sum += random.nextExponential(2.0);
        }
        assertThat(sum / 100_000).isBetween(1.97, 2.03);
    }

    @Test
    void stringHashDependsOnEveryCharacter() {
        assertThat(SplitMix64.hash("chat-1")).isNotEqualTo(SplitMix64.hash("chat-2"));
        assertThat(SplitMix64.hash("chat-1")).isEqualTo(SplitMix64.hash(new StringBuilder("chat-1")));
    }
}

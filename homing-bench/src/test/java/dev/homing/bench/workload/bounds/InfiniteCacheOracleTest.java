package dev.homing.bench.workload.bounds;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class InfiniteCacheOracleTest {

    private static PromptBlocks blocks(int tokens, Long... ids) {
        return new PromptBlocks(List.of(ids), tokens, 4);
    }

    @Test
    void aRequestHitsTheLongestPrefixAnyEarlierRequestHad() {
        InfiniteCacheOracle oracle = new InfiniteCacheOracle();

        assertThat(oracle.accept(blocks(10, 1L, 2L, 3L))).isZero();
        assertThat(oracle.accept(blocks(12, 1L, 2L, 4L))).isEqualTo(8);
        assertThat(oracle.accept(blocks(16, 1L, 2L, 4L, 5L))).isEqualTo(12);
        assertThat(oracle.accept(blocks(3, 9L))).isZero();

        HitRate result = oracle.result();
        assertThat(result).isEqualTo(new HitRate(20, 41, 5, 11, 4));
        assertThat(result.tokenRate()).isEqualTo(20.0 / 41);
        assertThat(result.blockRate()).isEqualTo(5.0 / 11);
    }

    @Test
    void aRepeatedPromptHitsEntirelyIncludingItsPartialLastBlock() {
        InfiniteCacheOracle oracle = new InfiniteCacheOracle();
        oracle.accept(blocks(10, 1L, 2L, 3L));

        assertThat(oracle.accept(blocks(10, 1L, 2L, 3L))).isEqualTo(10);
    }

    @Test
    void aSharedBlockAfterADifferentOneDoesNotCount() {
        InfiniteCacheOracle oracle = new InfiniteCacheOracle();
        oracle.accept(blocks(8, 1L, 2L));

        assertThat(oracle.accept(blocks(8, 7L, 2L))).isZero();
    }

    @Test
    void noRequestsGiveARateOfZero() {
        assertThat(new InfiniteCacheOracle().result().tokenRate()).isZero();
    }
}

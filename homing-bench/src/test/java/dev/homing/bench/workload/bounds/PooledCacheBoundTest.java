package dev.homing.bench.workload.bounds;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PooledCacheBoundTest {

    private static PromptBlocks blocks(Long... ids) {
        return new PromptBlocks(List.of(ids), 4 * ids.length, 4);
    }

    @Test
    void aCacheLargeEnoughForEverythingMatchesTheOracle() {
        PooledCacheBound pooled = new PooledCacheBound(1_000);
        InfiniteCacheOracle oracle = new InfiniteCacheOracle();
        List<PromptBlocks> prompts = List.of(blocks(1L, 2L), blocks(1L, 3L), blocks(1L, 2L, 4L), blocks(5L));

        prompts.forEach(p -> {
            pooled.accept(p);
            oracle.accept(p);
        });

        assertThat(pooled.result()).isEqualTo(oracle.result());
    }

    @Test
    void theLeastRecentlyUsedLeafIsEvictedFirst() {
        PooledCacheBound pooled = new PooledCacheBound(16);
        pooled.accept(blocks(1L, 2L));
        pooled.accept(blocks(1L, 3L));

        // 1, 2, 3 and 4 need 16 tokens; adding 5 evicts the oldest leaf, 2, not the shared parent 1.
        pooled.accept(blocks(1L, 4L));
        pooled.accept(blocks(5L));

        assertThat(pooled.accept(blocks(1L, 3L))).isEqualTo(8);
        assertThat(pooled.accept(blocks(1L, 2L))).isEqualTo(4);
        assertThat(pooled.usedTokens()).isLessThanOrEqualTo(16);
    }

    @Test
    void aSmallCacheMissesWhatAnInfiniteOneHits() {
        PooledCacheBound pooled = new PooledCacheBound(8);

        pooled.accept(blocks(1L, 2L));
        pooled.accept(blocks(3L, 4L));

        assertThat(pooled.accept(blocks(1L, 2L))).isZero();
        assertThat(pooled.result()).isEqualTo(new HitRate(0, 24, 0, 6, 3));
    }

    @Test
    void aPromptLargerThanTheCacheKeepsItsFirstBlocks() {
        PooledCacheBound pooled = new PooledCacheBound(8);

        pooled.accept(blocks(1L, 2L, 3L, 4L));

        assertThat(pooled.usedTokens()).isEqualTo(8);
        assertThat(pooled.accept(blocks(1L, 2L, 9L))).isEqualTo(8);
    }

    @Test
    void workersPoolTheirMemory() {
        PooledCacheBound pooled = PooledCacheBound.ofWorkers(2, 4);
        pooled.accept(blocks(1L, 2L));

        assertThat(pooled.accept(blocks(1L, 2L))).isEqualTo(8);
    }
}

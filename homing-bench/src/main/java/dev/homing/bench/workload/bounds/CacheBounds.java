package dev.homing.bench.workload.bounds;

import java.util.stream.Stream;

/**
 * Both bounds of one request sequence, computed in one pass.
 *
 * @param oracle the infinite-cache oracle
 * @param pooled the pooled-memory bound for {@code pooledTokens} tokens of cache in total
 */
public record CacheBounds(HitRate oracle, HitRate pooled, long pooledTokens) {

    /** Consumes (and closes) {@code prompts}, in arrival order. */
    public static CacheBounds of(Stream<PromptBlocks> prompts, long pooledTokens) {
        InfiniteCacheOracle oracle = new InfiniteCacheOracle();
        PooledCacheBound pooled = new PooledCacheBound(pooledTokens);
        try (prompts) {
            prompts.forEachOrdered(p -> {
                oracle.accept(p);
                pooled.accept(p);
            });
        }
        return new CacheBounds(oracle.result(), pooled.result(), pooledTokens);
    }
}

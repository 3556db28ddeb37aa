package dev.homing.bench.report;

import dev.homing.bench.workload.bounds.CacheBounds;

/**
 * The two ceilings a policy's hit rate is drawn against (token-weighted, 0 to 1).
 *
 * @param oracle       every prefix ever seen cached everywhere
 * @param pooled       one LRU cache with all workers' memory together
 * @param pooledTokens that pooled memory in tokens
 */
public record HitRateBounds(double oracle, double pooled, long pooledTokens) {

    public static HitRateBounds of(CacheBounds bounds) {
        return new HitRateBounds(bounds.oracle().tokenRate(), bounds.pooled().tokenRate(), bounds.pooledTokens());
    }
}

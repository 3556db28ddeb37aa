package dev.homing.bench.workload.bounds;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The pooled-memory bound: one LRU prefix cache with the memory of all workers together (say W x kvTokens). Any
 * routing over W separate caches of kvTokens holds at most what this one cache holds, so its hit rate bounds theirs
 * (up to the small differences between eviction orders).
 *
 * <p>The cache holds blocks, each costing its tokens. A request hits its longest cached prefix, then every one of
 * its blocks is touched <em>from last to first</em>, so a block is always more recent than any block that extends
 * it; LRU eviction then removes leaves before their parents, as a radix cache does, and never leaves a block whose
 * prefix is gone. Only prompts are cached (no decode tokens). A prompt larger than the whole cache keeps its first
 * blocks. Not thread-safe.
 */
public final class PooledCacheBound {

    private final long capacityTokens;
    private final LinkedHashMap<Long, Integer> blocks = new LinkedHashMap<>(1024, 0.75f, true);
    private long usedTokens;
    private HitRate total = HitRate.NONE;

    public PooledCacheBound(long capacityTokens) {
        if (capacityTokens < 0) {
            throw new IllegalArgumentException("negative capacity");
        }
        this.capacityTokens = capacityTokens;
    }

    /** W workers of {@code kvTokens} tokens each, pooled. */
    public static PooledCacheBound ofWorkers(int workers, long kvTokens) {
        return new PooledCacheBound(Math.multiplyExact(workers, kvTokens));
    }

    /** Counts one request, caches its blocks, and returns the tokens it hit. */
    public long accept(PromptBlocks prompt) {
        int hitBlocks = prompt.leadingBlocksIn(blocks::containsKey);
        for (int i = prompt.ids().size() - 1; i >= 0; i--) {
            Integer previous = blocks.put(prompt.ids().get(i), prompt.tokensOf(i));
            usedTokens += prompt.tokensOf(i) - (previous == null ? 0 : previous);
        }
        evictToCapacity();
        total = total.plus(prompt, hitBlocks);
        return prompt.tokensOfFirst(hitBlocks);
    }

    public HitRate result() {
        return total;
    }

    /** Tokens cached now; never above the capacity after a request. */
    public long usedTokens() {
        return usedTokens;
    }

    private void evictToCapacity() {
        Iterator<Map.Entry<Long, Integer>> oldestFirst = blocks.entrySet().iterator();
        while (usedTokens > capacityTokens && oldestFirst.hasNext()) {
            usedTokens -= oldestFirst.next().getValue();
            oldestFirst.remove();
        }
    }
}

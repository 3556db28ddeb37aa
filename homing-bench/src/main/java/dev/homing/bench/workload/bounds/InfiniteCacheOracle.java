package dev.homing.bench.workload.bounds;

import java.util.HashSet;
import java.util.Set;

/**
 * The infinite-cache oracle: every prefix ever seen is cached everywhere, so a request hits the longest prefix of it
 * that any earlier request had. No routing and no memory size can do better; the number of workers does not matter.
 * Feed requests in arrival order. Not thread-safe.
 */
public final class InfiniteCacheOracle {

    private final Set<Long> seen = new HashSet<>();
    private HitRate total = HitRate.NONE;

    /** Counts one request and returns the tokens it hits. */
    public long accept(PromptBlocks prompt) {
        int hitBlocks = prompt.leadingBlocksIn(seen::contains);
        seen.addAll(prompt.ids());
        total = total.plus(prompt, hitBlocks);
        return prompt.tokensOfFirst(hitBlocks);
    }

    public HitRate result() {
        return total;
    }
}

package dev.homing.bench.workload.bounds;

/**
 * Prefix-cache hits summed over requests, weighted by tokens and by blocks.
 *
 * @param hitTokens    prompt tokens found cached
 * @param promptTokens all prompt tokens
 * @param hitBlocks    prompt blocks found cached
 * @param blocks       all prompt blocks
 * @param requests     requests counted
 */
public record HitRate(long hitTokens, long promptTokens, long hitBlocks, long blocks, long requests) {

    public static final HitRate NONE = new HitRate(0, 0, 0, 0, 0);

    /** The share of prompt tokens found cached; 0 with no tokens. */
    public double tokenRate() {
        return promptTokens == 0 ? 0 : (double) hitTokens / promptTokens;
    }

    /** The share of prompt blocks found cached; 0 with no blocks. */
    public double blockRate() {
        return blocks == 0 ? 0 : (double) hitBlocks / blocks;
    }

    /** These hits and {@code other}'s together. */
    public HitRate plus(HitRate other) {
        return new HitRate(hitTokens + other.hitTokens, promptTokens + other.promptTokens,
                hitBlocks + other.hitBlocks, blocks + other.blocks, requests + other.requests);
    }

    /** These hits and one more request, {@code prompt}, whose first {@code hitBlockCount} blocks were cached. */
    HitRate plus(PromptBlocks prompt, int hitBlockCount) {
        return new HitRate(hitTokens + prompt.tokensOfFirst(hitBlockCount), promptTokens + prompt.tokens(),
                hitBlocks + hitBlockCount, blocks + prompt.ids().size(), requests + 1);
    }
}

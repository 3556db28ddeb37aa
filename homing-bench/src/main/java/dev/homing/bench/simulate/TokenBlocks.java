package dev.homing.bench.simulate;

import dev.homing.bench.workload.SplitMix64;
import dev.homing.bench.workload.bounds.PromptBlocks;
import java.util.Arrays;

/**
 * An engine prompt as the chain of prefix block ids the cache bounds count in: block {@code i} holds tokens
 * {@code [i * blockTokens, (i + 1) * blockTokens)} and its id hashes them together with the id of block {@code i - 1},
 * so equal ids mean equal prompts up to the end of that block. The last, partial block hashes its length too.
 * Stateless and thread-safe.
 */
final class TokenBlocks {

    private TokenBlocks() {
    }

    static PromptBlocks of(int[] tokens, int blockTokens) {
        int blocks = (tokens.length + blockTokens - 1) / blockTokens;
        Long[] ids = new Long[blocks];
        long id = 0;
        for (int b = 0; b < blocks; b++) {
            int from = b * blockTokens;
            int to = Math.min(tokens.length, from + blockTokens);
            long h = SplitMix64.derive(id, to - from);
            for (int i = from; i < to; i++) {
                h = SplitMix64.derive(h, tokens[i]);
            }
            id = h;
            ids[b] = id;
        }
        return new PromptBlocks(Arrays.asList(ids), tokens.length, blockTokens);
    }
}

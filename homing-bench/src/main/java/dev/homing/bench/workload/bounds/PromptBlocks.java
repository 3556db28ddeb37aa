package dev.homing.bench.workload.bounds;

import dev.homing.bench.workload.BlockText;
import dev.homing.bench.workload.MooncakeTrace;
import dev.homing.bench.workload.PseudoText;
import dev.homing.bench.workload.WorkloadRequest;
import dev.homing.core.replica.BlockChain;
import java.util.List;
import java.util.function.Predicate;

/**
 * A prompt as a chain of prefix block ids, the unit the bounds count in. Equal ids at position {@code i} mean equal
 * prompts up to the end of block {@code i}. All blocks hold {@code blockTokens} tokens except the last, which holds
 * the rest of {@code tokens}.
 *
 * @param ids         the prefix block ids, {@code ceil(tokens / blockTokens)} of them
 * @param tokens      the prompt length in tokens
 * @param blockTokens tokens per full block
 */
public record PromptBlocks(List<Long> ids, int tokens, int blockTokens) {

    public PromptBlocks {
        ids = List.copyOf(ids);
        if (blockTokens <= 0 || tokens < 0 || ids.size() != (tokens + blockTokens - 1) / blockTokens) {
            throw new IllegalArgumentException(ids.size() + " blocks of " + blockTokens + " for " + tokens + " tokens");
        }
    }

    /**
     * Blocks of a text at {@link PseudoText#CHARS_PER_TOKEN} characters a token. Each id hashes the block's text
     * seeded by the previous id (XXH3), so an id stands for the whole prefix up to its block. A text's last partial
     * block is a block of its own; a text's tokens round up.
     */
    public static PromptBlocks ofText(String text, int blockTokens) {
        int blockChars = blockTokens * PseudoText.CHARS_PER_TOKEN;
        int blocks = (text.length() + blockChars - 1) / blockChars;
        Long[] ids = new Long[blocks];
        long previous = 0;
        for (int i = 0; i < blocks; i++) {
            int start = i * blockChars;
            previous = BlockChain.next(previous, text, start, Math.min(blockChars, text.length() - start));
            ids[i] = previous;
        }
        return new PromptBlocks(List.of(ids), PseudoText.tokensOf(text.length()), blockTokens);
    }

    /** A Mooncake trace row's own blocks, without building its text. */
    public static PromptBlocks of(MooncakeTrace.Row row) {
        return new PromptBlocks(row.blockIds(), row.inputTokens(), BlockText.BLOCK_TOKENS);
    }

    /**
     * The trace's block ids when the request has them (its last message is then the trace's {@link BlockText}, 4
     * characters a token), else blocks of {@code textBlockTokens} of its rendered prompt.
     */
    public static PromptBlocks of(WorkloadRequest request, int textBlockTokens) {
        if (!request.blockIds().isEmpty()) {
            int tokens = PseudoText.tokensOf(request.messages().getLast().content().length());
            return new PromptBlocks(request.blockIds(), tokens, BlockText.BLOCK_TOKENS);
        }
        return ofText(request.prompt(), textBlockTokens);
    }

    /** Tokens held by block {@code i}. */
    public int tokensOf(int i) {
        return i < ids.size() - 1 ? blockTokens : tokens - blockTokens * (ids.size() - 1);
    }

    /** How many leading blocks {@code cached} holds, one after the other: the prompt's longest cached prefix. */
    int leadingBlocksIn(Predicate<Long> cached) {
        int blocks = 0;
        while (blocks < ids.size() && cached.test(ids.get(blocks))) {
            blocks++;
        }
        return blocks;
    }

    /** Tokens held by the first {@code blocks} blocks. */
    long tokensOfFirst(int blocks) {
        long sum = 0;
        for (int i = 0; i < blocks; i++) {
            sum += tokensOf(i);
        }
        return sum;
    }
}

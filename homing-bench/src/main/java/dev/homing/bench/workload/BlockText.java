package dev.homing.bench.workload;

import java.util.List;

/**
 * Turns a trace's prefix block ids into prompt text, so a text-matching router can replay a trace that carries no
 * text (the Mooncake format).
 *
 * <p>Invariant: two prompts whose first {@code k} block ids are equal share exactly their first
 * {@code k * BLOCK_CHARS} characters, and two different blocks differ within their first few characters. It holds
 * because each block's text depends on its id alone: a tag of three capital letters derived from the id, then
 * {@code BLOCK_TOKENS - 1} pseudo-tokens from a {@link SplitMix64} seeded by the id. The last block of a prompt is
 * truncated to the prompt's remaining tokens; a truncated block is a prefix of the full one.
 *
 * <p>Ids are only meaningful within one trace file; replaying two traces together needs a namespace per file.
 */
public final class BlockText {

    /** Tokens per block id in the Mooncake traces. */
    public static final int BLOCK_TOKENS = 512;
    public static final int BLOCK_CHARS = BLOCK_TOKENS * PseudoText.CHARS_PER_TOKEN;

    private static final int TAG_SPACE = 26 * 26 * 26;

    private BlockText() {
    }

    /**
     * The prompt text of {@code inputTokens} tokens made of the given blocks: exactly
     * {@code inputTokens * CHARS_PER_TOKEN} characters.
     *
     * @throws IllegalArgumentException unless {@code blockIds.size() == ceil(inputTokens / BLOCK_TOKENS)}
     */
    public static String of(List<Long> blockIds, int inputTokens) {
        int blocks = blockIds.size();
        if (inputTokens <= 0 || blocks != (inputTokens + BLOCK_TOKENS - 1) / BLOCK_TOKENS) {
            throw new IllegalArgumentException(
                    blocks + " block ids cannot hold " + inputTokens + " tokens of " + BLOCK_TOKENS + " a block");
        }
        StringBuilder out = new StringBuilder(inputTokens * PseudoText.CHARS_PER_TOKEN);
        for (int i = 0; i < blocks; i++) {
            int tokens = i < blocks - 1 ? BLOCK_TOKENS : inputTokens - BLOCK_TOKENS * (blocks - 1);
            appendBlock(out, blockIds.get(i), tokens);
        }
        return out.toString();
    }

    /** Appends the first {@code tokens} tokens of block {@code id}: its tag, then seeded pseudo-tokens. */
    static void appendBlock(StringBuilder out, long id, int tokens) {
        int tag = (int) Math.floorMod(id, (long) TAG_SPACE);
        out.append((char) ('A' + tag / (26 * 26))).append((char) ('A' + tag / 26 % 26)).append((char) ('A' + tag % 26))
                .append(' ');
        PseudoText.append(out, new SplitMix64(id), tokens - 1);
    }
}

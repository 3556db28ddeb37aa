package dev.homing.core.kv;

import net.openhft.hashing.LongHashFunction;

/**
 * The gateway's own names for token prefixes: tokens are cut into blocks of {@code blockTokens}, and block
 * {@code k}'s hash is XXH3 of its tokens seeded with block {@code k - 1}'s hash (the namespace's
 * {@link KvNamespace#root()} before the first). A hash so stands for its whole prefix. The engines' own hashes are
 * never reproduced (they differ by engine, version and setting); these are computed the same way from an event's
 * {@code token_ids} and from a request's tokens. Only whole blocks are named. Immutable.
 */
public final class TokenBlocks {

    private final int blockTokens;

    public TokenBlocks(int blockTokens) {
        if (blockTokens <= 0) {
            throw new IllegalArgumentException("a block holds at least one token, got " + blockTokens);
        }
        this.blockTokens = blockTokens;
    }

    public int blockTokens() {
        return blockTokens;
    }

    /** The hashes of every whole block of {@code tokens} in {@code namespace}, first block first. */
    public long[] hashes(int[] tokens, KvNamespace namespace) {
        long[] hashes = new long[tokens.length / blockTokens];
        long previous = namespace.root();
        for (int k = 0; k < hashes.length; k++) {
            previous = next(previous, tokens, k * blockTokens, blockTokens);
            hashes[k] = previous;
        }
        return hashes;
    }

    /** The hash of the block {@code tokens[start, start + length)} after the block hashed {@code previous}. */
    static long next(long previous, int[] tokens, int start, int length) {
        return LongHashFunction.xx3(previous).hashInts(tokens, start, length);
    }
}

package dev.homing.core.kv;

import net.openhft.hashing.LongHashFunction;

/**
 * The gateway's own names for token prefixes: tokens are cut into blocks of {@code blockTokens}, and block
 * {@code k}'s hash is the unseeded XXH3 of block {@code k - 1}'s hash (the namespace's {@link KvNamespace#root()}
 * before the first; as two ints, low half first) followed by the block's tokens. A hash so stands for its whole
 * prefix. The previous hash goes into the hashed data rather than the seed: a seeded XXH3 builds a new function
 * with its own 192-byte secret, which cost a block more than hashing it. The engines' own hashes are
 * never reproduced (they differ by engine, version and setting); these are computed the same way from an event's
 * {@code token_ids} and from a request's tokens. Only whole blocks are named. Immutable.
 */
public final class TokenBlocks {

    private static final LongHashFunction XXH3 = LongHashFunction.xx3();
    /** The previous block's hash, as two ints ahead of the tokens. */
    private static final int CHAIN_INTS = 2;

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
        int[] scratch = scratch();
        long previous = namespace.root();
        for (int k = 0; k < hashes.length; k++) {
            previous = next(previous, tokens, k * blockTokens, scratch);
            hashes[k] = previous;
        }
        return hashes;
    }

    /** Room for one block's hashed data, for {@link #next}: one per caller, reused block after block. */
    int[] scratch() {
        return new int[CHAIN_INTS + blockTokens];
    }

    /**
     * The hash of the block {@code tokens[start, start + blockTokens)} after the block hashed {@code previous};
     * {@code scratch} (from {@link #scratch()}) is overwritten.
     */
    long next(long previous, int[] tokens, int start, int[] scratch) {
        scratch[0] = (int) previous;
        scratch[1] = (int) (previous >>> 32);
        System.arraycopy(tokens, start, scratch, CHAIN_INTS, blockTokens);
        return XXH3.hashInts(scratch, 0, CHAIN_INTS + blockTokens);
    }
}

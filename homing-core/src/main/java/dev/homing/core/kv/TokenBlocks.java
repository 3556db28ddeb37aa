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

    /** A prompt's block hashes, computed as its tokens arrive run by run ({@link Chain}). */
    public Chain chain(KvNamespace namespace) {
        return new Chain(namespace.root());
    }

    /**
     * The hashes of a prompt whose tokens come a run at a time (as a tokenizer encodes it chunk by chunk): the same
     * hashes {@link #hashes} gives for all the tokens at once. Not thread-safe.
     */
    public final class Chain {
        private final int[] pending = new int[blockTokens];
        private final int[] scratch = scratch();
        private int pendingTokens;
        private long previous;
        private long tokens;

        private Chain(long root) {
            this.previous = root;
        }

        /** The hashes of the blocks {@code ids} completes, first first (none while a block is still short). */
        public long[] add(int[] ids) {
            long[] completed = new long[(pendingTokens + ids.length) / blockTokens];
            int done = 0;
            for (int i = 0; i < ids.length; ) {
                int take = Math.min(blockTokens - pendingTokens, ids.length - i);
                System.arraycopy(ids, i, pending, pendingTokens, take);
                pendingTokens += take;
                i += take;
                if (pendingTokens == blockTokens) {
                    previous = next(previous, pending, 0, scratch);
                    completed[done++] = previous;
                    pendingTokens = 0;
                }
            }
            tokens += ids.length;
            return completed;
        }

        /** The tokens added so far. */
        public long tokens() {
            return tokens;
        }
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

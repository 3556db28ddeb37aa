package dev.homing.core.replica;

import net.openhft.hashing.LongHashFunction;

/**
 * Names the prefixes of a text without its text: the text is cut into blocks of {@code blockChars} characters, and
 * the hash of block {@code k} is XXH3 of its characters seeded with the hash of block {@code k - 1} ({@link #ROOT}
 * before the first). A block's hash so stands for the whole prefix up to its end: two texts with the same hash at
 * block {@code k} are (but for a 64-bit collision) equal up to {@code (k + 1) * blockChars} characters. Only whole
 * blocks are named; a text's last partial block is not. Immutable.
 */
public final class BlockChain {

    /** The seed of a text's first block: the empty prefix. */
    public static final long ROOT = 0;

    private final int blockChars;

    public BlockChain(int blockChars) {
        if (blockChars <= 0) {
            throw new IllegalArgumentException("a block holds at least one character, got " + blockChars);
        }
        this.blockChars = blockChars;
    }

    public int blockChars() {
        return blockChars;
    }

    /** Whole blocks in {@code chars} characters. */
    public int blocksIn(int chars) {
        return chars / blockChars;
    }

    /** The hashes of every whole block of {@code text}, first block first. */
    public long[] hashes(String text) {
        long[] hashes = new long[blocksIn(text.length())];
        long previous = ROOT;
        for (int k = 0; k < hashes.length; k++) {
            previous = next(previous, text, k * blockChars, blockChars);
            hashes[k] = previous;
        }
        return hashes;
    }

    /** The hash of the block of {@code text} at {@code [start, start + length)} after the block hashed {@code previous}. */
    public static long next(long previous, String text, int start, int length) {
        return LongHashFunction.xx3(previous).hashChars(text, start, length);
    }

    /** As {@link #next(long, String, int, int)} over any characters: the same hash for the same characters. */
    public static long next(long previous, CharSequence text, int start, int length) {
        return switch (text) {
            case String s -> next(previous, s, start, length);
            case StringBuilder b -> LongHashFunction.xx3(previous).hashChars(b, start, length);
            default -> next(previous, text.toString(), start, length);
        };
    }
}

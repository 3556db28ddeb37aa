package dev.homing.tokenizer;

import java.util.Arrays;
import java.util.List;

/**
 * The ids a tokenizer's post-processor adds around a raw prompt (a BOS before it; for some, an EOS after), told
 * apart by encoding a few texts with and without them: a text encoded in chunks gets them once, around the whole.
 *
 * @param before the ids added before the text
 * @param after  the ids added after it
 */
record SpecialTokens(int[] before, int[] after) {

    /** Encodes a text with or without the special tokens. */
    interface Encoder {
        int[] encode(String text, boolean addSpecialTokens);
    }

    /** What {@code encoder} adds, or null when it adds something other than the same ids around every text. */
    static SpecialTokens find(Encoder encoder) {
        SpecialTokens found = null;
        for (String probe : List.of("a b", "Hello world, 42 times.", "x")) {
            int[] with = encoder.encode(probe, true);
            int[] without = encoder.encode(probe, false);
            SpecialTokens around = around(with, without);
            if (around == null || (found != null && !found.equals(around))) {
                return null;
            }
            found = around;
        }
        return found;
    }

    private static SpecialTokens around(int[] with, int[] without) {
        for (int start = 0; start + without.length <= with.length; start++) {
            if (Arrays.equals(with, start, start + without.length, without, 0, without.length)) {
                return new SpecialTokens(Arrays.copyOf(with, start),
                    Arrays.copyOfRange(with, start + without.length, with.length));
            }
        }
        return null;
    }

    /** {@code runs}, with {@link #before} joined to its first run (a run of them alone would cover no text). */
    TokenRuns beforeFirst(TokenRuns runs) {
        if (before.length == 0) {
            return runs;
        }
        return new TokenRuns() {
            private boolean first = true;

            @Override
            public boolean accept(int[] ids) {
                if (!first) {
                    return runs.accept(ids);
                }
                first = false;
                int[] joined = Arrays.copyOf(before, before.length + ids.length);
                System.arraycopy(ids, 0, joined, before.length, ids.length);
                return runs.accept(joined);
            }
        };
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SpecialTokens that && Arrays.equals(before, that.before)
            && Arrays.equals(after, that.after);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(before) + Arrays.hashCode(after);
    }
}

package dev.homing.sim.model;

/**
 * The simulated model's output: deterministic three-letter pseudo-words, one token each, seeded by the prompt.
 *
 * <p>Each word but the last is followed by a space, so every output token is exactly
 * {@link Tokenizer#CHARS_PER_TOKEN} characters and re-tokenizing the answer (as the next chat turn does) gives back
 * the generated token ids. The last word has no trailing space so that a client trimming the answer changes nothing.
 * Stateless and thread-safe.
 */
public final class PseudoWords {
    private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz";

    private PseudoWords() {
    }

    /** The seed of the answer to {@code promptTokens} under the engine-wide {@code salt}. */
    public static long seedOf(int[] promptTokens, long salt) {
        return Mix.ofTokens(promptTokens, promptTokens.length, salt);
    }

    /** The text of output token {@code index} of an answer {@code total} tokens long. */
    public static String word(long seed, int index, int total) {
        long bits = Mix.splitMix64(seed + index);
        char[] chars = new char[index == total - 1 ? 3 : 4];
        for (int i = 0; i < 3; i++) {
            chars[i] = LETTERS.charAt((int) Long.remainderUnsigned(bits >>> (16 * i), LETTERS.length()));
        }
        if (chars.length == 4) {
            chars[3] = ' ';
        }
        return new String(chars);
    }

    /** The token id of output token {@code index} of an answer {@code total} tokens long. */
    public static int token(long seed, int index, int total) {
        String word = word(seed, index, total);
        return Tokenizer.tokenOf(word, 0, word.length());
    }

    /** The text of output tokens {@code [from, to)} of an answer {@code total} tokens long. */
    public static String text(long seed, int from, int to, int total) {
        StringBuilder text = new StringBuilder((to - from) * Tokenizer.CHARS_PER_TOKEN);
        for (int i = from; i < to; i++) {
            text.append(word(seed, i, total));
        }
        return text.toString();
    }
}

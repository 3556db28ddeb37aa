package dev.homing.sim.model;

/**
 * The simulated engine's tokenizer: every run of {@value #CHARS_PER_TOKEN} characters is one token.
 *
 * <p>Real tokenizers are not compositional, but what cache behaviour depends on is that a text extending an earlier
 * text shares its token prefix; fixed-width chunks give exactly that whenever the shared part is a whole number of
 * tokens, and character offsets map to token offsets, which the trace replays rely on. Four characters a token is
 * close to English text on the tokenizers of current 8B models.
 *
 * <p>Token ids are exact for ASCII (seven bits a character and the chunk length, so no two ASCII chunks collide) and
 * a 30-bit hash otherwise. Stateless and thread-safe.
 */
public final class Tokenizer {
    /** Characters per token; four is the usual average for English on a 128k-vocabulary tokenizer. */
    public static final int CHARS_PER_TOKEN = 4;

    private static final int ASCII_LIMIT = 128;
    private static final int NON_ASCII_BASE = 1 << 30;

    private Tokenizer() {
    }

    /** How many tokens {@code text} encodes to. */
    public static int count(CharSequence text) {
        return (text.length() + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
    }

    /** Encodes {@code text} into token ids. */
    public static int[] encode(CharSequence text) {
        int[] tokens = new int[count(text)];
        for (int i = 0; i < tokens.length; i++) {
            int from = i * CHARS_PER_TOKEN;
            tokens[i] = tokenOf(text, from, Math.min(text.length(), from + CHARS_PER_TOKEN));
        }
        return tokens;
    }

    /** The id of the single token {@code text[from, to)}, at most {@value #CHARS_PER_TOKEN} characters long. */
    static int tokenOf(CharSequence text, int from, int to) {
        int packed = 0;
        boolean ascii = true;
        long hash = 0xcbf29ce484222325L;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            ascii &= c < ASCII_LIMIT;
            packed |= c << (7 * (i - from));
            hash = (hash ^ c) * 0x100000001b3L;
        }
        if (ascii) {
            return packed | (to - from - 1) << 28;
        }
        return NON_ASCII_BASE | (int) (Mix.splitMix64(hash) & (NON_ASCII_BASE - 1));
    }
}

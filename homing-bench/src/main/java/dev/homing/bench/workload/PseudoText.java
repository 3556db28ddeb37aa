package dev.homing.bench.workload;

/**
 * Deterministic filler text made of pseudo-tokens: three lowercase letters and a space, four characters each, so a
 * character offset divided by four is a token offset. Four characters a token is close to English under common
 * tokenizers, which keeps character-based caches and token-based engines roughly in step.
 */
public final class PseudoText {

    public static final int CHARS_PER_TOKEN = 4;

    private PseudoText() {
    }

    /** {@code tokens} pseudo-tokens drawn from a generator seeded by {@code seed}. */
    public static String of(long seed, int tokens) {
        StringBuilder out = new StringBuilder(tokens * CHARS_PER_TOKEN);
        append(out, new SplitMix64(seed), tokens);
        return out.toString();
    }

    /** Appends {@code tokens} pseudo-tokens drawn from {@code random}. */
    public static void append(StringBuilder out, SplitMix64 random, int tokens) {
        for (int i = 0; i < tokens; i++) {
            long bits = random.nextLong();
            out.append(letter(bits, 'a')).append(letter(bits >>> 16, 'a')).append(letter(bits >>> 32, 'a')).append(' ');
        }
    }

    /** The number of pseudo-tokens in {@code chars} characters of text, rounded up. */
    public static int tokensOf(int chars) {
        return (chars + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
    }

    static char letter(long bits, char base) {
        return (char) (base + (int) ((bits & 0xFFFF) % 26));
    }
}

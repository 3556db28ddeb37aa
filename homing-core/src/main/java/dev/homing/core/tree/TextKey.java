package dev.homing.core.tree;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A request text prepared for walking the tree: ASCII text as bytes (one copy, then every comparison against a
 * Latin-1 edge is a vectorised {@link Arrays#mismatch}), anything else as UTF-16 chars. Built outside the tree's
 * lock so the copy does not lengthen the critical section. Immutable.
 */
final class TextKey {

    private final byte[] ascii;
    private final char[] chars;
    final int length;

    private TextKey(byte[] ascii, char[] chars, int length) {
        this.ascii = ascii;
        this.chars = chars;
        this.length = length;
    }

    static TextKey of(String text) {
        // UTF-8 of an ASCII string is the string itself: the encoder's ASCII fast path is a vectorised copy, and the
        // length tells whether the text was ASCII without a second scan.
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (utf8.length == text.length()) {
            return new TextKey(utf8, null, text.length());
        }
        return new TextKey(null, text.toCharArray(), text.length());
    }

    char unit(int i) {
        return ascii != null ? (char) ascii[i] : chars[i];
    }

    /** The code point starting at {@code i}; a lone surrogate is its own code point. */
    int codePointAt(int i) {
        return ascii != null ? ascii[i] : Character.codePointAt(chars, i, length);
    }

    /** How many leading units of {@code edge} equal this text from {@code from} on (raw, before surrogate alignment). */
    int common(Object edge, int from) {
        int n = Math.min(EdgeText.length(edge), length - from);
        if (edge instanceof byte[] e) {
            if (ascii != null) {
                int m = Arrays.mismatch(e, 0, n, ascii, from, from + n);
                return m < 0 ? n : m;
            }
            for (int i = 0; i < n; i++) {
                if ((char) (e[i] & 0xFF) != chars[from + i]) {
                    return i;
                }
            }
            return n;
        }
        char[] e = (char[]) edge;
        if (chars != null) {
            int m = Arrays.mismatch(e, 0, n, chars, from, from + n);
            return m < 0 ? n : m;
        }
        for (int i = 0; i < n; i++) {
            if (e[i] != (char) ascii[from + i]) {
                return i;
            }
        }
        return n;
    }

    /**
     * Moves a match length {@code n} (text from {@code from}, against {@code edge}) back by one unit when it would
     * end between the two halves of a surrogate pair in either string, so no match, split or count ever holds half a
     * character.
     */
    int alignToCodePoint(Object edge, int from, int n) {
        if (n == 0 || !Character.isHighSurrogate(EdgeText.unit(edge, n - 1))) {
            return n;
        }
        boolean edgeContinues = n < EdgeText.length(edge) && Character.isLowSurrogate(EdgeText.unit(edge, n));
        boolean textContinues = from + n < length && Character.isLowSurrogate(unit(from + n));
        return edgeContinues || textContinues ? n - 1 : n;
    }

    /** Edge storage for {@code [from, to)} of this text: Latin-1 bytes when every unit fits, chars otherwise. */
    Object slice(int from, int to) {
        if (ascii != null) {
            return Arrays.copyOfRange(ascii, from, to);
        }
        return EdgeText.compact(chars, from, to);
    }
}

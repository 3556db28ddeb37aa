package dev.homing.core.tree;

/**
 * Comparing request text with edge text in place. Edges are {@link String}s: with compact strings (the JVM's
 * default) text whose characters all fit in Latin-1 is stored one byte a character, and a comparison between two
 * strings of the same coding is a vectorised mismatch, so the request text is walked where it lies, never copied.
 */
final class EdgeText {

    /** Below this many units a partial match is finished one character at a time: cheaper than another probe. */
    private static final int SCALAR_TAIL = 32;

    private EdgeText() {
    }

    /** The first code point, which keys an edge among its siblings; a lone surrogate is its own code point. */
    static int firstCodePoint(String edge) {
        return edge.codePointAt(0);
    }

    /**
     * How many leading units of {@code edge} equal {@code text} from {@code from} on, never ending between the two
     * halves of a surrogate pair in either string.
     */
    static int commonPrefix(String edge, String text, int from) {
        return alignToCodePoint(edge, text, from, rawCommonPrefix(edge, text, from));
    }

    private static int rawCommonPrefix(String edge, String text, int from) {
        int n = Math.min(edge.length(), text.length() - from);
        if (text.regionMatches(from, edge, 0, n)) {
            return n; // every edge but the last on a path ends here, after one vectorised compare
        }
        // The first difference lies in [lo, hi); halving costs at most twice the range in vectorised compares.
        int lo = 0;
        int hi = n;
        while (hi - lo > SCALAR_TAIL) {
            int mid = (lo + hi) >>> 1;
            if (text.regionMatches(from + lo, edge, lo, mid - lo)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        while (lo < hi && text.charAt(from + lo) == edge.charAt(lo)) {
            lo++;
        }
        return lo;
    }

    /** Moves a match length back by one unit when it would end between the halves of a surrogate pair. */
    private static int alignToCodePoint(String edge, String text, int from, int n) {
        if (n == 0 || !Character.isHighSurrogate(edge.charAt(n - 1))) {
            return n;
        }
        boolean edgeContinues = n < edge.length() && Character.isLowSurrogate(edge.charAt(n));
        boolean textContinues = from + n < text.length() && Character.isLowSurrogate(text.charAt(from + n));
        return edgeContinues || textContinues ? n - 1 : n;
    }
}

package dev.homing.core.tree;

import java.util.Arrays;

/**
 * The text on one tree edge, stored as {@code byte[]} (Latin-1, one byte a character) when every UTF-16 unit fits
 * in a byte and as {@code char[]} otherwise. Edges are never empty except the root's.
 */
final class EdgeText {

    static final byte[] EMPTY = new byte[0];

    private EdgeText() {
    }

    static int length(Object edge) {
        return edge instanceof byte[] b ? b.length : ((char[]) edge).length;
    }

    static char unit(Object edge, int i) {
        return edge instanceof byte[] b ? (char) (b[i] & 0xFF) : ((char[]) edge)[i];
    }

    /** The first code point, which keys the edge among its siblings. */
    static int firstCodePoint(Object edge) {
        return edge instanceof byte[] b ? b[0] & 0xFF : Character.codePointAt((char[]) edge, 0);
    }

    static Object slice(Object edge, int from, int to) {
        if (edge instanceof byte[] b) {
            return Arrays.copyOfRange(b, from, to);
        }
        return compact((char[]) edge, from, to);
    }

    static Object compact(char[] chars, int from, int to) {
        for (int i = from; i < to; i++) {
            if (chars[i] > 0xFF) {
                return Arrays.copyOfRange(chars, from, to);
            }
        }
        byte[] bytes = new byte[to - from];
        for (int i = from; i < to; i++) {
            bytes[i - from] = (byte) chars[i];
        }
        return bytes;
    }

    static void appendTo(StringBuilder out, Object edge) {
        if (edge instanceof byte[] b) {
            for (byte x : b) {
                out.append((char) (x & 0xFF));
            }
        } else {
            out.append((char[]) edge);
        }
    }
}

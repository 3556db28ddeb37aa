package dev.homing.bench.live;

import io.vertx.core.buffer.Buffer;
import java.util.Arrays;

/**
 * Splits a server-sent event stream, fed in network-sized pieces, into the payloads of its {@code data:} lines,
 * without decoding text or JSON: the load client decides per payload whether it needs to parse it. Lines end with
 * LF (a CR before it is dropped); other fields ({@code event:}, {@code id:}, comments) and blank lines are skipped,
 * since every API here puts one JSON document or {@code [DONE]} in each data line.
 *
 * <p>A line split across pieces is carried over in a buffer that never exceeds {@link #MAX_LINE_BYTES}; a longer
 * line fails the stream rather than growing memory without bound. Not thread-safe: one per response.
 */
final class SseDataLines {

    /** Longer than any chunk an engine sends (a cumulative {@code /generate} chunk of a 100k-token answer fits). */
    static final int MAX_LINE_BYTES = 8 << 20;

    /** Receives one payload; the array is reused after the call returns. */
    interface PayloadHandler {
        void onData(byte[] bytes, int from, int to);
    }

    static final class LineTooLong extends RuntimeException {
        LineTooLong() {
            super("server-sent event line longer than " + MAX_LINE_BYTES + " bytes");
        }
    }

    private byte[] carry = new byte[256];
    private int carryLength;
    /** Each piece is copied here once, instead of into a new array per network read. */
    private byte[] scratch = new byte[1024];

    void feed(Buffer piece, PayloadHandler handler) {
        int length = piece.length();
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        byte[] bytes = scratch;
        piece.getBytes(bytes);
        int lineStart = 0;
        for (int i = 0; i < length; i++) {
            if (bytes[i] != '\n') {
                continue;
            }
            if (carryLength == 0) {
                line(bytes, lineStart, i, handler);
            } else {
                append(bytes, lineStart, i);
                line(carry, 0, carryLength, handler);
                carryLength = 0;
            }
            lineStart = i + 1;
        }
        append(bytes, lineStart, length);
    }

    private static void line(byte[] bytes, int from, int to, PayloadHandler handler) {
        if (to > from && bytes[to - 1] == '\r') {
            to--;
        }
        if (to - from < 5 || bytes[from] != 'd' || bytes[from + 1] != 'a' || bytes[from + 2] != 't'
                || bytes[from + 3] != 'a' || bytes[from + 4] != ':') {
            return;
        }
        int payload = from + 5;
        if (payload < to && bytes[payload] == ' ') {
            payload++;
        }
        handler.onData(bytes, payload, to);
    }

    private void append(byte[] bytes, int from, int to) {
        int length = to - from;
        if (length == 0) {
            return;
        }
        if (carryLength + length > MAX_LINE_BYTES) {
            throw new LineTooLong();
        }
        if (carryLength + length > carry.length) {
            carry = Arrays.copyOf(carry, Math.min(MAX_LINE_BYTES, Math.max(carry.length * 2, carryLength + length)));
        }
        System.arraycopy(bytes, from, carry, carryLength, length);
        carryLength += length;
    }
}

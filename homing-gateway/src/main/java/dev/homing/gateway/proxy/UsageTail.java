package dev.homing.gateway.proxy;

import io.vertx.core.buffer.Buffer;

import java.nio.charset.StandardCharsets;

/**
 * Finds the prompt and cached token counts a worker reports at the end of its answer (OpenAI {@code usage},
 * Responses {@code input_tokens}, SGLang {@code meta_info}), for the realised cache-hit metric. While the answer
 * flows it only keeps references to the last two chunks, no copy and no parse per chunk; the scan runs once, at the
 * end, over those chunks' bytes in place (the keys and digits are ASCII, so no decoding is needed and nothing is
 * allocated but the result). Not thread-safe: one instance per exchange, on its event loop.
 */
public final class UsageTail {

    /** Usage numbers are near the end; a final chunk larger than this is scanned only in its last part. */
    private static final int SCAN_LIMIT = 16 * 1024;
    /** A count longer than this is cut here rather than overflow a long. */
    private static final int MAX_DIGITS = 18;

    private static final Key PROMPT_TOKENS = new Key("\"prompt_tokens\":");
    private static final Key INPUT_TOKENS = new Key("\"input_tokens\":");
    private static final Key CACHED_TOKENS = new Key("\"cached_tokens\":");

    private Buffer previous;
    private Buffer last;

    /** Token counts; {@code cachedTokens} is 0 when the worker reported prompt tokens but no cached count. */
    public record Usage(long promptTokens, long cachedTokens) {
    }

    public void saw(Buffer chunk) {
        previous = last;
        last = chunk;
    }

    /** The usage in the answer's tail, or null when there is none. */
    public Usage scan() {
        if (last == null) {
            return null;
        }
        Tail tail = new Tail(previous, last);
        long prompt = tail.lastNumberAfter(PROMPT_TOKENS);
        if (prompt < 0) {
            prompt = tail.lastNumberAfter(INPUT_TOKENS);
        }
        if (prompt < 0) {
            return null;
        }
        long cached = tail.lastNumberAfter(CACHED_TOKENS);
        return new Usage(prompt, Math.max(cached, 0));
    }

    /** Whether the answer's tail holds {@code ascii} (an engine's error name, say). */
    public boolean mentions(String ascii) {
        return last != null && new Tail(previous, last).lastIndexOf(ascii.getBytes(StandardCharsets.US_ASCII)) >= 0;
    }

    /** A key as its bytes, and the variant with a space after the colon that some servers write. */
    private record Key(byte[] tight, byte[] spaced) {
        Key(String key) {
            this(key.getBytes(StandardCharsets.US_ASCII), (key + " ").getBytes(StandardCharsets.US_ASCII));
        }
    }

    /**
     * The last {@link #SCAN_LIMIT} bytes of the answer, read in place: the end of the previous chunk followed by the
     * end of the last one, as one sequence.
     */
    private static final class Tail {
        private final byte[] previous;
        private final byte[] last;
        /** Where the scanned part starts in each array. */
        private final int previousStart;
        private final int lastStart;
        private final int previousCount;
        private final int length;

        Tail(Buffer previousChunk, Buffer lastChunk) {
            // The arrays behind the chunks, read in place (Vert.x hands out heap buffers of their own).
            ByteSlice lastBytes = ByteSlice.of(lastChunk);
            int fromLast = Math.min(lastBytes.length(), SCAN_LIMIT);
            this.last = lastBytes.array();
            this.lastStart = lastBytes.offset() + lastBytes.length() - fromLast;
            if (previousChunk == null) {
                this.previous = null;
                this.previousStart = 0;
                this.previousCount = 0;
            } else {
                ByteSlice previousBytes = ByteSlice.of(previousChunk);
                this.previous = previousBytes.array();
                this.previousCount = Math.min(previousBytes.length(), SCAN_LIMIT - fromLast);
                this.previousStart = previousBytes.offset() + previousBytes.length() - previousCount;
            }
            this.length = previousCount + fromLast;
        }

        byte at(int i) {
            return i < previousCount ? previous[previousStart + i] : last[lastStart + i - previousCount];
        }

        /**
         * The integer after the last occurrence of the key (then spaces), or -1. The key as written without a space
         * after its colon wins when present anywhere; the spaced form is looked for only when it is absent.
         */
        long lastNumberAfter(Key key) {
            int at = lastIndexOf(key.tight());
            int i = at + key.tight().length;
            if (at < 0) {
                at = lastIndexOf(key.spaced());
                if (at < 0) {
                    return -1;
                }
                i = at + key.spaced().length;
            }
            while (i < length && at(i) == ' ') {
                i++;
            }
            long value = 0;
            int digits = 0;
            while (i < length && digits < MAX_DIGITS) {
                byte b = at(i);
                if (b < '0' || b > '9') {
                    break;
                }
                value = value * 10 + (b - '0');
                i++;
                digits++;
            }
            return digits == 0 ? -1 : value;
        }

        private int lastIndexOf(byte[] key) {
            for (int start = length - key.length; start >= 0; start--) {
                if (matchesAt(key, start)) {
                    return start;
                }
            }
            return -1;
        }

        private boolean matchesAt(byte[] key, int start) {
            for (int k = 0; k < key.length; k++) {
                if (at(start + k) != key[k]) {
                    return false;
                }
            }
            return true;
        }
    }
}

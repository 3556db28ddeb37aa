package dev.homing.gateway.proxy;

import io.vertx.core.buffer.Buffer;

import java.nio.charset.StandardCharsets;

/**
 * Finds the prompt and cached token counts a worker reports at the end of its answer (OpenAI {@code usage},
 * Responses {@code input_tokens}, SGLang {@code meta_info}), for the realised cache-hit metric. While the answer
 * flows it only keeps references to the last two chunks, no copy and no parse per chunk; the scan runs once, at the
 * end, over those chunks' bytes. Not thread-safe: one instance per exchange, on its event loop.
 */
public final class UsageTail {

    /** Usage numbers are near the end; a final chunk larger than this is scanned only in its last part. */
    private static final int SCAN_LIMIT = 16 * 1024;

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
        String tail = tailText();
        long prompt = lastNumberAfter(tail, "\"prompt_tokens\":");
        if (prompt < 0) {
            prompt = lastNumberAfter(tail, "\"input_tokens\":");
        }
        if (prompt < 0) {
            return null;
        }
        long cached = lastNumberAfter(tail, "\"cached_tokens\":");
        return new Usage(prompt, Math.max(cached, 0));
    }

    private String tailText() {
        int lastLength = last.length();
        int fromLast = Math.min(lastLength, SCAN_LIMIT);
        int fromPrevious = previous == null ? 0 : Math.min(previous.length(), SCAN_LIMIT - fromLast);
        StringBuilder text = new StringBuilder(fromPrevious + fromLast);
        if (fromPrevious > 0) {
            text.append(previous.getString(previous.length() - fromPrevious, previous.length(),
                    StandardCharsets.ISO_8859_1.name()));
        }
        text.append(last.getString(lastLength - fromLast, lastLength, StandardCharsets.ISO_8859_1.name()));
        return text.toString();
    }

    /** The integer after the last occurrence of {@code key} (spaces allowed), or -1. */
    static long lastNumberAfter(String text, String key) {
        int at = text.lastIndexOf(key);
        if (at < 0) {
            String spaced = key.substring(0, key.length() - 1) + ": ";
            at = text.lastIndexOf(spaced);
            if (at < 0) {
                return -1;
            }
            key = spaced;
        }
        int i = at + key.length();
        while (i < text.length() && text.charAt(i) == ' ') {
            i++;
        }
        long value = 0;
        int digits = 0;
        while (i < text.length() && Character.isDigit(text.charAt(i)) && digits < 18) {
            value = value * 10 + (text.charAt(i) - '0');
            i++;
            digits++;
        }
        return digits == 0 ? -1 : value;
    }
}

package dev.homing.gateway.http;

import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Names each request: the first configured header present with a usable value, else a prefix and 24 random
 * alphanumerics. The id is echoed in {@code x-request-id}, sent on to the worker and written in the access log, so a
 * client's value is taken only when it is a plausible id: at most {@link #MAX_ID_BYTES} bytes, valid UTF-8, and
 * only visible characters (and plain spaces between them): no control character, no other whitespace, no invisible
 * formatting character (such as a bidirectional override that would reorder a log line on screen), no unassigned or
 * private code point. Any other value is passed over as if absent.
 *
 * <p>The decoder hands header values over as ISO-8859-1, one character per byte (HTTP/2 does the same), so the bytes
 * the client sent are the characters' codes: they are judged as UTF-8 from those. A value taken is kept as it came,
 * so the client gets back and the worker receives the very bytes the client sent. Thread-safe.
 */
public final class RequestIds {

    /** Room for a trace id or UUID with a prefix several times over; beyond it a value is a payload, not an id. */
    static final int MAX_ID_BYTES = 256;

    private static final char[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    private final AsciiString[] headers;

    public RequestIds(List<String> headers) {
        this.headers = headers.stream().map(AsciiString::of).toArray(AsciiString[]::new);
    }

    public String idFor(MultiMap requestHeaders, String prefix) {
        for (AsciiString header : headers) {
            String value = requestHeaders.get(header);
            if (value != null && usable(value)) {
                return value;
            }
        }
        char[] id = new char[24];
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < id.length; i++) {
            id[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return prefix + new String(id);
    }

    /** Whether a header value, one character per byte received, is an id to keep; see the class comment. */
    static boolean usable(String value) {
        int length = value.length();
        if (length == 0 || length > MAX_ID_BYTES || value.charAt(0) == ' ' || value.charAt(length - 1) == ' ') {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c >= 0x80) {
                return usableUtf8(value);
            }
            if (c < ' ' || c == 0x7F) {
                return false;
            }
        }
        // Printable ASCII, as nearly every id is.
        return true;
    }

    private static boolean usableUtf8(String value) {
        byte[] bytes = new byte[value.length()];
        for (int i = 0; i < bytes.length; i++) {
            char c = value.charAt(i);
            if (c > 0xFF) {
                return false;
            }
            bytes[i] = (byte) c;
        }
        CharBuffer text;
        try {
            CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
            text = utf8.decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            return false;
        }
        return text.codePoints().allMatch(RequestIds::visibleOrSpace);
    }

    private static boolean visibleOrSpace(int codePoint) {
        if (codePoint == ' ') {
            return true;
        }
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR,
                 Character.PARAGRAPH_SEPARATOR, Character.UNASSIGNED, Character.PRIVATE_USE, Character.SURROGATE ->
                    false;
            default -> true;
        };
    }
}

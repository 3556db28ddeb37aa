package dev.homing.gateway.http;

import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Names each request: the first configured header present, else a prefix and 24 random alphanumerics. */
public final class RequestIds {

    private static final char[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    private final AsciiString[] headers;

    public RequestIds(List<String> headers) {
        this.headers = headers.stream().map(AsciiString::of).toArray(AsciiString[]::new);
    }

    public String idFor(MultiMap requestHeaders, String prefix) {
        for (AsciiString header : headers) {
            String value = requestHeaders.get(header);
            if (value != null && !value.isBlank()) {
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
}

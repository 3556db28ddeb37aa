package dev.homing.gateway.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Checks an {@code Authorization: Bearer <key>} header against one configured key in constant time: both sides are
 * hashed with SHA-256 and the digests compared with {@link MessageDigest#isEqual}, so neither the position of the
 * first wrong byte nor the key's length shows in the timing. The key is kept only as its digest and never appears in
 * {@link #toString()}. Immutable and thread-safe.
 */
public final class ApiKeyCheck {

    private static final String BEARER = "bearer ";

    private final byte[] expectedDigest;

    private ApiKeyCheck(byte[] expectedDigest) {
        this.expectedDigest = expectedDigest;
    }

    /** A check for {@code key}, which must not be blank. */
    public static ApiKeyCheck of(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("an API key must not be blank");
        }
        return new ApiKeyCheck(sha256(key));
    }

    /** Whether the raw {@code Authorization} header value (null when absent) carries the key as a Bearer token. */
    public boolean matches(String authorizationHeader) {
        String presented = bearerToken(authorizationHeader);
        // Hash even when nothing usable was sent, so a missing header costs the same time as a wrong one.
        byte[] digest = sha256(presented == null ? "" : presented);
        return MessageDigest.isEqual(expectedDigest, digest) && presented != null;
    }

    /** The token of a {@code Bearer} header (scheme case-insensitive, as RFC 9110 says), or null. */
    static String bearerToken(String header) {
        if (header == null || header.length() <= BEARER.length()
                || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        return header.substring(BEARER.length()).strip();
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "ApiKeyCheck[key=<redacted>]";
    }
}

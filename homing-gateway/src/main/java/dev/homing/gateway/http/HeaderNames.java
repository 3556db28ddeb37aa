package dev.homing.gateway.http;

import io.netty.util.AsciiString;

/**
 * The gateway's own header names that every request reads or writes, as Netty's {@link AsciiString}s (the standard
 * ones are Netty's {@code HttpHeaderNames}). A header map hashes a name at each look-up; an AsciiString keeps its
 * hash, a String literal is hashed again every time, and a request makes a few dozen look-ups.
 */
public final class HeaderNames {

    public static final AsciiString REQUEST_ID = AsciiString.cached("x-request-id");
    public static final AsciiString ERROR_CODE = AsciiString.cached("x-smg-error-code");
    public static final AsciiString ROUTING_KEY = AsciiString.cached("x-smg-routing-key");
    public static final AsciiString TARGET_WORKER = AsciiString.cached("x-smg-target-worker");
    /** Which view placed the request: {@code exact} (the engines' KV events) or {@code approximate} (the tree). */
    public static final AsciiString ROUTING_VIEW = AsciiString.cached("x-homing-routing-view");
    /** The share of the prompt the routing expected the chosen engine to hold, 0 to 1. */
    public static final AsciiString PREDICTED_HIT = AsciiString.cached("x-homing-predicted-hit");
    public static final AsciiString FORWARDED_FOR = AsciiString.cached("x-forwarded-for");

    private HeaderNames() {
    }
}

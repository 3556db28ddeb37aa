package dev.homing.gateway.http;

import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;

/**
 * Loop protection between gateways, as HTTP's {@code Max-Forwards} and {@code Via} give proxies. A request the
 * gateway relays to a worker (an inference request, a proxied info route, a fan-out admin call) carries
 * {@code x-homing-hops}: the number of gateways it has passed, one more than it arrived with (none: 0). A request
 * that arrives having passed {@link #MAX} gateways already is refused with 508 Loop Detected, so gateways that are
 * each other's workers, or a gateway behind an address that leads back to itself, bounce a request a few times
 * rather than for ever; the 508 is not retried, so the loop unwinds at once.
 *
 * <p>Counted up, not down: a client may send the header, but whatever it sends only shortens the way. Stateless.
 */
public final class HopLimit {

    public static final String HEADER = "x-homing-hops";
    /** {@link #HEADER} as a header map looks it up fastest. */
    public static final AsciiString NAME = AsciiString.cached(HEADER);
    /**
     * Gateways a request may have passed when it arrives. A deployment stacks one or two (a global gateway before
     * regional ones); four leaves room for that and ends a loop after four hops.
     */
    public static final int MAX = 4;

    /** The edge stage: a request that has passed too many gateways, or says so wrongly, goes no further. */
    public static final EdgeStage STAGE = new EdgeStage("hop limit",
            (request, match) -> EdgeStage.refusal(refusal(request.headers())));

    private HopLimit() {
    }

    /** Why a request with these headers must not go on (508 for a loop, 400 for a bad count), or null. */
    public static ApiError refusal(MultiMap headers) {
        int hops = arrived(headers);
        if (hops < 0) {
            return ApiError.badRequest(HEADER + " must be a count of gateways: a non-negative integer");
        }
        if (hops >= MAX) {
            return new ApiError(508, "loop_detected", "The request has passed " + hops + " gateways already ("
                    + HEADER + "); gateways that are each other's workers are sending it round in a loop");
        }
        return null;
    }

    /** The header's value for the request relayed onwards: one gateway more than it arrived with. */
    public static String next(MultiMap headers) {
        return Integer.toString(Math.max(0, arrived(headers)) + 1);
    }

    /** The gateways the request has passed (0 without the header), or -1 for a value that is no count. */
    private static int arrived(MultiMap headers) {
        String value = headers.get(NAME);
        if (value == null) {
            return 0;
        }
        String digits = value.trim();
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Integer.parseInt(digits);
    }
}

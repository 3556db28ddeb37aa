package dev.homing.gateway.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;

import java.util.List;

/**
 * The {@code Expect} header (RFC 9110 section 10.1.1). A client that sends {@code Expect: 100-continue} holds its
 * body back until the server asks for it with an interim {@code 100 Continue} (curl waits a second, then sends it
 * anyway). The gateway asks only when it is about to read the body, that is once the request has passed every check
 * that can refuse it without its body (the request id, hop limit, access, route and method; for inference, admission;
 * then the body's declared length against the payload limit and the body memory, in {@link BodyReader}). A request
 * refused before that gets its final status and its body is never sent: a wrong key costs no upload. Vert.x's
 * automatic mode would answer 100 at once, before any of those checks.
 *
 * <p>An HTTP/1.0 request's 100-continue is ignored (the section's rule: no 100 goes to an HTTP/1.0 client). Any other
 * expectation, in any version, gets 417 {@code expectation_failed}, as the gateway meets none. Over HTTP/2 the 100 is
 * an interim HEADERS frame on the stream. When an HTTP/1.1 request that waits for its 100 is answered without one,
 * {@link ClientDeadlines} closes the connection after the answer: the client never sent the body that the connection
 * still owes. Stateless and thread-safe.
 */
public final class ExpectContinue {

    private static final String CONTINUE = "100-continue";

    /**
     * The edge stage: 417 for an expectation the gateway does not meet. Over HTTP/1.x the connection is closed with
     * it, as a body sent along without waiting would be read as the next request.
     */
    public static final EdgeStage STAGE = new EdgeStage("expect", (request, match) -> {
        ApiError refusal = refusal(request);
        if (refusal == null) {
            return null;
        }
        return request.version() == HttpVersion.HTTP_2 ? EdgeStage.refusal(refusal) : refusal::sendAndClose;
    });

    private ExpectContinue() {
    }

    /** 417 for an expectation the gateway does not meet, or null when there is none or only 100-continue. */
    public static ApiError refusal(HttpServerRequest request) {
        List<String> values = request.headers().getAll(HttpHeaderNames.EXPECT);
        for (String value : values) {
            for (String expectation : value.split(",", -1)) {
                String name = expectation.strip();
                if (!name.isEmpty() && !name.equalsIgnoreCase(CONTINUE)) {
                    return new ApiError(417, "expectation_failed",
                            "The gateway meets no expectation but 100-continue; send the request without Expect");
                }
            }
        }
        return null;
    }

    /**
     * Asks the client for its body with {@code 100 Continue}, if it waits for one: called once the gateway is about
     * to read the body. Nothing is written to an HTTP/1.0 client, for a body already whole, or once the answer began.
     */
    public static void beforeBody(HttpServerRequest request) {
        if (request.version() != HttpVersion.HTTP_1_0 && !request.isEnded() && !request.response().headWritten()
                && waitsForContinue(request)) {
            request.response().writeContinue();
        }
    }

    private static boolean waitsForContinue(HttpServerRequest request) {
        String expect = request.getHeader(HttpHeaderNames.EXPECT);
        return expect != null && expect.strip().equalsIgnoreCase(CONTINUE);
    }
}

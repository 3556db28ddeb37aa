package dev.homing.gateway.http;

import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;

/**
 * Answers requests the HTTP decoder refused before any route saw them, in the OpenAI error shape rather than the
 * decoder's empty body: a request line over {@link HttpServerOptions#getMaxInitialLineLength()} bytes gets 414, a
 * head over {@link HttpServerOptions#getMaxHeaderSize()} bytes gets 431, a request line in HTTP/2 or later gets 505,
 * anything else (a Content-Length that is not a number, a malformed request line, both Content-Length and a chunked
 * Transfer-Encoding: see {@link StrictRequestDecoder}) gets 400. The decoder stops reading at the limit, so an
 * oversized head never costs more memory than the limit, and the connection is closed after the answer: the rest of
 * what the client sent cannot be framed. Thread-safe.
 */
public final class InvalidRequests implements Handler<HttpServerRequest> {

    /** Decoder messages quote the client's own bytes; a sentence of them is enough to say what was wrong. */
    private static final int MAX_DETAIL_CHARS = 200;

    private final EdgeRefusals refusals;

    public InvalidRequests(EdgeRefusals refusals) {
        this.refusals = refusals;
    }

    @Override
    public void handle(HttpServerRequest request) {
        ApiError error = errorFor(request.decoderResult().cause());
        refusals.refused(error.code());
        error.sendAndClose(request);
    }

    static ApiError errorFor(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return new ApiError(414, "uri_too_long", "The request line is longer than the gateway accepts");
        }
        if (cause instanceof StrictRequestDecoder.UnsupportedVersionException) {
            return new ApiError(505, "http_version_not_supported", cause.getMessage());
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return new ApiError(431, "header_fields_too_large",
                    "The request headers are larger than the gateway accepts");
        }
        String detail = cause == null || cause.getMessage() == null ? "" : cause.getMessage();
        if (detail.length() > MAX_DETAIL_CHARS) {
            detail = detail.substring(0, MAX_DETAIL_CHARS) + "...";
        }
        return ApiError.badRequest("Malformed HTTP request" + (detail.isEmpty() ? "" : ": " + detail));
    }
}

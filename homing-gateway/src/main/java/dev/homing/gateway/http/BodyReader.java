package dev.homing.gateway.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;

/** Reads a request body whole, never more than a limit: the one place request bodies enter memory. */
public final class BodyReader {

    private BodyReader() {
    }

    /**
     * Reads the whole body up to {@code limit} bytes; a larger body gets 413 (early, from Content-Length, when the
     * client declared it) and the connection is closed so the rest is not read.
     */
    public static void read(HttpServerRequest req, long limit, Handler<Buffer> onBody) {
        String declared = req.getHeader("content-length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.trim()) > limit) {
                    tooLarge(req, limit);
                    return;
                }
            } catch (NumberFormatException e) {
                failWith(req, ApiError.badRequest("invalid Content-Length"));
                return;
            }
        }
        Buffer body = Buffer.buffer(declared != null ? (int) Math.min(Long.parseLong(declared.trim()), limit) : 1024);
        boolean[] over = {false};
        req.handler(chunk -> {
            if (over[0]) {
                return;
            }
            if ((long) body.length() + chunk.length() > limit) {
                over[0] = true;
                tooLarge(req, limit);
            } else {
                body.appendBuffer(chunk);
            }
        });
        req.endHandler(v -> {
            if (!over[0]) {
                onBody.handle(body);
            }
        });
    }

    private static void tooLarge(HttpServerRequest req, long limit) {
        if (req.version() != HttpVersion.HTTP_2) {
            // HTTP/1.1 cannot skip the rest of an upload on a live connection; HTTP/2 resets just the stream.
            req.response().putHeader("connection", "close");
        }
        failWith(req, new ApiError(413, "payload_too_large", "Request body is larger than " + limit + " bytes"));
    }

    private static void failWith(HttpServerRequest req, ApiError error) {
        error.send(req.response());
    }
}

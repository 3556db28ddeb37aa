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
        read(req, limit, onBody, error -> error.send(req.response()));
    }

    /**
     * As {@link #read(HttpServerRequest, long, Handler)}, but a body refused (400 for a bad Content-Length, 413 for
     * one too large) goes to {@code onRefused} to be answered, rather than answered here; the response already
     * carries what the refusal needs ({@code connection: close} after a 413 on HTTP/1.1).
     */
    public static void read(HttpServerRequest req, long limit, Handler<Buffer> onBody, Handler<ApiError> onRefused) {
        String declared = req.getHeader("content-length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.trim()) > limit) {
                    tooLarge(req, limit, onRefused);
                    return;
                }
            } catch (NumberFormatException e) {
                onRefused.handle(ApiError.badRequest("invalid Content-Length"));
                return;
            }
        }
        Body body = new Body(declared != null ? (int) Math.min(Long.parseLong(declared.trim()), limit) : 1024);
        req.handler(chunk -> {
            if (body.over) {
                return;
            }
            if ((long) body.length() + chunk.length() > limit) {
                body.over = true;
                tooLarge(req, limit, onRefused);
            } else {
                body.add(chunk);
            }
        });
        req.endHandler(v -> {
            if (!body.over) {
                onBody.handle(body.whole());
            }
        });
    }

    /**
     * The chunks read so far. A body that arrives in one chunk (most do) is that chunk itself, not a copy: Vert.x
     * hands the handler a heap buffer of its own, safe to keep. A second chunk starts one buffer for them all.
     */
    private static final class Body {
        private final int sizeHint;
        private Buffer first;
        private Buffer joined;
        boolean over;

        Body(int sizeHint) {
            this.sizeHint = sizeHint;
        }

        int length() {
            return joined != null ? joined.length() : first != null ? first.length() : 0;
        }

        void add(Buffer chunk) {
            if (first == null) {
                first = chunk;
                return;
            }
            if (joined == null) {
                joined = Buffer.buffer(Math.max(sizeHint, first.length() + chunk.length())).appendBuffer(first);
            }
            joined.appendBuffer(chunk);
        }

        Buffer whole() {
            return joined != null ? joined : first != null ? first : Buffer.buffer();
        }
    }

    private static void tooLarge(HttpServerRequest req, long limit, Handler<ApiError> onRefused) {
        if (req.version() != HttpVersion.HTTP_2) {
            // HTTP/1.1 cannot skip the rest of an upload on a live connection; HTTP/2 resets just the stream.
            req.response().putHeader("connection", "close");
        }
        onRefused.handle(new ApiError(413, "payload_too_large", "Request body is larger than " + limit + " bytes"));
    }
}

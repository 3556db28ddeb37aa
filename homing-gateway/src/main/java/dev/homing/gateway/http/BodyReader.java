package dev.homing.gateway.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads request bodies whole: the one place they enter memory, within two bounds checked as the bytes arrive.
 * <ul>
 *   <li>The request's own limit ({@code --max-payload-size} for inference): 413.
 *   <li>The gateway's {@link BodyMemory}: a body that would take it over its budget gets 503
 *       {@code body_memory_full} with Retry-After, one larger than the whole budget 413.
 * </ul>
 * A body that declares its length is judged on it before a byte is read: refused at once, or its whole length
 * reserved and its chunks copied into one buffer of that size (a body that comes in one chunk, as most do, is that
 * chunk: Vert.x hands the handler a heap buffer of its own). A chunked body is reserved twice as it comes, for its
 * pieces and for the one buffer they are joined into at its end, when the pieces are let go. Nothing is copied more
 * than once. A refusal is answered by the caller; then an HTTP/1.x connection is closed, so the rest of the body is
 * never read, and an HTTP/2 stream is reset once answered ({@link Http2Deadlines}). A client that waits for
 * {@code 100 Continue} ({@link ExpectContinue}) gets it once the declared length is accepted, as the read starts.
 *
 * <p>HTTP/1.x connections have their body deadline in {@link ClientDeadlines}; an HTTP/2 stream's is here: while
 * its body is read, a pause between chunks longer than the body timeout ends it with 408 {@code client_body_timeout}.
 *
 * <p>Invariant: every byte kept is reserved first, and a read gives back all it reserved exactly once: through its
 * {@link Body}'s release, or at once when it is refused or its client leaves. Guarded by each read's {@code done}
 * flag, set on the way out of reading whichever way it ends. A read is confined to its request's event loop; the
 * memory is shared and thread-safe.
 */
public final class BodyReader {

    /** Bodies in memory are sent on within moments: a second later there is room again, or the gateway is full. */
    private static final int FULL_RETRY_AFTER_SECS = 1;
    /** The most bytes one buffer holds. */
    private static final long LARGEST_BUFFER = Integer.MAX_VALUE - 8;

    private final Vertx vertx;
    private final BodyMemory memory;
    private final long http2BodyIdleNanos;

    /** @param http2BodyIdle the longest pause between an HTTP/2 stream's body chunks ({@code --client-body-timeout-secs}) */
    public BodyReader(Vertx vertx, BodyMemory memory, Duration http2BodyIdle) {
        this.vertx = vertx;
        this.memory = memory;
        this.http2BodyIdleNanos = http2BodyIdle.toNanos();
    }

    public BodyMemory memory() {
        return memory;
    }

    /**
     * A request body read whole: its bytes, counted in the body memory until released, and no longer held by it
     * then, so that what the budget counts is what the body keeps alive. Not thread-safe.
     */
    public static final class Body {
        private final BodyMemory memory;
        private Buffer bytes;
        private long reserved;

        private Body(BodyMemory memory, Buffer bytes, long reserved) {
            this.memory = memory;
            this.bytes = bytes;
            this.reserved = reserved;
        }

        /** The body; not to be asked once released. */
        public Buffer bytes() {
            if (bytes == null) {
                throw new IllegalStateException("body already released");
            }
            return bytes;
        }

        /**
         * Gives the body's memory back and lets its bytes go, once nothing more will be sent of it; later calls do
         * nothing.
         */
        public void release() {
            memory.release(reserved);
            reserved = 0;
            bytes = null;
        }
    }

    /**
     * Reads the body of {@code req}, of at most {@code limit} bytes, for a handler that is done with it when it
     * returns; a refusal is answered here.
     */
    public void read(HttpServerRequest req, long limit, Handler<Buffer> onBody) {
        read(req, limit, body -> {
            try {
                onBody.handle(body.bytes());
            } finally {
                body.release();
            }
        }, error -> error.send(req.response()));
    }

    /**
     * Reads the body of {@code req}, of at most {@code limit} bytes. A refusal (400 for a bad Content-Length, 413 for
     * a body too large, 503 with the body memory full, 408 for a stalled HTTP/2 body) goes to {@code onRefused} to be
     * answered; the response already carries what the refusal needs (Connection: close, Retry-After).
     */
    public void read(HttpServerRequest req, long limit, Handler<Body> onBody, Handler<ApiError> onRefused) {
        new Read(req, Math.min(limit, LARGEST_BUFFER), onBody, onRefused).start();
    }

    /** One body being read; see the class comment. */
    private final class Read {
        private final HttpServerRequest req;
        private final long limit;
        private final Handler<Body> onBody;
        private final Handler<ApiError> onRefused;
        /** The declared length, or -1 for a chunked body. */
        private long declared = -1;
        /** Read whole, refused or abandoned: nothing more is kept, nothing more reserved. */
        private boolean done;
        private long reserved;
        private int length;
        /** A declared body: its first chunk, until a second starts the buffer of the declared size. */
        private Buffer first;
        private Buffer joined;
        /** A chunked body: its pieces, until its end joins them. */
        private List<Buffer> pieces;
        private long lastChunkNanos = System.nanoTime();

        Read(HttpServerRequest req, long limit, Handler<Body> onBody, Handler<ApiError> onRefused) {
            this.req = req;
            this.limit = limit;
            this.onBody = onBody;
            this.onRefused = onRefused;
        }

        void start() {
            String header = req.getHeader(HttpHeaderNames.CONTENT_LENGTH);
            if (header != null) {
                try {
                    declared = Long.parseLong(header.trim());
                } catch (NumberFormatException e) {
                    refuse(ApiError.badRequest("invalid Content-Length"));
                    return;
                }
                if (declared > limit) {
                    refuse(tooLarge());
                    return;
                }
                if (declared > memory.limit()) {
                    refuse(largerThanMemory());
                    return;
                }
                if (!memory.tryReserve(declared)) {
                    refuse(memoryFull());
                    return;
                }
                reserved = declared;
            } else {
                pieces = new ArrayList<>();
            }
            // Nothing left to refuse it for without reading it: a client waiting for a 100 sends its body now.
            ExpectContinue.beforeBody(req);
            req.handler(this::chunk);
            req.endHandler(v -> end());
            // The client left or reset the stream half way: its bytes are given back at once.
            req.exceptionHandler(err -> abandon());
            if (req.version() == HttpVersion.HTTP_2) {
                vertx.setTimer(TimeUnit.NANOSECONDS.toMillis(http2BodyIdleNanos) + 1, id -> checkStall());
            }
        }

        private void chunk(Buffer chunk) {
            if (done) {
                return;
            }
            lastChunkNanos = System.nanoTime();
            long after = (long) length + chunk.length();
            if (after > limit) {
                // Only a chunked body gets here: the decoder holds a declared one to its length.
                refuse(tooLarge());
                return;
            }
            if (declared < 0) {
                if (!memory.tryReserve(2L * chunk.length())) {
                    refuse(2 * after > memory.limit() ? largerThanMemory() : memoryFull());
                    return;
                }
                reserved += 2L * chunk.length();
                pieces.add(chunk);
            } else if (first == null && joined == null) {
                first = chunk;
            } else {
                if (joined == null) {
                    joined = Buffer.buffer((int) declared).appendBuffer(first);
                    first = null;
                }
                joined.appendBuffer(chunk);
            }
            length = (int) after;
        }

        private void end() {
            if (done) {
                return;
            }
            done = true;
            Buffer whole;
            if (declared >= 0) {
                whole = joined != null ? joined : first != null ? first : Buffer.buffer();
                // The Body alone holds it from now on, so that releasing it lets it go (this reader stays
                // reachable from the request's handlers while the answer streams).
                first = null;
                joined = null;
            } else {
                whole = pieces.size() == 1 ? pieces.getFirst() : joinPieces();
                pieces = null;
                // The pieces are let go; the body alone stays counted.
                memory.release(reserved - length);
                reserved = length;
            }
            onBody.handle(new Body(memory, whole, reserved));
        }

        private Buffer joinPieces() {
            Buffer whole = Buffer.buffer(length);
            for (Buffer piece : pieces) {
                whole.appendBuffer(piece);
            }
            return whole;
        }

        private void checkStall() {
            if (done) {
                return;
            }
            long quiet = System.nanoTime() - lastChunkNanos;
            if (quiet >= http2BodyIdleNanos) {
                refuse(ClientDeadlines.stalledBody(http2BodyIdleNanos));
            } else {
                vertx.setTimer(TimeUnit.NANOSECONDS.toMillis(http2BodyIdleNanos - quiet) + 1, id -> checkStall());
            }
        }

        /** Nothing more is kept of this body, and all it reserved is given back. */
        private void abandon() {
            if (done) {
                return;
            }
            done = true;
            memory.release(reserved);
            reserved = 0;
            first = null;
            joined = null;
            pieces = null;
        }

        private void refuse(ApiError error) {
            abandon();
            boolean http1 = req.version() != HttpVersion.HTTP_2;
            if (http1) {
                // The rest of the body cannot be skipped on a live HTTP/1.x connection.
                req.response().putHeader("connection", "close");
            }
            if (error.status() == 503) {
                req.response().putHeader("retry-after", String.valueOf(FULL_RETRY_AFTER_SECS));
            }
            onRefused.handle(error);
            if (http1) {
                req.connection().close();
            }
        }

        private ApiError tooLarge() {
            return new ApiError(413, "payload_too_large", "Request body is larger than " + limit + " bytes");
        }

        private ApiError largerThanMemory() {
            return new ApiError(413, "payload_too_large", "Request body is larger than the " + memory.limit()
                    + " bytes of request bodies the gateway holds at once" + (declared < 0
                    ? " (a chunked body counts twice while it is read: send its Content-Length)" : ""));
        }

        private ApiError memoryFull() {
            return new ApiError(503, "body_memory_full", "The gateway holds " + memory.limit() + " bytes of request"
                    + " bodies at once and has no room for this one now; retry after " + FULL_RETRY_AFTER_SECS + " s");
        }
    }
}

package dev.homing.gateway.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpMessage;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;

/**
 * Vert.x's HTTP/1.x request decoder with two refusals of its own, for what only the decoder can see. Either fails
 * the request (so {@link InvalidRequests} answers it) and stops the decoder for the rest of the connection: no byte
 * after it is read as a request.
 *
 * <ul>
 *   <li>Content-Length together with a chunked Transfer-Encoding (RFC 9112 section 6.3): the decoder would drop the
 *       Content-Length and read the body chunked, and a front proxy that read it by length would see a second
 *       request inside the body (request smuggling). Refused with 400.
 *   <li>A request line in a major HTTP version other than 1 ({@code HTTP/2.0}, {@code HTTP/3.0}): refused with
 *       505 ({@link UnsupportedVersionException}); Vert.x would answer a bare 501 before any handler saw it. A
 *       higher minor version of HTTP/1 ({@code HTTP/1.2}) is read as HTTP/1.1, as section 2.3 asks.
 * </ul>
 * Placed by {@link #placeBefore} along with the client deadlines ({@link ClientDeadlines.FirstBytes}), before the
 * connection's first byte is decoded. Not thread-safe:
 * confined to its channel's event loop, as every Netty decoder.
 */
public final class StrictRequestDecoder extends VertxHttpRequestDecoder {

    /** A request line in an HTTP version the gateway does not speak over HTTP/1 framing. */
    public static final class UnsupportedVersionException extends IllegalArgumentException {
        UnsupportedVersionException(String version) {
            super("HTTP version " + version + " is not supported on this connection; use HTTP/1.1", null);
        }
    }

    /**
     * The gateway's listener keeps Vert.x's default head limits (request line, head, chunk size), so this decoder
     * takes them from default options rather than from the listener's own, which the pipeline does not carry.
     */
    private static final HttpServerOptions LIMITS = new HttpServerOptions();

    private StrictRequestDecoder() {
        super(LIMITS);
    }

    /**
     * Puts a strict decoder in the place of Vert.x's, before it has decoded anything: at once when the codec is in
     * the pipeline (TLS: set up after the handshake), else as the codec is added. On a plain connection Vert.x adds
     * it only once the first bytes have shown HTTP/1.x rather than HTTP/2, inserting it just before {@code anchor};
     * a one-shot handler put there first is then the first to see those bytes, with the codec right behind it.
     */
    public static void placeBefore(ChannelPipeline pipeline, String anchor) {
        if (!replaceIn(pipeline)) {
            pipeline.addBefore(anchor, null, new OnCodecAdded());
        }
    }

    /** Replaces Vert.x's decoder (found by its type) if the pipeline has it; whether a strict one is there now. */
    private static boolean replaceIn(ChannelPipeline pipeline) {
        ChannelHandlerContext decoder = pipeline.context(VertxHttpRequestDecoder.class);
        if (decoder == null) {
            return false;
        }
        if (!(decoder.handler() instanceof StrictRequestDecoder)) {
            // Under Vert.x's own name: its upgrade to HTTP/2 (h2c) removes the decoder by that name.
            pipeline.replace(decoder.name(), decoder.name(), new StrictRequestDecoder());
        }
        return true;
    }

    /** Sees the first bytes after Vert.x set the codec up behind it; replaces the decoder and steps out. */
    private static final class OnCodecAdded extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.pipeline().remove(this);
            replaceIn(ctx.pipeline());
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    protected HttpMessage createMessage(String[] initialLine) {
        String version = initialLine[2];
        // HTTP-version is "HTTP/" DIGIT "." DIGIT; anything else is left to the decoder's own parse, which fails it.
        if (version.length() == 8 && version.startsWith("HTTP/") && isDigit(version.charAt(5))
                && version.charAt(6) == '.' && isDigit(version.charAt(7))) {
            if (version.charAt(5) != '1') {
                throw new UnsupportedVersionException(version);
            }
            if (version.charAt(7) > '1') {
                initialLine[2] = "HTTP/1.1";
            }
        }
        return super.createMessage(initialLine);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    @Override
    protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
        throw new IllegalArgumentException("Content-Length and Transfer-Encoding together leave the body's length "
                + "ambiguous; send one of them");
    }
}

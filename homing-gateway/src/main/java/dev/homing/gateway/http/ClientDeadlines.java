package dev.homing.gateway.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Deadlines on the client side of one HTTP/1.x connection, so that a client who dribbles a request head, stalls
 * half way through a body or idles between requests cannot hold a connection (and its memory) for ever. The
 * connection is always in one phase, and each phase has at most one deadline:
 *
 * <pre>
 *   HEAD     from the connection's start, or from the first byte after an idle spell, the head must be whole
 *            within the header timeout: else 408 and close (just close when no byte came at all)
 *   BODY     while a request body is read, no pause between body bytes longer than the body timeout: else 408 and
 *            close (just close when the response has already started); a pause the gateway itself causes (it
 *            stopped reading: a request waiting for admission, backpressure) does not count. The gateway closing
 *            the connection in this phase (a refused upload) lingers: {@link LingeringClose}
 *   WAITING  a request is read and its response has not ended: no deadline (--request-timeout-secs bounds it);
 *            also an HTTP/1.1 request whose client waits for its 100 Continue before it sends its body
 *   IDLE     no request open: closed after the keep-alive timeout, without an answer
 * </pre>
 *
 * It sits after Vert.x's HTTP codec and before Vert.x's connection handler, so it sees decoded requests and the
 * responses Vert.x writes; {@link FirstBytes}, at the head of the pipeline, tells it when raw bytes arrive (the
 * start of a head the codec has not decoded yet). A connection that turns out to be HTTP/2 is handed over at the
 * first undecoded frame this handler sees to {@link Http2Deadlines}, which keeps the same timeouts for streams, from
 * the connection's start. Both time their phases with a {@link PhaseTimer}: a deadline that passes is checked again
 * against the state of the moment, so progress only moves a timestamp, never a timer.
 *
 * <p>A request that expects {@code 100-continue} ({@link ExpectContinue}) has its body timed from the 100, as the
 * client holds it back till then. Answered without a 100, the client will not send the body the connection still
 * owes, so the answer says {@code Connection: close} and the connection is closed once it is written.
 *
 * <p>Placement relies on how Vert.x builds its server pipeline, which Vert.x 5 offers no public hook for: its HTTP
 * codec goes right before its chunked writer or else its idle-state handler (found by their Netty types, as Vert.x
 * itself finds them), and these handlers go right after it. Should an upgrade change that, nothing is silent: a
 * connection without either handler, or whose decoder ends up behind these handlers, logs an error naming the
 * pipeline it found ({@link Placement}), and {@code ClientDeadlinesPlacementTest} fails on plain HTTP and TLS.
 *
 * <p>Not thread-safe: confined to its channel's event loop, as every Netty handler.
 */
public final class ClientDeadlines extends ChannelDuplexHandler {

    /**
     * The three timeouts.
     *
     * @param headerNanos    how long a request head may take to arrive whole
     * @param bodyIdleNanos  the longest pause between body bytes
     * @param keepAliveNanos how long a connection may idle between requests
     */
    public record Settings(long headerNanos, long bodyIdleNanos, long keepAliveNanos) {
        public static Settings ofSeconds(long header, long bodyIdle, long keepAlive) {
            return new Settings(TimeUnit.SECONDS.toNanos(header), TimeUnit.SECONDS.toNanos(bodyIdle),
                    TimeUnit.SECONDS.toNanos(keepAlive));
        }
    }

    enum Phase { HEAD, BODY, WAITING, IDLE, OFF }

    private final Settings settings;
    private final EdgeRefusals refusals;
    private final Placement placement;
    private ChannelHandlerContext ctx;
    private final PhaseTimer<Phase> timer = new PhaseTimer<>(new Timing());
    /** Requests whose head was read and whose response has not ended (more than one only when pipelined). */
    private int openExchanges;
    private long headsRead;
    private long responsesStarted;
    private boolean readingBody;
    /** The request being read expects 100-continue, has had no 100 and sent no body byte yet. */
    private boolean awaitingContinue;
    /** The answer being written ends with the connection: its request's body will never come. */
    private boolean closeAfterAnswer;
    private boolean headStarted = true;
    private boolean headBytes;
    private long headStartNanos = System.nanoTime();
    private long lastBodyNanos;
    private long idleSinceNanos;
    private boolean off;

    public ClientDeadlines(Settings settings, EdgeRefusals refusals, Placement placement) {
        this.settings = settings;
        this.refusals = refusals;
        this.placement = placement;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        timer.attach(ctx.channel());
        timer.update();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    /** Raw bytes arrived (reported by {@link FirstBytes}): the start of a head when nothing else is going on. */
    void bytesArrived() {
        if (off) {
            return;
        }
        if (ctx == null) {
            // Not in place yet (TLS handshake, or the bytes Vert.x reads to set the pipeline up): the first head.
            headBytes = true;
            return;
        }
        if (openExchanges == 0 && !readingBody && !headStarted) {
            headStarted = true;
            headStartNanos = System.nanoTime();
        }
        headBytes |= headStarted;
        timer.update();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!(msg instanceof HttpObject)) {
            // Undecoded frames after the codec: an HTTP/2 connection (prior knowledge or upgrade), timed from here
            // by its own deadlines; unless the HTTP/1 decoder is behind this handler: then Vert.x's pipeline is not
            // what it was.
            if (!off && decoderBehind(ctx)) {
                placement.misplaced("is in front of Vert.x's HTTP decoder", ctx.pipeline());
            } else if (!off && !Http2Deadlines.takeOver(ctx, settings, refusals, headStartNanos)) {
                placement.misplaced("found no HTTP/2 handler behind it on an HTTP/2 connection", ctx.pipeline());
            }
            stepAside();
        } else if (!off) {
            if (msg instanceof HttpRequest request) {
                if (headsRead == 0) {
                    dropIdleHandler(ctx.pipeline());
                }
                headStarted = false;
                headBytes = false;
                openExchanges++;
                headsRead++;
                readingBody = true;
                awaitingContinue = HttpUtil.is100ContinueExpected(request);
                lastBodyNanos = System.nanoTime();
            }
            if (msg instanceof HttpContent) {
                awaitingContinue = false;
                lastBodyNanos = System.nanoTime();
                if (msg instanceof LastHttpContent) {
                    readingBody = false;
                }
            }
            timer.update();
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            // Vert.x's idle handler is only this handler's anchor in the pipeline: the phases above decide, and on an
            // HTTP/2 connection Http2Deadlines (a long silent answer is not an idle connection).
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    /**
     * Takes Vert.x's idle handler out once the first request is decoded. It only anchors the codec and these
     * deadlines (both in place by then), and its events are held back above; yet it listens to every write and reads
     * the clock at every read, about 1 % of the event loop's samples at saturation. On HTTP/2 it stays: the codec there
     * is set up later, and a connection's first frames are not requests.
     */
    private static void dropIdleHandler(ChannelPipeline pipeline) {
        ChannelHandler idle = pipeline.get(IdleStateHandler.class);
        if (idle != null) {
            pipeline.remove(idle);
        }
    }

    /** A close while the client still sends a body the gateway did not read lingers: {@link LingeringClose}. */
    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        if (readingBody && !off) {
            stop();
            LingeringClose.close(ctx, promise);
        } else {
            super.close(ctx, promise);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        boolean interim = msg instanceof HttpResponse r && r.status().codeClass() == HttpStatusClass.INFORMATIONAL;
        if (interim && !off && awaitingContinue && readingBody) {
            // The client sends its body from now on.
            awaitingContinue = false;
            lastBodyNanos = System.nanoTime();
            timer.update();
        } else if (!interim && !off) {
            if (msg instanceof HttpResponse response) {
                responsesStarted++;
                if (awaitingContinue && readingBody) {
                    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                    closeAfterAnswer = true;
                }
            }
            if (msg instanceof LastHttpContent && openExchanges > 0 && --openExchanges == 0) {
                idleSinceNanos = System.nanoTime();
            }
            timer.update();
            if (msg instanceof LastHttpContent && closeAfterAnswer) {
                closeAfterAnswer = false;
                ChannelPromise written = promise.unvoid();
                super.write(ctx, msg, written);
                // Through this handler's close: the client may send the body after all, so it lingers.
                written.addListener(done -> ctx.channel().close());
                return;
            }
        }
        super.write(ctx, msg, promise);
    }

    /** The 408 for a request body that stalled longer than {@code bodyIdleNanos}, on HTTP/1.x or HTTP/2. */
    static ApiError stalledBody(long bodyIdleNanos) {
        return new ApiError(408, "client_body_timeout", "No request body bytes arrived for "
                + TimeUnit.NANOSECONDS.toSeconds(bodyIdleNanos) + " s");
    }

    /** Answers 408 from here (Vert.x has no response of its own under way) and closes once it is written. */
    private void timeOut(ApiError error) {
        stop();
        refusals.refused(error.code());
        ByteBuf body = Unpooled.copiedBuffer(error.json(), StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.REQUEST_TIMEOUT, body);
        response.headers().set("content-type", "application/json").set("content-length", body.readableBytes())
                .set("connection", "close").set("x-smg-error-code", error.code());
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    private static boolean decoderBehind(ChannelHandlerContext ctx) {
        boolean behind = false;
        for (Map.Entry<String, ChannelHandler> handler : ctx.pipeline()) {
            if (handler.getValue() == ctx.handler()) {
                behind = true;
            } else if (behind && handler.getValue() instanceof HttpRequestDecoder) {
                return true;
            }
        }
        return false;
    }

    /** Stops timing for good but stays in place, still holding Vert.x's idle events back. */
    private void stepAside() {
        if (off) {
            return;
        }
        stop();
        FirstBytes first = ctx.pipeline().get(FirstBytes.class);
        if (first != null) {
            ctx.pipeline().remove(first);
        }
    }

    private void stop() {
        off = true;
        timer.cancel();
    }

    /** The phases above, for the timer. */
    private final class Timing implements PhaseTimer.Phases<Phase> {

        @Override
        public Phase phase() {
            if (off) {
                return Phase.OFF;
            }
            if (readingBody && !awaitingContinue) {
                return Phase.BODY;
            }
            if (openExchanges > 0) {
                return Phase.WAITING;
            }
            return headStarted ? Phase.HEAD : Phase.IDLE;
        }

        @Override
        public long deadline(Phase phase) {
            return switch (phase) {
                case HEAD -> headStartNanos + settings.headerNanos();
                case BODY -> lastBodyNanos + settings.bodyIdleNanos();
                case IDLE -> idleSinceNanos + settings.keepAliveNanos();
                case WAITING, OFF -> Long.MAX_VALUE;
            };
        }

        @Override
        public void checking(Phase phase) {
            if (phase == Phase.BODY && !ctx.channel().config().isAutoRead()) {
                // The gateway is holding the body back; the client is not the one pausing.
                lastBodyNanos = System.nanoTime();
            }
        }

        @Override
        public void expired(Phase phase) {
            switch (phase) {
                case HEAD -> {
                    if (headBytes) {
                        timeOut(new ApiError(408, "client_header_timeout", "The request head did not arrive within "
                                + TimeUnit.NANOSECONDS.toSeconds(settings.headerNanos()) + " s"));
                    } else {
                        ctx.close();
                    }
                }
                case BODY -> {
                    if (responsesStarted >= headsRead) {
                        ctx.close();
                    } else {
                        timeOut(stalledBody(settings.bodyIdleNanos()));
                    }
                }
                case IDLE -> ctx.close();
                case WAITING, OFF -> { }
            }
        }
    }

    /**
     * Where a connection's deadlines could not go, said loudly: an error log naming the pipeline found, once per
     * transport (every later connection is in the same case). Thread-safe.
     */
    public static final class Placement {

        private static final Logger LOG = LoggerFactory.getLogger(ClientDeadlines.class);

        private final AtomicBoolean reported = new AtomicBoolean();

        void misplaced(String what, ChannelPipeline pipeline) {
            if (reported.compareAndSet(false, true)) {
                LOG.error("ClientDeadlines {} in the pipeline {}: Vert.x no longer builds its HTTP server pipeline"
                        + " the way ClientDeadlines.FirstBytes expects, so the client header, body and keep-alive"
                        + " timeouts are off (reported once for all connections)", what, pipeline.names());
            }
        }
    }

    /**
     * At the head of the pipeline from the moment of accept: reports raw bytes to its {@link ClientDeadlines}, and
     * puts that handler in place right after Vert.x's HTTP codec: at registration for plain HTTP (the codec's anchor
     * is there already), after the handshake for TLS. Only servers with an idle timeout get one (see
     * {@link ClientDeadlinesTransport}): the idle handler that comes with it is the anchor for plain HTTP.
     */
    public static final class FirstBytes extends ChannelInboundHandlerAdapter {

        /**
         * Vert.x inserts its HTTP codec just before its chunked writer (TLS) or else its idle-state handler (present
         * when the server has an idle timeout), so the deadlines go right after whichever of the two is there. By
         * type, as Vert.x finds them itself.
         */
        private static final List<Class<? extends ChannelHandler>> ANCHORS =
                List.of(ChunkedWriteHandler.class, IdleStateHandler.class);

        private final ClientDeadlines deadlines;
        private boolean placed;

        public FirstBytes(ClientDeadlines deadlines) {
            this.deadlines = deadlines;
        }

        @Override
        public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
            ctx.fireChannelRegistered();
            ChannelHandlerContext ssl = ctx.pipeline().context(SslHandler.class);
            if (place(ctx.pipeline())) {
                return;
            }
            if (ssl != null) {
                // TLS: Vert.x sets the HTTP pipeline up once the handshake is done, before the first decrypted bytes
                // move on; a one-shot handler right after the TLS one places the deadlines at that moment.
                ((SslHandler) ssl.handler()).handshakeFuture().addListener(done -> {
                    if (done.isSuccess() && ctx.channel().isActive()) {
                        ctx.pipeline().addAfter(ssl.name(), null, new AfterHandshake(this));
                    }
                });
            } else {
                unplaced(ctx.pipeline());
            }
        }

        /** Puts the deadlines after an anchor when one is there; whether they are in place. */
        private boolean place(ChannelPipeline pipeline) {
            for (Class<? extends ChannelHandler> anchor : ANCHORS) {
                ChannelHandlerContext at = pipeline.context(anchor);
                if (!placed && at != null) {
                    placed = true;
                    pipeline.addAfter(at.name(), "clientDeadlines", deadlines);
                    // The same place suits the decoder's own rules, before the codec has decoded anything.
                    StrictRequestDecoder.placeBefore(pipeline, at.name());
                }
            }
            return placed;
        }

        /** No anchor where one was expected: said loudly, and this connection goes without deadlines. */
        private void unplaced(ChannelPipeline pipeline) {
            deadlines.placement.misplaced("found neither a ChunkedWriteHandler nor an IdleStateHandler to follow",
                    pipeline);
            pipeline.remove(this);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            deadlines.bytesArrived();
            ctx.fireChannelRead(msg);
        }
    }

    /** Sees the first decrypted bytes of a TLS connection, when Vert.x's HTTP pipeline is in place, and places. */
    private static final class AfterHandshake extends ChannelInboundHandlerAdapter {
        private final FirstBytes first;

        AfterHandshake(FirstBytes first) {
            this.first = first;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.pipeline().remove(this);
            if (!first.place(ctx.pipeline())) {
                first.unplaced(ctx.pipeline());
            }
            ctx.fireChannelRead(msg);
        }
    }
}

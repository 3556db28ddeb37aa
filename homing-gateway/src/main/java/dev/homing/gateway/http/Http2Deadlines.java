package dev.homing.gateway.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * Deadlines on the client side of one HTTP/2 connection over plain text (h2c, by prior knowledge or upgrade), the
 * counterpart of {@link ClientDeadlines}, which hands a connection over here once it turns out to be HTTP/2. With the
 * same three timeouts, the connection is in one of three phases:
 *
 * <pre>
 *   OPENING  from the connection's start, its first request must open a stream within the header timeout: else
 *            GOAWAY and close (a client that sends the preface, or its settings, and then nothing holds no socket)
 *   STREAMS  a stream is open: no deadline of the connection's own (each request has the request timeout, and its
 *            body, while the gateway reads it, the body timeout: {@link BodyReader})
 *   IDLE     no stream open: GOAWAY and close after the keep-alive timeout
 * </pre>
 * And a rule for streams: one the gateway has answered in full while its client still sends the body (a 413, or an
 * answer that needed no body) is reset with NO_ERROR, as RFC 9113 section 8.1 lets a server do, so the client stops
 * sending and the stream holds the connection no longer. Once a header block is whole a stream is open, so a client
 * that dribbles one on an idle connection is bounded by the keep-alive timeout.
 *
 * <p>It listens to the {@link Http2Connection} of Vert.x's HTTP/2 handler (a Netty {@link Http2ConnectionHandler},
 * found by its type). Its one timer, checked again against the state of the moment when it fires, is a
 * {@link PhaseTimer}. Not thread-safe: confined to its channel's event loop.
 */
final class Http2Deadlines extends Http2ConnectionAdapter implements PhaseTimer.Phases<Http2Deadlines.Phase> {

    enum Phase { OPENING, STREAMS, IDLE }

    private final ClientDeadlines.Settings settings;
    private final EdgeRefusals refusals;
    private final Channel channel;
    private final Http2ConnectionHandler handler;
    private final ChannelHandlerContext handlerContext;
    private final Http2Connection connection;
    private final long startNanos;
    /** A stream has been open on the connection: it is past OPENING for good. */
    private boolean opened;
    private long idleSinceNanos;
    private final PhaseTimer<Phase> timer = new PhaseTimer<>(this);

    private Http2Deadlines(ClientDeadlines.Settings settings, EdgeRefusals refusals, ChannelHandlerContext context,
                           Http2ConnectionHandler handler, long startNanos) {
        this.settings = settings;
        this.refusals = refusals;
        this.channel = context.channel();
        this.handler = handler;
        this.handlerContext = context;
        this.connection = handler.connection();
        this.startNanos = startNanos;
        this.opened = connection.numActiveStreams() > 0;
        this.idleSinceNanos = System.nanoTime();
        timer.attach(channel);
    }

    /**
     * Times the HTTP/2 connection of {@code pipelineContext}'s channel from here, {@code startNanos} being when the
     * connection began; false when the pipeline holds no HTTP/2 handler to listen to.
     */
    static boolean takeOver(ChannelHandlerContext pipelineContext, ClientDeadlines.Settings settings,
                            EdgeRefusals refusals, long startNanos) {
        Http2ConnectionHandler handler = pipelineContext.pipeline().get(Http2ConnectionHandler.class);
        if (handler == null) {
            return false;
        }
        Http2Deadlines deadlines = new Http2Deadlines(settings, refusals, pipelineContext.pipeline().context(handler),
                handler, startNanos);
        deadlines.connection.addListener(deadlines);
        deadlines.channel.closeFuture().addListener(closed -> deadlines.timer.cancel());
        deadlines.timer.update();
        return true;
    }

    @Override
    public void onStreamActive(Http2Stream stream) {
        opened = true;
        timer.update();
    }

    @Override
    public void onStreamClosed(Http2Stream stream) {
        if (connection.numActiveStreams() == 0) {
            idleSinceNanos = System.nanoTime();
        }
        timer.update();
    }

    @Override
    public void onStreamHalfClosed(Http2Stream stream) {
        if (stream.state() == Http2Stream.State.HALF_CLOSED_LOCAL) {
            // Answered, its body still coming. Not from inside Netty's own state change: just after it.
            int id = stream.id();
            channel.eventLoop().execute(() -> resetAnswered(id));
        }
    }

    private void resetAnswered(int streamId) {
        Http2Stream stream = connection.stream(streamId);
        if (stream != null && stream.state() == Http2Stream.State.HALF_CLOSED_LOCAL) {
            handler.resetStream(handlerContext, streamId, Http2Error.NO_ERROR.code(), handlerContext.newPromise());
            handlerContext.flush();
        }
    }

    @Override
    public Phase phase() {
        if (connection.numActiveStreams() > 0) {
            return Phase.STREAMS;
        }
        return opened ? Phase.IDLE : Phase.OPENING;
    }

    @Override
    public long deadline(Phase phase) {
        return switch (phase) {
            case OPENING -> startNanos + settings.headerNanos();
            case IDLE -> idleSinceNanos + settings.keepAliveNanos();
            case STREAMS -> Long.MAX_VALUE;
        };
    }

    @Override
    public void expired(Phase phase) {
        if (phase == Phase.OPENING) {
            refusals.refused("client_header_timeout");
        }
        // From the tail of the pipeline, so Vert.x's HTTP/2 handler sends its GOAWAY before the close.
        channel.close();
    }
}

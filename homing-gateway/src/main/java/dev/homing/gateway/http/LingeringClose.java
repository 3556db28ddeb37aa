package dev.homing.gateway.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes an HTTP/1.x connection whose client is still sending a request body the gateway has answered without
 * reading (a 413, a 503, a 408), as nginx's lingering close does. Closing at once, with the client's bytes unread,
 * makes the kernel reset the connection, and a reset can destroy the answer before the client reads it. So: the
 * answer goes out whole, then a FIN (the output is shut down), and what the client still sends is read and dropped
 * at the head of the pipeline, undecoded, until it closes its side, {@link #MAX_DROPPED_BYTES} have come or
 * {@link #LINGER_MILLIS} have passed; then the connection closes.
 *
 * <p>Not thread-safe: confined to its channel's event loop, as every Netty handler.
 */
final class LingeringClose extends ChannelInboundHandlerAdapter {

    /** Time for the answer and the FIN to reach the client; a client that keeps sending after that is not reading. */
    private static final long LINGER_MILLIS = 1_000;
    /** Enough for the bytes already in flight on a fast link; beyond it the client is just uploading on. */
    private static final long MAX_DROPPED_BYTES = 16L << 20;

    private final ChannelPromise closed;
    /** This handler's place, at the head: a close from here goes straight to the socket. */
    private ChannelHandlerContext head;
    private ScheduledFuture<?> timer;
    private long dropped;

    private LingeringClose(ChannelPromise closed) {
        this.closed = closed;
    }

    /**
     * Closes {@code ctx}'s channel, completing {@code promise}, once what was written before has gone out and the
     * client has had its moment to read it. Call from a handler's {@code close}, on the event loop.
     */
    static void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (!(ctx.channel() instanceof DuplexChannel channel) || !channel.isActive()) {
            ctx.close(promise);
            return;
        }
        LingeringClose lingering = new LingeringClose(promise);
        ctx.pipeline().addFirst(lingering);
        // An empty write completes once every earlier one has gone to the socket: only then may the output end.
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
            if (channel.isActive()) {
                channel.shutdownOutput();
            }
        });
        lingering.timer = ctx.executor().schedule(lingering::closeNow, LINGER_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        head = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf bytes) {
            dropped += bytes.readableBytes();
        }
        ReferenceCountUtil.release(msg);
        if (dropped > MAX_DROPPED_BYTES) {
            closeNow();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        timer.cancel(false);
        closed.trySuccess();
        ctx.fireChannelInactive();
    }

    private void closeNow() {
        timer.cancel(false);
        head.close(closed);
    }
}
